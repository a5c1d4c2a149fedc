//! The gRPC handlers of a coordinator that trains: joins, nets, worker sessions and the
//! tablebase (`tigers.v1.Coordinator`), and progress (`tigers.v1.Observe`). Blocking work
//! (joins' ledger writes, batch validation) runs on tokio's blocking threads, never on its async
//! workers; sample batches are written by the ledger's own thread (`committer`), which the
//! session awaits.

use std::pin::Pin;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tigers_core::network::Encoding;
use tigers_proto::v1;
use tigers_proto::v1::coordinator_server::Coordinator;
use tigers_proto::v1::observe_server::Observe;
use tigers_proto::v1::worker_message::Body as FromWorker;
use tigers_proto::{MIN_WORKER_PROTOCOL, PROTOCOL_VERSION};
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};
use tracing::info;

use crate::clock::unix_now;
use crate::config::{BUILD_VERSION, ServiceLimits};
use crate::error::{CoordinatorError, ServiceError};
use crate::ingest::research::Research;
use crate::ingest::session::{Session, inbound_error};
use crate::live::{Joining, Shared};
use crate::observe::progress;
use crate::server::identity::{self, JoinSecret};
use crate::server::limits::{PerMinute, Watchers};
use crate::tablebase;
use crate::text::excerpt;
use crate::training::inbox::Inbox;

pub(crate) type Outgoing<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

/// The training coordinator's handlers of the `tigers.v1.Coordinator` and `tigers.v1.Observe`
/// services.
pub(crate) struct CoordinatorService {
	shared: Arc<Shared>,
	training: Arc<Inbox>,
	research: Research,
	limits: ServiceLimits,
	/// Tablebase transfers allowed at once; more wait their turn.
	transfers: Arc<Semaphore>,
	/// New identities a minute.
	new_workers: Arc<Mutex<PerMinute>>,
	/// Progress streams open.
	watchers: Arc<Watchers>,
}

/// How many workers may download the tablebase at once: each transfer is about 93 MB, and a
/// fleet arriving together should not take all of the coordinator's bandwidth from sessions.
pub(crate) const TABLEBASE_TRANSFERS: usize = 4;

/// `FetchTablebase` for a run and for a solve alike: refused unless `table` is the one
/// `wanted` names, else its pieces, read from the table in memory and sent as the connection
/// takes them, once one of `transfers` is free.
pub(crate) fn send_tablebase(
	table: Arc<tigers_core::tablebase::Tablebase>,
	wanted: String,
	transfers: Arc<Semaphore>,
) -> Result<Response<Outgoing<v1::TablebaseChunk>>, Status> {
	if table.identity() != wanted {
		return Err(ServiceError::OtherTablebase {
			ours: table.identity().to_string(),
			wanted,
		}
		.into());
	}
	let (sender, receiver) = mpsc::channel(2);
	tokio::spawn(async move {
		let Ok(_permit) = transfers.acquire_owned().await else {
			return;
		};
		for chunk in tablebase::chunks(&table) {
			if sender.send(Ok(chunk)).await.is_err() {
				return;
			}
		}
	});
	Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
}

impl CoordinatorService {
	/// A service over the run's state, feeding samples to the training thread.
	pub(crate) fn new(
		shared: Arc<Shared>,
		training: Arc<Inbox>,
		research: Research,
		limits: ServiceLimits,
	) -> CoordinatorService {
		CoordinatorService {
			shared,
			training,
			research,
			transfers: Arc::new(Semaphore::new(TABLEBASE_TRANSFERS)),
			new_workers: Arc::new(Mutex::new(PerMinute::new(
				limits.new_workers_per_minute,
				Instant::now(),
			))),
			watchers: Watchers::new(limits.max_watchers, limits.max_watchers_per_connection),
			limits,
		}
	}
}

/// Refuses `value` unless it is `min` to `max` characters without control characters; the
/// refusal quotes only the start of it.
fn check_text(field: &'static str, value: &str, min: usize, max: usize) -> Result<(), Status> {
	let ok = (min..=max).contains(&value.chars().count()) && !value.chars().any(char::is_control);
	if ok {
		Ok(())
	} else {
		Err(ServiceError::Text {
			field,
			min,
			max,
			value: value.to_string(),
		}
		.into())
	}
}

/// What a join found and changed in the ledger.
struct Joined {
	last_acked: u64,
	/// The worker's samples and flags over the run, for a worker the snapshots had forgotten.
	samples: u64,
	flagged: u64,
	/// A secret to hand to the worker, when the join bound a new one.
	issued: Option<String>,
	secret_sha256: String,
	secret_confirmed: bool,
}

/// Checks the identity's secret, and for an identity the ledger does not know, the limit on
/// new ones; records the worker, binds a secret if it has none; in the ledger, on a blocking
/// thread. Nothing is recorded for a join refused for its secret or the limit.
fn join_in_ledger(
	shared: &Shared,
	join: &v1::JoinRequest,
	new_workers: &Mutex<PerMinute>,
) -> Result<Joined, ServiceError> {
	let mut ledger = shared.ledger();
	let stored = ledger.secret(&join.worker_id)?;
	let decision = identity::judge_join(&join.worker_id, stored.as_ref(), &join.worker_secret)?;
	if ledger.worker(&join.worker_id)?.is_none() {
		let mut bucket = new_workers.lock().unwrap_or_else(PoisonError::into_inner);
		if let Err(wait) = bucket.take(Instant::now()) {
			return Err(ServiceError::TooManyNewWorkers {
				per_minute: bucket.per_minute(),
				retry_after_seconds: wait.as_secs() + 1,
			});
		}
	}
	ledger.record_worker_seen(
		&join.worker_id,
		&join.name,
		&join.host,
		join.threads,
		&join.build_version,
		unix_now(),
	)?;
	let (issued, secret_sha256, secret_confirmed) = match (decision, stored) {
		(JoinSecret::Verified, Some(stored)) => (None, stored.sha256, stored.confirmed),
		(JoinSecret::Adopt, _) => {
			let sha256 = identity::secret_sha256(&join.worker_secret);
			ledger.bind_secret(&join.worker_id, &sha256)?;
			(None, sha256, false)
		}
		_ => {
			let secret = identity::new_secret()?;
			let sha256 = identity::secret_sha256(&secret);
			ledger.bind_secret(&join.worker_id, &sha256)?;
			(Some(secret), sha256, false)
		}
	};
	let row = ledger.worker(&join.worker_id)?;
	Ok(Joined {
		last_acked: ledger.last_sequence(&join.worker_id)?,
		samples: row.as_ref().map_or(0, |row| row.samples),
		flagged: row.as_ref().map_or(0, |row| row.flagged),
		issued,
		secret_sha256,
		secret_confirmed,
	})
}

/// Why a worker that joins with `join`'s versions cannot be taken into a run whose nets read
/// `encoding`, if it cannot: a protocol outside the range this build accepts, or no reader of
/// the run's encoding (a worker sends the newest encoding it reads, and reads every older one).
fn refused_version(join: &v1::JoinRequest, encoding: Encoding) -> Option<ServiceError> {
	if !(MIN_WORKER_PROTOCOL..=PROTOCOL_VERSION).contains(&join.protocol_version) {
		return Some(ServiceError::Version {
			build: join.build_version.clone(),
			protocol: join.protocol_version,
		});
	}
	(join.input_version < encoding.version()).then(|| ServiceError::InputVersion {
		build: join.build_version.clone(),
		version: join.input_version,
		run: encoding.version(),
	})
}

#[tonic::async_trait]
impl Coordinator for CoordinatorService {
	async fn join(
		&self,
		request: Request<v1::JoinRequest>,
	) -> Result<Response<v1::JoinResponse>, Status> {
		let join = request.into_inner();
		self.check_join(&join)?;
		let shared = self.shared.clone();
		let row = join.clone();
		let new_workers = self.new_workers.clone();
		let joined =
			tokio::task::spawn_blocking(move || join_in_ledger(&shared, &row, &new_workers))
				.await
				.map_err(ServiceError::task("join"))?
				.inspect_err(|error| {
					if matches!(error, ServiceError::TooManyNewWorkers { .. }) {
						self.shared.live().new_worker_refused();
					}
				})?;
		self.show_joined(&join, &joined);
		let last_acked = joined.last_acked;
		info!(worker = %join.worker_id, name = %join.name, host = %join.host, threads = join.threads, last_acked, issued_secret = joined.issued.is_some(), "worker joined");
		Ok(Response::new(v1::JoinResponse {
			last_acked_sequence: last_acked,
			run_name: self.shared.run_name.clone(),
			worker_secret: joined.issued.unwrap_or_default(),
			build_version: BUILD_VERSION.into(),
			protocol_version: PROTOCOL_VERSION,
			run_id: self.shared.run_dir.id().to_string(),
		}))
	}

	async fn fetch_net(
		&self,
		request: Request<v1::FetchNetRequest>,
	) -> Result<Response<v1::NetFile>, Status> {
		let wanted = request.into_inner();
		let current = self.shared.current();
		let generation = if wanted.best {
			let best = self.shared.live().best_generation();
			best.unwrap_or(current.assignment.generation)
		} else if wanted.latest {
			current.assignment.generation
		} else {
			wanted.generation
		};
		if generation > current.assignment.generation {
			return Err(ServiceError::NoSuchGeneration {
				wanted: generation,
				latest: current.assignment.generation,
			}
			.into());
		}
		let shared = self.shared.clone();
		let bytes = tokio::task::spawn_blocking(move || shared.run_dir.net_bytes(generation))
			.await
			.map_err(ServiceError::task("fetch"))?
			.map_err(|error| ServiceError::NetFile { generation, error })?;
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
		let first = inbound.message().await.map_err(inbound_error)?;
		let Some(v1::WorkerMessage {
			body: Some(FromWorker::Open(open)),
		}) = first
		else {
			return Err(ServiceError::NoOpen.into());
		};
		check_text("instance", &open.instance, 1, 64)?;
		if self.check_session_secret(&open.worker_id, &open.worker_secret)? {
			self.confirm_secret(&open.worker_id).await?;
		}
		let id = self.shared.next_session_id();
		let taken_over = Arc::new(Notify::new());
		self.show_connected(&open.worker_id, open.instance, id, &taken_over)?;
		let (outgoing, receiver) = mpsc::channel(32);
		let session = Session {
			worker_id: open.worker_id,
			id,
			shared: self.shared.clone(),
			training: self.training.clone(),
			research: self.research.clone(),
			outgoing,
			taken_over,
			idle_timeout: self.limits.session_idle_timeout,
			stale_noted: AtomicBool::new(false),
		};
		tokio::spawn(session.run(inbound));
		Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
	}

	type FetchTablebaseStream = Outgoing<v1::TablebaseChunk>;

	async fn fetch_tablebase(
		&self,
		request: Request<v1::FetchTablebaseRequest>,
	) -> Result<Response<Self::FetchTablebaseStream>, Status> {
		let wanted = request.into_inner().sha256;
		let Some(table) = self.shared.tablebase.table() else {
			let status = self.shared.tablebase.status();
			return Err(ServiceError::NoTablebase(format!(
				"{}{}",
				status.state,
				match status.state.as_str() {
					"building" => format!(", {:.0}% solved", 100.0 * status.progress),
					_ => format!(": {}", excerpt(&status.detail)),
				}
			))
			.into());
		};
		send_tablebase(table, wanted, self.transfers.clone())
	}
}

#[tonic::async_trait]
impl Observe for CoordinatorService {
	type WatchProgressStream = Outgoing<v1::Progress>;

	async fn watch_progress(
		&self,
		request: Request<v1::WatchRequest>,
	) -> Result<Response<Self::WatchProgressStream>, Status> {
		let interval_ms = request.get_ref().interval_ms;
		if !(100..=60_000).contains(&interval_ms) {
			return Err(ServiceError::OutOfRange {
				field: "interval_ms",
				min: 100,
				max: 60_000,
				value: u64::from(interval_ms),
			}
			.into());
		}
		let watching = self
			.watchers
			.open(request.remote_addr())
			.inspect_err(|_| self.shared.live().watcher_refused())?;
		// One snapshot in flight per dashboard at most: the snapshots themselves are built once
		// per publishing period and shared by every stream.
		let (sender, receiver) = mpsc::channel(1);
		let shared = self.shared.clone();
		let interval = Duration::from_millis(u64::from(interval_ms));
		tokio::spawn(async move {
			progress::follow(&shared, interval, &sender).await;
			drop(watching);
		});
		// Encoded from the shared snapshot only when the transport asks for the next message.
		let stream =
			ReceiverStream::new(receiver).map(|progress| Ok(Arc::unwrap_or_clone(progress)));
		Ok(Response::new(Box::pin(stream)))
	}

	async fn status(
		&self,
		_request: Request<v1::StatusRequest>,
	) -> Result<Response<v1::Progress>, Status> {
		Ok(Response::new(self.shared.snapshot()))
	}
}

impl CoordinatorService {
	/// Refuses a join whose fields are out of range, whose versions this build cannot take
	/// (counted), or that the ledger must not see: a load test the run does not accept, or
	/// another process under a live identity.
	fn check_join(&self, join: &v1::JoinRequest) -> Result<(), Status> {
		check_text("worker_id", &join.worker_id, 1, 128)?;
		check_text("name", &join.name, 1, 128)?;
		check_text("host", &join.host, 0, 255)?;
		check_text("build_version", &join.build_version, 0, 64)?;
		if !(1..=4096).contains(&join.threads) {
			return Err(ServiceError::OutOfRange {
				field: "threads",
				min: 1,
				max: 4096,
				value: u64::from(join.threads),
			}
			.into());
		}
		let encoding = self.shared.current().net.encoding();
		if let Some(refusal) = refused_version(join, encoding) {
			self.shared.live().version_refused(refusal.to_string());
			return Err(refusal.into());
		}
		// After the version: a worker of an older protocol names no process, and is told to
		// upgrade rather than that a field is missing.
		check_text("instance", &join.instance, 1, 64)?;
		// Before the ledger: a refused load test leaves no worker behind.
		if join.loadtest && !self.limits.accept_loadtest {
			return Err(ServiceError::LoadtestRefused.into());
		}
		// Before the ledger: a second machine under this identity changes nothing.
		self.check_not_held(&join.worker_id, &join.instance)
	}

	/// Shows the worker of `join` in the live state, as the ledger `joined` it.
	fn show_joined(&self, join: &v1::JoinRequest, joined: &Joined) {
		let joining = Joining {
			name: join.name.clone(),
			host: join.host.clone(),
			threads: join.threads,
			samples: joined.samples,
			flagged: joined.flagged,
			secret_sha256: joined.secret_sha256.clone(),
			secret_confirmed: joined.secret_confirmed,
		};
		self.shared.live().worker_joined(&join.worker_id, joining);
	}

	/// Records in the ledger, on a blocking thread, that `worker_id`'s secret was presented.
	async fn confirm_secret(&self, worker_id: &str) -> Result<(), Status> {
		let shared = self.shared.clone();
		let id = worker_id.to_string();
		tokio::task::spawn_blocking(move || shared.ledger().confirm_secret(&id))
			.await
			.map_err(ServiceError::task("session"))?
			.map_err(CoordinatorError::from)?;
		Ok(())
	}

	/// Shows `worker_id` connected in session `id` of `instance`, unless another process holds
	/// its live session; an older session of the same process is told it is `taken_over`.
	fn show_connected(
		&self,
		worker_id: &str,
		instance: String,
		id: u64,
		taken_over: &Arc<Notify>,
	) -> Result<(), Status> {
		Ok(self
			.shared
			.live()
			.session_opened(worker_id, instance, id, taken_over)?)
	}

	/// Refuses a join of `instance` while another process holds `worker_id`'s live session.
	fn check_not_held(&self, worker_id: &str, instance: &str) -> Result<(), Status> {
		Ok(self.shared.live().check_not_held(worker_id, instance)?)
	}

	/// Checks a session's secret against the one its worker's join bound; whether the session
	/// is the first to present it (to be recorded in the ledger).
	fn check_session_secret(&self, worker_id: &str, presented: &str) -> Result<bool, Status> {
		let live = self.shared.live();
		let Some(worker) = live.worker(worker_id) else {
			return Err(not_joined(worker_id));
		};
		let Some(sha256) = worker.secret_sha256() else {
			return Err(not_joined(worker_id));
		};
		identity::judge_session(worker_id, sha256, presented).map_err(CoordinatorError::from)?;
		Ok(!worker.is_secret_confirmed())
	}
}

fn not_joined(worker_id: &str) -> Status {
	ServiceError::NotJoined(worker_id.to_string()).into()
}
