//! Spot checks of workers' work: a small random share of received positions is searched again
//! with the same net and depth, and a worker whose scores disagree is flagged.
//!
//! The re-search runs on its own thread with a fresh table, while the worker searched with a
//! table warm from the game's earlier moves, so scores may differ a little even from an honest
//! worker; only a difference beyond [`TOLERANCE`] counts. Only placement-phase positions are
//! checked: later, the worker's search may have scored a repetition of the game's earlier
//! positions as a draw, and a sample does not carry that history. Positions chosen by
//! exploration (the random and softmax plies) carry the chosen move's score rather than the
//! best one and are skipped too.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::search::{MinimaxPlayer, SearchSettings, score_to_value};
use tigers_core::selfplay::Sample;
use tigers_core::{Network, NeuralPlayer};
use tracing::warn;

use crate::state::Shared;

/// How far a re-searched value may be from the worker's (values lie in -1..1).
pub const TOLERANCE: f32 = 0.3;

/// Positions waiting to be re-searched, at most; when full, new offers are dropped (the check is
/// a sample, not an audit).
const QUEUE: usize = 256;

/// Hands positions to the re-search thread.
#[derive(Clone)]
pub struct Research {
	sender: SyncSender<(String, Sample)>,
	fraction: f64,
	rng: Arc<std::sync::Mutex<Xoshiro256PlusPlus>>,
	first_searched_ply: u32,
}

impl Research {
	/// Starts the re-search thread.
	pub fn start(shared: Arc<Shared>) -> Research {
		let (sender, receiver) = sync_channel(QUEUE);
		let settings = &shared.settings;
		let research = Research {
			sender,
			fraction: settings.research_fraction,
			rng: Arc::new(std::sync::Mutex::new(Xoshiro256PlusPlus::seed_from_u64(
				settings.seed,
			))),
			first_searched_ply: settings.selfplay.random_plies + settings.selfplay.softmax_plies,
		};
		std::thread::Builder::new()
			.name("research".into())
			.spawn(move || research_loop(&shared, &receiver))
			.expect("the research thread starts");
		research
	}

	/// Offers a batch's positions; a random share of them is queued for re-search.
	pub fn offer(&self, worker_id: &str, samples: &[Sample]) {
		if self.fraction <= 0.0 {
			return;
		}
		let mut rng = self.rng.lock().unwrap_or_else(|p| p.into_inner());
		let checkable =
			|s: &&Sample| s.ply >= self.first_searched_ply && s.board.sheep_in_hand() > 0;
		for sample in samples.iter().filter(checkable) {
			if rng.random_bool(self.fraction.min(1.0))
				&& let Err(TrySendError::Disconnected(_)) =
					self.sender.try_send((worker_id.to_string(), *sample))
			{
				return;
			}
		}
	}
}

fn research_loop(shared: &Shared, receiver: &Receiver<(String, Sample)>) {
	let mut nets: HashMap<u64, Arc<Network>> = HashMap::new();
	let search = SearchSettings::fixed_depth(shared.settings.depth);
	while let Ok((worker_id, sample)) = receiver.recv() {
		let net = match nets.get(&sample.generation) {
			Some(net) => net.clone(),
			None => match shared.run_dir.load_net(sample.generation) {
				Ok(net) => {
					// Keep only a few generations: samples come from the latest ones.
					if nets.len() >= 4 {
						nets.clear();
					}
					let net = Arc::new(net);
					nets.insert(sample.generation, net.clone());
					net
				}
				Err(_) => continue,
			},
		};
		let mut player =
			NeuralPlayer::with_net(net, search, tigers_core::neural::SELF_PLAY_TABLE_BITS);
		let Some(report) = player.pick_move(sample.board, sample.turn, &[]) else {
			continue;
		};
		let ours = score_to_value(report.score);
		if (ours - sample.score).abs() > TOLERANCE {
			warn!(worker = %worker_id, theirs = sample.score, ours, "a re-searched position disagrees");
			if let Some(worker) = shared.live().workers.get_mut(&worker_id) {
				worker.flagged += 1;
			}
			if let Err(error) = shared.ledger().record_flag(&worker_id) {
				warn!(%error, "could not record a flag");
			}
		}
	}
}
