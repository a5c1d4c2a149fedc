//! The training thread: feeds received samples to the trainer, steps Adam as far as the replay
//! window allows, takes a candidate every so many steps and gates it on the gating pool, promotes
//! by the core rule, and checkpoints. It is a plain thread, never a tokio task.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tigers_core::gate::{GateSettings, GateTally, gate_openings, play_gate_pair};
use tigers_core::selfplay::Sample;
use tigers_core::stats::{GatePolicy, GateRecord, PromotionDecision, promote};
use tigers_core::tablebase::Accuracy;
use tigers_core::trainer::Trainer;
use tigers_core::{Network, Tablebase};
use tigers_proto::v1;
use tracing::{error, info};

use crate::ledger::{GateRow, GenerationRow, ThroughputRow};
use crate::rundir::Checkpoint;
use crate::state::{Shared, unix_now};
use crate::workload::DepthControl;

/// Steps between rows in the ledger's loss table.
const LOSS_EVERY: u64 = 50;
/// How often the ledger's throughput table gets a row.
const THROUGHPUT_EVERY: Duration = Duration::from_secs(10);
/// Steps taken between looks at the inbox.
const STEPS_PER_TURN: usize = 16;

/// What the training thread is sent.
pub enum TrainingInput {
	/// A stored batch: its ledger id and samples.
	Batch {
		/// The ledger's id of the batch.
		id: i64,
		/// Its samples.
		samples: Vec<Sample>,
	},
	/// Checkpoint and stop.
	Stop,
}

/// Where training starts from.
pub struct TrainingStart {
	/// The trainer, with its window restored.
	pub trainer: Trainer,
	/// Training steps so far in the run.
	pub steps: u64,
	/// The newest ledger batch whose samples are in the window.
	pub last_batch_id: i64,
	/// The incumbent's gate record; `None` until generation 0 has been gated.
	pub incumbent: Option<GateRecord>,
	/// Whether that record is a measurement on fresh openings rather than the incumbent's own
	/// promotion gate; if not, the incumbent is measured first.
	pub incumbent_measured: bool,
	/// Gate matches so far in the run; each match draws its openings from its own number.
	pub gates_played: u64,
}

/// Starts the training thread; returns its inbox and handle.
pub fn start(
	shared: Arc<Shared>,
	start: TrainingStart,
	pool: Arc<rayon::ThreadPool>,
) -> (Sender<TrainingInput>, JoinHandle<()>) {
	let (sender, inbox) = channel();
	let handle = std::thread::Builder::new()
		.name("training".into())
		.spawn(move || {
			crate::priority::lower_this_thread();
			let measured = start.incumbent_measured;
			Training::new(shared, start, pool).run(&inbox, measured);
		})
		.expect("the training thread starts");
	(sender, handle)
}

/// What a gate match is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateKind {
	/// Measuring the incumbent on fresh openings, all pairs played: the first net, and every net
	/// just promoted, whose promotion score is biased upwards by its selection (the best of many
	/// noisy candidates) and would otherwise be a bar later candidates cannot reach.
	Measure,
	/// A candidate that may replace the incumbent.
	Candidate,
}

/// The `stop` recorded for measurement gates, which a restart looks for.
pub const MEASURED: &str = "Measured";

/// A gate match that finished on the gating pool.
struct GateDone {
	kind: GateKind,
	candidate: Network,
	steps: u64,
	tally: GateTally,
}

struct Training {
	shared: Arc<Shared>,
	trainer: Trainer,
	steps: u64,
	last_batch_id: i64,
	incumbent: Option<GateRecord>,
	pool: Arc<rayon::ThreadPool>,
	gate_results: (Sender<GateDone>, Receiver<GateDone>),
	gating: bool,
	/// The incumbent, when it still has to be measured.
	to_measure: Option<Network>,
	gates_played: u64,
	last_candidate: u64,
	/// The steps, the newest batch in the window, and the time of the last checkpoint.
	last_checkpoint: u64,
	last_checkpoint_batch: i64,
	last_checkpoint_at: Instant,
	last_throughput: Instant,
	losses_since_row: Vec<f32>,
	/// The rates behind the self-play depth, and the decisions on it.
	depth_control: DepthControl,
}

impl Training {
	fn new(shared: Arc<Shared>, start: TrainingStart, pool: Arc<rayon::ThreadPool>) -> Training {
		let settings = &shared.settings;
		let depth_control = DepthControl::new(
			settings.depth,
			settings.adapt.max_depth,
			settings.adapt.period,
			start.trainer.settings.batch_size,
			start.trainer.settings.max_uses,
			start.trainer.window.departed(),
			Instant::now(),
		);
		Training {
			depth_control,
			shared,
			last_candidate: start.steps,
			last_checkpoint: start.steps,
			last_checkpoint_batch: start.last_batch_id,
			last_checkpoint_at: Instant::now(),
			trainer: start.trainer,
			steps: start.steps,
			last_batch_id: start.last_batch_id,
			incumbent: start.incumbent,
			pool,
			gate_results: channel(),
			gating: false,
			to_measure: None,
			gates_played: start.gates_played,
			last_throughput: Instant::now(),
			losses_since_row: Vec::new(),
		}
	}

	fn run(mut self, inbox: &Receiver<TrainingInput>, start_measured: bool) {
		if self.incumbent.is_none() || !start_measured {
			// A new run, or one stopped before its incumbent was measured: measure it first,
			// so candidates have a fair score to beat.
			self.to_measure = Some((*self.shared.current().net).clone());
		}
		loop {
			// 0. A tablebase solved since the start is used for targets from now on.
			if self.trainer.tablebase.is_none() {
				self.trainer.tablebase = self.shared.tablebase.table();
			}
			// 1. Take in what arrived, without waiting.
			loop {
				match inbox.try_recv() {
					Ok(TrainingInput::Batch { id, samples }) => self.add(id, samples),
					Ok(TrainingInput::Stop) | Err(std::sync::mpsc::TryRecvError::Disconnected) => {
						return self.stop();
					}
					Err(std::sync::mpsc::TryRecvError::Empty) => break,
				}
			}
			// 2. Train as far as the window allows, a few steps at a time.
			let trained = self.train_some();
			// 3. Finish a gate that is done; start one when a candidate is due.
			while let Ok(done) = self.gate_results.1.try_recv() {
				self.finish_gate(done);
			}
			if !self.gating {
				if let Some(incumbent) = self.to_measure.take() {
					self.start_gate(GateKind::Measure, incumbent, self.steps);
				} else if self.steps
					>= self.last_candidate + self.shared.settings.steps_per_candidate
				{
					self.last_candidate = self.steps;
					let candidate = self.trainer.net.clone();
					self.start_gate(GateKind::Candidate, candidate, self.steps);
				}
			}
			// 4. Checkpoint and record throughput now and then.
			if self.is_checkpoint_due() {
				self.checkpoint();
			}
			if self.last_throughput.elapsed() >= THROUGHPUT_EVERY {
				self.record_throughput();
			}
			// 5. Once a period, the self-play depth for the fleet's rate of samples.
			self.adapt_depth();
			// 6. Nothing to train on: wait for samples instead of spinning.
			if trained == 0 {
				match inbox.recv_timeout(Duration::from_millis(200)) {
					Ok(TrainingInput::Batch { id, samples }) => self.add(id, samples),
					Ok(TrainingInput::Stop) | Err(RecvTimeoutError::Disconnected) => {
						return self.stop();
					}
					Err(RecvTimeoutError::Timeout) => {}
				}
			}
		}
	}

	fn add(&mut self, id: i64, samples: Vec<Sample>) {
		self.depth_control.arrived(samples.len());
		self.trainer.add_samples(samples);
		self.last_batch_id = self.last_batch_id.max(id);
		let mut live = self.shared.live();
		live.window_samples = self.trainer.window.len() as u64;
	}

	fn train_some(&mut self) -> usize {
		// Several steps in one call: with more than one training thread, they are started
		// once for the call rather than once a step.
		let began = Instant::now();
		let losses = self.trainer.train(STEPS_PER_TURN);
		let trained = losses.len();
		self.depth_control.trained(trained, began.elapsed());
		if trained > 0 {
			self.steps += trained as u64;
			self.losses_since_row.extend_from_slice(&losses);
			let mut live = self.shared.live();
			live.training_steps = self.steps;
			for loss in losses {
				live.push_loss(loss);
			}
		}
		if self.losses_since_row.len() as u64 >= LOSS_EVERY {
			let mean =
				self.losses_since_row.iter().sum::<f32>() / self.losses_since_row.len() as f32;
			self.losses_since_row.clear();
			self.shared.live().loss_history.push(v1::LossPoint {
				training_steps: self.steps,
				loss: f64::from(mean),
			});
			// Written with the ledger writer's next group: training never waits for the disk.
			let (steps, now) = (self.steps, unix_now());
			self.shared
				.committer()
				.later("recording the loss", move |ledger| {
					ledger.record_loss(steps, mean, now)
				});
		}
		trained
	}

	/// Ends the depth rule's period when due: publishes its figures and tells the workers a
	/// new depth if it decided one.
	fn adapt_depth(&mut self) {
		let departed = self.trainer.window.departed();
		let Some(work) = self.depth_control.tick(Instant::now(), departed) else {
			return;
		};
		let before = self.shared.selfplay_depth();
		if work.depth != before {
			info!(
				from = before,
				to = work.depth,
				arriving_per_second = work.arriving_per_second,
				trainable_per_second = work.trainable_per_second,
				"self-play depth changed"
			);
		}
		self.shared.set_selfplay_depth(work.depth, work);
	}

	fn start_gate(&mut self, kind: GateKind, candidate: Network, steps: u64) {
		self.gating = true;
		let base = self.shared.settings.gate;
		let policy = match kind {
			// A measurement plays every pair: no early stop, the most accurate score.
			GateKind::Measure => GatePolicy {
				min_pairs: base.policy.max_pairs,
				..base.policy
			},
			GateKind::Candidate => base.policy_against(self.incumbent.as_ref()),
		};
		// Fresh openings for every match, so no net is judged on the openings that selected it.
		let seed = base
			.seed
			.wrapping_add(self.gates_played.wrapping_mul(0x9e37_79b9_7f4a_7c15));
		self.gates_played += 1;
		let settings = GateSettings {
			policy,
			seed,
			..base
		};
		let sender = self.gate_results.0.clone();
		let pool = self.pool.clone();
		// The table only judges the players' moves; neither searches with it in the gate.
		let judge = self.shared.tablebase.table();
		std::thread::Builder::new()
			.name("gate".into())
			.spawn(move || {
				let net = Arc::new(candidate);
				let tally = pool.install(|| run_gate_parallel(&net, &settings, judge.as_deref()));
				let candidate = Arc::try_unwrap(net).unwrap_or_else(|net| (*net).clone());
				let _ = sender.send(GateDone {
					kind,
					candidate,
					steps,
					tally,
				});
			})
			.expect("the gate thread starts");
	}

	fn finish_gate(&mut self, done: GateDone) {
		self.gating = false;
		let Some(record) = done.tally.record() else {
			return;
		};
		let current = self.shared.current();
		let (decision, generation, stop) = match done.kind {
			GateKind::Measure => {
				let reason = format!(
					"generation {} measured on fresh openings: the score to beat",
					current.assignment.generation
				);
				// Recorded as promoted: this row is the incumbent's record, which is how a
				// restart finds it.
				let decision = PromotionDecision {
					promote: true,
					reason,
				};
				(
					decision,
					current.assignment.generation,
					MEASURED.to_string(),
				)
			}
			GateKind::Candidate => {
				let rule = &self.shared.settings.promotion;
				let decision = promote(&record, self.incumbent.as_ref(), rule);
				(
					decision,
					current.assignment.generation + 1,
					format!("{:?}", record.stop),
				)
			}
		};
		let estimate = record.estimate();
		let (t, s) = (done.tally.by_side.as_tigers, done.tally.by_side.as_sheep);
		let now = unix_now();
		let cpu_seconds = {
			let mut live = self.shared.live();
			live.count_cpu(Instant::now());
			live.cpu_seconds
		};
		let row = GateRow {
			id: 0,
			candidate_generation: generation,
			training_steps: done.steps,
			promoted: decision.promote,
			tigers_wins: t.wins,
			tigers_draws: t.draws,
			tigers_losses: t.losses,
			sheep_wins: s.wins,
			sheep_draws: s.draws,
			sheep_losses: s.losses,
			score: estimate.score,
			score_low: estimate.low,
			score_high: estimate.high,
			elo: estimate.elo().elo,
			stop,
			reason: decision.reason.clone(),
			finished_at: now,
			pairs: record.pairs.counts,
			cpu_seconds,
			candidate_exact: done.tally.candidate_accuracy,
			reference_exact: done.tally.reference_accuracy,
		};
		if let Err(e) = self.shared.ledger().record_gate(&row) {
			error!(%e, "could not record the gate");
		}
		info!(generation, kind = ?done.kind, score = %estimate, promoted = decision.promote, reason = %decision.reason, "gate finished");
		self.shared.live().gates.push(gate_summary(&row));
		match done.kind {
			GateKind::Measure => self.incumbent = Some(record),
			GateKind::Candidate if decision.promote => {
				let mut net = done.candidate;
				net.generation = generation;
				if let Err(e) = self.promote_net(net.clone(), done.steps, now) {
					error!(%e, "could not promote the candidate");
					return;
				}
				// Until it is measured, the promotion gate stands for the new incumbent.
				self.incumbent = Some(record);
				self.to_measure = Some(net);
			}
			GateKind::Candidate => {}
		}
	}

	fn promote_net(
		&mut self,
		net: Network,
		steps: u64,
		now: f64,
	) -> Result<(), crate::StorageError> {
		let sha256 = self.shared.run_dir.save_net(&net)?;
		let samples = self.shared.live().samples_total;
		self.shared.ledger().record_generation(&GenerationRow {
			generation: net.generation,
			sha256: sha256.clone(),
			training_steps: steps,
			promoted_at: now,
			samples_at_promotion: samples,
		})?;
		info!(generation = net.generation, "promoted");
		self.shared.promote(Arc::new(net), sha256);
		// A checkpoint now keeps the promotion and the training state in step on disk.
		self.checkpoint();
		Ok(())
	}

	/// Whether to checkpoint now: after `steps_per_checkpoint` steps, or after `checkpoint_every`
	/// if anything changed since the last one (steps taken, or samples added to the window), so
	/// that a coordinator killed often still keeps its training.
	fn is_checkpoint_due(&self) -> bool {
		let settings = &self.shared.settings;
		if self.steps >= self.last_checkpoint + settings.steps_per_checkpoint {
			return true;
		}
		let changed =
			self.steps > self.last_checkpoint || self.last_batch_id > self.last_checkpoint_batch;
		changed && self.last_checkpoint_at.elapsed() >= settings.checkpoint_every
	}

	fn checkpoint(&mut self) {
		self.last_checkpoint = self.steps;
		self.last_checkpoint_batch = self.last_batch_id;
		self.last_checkpoint_at = Instant::now();
		let checkpoint = Checkpoint {
			net: self.trainer.net.clone(),
			adam: self.trainer.adam.clone(),
			window: self.trainer.window.iter().copied().collect(),
			window_capacity: self.trainer.window.capacity(),
			max_uses: self.trainer.settings.max_uses,
			training_steps: self.steps,
			last_batch_id: self.last_batch_id,
		};
		if let Err(e) = self.shared.run_dir.save_checkpoint(&checkpoint) {
			error!(%e, "checkpoint failed");
			return;
		}
		// The checkpoint now holds the window, so the ledger's copies of the samples up to
		// `last_batch_id` are no longer needed to rebuild it: the ledger's writer prunes them,
		// a chunk at a time, and later compacts the old rows (`ledger::compaction`).
		self.shared.committer().prune_before(self.last_batch_id + 1);
	}

	fn record_throughput(&mut self) {
		self.last_throughput = Instant::now();
		let row = {
			let mut live = self.shared.live();
			live.count_cpu(Instant::now());
			let row = ThroughputRow {
				at: unix_now(),
				samples_total: live.samples_total,
				games_total: live.games_total,
				training_steps: live.training_steps,
				workers_connected: live.workers.values().filter(|w| w.connected).count() as u32,
				cpu_seconds: live.cpu_seconds,
			};
			live.throughput.push(throughput_point(&row));
			row
		};
		self.shared
			.committer()
			.later("recording throughput", move |ledger| {
				ledger.record_throughput(row)
			});
	}

	fn stop(mut self) {
		self.checkpoint();
		info!(steps = self.steps, "training stopped");
	}
}

/// A gate match with pairs played in parallel on the current rayon pool and counted in opening
/// order, so it stops exactly where a match played one pair at a time would; `judge` scores
/// the players' movement-phase moves.
pub fn run_gate_parallel(
	net: &Arc<Network>,
	settings: &GateSettings,
	judge: Option<&Tablebase>,
) -> GateTally {
	let openings = gate_openings(settings);
	let mut tally = GateTally::default();
	let width = rayon::current_num_threads().max(1);
	for chunk in openings.chunks(width) {
		let pairs: Vec<_> = chunk
			.par_iter()
			.map(|o| play_gate_pair(net, settings, o, judge))
			.collect();
		for pair in pairs {
			if tally.add(pair, &settings.policy) {
				return tally;
			}
		}
	}
	tally
}

/// The dashboard's view of a gate row.
pub fn gate_summary(row: &GateRow) -> v1::GateSummary {
	let side = |w, d, l| {
		Some(v1::SideResult {
			wins: w,
			draws: d,
			losses: l,
		})
	};
	v1::GateSummary {
		generation: row.candidate_generation,
		training_steps: row.training_steps,
		promoted: row.promoted,
		as_tigers: side(row.tigers_wins, row.tigers_draws, row.tigers_losses),
		as_sheep: side(row.sheep_wins, row.sheep_draws, row.sheep_losses),
		score: row.score,
		score_low: row.score_low,
		score_high: row.score_high,
		reason: row.reason.clone(),
		finished_at: row.finished_at,
		elo: row.elo,
		cpu_hours: row.cpu_seconds / 3600.0,
		measurement: row.stop == MEASURED,
		candidate_exact: exact(row.candidate_exact),
		reference_exact: exact(row.reference_exact),
	}
}

/// An accuracy for the wire; absent for matches played without a tablebase.
pub fn exact(accuracy: Accuracy) -> Option<v1::ExactAccuracy> {
	(accuracy.moves > 0).then_some(v1::ExactAccuracy {
		moves: accuracy.moves,
		kept: accuracy.kept,
	})
}

/// The dashboard's view of a throughput row.
pub fn throughput_point(row: &ThroughputRow) -> v1::ThroughputPoint {
	v1::ThroughputPoint {
		at: row.at,
		samples_total: row.samples_total,
		games_total: row.games_total,
		training_steps: row.training_steps,
		workers_connected: row.workers_connected,
		cpu_hours: row.cpu_seconds / 3600.0,
	}
}
