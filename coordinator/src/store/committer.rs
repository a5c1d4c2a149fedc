//! `Committer`: the ledger's writer thread, which stores sample batches in groups (group
//! commit) and keeps the ledger bounded.
//!
//! Sessions hand it batches, checked and encoded ([`NewBatch`]), and wait for its answer. The
//! thread takes every write waiting in its queue (up to [`MAX_GROUP`]), stores them in one
//! transaction, each in a savepoint of its own, commits it with one sync, and only then answers
//! each: a batch is acknowledged only after the commit that holds it, and batches that arrive
//! together share one sync (a sync takes about 1.3 ms here; one per batch capped ingest at some
//! 700 batches a second). A write that fails is undone alone and answered with its error; a
//! commit that fails answers every write of the group with its error, and none of them is
//! acknowledged. Duplicates, refusals and sequence checks run inside the group in arrival
//! order, so two sessions of one identity sending the same batch in one group store it once.
//!
//! Writes that nobody waits for (the training thread's losses and throughput, its pruning) go
//! in the same groups, so the training thread never waits for the ledger or its lock. Between
//! groups, at most once a second unless work is left over, the thread prunes, compacts and
//! forgets a chunk of rows each (`ledger::compaction`; old rows are compacted from the start,
//! not only once this process has run ten minutes) in a transaction of its own. A thread of the archive's
//! moves the batches' games to the game archive (`archive`) once a second, off this one.
//!
//! Ownership: the thread owns the receiving end; the ledger is shared behind a mutex with the
//! joins (which are rare and write a row or two), and the thread holds it for one group at a
//! time. Dropping the `Committer` closes the queue; the thread writes what is queued, then
//! stops, and the drop waits for it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use metrics::counter;
use thiserror::Error;
use tigers_proto::v1;
use tokio::sync::oneshot;
use tracing::{error, info, warn};

use crate::clock::unix_now;
use crate::store::archive::{ArchiveCounts, GameArchive};
use crate::store::disk::{Disk, is_out_of_space};
use crate::store::ledger::{BatchInsert, COMPACT_AFTER, FORGET_SILENT_AFTER, Ledger, NewBatch};
use crate::store::storage_error::StorageError;

/// The most writes in one transaction. A thousand batches of a few hundred samples make a
/// transaction of a few megabytes: large enough that a thousand workers share one sync, small
/// enough that the first of them does not wait long for the last.
pub(crate) const MAX_GROUP: usize = 1024;

/// The metric of transactions the writer committed with writes in them: batches that arrive
/// together share one (group commit). A counter, described with the others in
/// `observe::metrics`.
pub(crate) const LEDGER_COMMITS: &str = "tigers_ledger_commits_total";

/// The metric of batch rows folded into their workers' totals by compaction. A counter.
pub(crate) const LEDGER_COMPACTED: &str = "tigers_ledger_batches_compacted_total";

/// How often the writer looks at the disk again while it is short of space.
const SHORT_OF_SPACE_POLL: Duration = Duration::from_millis(250);

/// How often pruning and compaction run while there is nothing left over.
const HOUSEWORK_EVERY: Duration = Duration::from_secs(1);

/// Rows pruned, and rows compacted, per round of housework: a round takes milliseconds, so
/// batches waiting meanwhile are not held up for long; at one round per group it keeps up with
/// far more batches a second than a sync a group allows.
const HOUSEWORK_CHUNK: usize = 2000;

/// A write nobody waits for, done with a group.
type LaterWrite = Box<dyn FnOnce(&mut Ledger) -> Result<(), StorageError> + Send>;

/// A write another thread waits for, or not.
enum Job {
	/// Store a batch; answer with what became of it.
	Batch {
		batch: NewBatch,
		reply: oneshot::Sender<Result<BatchInsert, WriteError>>,
	},
	/// Use up a refused batch's number; answer whether it was the next one expected.
	Refusal {
		worker_id: String,
		sequence: u64,
		reply: oneshot::Sender<Result<bool, WriteError>>,
	},
	/// Any other write, nobody waiting; a failure is logged, saying what it was. The write is
	/// taken when it is done.
	Later {
		what: &'static str,
		write: Option<LaterWrite>,
	},
	/// Prune the samples of the batches before this id, a chunk at a time.
	Prune(i64),
}

/// Counts of the committer's work since it started.
#[derive(Debug, Default)]
pub(crate) struct CommitCounts {
	/// Transactions committed that held writes.
	pub commits: AtomicU64,
	/// Batches stored (not duplicates or refusals).
	pub batches: AtomicU64,
	/// Batch rows compacted.
	pub compacted: AtomicU64,
}

/// The handle to the ledger's writer thread.
pub(crate) struct Committer {
	jobs: Option<Sender<Job>>,
	thread: Option<JoinHandle<()>>,
	/// The writer's counts, which the tests read.
	#[cfg(test)]
	counts: Arc<CommitCounts>,
	/// The game archive's counts and keep setting, if there is one.
	archive: Option<(Arc<ArchiveCounts>, u64)>,
	/// The archive's thread, stopped by dropping its sender.
	archiver: Option<(Sender<()>, JoinHandle<()>)>,
}

impl Committer {
	/// Starts the writer thread over `ledger`, and a thread moving stored games to `archive` if
	/// given.
	pub(crate) fn start(
		ledger: Arc<Mutex<Ledger>>,
		archive: Option<GameArchive>,
		disk: Arc<Disk>,
	) -> Result<Committer, std::io::Error> {
		let (jobs, queue) = channel();
		let counts = Arc::new(CommitCounts::default());
		let archive_counts = archive
			.as_ref()
			.map(|archive| (archive.counts(), archive.keep_generations()));
		let archiver = match archive {
			Some(archive) => Some(archive.spawn(ledger.clone(), disk.clone())?),
			None => None,
		};
		let writer = Writer {
			ledger,
			queue,
			disk,
			waiting: VecDeque::new(),
			counts: counts.clone(),
			archive_counts: archive_counts.as_ref().map(|(counts, _)| counts.clone()),
			last_housework: Instant::now(),
			housework_left: true,
			newest_ids: VecDeque::new(),
			compact_through: 0,
			started_compacting: false,
		};
		let thread = std::thread::Builder::new()
			.name("ledger".into())
			.spawn(move || writer.run())?;
		Ok(Committer {
			jobs: Some(jobs),
			thread: Some(thread),
			#[cfg(test)]
			counts,
			archive: archive_counts,
			archiver,
		})
	}

	/// The counts of the work done so far.
	#[cfg(test)]
	pub(crate) fn counts(&self) -> &CommitCounts {
		&self.counts
	}

	/// What the game archive holds, if there is one.
	pub(crate) fn games(&self) -> Option<v1::GameArchive> {
		self.archive
			.as_ref()
			.map(|(counts, keep)| counts.summary(*keep))
	}

	/// Stores `batch` with the next group; what became of it once the group is on disk, or why
	/// it could not be stored. (Sessions submit theirs and await the answer later.)
	#[cfg(test)]
	pub(crate) async fn store(&self, batch: NewBatch) -> Result<BatchInsert, WriteError> {
		self.submit(batch)
			.await
			.unwrap_or_else(|_| Err(WriteError::Stopped))
	}

	/// Queues `batch` for the next group at once, behind every write queued before it; what
	/// became of it comes on the receiver once the group is on disk.
	pub(crate) fn submit(
		&self,
		batch: NewBatch,
	) -> oneshot::Receiver<Result<BatchInsert, WriteError>> {
		let (reply, answer) = oneshot::channel();
		self.send(Job::Batch { batch, reply });
		answer
	}

	/// Uses up refused batch `sequence` of `worker_id` with the next group (see
	/// [`Ledger::record_refusal`]); whether it was the next one expected, once on disk.
	/// Queued at once, behind every write queued before it; the answer comes on the receiver.
	pub(crate) fn submit_refusal(
		&self,
		worker_id: &str,
		sequence: u64,
	) -> oneshot::Receiver<Result<bool, WriteError>> {
		let (reply, answer) = oneshot::channel();
		self.send(Job::Refusal {
			worker_id: worker_id.to_string(),
			sequence,
			reply,
		});
		answer
	}

	/// Writes `write` with the next group, without waiting; a failure is logged with `what`
	/// (e.g. "recording the loss").
	pub(crate) fn later(
		&self,
		what: &'static str,
		write: impl FnOnce(&mut Ledger) -> Result<(), StorageError> + Send + 'static,
	) {
		self.send(Job::Later {
			what,
			write: Some(Box::new(write)),
		});
	}

	/// Prunes the samples of the batches before `id` (a checkpoint holds them), a chunk at a
	/// time between groups, without waiting.
	pub(crate) fn prune_before(&self, id: i64) {
		self.send(Job::Prune(id));
	}

	fn send(&self, job: Job) {
		// The queue closes only when the committer is dropped, and `&self` rules that out.
		if let Some(jobs) = &self.jobs {
			let _ = jobs.send(job);
		}
	}
}

impl Drop for Committer {
	/// Closes the queue and waits for the thread to write what was queued; then stops the
	/// archive's thread after a last round.
	fn drop(&mut self) {
		self.jobs.take();
		if let Some(thread) = self.thread.take()
			&& thread.join().is_err()
		{
			error!("the ledger's writer thread panicked");
		}
		if let Some((stop, thread)) = self.archiver.take() {
			drop(stop);
			if thread.join().is_err() {
				error!("the game archive's thread panicked");
			}
		}
	}
}

/// Why the ledger's writer did not do a write.
#[derive(Clone, Debug, Error)]
pub(crate) enum WriteError {
	/// The writer has stopped (the coordinator is shutting down).
	#[error("the ledger's writer has stopped")]
	Stopped,
	/// The write, or the commit of its group, failed. Shared: one commit's failure answers
	/// every write of the group.
	#[error(transparent)]
	Failed(Arc<StorageError>),
}

impl From<StorageError> for WriteError {
	fn from(error: StorageError) -> WriteError {
		WriteError::Failed(Arc::new(error))
	}
}

/// The thread's side.
struct Writer {
	ledger: Arc<Mutex<Ledger>>,
	queue: Receiver<Job>,
	/// The run directory's disk: while it is short of space, writes wait in `waiting`.
	disk: Arc<Disk>,
	/// Writes taken from the queue and not yet done: those that came while the disk was short
	/// of space, and those of a group undone for lack of it; done first, in their order.
	waiting: VecDeque<Job>,
	counts: Arc<CommitCounts>,
	/// The archive's counts, whose pending games grow with each commit.
	archive_counts: Option<Arc<ArchiveCounts>>,
	last_housework: Instant,
	/// Whether the last round of housework stopped at its chunk's limit.
	housework_left: bool,
	/// The newest batch id at each round of housework within [`COMPACT_AFTER`], oldest first.
	newest_ids: VecDeque<(Instant, i64)>,
	/// The newest batch id seen at least [`COMPACT_AFTER`] ago: the rows up to it may be old
	/// enough to compact, and no later one is.
	compact_through: i64,
	/// Whether `compact_through` has been set from the rows already old at the start.
	started_compacting: bool,
}

/// What a write of the group came to, to be answered once the group is committed.
enum Outcome {
	Batch(Result<BatchInsert, WriteError>),
	Refusal(Result<bool, WriteError>),
	Later(&'static str, Result<(), WriteError>),
}

impl Outcome {
	/// Whether the write failed for lack of space.
	fn out_of_space(&self) -> bool {
		match self {
			Outcome::Batch(result) => out_of_space(result),
			Outcome::Refusal(result) => out_of_space(result),
			Outcome::Later(_, result) => out_of_space(result),
		}
	}
}

/// Whether `result` failed for lack of space.
fn out_of_space<T>(result: &Result<T, WriteError>) -> bool {
	matches!(result, Err(WriteError::Failed(error)) if is_out_of_space(error))
}

impl Job {
	/// Answers the job with `outcome`, or with the commit's failure.
	fn answer(self, outcome: Outcome, committed: &Result<(), WriteError>) {
		// A session that went away no longer waits for its answer: nothing to do then.
		match (self, outcome) {
			(Job::Batch { reply, .. }, Outcome::Batch(result)) => {
				let _ = reply.send(unless_failed(committed, result));
			}
			(Job::Refusal { reply, .. }, Outcome::Refusal(result)) => {
				let _ = reply.send(unless_failed(committed, result));
			}
			(_, Outcome::Later(what, result)) => {
				if let Err(why) = unless_failed(committed, result) {
					error!(what, %why, "a write to the ledger failed");
				}
			}
			_ => {}
		}
	}

	/// Answers the job with `error`, undone.
	fn refuse(self, error: WriteError) {
		match self {
			Job::Batch { reply, .. } => {
				let _ = reply.send(Err(error));
			}
			Job::Refusal { reply, .. } => {
				let _ = reply.send(Err(error));
			}
			Job::Later { .. } | Job::Prune(_) => {}
		}
	}

	/// The job to do again after its group was undone for lack of space: batches and
	/// refusals, whose senders wait; a write nobody waits for is done with its group or lost.
	fn again(self) -> Option<Job> {
		match self {
			Job::Later { what, write: None } => {
				error!(
					what,
					"a write to the ledger was undone for lack of space and is lost"
				);
				None
			}
			job => Some(job),
		}
	}
}

impl Writer {
	fn run(mut self) {
		loop {
			let wait = if self.housework_left && !self.disk.is_low() {
				Duration::ZERO
			} else {
				HOUSEWORK_EVERY.saturating_sub(self.last_housework.elapsed())
			};
			let first = match self.queue.recv_timeout(wait.min(SHORT_OF_SPACE_POLL)) {
				Ok(job) => Some(job),
				Err(RecvTimeoutError::Timeout) => None,
				Err(RecvTimeoutError::Disconnected) => break,
			};
			self.waiting.extend(first);
			while let Ok(job) = self.queue.try_recv() {
				self.waiting.push_back(job);
			}
			if self.disk.is_low() {
				// Nothing is written, and nothing answered: the sessions wait.
				continue;
			}
			while !self.waiting.is_empty() && !self.disk.is_low() {
				let take = self.waiting.len().min(MAX_GROUP);
				let group: Vec<Job> = self.waiting.drain(..take).collect();
				let undone = self.commit(group);
				for job in undone.into_iter().rev() {
					self.waiting.push_front(job);
				}
			}
			if self.housework_left || self.last_housework.elapsed() >= HOUSEWORK_EVERY {
				self.housework();
			}
		}
		// The queue is closed: what waits is written if there is room, else answered as not
		// stored (the workers send it again); then a last round for a final checkpoint's
		// pruning.
		while !self.waiting.is_empty() && !self.disk.is_low() {
			let take = self.waiting.len().min(MAX_GROUP);
			let group: Vec<Job> = self.waiting.drain(..take).collect();
			if !self.commit(group).is_empty() {
				break;
			}
		}
		for job in self.waiting.drain(..) {
			job.refuse(WriteError::Stopped);
		}
		self.housework();
	}

	fn ledger(&self) -> MutexGuard<'_, Ledger> {
		// A panic while holding the lock rolls nothing forward: SQLite rolls back a transaction
		// left open at the next `BEGIN`'s failure, and the next group starts clean.
		self.ledger
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
	}

	/// Writes `group` in one transaction and answers each write once it is committed. If a
	/// write or the commit fails for lack of space, the transaction is undone, the disk's
	/// state begins, and the group's writes are given back, unanswered, to be done again.
	fn commit(&self, group: Vec<Job>) -> Vec<Job> {
		let mut ledger = self.ledger();
		// A transaction left open by a panic mid-group must not swallow this one.
		ledger.rollback();
		let began = ledger.begin().map_err(WriteError::from);
		let mut stored = Stored::default();
		let mut done: Vec<(Job, Option<Outcome>)> = Vec::with_capacity(group.len());
		for mut job in group {
			let answer = write_job(&mut ledger, &began, &mut job, &mut stored);
			done.push((job, answer));
		}
		let short = out_of_space(&began)
			|| done
				.iter()
				.any(|(_, outcome)| outcome.as_ref().is_some_and(Outcome::out_of_space));
		let committed = if short {
			Err(WriteError::Stopped)
		} else {
			began.and_then(|()| ledger.commit().map_err(WriteError::from))
		};
		if short || out_of_space(&committed) {
			ledger.rollback();
			drop(ledger);
			self.disk.write_failed("a write to the ledger");
			return done
				.into_iter()
				.filter_map(|(job, _)| job.again())
				.collect();
		}
		// Counted before the lock goes, so that the archive's thread, which takes the games
		// off under the lock, never counts them off before they were counted on.
		if committed.is_ok()
			&& let Some(archive) = &self.archive_counts
		{
			archive.pending.fetch_add(stored.games, Ordering::Relaxed);
		}
		drop(ledger);
		let writes = done.iter().filter(|(_, outcome)| outcome.is_some()).count();
		if committed.is_ok() && writes > 0 {
			self.counts.commits.fetch_add(1, Ordering::Relaxed);
			self.counts
				.batches
				.fetch_add(stored.batches, Ordering::Relaxed);
			counter!(LEDGER_COMMITS).increment(1);
		}
		for (job, outcome) in done {
			if let Some(outcome) = outcome {
				job.answer(outcome, &committed);
			}
		}
		Vec::new()
	}

	/// Prunes and compacts a chunk of rows each, in a transaction of their own.
	fn housework(&mut self) {
		let now = Instant::now();
		self.last_housework = now;
		let received_before = unix_now() - COMPACT_AFTER.as_secs_f64();
		let seen_before = unix_now() - FORGET_SILENT_AFTER.as_secs_f64();
		let ledger = self.ledger.clone();
		let mut ledger = ledger
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner);
		self.advance_compaction(&ledger, now, received_before);
		let through = self.compact_through;
		let done = ledger.begin().and_then(|()| {
			let pruned = ledger.prune_some(HOUSEWORK_CHUNK)?;
			let compacted = ledger.compact(through, received_before, HOUSEWORK_CHUNK)?;
			let forgotten = ledger.forget_silent_workers(seen_before, HOUSEWORK_CHUNK)?;
			ledger.commit()?;
			Ok((pruned, compacted, forgotten))
		});
		drop(ledger);
		match done {
			Ok(done) => self.count_housework(done),
			Err(e) => {
				self.ledger().rollback();
				warn!(%e, "pruning or compacting the ledger failed; trying again later");
				self.housework_left = false;
			}
		}
	}

	/// Moves `compact_through` on to the newest batch that was already in the ledger
	/// [`COMPACT_AFTER`] before `now` (batches received before `received_before`, at the
	/// start), and notes the newest batch now.
	fn advance_compaction(&mut self, ledger: &Ledger, now: Instant, received_before: f64) {
		if !self.started_compacting {
			// The rows an earlier process left are old enough now, not ten minutes from now.
			match ledger.newest_batch_id_before(received_before) {
				Ok(id) => {
					self.compact_through = id;
					self.started_compacting = true;
				}
				Err(e) => warn!(%e, "cannot read the newest old batch's id"),
			}
		}
		match ledger.newest_batch_id() {
			Ok(newest) => self.newest_ids.push_back((now, newest)),
			Err(e) => warn!(%e, "cannot read the newest batch's id"),
		}
		while let Some(&(at, id)) = self.newest_ids.front()
			&& now.duration_since(at) >= COMPACT_AFTER
		{
			self.compact_through = self.compact_through.max(id);
			self.newest_ids.pop_front();
		}
	}

	/// Counts a round of housework's rows (pruned, compacted, forgotten), and notes whether
	/// a full chunk of any says more are left.
	fn count_housework(&mut self, (pruned, compacted, forgotten): (u64, u64, u64)) {
		self.counts
			.compacted
			.fetch_add(compacted, Ordering::Relaxed);
		counter!(LEDGER_COMPACTED).increment(compacted);
		if forgotten > 0 {
			info!(
				forgotten,
				"workers that never sent a batch, silent for a day, forgotten"
			);
		}
		self.housework_left = [pruned, compacted, forgotten]
			.iter()
			.any(|done| *done as usize >= HOUSEWORK_CHUNK);
	}
}

/// The batches a group stored, and their games.
#[derive(Default)]
struct Stored {
	batches: u64,
	games: u64,
}

/// Does `job` in the group's transaction (if it `began`), each write in a savepoint of its own;
/// what it came to, to answer once the group is committed (nothing for a request to prune,
/// which is only noted). Counts the batches stored in `stored`.
fn write_job(
	ledger: &mut Ledger,
	began: &Result<(), WriteError>,
	job: &mut Job,
	stored: &mut Stored,
) -> Option<Outcome> {
	let outcome = match job {
		Job::Batch { batch, .. } => {
			let result = began.clone().and_then(|()| {
				ledger
					.write_unit(|ledger| ledger.store_batch(batch))
					.map_err(WriteError::from)
			});
			if let Ok(BatchInsert::Inserted { .. }) = result {
				stored.batches += 1;
				stored.games += batch.game_count() as u64;
			}
			Outcome::Batch(result)
		}
		Job::Refusal {
			worker_id,
			sequence,
			..
		} => {
			let result = began.clone().and_then(|()| {
				ledger
					.record_refusal(worker_id, *sequence)
					.map_err(WriteError::from)
			});
			Outcome::Refusal(result)
		}
		Job::Later { what, write } => {
			let result = match write.take() {
				Some(write) => began
					.clone()
					.and_then(|()| ledger.write_unit(write).map_err(WriteError::from)),
				None => Err(WriteError::Stopped),
			};
			Outcome::Later(what, result)
		}
		Job::Prune(id) => {
			ledger.request_prune(*id);
			return None;
		}
	};
	Some(outcome)
}

/// A write's result once its group's commit is known: nothing of the group is on disk if the
/// commit failed, so then every write has failed with it.
fn unless_failed<T>(
	committed: &Result<(), WriteError>,
	result: Result<T, WriteError>,
) -> Result<T, WriteError> {
	match committed {
		Ok(()) => result,
		Err(why) => Err(why.clone()),
	}
}

#[cfg(test)]
mod tests;
