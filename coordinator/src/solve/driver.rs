//! The driver thread of `coordinator solve`: the missing layers in order, each installed as a
//! plan, its disputed and lonely doubled slices computed by the coordinator itself, and the
//! layer written once every slice is in; then the manifest.

use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tigers_core::network::file::hex;
use tigers_core::tablebase::placement::{
	LayerId, LayerShape, PartialSlices, PlacementError, SliceStore as _, has_layer, layer_entries,
	solve_one_slice, write_layer, write_manifest_if_complete,
};
use tracing::{info, warn};

use crate::solve::plan::{LayerPlan, layer_bytes};
use crate::solve::solver::{Child, Inner, Solver, clock_seed};

/// The driver thread: every layer missing, in order, then the manifest.
pub(super) fn drive(solver: &Solver) -> Result<(), PlacementError> {
	let missing = missing_layers(solver);
	// Lease numbers start from the clock, so that a lease of an earlier process is never
	// taken for one of this process's.
	let mut next_lease = clock_seed() >> 20 << 20;
	for id in missing {
		match solve_layer(solver, id, next_lease)? {
			Some(after) => next_lease = after,
			None => return Ok(()),
		}
	}
	finish(solver)
}

/// The layers of the solve not yet written, in order, with the counts of all of them noted in
/// the solver's state.
fn missing_layers(solver: &Solver) -> Vec<LayerId> {
	let config = &solver.config;
	let order = LayerId::solve_order(config.from_placed);
	let missing: Vec<LayerId> = order
		.iter()
		.copied()
		.filter(|&id| !has_layer(&config.dir, id, &solver.movement))
		.collect();
	let mut inner = solver.lock();
	inner.layers = order.len() as u32;
	inner.layers_done = (order.len() - missing.len()) as u32;
	inner.positions = missing.iter().map(|id| LayerShape::of(*id).entries()).sum();
	missing
}

/// Solves and writes layer `id`, numbering its leases from `first_lease`: the number the next
/// layer's leases start from, or `None` when told to stop.
fn solve_layer(
	solver: &Solver,
	id: LayerId,
	first_lease: u64,
) -> Result<Option<u64>, PlacementError> {
	let config = &solver.config;
	let child = Arc::new(load_child(solver, id)?);
	let partial = Arc::new(PartialSlices::new(&config.dir, id, &solver.movement)?);
	let plan = LayerPlan::new(
		id,
		|slice, length| partial.load(slice, length),
		first_lease,
		config.slice_timeout,
	);
	info!(layer = %id.file_name(), kept = plan.counts().1, slices = plan.counts().0, "layer started");
	{
		let mut inner = solver.lock();
		inner.plan = Some(plan);
		inner.child = Some(child.clone());
		inner.partial = Some(partial.clone());
	}
	let Some(mut inner) = write_when_complete(solver, id, &child)? else {
		return Ok(None);
	};
	let plan = inner.plan.take().expect("the driver installed it");
	inner.reassigned_before += plan.reassigned();
	inner.positions_before += LayerShape::of(id).entries();
	inner.layers_done += 1;
	inner.partial = None;
	drop(inner);
	if let Ok(partial) = Arc::try_unwrap(partial) {
		partial.remove();
	}
	info!(layer = %id.file_name(), "layer written");
	Ok(Some(plan.next_lease()))
}

/// Runs layer `id` until its file is written from a complete plan: the solver's state, still
/// locked on that plan, or `None` when told to stop.
///
/// A worker flagged between the bytes taken and the file written has its slices of the layer
/// undone in the plan: the file then goes and those slices are done again. Once the plan is
/// found complete, it is taken under the same lock, so that no flag comes between.
fn write_when_complete<'a>(
	solver: &'a Solver,
	id: LayerId,
	child: &Child,
) -> Result<Option<MutexGuard<'a, Inner>>, PlacementError> {
	let dir = &solver.config.dir;
	loop {
		let Some(bytes) = run_layer(solver, id, child) else {
			return Ok(None);
		};
		write_layer(dir, id, &bytes, &solver.movement)?;
		drop(bytes);
		let inner = solver.lock();
		if inner.plan.as_ref().is_some_and(LayerPlan::is_complete) {
			return Ok(Some(inner));
		}
		drop(inner);
		let path = dir.join(id.file_name());
		std::fs::remove_file(&path).map_err(|source| PlacementError::Io {
			path: path.display().to_string(),
			source,
		})?;
		warn!(layer = %id.file_name(), "a worker was flagged as the layer was written; its slices are done again");
	}
}

/// Writes the manifest once every layer is there, and tells how the solve went.
fn finish(solver: &Solver) -> Result<(), PlacementError> {
	let manifest = write_manifest_if_complete(&solver.config.dir, &solver.movement)?;
	let mut inner = solver.lock();
	inner.finished = true;
	inner.child = None;
	let flagged = inner
		.workers
		.values()
		.filter(|w| w.flagged.is_some())
		.count();
	info!(
		manifest,
		doubled = inner.doubled,
		checked = inner.checked,
		reassigned = inner.reassigned_before,
		flagged,
		"the placement solve is done"
	);
	Ok(())
}

/// Waits until every slice of the layer is done, settling those the coordinator must compute
/// itself; the layer's bytes, or `None` when told to stop.
fn run_layer(solver: &Solver, id: LayerId, child: &Child) -> Option<Vec<u8>> {
	loop {
		let settle = {
			let mut inner = solver.lock();
			let plan = inner.plan.as_mut().expect("the driver installed it");
			if plan.is_complete() {
				// The layer's bytes put together outside the lock: a whole layer's copy.
				let pieces = plan.pieces();
				drop(inner);
				return pieces.map(|pieces| layer_bytes(&pieces));
			}
			let in_layer = plan.positions_done();
			let done = inner.positions_before + in_layer;
			inner.note_rate(Instant::now(), done);
			let plan = inner.plan.as_mut().expect("the driver installed it");
			let settle = plan.take_to_settle();
			if settle.is_empty() {
				let (guard, _) = solver
					.changed
					.wait_timeout(inner, Duration::from_millis(200))
					.unwrap_or_else(std::sync::PoisonError::into_inner);
				drop(guard);
			}
			settle
		};
		if solver.stop.load(Ordering::Relaxed) {
			return None;
		}
		for (index, slice) in settle {
			let truth = solve_one_slice(id, child.children(), slice);
			let mut inner = solver.lock();
			let wrong = inner
				.plan
				.as_mut()
				.expect("the driver installed it")
				.settle(index, truth.clone());
			if let Some(partial) = &inner.partial {
				partial.save(slice, &truth);
			}
			inner.doubled += 1;
			inner.checked += slice.entries(id);
			for worker in wrong {
				let reason = format!(
					"its copy of a doubled slice of {} differs from the coordinator's",
					id.file_name().trim_end_matches(".tbp")
				);
				solver.flag(&mut inner, &worker, reason);
			}
		}
	}
}

/// The file layer `id` is computed from: the movement table, or the child layer's file read
/// whole, with its entries inflated and checked.
fn load_child(solver: &Solver, id: LayerId) -> Result<Child, PlacementError> {
	let Some(child) = id.child() else {
		return Ok(Child::Movement(solver.movement.clone()));
	};
	let path = solver.config.dir.join(child.file_name());
	let file = std::fs::read(&path).map_err(|source| PlacementError::Io {
		path: path.display().to_string(),
		source,
	})?;
	let entries = layer_entries(&path, child, &file, Some(&solver.movement))?;
	let sha256 = hex(&Sha256::digest(&file));
	Ok(Child::Layer {
		id: child,
		file: Arc::new(file),
		entries,
		sha256,
	})
}
