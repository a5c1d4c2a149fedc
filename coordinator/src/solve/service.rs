//! The gRPC handlers of a coordinator that solves: slices handed out and taken back (after a
//! spot check on a blocking thread), the layer and the movement table sent in pieces
//! (`tigers.v1.Solve`), the progress for `coordinator status` and dashboards
//! (`tigers.v1.Observe`), and the metrics.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use metrics::{counter, gauge};
use tigers_core::moves::Turn;
use tigers_core::tablebase::placement::{LayerId, Slice, SliceStore as _};
use tigers_proto::v1;
use tigers_proto::v1::observe_server::Observe;
use tigers_proto::v1::solve_server::Solve;
use tokio::sync::{Semaphore, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::error::{CoordinatorError, ServiceError};
use crate::server::service::{Outgoing, TABLEBASE_TRANSFERS, send_tablebase};
use crate::solve::plan::Submission;
use crate::solve::solver::{Child, Solver, WorkerRecord, spot_check};
use crate::tablebase::CHUNK_BYTES;

/// How long a worker waits before asking again when no slice is free.
const RETRY: Duration = Duration::from_millis(500);

/// The handlers of a coordinator that solves, for the `tigers.v1.Solve` and `tigers.v1.Observe`
/// services.
pub(crate) struct SolveService {
	solver: Arc<Solver>,
	/// Movement-table transfers allowed at once, as in a run; more wait their turn.
	transfers: Arc<Semaphore>,
}

impl SolveService {
	/// The handlers over `solver`.
	pub(crate) fn new(solver: Arc<Solver>) -> SolveService {
		SolveService {
			solver,
			transfers: Arc::new(Semaphore::new(TABLEBASE_TRANSFERS)),
		}
	}
}

/// Refuses a worker name that is empty, too long or holds control characters.
fn check_worker(name: &str) -> Result<(), Status> {
	let count = name.chars().count();
	if (1..=128).contains(&count) && !name.chars().any(char::is_control) {
		return Ok(());
	}
	Err(ServiceError::Text {
		field: "worker",
		min: 1,
		max: 128,
		value: name.to_string(),
	}
	.into())
}

/// Pieces of `file`, at most [`CHUNK_BYTES`] each, sent as the connection takes them.
fn send_pieces(file: Arc<Vec<u8>>, sha256: String) -> Outgoing<v1::TablebaseChunk> {
	let (sender, receiver) = mpsc::channel(2);
	tokio::spawn(async move {
		let total = file.len() as u64;
		for (i, piece) in file.chunks(CHUNK_BYTES).enumerate() {
			let chunk = v1::TablebaseChunk {
				offset: (i * CHUNK_BYTES) as u64,
				data: piece.to_vec(),
				total_bytes: total,
				sha256: sha256.clone(),
			};
			if sender.send(Ok(chunk)).await.is_err() {
				return;
			}
		}
	});
	Box::pin(ReceiverStream::new(receiver))
}

#[tonic::async_trait]
impl Solve for SolveService {
	async fn solve_work(
		&self,
		request: Request<v1::SolveWorkRequest>,
	) -> Result<Response<v1::SolveWorkResponse>, Status> {
		let worker = request.into_inner().worker;
		check_worker(&worker)?;
		let now = Instant::now();
		let mut inner = self.solver.lock();
		let finished = inner.finished;
		let record = inner
			.workers
			.entry(worker.clone())
			.or_insert_with(|| WorkerRecord::new(now));
		record.last_seen = now;
		if let Some(reason) = &record.flagged {
			return Err(ServiceError::Flagged {
				worker,
				reason: reason.clone(),
			}
			.into());
		}
		if finished {
			record.told_finished = true;
			return Ok(Response::new(v1::SolveWorkResponse {
				finished: true,
				..v1::SolveWorkResponse::default()
			}));
		}
		let child = inner.child.clone();
		let task = inner
			.plan
			.as_mut()
			.and_then(|plan| Some((plan.id(), plan.hand_out(&worker, now)?)));
		let (Some((id, task)), Some(child)) = (task, child) else {
			return Ok(Response::new(v1::SolveWorkResponse {
				retry_ms: RETRY.as_millis() as u32,
				..v1::SolveWorkResponse::default()
			}));
		};
		Ok(Response::new(v1::SolveWorkResponse {
			task: Some(v1::SliceTask {
				lease: task.lease,
				placed: id.placed,
				tigers_to_move: id.turn == Turn::Tiger,
				dead: task.slice.dead,
				first_class: task.slice.first_class as u32,
				end_class: task.slice.end_class as u32,
				bytes: task.bytes,
				child_sha256: child.sha256().to_string(),
				deadline_seconds: self.solver.config.slice_timeout.as_secs() as u32,
			}),
			..v1::SolveWorkResponse::default()
		}))
	}

	type FetchLayerStream = Outgoing<v1::TablebaseChunk>;

	async fn fetch_layer(
		&self,
		request: Request<v1::FetchLayerRequest>,
	) -> Result<Response<Self::FetchLayerStream>, Status> {
		let request = request.into_inner();
		let turn = if request.tigers_to_move {
			Turn::Tiger
		} else {
			Turn::Sheep
		};
		let Some(id) = LayerId::new(request.placed, turn) else {
			return Err(ServiceError::NoSuchLayer {
				placed: request.placed,
				side: if request.tigers_to_move {
					"tigers"
				} else {
					"sheep"
				},
			}
			.into());
		};
		let child = self.solver.lock().child.clone();
		let not_here = |reason: String| ServiceError::LayerNotHere {
			layer: id.file_name(),
			sha256: request.sha256.clone(),
			reason,
		};
		match child.as_deref() {
			Some(Child::Layer {
				id: have,
				file,
				sha256,
				..
			}) if *have == id => {
				if *sha256 != request.sha256 {
					return Err(not_here(format!("its file here is {sha256}")).into());
				}
				Ok(Response::new(send_pieces(file.clone(), sha256.clone())))
			}
			_ => Err(not_here("the layer the slices handed out now need is another".into()).into()),
		}
	}

	async fn submit_slice(
		&self,
		request: Request<v1::SubmitSliceRequest>,
	) -> Result<Response<v1::SubmitSliceResponse>, Status> {
		let request = request.into_inner();
		check_worker(&request.worker)?;
		let worker = request.worker;
		let bytes = request.values.len() as u64;
		let Some(claim) = self.claim(&worker, request.lease, bytes)? else {
			return Ok(Response::new(v1::SubmitSliceResponse { accepted: false }));
		};
		let (wrong, values) = self.check(&claim, &worker, request.values).await?;
		let accepted = self.settle(&claim, worker, wrong, values)?;
		Ok(Response::new(v1::SubmitSliceResponse { accepted }))
	}

	type FetchTablebaseStream = Outgoing<v1::TablebaseChunk>;

	async fn fetch_tablebase(
		&self,
		request: Request<v1::FetchTablebaseRequest>,
	) -> Result<Response<Self::FetchTablebaseStream>, Status> {
		let wanted = request.into_inner().sha256;
		send_tablebase(self.solver.movement.clone(), wanted, self.transfers.clone())
	}
}

#[tonic::async_trait]
impl Observe for SolveService {
	type WatchProgressStream = Outgoing<v1::Progress>;

	async fn watch_progress(
		&self,
		request: Request<v1::WatchRequest>,
	) -> Result<Response<Self::WatchProgressStream>, Status> {
		let interval_ms = request.into_inner().interval_ms;
		if !(100..=60_000).contains(&interval_ms) {
			return Err(ServiceError::OutOfRange {
				field: "interval_ms",
				value: u64::from(interval_ms),
				min: 100,
				max: 60_000,
			}
			.into());
		}
		let (sender, receiver) = mpsc::channel(1);
		let solver = self.solver.clone();
		tokio::spawn(async move {
			loop {
				let snapshot = v1::Progress {
					run_name: "placement solve".into(),
					uptime_seconds: solver.started.elapsed().as_secs_f64(),
					placement_solve: Some(solver.progress()),
					..v1::Progress::default()
				};
				if sender.send(Ok(snapshot)).await.is_err() {
					return;
				}
				tokio::time::sleep(Duration::from_millis(u64::from(interval_ms))).await;
			}
		});
		Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
	}

	async fn status(
		&self,
		_: Request<v1::StatusRequest>,
	) -> Result<Response<v1::Progress>, Status> {
		Ok(Response::new(v1::Progress {
			run_name: "placement solve".into(),
			uptime_seconds: self.solver.started.elapsed().as_secs_f64(),
			placement_solve: Some(self.solver.progress()),
			..v1::Progress::default()
		}))
	}
}

/// A submitted slice held for its spot check: where it sits, and the class to recompute.
struct Claim {
	id: LayerId,
	index: usize,
	slice: Slice,
	child: Arc<Child>,
	class: usize,
}

impl SolveService {
	/// Takes a submission under `lease` for its check. A flagged worker, or a lease when no
	/// layer is under way, is refused; a lease no longer this worker's (or whose slice is done)
	/// gives `None`, and the values are not wanted.
	fn claim(&self, worker: &str, lease: u64, bytes: u64) -> Result<Option<Claim>, Status> {
		let mut inner = self.solver.lock();
		if let Some(record) = inner.workers.get_mut(worker) {
			record.last_seen = Instant::now();
			if let Some(reason) = &record.flagged {
				return Err(ServiceError::Flagged {
					worker: worker.to_string(),
					reason: reason.clone(),
				}
				.into());
			}
		}
		let child = inner.child.clone();
		let Some(plan) = inner.plan.as_mut() else {
			return Err(ServiceError::NoSuchLease(lease).into());
		};
		let id = plan.id();
		let Submission::Check { index, slice } = plan.submit(worker, lease, bytes)? else {
			return Ok(None);
		};
		let class = Solver::pick_class(&mut inner, slice);
		Ok(Some(Claim {
			id,
			index,
			slice,
			child: child.expect("a plan has its child"),
			class,
		}))
	}

	/// One class of the claimed slice computed again, off the async threads: the reason the
	/// values are wrong, if they are, and the values back. Until this returns, the slice is
	/// held as under its check: were this future dropped meanwhile (the worker's connection
	/// gone), the slice is let go, else it would never be handed out again.
	async fn check(
		&self,
		claim: &Claim,
		worker: &str,
		values: Vec<u8>,
	) -> Result<(Option<String>, Vec<u8>), Status> {
		let solver = &self.solver;
		let under_check = Undo::new(|| {
			let mut inner = solver.lock();
			if let Some(plan) = inner.plan.as_mut().filter(|plan| plan.id() == claim.id) {
				plan.accept(claim.index, worker, Vec::new(), false);
			}
		});
		let (id, child, slice, class) = (claim.id, claim.child.clone(), claim.slice, claim.class);
		let checked = tokio::task::spawn_blocking(move || {
			let wrong = spot_check(id, &child, slice, class, &values);
			(wrong, values)
		})
		.await;
		match checked {
			Ok(checked) => {
				under_check.disarm();
				Ok(checked)
			}
			Err(error) => {
				drop(under_check);
				Err(ServiceError::Task {
					what: "the spot check",
					error,
				}
				.into())
			}
		}
	}

	/// Keeps checked values (and saves the slice once all its values are in), or flags the
	/// worker whose values were wrong, even when the layer has moved on meanwhile. Whether the
	/// values were taken.
	fn settle(
		&self,
		claim: &Claim,
		worker: String,
		wrong: Option<String>,
		values: Vec<u8>,
	) -> Result<bool, Status> {
		let solver = &self.solver;
		let (id, index, slice) = (claim.id, claim.index, claim.slice);
		let mut inner = solver.lock();
		let same_layer = inner.plan.as_ref().is_some_and(|plan| plan.id() == id);
		if let Some(reason) = wrong {
			if let Some(plan) = inner.plan.as_mut().filter(|_| same_layer) {
				plan.accept(index, &worker, values, false);
			}
			solver.flag(&mut inner, &worker, reason.clone());
			return Err(ServiceError::Flagged { worker, reason }.into());
		}
		if !same_layer {
			return Ok(false);
		}
		let flagged = inner
			.workers
			.get(&worker)
			.is_some_and(|w| w.flagged.is_some());
		let plan = inner.plan.as_mut().expect("checked above");
		let taken = plan.accept(index, &worker, values, !flagged);
		let done = plan.done_values(index);
		let doubled = plan.is_doubled(index);
		inner.checked += (slice.entries(id) / (slice.end_class - slice.first_class) as u64).max(1);
		if taken {
			let record = inner
				.workers
				.entry(worker)
				.or_insert_with(|| WorkerRecord::new(Instant::now()));
			record.slices += 1;
			record.positions += slice.entries(id);
		}
		if let (true, Some(done)) = (taken, done) {
			if doubled {
				inner.doubled += 1;
			}
			// Kept under the lock, so that a worker flagged meanwhile has its slices dropped
			// after they were written, not before.
			if let Some(partial) = &inner.partial {
				partial.save(slice, &done);
			}
		}
		drop(inner);
		solver.poke();
		Ok(taken)
	}
}

/// Runs its closure when dropped, unless disarmed first.
struct Undo<F: FnOnce()>(Option<F>);

impl<F: FnOnce()> Undo<F> {
	fn new(undo: F) -> Undo<F> {
		Undo(Some(undo))
	}

	fn disarm(mut self) {
		self.0 = None;
	}
}

impl<F: FnOnce()> Drop for Undo<F> {
	fn drop(&mut self) {
		if let Some(undo) = self.0.take() {
			undo();
		}
	}
}

/// Stops the metrics tasks when dropped.
pub(crate) struct MetricsTasks(Vec<tokio::task::JoinHandle<()>>);

impl Drop for MetricsTasks {
	fn drop(&mut self) {
		for task in &self.0 {
			task.abort();
		}
	}
}

/// Serves the solve's metrics at `address`, refreshed each second (docs/metrics.md).
pub(crate) fn serve_metrics(
	address: SocketAddr,
	solver: &Arc<Solver>,
) -> Result<MetricsTasks, CoordinatorError> {
	let serving = crate::observe::metrics::serve(address)?;
	let solver = solver.clone();
	let publish = tokio::spawn(async move {
		loop {
			publish(&solver.progress());
			tokio::time::sleep(Duration::from_secs(1)).await;
		}
	});
	Ok(MetricsTasks(vec![tokio::spawn(serving), publish]))
}

/// The solve's figures into the process's recorder.
fn publish(progress: &v1::PlacementSolve) {
	gauge!("tigers_solve_layers").set(f64::from(progress.layers));
	gauge!("tigers_solve_layers_done").set(f64::from(progress.layers_done));
	gauge!("tigers_solve_slices").set(f64::from(progress.slices));
	gauge!("tigers_solve_slices_done").set(f64::from(progress.slices_done));
	gauge!("tigers_solve_slices_in_flight").set(f64::from(progress.slices_in_flight));
	gauge!("tigers_solve_positions").set(progress.positions as f64);
	gauge!("tigers_solve_positions_done").set(progress.positions_done as f64);
	gauge!("tigers_solve_positions_per_second").set(progress.positions_per_second);
	gauge!("tigers_solve_seconds_left").set(progress.seconds_left);
	counter!("tigers_solve_slices_reassigned_total").absolute(progress.slices_reassigned);
	counter!("tigers_solve_slices_doubled_total").absolute(progress.slices_doubled);
	counter!("tigers_solve_positions_checked_total").absolute(progress.positions_checked);
	for worker in &progress.workers {
		let name = worker.name.clone();
		counter!("tigers_solve_worker_positions_total", "worker" => name.clone())
			.absolute(worker.positions);
		gauge!("tigers_solve_worker_flagged", "worker" => name)
			.set(f64::from(u8::from(worker.flagged)));
	}
}

#[cfg(test)]
mod tests {
	use std::sync::Mutex;

	use tigers_core::moves::Turn;
	use tigers_core::tablebase::placement::LayerId;

	use super::*;
	use crate::solve::plan::LayerPlan;

	/// A submission whose future is dropped during its spot check lets its slice go: the
	/// slice is handed out again.
	#[tokio::test]
	async fn a_submission_dropped_during_its_check_frees_its_slice() {
		let id = LayerId::new(19, Turn::Sheep).expect("a layer");
		let plan = Mutex::new(LayerPlan::new(id, |_, _| None, 1, Duration::from_secs(10)));
		let now = Instant::now();
		let task = {
			let mut plan = plan.lock().expect("the plan");
			let _first = plan.hand_out("a", now).expect("slice 0");
			let _second = plan.hand_out("b", now).expect("slice 0's second copy");
			plan.hand_out("a", now).expect("slice 1")
		};
		let submission = async {
			let Ok(Submission::Check { index, .. }) = plan
				.lock()
				.expect("the plan")
				.submit("a", task.lease, task.bytes)
			else {
				panic!("a check");
			};
			let under_check = Undo::new(|| {
				plan.lock()
					.expect("the plan")
					.accept(index, "a", Vec::new(), false);
			});
			// A spot check that the drop interrupts.
			std::future::pending::<()>().await;
			under_check.disarm();
		};
		let cut = tokio::time::timeout(Duration::from_millis(10), submission).await;
		assert!(cut.is_err(), "the submission was dropped mid-check");
		let again = plan.lock().expect("the plan").hand_out("c", now);
		assert_eq!(again.map(|t| t.slice), Some(task.slice));
	}
}
