//! The training thread's inbox: the stored batches waiting to enter the replay window, in
//! arrival order, bounded in samples.
//!
//! A trainer starved of processor time falls behind the fleet, and an unbounded queue then
//! grows with the backlog (a loaded coordinator once reached 1,134 MiB this way). The bound is
//! the window's capacity: when more than that waits, taking it all in would push the oldest
//! out of the window before a single step trained on them, so they are dropped at once
//! instead, oldest first. Nothing else is lost: every batch is in the ledger already, and the
//! samples dropped still count as arrived for the self-play depth rule.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tigers_core::selfplay::Sample;

/// A batch the ledger has stored: its id and its samples.
pub(crate) struct StoredBatch {
	/// The ledger's id of the batch.
	pub id: i64,
	/// Its samples.
	pub samples: Vec<Sample>,
}

/// What the training thread finds when it looks.
#[derive(Default)]
pub(crate) struct Delivery {
	/// Batches to add, oldest first.
	pub batches: Vec<StoredBatch>,
	/// Samples that were dropped since the last look because more than the bound waited.
	pub dropped_samples: u64,
	/// The newest ledger id among the batches dropped, 0 if none.
	pub dropped_newest_id: i64,
	/// The thread is to checkpoint and stop.
	pub stop: bool,
}

#[derive(Default)]
struct Waiting {
	batches: VecDeque<StoredBatch>,
	samples: usize,
	limit: usize,
	dropped_samples: u64,
	dropped_newest_id: i64,
	stop: bool,
}

/// Batches on their way to the training thread; shared by the sessions (which send) and the
/// thread (which takes).
pub(crate) struct Inbox {
	waiting: Mutex<Waiting>,
	arrived: Condvar,
}

impl Inbox {
	/// An empty inbox that holds at most `limit` samples (at least one batch, however large).
	pub(crate) fn new(limit: usize) -> Inbox {
		Inbox {
			waiting: Mutex::new(Waiting {
				limit,
				..Waiting::default()
			}),
			arrived: Condvar::new(),
		}
	}

	/// Queues a stored batch, dropping the oldest waiting ones while more than the bound waits.
	pub(crate) fn send(&self, batch: StoredBatch) {
		let mut waiting = self.lock();
		waiting.samples += batch.samples.len();
		waiting.batches.push_back(batch);
		while waiting.samples > waiting.limit && waiting.batches.len() > 1 {
			let Some(oldest) = waiting.batches.pop_front() else {
				break;
			};
			waiting.samples -= oldest.samples.len();
			waiting.dropped_samples += oldest.samples.len() as u64;
			waiting.dropped_newest_id = waiting.dropped_newest_id.max(oldest.id);
		}
		drop(waiting);
		self.arrived.notify_one();
	}

	/// Tells the thread to checkpoint and stop once it has taken what waits.
	pub(crate) fn stop(&self) {
		self.lock().stop = true;
		self.arrived.notify_one();
	}

	/// Sets the bound, in samples: the window's capacity, which a growing window changes.
	pub(crate) fn set_limit(&self, limit: usize) {
		self.lock().limit = limit;
	}

	/// Takes everything waiting, after waiting up to `patience` for something when nothing is.
	pub(crate) fn take(&self, patience: Duration) -> Delivery {
		let mut waiting = self.lock();
		if waiting.batches.is_empty() && !waiting.stop && !patience.is_zero() {
			waiting = self
				.arrived
				.wait_timeout_while(waiting, patience, |waiting| {
					waiting.batches.is_empty() && !waiting.stop
				})
				.unwrap_or_else(PoisonError::into_inner)
				.0;
		}
		let delivery = Delivery {
			batches: waiting.batches.drain(..).collect(),
			dropped_samples: std::mem::take(&mut waiting.dropped_samples),
			dropped_newest_id: std::mem::take(&mut waiting.dropped_newest_id),
			stop: waiting.stop,
		};
		waiting.samples = 0;
		delivery
	}

	fn lock(&self) -> MutexGuard<'_, Waiting> {
		// Plain queues and counters: still usable after a panic elsewhere.
		self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use std::sync::Arc;
	use std::time::Instant;

	use crate::test_support::varied_samples;

	fn batch(id: i64, count: usize) -> StoredBatch {
		StoredBatch {
			id,
			samples: vec![varied_samples()[0]; count],
		}
	}

	fn ids(delivery: &Delivery) -> Vec<i64> {
		delivery.batches.iter().map(|batch| batch.id).collect()
	}

	#[test]
	fn batches_come_out_in_arrival_order() {
		let inbox = Inbox::new(1_000);
		for id in 1..=3 {
			inbox.send(batch(id, 10));
		}
		let delivery = inbox.take(Duration::ZERO);
		assert_eq!(ids(&delivery), [1, 2, 3]);
		assert_eq!(delivery.dropped_samples, 0);
		assert!(!delivery.stop);
		assert!(inbox.take(Duration::ZERO).batches.is_empty());
	}

	#[test]
	fn past_the_bound_the_oldest_are_dropped_and_counted() {
		let inbox = Inbox::new(25);
		for id in 1..=5 {
			inbox.send(batch(id, 10));
		}
		// 50 samples sent, at most 25 kept: the newest two batches.
		let delivery = inbox.take(Duration::ZERO);
		assert_eq!(ids(&delivery), [4, 5]);
		assert_eq!(delivery.dropped_samples, 30);
		assert_eq!(delivery.dropped_newest_id, 3);
		// The counts start again after a look.
		inbox.send(batch(6, 10));
		let next = inbox.take(Duration::ZERO);
		assert_eq!((ids(&next), next.dropped_samples), (vec![6], 0));
	}

	#[test]
	fn one_batch_larger_than_the_bound_still_goes_through() {
		let inbox = Inbox::new(5);
		inbox.send(batch(1, 10));
		assert_eq!(ids(&inbox.take(Duration::ZERO)), [1]);
		inbox.set_limit(100);
		inbox.send(batch(2, 60));
		inbox.send(batch(3, 30));
		assert_eq!(ids(&inbox.take(Duration::ZERO)), [2, 3]);
	}

	#[test]
	fn a_waiting_take_wakes_for_a_batch_or_a_stop() {
		let inbox = Arc::new(Inbox::new(100));
		let sender = inbox.clone();
		let sending = std::thread::spawn(move || {
			std::thread::sleep(Duration::from_millis(50));
			sender.send(batch(7, 1));
		});
		let began = Instant::now();
		assert_eq!(ids(&inbox.take(Duration::from_secs(30))), [7]);
		assert!(began.elapsed() < Duration::from_secs(20));
		sending.join().unwrap();
		inbox.send(batch(8, 1));
		inbox.stop();
		let last = inbox.take(Duration::from_secs(30));
		assert_eq!(ids(&last), [8]);
		assert!(last.stop);
		// With nothing sent, a take gives up after its patience.
		let empty = Inbox::new(100);
		assert!(empty.take(Duration::from_millis(10)).batches.is_empty());
	}
}
