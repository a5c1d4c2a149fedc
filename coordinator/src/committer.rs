//! `Committer`: the ledger's writer thread, which stores sample batches in groups (group
//! commit).
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
//! Writes that nobody waits for (the training thread's losses and throughput) go in the same
//! groups, so the training thread does not wait for the disk with them.
//!
//! Ownership: the thread owns the receiving end; the ledger is shared behind a mutex with the
//! joins (which are rare and write a row or two), and the thread holds it for one group at a
//! time. Dropping the `Committer` closes the queue; the thread writes what is queued, then
//! stops, and the drop waits for it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use metrics::counter;
use tokio::sync::oneshot;
use tracing::error;

use crate::ledger::{BatchInsert, Ledger, NewBatch};
use crate::metrics::LEDGER_COMMITS;
use crate::storage_error::StorageError;

/// The most writes in one transaction. A thousand batches of a few hundred samples make a
/// transaction of a few megabytes: large enough that a thousand workers share one sync, small
/// enough that the first of them does not wait long for the last.
pub const MAX_GROUP: usize = 1024;

/// A write nobody waits for, done with a group.
type LaterWrite = Box<dyn FnOnce(&mut Ledger) -> Result<(), StorageError> + Send>;

/// A write another thread waits for, or not.
enum Job {
	/// Store a batch; answer with what became of it.
	Batch {
		batch: NewBatch,
		reply: oneshot::Sender<Result<BatchInsert, String>>,
	},
	/// Use up a refused batch's number; answer whether it was the next one expected.
	Refusal {
		worker_id: String,
		sequence: u64,
		reply: oneshot::Sender<Result<bool, String>>,
	},
	/// Any other write, nobody waiting; a failure is logged, saying what it was.
	Later {
		what: &'static str,
		write: LaterWrite,
	},
}

/// Counts of the committer's work since it started.
#[derive(Debug, Default)]
pub struct CommitCounts {
	/// Transactions committed that held writes.
	pub commits: AtomicU64,
	/// Batches stored (not duplicates or refusals).
	pub batches: AtomicU64,
}

/// The handle to the ledger's writer thread.
pub struct Committer {
	jobs: Option<Sender<Job>>,
	thread: Option<JoinHandle<()>>,
	counts: Arc<CommitCounts>,
}

impl Committer {
	/// Starts the writer thread over `ledger`.
	pub fn start(ledger: Arc<Mutex<Ledger>>) -> Result<Committer, std::io::Error> {
		let (jobs, queue) = channel();
		let counts = Arc::new(CommitCounts::default());
		let writer = Writer {
			ledger,
			queue,
			counts: counts.clone(),
		};
		let thread = std::thread::Builder::new()
			.name("ledger".into())
			.spawn(move || writer.run())?;
		Ok(Committer {
			jobs: Some(jobs),
			thread: Some(thread),
			counts,
		})
	}

	/// The counts of the work done so far.
	pub fn counts(&self) -> &CommitCounts {
		&self.counts
	}

	/// Stores `batch` with the next group; what became of it once the group is on disk, or why
	/// it could not be stored.
	pub async fn store(&self, batch: NewBatch) -> Result<BatchInsert, String> {
		self.submit(batch).await.unwrap_or_else(|_| Err(stopped()))
	}

	/// Queues `batch` for the next group at once; the answer [`Committer::store`] awaits comes
	/// on the receiver.
	pub fn submit(&self, batch: NewBatch) -> oneshot::Receiver<Result<BatchInsert, String>> {
		let (reply, answer) = oneshot::channel();
		self.send(Job::Batch { batch, reply });
		answer
	}

	/// Uses up refused batch `sequence` of `worker_id` with the next group (see
	/// [`Ledger::record_refusal`]); whether it was the next one expected, once on disk.
	pub async fn refuse(&self, worker_id: &str, sequence: u64) -> Result<bool, String> {
		let (reply, answer) = oneshot::channel();
		self.send(Job::Refusal {
			worker_id: worker_id.to_string(),
			sequence,
			reply,
		});
		answer.await.unwrap_or_else(|_| Err(stopped()))
	}

	/// Writes `write` with the next group, without waiting; a failure is logged with `what`
	/// (e.g. "recording the loss").
	pub fn later(
		&self,
		what: &'static str,
		write: impl FnOnce(&mut Ledger) -> Result<(), StorageError> + Send + 'static,
	) {
		self.send(Job::Later {
			what,
			write: Box::new(write),
		});
	}

	fn send(&self, job: Job) {
		// The queue closes only when the committer is dropped, and `&self` rules that out.
		if let Some(jobs) = &self.jobs {
			let _ = jobs.send(job);
		}
	}
}

impl Drop for Committer {
	/// Closes the queue and waits for the thread to write what was queued.
	fn drop(&mut self) {
		self.jobs.take();
		if let Some(thread) = self.thread.take()
			&& thread.join().is_err()
		{
			error!("the ledger's writer thread panicked");
		}
	}
}

fn stopped() -> String {
	"the ledger's writer has stopped".to_string()
}

/// The thread's side.
struct Writer {
	ledger: Arc<Mutex<Ledger>>,
	queue: Receiver<Job>,
	counts: Arc<CommitCounts>,
}

/// A write of the group and how to answer it once the group is committed.
enum Answer {
	Batch(
		oneshot::Sender<Result<BatchInsert, String>>,
		Result<BatchInsert, String>,
	),
	Refusal(oneshot::Sender<Result<bool, String>>, Result<bool, String>),
	Later(&'static str, Result<(), String>),
}

impl Writer {
	fn run(self) {
		while let Ok(first) = self.queue.recv() {
			let mut group = vec![first];
			while group.len() < MAX_GROUP {
				match self.queue.try_recv() {
					Ok(job) => group.push(job),
					Err(_) => break,
				}
			}
			self.commit(group);
		}
	}

	fn ledger(&self) -> MutexGuard<'_, Ledger> {
		// A panic while holding the lock rolls nothing forward: SQLite rolls back a transaction
		// left open at the next `BEGIN`'s failure, and the next group starts clean.
		self.ledger
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
	}

	/// Writes `group` in one transaction and answers each write once it is committed.
	fn commit(&self, group: Vec<Job>) {
		let mut ledger = self.ledger();
		// A transaction left open by a panic mid-group must not swallow this one.
		ledger.rollback();
		let began = ledger.begin().map_err(|e| e.to_string());
		let mut stored = 0;
		let answers: Vec<Answer> = group
			.into_iter()
			.filter_map(|job| write_job(&mut ledger, &began, job, &mut stored))
			.collect();
		let committed = began.and_then(|()| ledger.commit().map_err(|e| e.to_string()));
		drop(ledger);
		if committed.is_ok() && !answers.is_empty() {
			self.counts.commits.fetch_add(1, Ordering::Relaxed);
			self.counts.batches.fetch_add(stored, Ordering::Relaxed);
			counter!(LEDGER_COMMITS).increment(1);
		}
		for answer in answers {
			// A session that went away no longer waits for its answer: nothing to do then.
			match answer {
				Answer::Batch(reply, result) => {
					let _ = reply.send(unless_failed(&committed, result));
				}
				Answer::Refusal(reply, result) => {
					let _ = reply.send(unless_failed(&committed, result));
				}
				Answer::Later(what, result) => {
					if let Err(why) = unless_failed(&committed, result) {
						error!(what, %why, "a write to the ledger failed");
					}
				}
			}
		}
	}
}

/// Does `job` in the group's transaction (if it `began`), each write in a savepoint of its own;
/// what to answer once the group is committed. Counts the batches stored in `stored`.
fn write_job(
	ledger: &mut Ledger,
	began: &Result<(), String>,
	job: Job,
	stored: &mut u64,
) -> Option<Answer> {
	let answer = match job {
		Job::Batch { batch, reply } => {
			let result = began.clone().and_then(|()| {
				ledger
					.write_unit(|ledger| ledger.store_batch(&batch))
					.map_err(|e| e.to_string())
			});
			if let Ok(BatchInsert::Inserted { .. }) = result {
				*stored += 1;
			}
			Answer::Batch(reply, result)
		}
		Job::Refusal {
			worker_id,
			sequence,
			reply,
		} => {
			let result = began.clone().and_then(|()| {
				ledger
					.record_refusal(&worker_id, sequence)
					.map_err(|e| e.to_string())
			});
			Answer::Refusal(reply, result)
		}
		Job::Later { what, write } => {
			let result = began
				.clone()
				.and_then(|()| ledger.write_unit(write).map_err(|e| e.to_string()));
			Answer::Later(what, result)
		}
	};
	Some(answer)
}

/// A write's result once its group's commit is known: nothing of the group is on disk if the
/// commit failed, so then every write has failed with it.
fn unless_failed<T>(
	committed: &Result<(), String>,
	result: Result<T, String>,
) -> Result<T, String> {
	match committed {
		Ok(()) => result,
		Err(why) => Err(why.clone()),
	}
}

#[cfg(test)]
mod tests {
	use tigers_core::selfplay::Sample;
	use tigers_core::{GameBoard, Turn};

	use super::*;
	use crate::test_support::TestDir;

	fn batch(worker: &str, sequence: u64) -> NewBatch {
		let samples: Vec<Sample> = (0..3)
			.map(|ply| Sample {
				board: GameBoard::default(),
				turn: Turn::Sheep,
				score: 0.5,
				result: 1.0,
				ply,
				generation: 0,
			})
			.collect();
		NewBatch::new(worker, sequence, &samples, &["game".to_string()]).unwrap()
	}

	fn ledger(dir: &TestDir) -> Arc<Mutex<Ledger>> {
		Arc::new(Mutex::new(
			Ledger::open(&dir.path().join("ledger.sqlite")).unwrap(),
		))
	}

	#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
	async fn batches_that_arrive_together_share_a_commit_and_are_stored_once() {
		let dir = TestDir::new("committer-group");
		let shared = ledger(&dir);
		let committer = Committer::start(shared.clone()).unwrap();
		// While the ledger is held (by another thread), every batch queues up; the writer then
		// takes them in at most two groups: what it took before finding the lock held, and
		// the rest.
		let (locked, is_locked) = channel();
		let (release, released) = channel::<()>();
		let holder = {
			let shared = shared.clone();
			std::thread::spawn(move || {
				let _held = shared.lock().unwrap();
				locked.send(()).unwrap();
				let _ = released.recv();
			})
		};
		is_locked.recv().unwrap();
		let mut answers = Vec::new();
		for worker in 0..50 {
			for sequence in 1..=4 {
				answers.push(committer.submit(batch(&format!("w{worker}"), sequence)));
			}
		}
		// The same batch twice in one group, as two sessions of one identity would send it.
		let twice = [
			committer.submit(batch("twice", 1)),
			committer.submit(batch("twice", 1)),
		];
		release.send(()).unwrap();
		holder.join().unwrap();
		for answer in answers {
			assert!(matches!(
				answer.await.unwrap(),
				Ok(BatchInsert::Inserted { .. })
			));
		}
		let mut twice_answers = Vec::new();
		for answer in twice {
			twice_answers.push(answer.await.unwrap().unwrap());
		}
		assert!(
			matches!(twice_answers[0], BatchInsert::Inserted { .. }),
			"{twice_answers:?}"
		);
		assert_eq!(twice_answers[1], BatchInsert::Duplicate);
		let counts = committer.counts();
		assert_eq!(counts.batches.load(Ordering::Relaxed), 201);
		let commits = counts.commits.load(Ordering::Relaxed);
		assert!(
			(1..=2).contains(&commits),
			"{commits} commits for 202 batches"
		);
		let totals = shared.lock().unwrap().totals().unwrap();
		assert_eq!((totals.batches, totals.samples), (201, 603));
	}

	#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
	async fn a_failing_write_is_undone_alone_and_refusals_are_answered_after_the_commit() {
		let dir = TestDir::new("committer-failure");
		let shared = ledger(&dir);
		let committer = Committer::start(shared.clone()).unwrap();
		assert!(matches!(
			committer.store(batch("w", 1)).await,
			Ok(BatchInsert::Inserted { .. })
		));
		committer.later("a write that fails", |ledger| ledger.record_flag("nobody"));
		committer.later("recording a loss", |ledger| ledger.record_loss(7, 0.5, 1.0));
		assert_eq!(committer.refuse("w", 2).await, Ok(true));
		assert_eq!(committer.refuse("w", 9).await, Ok(false));
		assert_eq!(
			committer.store(batch("w", 2)).await,
			Ok(BatchInsert::OutOfOrder { expected: 3 })
		);
		assert_eq!(
			committer.store(batch("w", 1)).await,
			Ok(BatchInsert::Duplicate)
		);
		drop(committer);
		let ledger = shared.lock().unwrap();
		assert_eq!(ledger.losses(0).unwrap(), [(7, 0.5)]);
		assert_eq!(ledger.last_sequence("w").unwrap(), 2);
		assert_eq!(ledger.totals().unwrap().batches, 1);
	}
}
