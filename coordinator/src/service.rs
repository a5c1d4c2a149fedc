//! The gRPC service: joins, nets, worker sessions, progress. Blocking work (the ledger's
//! fsyncs, batch validation) runs on tokio's blocking threads, never on its async workers.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use metrics::histogram;
use tigers_core::network::INPUT_VERSION;
use tigers_proto::v1::coordinator_message::Body as ToWorker;
use tigers_proto::v1::coordinator_server::Coordinator;
use tigers_proto::v1::worker_message::Body as FromWorker;
use tigers_proto::{REJECTED_SEQUENCE_KEY, v1};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};
use tracing::{info, warn};

use crate::error::CoordinatorError;
use crate::ledger::BatchInsert;
use crate::metrics::INGEST_SECONDS;
use crate::research::Research;
use crate::state::{Shared, WorkerInfo};
use crate::training::TrainingInput;
use crate::validate::{Expect, Rejection, validate_batch};

/// The version a worker's build must have.
pub const BUILD_VERSION: &str = env!("CARGO_PKG_VERSION");

type Outgoing<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

/// The coordinator's implementation of the `tigers.v1.Coordinator` service.
pub struct CoordinatorService {
	shared: Arc<Shared>,
	training: std::sync::mpsc::Sender<TrainingInput>,
	research: Research,
}

impl CoordinatorService {
	/// A service over the run's state, feeding samples to the training thread.
	pub fn new(
		shared: Arc<Shared>,
		training: std::sync::mpsc::Sender<TrainingInput>,
		research: Research,
	) -> CoordinatorService {
		CoordinatorService {
			shared,
			training,
			research,
		}
	}
}

fn check_text(field: &str, value: &str, min: usize, max: usize) -> Result<(), Status> {
	let ok = (min..=max).contains(&value.chars().count()) && !value.chars().any(char::is_control);
	if ok {
		Ok(())
	} else {
		Err(Status::invalid_argument(format!(
			"{field} must be {min} to {max} printable characters, not {value:?}"
		)))
	}
}

#[tonic::async_trait]
impl Coordinator for CoordinatorService {
	async fn join(
		&self,
		request: Request<v1::JoinRequest>,
	) -> Result<Response<v1::JoinResponse>, Status> {
		let join = request.into_inner();
		check_text("worker_id", &join.worker_id, 1, 128)?;
		check_text("name", &join.name, 1, 128)?;
		check_text("host", &join.host, 0, 255)?;
		if !(1..=4096).contains(&join.threads) {
			return Err(Status::invalid_argument(format!(
				"threads must be 1 to 4096, not {}",
				join.threads
			)));
		}
		if join.build_version != BUILD_VERSION {
			return Err(Status::failed_precondition(format!(
				"this coordinator is version {BUILD_VERSION} and needs workers of the same version; \
				 this worker is {:?}",
				join.build_version
			)));
		}
		if join.input_version != INPUT_VERSION {
			return Err(Status::failed_precondition(format!(
				"this run's nets read input encoding {INPUT_VERSION}; this worker encodes positions \
				 as version {}",
				join.input_version
			)));
		}
		let shared = self.shared.clone();
		let row = join.clone();
		let last_acked = tokio::task::spawn_blocking(move || -> Result<u64, CoordinatorError> {
			let mut ledger = shared.ledger();
			ledger.record_worker_seen(
				&row.worker_id,
				&row.name,
				&row.host,
				row.threads,
				&row.build_version,
				crate::state::unix_now(),
			)?;
			Ok(ledger.last_sequence(&row.worker_id)?)
		})
		.await
		.map_err(|e| Status::internal(format!("join task failed: {e}")))??;
		{
			let mut live = self.shared.live();
			live.count_cpu(Instant::now());
			let entry = live
				.workers
				.entry(join.worker_id.clone())
				.or_insert_with(|| WorkerInfo {
					name: join.name.clone(),
					host: join.host.clone(),
					threads: join.threads,
					connected: false,
					generation: 0,
					samples: 0,
					samples_per_second: 0.0,
					last_heard: Instant::now(),
					sessions: 0,
					flagged: 0,
				});
			entry.name = join.name.clone();
			entry.host = join.host.clone();
			entry.threads = join.threads;
			entry.last_heard = Instant::now();
		}
		info!(worker = %join.worker_id, name = %join.name, host = %join.host, threads = join.threads, last_acked, "worker joined");
		Ok(Response::new(v1::JoinResponse {
			last_acked_sequence: last_acked,
			run_name: self.shared.run_name.clone(),
		}))
	}

	async fn fetch_net(
		&self,
		request: Request<v1::FetchNetRequest>,
	) -> Result<Response<v1::NetFile>, Status> {
		let wanted = request.into_inner();
		let current = self.shared.current();
		let generation = if wanted.latest {
			current.assignment.generation
		} else {
			wanted.generation
		};
		if generation > current.assignment.generation {
			return Err(Status::not_found(format!(
				"generation {generation} does not exist yet; the latest is {}",
				current.assignment.generation
			)));
		}
		let shared = self.shared.clone();
		let bytes = tokio::task::spawn_blocking(move || shared.run_dir.net_bytes(generation))
			.await
			.map_err(|e| Status::internal(format!("fetch task failed: {e}")))?
			.map_err(|e| Status::not_found(format!("generation {generation}: {e}")))?;
		let sha256 = tigers_core::network::file::sha256_hex(&bytes);
		Ok(Response::new(v1::NetFile {
			generation,
			sha256,
			safetensors: bytes,
		}))
	}

	type SessionStream = Outgoing<v1::CoordinatorMessage>;

	async fn session(
		&self,
		request: Request<Streaming<v1::WorkerMessage>>,
	) -> Result<Response<Self::SessionStream>, Status> {
		let mut inbound = request.into_inner();
		let worker_id = match inbound.message().await? {
			Some(v1::WorkerMessage {
				body: Some(FromWorker::Open(open)),
			}) => open.worker_id,
			_ => {
				return Err(Status::invalid_argument(
					"a session starts with a SessionOpen message",
				));
			}
		};
		{
			let mut live = self.shared.live();
			live.count_cpu(Instant::now());
			let Some(worker) = live.workers.get_mut(&worker_id) else {
				return Err(Status::failed_precondition(format!(
					"worker {worker_id:?} has not joined; call Join first"
				)));
			};
			worker.connected = true;
			worker.sessions += 1;
			worker.last_heard = Instant::now();
		}
		let (outgoing, receiver) = mpsc::channel(32);
		let session = Session {
			worker_id,
			shared: self.shared.clone(),
			training: self.training.clone(),
			research: self.research.clone(),
			outgoing,
		};
		tokio::spawn(session.run(inbound));
		Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
	}

	type WatchProgressStream = Outgoing<v1::Progress>;

	async fn watch_progress(
		&self,
		request: Request<v1::WatchRequest>,
	) -> Result<Response<Self::WatchProgressStream>, Status> {
		let interval_ms = request.into_inner().interval_ms;
		if !(100..=60_000).contains(&interval_ms) {
			return Err(Status::invalid_argument(format!(
				"interval_ms must be 100 to 60000, not {interval_ms}"
			)));
		}
		let (sender, receiver) = mpsc::channel(4);
		let shared = self.shared.clone();
		tokio::spawn(async move {
			let mut ticks = tokio::time::interval(Duration::from_millis(u64::from(interval_ms)));
			let mut closing = shared.closing();
			loop {
				tokio::select! {
					_ = closing.changed() => break,
					_ = ticks.tick() => {
						if sender.send(Ok(shared.snapshot())).await.is_err() {
							break; // the dashboard went away
						}
					}
				}
			}
		});
		Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
	}

	async fn status(
		&self,
		_request: Request<v1::StatusRequest>,
	) -> Result<Response<v1::Progress>, Status> {
		Ok(Response::new(self.shared.snapshot()))
	}
}

/// One worker's open session.
struct Session {
	worker_id: String,
	shared: Arc<Shared>,
	training: std::sync::mpsc::Sender<TrainingInput>,
	research: Research,
	outgoing: mpsc::Sender<Result<v1::CoordinatorMessage, Status>>,
}

impl Session {
	async fn send(&self, body: ToWorker) -> bool {
		self.outgoing
			.send(Ok(v1::CoordinatorMessage { body: Some(body) }))
			.await
			.is_ok()
	}

	async fn run(self, mut inbound: Streaming<v1::WorkerMessage>) {
		let mut promotions = self.shared.subscribe();
		let mut closing = self.shared.closing();
		let first = promotions.borrow_and_update().assignment.to_wire();
		if !self.send(ToWorker::Assignment(first)).await {
			return self.close();
		}
		loop {
			tokio::select! {
				_ = closing.changed() => {
					// The worker will reconnect, with backoff, to this coordinator's successor.
					let status = Status::unavailable("the coordinator is shutting down");
					let _ = self.outgoing.send(Err(status)).await;
					break;
				}
				changed = promotions.changed() => {
					if changed.is_err() {
						break;
					}
					let assignment = promotions.borrow_and_update().assignment.to_wire();
					if !self.send(ToWorker::Assignment(assignment)).await {
						break;
					}
				}
				message = inbound.message() => {
					match message {
						Ok(Some(message)) => {
							if let Err(status) = self.handle(message).await {
								let _ = self.outgoing.send(Err(status)).await;
								break;
							}
						}
						Ok(None) => break,
						Err(status) => {
							warn!(worker = %self.worker_id, %status, "session ended with an error");
							break;
						}
					}
				}
			}
		}
		self.close();
	}

	fn close(&self) {
		let mut live = self.shared.live();
		live.count_cpu(Instant::now());
		if let Some(worker) = live.workers.get_mut(&self.worker_id) {
			worker.connected = false;
		}
		drop(live);
		info!(worker = %self.worker_id, "session closed");
	}

	async fn handle(&self, message: v1::WorkerMessage) -> Result<(), Status> {
		if let Some(worker) = self.shared.live().workers.get_mut(&self.worker_id) {
			worker.last_heard = Instant::now();
		}
		match message.body {
			Some(FromWorker::Batch(batch)) => {
				let ack = self.store(batch).await?;
				self.send(ToWorker::Ack(ack)).await;
				Ok(())
			}
			Some(FromWorker::Heartbeat(beat)) => {
				if let Some(worker) = self.shared.live().workers.get_mut(&self.worker_id) {
					worker.generation = beat.generation;
					worker.samples_per_second = beat.samples_per_second;
				}
				Ok(())
			}
			Some(FromWorker::Open(_)) => {
				Err(Status::invalid_argument("the session is already open"))
			}
			None => Err(Status::invalid_argument("an empty message")),
		}
	}

	/// Validates a batch and stores it durably; only then is it acknowledged.
	async fn store(&self, batch: v1::SampleBatch) -> Result<v1::Ack, Status> {
		let received = Instant::now();
		let sequence = batch.sequence;
		let expect = Expect {
			generation: self.shared.current().assignment.generation,
			max_staleness: self.shared.settings.max_staleness,
		};
		let shared = self.shared.clone();
		let worker_id = self.worker_id.clone();
		let outcome = tokio::task::spawn_blocking(move || {
			let valid = validate_batch(batch, expect).map_err(StoreError::Invalid)?;
			let inserted = shared
				.ledger()
				.insert_batch(
					&worker_id,
					valid.sequence,
					&valid.samples,
					&valid.game_records,
				)
				.map_err(|e| StoreError::Storage(e.to_string()))?;
			Ok::<_, StoreError>((valid, inserted))
		})
		.await
		.map_err(|e| Status::internal(format!("storing task failed: {e}")))?;
		// Refusals are timed too: a flood of bad batches costs the same validation work.
		histogram!(INGEST_SECONDS).record(received.elapsed().as_secs_f64());
		let (valid, inserted) = match outcome {
			Ok(done) => done,
			Err(StoreError::Invalid(rejection)) => {
				self.shared.live().count_rejection(rejection.reason);
				let reason = rejection.message;
				warn!(worker = %self.worker_id, kind = rejection.reason.name(), %reason, "batch refused");
				let mut status = Status::invalid_argument(reason);
				if let Ok(value) = sequence.to_string().parse() {
					status.metadata_mut().insert(REJECTED_SEQUENCE_KEY, value);
				}
				return Err(status);
			}
			Err(StoreError::Storage(reason)) => {
				return Err(Status::unavailable(format!(
					"could not store batch {sequence}: {reason}"
				)));
			}
		};
		let BatchInsert::Inserted { id } = inserted else {
			self.shared.live().batches_duplicate += 1;
			return Ok(v1::Ack {
				sequence,
				accepted: false,
			});
		};
		{
			let now = Instant::now();
			let mut live = self.shared.live();
			live.samples_total += valid.samples.len() as u64;
			live.games_total += valid.game_records.len() as u64;
			live.last_samples = Some(now);
			live.recent_samples
				.push(now, valid.samples.len() as u64, valid.superseded as u64);
			live.recent_games.push(&valid.outcomes);
			if let Some(last) = valid.game_records.last() {
				live.last_game.clone_from(last);
			}
			if let Some(worker) = live.workers.get_mut(&self.worker_id) {
				worker.samples += valid.samples.len() as u64;
			}
		}
		if valid.stale {
			warn!(worker = %self.worker_id, sequence, "stale batch stored but not trained on");
			return Ok(v1::Ack {
				sequence,
				accepted: true,
			});
		}
		self.research.offer(&self.worker_id, &valid.samples);
		// The training thread outlives every session; if it has stopped, the process is
		// shutting down and the samples are safe in the ledger anyway.
		let _ = self.training.send(TrainingInput::Batch {
			id,
			samples: valid.samples,
		});
		Ok(v1::Ack {
			sequence,
			accepted: true,
		})
	}
}

enum StoreError {
	Invalid(Rejection),
	Storage(String),
}
