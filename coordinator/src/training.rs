//! The training thread: feeds received samples to the trainer, steps Adam as far as the replay
//! window allows, hands a candidate to [`gating`] every so many steps (which gates it on the
//! gating pool and promotes by the core rule), and checkpoints. It is a plain thread, never a
//! tokio task.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tigers_core::selfplay::Sample;
use tigers_core::trainer::Trainer;
use tigers_proto::v1;
use tracing::{error, info};

use crate::ledger::ThroughputRow;
use crate::rundir::Checkpoint;
use crate::state::{Shared, unix_now};
use crate::workload::DepthControl;

pub mod gating;

use gating::{Gating, GatingStart};

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
	/// What the ledger holds of the run's gate matches.
	pub gating: GatingStart,
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
			Training::new(shared, start, pool).run(&inbox);
		})
		.expect("the training thread starts");
	(sender, handle)
}

struct Training {
	shared: Arc<Shared>,
	trainer: Trainer,
	steps: u64,
	last_batch_id: i64,
	gating: Gating,
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
			gating: Gating::new(shared.clone(), start.gating, start.steps, pool),
			shared,
			last_checkpoint: start.steps,
			last_checkpoint_batch: start.last_batch_id,
			last_checkpoint_at: Instant::now(),
			trainer: start.trainer,
			steps: start.steps,
			last_batch_id: start.last_batch_id,
			last_throughput: Instant::now(),
			losses_since_row: Vec::new(),
		}
	}

	fn run(mut self, inbox: &Receiver<TrainingInput>) {
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
			// 3. Finish a gate that is done; start one when due. A checkpoint right after a
			// promotion keeps it and the training state in step on disk.
			if self.gating.finish_done() {
				self.checkpoint();
			}
			self.gating.start_due(&self.trainer.net, self.steps);
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
