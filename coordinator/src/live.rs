//! `Shared`: the run's live state, read by the gRPC handlers and the dashboards' snapshots and
//! written by the handlers (samples, workers) and the training thread (steps, gates, nets).
//!
//! Ownership: one `Arc<Shared>` for the process. `live` is a mutex held only for short updates
//! and snapshot copies, never across I/O or a search. The ledger has its own mutex and is only
//! touched from blocking threads; the committer's thread writes batches and other threads'
//! deferred writes under it, a group at a time. The current assignment is a `watch` channel: the training
//! thread sends a new one on promotion, and every session forwards it to its worker. The
//! published progress snapshot is another `watch` channel, written only by the publisher task
//! (`progress`) and read by every `WatchProgress` stream.
//!
//! A snapshot is bounded whatever the run's length or the number of workers that ever joined:
//! the gates as `GateHistory` lists them, and at most [`LISTED_WORKERS`] workers (those with a
//! session or heard from within [`LISTED_RECENTLY`]), with counts of them all.
//!
//! The folder holds the bounded histories the snapshots carry, plain data only `Live` holds:
//! `series` (thinned charts), `gate_history`, `recent` (samples and games of late),
//! `improvement` (when the net last got stronger) and `ladder` (the promoted nets' matches
//! fitted into ratings).

pub(crate) mod gate_history;
pub(crate) mod improvement;
pub(crate) mod ladder;
pub(crate) mod recent;
pub(crate) mod series;

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tigers_core::Network;
use tigers_proto::convert::Assignment;
use tigers_proto::v1;
use tokio::sync::{Notify, watch};

use crate::clock::unix_now;
use crate::config::RunSettings;
use crate::error::RejectReason;
use crate::live::gate_history::GateHistory;
use crate::live::improvement::Improvement;
use crate::live::ladder::RatingLadder;
use crate::live::recent::{RecentGames, RecentSamples};
use crate::live::series::Thinned;
use crate::store::archive::GameArchive;
use crate::store::committer::Committer;
use crate::store::ledger::Ledger;
use crate::store::rundir::RunDir;
use crate::tablebase::{PlacementLayers, TablebaseHolder};

/// How many recent training losses the snapshot averages.
mod snapshot;

const LOSS_WINDOW: usize = 100;

/// The most workers a snapshot lists; the others are only counted.
pub(crate) const LISTED_WORKERS: usize = 200;

/// Workers without a session are listed if heard from this recently.
pub(crate) const LISTED_RECENTLY: Duration = Duration::from_secs(3600);

/// The net workers should play, with its file.
#[derive(Debug)]
pub(crate) struct Current {
	/// What to tell workers.
	pub assignment: Assignment,
	/// The net itself.
	pub net: Arc<Network>,
}

/// What the coordinator knows of one worker.
#[derive(Clone, Debug)]
pub(crate) struct WorkerInfo {
	/// The sha256 of the secret the identity is bound to (from its join).
	pub secret_sha256: Option<String>,
	/// Whether a session has presented the secret since it was handed out.
	pub secret_confirmed: bool,
	/// The open session's number (meaningful while `connected`).
	pub session_id: u64,
	/// Wakes the open session when a newer one of the same worker takes over.
	pub take_over: Option<Arc<Notify>>,
	/// From its join.
	pub name: String,
	/// From its join.
	pub host: String,
	/// From its join.
	pub threads: u32,
	/// Whether a session is open.
	pub connected: bool,
	/// The generation it plays, from its last heartbeat; for a worker not heard from since
	/// this process started, the newest generation of its last stored batch; `None` if
	/// neither is known.
	pub generation: Option<u64>,
	/// Samples durably received from it over the run.
	pub samples: u64,
	/// From the last heartbeat of its open session; 0 without one.
	pub samples_per_second: f64,
	/// When it was last heard from, in Unix seconds: a wall-clock time, as the ledger keeps
	/// it, so that it means the same after a restart (even of the machine, which starts the
	/// monotonic clock over).
	pub last_heard: f64,
	/// Sessions opened in this process's life.
	pub sessions: u32,
	/// Re-searched samples that disagreed.
	pub flagged: u32,
	/// The worker process of the open (or last) session, as its `SessionOpen` named it.
	pub instance: String,
}

impl WorkerInfo {
	/// A worker as its join describes it, without a session, last heard at `last_heard` (Unix
	/// seconds).
	pub(crate) fn new(name: String, host: String, threads: u32, last_heard: f64) -> WorkerInfo {
		WorkerInfo {
			secret_sha256: None,
			secret_confirmed: false,
			session_id: 0,
			take_over: None,
			name,
			host,
			threads,
			connected: false,
			generation: None,
			samples: 0,
			samples_per_second: 0.0,
			last_heard,
			sessions: 0,
			flagged: 0,
			instance: String::new(),
		}
	}
}

/// Counters and lists behind the progress snapshots.
#[derive(Debug, Default)]
pub(crate) struct Live {
	/// The latest promoted generation and when (Unix seconds).
	pub generation: u64,
	/// When it was promoted.
	pub generation_since: f64,
	/// Samples durably received over the run.
	pub samples_total: u64,
	/// Games received over the run.
	pub games_total: u64,
	/// Training steps over the run.
	pub training_steps: u64,
	/// The most recent training losses.
	pub losses: VecDeque<f32>,
	/// Samples in the replay window.
	pub window_samples: u64,
	/// The window's capacity.
	pub window_capacity: u64,
	/// When the run last got a stronger net.
	pub improvement: Improvement,
	/// The gates so far.
	pub gates: GateHistory,
	/// Every promoted net's matches, fitted into ratings; changed only through
	/// [`Live::record_gate`] and [`Live::record_timed`], so that no match is shown without being
	/// rated.
	pub(crate) ladder: RatingLadder,
	/// The generation last named as the best in the run directory's pointer, if any.
	pub(crate) best_named: Option<u64>,
	/// Workers by identity.
	pub workers: BTreeMap<String, WorkerInfo>,
	/// Batches refused as malformed, by reason.
	pub rejections: BTreeMap<RejectReason, u64>,
	/// Batches received again after being stored, acknowledged without storing them twice.
	pub batches_duplicate: u64,
	/// Samples stored but dropped from the training thread's inbox untrained, because more
	/// than a window's worth waited (`training::inbox`), over this process's life.
	pub inbox_dropped: u64,
	/// Joins refused for the worker's version over this process's life.
	pub version_refusals: u64,
	/// The sentence the last worker refused for its version was told.
	pub last_version_refusal: String,
	/// Joins and sessions refused while another process held the identity's live session,
	/// over this process's life.
	pub identity_in_use_refusals: u64,
	/// The sentence the last of them was told, and when (Unix seconds).
	pub last_identity_in_use: (String, f64),
	/// Joins under new identities refused for the limit on them, over this process's life.
	pub new_workers_refused: u64,
	/// Progress streams refused for the limits on them, over this process's life.
	pub watchers_refused: u64,
	/// The last game record received.
	pub last_game: String,
	/// The mean loss over the run, for the chart.
	pub loss_history: Thinned<v1::LossPoint>,
	/// The totals over the run, for the charts.
	pub throughput: Thinned<v1::ThroughputPoint>,
	/// Worker CPU-seconds over the run, up to `cpu_counted_to`.
	pub cpu_seconds: f64,
	/// When the connected workers' threads were last added to `cpu_seconds`.
	pub cpu_counted_to: Option<Instant>,
	/// When this process last stored a sample batch.
	pub last_samples: Option<Instant>,
	/// Samples stored lately.
	pub recent_samples: RecentSamples,
	/// How the latest games ended.
	pub recent_games: RecentGames,
	/// Promoted nets measured at equal time, by generation.
	pub timed: BTreeMap<u64, v1::TimedMeasurement>,
	/// The measurement at equal time under way.
	pub timed_running: Option<v1::TimedRunning>,
	/// Promoted nets graded on the grading suite, by generation; added through
	/// [`Live::record_grade`].
	pub grades: BTreeMap<u64, v1::NetGrade>,
	/// The self-play depth in force and the rates it follows, as of the last decision.
	pub work: v1::SelfPlayWork,
	/// The self-play depth before the last change, if it changed in this process's life:
	/// batches played at it may still arrive.
	pub depth_before: Option<u32>,
}

impl Live {
	/// Records a finished gate match (a candidate's, or a promoted net's measurement): listed
	/// on the dashboards, and on the rating ladder if a promoted net played it.
	pub(crate) fn record_gate(&mut self, gate: v1::GateSummary) {
		self.ladder.record_gate(&gate);
		self.gates.push(gate);
	}

	/// Records a promoted net's measurement at equal time per move, replacing an earlier one of
	/// the same generation on the dashboards; the ladder counts every measurement played.
	pub(crate) fn record_timed(&mut self, timed: v1::TimedMeasurement) {
		self.ladder.record_timed(&timed);
		self.timed.insert(timed.generation, timed);
	}

	/// Records a promoted net's grades on the suite, replacing earlier ones of its generation.
	pub(crate) fn record_grade(&mut self, grade: v1::NetGrade) {
		self.grades.insert(grade.generation, grade);
	}

	/// The best net by the rating ladder, if one has played enough games to be named.
	pub(crate) fn best_generation(&mut self) -> Option<u64> {
		self.ladder.best_generation()
	}

	/// The best net by the ladder if it changed since the last call said so: the one to name in
	/// the run directory's pointer (`RunDir::point_to_best`).
	pub(crate) fn best_changed(&mut self) -> Option<u64> {
		let best = self.ladder.best_generation()?;
		(self.best_named != Some(best)).then(|| {
			self.best_named = Some(best);
			best
		})
	}

	/// Records a training loss.
	pub(crate) fn push_loss(&mut self, loss: f32) {
		if self.losses.len() == LOSS_WINDOW {
			self.losses.pop_front();
		}
		self.losses.push_back(loss);
	}

	/// The mean of the recent training losses, if any.
	pub(crate) fn recent_loss(&self) -> Option<f64> {
		if self.losses.is_empty() {
			return None;
		}
		let sum: f64 = self.losses.iter().map(|l| f64::from(*l)).sum();
		Some(sum / self.losses.len() as f64)
	}

	/// Adds the connected workers' threads times the time since the last count to the run's
	/// CPU-seconds. Called before the set of connected workers changes and before reading.
	pub(crate) fn count_cpu(&mut self, now: Instant) {
		if let Some(since) = self.cpu_counted_to {
			let threads: u32 = self
				.workers
				.values()
				.filter(|w| w.connected)
				.map(|w| w.threads)
				.sum();
			self.cpu_seconds +=
				f64::from(threads) * now.saturating_duration_since(since).as_secs_f64();
		}
		self.cpu_counted_to = Some(now);
	}

	/// Worker CPU-hours over the run, counted up to `now`.
	pub(crate) fn cpu_hours(&mut self, now: Instant) -> f64 {
		self.count_cpu(now);
		self.cpu_seconds / 3600.0
	}

	/// Batches refused as malformed, whatever the reason.
	pub(crate) fn batches_rejected(&self) -> u64 {
		self.rejections.values().sum()
	}

	/// Counts a refused batch.
	pub(crate) fn count_rejection(&mut self, reason: RejectReason) {
		*self.rejections.entry(reason).or_default() += 1;
	}

	/// Forgets the workers without a session that were last heard from more than `horizon`
	/// before `now` (Unix seconds); returns how many.
	pub(crate) fn forget_workers(&mut self, now: f64, horizon: Duration) -> usize {
		let before = self.workers.len();
		self.workers.retain(|_, worker| {
			worker.connected || heard_ago(worker, now) <= horizon.as_secs_f64()
		});
		before - self.workers.len()
	}

	/// The workers a snapshot lists, by identity: those with a session or heard from within
	/// [`LISTED_RECENTLY`] of `now` (Unix seconds), at most [`LISTED_WORKERS`], sessions and
	/// the most recently heard first.
	fn listed_workers(&self, now: f64) -> Vec<(&String, &WorkerInfo)> {
		let mut listed: Vec<(&String, &WorkerInfo)> = self
			.workers
			.iter()
			.filter(|(_, w)| w.connected || heard_ago(w, now) <= LISTED_RECENTLY.as_secs_f64())
			.collect();
		listed.sort_by(|(_, a), (_, b)| {
			b.connected
				.cmp(&a.connected)
				.then(b.last_heard.total_cmp(&a.last_heard))
		});
		listed.truncate(LISTED_WORKERS);
		listed.sort_by_key(|(id, _)| *id);
		listed
	}
}

/// The most measurements at equal time a snapshot lists: the latest.
pub(crate) const TIMED_LISTED: usize = 200;

/// Seconds from when `worker` was last heard to `now` (Unix seconds); 0 if the wall clock
/// has gone back since.
fn heard_ago(worker: &WorkerInfo, now: f64) -> f64 {
	(now - worker.last_heard).max(0.0)
}

/// How recently an identity's session must have been heard from to hold the identity against
/// a session of another process: three heartbeats at the workers' default 5 s. A worker
/// restarted on its machine waits at most this long for its old session to lapse.
pub(crate) const LIVE_SESSION: Duration = Duration::from_secs(15);

impl WorkerInfo {
	/// Whether a session of `instance` must wait at `now` (Unix seconds): a live session of
	/// another process holds the identity.
	pub(crate) fn held_by_another(&self, instance: &str, now: f64) -> bool {
		self.connected
			&& self.instance != instance
			&& heard_ago(self, now) < LIVE_SESSION.as_secs_f64()
	}
}

/// The process-wide state.
pub(crate) struct Shared {
	/// The run's name.
	pub run_name: String,
	/// When this process started.
	pub started: Instant,
	/// The run's settings.
	pub settings: RunSettings,
	/// The run directory.
	pub run_dir: RunDir,
	/// The tablebase, or how it is coming along.
	pub tablebase: TablebaseHolder,
	/// The placement layers judging placement-phase moves, if any were found at start.
	pub placement: PlacementLayers,
	live: Mutex<Live>,
	ledger: Arc<Mutex<Ledger>>,
	committer: Committer,
	current: watch::Sender<Arc<Current>>,
	closing: watch::Sender<bool>,
	published: watch::Sender<Published>,
	snapshots_built: AtomicU64,
	next_session: AtomicU64,
}

/// The progress snapshot the publisher last built, shared by every progress stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct Published {
	/// The snapshot.
	pub progress: Arc<v1::Progress>,
	/// When it was built; `None` before the first.
	pub built: Option<Instant>,
}

impl Shared {
	/// The state of a run that starts (or resumes) with `current` as the promoted net.
	pub(crate) fn new(
		run_dir: RunDir,
		ledger: Ledger,
		settings: RunSettings,
		current: Current,
		live: Live,
		tablebase: TablebaseHolder,
		placement: PlacementLayers,
	) -> Result<Arc<Shared>, std::io::Error> {
		let (sender, _) = watch::channel(Arc::new(current));
		let ledger = Arc::new(Mutex::new(ledger));
		let archive = GameArchive::new(
			run_dir.path().join(tigers_proto::games::ARCHIVE_DIR),
			settings.keep_game_generations,
		);
		let committer = Committer::start(ledger.clone(), Some(archive))?;
		Ok(Arc::new(Shared {
			run_name: run_dir.name().to_string(),
			started: Instant::now(),
			settings,
			run_dir,
			tablebase,
			placement,
			live: Mutex::new(live),
			ledger,
			committer,
			current: sender,
			closing: watch::channel(false).0,
			published: watch::channel(Published::default()).0,
			snapshots_built: AtomicU64::new(0),
			next_session: AtomicU64::new(1),
		}))
	}

	/// A number for a new session, never given before in this process.
	pub(crate) fn next_session_id(&self) -> u64 {
		self.next_session.fetch_add(1, Ordering::Relaxed)
	}

	/// Snapshots built by [`Shared::snapshot`] in this process's life.
	#[cfg(test)]
	pub(crate) fn snapshots_built(&self) -> u64 {
		self.snapshots_built.load(Ordering::Relaxed)
	}

	/// Follows the published snapshots.
	pub(crate) fn published(&self) -> watch::Receiver<Published> {
		self.published.subscribe()
	}

	/// Whether any progress stream follows the published snapshots.
	pub(crate) fn is_watched(&self) -> bool {
		self.published.receiver_count() > 0
	}

	/// Builds a snapshot and publishes it to every progress stream.
	pub(crate) fn publish(&self) {
		let progress = Arc::new(self.snapshot());
		self.published.send_replace(Published {
			progress,
			built: Some(Instant::now()),
		});
	}

	/// The live counters, locked briefly.
	pub(crate) fn live(&self) -> MutexGuard<'_, Live> {
		// A panic while holding the lock leaves plain counters behind, still usable.
		self.live
			.lock()
			.unwrap_or_else(|poisoned| poisoned.into_inner())
	}

	/// The ledger's writer: sample batches, refusals, and the writes of threads that must not
	/// wait for the disk.
	pub(crate) fn committer(&self) -> &Committer {
		&self.committer
	}

	/// The ledger, for blocking threads only, and for rare writes (joins, promotions): the
	/// committer holds it for a whole group at a time.
	pub(crate) fn ledger(&self) -> MutexGuard<'_, Ledger> {
		self.ledger
			.lock()
			.unwrap_or_else(|poisoned| poisoned.into_inner())
	}

	/// The net workers should play now.
	pub(crate) fn current(&self) -> Arc<Current> {
		self.current.borrow().clone()
	}

	/// Follows promotions.
	pub(crate) fn subscribe(&self) -> watch::Receiver<Arc<Current>> {
		self.current.subscribe()
	}

	/// Turns true when the coordinator shuts down: open sessions and progress streams end, so
	/// the server's graceful stop does not wait on long-lived streams.
	pub(crate) fn closing(&self) -> watch::Receiver<bool> {
		self.closing.subscribe()
	}

	/// Ends every open session and progress stream.
	pub(crate) fn close_streams(&self) {
		self.closing.send_replace(true);
	}

	/// Names the best net by the rating ladder in the run directory (`nets/best`) if it changed
	/// since it was last named; on a failed write the next match tries again. Call it after a
	/// match is recorded, never under the live lock: it writes a file.
	pub(crate) fn name_best(&self) {
		let Some(best) = self.live().best_changed() else {
			return;
		};
		if let Err(e) = self.run_dir.point_to_best(best) {
			tracing::error!(%e, generation = best, "could not name the best net");
			self.live().best_named = None;
		}
	}

	/// Makes `net` (whose file hashes to `sha256`) the net to play, at the self-play depth in
	/// force, and tells every session.
	pub(crate) fn promote(&self, net: Arc<Network>, sha256: String) {
		{
			let mut live = self.live();
			live.generation = net.generation;
			live.generation_since = unix_now();
		}
		self.current.send_modify(|now| {
			// The table is looked at under the channel's lock, so that a solve finishing
			// meanwhile (`reassign_with_tablebase`) is not undone.
			let assignment = self.settings.assignment(
				net.generation,
				sha256,
				self.tablebase.identity(),
				now.assignment.depth,
			);
			*now = Arc::new(Current { assignment, net });
		});
	}

	/// Tells every session the current net's assignment again, as it now stands with the
	/// tablebase (which a solve may finish long after the run started).
	pub(crate) fn reassign_with_tablebase(&self) {
		let identity = self.tablebase.identity();
		// Changed in place under the channel's lock, so that a promotion or a change of depth
		// made meanwhile by the training thread is kept.
		self.current.send_if_modified(|current| {
			let assignment = self.settings.assignment(
				current.assignment.generation,
				current.assignment.sha256.clone(),
				identity,
				current.assignment.depth,
			);
			if assignment == current.assignment {
				return false;
			}
			*current = Arc::new(Current {
				assignment,
				net: current.net.clone(),
			});
			true
		});
	}

	/// The self-play depth workers are asked for now.
	pub(crate) fn selfplay_depth(&self) -> u32 {
		self.current.borrow().assignment.depth
	}

	/// Asks every session's worker to play at `depth` from its next game on, with the same net;
	/// records `work` as the figures behind the decision.
	pub(crate) fn set_selfplay_depth(&self, depth: u32, work: v1::SelfPlayWork) {
		let mut before = None;
		self.current.send_if_modified(|current| {
			if current.assignment.depth == depth {
				return false;
			}
			before = Some(current.assignment.depth);
			// The same net and the table it names, whether or not a solve has finished since:
			// that is `reassign_with_tablebase`'s to tell.
			let was = &current.assignment;
			let assignment = self.settings.assignment(
				was.generation,
				was.sha256.clone(),
				was.tablebase_sha256.as_deref(),
				depth,
			);
			*current = Arc::new(Current {
				assignment,
				net: current.net.clone(),
			});
			true
		});
		let mut live = self.live();
		live.work = work;
		if before.is_some() {
			live.depth_before = before;
		}
	}

	/// The depths samples arriving now may have been searched at: the one in force, and the one
	/// before it while batches played at it may still come in.
	pub(crate) fn selfplay_depths(&self) -> Vec<u32> {
		let now = self.selfplay_depth();
		let before = self.live().depth_before.filter(|d| *d != now);
		std::iter::once(now).chain(before).collect()
	}
}

#[cfg(test)]
mod tests;
