//! Spot checks of workers' work: a small random share of received positions is searched again
//! with the same net and depth, and a worker whose scores disagree is flagged. The self-play
//! depth changes with the fleet's rate (`workload`), so a position is searched at the depth in
//! force and, if that disagrees, at the one before it, whose batches may still be arriving.
//!
//! The re-search runs on its own thread, resting between searches so that it takes at most
//! `CPU_SHARE` of a core, with one player per recent generation kept from search to search.
//! Each search starts from an empty table, while the worker searched with a table warm from the
//! game's earlier moves, so scores may differ a little even from an honest worker; only a
//! difference beyond [`TOLERANCE`] counts. Only placement-phase positions are checked: later,
//! the worker's search may have scored a repetition of the game's earlier positions as a draw,
//! and a sample does not carry that history. Positions chosen by
//! exploration (the random and softmax plies) carry the chosen move's score rather than the
//! best one and are skipped too. A worker that holds the run's tablebase scores won and lost
//! positions exactly where a search without it sees only the net, so a position that disagrees
//! is searched once more with the table before the worker is flagged.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::search::{MinimaxPlayer, SearchSettings, score_to_value};
use tigers_core::selfplay::Sample;
use tigers_core::{NeuralPlayer, Tablebase};
use tracing::warn;

use crate::live::Shared;

/// How far a re-searched value may be from the worker's (values lie in -1..1).
pub(crate) const TOLERANCE: f32 = 0.3;

/// The share of one core the re-search takes at most. At 1% of the positions, a fleet sending
/// 100,000 samples a second offers a thousand a second, more than a core can search at depth
/// 3; a quarter of a core keeps the check going and leaves the rest to ingest and training.
const CPU_SHARE: f64 = 0.25;

/// Positions waiting to be re-searched, at most; when full, new offers are dropped (the check is
/// a sample, not an audit).
const QUEUE: usize = 256;

/// Hands positions to the re-search thread.
#[derive(Clone)]
pub(crate) struct Research {
	sender: SyncSender<(String, Sample)>,
	fraction: f64,
	rng: Arc<std::sync::Mutex<Xoshiro256PlusPlus>>,
	first_searched_ply: u32,
}

impl Research {
	/// Starts the re-search thread.
	pub(crate) fn start(shared: Arc<Shared>) -> Research {
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
			.spawn(move || {
				crate::priority::lower_this_thread();
				research_loop(&shared, &receiver);
			})
			.expect("the research thread starts");
		research
	}

	/// Offers a batch's positions; a random share of them is queued for re-search.
	pub(crate) fn offer(&self, worker_id: &str, samples: &[Sample]) {
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
	// One player per recent generation, kept: a fixed-depth search starts from an empty table
	// whatever the player searched before.
	let mut players: HashMap<u64, NeuralPlayer> = HashMap::new();
	let search = SearchSettings::fixed_depth(shared.settings.depth);
	while let Ok((worker_id, sample)) = receiver.recv() {
		if !players.contains_key(&sample.generation) {
			let Ok(net) = shared.run_dir.load_net(sample.generation) else {
				continue;
			};
			// Keep only a few generations: samples come from the latest ones.
			if players.len() >= 4 {
				players.clear();
			}
			let player = NeuralPlayer::with_net(
				Arc::new(net),
				search,
				tigers_core::neural::SELF_PLAY_TABLE_BITS,
			);
			players.insert(sample.generation, player);
		}
		let player = players
			.get_mut(&sample.generation)
			.expect("inserted just above");
		let table = shared
			.current()
			.assignment
			.tablebase_sha256
			.as_ref()
			.and_then(|_| shared.tablebase.table());
		let depths = shared.selfplay_depths();
		let searching = Instant::now();
		let disagrees = disagreement_at(player, &sample, table.as_ref(), &depths);
		// Rests in proportion to the search, so that the checks take at most their share of a
		// core however many positions a flood of batches offers (the rest are dropped).
		std::thread::sleep(searching.elapsed().mul_f64((1.0 - CPU_SHARE) / CPU_SHARE));
		let Some(ours) = disagrees else {
			continue;
		};
		warn!(worker = %worker_id, theirs = sample.score, ours, "a re-searched position disagrees");
		shared.live().worker_flagged(&worker_id);
		if let Err(error) = shared.ledger().record_flag(&worker_id) {
			warn!(%error, "could not record a flag");
		}
	}
}

/// [`disagreement`] at each of `depths` (the self-play depths the sample may have been played
/// at, the run's adapting as the fleet grows): our value at the first if the worker's disagrees
/// at every one, `None` if it agrees at any.
pub(crate) fn disagreement_at(
	player: &mut NeuralPlayer,
	sample: &Sample,
	table: Option<&Arc<Tablebase>>,
	depths: &[u32],
) -> Option<f32> {
	let mut first = None;
	for &depth in depths {
		player.max_depth = depth;
		let ours = disagreement(player, sample, table.cloned())?;
		first.get_or_insert(ours);
	}
	first
}

/// Searches a sample's position again and returns our value when it is further than
/// `TOLERANCE` from the worker's, `None` when the two agree (or the position has no move).
///
/// The position is searched first without the table, as a worker that has none would; when the
/// values disagree and the run names a table, it is searched again with it, since a worker that
/// holds the table scores won and lost positions exactly. The worker is honest if either agrees.
pub fn disagreement(
	player: &mut NeuralPlayer,
	sample: &Sample,
	table: Option<Arc<Tablebase>>,
) -> Option<f32> {
	let value = |player: &mut NeuralPlayer| {
		player
			.pick_move(sample.board, sample.turn, &[])
			.map(|report| score_to_value(report.score))
	};
	let disagrees = |ours: f32| (ours - sample.score).abs() > TOLERANCE;
	player.set_tablebase(None);
	let ours = value(player)?;
	if !disagrees(ours) {
		return None;
	}
	let Some(table) = table else {
		return Some(ours);
	};
	player.set_tablebase(Some(table));
	let exact = value(player);
	player.set_tablebase(None);
	match exact {
		Some(exact) if !disagrees(exact) => None,
		_ => Some(ours),
	}
}
