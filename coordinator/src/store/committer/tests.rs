//! The ledger's writer: groups share a commit, a failing write is undone alone, pruning runs
//! between groups.
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

/// The disk of `dir`, with no margin: short of space only after a failed write.
fn roomy_disk(dir: &TestDir) -> Arc<Disk> {
	Arc::new(Disk::new(dir.path(), 0))
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
	let committer = Committer::start(shared.clone(), None, roomy_disk(&dir)).unwrap();
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
	let committer = Committer::start(shared.clone(), None, roomy_disk(&dir)).unwrap();
	assert!(matches!(
		committer.store(batch("w", 1)).await,
		Ok(BatchInsert::Inserted { .. })
	));
	committer.later("a write that fails", |ledger| ledger.record_flag("nobody"));
	committer.later("recording a loss", |ledger| ledger.record_loss(7, 0.5, 1.0));
	assert!(committer.submit_refusal("w", 2).await.unwrap().unwrap());
	assert!(!committer.submit_refusal("w", 9).await.unwrap().unwrap());
	assert_eq!(
		committer.store(batch("w", 2)).await.unwrap(),
		BatchInsert::OutOfOrder { expected: 3 }
	);
	assert_eq!(
		committer.store(batch("w", 1)).await.unwrap(),
		BatchInsert::Duplicate
	);
	drop(committer);
	let ledger = shared.lock().unwrap();
	assert_eq!(ledger.losses(0).unwrap(), [(7, 0.5)]);
	assert_eq!(ledger.last_sequence("w").unwrap(), 2);
	assert_eq!(ledger.totals().unwrap().batches, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pruning_asked_for_is_done_between_groups() {
	let dir = TestDir::new("committer-prune");
	let shared = ledger(&dir);
	let committer = Committer::start(shared.clone(), None, roomy_disk(&dir)).unwrap();
	let mut last = 0;
	for sequence in 1..=3 {
		if let Ok(BatchInsert::Inserted { id }) = committer.store(batch("w", sequence)).await {
			last = id;
		}
	}
	committer.prune_before(last);
	// Dropping waits for the queue and a last round of housework.
	drop(committer);
	let ledger = shared.lock().unwrap();
	assert_eq!(ledger.batches_after(last - 1).unwrap().len(), 1);
	assert!(ledger.batches_after(0).is_err(), "the first two are pruned");
}
