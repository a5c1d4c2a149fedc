//! `Live`: the counters and lists behind the progress snapshots, changed only through methods
//! that name what happened (a batch stored, a gate finished, a net promoted, a measurement
//! begun) and read through accessors by the metrics, the training thread and the service. Its
//! fields are the `live` folder's alone: the fleet's events are in `fleet`, the snapshot in
//! `snapshot`.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use tigers_core::Turn;
use tigers_proto::v1;

use crate::error::RejectReason;
use crate::live::gate_history::GateHistory;
use crate::live::improvement::Improvement;
use crate::live::ladder::RatingLadder;
use crate::live::recent::{RecentGames, RecentSamples};
use crate::live::series::Thinned;
use crate::live::worker::WorkerInfo;
use crate::store::ledger::{BatchSummary, GateRow, ThroughputRow};

/// How many recent training losses the snapshot averages.
const LOSS_WINDOW: usize = 100;

/// Counters and lists behind the progress snapshots.
#[derive(Debug, Default)]
pub(crate) struct Live {
	/// The latest promoted generation.
	pub(super) generation: u64,
	/// When it was promoted (Unix seconds).
	pub(super) generation_since: f64,
	/// Samples durably received over the run.
	pub(super) samples_total: u64,
	/// Games received over the run.
	pub(super) games_total: u64,
	/// Training steps over the run.
	pub(super) training_steps: u64,
	/// The most recent training losses.
	pub(super) losses: VecDeque<f32>,
	/// Samples in the replay window.
	pub(super) window_samples: u64,
	/// The window's capacity.
	pub(super) window_capacity: u64,
	/// When the run last got a stronger net.
	pub(super) improvement: Improvement,
	/// The gates so far.
	pub(super) gates: GateHistory,
	/// Every promoted net's matches, fitted into ratings; changed only through
	/// [`Live::record_gate`] and [`Live::record_timed`], so that no match is shown without being
	/// rated.
	pub(super) ladder: RatingLadder,
	/// The generation last named as the best in the run directory's pointer, if any.
	pub(super) best_named: Option<u64>,
	/// Workers by identity.
	pub(super) workers: BTreeMap<String, WorkerInfo>,
	/// Batches refused as malformed, by reason.
	pub(super) rejections: BTreeMap<RejectReason, u64>,
	/// Batches received again after being stored, acknowledged without storing them twice.
	pub(super) batches_duplicate: u64,
	/// Samples stored but dropped from the training thread's inbox untrained, because more
	/// than a window's worth waited (`training::inbox`), over this process's life.
	pub(super) inbox_dropped: u64,
	/// Joins refused for the worker's version over this process's life.
	pub(super) version_refusals: u64,
	/// The sentence the last worker refused for its version was told.
	pub(super) last_version_refusal: String,
	/// Joins and sessions refused while another process held the identity's live session,
	/// over this process's life.
	pub(super) identity_in_use_refusals: u64,
	/// The sentence the last of them was told, and when (Unix seconds).
	pub(super) last_identity_in_use: (String, f64),
	/// Joins under new identities refused for the limit on them, over this process's life.
	pub(super) new_workers_refused: u64,
	/// Progress streams refused for the limits on them, over this process's life.
	pub(super) watchers_refused: u64,
	/// The last game record received.
	pub(super) last_game: String,
	/// The mean loss over the run, for the chart.
	pub(super) loss_history: Thinned<v1::LossPoint>,
	/// The totals over the run, for the charts.
	pub(super) throughput: Thinned<v1::ThroughputPoint>,
	/// Worker CPU-seconds over the run, up to `cpu_counted_to`.
	pub(super) cpu_seconds: f64,
	/// When the connected workers' threads were last added to `cpu_seconds`.
	pub(super) cpu_counted_to: Option<Instant>,
	/// When this process last stored a sample batch.
	pub(super) last_samples: Option<Instant>,
	/// Samples stored lately.
	pub(super) recent_samples: RecentSamples,
	/// How the latest games ended.
	pub(super) recent_games: RecentGames,
	/// Promoted nets measured at equal time, by generation.
	pub(super) timed: BTreeMap<u64, v1::TimedMeasurement>,
	/// The measurement at equal time under way.
	pub(super) timed_running: Option<v1::TimedRunning>,
	/// Promoted nets graded on the grading suite, by generation; added through
	/// [`Live::record_grade`].
	pub(super) grades: BTreeMap<u64, v1::NetGrade>,
	/// The self-play depth in force and the rates it follows, as of the last decision.
	pub(super) work: v1::SelfPlayWork,
	/// The self-play depth before the last change, if it changed in this process's life:
	/// batches played at it may still arrive.
	pub(super) depth_before: Option<u32>,
}

/// A stored batch as the live counters take it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchFigures<'a> {
	/// Its samples.
	pub samples: u64,
	/// Those of them from generations too far behind to train on.
	pub superseded: u64,
	/// Its games.
	pub games: u64,
	/// The last of its game records, if it has any.
	pub last_game: Option<&'a String>,
}

/// What a run resumes with, from its ledger and checkpoint: the counters a snapshot shows before
/// anything happens in this process.
#[derive(Debug, Default)]
pub(crate) struct Resumed {
	/// The latest promoted generation.
	pub generation: u64,
	/// When it was promoted (Unix seconds).
	pub generation_since: f64,
	/// Samples stored over the run.
	pub samples_total: u64,
	/// Games stored over the run.
	pub games_total: u64,
	/// Training steps over the run.
	pub training_steps: u64,
	/// Samples in the restored replay window.
	pub window_samples: u64,
	/// Its capacity.
	pub window_capacity: u64,
	/// The last game record stored.
	pub last_game: String,
	/// The self-play depth a start begins with, and its bounds.
	pub work: v1::SelfPlayWork,
}

impl Live {
	/// The live state of a run resumed with `resumed`'s counters.
	pub(crate) fn resumed(resumed: Resumed) -> Live {
		Live {
			generation: resumed.generation,
			generation_since: resumed.generation_since,
			samples_total: resumed.samples_total,
			games_total: resumed.games_total,
			training_steps: resumed.training_steps,
			window_samples: resumed.window_samples,
			window_capacity: resumed.window_capacity,
			last_game: resumed.last_game,
			work: resumed.work,
			..Live::default()
		}
	}

	/// Stored samples read back on resume, for the share of stale samples across the restart.
	pub(crate) fn recent_samples_resumed(
		&mut self,
		batches: &[BatchSummary],
		promoted_at: impl Fn(f64) -> u64,
		now_unix: f64,
		now: Instant,
	) {
		self.recent_samples
			.seed(batches, promoted_at, now_unix, now);
	}

	/// A throughput row read back on resume: its point on the chart, and the CPU-seconds it
	/// counted.
	pub(crate) fn throughput_resumed(&mut self, row: &ThroughputRow) {
		self.cpu_seconds = row.cpu_seconds;
		self.throughput.push(throughput_point(row));
	}

	/// A batch of `worker_id` stored, as `batch` counts it, its games won by `winners`.
	pub(crate) fn batch_stored(
		&mut self,
		worker_id: &str,
		batch: BatchFigures<'_>,
		winners: impl IntoIterator<Item = Option<Turn>>,
	) {
		let now = Instant::now();
		self.samples_total += batch.samples;
		self.games_total += batch.games;
		self.last_samples = Some(now);
		self.recent_samples
			.push(now, batch.samples, batch.superseded);
		self.recent_games.push(winners);
		if let Some(last) = batch.last_game {
			self.last_game.clone_from(last);
		}
		if let Some(worker) = self.workers.get_mut(worker_id) {
			worker.samples += batch.samples;
		}
	}

	/// A batch received again after being stored, acknowledged without storing it twice.
	pub(crate) fn batch_duplicate(&mut self) {
		self.batches_duplicate += 1;
	}

	/// A batch refused for `reason`.
	pub(crate) fn count_rejection(&mut self, reason: RejectReason) {
		*self.rejections.entry(reason).or_default() += 1;
	}

	/// A join refused for the worker's version, told `sentence`.
	pub(crate) fn version_refused(&mut self, sentence: String) {
		self.version_refusals += 1;
		self.last_version_refusal = sentence;
	}

	/// A join under a new identity refused for the limit on them.
	pub(crate) fn new_worker_refused(&mut self) {
		self.new_workers_refused += 1;
	}

	/// A progress stream refused for the limits on them.
	pub(crate) fn watcher_refused(&mut self) {
		self.watchers_refused += 1;
	}

	/// `samples` stored samples dropped from the training thread's inbox untrained; how many had
	/// been dropped before them.
	pub(crate) fn samples_dropped(&mut self, samples: u64) -> u64 {
		let before = self.inbox_dropped;
		self.inbox_dropped += samples;
		before
	}

	/// The replay window now holds `samples` of `capacity`.
	pub(crate) fn window_changed(&mut self, samples: u64, capacity: u64) {
		self.window_samples = samples;
		self.window_capacity = capacity;
	}

	/// Training reached `steps` over the run, the last of them with `losses`.
	pub(crate) fn trained(&mut self, steps: u64, losses: &[f32]) {
		self.training_steps = steps;
		for &loss in losses {
			self.push_loss(loss);
		}
	}

	/// Records a training loss.
	pub(crate) fn push_loss(&mut self, loss: f32) {
		if self.losses.len() == LOSS_WINDOW {
			self.losses.pop_front();
		}
		self.losses.push_back(loss);
	}

	/// A mean loss recorded for the chart.
	pub(crate) fn loss_recorded(&mut self, point: v1::LossPoint) {
		self.loss_history.push(point);
	}

	/// The run's counters at `now` (`at` in Unix seconds) as a throughput row, its point added
	/// to the chart.
	pub(crate) fn throughput_now(&mut self, now: Instant, at: f64) -> ThroughputRow {
		self.count_cpu(now);
		let row = ThroughputRow {
			at,
			samples_total: self.samples_total,
			games_total: self.games_total,
			training_steps: self.training_steps,
			workers_connected: self.workers_connected() as u32,
			cpu_seconds: self.cpu_seconds,
		};
		self.throughput.push(throughput_point(&row));
		row
	}

	/// A gate match finished, as the ledger's `row` and the dashboards' `gate` say it: listed,
	/// rated if a promoted net played it, and seen by the improvement alarm.
	pub(crate) fn gate_finished(&mut self, gate: v1::GateSummary, row: &GateRow) {
		self.record_gate(gate);
		self.improvement.see(row);
	}

	/// Records a finished gate match (a candidate's, or a promoted net's measurement): listed
	/// on the dashboards, and on the rating ladder if a promoted net played it.
	pub(crate) fn record_gate(&mut self, gate: v1::GateSummary) {
		self.ladder.record_gate(&gate);
		self.gates.push(gate);
	}

	/// A measurement at equal time began.
	pub(crate) fn timed_started(&mut self, running: v1::TimedRunning) {
		self.timed_running = Some(running);
	}

	/// The measurement under way has played `pairs_done` pairs.
	pub(crate) fn timed_progressed(&mut self, pairs_done: u32) {
		if let Some(running) = self.timed_running.as_mut() {
			running.pairs_done = pairs_done;
		}
	}

	/// The measurement under way stopped unfinished.
	pub(crate) fn timed_stopped(&mut self) {
		self.timed_running = None;
	}

	/// The measurement under way finished as `timed`.
	pub(crate) fn timed_finished(&mut self, timed: v1::TimedMeasurement) {
		self.timed_running = None;
		self.record_timed(timed);
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

	/// `generation` was promoted at `at` (Unix seconds).
	pub(crate) fn promoted(&mut self, generation: u64, at: f64) {
		self.generation = generation;
		self.generation_since = at;
	}

	/// The self-play depth was decided on `work`'s figures; `before` is the depth it replaced,
	/// if it changed.
	pub(crate) fn depth_decided(&mut self, work: v1::SelfPlayWork, before: Option<u32>) {
		self.work = work;
		if before.is_some() {
			self.depth_before = before;
		}
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

	/// The pointer to the best net could not be written: the next match names it again.
	pub(crate) fn best_not_named(&mut self) {
		self.best_named = None;
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

	/// Worker CPU-seconds over the run, counted up to `now`.
	pub(crate) fn cpu_seconds(&mut self, now: Instant) -> f64 {
		self.count_cpu(now);
		self.cpu_seconds
	}

	/// Worker CPU-hours over the run, counted up to `now`.
	pub(crate) fn cpu_hours(&mut self, now: Instant) -> f64 {
		self.cpu_seconds(now) / 3600.0
	}
}

/// What the metrics, the training thread and the service read.
impl Live {
	/// The latest promoted generation.
	pub(crate) fn generation(&self) -> u64 {
		self.generation
	}

	/// Samples durably received over the run.
	pub(crate) fn samples_total(&self) -> u64 {
		self.samples_total
	}

	/// Games received over the run.
	pub(crate) fn games_total(&self) -> u64 {
		self.games_total
	}

	/// Training steps over the run.
	pub(crate) fn training_steps(&self) -> u64 {
		self.training_steps
	}

	/// Samples in the replay window, and its capacity.
	pub(crate) fn window(&self) -> (u64, u64) {
		(self.window_samples, self.window_capacity)
	}

	/// The mean of the recent training losses, if any.
	pub(crate) fn recent_loss(&self) -> Option<f64> {
		if self.losses.is_empty() {
			return None;
		}
		let sum: f64 = self.losses.iter().map(|l| f64::from(*l)).sum();
		Some(sum / self.losses.len() as f64)
	}

	/// The mean losses recorded for the chart.
	pub(crate) fn loss_history(&self) -> &[v1::LossPoint] {
		self.loss_history.points()
	}

	/// The gates so far.
	pub(crate) fn gates(&self) -> &GateHistory {
		&self.gates
	}

	/// Whether `generation` has been graded on the suite.
	pub(crate) fn is_graded(&self, generation: u64) -> bool {
		self.grades.contains_key(&generation)
	}

	/// Whether `generation` has been measured at equal time.
	pub(crate) fn is_timed(&self, generation: u64) -> bool {
		self.timed.contains_key(&generation)
	}

	/// The measurement at equal time of the newest generation measured.
	pub(crate) fn last_timed(&self) -> Option<&v1::TimedMeasurement> {
		self.timed.values().next_back()
	}

	/// The measurement at equal time under way.
	pub(crate) fn timed_running(&self) -> Option<&v1::TimedRunning> {
		self.timed_running.as_ref()
	}

	/// The self-play depth in force and the rates it follows, as of the last decision.
	pub(crate) fn work(&self) -> v1::SelfPlayWork {
		self.work
	}

	/// The self-play depth before the last change, if it changed in this process's life.
	pub(crate) fn depth_before(&self) -> Option<u32> {
		self.depth_before
	}

	/// When this process last stored a sample batch.
	pub(crate) fn last_samples(&self) -> Option<Instant> {
		self.last_samples
	}

	/// Batches refused for `reason`.
	pub(crate) fn rejected(&self, reason: RejectReason) -> u64 {
		self.rejections.get(&reason).copied().unwrap_or(0)
	}

	/// Batches refused as malformed, whatever the reason.
	pub(crate) fn batches_rejected(&self) -> u64 {
		self.rejections.values().sum()
	}

	/// Batches received again after being stored.
	pub(crate) fn batches_duplicate(&self) -> u64 {
		self.batches_duplicate
	}

	/// Samples dropped from the training thread's inbox untrained, over this process's life.
	pub(crate) fn inbox_dropped(&self) -> u64 {
		self.inbox_dropped
	}

	/// Workers with a session open.
	pub(crate) fn workers_connected(&self) -> u64 {
		self.workers.values().filter(|w| w.connected).count() as u64
	}

	/// Workers listed, with a session or not.
	pub(crate) fn workers_known(&self) -> u64 {
		self.workers.len() as u64
	}
}

/// A throughput row as the charts show it.
fn throughput_point(row: &ThroughputRow) -> v1::ThroughputPoint {
	v1::ThroughputPoint {
		at: row.at,
		samples_total: row.samples_total,
		games_total: row.games_total,
		training_steps: row.training_steps,
		workers_connected: row.workers_connected,
		cpu_hours: row.cpu_seconds / 3600.0,
	}
}
