//! A coordinator on `127.0.0.1:0` in this process, real clients, and real samples.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tigers_coordinator::config::CoordinatorConfig;
use tigers_core::ClaudePlayer;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{SelfPlaySettings, play_self_play_game};
use tigers_proto::client::BearerToken;
use tigers_proto::convert::sample_to_wire;
use tigers_proto::v1;
use tigers_proto::v1::coordinator_client::CoordinatorClient;
use tigers_proto::v1::coordinator_message::Body as ToWorker;
use tigers_proto::v1::observe_client::ObserveClient;
use tigers_proto::v1::solve_client::SolveClient;
use tonic::Status;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

/// A path for one test's run directory, not yet made, as a new run's is. It is inside a fresh
/// directory under the system's temporary directory, which is removed with everything in it
/// when the `TestDir` is dropped, whether the test passed or not.
pub struct TestDir {
	/// Removed on drop.
	_holder: tempfile::TempDir,
	path: PathBuf,
}

impl std::ops::Deref for TestDir {
	type Target = Path;

	fn deref(&self) -> &Path {
		&self.path
	}
}

impl AsRef<std::ffi::OsStr> for TestDir {
	fn as_ref(&self) -> &std::ffi::OsStr {
		self.path.as_os_str()
	}
}

impl AsRef<Path> for TestDir {
	fn as_ref(&self) -> &Path {
		&self.path
	}
}

/// A fresh run directory for one test, named after `tag`.
pub fn temp_dir(tag: &str) -> TestDir {
	let holder = tempfile::Builder::new()
		.prefix(&format!("tigers-coordinator-{tag}-"))
		.tempdir()
		.expect("the temporary directory is writable");
	let path = holder.path().join("run");
	TestDir {
		_holder: holder,
		path,
	}
}

/// Settings small enough for tests: shallow searches, tiny gates, rare candidates.
pub fn test_config(run_dir: PathBuf, token: Option<&str>) -> CoordinatorConfig {
	let mut config = CoordinatorConfig::new("127.0.0.1:0".parse().expect("an address"), run_dir);
	config.token = token.map(str::to_string);
	let run = &mut config.run;
	run.depth = 1;
	run.gate.search = SearchSettings::fixed_depth(1);
	run.gate.policy.min_pairs = 1;
	run.gate.policy.max_pairs = 2;
	run.gate.max_plies = 60;
	run.steps_per_candidate = 1_000_000;
	run.training.batch_size = 16;
	run.research_fraction = 0.0;
	// Matches on the clock take minutes: only the tests of them turn them on.
	run.timed.pairs = 0;
	// Grading a net takes a few seconds of a core in a debug build; the grades test turns it on.
	run.grade = false;
	// Tests that want a tablebase say which: none is looked for in the default place.
	config.no_tablebase = true;
	// The machine's free space is not the test's business: the tests of a full disk set a
	// margin on a filesystem of their own.
	config.min_free_bytes = 0;
	config
}

/// A running coordinator.
pub struct Running {
	pub address: SocketAddr,
	stop: Option<tokio::sync::oneshot::Sender<()>>,
	handle: tokio::task::JoinHandle<Result<(), tigers_coordinator::error::CoordinatorError>>,
}

impl Running {
	/// Stops it and waits until it has checkpointed.
	pub async fn stop(mut self) {
		if let Some(stop) = self.stop.take() {
			let _ = stop.send(());
		}
		self.handle
			.await
			.expect("the server task")
			.expect("the server stops cleanly");
	}
}

/// The run id of every run directory a test starts a coordinator on (unless the test wrote
/// its own): the batches of [`real_batch`] name it.
pub const TEST_RUN: &str = "7e570000000000000000000000000001";

/// Starts a coordinator with `config` on a free loopback port, its run directory named
/// [`TEST_RUN`] unless it already has a run id.
pub async fn start(config: CoordinatorConfig) -> Running {
	std::fs::create_dir_all(&config.run_dir).expect("the run directory");
	let run_id = config.run_dir.join("run-id");
	if !run_id.exists() {
		std::fs::write(&run_id, format!("{TEST_RUN}\n")).expect("the run id");
	}
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
		.await
		.expect("a free port");
	let address = listener.local_addr().expect("an address");
	let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
	let handle = tokio::spawn(tigers_coordinator::server::run(
		config,
		listener,
		async move {
			let _ = stopped.await;
		},
	));
	Running {
		address,
		stop: Some(stop),
		handle,
	}
}

/// A connection that presents the token, if any, on every call, as the programs' client does.
pub type Authorized = InterceptedService<Channel, BearerToken>;

/// The generated clients of the three services over one connection. It dereferences to the
/// training service's, whose calls most tests make.
pub struct Client {
	pub training: CoordinatorClient<Authorized>,
	pub solve: SolveClient<Authorized>,
	pub observe: ObserveClient<Authorized>,
}

impl std::ops::Deref for Client {
	type Target = CoordinatorClient<Authorized>;

	fn deref(&self) -> &Self::Target {
		&self.training
	}
}

impl std::ops::DerefMut for Client {
	fn deref_mut(&mut self) -> &mut Self::Target {
		&mut self.training
	}
}

/// The generated clients, presenting `token` if given.
pub async fn client(address: SocketAddr, token: Option<&str>) -> Client {
	let channel = Channel::from_shared(format!("http://{address}"))
		.expect("a URL")
		.connect()
		.await
		.expect("the coordinator accepts connections");
	let bearer = BearerToken::new(token).expect("a token a header can carry");
	let connection = InterceptedService::new(channel, bearer);
	Client {
		training: CoordinatorClient::new(connection.clone()),
		solve: SolveClient::new(connection.clone()),
		observe: ObserveClient::new(connection),
	}
}

/// A join request with this build's versions, for a worker without a secret yet.
pub fn join_request(worker_id: &str) -> v1::JoinRequest {
	v1::JoinRequest {
		worker_id: worker_id.into(),
		name: format!("{worker_id}-name"),
		host: "test-host".into(),
		threads: 1,
		build_version: env!("CARGO_PKG_VERSION").into(),
		input_version: tigers_core::network::Encoding::NEWEST.version(),
		worker_secret: String::new(),
		loadtest: false,
		protocol_version: tigers_proto::PROTOCOL_VERSION,
		instance: TEST_INSTANCE.into(),
	}
}

/// The worker process the test helpers' joins and sessions come from.
pub const TEST_INSTANCE: &str = "test-process";

/// A join request presenting `secret`.
pub fn join_with(worker_id: &str, secret: &str) -> v1::JoinRequest {
	v1::JoinRequest {
		worker_secret: secret.into(),
		..join_request(worker_id)
	}
}

/// Joins a new worker; returns the secret its identity is bound to.
pub async fn join(client: &mut Client, worker_id: &str) -> String {
	let joined = client
		.join(join_request(worker_id))
		.await
		.expect("the join is accepted")
		.into_inner();
	assert_eq!(
		joined.worker_secret.len(),
		64,
		"a new identity gets a secret"
	);
	joined.worker_secret
}

/// A batch of real samples from one short game, tagged with `generation`.
pub fn real_batch(sequence: u64, generation: u64, seed: u64) -> v1::SampleBatch {
	let mut sheep = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
	let mut tigers = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
	let settings = SelfPlaySettings {
		max_plies: 40,
		..SelfPlaySettings::default()
	};
	let game = play_self_play_game(&mut sheep, &mut tigers, &settings, seed, generation);
	v1::SampleBatch {
		sequence,
		samples: game.samples.iter().map(sample_to_wire).collect(),
		game_records: vec![game.record.to_text()],
		run_id: TEST_RUN.into(),
	}
}

/// Wraps worker messages as a request stream that ends when `messages` is dropped.
pub fn outbound(
	messages: tokio::sync::mpsc::Receiver<v1::WorkerMessage>,
) -> tokio_stream::wrappers::ReceiverStream<v1::WorkerMessage> {
	tokio_stream::wrappers::ReceiverStream::new(messages)
}

pub fn open(worker_id: &str, secret: &str) -> v1::WorkerMessage {
	v1::WorkerMessage {
		body: Some(v1::worker_message::Body::Open(v1::SessionOpen {
			worker_id: worker_id.into(),
			worker_secret: secret.into(),
			instance: TEST_INSTANCE.into(),
		})),
	}
}

pub fn batch_message(batch: v1::SampleBatch) -> v1::WorkerMessage {
	v1::WorkerMessage {
		body: Some(v1::worker_message::Body::Batch(batch)),
	}
}

/// Held by a test that weighs this process's memory and by a test that loads it heavily, so
/// that the two never run at once (`cargo test` runs the tests of this binary side by side).
pub static MEMORY_WEIGHED: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How long a test waits for an answer before failing.
pub const WAIT: Duration = Duration::from_secs(20);

/// Opens a session for a joined worker with its secret; returns the sender of worker messages
/// and the stream of coordinator messages, with the first assignment already read.
pub async fn session(
	client: &mut Client,
	worker_id: &str,
	secret: &str,
) -> (
	tokio::sync::mpsc::Sender<v1::WorkerMessage>,
	tonic::Streaming<v1::CoordinatorMessage>,
	v1::Assignment,
) {
	let (sender, receiver) = tokio::sync::mpsc::channel(16);
	sender.send(open(worker_id, secret)).await.unwrap();
	let mut inbound = client
		.session(outbound(receiver))
		.await
		.expect("a session")
		.into_inner();
	let first = tokio::time::timeout(WAIT, inbound.message())
		.await
		.unwrap()
		.unwrap()
		.unwrap();
	let Some(ToWorker::Assignment(assignment)) = first.body else {
		panic!("the first message is an assignment")
	};
	(sender, inbound, assignment)
}

/// The next acknowledgement on a session, skipping assignments; the session's error if it ends.
pub async fn next_ack(
	inbound: &mut tonic::Streaming<v1::CoordinatorMessage>,
) -> Result<v1::Ack, Status> {
	loop {
		let message = tokio::time::timeout(WAIT, inbound.message())
			.await
			.expect("an answer in time")?;
		match message.expect("the stream stays open").body {
			Some(ToWorker::Ack(ack)) => return Ok(ack),
			_ => continue,
		}
	}
}

/// The run's progress snapshot, asked with `Status`.
pub async fn status(client: &mut Client) -> v1::Progress {
	client
		.observe
		.status(v1::StatusRequest {})
		.await
		.expect("status")
		.into_inner()
}

/// Reads `inbound` to its end, each message within [`WAIT`]: the status it closed with, `None`
/// if it ended with OK.
pub async fn closing_status<T>(inbound: &mut tonic::Streaming<T>) -> Option<Status> {
	loop {
		match tokio::time::timeout(WAIT, inbound.message())
			.await
			.expect("the stream says something within WAIT")
		{
			Ok(Some(_)) => continue,
			Ok(None) => return None,
			Err(status) => return Some(status),
		}
	}
}

pub use tigers_testkit::free_port;
