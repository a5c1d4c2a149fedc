//! One layer's slices while the workers solve it: which are done, which are out and with whom,
//! which are computed twice, and who returned what. Bookkeeping only: no I/O, no clock of its
//! own (the time is passed in), so each rule is tested by itself.
//!
//! A slice is handed out under a lease with a deadline; a lease past it no longer holds the
//! slice, which goes to the next worker that asks (a late answer is still taken if the slice
//! is not done by then). Every `DOUBLED_EVERY`-th slice is *doubled*: it is done only once two
//! different workers' copies agree. Copies that disagree, and a doubled slice that no second
//! worker took by the time everything else is done, are *settled* by the coordinator computing
//! the slice itself ([`LayerPlan::take_to_settle`], [`LayerPlan::settle`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tigers_core::tablebase::placement::{LayerId, LayerShape, Slice};

use crate::error::ServiceError;

/// One slice in `DOUBLED_EVERY` is computed by two workers and compared: 2% of them, and with
/// slice 0 always among them, at least one in every layer.
pub(crate) const DOUBLED_EVERY: usize = 50;

/// A slice handed out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Task {
	/// The lease it is handed out under.
	pub lease: u64,
	/// The slice.
	pub slice: Slice,
	/// Its values' length in bytes.
	pub bytes: u64,
}

/// What a submission is, once its lease is found good.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Submission {
	/// The slice was done meanwhile: the values are not needed.
	Stale,
	/// The values are to be checked, then given to [`LayerPlan::accept`].
	Check {
		/// The slice's place in the layer.
		index: usize,
		/// The slice.
		slice: Slice,
	},
}

#[derive(Debug)]
struct Lease {
	index: usize,
	worker: String,
	deadline: Instant,
	open: bool,
}

#[derive(Debug)]
struct SliceWork {
	slice: Slice,
	bytes: u64,
	doubled: bool,
	/// Its values, shared so that the layer's bytes are put together outside the lock.
	done: Option<Arc<Vec<u8>>>,
	/// Who returned the values taken (for a doubled slice, both).
	done_by: Vec<String>,
	/// A doubled slice's copies, each passed its spot check, waiting to be compared.
	copies: Vec<(String, Vec<u8>)>,
	/// Submissions of it under their spot check.
	checking: u32,
	/// Whether the coordinator is computing it itself.
	settling: bool,
}

/// The layer being solved.
#[derive(Debug)]
pub(crate) struct LayerPlan {
	id: LayerId,
	slices: Vec<SliceWork>,
	leases: HashMap<u64, Lease>,
	next_lease: u64,
	timeout: Duration,
	reassigned: u64,
}

impl LayerPlan {
	/// The plan of layer `id`, with the slices `kept` returns already done (those a stopped
	/// solve left), leases numbered from `first_lease` and lasting `timeout`.
	pub(crate) fn new(
		id: LayerId,
		kept: impl Fn(Slice, usize) -> Option<Vec<u8>>,
		first_lease: u64,
		timeout: Duration,
	) -> LayerPlan {
		let shape = LayerShape::of(id);
		let slices = Slice::all(id)
			.into_iter()
			.enumerate()
			.map(|(index, slice)| {
				let range = slice.bytes(&shape);
				let bytes = range.end - range.start;
				let done = kept(slice, bytes as usize).map(Arc::new);
				SliceWork {
					slice,
					bytes,
					doubled: index % DOUBLED_EVERY == 0,
					done_by: Vec::new(),
					done,
					copies: Vec::new(),
					checking: 0,
					settling: false,
				}
			})
			.collect();
		LayerPlan {
			id,
			slices,
			leases: HashMap::new(),
			next_lease: first_lease,
			timeout,
			reassigned: 0,
		}
	}

	/// The layer.
	pub(crate) fn id(&self) -> LayerId {
		self.id
	}

	/// The next lease number this plan would hand out (the next layer's plan starts there).
	pub(crate) fn next_lease(&self) -> u64 {
		self.next_lease
	}

	/// Leases that passed their deadline with the slice not done, so far.
	pub(crate) fn reassigned(&self) -> u64 {
		self.reassigned
	}

	/// Closes the leases past their deadline at `now`.
	pub(crate) fn expire(&mut self, now: Instant) {
		for lease in self.leases.values_mut() {
			if lease.open && lease.deadline <= now {
				lease.open = false;
				if self.slices[lease.index].done.is_none() {
					self.reassigned += 1;
				}
			}
		}
	}

	/// A slice for `worker` at `now`, if one is free: not done, not out, or for a doubled
	/// slice, short of a second copy that `worker` has not made.
	pub(crate) fn hand_out(&mut self, worker: &str, now: Instant) -> Option<Task> {
		self.expire(now);
		let index = (0..self.slices.len()).find(|&index| self.is_free_for(index, worker))?;
		let lease = self.next_lease;
		self.next_lease += 1;
		self.leases.insert(
			lease,
			Lease {
				index,
				worker: worker.to_string(),
				deadline: now + self.timeout,
				open: true,
			},
		);
		let work = &self.slices[index];
		Some(Task {
			lease,
			slice: work.slice,
			bytes: work.bytes,
		})
	}

	fn is_free_for(&self, index: usize, worker: &str) -> bool {
		let work = &self.slices[index];
		if work.done.is_some() || work.settling {
			return false;
		}
		let out: Vec<&Lease> = self
			.leases
			.values()
			.filter(|lease| lease.open && lease.index == index)
			.collect();
		if !work.doubled {
			return out.is_empty() && work.checking == 0;
		}
		let mine = out.iter().any(|lease| lease.worker == worker)
			|| work.copies.iter().any(|(by, _)| by == worker);
		let copies = work.copies.len() + work.checking as usize + out.len();
		!mine && copies < 2
	}

	/// Takes a submission of `length` bytes under `lease` from `worker`: its slice, to check,
	/// unless it is not needed any more. The lease is closed either way.
	pub(crate) fn submit(
		&mut self,
		worker: &str,
		lease: u64,
		length: u64,
	) -> Result<Submission, ServiceError> {
		let held = self
			.leases
			.get_mut(&lease)
			.ok_or(ServiceError::NoSuchLease(lease))?;
		if held.worker != worker {
			return Err(ServiceError::NotYourLease {
				lease,
				holder: held.worker.clone(),
				worker: worker.to_string(),
			});
		}
		let work = &mut self.slices[held.index];
		if length != work.bytes {
			return Err(ServiceError::SliceLength {
				lease,
				expected: work.bytes,
				got: length,
			});
		}
		let index = held.index;
		self.leases.remove(&lease);
		let already = work.done.is_some()
			|| work.settling
			|| (work.doubled && work.copies.iter().any(|(by, _)| by == worker));
		if already {
			return Ok(Submission::Stale);
		}
		work.checking += 1;
		Ok(Submission::Check {
			index,
			slice: work.slice,
		})
	}

	/// Gives the values of slice `index` from `worker`, after their spot check: whether they
	/// were taken. `passed` false (the check failed) drops them.
	pub(crate) fn accept(
		&mut self,
		index: usize,
		worker: &str,
		values: Vec<u8>,
		passed: bool,
	) -> bool {
		let work = &mut self.slices[index];
		work.checking = work.checking.saturating_sub(1);
		if !passed || work.done.is_some() || work.settling {
			return false;
		}
		if !work.doubled {
			work.done = Some(Arc::new(values));
			work.done_by = vec![worker.to_string()];
			return true;
		}
		work.copies.push((worker.to_string(), values));
		let agree = work.copies.len() >= 2 && work.copies.iter().all(|c| c.1 == work.copies[0].1);
		if agree {
			work.done_by = work.copies.iter().map(|(by, _)| by.clone()).collect();
			work.done = work.copies.pop().map(|(_, values)| Arc::new(values));
			work.copies.clear();
		}
		true
	}

	/// Slices the coordinator must compute itself, now marked as being computed: doubled ones
	/// whose copies disagree, and, once nothing else is left, those still short of a second
	/// copy with none out.
	pub(crate) fn take_to_settle(&mut self) -> Vec<(usize, Slice)> {
		let rest_done = self
			.slices
			.iter()
			.all(|work| work.done.is_some() || (work.doubled && !work.copies.is_empty()));
		let open: Vec<usize> = self
			.leases
			.values()
			.filter(|lease| lease.open)
			.map(|lease| lease.index)
			.collect();
		let mut settle = Vec::new();
		for (index, work) in self.slices.iter_mut().enumerate() {
			if work.done.is_some() || work.settling || work.copies.is_empty() {
				continue;
			}
			let disputed = work.copies.iter().any(|c| c.1 != work.copies[0].1);
			let lonely = rest_done && work.checking == 0 && !open.contains(&index);
			if disputed || lonely {
				work.settling = true;
				settle.push((index, work.slice));
			}
		}
		settle
	}

	/// The coordinator's own values of slice `index`: taken, and the workers whose copies
	/// differ from them returned (to be flagged).
	pub(crate) fn settle(&mut self, index: usize, truth: Vec<u8>) -> Vec<String> {
		let work = &mut self.slices[index];
		work.settling = false;
		let (right, wrong): (Vec<_>, Vec<_>) = work
			.copies
			.drain(..)
			.partition(|(_, values)| *values == truth);
		work.done_by = right.into_iter().map(|(by, _)| by).collect();
		work.done = Some(Arc::new(truth));
		wrong.into_iter().map(|(by, _)| by).collect()
	}

	/// Forgets what `worker` did in this layer, once it is caught: its leases, copies and the
	/// slices taken from it alone go back to be done again. Those slices are returned (their
	/// kept files must go too).
	pub(crate) fn forget_worker(&mut self, worker: &str) -> Vec<Slice> {
		self.leases.retain(|_, lease| lease.worker != worker);
		let mut again = Vec::new();
		for work in &mut self.slices {
			work.copies.retain(|(by, _)| by != worker);
			if work.done_by.iter().any(|by| by == worker) {
				work.done = None;
				work.done_by.clear();
				again.push(work.slice);
			}
		}
		again
	}

	/// Slice `index`'s values, once done.
	pub(crate) fn done_values(&self, index: usize) -> Option<Arc<Vec<u8>>> {
		self.slices[index].done.clone()
	}

	/// Whether slice `index` is doubled.
	pub(crate) fn is_doubled(&self, index: usize) -> bool {
		self.slices[index].doubled
	}

	/// Whether every slice is done.
	pub(crate) fn is_complete(&self) -> bool {
		self.slices.iter().all(|work| work.done.is_some())
	}

	/// The layer's slices' values in order, to be put together with [`layer_bytes`] (outside
	/// the lock); `None` until [`Self::is_complete`].
	pub(crate) fn pieces(&self) -> Option<Vec<Arc<Vec<u8>>>> {
		self.slices.iter().map(|work| work.done.clone()).collect()
	}

	/// Slices in all, done, and out now.
	pub(crate) fn counts(&self) -> (usize, usize, usize) {
		let done = self.slices.iter().filter(|w| w.done.is_some()).count();
		let out = self.leases.values().filter(|lease| lease.open).count();
		(self.slices.len(), done, out)
	}

	/// Positions in the slices done.
	pub(crate) fn positions_done(&self) -> u64 {
		self.slices
			.iter()
			.filter(|work| work.done.is_some())
			.map(|work| work.slice.entries(self.id))
			.sum()
	}

	/// Slices `worker` holds now.
	pub(crate) fn held_by(&self, worker: &str) -> usize {
		self.leases
			.values()
			.filter(|lease| lease.open && lease.worker == worker)
			.count()
	}
}

/// A layer's bytes from its slices' values in order.
pub(crate) fn layer_bytes(pieces: &[Arc<Vec<u8>>]) -> Vec<u8> {
	let mut out = Vec::with_capacity(pieces.iter().map(|piece| piece.len()).sum());
	for piece in pieces {
		out.extend_from_slice(piece);
	}
	out
}

#[cfg(test)]
mod tests {
	use tigers_core::moves::Turn;

	use super::*;

	fn plan() -> LayerPlan {
		let id = LayerId::new(19, Turn::Sheep).expect("a layer");
		LayerPlan::new(id, |_, _| None, 1, Duration::from_secs(10))
	}

	fn values(task: &Task, byte: u8) -> Vec<u8> {
		vec![byte; task.bytes as usize]
	}

	/// Hands out and returns (checked and good) every slice `worker` is given until none is.
	fn drain(plan: &mut LayerPlan, worker: &str, now: Instant) {
		while let Some(task) = plan.hand_out(worker, now) {
			let Submission::Check { index, .. } = plan
				.submit(worker, task.lease, task.bytes)
				.expect("a good lease")
			else {
				panic!("not stale");
			};
			assert!(plan.accept(index, worker, values(&task, 0), true));
		}
	}

	#[test]
	fn one_worker_does_every_slice_and_the_coordinator_the_second_copies() {
		let mut plan = plan();
		let now = Instant::now();
		drain(&mut plan, "a", now);
		let (all, done, out) = plan.counts();
		assert_eq!((done, out), (all - all.div_ceil(DOUBLED_EVERY), 0));
		let settle = plan.take_to_settle();
		assert_eq!(settle.len(), all.div_ceil(DOUBLED_EVERY));
		for (index, slice) in settle {
			let length = slice.bytes(&LayerShape::of(plan.id())).end
				- slice.bytes(&LayerShape::of(plan.id())).start;
			assert!(plan.settle(index, vec![0; length as usize]).is_empty());
		}
		assert!(plan.is_complete());
		assert_eq!(
			layer_bytes(&plan.pieces().expect("complete")).len() as u64,
			{ LayerShape::of(plan.id()).bytes() }
		);
	}

	#[test]
	fn a_doubled_slice_goes_to_a_second_worker_and_is_done_when_both_agree() {
		let mut plan = plan();
		let now = Instant::now();
		let first = plan.hand_out("a", now).expect("a task");
		let second = plan.hand_out("b", now).expect("a task");
		assert_eq!(first.slice, second.slice, "slice 0 is doubled");
		let third = plan.hand_out("a", now).expect("a task");
		assert_ne!(third.slice, first.slice);
		for (worker, task) in [("a", &first), ("b", &second)] {
			let Ok(Submission::Check { index, .. }) = plan.submit(worker, task.lease, task.bytes)
			else {
				panic!("a check");
			};
			assert!(plan.accept(index, worker, values(task, 5), true));
		}
		assert_eq!(plan.counts().1, 1);
	}

	#[test]
	fn copies_that_disagree_are_settled_and_the_wrong_worker_named() {
		let mut plan = plan();
		let now = Instant::now();
		let first = plan.hand_out("a", now).expect("a task");
		let second = plan.hand_out("liar", now).expect("a task");
		for (worker, task, byte) in [("a", &first, 1), ("liar", &second, 2)] {
			let Ok(Submission::Check { index, .. }) = plan.submit(worker, task.lease, task.bytes)
			else {
				panic!("a check");
			};
			plan.accept(index, worker, values(task, byte), true);
		}
		let settle = plan.take_to_settle();
		assert_eq!(settle.len(), 1);
		assert_eq!(plan.settle(settle[0].0, values(&first, 1)), vec!["liar"]);
		assert_eq!(plan.counts().1, 1);
	}

	#[test]
	fn a_lease_past_its_deadline_goes_to_another_worker() {
		let mut plan = plan();
		let now = Instant::now();
		let _first = plan.hand_out("a", now).expect("a task");
		let _doubled = plan.hand_out("b", now).expect("slice 0's second copy");
		let taken = plan.hand_out("a", now).expect("slice 1");
		let later = now + Duration::from_secs(11);
		let again = plan.hand_out("b", later).expect("a task");
		assert_eq!(again.slice, plan.slices[0].slice);
		assert_eq!(plan.reassigned(), 3);
		// A late answer is still taken while the slice is not done.
		assert!(matches!(
			plan.submit("a", taken.lease, taken.bytes),
			Ok(Submission::Check { index: 1, .. })
		));
	}

	#[test]
	fn bad_submissions_are_refused_and_change_nothing() {
		let mut plan = plan();
		let now = Instant::now();
		let task = plan.hand_out("a", now).expect("a task");
		assert!(matches!(
			plan.submit("a", task.lease + 100, task.bytes),
			Err(ServiceError::NoSuchLease(_))
		));
		assert!(matches!(
			plan.submit("b", task.lease, task.bytes),
			Err(ServiceError::NotYourLease { .. })
		));
		assert!(matches!(
			plan.submit("a", task.lease, task.bytes - 1),
			Err(ServiceError::SliceLength { .. })
		));
		assert_eq!(plan.counts().2, 1, "the lease is still out");
		assert!(matches!(
			plan.submit("a", task.lease, task.bytes),
			Ok(Submission::Check { .. })
		));
	}

	#[test]
	fn a_caught_workers_slices_are_done_again() {
		let mut plan = plan();
		let now = Instant::now();
		drain(&mut plan, "liar", now);
		let done = plan.counts().1;
		assert!(done > 0);
		assert_eq!(plan.forget_worker("liar").len(), done);
		assert_eq!(plan.counts().1, 0);
		assert!(plan.take_to_settle().is_empty(), "its copies are gone too");
	}

	#[test]
	fn kept_slices_count_as_done() {
		let id = LayerId::new(19, Turn::Tiger).expect("a layer");
		let plan = LayerPlan::new(
			id,
			|slice, length| (slice.dead == 0).then(|| vec![0; length]),
			1,
			Duration::from_secs(1),
		);
		assert_eq!(plan.counts().1, Slice::all(id).len() / 5);
	}
}
