//! `Solver`: a placement solve's state, behind one mutex held only for bookkeeping, and what
//! the driver and the handlers share of it (the child layer, the workers' records, the spot
//! check).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tigers_core::Tablebase;
use tigers_core::tablebase::placement::{
	Children, LayerId, LayerShape, PartialSlices, Slice, solve_one_slice,
};
use tigers_proto::v1;
use tracing::warn;

use crate::solve::config::SolveConfig;
use crate::solve::plan::LayerPlan;

/// The file a layer's slices are computed from, as the workers fetch it.
pub(crate) enum Child {
	/// The movement table, for the sheep with 19 placed.
	Movement(Arc<Tablebase>),
	/// A finished layer's whole file as the workers fetch it, its entries, and the file's
	/// sha256.
	Layer {
		id: LayerId,
		file: Arc<Vec<u8>>,
		entries: Vec<u8>,
		sha256: String,
	},
}

impl Child {
	pub(super) fn sha256(&self) -> &str {
		match self {
			Child::Movement(table) => table.identity(),
			Child::Layer { sha256, .. } => sha256,
		}
	}

	pub(super) fn children(&self) -> Children<'_> {
		match self {
			Child::Movement(table) => Children::Movement(table),
			Child::Layer { entries, .. } => Children::Layer(entries),
		}
	}
}

/// What the solve has done for one worker, by the name it asks under.
#[derive(Debug)]
pub(crate) struct WorkerRecord {
	pub(super) slices: u64,
	pub(super) positions: u64,
	pub(super) flagged: Option<String>,
	pub(super) last_seen: Instant,
	pub(super) told_finished: bool,
}

/// The solve's state; every field is written under [`Solver::lock`].
pub(crate) struct Inner {
	pub(super) plan: Option<LayerPlan>,
	pub(super) child: Option<Arc<Child>>,
	pub(super) partial: Option<Arc<PartialSlices>>,
	pub(super) layers: u32,
	pub(super) layers_done: u32,
	/// Entries of the layers to solve at start, and of those written since.
	pub(super) positions: u64,
	pub(super) positions_before: u64,
	/// (time, entries decided) once a second at most, for the rate over the last minute.
	pub(super) rate: VecDeque<(Instant, u64)>,
	pub(super) reassigned_before: u64,
	pub(super) doubled: u64,
	pub(super) checked: u64,
	pub(super) workers: BTreeMap<String, WorkerRecord>,
	pub(super) finished: bool,
	/// The spot checks' class picks: a generator the workers cannot predict.
	pub(super) picks: u64,
}

/// A placement solve in progress.
pub(crate) struct Solver {
	pub(super) inner: Mutex<Inner>,
	pub(super) changed: Condvar,
	pub(super) movement: Arc<Tablebase>,
	pub(super) config: SolveConfig,
	pub(super) started: Instant,
	pub(super) stop: AtomicBool,
}

impl Solver {
	pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
		self.inner
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
	}

	/// Wakes the driver: something it waits for may have happened.
	pub(super) fn poke(&self) {
		self.changed.notify_all();
	}

	/// Flags `worker` for `reason`: no more slices, and what it did in this layer is done
	/// again.
	pub(crate) fn flag(&self, inner: &mut Inner, worker: &str, reason: String) {
		warn!(worker, %reason, "a worker returned wrong values; it gets no more slices");
		let record = inner
			.workers
			.entry(worker.to_string())
			.or_insert_with(|| WorkerRecord::new(Instant::now()));
		record.flagged.get_or_insert(reason);
		let forgotten = match &mut inner.plan {
			Some(plan) => plan.forget_worker(worker),
			None => Vec::new(),
		};
		if let Some(partial) = &inner.partial {
			for slice in forgotten {
				partial.forget(slice);
			}
		}
	}

	/// The solve's progress, as `coordinator status` and the metrics show it.
	pub(crate) fn progress(&self) -> v1::PlacementSolve {
		let mut inner = self.lock();
		let now = Instant::now();
		let (slices, slices_done, in_flight, layer, in_layer, reassigned) = match &inner.plan {
			Some(plan) => {
				let (all, done, out) = plan.counts();
				let name = plan.id().file_name().trim_end_matches(".tbp").to_string();
				(
					all,
					done,
					out,
					name,
					plan.positions_done(),
					plan.reassigned(),
				)
			}
			None => (0, 0, 0, String::new(), 0, 0),
		};
		let positions_done = inner.positions_before + in_layer;
		inner.note_rate(now, positions_done);
		let rate = match (inner.rate.front(), inner.rate.back()) {
			(Some((t0, p0)), Some((t1, p1))) if t1 > t0 => {
				p1.saturating_sub(*p0) as f64 / (*t1 - *t0).as_secs_f64()
			}
			_ => 0.0,
		};
		let left = inner.positions.saturating_sub(positions_done);
		let total: u64 = inner.workers.values().map(|w| w.positions).sum();
		let workers = inner
			.workers
			.iter()
			.map(|(name, w)| v1::SolveWorker {
				name: name.clone(),
				slices: w.slices,
				positions: w.positions,
				share: w.positions as f64 / total.max(1) as f64,
				in_flight: inner.plan.as_ref().map_or(0, |p| p.held_by(name)) as u32,
				flagged: w.flagged.is_some(),
				flag_reason: w.flagged.clone().unwrap_or_default(),
				seconds_since_seen: (now - w.last_seen).as_secs_f64(),
			})
			.collect();
		v1::PlacementSolve {
			layer,
			layers: inner.layers,
			layers_done: inner.layers_done,
			slices: slices as u32,
			slices_done: slices_done as u32,
			slices_in_flight: in_flight as u32,
			positions: inner.positions,
			positions_done,
			positions_per_second: rate,
			seconds_left: if rate > 0.0 { left as f64 / rate } else { 0.0 },
			slices_reassigned: inner.reassigned_before + reassigned,
			slices_doubled: inner.doubled,
			positions_checked: inner.checked,
			workers,
			finished: inner.finished,
		}
	}

	/// Whether every layer is written and every worker still around has been told so.
	pub(super) fn is_done_telling(&self) -> bool {
		let inner = self.lock();
		let recent = |w: &WorkerRecord| w.last_seen.elapsed() < Duration::from_secs(30);
		inner.finished
			&& inner
				.workers
				.values()
				.all(|w| w.told_finished || w.flagged.is_some() || !recent(w))
	}

	/// A class of `slice` to compute again, drawn so that a worker cannot tell which.
	pub(crate) fn pick_class(inner: &mut Inner, slice: Slice) -> usize {
		// SplitMix64: the state starts from the clock, so picks differ between runs.
		inner.picks = inner.picks.wrapping_add(0x9e37_79b9_7f4a_7c15);
		let mut z = inner.picks;
		z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
		z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
		z ^= z >> 31;
		slice.first_class + (z % (slice.end_class - slice.first_class) as u64) as usize
	}
}

impl WorkerRecord {
	pub(super) fn new(now: Instant) -> WorkerRecord {
		WorkerRecord {
			slices: 0,
			positions: 0,
			flagged: None,
			last_seen: now,
			told_finished: false,
		}
	}
}

/// Checks `values` of `slice` in layer `id` by computing one class of it again: `None` if it
/// matches, else why not.
pub(crate) fn spot_check(
	id: LayerId,
	child: &Child,
	slice: Slice,
	class: usize,
	values: &[u8],
) -> Option<String> {
	let shape = LayerShape::of(id);
	let part = Slice {
		dead: slice.dead,
		first_class: class,
		end_class: class + 1,
	};
	let start = (shape.block_start(slice.dead, class) - slice.bytes(&shape).start) as usize;
	let expected = solve_one_slice(id, child.children(), part);
	let got = &values[start..start + expected.len()];
	(got != expected.as_slice()).then(|| {
		format!(
			"{} with {} dead, class {class}: its values differ from the coordinator's",
			id.file_name().trim_end_matches(".tbp"),
			slice.dead
		)
	})
}

pub(crate) fn clock_seed() -> u64 {
	let nanos = std::time::SystemTime::now()
		.duration_since(std::time::UNIX_EPOCH)
		.map_or(0, |d| d.as_nanos() as u64);
	nanos ^ u64::from(std::process::id()).rotate_left(32)
}

impl Inner {
	/// Entries decided by `now`, kept once a second for the rate over the last minute.
	pub(super) fn note_rate(&mut self, now: Instant, positions_done: u64) {
		if self
			.rate
			.back()
			.is_none_or(|(at, _)| now - *at >= Duration::from_secs(1))
		{
			self.rate.push_back((now, positions_done));
		}
		while self
			.rate
			.front()
			.is_some_and(|(at, _)| now - *at > Duration::from_secs(60))
		{
			self.rate.pop_front();
		}
	}

	pub(super) fn new(seed: u64) -> Inner {
		Inner {
			plan: None,
			child: None,
			partial: None,
			layers: 0,
			layers_done: 0,
			positions: 0,
			positions_before: 0,
			rate: VecDeque::new(),
			reassigned_before: 0,
			doubled: 0,
			checked: 0,
			workers: BTreeMap::new(),
			finished: false,
			picks: seed,
		}
	}
}
