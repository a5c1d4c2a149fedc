//! A small coordinator for the tests: a real tonic server on 127.0.0.1 that checks the token,
//! serves nets, sends assignments, and stores batches deduplicated by sequence (as the real one
//! does), recording everything it sees.
//!
//! The server runs on its own runtime in its own thread, so that [`TestServer::kill`] can drop
//! every connection at once, as a coordinator that dies would; the recorded state lives on in
//! [`State`], like a real coordinator's ledger, for the next server on the same port.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use tigers_core::Network;
use tigers_core::network::file::sha256_hex;
use tigers_core::network::{Encoding, Shape};
use tigers_proto::v1::coordinator_server::{Coordinator, CoordinatorServer};
use tigers_proto::v1::{
	self, Ack, CoordinatorMessage, FetchNetRequest, Heartbeat, JoinRequest, JoinResponse, NetFile,
	SampleBatch, WorkerMessage, coordinator_message, worker_message,
};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream};
use tokio_stream::{Stream, StreamExt};
use tonic::transport::{Identity, ServerTlsConfig};
use tonic::{Request, Response, Status, Streaming};

/// The token the test server wants.
pub const TOKEN: &str = "test-token";

/// What the server does with batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
	/// Store (dropping duplicates) and acknowledge.
	Store,
	/// Swallow them: neither store nor acknowledge, as if lost in flight.
	Swallow,
	/// Refuse the next one as malformed, ending the session with INVALID_ARGUMENT and the
	/// `tigers-rejected-sequence` metadata as the real coordinator does; then store again.
	RejectNext,
}

/// Everything the server saw and stored.
#[derive(Debug, Default)]
pub struct Record {
	/// TCP connections accepted (each TLS handshake starts with one).
	pub connections: usize,
	pub joins: Vec<JoinRequest>,
	pub fetches: Vec<FetchNetRequest>,
	pub sessions: usize,
	/// Sessions whose worker stream has ended: nothing more arrives from them.
	pub sessions_ended: usize,
	/// Stored batches by sequence: each sequence once.
	pub stored: BTreeMap<u64, SampleBatch>,
	/// Every sequence received, in order, duplicates and swallowed ones included.
	pub received: Vec<u64>,
	pub swallowed: Vec<u64>,
	pub rejected: Vec<u64>,
	/// Batches refused as another run's, by sequence, with the run they named.
	pub other_run: Vec<(u64, String)>,
	pub duplicates: usize,
	pub heartbeats: Vec<Heartbeat>,
	/// The secret each session opened with, in order.
	pub session_secrets: Vec<String>,
	/// Tablebase transfers asked for.
	pub tablebase_fetches: usize,
}

/// The server's state, shared by the test and every server started on it.
pub struct State {
	record: Mutex<Record>,
	/// Bumped on every change to the record, to wake waiting tests.
	changes: watch::Sender<u64>,
	mode: Mutex<Mode>,
	/// The assignment sent to sessions; changing it pushes it to every open session.
	assignment: watch::Sender<v1::Assignment>,
	nets: Mutex<HashMap<u64, NetFile>>,
	/// If set, `Join` answers FAILED_PRECONDITION with this message.
	refuse_join: Mutex<Option<String>>,
	/// The secret the identity is bound to, handed out at the first join, as the real
	/// coordinator does (one identity per test server).
	secret: Mutex<Option<String>>,
	/// If set, `Join` claims this as the last acknowledged sequence, whatever is stored.
	claim_last_acked: Mutex<Option<u64>>,
	/// The tablebase `FetchTablebase` sends, if any.
	tablebase: Mutex<Option<ServedTablebase>>,
	/// The run served: joins name it, and batches naming another are refused.
	run: Mutex<String>,
}

/// The run a test server serves unless told otherwise.
pub const RUN: &str = "a11a11a11a11a11a11a11a11a11a11a1";

/// The secret the test server hands out.
pub const SECRET: &str = "5ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2";

/// A net file for a fresh net from `seed`, labelled `generation`.
pub fn net_file(seed: u64, generation: u64) -> NetFile {
	let mut net = Network::new(Shape::default(), seed);
	net.generation = generation;
	let bytes = net.to_bytes();
	NetFile {
		generation,
		sha256: sha256_hex(&bytes),
		safetensors: bytes,
	}
}

/// Small settings, so that games take milliseconds.
pub fn assignment(net: &NetFile, games_per_batch: u32) -> v1::Assignment {
	v1::Assignment {
		generation: net.generation,
		sha256: net.sha256.clone(),
		depth: 1,
		random_plies: 2,
		softmax_plies: 4,
		temperature: 0.1,
		max_plies: 60,
		games_per_batch,
		tablebase_sha256: String::new(),
		adjudicate: false,
		play_out_share: 0.0,
	}
}

/// A tablebase file the server sends, and how.
#[derive(Clone)]
pub struct ServedTablebase {
	/// The file's bytes.
	pub bytes: Arc<Vec<u8>>,
	/// Its identity (the sha256 of the bytes).
	pub identity: String,
	/// Flip a byte of the piece at this index on the way, as a broken transfer would.
	pub damage_piece: Option<usize>,
}

impl State {
	/// A coordinator serving `net` with `games_per_batch` games a batch.
	pub fn new(net: NetFile, games_per_batch: u32) -> Arc<State> {
		let (assignment, _) = watch::channel(assignment(&net, games_per_batch));
		Arc::new(State {
			record: Mutex::default(),
			changes: watch::channel(0).0,
			mode: Mutex::new(Mode::Store),
			assignment,
			nets: Mutex::new(HashMap::from([(net.generation, net)])),
			refuse_join: Mutex::new(None),
			secret: Mutex::new(None),
			claim_last_acked: Mutex::new(None),
			tablebase: Mutex::new(None),
			run: Mutex::new(RUN.into()),
		})
	}

	/// Serves run `run` from now on, as a coordinator restarted for a new run would (though
	/// with this one's record).
	pub fn set_run(&self, run: &str) {
		*self.run.lock().unwrap() = run.into();
	}

	/// Serves `tablebase` from now on.
	pub fn serve_tablebase(&self, tablebase: ServedTablebase) {
		*self.tablebase.lock().unwrap() = Some(tablebase);
	}

	/// Binds the identity to `secret`, as a coordinator that saw this worker before.
	pub fn bind_secret(&self, secret: &str) {
		*self.secret.lock().unwrap() = Some(secret.to_string());
	}

	/// Makes `Join` claim `sequence` as the last acknowledged one.
	pub fn claim_last_acked(&self, sequence: u64) {
		*self.claim_last_acked.lock().unwrap() = Some(sequence);
	}

	pub fn record(&self) -> MutexGuard<'_, Record> {
		self.record.lock().unwrap()
	}

	pub fn set_mode(&self, mode: Mode) {
		*self.mode.lock().unwrap() = mode;
	}

	pub fn refuse_joins(&self, message: &str) {
		*self.refuse_join.lock().unwrap() = Some(message.to_string());
	}

	/// Adds a net the server can serve.
	pub fn add_net(&self, net: NetFile) {
		self.nets.lock().unwrap().insert(net.generation, net);
	}

	/// Sends `assignment` to every open session and to every new one.
	pub fn push_assignment(&self, assignment: v1::Assignment) {
		self.assignment.send_replace(assignment);
	}

	fn change(&self, update: impl FnOnce(&mut Record)) {
		update(&mut self.record());
		self.changes.send_modify(|n| *n += 1);
	}

	/// Waits until `condition` holds of the record, failing the test after `timeout`.
	pub async fn wait_for(
		&self,
		what: &str,
		timeout: Duration,
		condition: impl Fn(&Record) -> bool,
	) {
		let mut changes = self.changes.subscribe();
		let wait = async {
			while !condition(&self.record()) {
				changes.changed().await.unwrap();
			}
		};
		if tokio::time::timeout(timeout, wait).await.is_err() {
			panic!(
				"timed out waiting for {what}; saw {:#?}",
				Summary(&self.record())
			);
		}
	}

	/// Takes a batch: the reply to send, if any, or the status to end the session with.
	fn batch(&self, batch: SampleBatch) -> Result<Option<coordinator_message::Body>, Status> {
		let sequence = batch.sequence;
		let run = self.run.lock().unwrap().clone();
		if batch.run_id != run {
			self.change(|record| record.other_run.push((sequence, batch.run_id.clone())));
			return Ok(Some(coordinator_message::Body::Refused(v1::BatchRefused {
				sequence,
				run_id: run,
				reason: "played for another run".into(),
			})));
		}
		let mode = std::mem::replace(&mut *self.mode.lock().unwrap(), Mode::Store);
		if mode != Mode::RejectNext {
			*self.mode.lock().unwrap() = mode;
		}
		let mut ack = None;
		self.change(|record| {
			record.received.push(sequence);
			match mode {
				Mode::Swallow => record.swallowed.push(sequence),
				Mode::RejectNext => record.rejected.push(sequence),
				Mode::Store => {}
			}
		});
		match mode {
			Mode::Swallow => return Ok(None),
			Mode::RejectNext => {
				let mut status = Status::invalid_argument("sample 0: made-up scores");
				status.metadata_mut().insert(
					"tigers-rejected-sequence",
					sequence.to_string().parse().unwrap(),
				);
				return Err(status);
			}
			Mode::Store => {}
		}
		self.change(|record| {
			let accepted = !record.stored.contains_key(&sequence);
			if accepted {
				record.stored.insert(sequence, batch);
			} else {
				record.duplicates += 1;
			}
			ack = Some(Ack { sequence, accepted });
		});
		Ok(ack.map(coordinator_message::Body::Ack))
	}
}

/// The record without the batches' contents, for failure messages.
struct Summary<'a>(&'a Record);

impl std::fmt::Debug for Summary<'_> {
	fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
		let r = self.0;
		f.debug_struct("Record")
			.field("joins", &r.joins.len())
			.field("fetches", &r.fetches)
			.field("sessions", &r.sessions)
			.field("sessions_ended", &r.sessions_ended)
			.field("stored", &r.stored.keys().collect::<Vec<_>>())
			.field("received", &r.received)
			.field("swallowed", &r.swallowed)
			.field("rejected", &r.rejected)
			.field("other_run", &r.other_run)
			.field("heartbeats", &r.heartbeats.len())
			.finish()
	}
}

struct Service(Arc<State>);

type Stream_<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl Coordinator for Service {
	async fn join(&self, request: Request<JoinRequest>) -> Result<Response<JoinResponse>, Status> {
		let join = request.into_inner();
		let worker_id = join.worker_id.clone();
		self.0.change(|record| record.joins.push(join.clone()));
		if let Some(message) = self.0.refuse_join.lock().unwrap().clone() {
			return Err(Status::failed_precondition(message));
		}
		if join.input_version < Encoding::V1.version() {
			return Err(Status::failed_precondition(
				"reads no input encoding of the nets",
			));
		}
		assert!(!worker_id.is_empty());
		let issued = {
			let mut secret = self.0.secret.lock().unwrap();
			match (secret.as_deref(), join.worker_secret.as_str()) {
				(None, "") => {
					*secret = Some(SECRET.to_string());
					SECRET.to_string()
				}
				(Some(bound), presented) if bound == presented => String::new(),
				// A ledger that never saw the identity adopts its secret, as the real one does.
				(None, presented) => {
					*secret = Some(presented.to_string());
					String::new()
				}
				_ => return Err(Status::permission_denied("bound to another secret")),
			}
		};
		// A refused batch uses its number up, as at the real coordinator.
		let stored = {
			let record = self.0.record();
			let stored = record.stored.keys().last().copied().unwrap_or(0);
			stored.max(record.rejected.iter().copied().max().unwrap_or(0))
		};
		let claimed = *self.0.claim_last_acked.lock().unwrap();
		Ok(Response::new(JoinResponse {
			last_acked_sequence: claimed.unwrap_or(stored),
			run_name: "test-run".into(),
			worker_secret: issued,
			build_version: env!("CARGO_PKG_VERSION").into(),
			protocol_version: tigers_proto::PROTOCOL_VERSION,
			run_id: self.0.run.lock().unwrap().clone(),
		}))
	}

	async fn fetch_net(
		&self,
		request: Request<FetchNetRequest>,
	) -> Result<Response<NetFile>, Status> {
		let wanted = request.into_inner();
		self.0.change(|record| record.fetches.push(wanted));
		let net = self.0.nets.lock().unwrap().get(&wanted.generation).cloned();
		net.map(Response::new)
			.ok_or_else(|| Status::not_found("no such generation"))
	}

	type SessionStream = Stream_<CoordinatorMessage>;

	async fn session(
		&self,
		request: Request<Streaming<WorkerMessage>>,
	) -> Result<Response<Self::SessionStream>, Status> {
		let mut inbound = request.into_inner();
		let first = inbound.message().await?;
		let Some(WorkerMessage {
			body: Some(worker_message::Body::Open(open)),
		}) = first
		else {
			return Err(Status::invalid_argument(
				"the first message must be SessionOpen",
			));
		};
		if self.0.secret.lock().unwrap().as_deref() != Some(open.worker_secret.as_str()) {
			return Err(Status::permission_denied("bound to another secret"));
		}
		self.0.change(|record| {
			record.sessions += 1;
			record.session_secrets.push(open.worker_secret.clone());
		});
		let (outbound, messages) = mpsc::channel(1024);
		tokio::spawn(serve_session(self.0.clone(), inbound, outbound));
		Ok(Response::new(Box::pin(ReceiverStream::new(messages))))
	}

	type FetchTablebaseStream = Stream_<v1::TablebaseChunk>;

	async fn fetch_tablebase(
		&self,
		request: Request<v1::FetchTablebaseRequest>,
	) -> Result<Response<Self::FetchTablebaseStream>, Status> {
		self.0.change(|record| record.tablebase_fetches += 1);
		let served = self.0.tablebase.lock().unwrap().clone();
		let Some(served) = served else {
			return Err(Status::failed_precondition("no tablebase here"));
		};
		if request.into_inner().sha256 != served.identity {
			return Err(Status::failed_precondition("another tablebase"));
		}
		let total = served.bytes.len() as u64;
		let pieces: Vec<_> = served
			.bytes
			.chunks(1 << 20)
			.enumerate()
			.map(|(index, piece)| {
				let mut data = piece.to_vec();
				if served.damage_piece == Some(index) {
					data[0] ^= 1;
				}
				Ok(v1::TablebaseChunk {
					offset: (index << 20) as u64,
					data,
					total_bytes: total,
					sha256: served.identity.clone(),
				})
			})
			.collect();
		Ok(Response::new(Box::pin(tokio_stream::iter(pieces))))
	}
}

/// Serves one session and counts its end.
async fn serve_session(
	state: Arc<State>,
	inbound: Streaming<WorkerMessage>,
	outbound: mpsc::Sender<Result<CoordinatorMessage, Status>>,
) {
	session_messages(&state, inbound, outbound).await;
	state.change(|record| record.sessions_ended += 1);
}

/// Sends the assignment now and on every change; stores and acknowledges batches.
async fn session_messages(
	state: &State,
	mut inbound: Streaming<WorkerMessage>,
	outbound: mpsc::Sender<Result<CoordinatorMessage, Status>>,
) {
	let mut assignments = state.assignment.subscribe();
	let message = |body| Ok(CoordinatorMessage { body: Some(body) });
	let first = assignments.borrow_and_update().clone();
	if outbound
		.send(message(coordinator_message::Body::Assignment(first)))
		.await
		.is_err()
	{
		return;
	}
	loop {
		let reply = tokio::select! {
			received = inbound.message() => match received {
				Ok(Some(WorkerMessage { body: Some(worker_message::Body::Batch(batch)) })) => {
					match state.batch(batch) {
						Ok(reply) => reply,
						Err(status) => {
							let _ = outbound.send(Err(status)).await;
							return;
						}
					}
				}
				Ok(Some(WorkerMessage { body: Some(worker_message::Body::Heartbeat(beat)) })) => {
					state.change(|record| record.heartbeats.push(beat));
					None
				}
				Ok(Some(_)) => None,
				_ => return,
			},
			changed = assignments.changed() => {
				if changed.is_err() {
					return;
				}
				let next = assignments.borrow_and_update().clone();
				Some(coordinator_message::Body::Assignment(next))
			}
		};
		if let Some(body) = reply
			&& outbound.send(message(body)).await.is_err()
		{
			return;
		}
	}
}

fn check_token(request: Request<()>) -> Result<Request<()>, Status> {
	let expected = format!("Bearer {TOKEN}");
	match request.metadata().get("authorization") {
		Some(value) if value == expected.as_str() => Ok(request),
		_ => Err(Status::unauthenticated("missing or wrong token")),
	}
}

/// A running test server.
pub struct TestServer {
	pub address: SocketAddr,
	stop: Option<oneshot::Sender<()>>,
	thread: Option<JoinHandle<()>>,
}

impl TestServer {
	/// Serves `state` on `address` (port 0 for any free port).
	pub fn start(state: Arc<State>, address: SocketAddr) -> TestServer {
		TestServer::serve(state, address, None)
	}

	/// Serves `state` on any free port over TLS with `identity`.
	pub fn with_tls(state: Arc<State>, identity: Identity) -> TestServer {
		TestServer::serve(state, "127.0.0.1:0".parse().unwrap(), Some(identity))
	}

	fn serve(state: Arc<State>, address: SocketAddr, tls: Option<Identity>) -> TestServer {
		let listener = std::net::TcpListener::bind(address).expect("bind the test server");
		listener.set_nonblocking(true).unwrap();
		let address = listener.local_addr().unwrap();
		let (stop, stopped) = oneshot::channel::<()>();
		let counting = state.clone();
		let thread = std::thread::spawn(move || {
			let runtime = tokio::runtime::Builder::new_multi_thread()
				.worker_threads(1)
				.enable_all()
				.build()
				.unwrap();
			runtime.block_on(async move {
				let listener = tokio::net::TcpListener::from_std(listener).unwrap();
				let service = CoordinatorServer::with_interceptor(Service(state), check_token);
				let mut builder = tonic::transport::Server::builder();
				if let Some(identity) = tls {
					builder = builder
						.tls_config(ServerTlsConfig::new().identity(identity))
						.unwrap();
				}
				let serve = builder.add_service(service).serve_with_incoming(
					TcpListenerStream::new(listener).map(move |connection| {
						counting.change(|record| record.connections += 1);
						connection
					}),
				);
				tokio::select! {
					result = serve => result.unwrap(),
					_ = stopped => {}
				}
			});
			// Dropping the runtime drops every connection task: the clients see the
			// connections die, as when a coordinator process is killed.
			runtime.shutdown_background();
		});
		TestServer {
			address,
			stop: Some(stop),
			thread: Some(thread),
		}
	}

	/// Any free port.
	pub fn any_port(state: Arc<State>) -> TestServer {
		TestServer::start(state, "127.0.0.1:0".parse().unwrap())
	}

	pub fn url(&self) -> String {
		format!("http://{}", self.address)
	}

	/// Stops serving and drops every connection at once.
	pub fn kill(mut self) {
		self.stop_now();
	}

	fn stop_now(&mut self) {
		if let Some(stop) = self.stop.take() {
			let _ = stop.send(());
		}
		if let Some(thread) = self.thread.take() {
			thread.join().unwrap();
		}
	}
}

impl Drop for TestServer {
	fn drop(&mut self) {
		self.stop_now();
	}
}
