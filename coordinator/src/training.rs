//! The training thread: feeds received samples to the trainer, steps Adam as far as the replay
//! window allows, hands a candidate to [`gating`] every so many steps (which gates it on the
//! gating pool and promotes by the core rule), and checkpoints. It is a plain thread, never a
//! tokio task.
//!
//! The folder holds what the thread drives and what measures its nets: its [`inbox`],
//! [`gating`], the self-play depth ([`workload`]), nets measured at equal time per move
//! ([`timed`], and [`measure`] outside a run), and nets graded on the exact values' suite
//! ([`grades`], `coordinator grade`). It may call `store`, `live` (through `Live`'s events: steps
//! trained, a gate finished, a measurement begun), `config`, `clock`, `priority` and the core
//! crate.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tigers_core::selfplay::Sample;
use tigers_core::trainer::Trainer;
use tigers_proto::v1;
use tracing::{debug, error, info, warn};

use crate::clock::unix_now;
use crate::live::Shared;
use crate::store::rundir::Checkpoint;
use crate::training::workload::DepthControl;

pub(crate) mod gating;
pub(crate) mod grades;
pub(crate) mod inbox;
pub(crate) mod measure;
pub(crate) mod timed;
pub(crate) mod workload;

use gating::{Gating, GatingStart};
use inbox::{Delivery, Inbox};

/// Steps between rows in the ledger's loss table.
const LOSS_EVERY: u64 = 50;
/// How often the ledger's throughput table gets a row.
const THROUGHPUT_EVERY: Duration = Duration::from_secs(10);
/// Steps taken between looks at the inbox.
const STEPS_PER_TURN: usize = 16;

/// Where training starts from.
pub(crate) struct TrainingStart {
	/// The trainer, with its window restored.
	pub trainer: Trainer,
	/// Training steps so far in the run.
	pub steps: u64,
	/// The newest ledger batch whose samples are in the window.
	pub last_batch_id: i64,
	/// What the ledger holds of the run's gate matches.
	pub gating: GatingStart,
}

/// Starts the training thread; returns its inbox (bounded by the window's capacity) and handle.
pub(crate) fn start(
	shared: Arc<Shared>,
	start: TrainingStart,
	pool: Arc<rayon::ThreadPool>,
) -> (Arc<Inbox>, JoinHandle<()>) {
	let inbox = Arc::new(Inbox::new(start.trainer.window.capacity()));
	let taking = inbox.clone();
	let handle = std::thread::Builder::new()
		.name("training".into())
		.spawn(move || {
			crate::priority::lower_this_thread();
			Training::new(shared, start, pool).run(&taking);
		})
		.expect("the training thread starts");
	(inbox, handle)
}

/// How far training has come: the steps taken in the run, and the newest ledger batch whose
/// samples are in the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Trained {
	steps: u64,
	last_batch_id: i64,
}

/// The most of the training thread's time that checkpoints may take: after one that took `t`,
/// the next waits until nine times `t` has passed, whatever the steps. A checkpoint writes the
/// whole replay window: the default 200,000 samples are 5 MB, a twentieth of a window grown
/// to 4 million samples (`--window-beta`), which took 0.26 s a checkpoint to write and sync
/// and was due every 1.4 s, every 500 steps (docs/training.md, "A window that grows").
const CHECKPOINT_SHARE: f64 = 0.1;

/// The last checkpoint: how far training had come, when it was written, and how long that took.
#[derive(Clone, Copy, Debug)]
struct LastCheckpoint {
	trained: Trained,
	at: Instant,
	took: Duration,
}

impl LastCheckpoint {
	/// Whether to checkpoint at `now` with training at `trained`: after `steps_per_checkpoint`
	/// steps, or after `every` if anything changed since the last one (steps taken, or samples
	/// added to the window), so that a coordinator killed often still keeps its training; but
	/// never before the last one's cost allows ([`CHECKPOINT_SHARE`]).
	fn is_due(
		&self,
		trained: Trained,
		now: Instant,
		steps_per_checkpoint: u64,
		every: Duration,
	) -> bool {
		let since = now.saturating_duration_since(self.at);
		if since < self.took.mul_f64(1.0 / CHECKPOINT_SHARE - 1.0) {
			return false;
		}
		let last = self.trained;
		if trained.steps >= last.steps + steps_per_checkpoint {
			return true;
		}
		let changed = trained.steps > last.steps || trained.last_batch_id > last.last_batch_id;
		changed && since >= every
	}
}

/// The training thread's state.
struct Training {
	shared: Arc<Shared>,
	trainer: Trainer,
	trained: Trained,
	/// How far training had come at the last checkpoint, when that was and what it cost.
	checkpointed: LastCheckpoint,
	gating: Gating,
	rows: Rows,
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
		let trained = Trained {
			steps: start.steps,
			last_batch_id: start.last_batch_id,
		};
		Training {
			depth_control,
			gating: Gating::new(shared.clone(), start.gating, start.steps, pool),
			shared,
			trainer: start.trainer,
			trained,
			checkpointed: LastCheckpoint {
				trained,
				at: Instant::now(),
				took: Duration::ZERO,
			},
			rows: Rows {
				losses: Vec::new(),
				throughput_at: Instant::now(),
			},
		}
	}

	fn run(mut self, inbox: &Arc<Inbox>) {
		loop {
			// 0. A tablebase solved since the start is used for targets from now on.
			if self.trainer.tablebase.is_none() {
				self.trainer.tablebase = self.shared.tablebase.table();
			}
			// 1. Take in what arrived, without waiting.
			if !self.take_in(inbox, Duration::ZERO) {
				return self.stop();
			}
			// While the run directory's disk is short of space nothing new arrives, and no
			// checkpoint, gate or promotion could be written: everything waits for space.
			if self.shared.disk.is_low() {
				if !self.take_in(inbox, Duration::from_millis(500)) {
					return self.stop();
				}
				continue;
			}
			// 2. Train as far as the window allows, a few steps at a time.
			let trained = self.train_some();
			// 3. Finish a gate that is done; start one when due. A checkpoint right after a
			// promotion keeps it and the training state in step on disk.
			if self.gating.finish_done() {
				self.checkpoint();
			}
			let trainer = &self.trainer;
			if self
				.gating
				.start_due(&|| trainer.candidate(), self.trained.steps)
			{
				self.checkpoint();
			}
			// 4. Checkpoint and record throughput now and then.
			if self.is_checkpoint_due() {
				self.checkpoint();
			}
			self.rows.throughput_if_due(&self.shared);
			// 5. Once a period, the self-play depth for the fleet's rate of samples.
			self.adapt_depth();
			// 6. Nothing to train on: wait a little for samples instead of spinning.
			if trained == 0 && !self.take_in(inbox, Duration::from_millis(200)) {
				return self.stop();
			}
		}
	}

	/// Adds the batches that have arrived, after waiting up to `patience` for one when none
	/// has; false once told to stop, or once nobody else holds the inbox (the server is gone).
	fn take_in(&mut self, inbox: &Arc<Inbox>, patience: Duration) -> bool {
		let Delivery {
			batches,
			dropped_samples,
			dropped_newest_id,
			stop,
		} = inbox.take(patience);
		if dropped_samples > 0 {
			self.note_dropped(dropped_samples, dropped_newest_id);
		}
		for batch in batches {
			self.add(batch.id, batch.samples);
		}
		inbox.set_limit(self.trainer.window.capacity());
		!stop && Arc::strong_count(inbox) > 1
	}

	/// Counts samples the inbox dropped because more than a window's worth waited: they
	/// arrived (for the depth rule) but would have left the window untrained.
	fn note_dropped(&mut self, samples: u64, newest_id: i64) {
		self.depth_control.arrived(samples as usize);
		self.trained.last_batch_id = self.trained.last_batch_id.max(newest_id);
		let before = self.shared.live().samples_dropped(samples);
		let (first, total) = (before == 0, before + samples);
		if first {
			warn!(
				dropped = samples,
				"the trainer is more than a window behind the fleet: the oldest waiting samples are dropped untrained (they stay in the ledger); the self-play depth rule slows the fleet"
			);
		} else {
			debug!(
				dropped = samples,
				total, "more waiting samples dropped untrained"
			);
		}
	}

	fn add(&mut self, id: i64, samples: Vec<Sample>) {
		self.depth_control.arrived(samples.len());
		// The window grows (if the run says so) with the samples the run has stored, a count
		// the ledger keeps, so a restart sizes it the same way (`open::restore_trainer`).
		let samples_total = self.shared.live().samples_total();
		let capacity = self.trainer.window_capacity(samples_total);
		if capacity != self.trainer.window.capacity() {
			self.trainer.window.set_capacity(capacity);
		}
		self.trainer.add_samples(samples);
		self.trained.last_batch_id = self.trained.last_batch_id.max(id);
		self.shared
			.live()
			.window_changed(self.trainer.window.len() as u64, capacity as u64);
	}

	fn train_some(&mut self) -> usize {
		// Several steps in one call: with more than one training thread, they are started
		// once for the call rather than once a step.
		let began = Instant::now();
		let losses = self.trainer.train(STEPS_PER_TURN);
		let trained = losses.len();
		self.depth_control.trained(trained, began.elapsed());
		if trained > 0 {
			self.trained.steps += trained as u64;
			self.shared.live().trained(self.trained.steps, &losses);
		}
		self.rows
			.add_losses(&self.shared, self.trained.steps, &losses);
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

	/// Whether to checkpoint now (see [`LastCheckpoint::is_due`]).
	fn is_checkpoint_due(&self) -> bool {
		let settings = &self.shared.settings;
		self.checkpointed.is_due(
			self.trained,
			Instant::now(),
			settings.steps_per_checkpoint,
			settings.checkpoint_every,
		)
	}

	fn checkpoint(&mut self) {
		let started = Instant::now();
		let saved = self.save_checkpoint();
		let at = Instant::now();
		self.checkpointed = LastCheckpoint {
			trained: self.trained,
			at,
			took: at - started,
		};
		debug!(
			seconds = self.checkpointed.took.as_secs_f64(),
			window = self.trainer.window.len(),
			"checkpoint written"
		);
		if saved {
			// The checkpoint now holds the window, so the ledger's copies of the samples up to
			// the last batch are no longer needed to rebuild it: the ledger's writer prunes
			// them, a chunk at a time, and later compacts the old rows (`ledger::compaction`).
			let last_batch_id = self.trained.last_batch_id;
			self.shared.committer().prune_before(last_batch_id + 1);
		}
	}

	/// Writes the training state to the run directory; whether it was saved.
	fn save_checkpoint(&self) -> bool {
		let Trained {
			steps,
			last_batch_id,
		} = self.trained;
		let checkpoint = Checkpoint {
			net: self.trainer.net.clone(),
			average: self.trainer.average.clone(),
			adam: self.trainer.adam.clone(),
			window: self.trainer.window.iter().copied().collect(),
			window_capacity: self.trainer.window.capacity(),
			max_uses: self.trainer.settings.max_uses,
			training_steps: steps,
			last_batch_id,
		};
		if let Err(e) = self.shared.run_dir.save_checkpoint(&checkpoint) {
			error!(%e, "checkpoint failed");
			return false;
		}
		true
	}

	fn stop(mut self) {
		self.checkpoint();
		info!(steps = self.trained.steps, "training stopped");
	}
}

/// The rows training adds to the ledger as it goes: the mean loss every [`LOSS_EVERY`] steps,
/// throughput every [`THROUGHPUT_EVERY`]. Each is written with the ledger writer's next group:
/// training never waits for the disk.
struct Rows {
	/// The losses of the steps since the last loss row.
	losses: Vec<f32>,
	/// When the last throughput row was made.
	throughput_at: Instant,
}

impl Rows {
	/// Adds the losses of the steps up to `steps`; once there are [`LOSS_EVERY`], their mean
	/// becomes a point of the loss chart and a row.
	fn add_losses(&mut self, shared: &Shared, steps: u64, losses: &[f32]) {
		self.losses.extend_from_slice(losses);
		if (self.losses.len() as u64) < LOSS_EVERY {
			return;
		}
		let mean = self.losses.iter().sum::<f32>() / self.losses.len() as f32;
		self.losses.clear();
		shared.live().loss_recorded(v1::LossPoint {
			training_steps: steps,
			loss: f64::from(mean),
		});
		let now = unix_now();
		shared
			.committer()
			.later("recording the loss", move |ledger| {
				ledger.record_loss(steps, mean, now)
			});
	}

	/// Every [`THROUGHPUT_EVERY`], the run's counters as a point of the throughput chart and a
	/// row.
	fn throughput_if_due(&mut self, shared: &Shared) {
		if self.throughput_at.elapsed() < THROUGHPUT_EVERY {
			return;
		}
		self.throughput_at = Instant::now();
		let row = shared.live().throughput_now(Instant::now(), unix_now());
		shared
			.committer()
			.later("recording throughput", move |ledger| {
				ledger.record_throughput(row)
			});
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	const EVERY: Duration = Duration::from_secs(30);

	fn trained(steps: u64, last_batch_id: i64) -> Trained {
		Trained {
			steps,
			last_batch_id,
		}
	}

	/// A checkpoint at 1,000 steps and batch 7 that took `took`.
	fn last(at: Instant, took: Duration) -> LastCheckpoint {
		LastCheckpoint {
			trained: trained(1000, 7),
			at,
			took,
		}
	}

	#[test]
	fn a_cheap_checkpoint_is_due_every_so_many_steps_or_after_a_while_if_anything_changed() {
		let at = Instant::now();
		let cheap = last(at, Duration::from_millis(20));
		let soon = at + Duration::from_secs(2);
		assert!(cheap.is_due(trained(1500, 7), soon, 500, EVERY));
		assert!(!cheap.is_due(trained(1499, 9), soon, 500, EVERY));
		let later = at + EVERY;
		assert!(cheap.is_due(trained(1001, 7), later, 500, EVERY));
		assert!(cheap.is_due(trained(1000, 8), later, 500, EVERY));
		assert!(
			!cheap.is_due(trained(1000, 7), later, 500, EVERY),
			"nothing changed"
		);
	}

	#[test]
	fn a_costly_checkpoint_holds_the_next_back_to_a_tenth_of_the_time() {
		let at = Instant::now();
		let costly = last(at, Duration::from_millis(500));
		// 500 steps after one that took half a second, but only 4 s later: not yet.
		assert!(!costly.is_due(trained(1500, 7), at + Duration::from_secs(4), 500, EVERY));
		assert!(costly.is_due(
			trained(1500, 7),
			at + Duration::from_millis(4500),
			500,
			EVERY
		));
		// Nor does the time since the last one override it.
		let slow = last(at, Duration::from_secs(5));
		assert!(!slow.is_due(trained(1001, 7), at + EVERY, 500, EVERY));
		assert!(slow.is_due(trained(1001, 7), at + Duration::from_secs(45), 500, EVERY));
	}
}
