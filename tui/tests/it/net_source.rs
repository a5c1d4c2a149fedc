//! Finding the net: the newest in a run directory, a file, or a coordinator's latest over gRPC.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::mpsc;

use tigers_core::Network;
use tigers_core::network::Shape;
use tigers_core::network::file::sha256_hex;
use tigers_proto::client::ClientSettings;
use tigers_proto::v1::coordinator_server::{Coordinator, CoordinatorServer};
use tigers_proto::v1::{
	CoordinatorMessage, FetchNetRequest, JoinRequest, JoinResponse, NetFile, WorkerMessage,
};
use tigers_tui::net_source::{self, NetSource, NetSourceError, best_in_run_dir, latest_in_run_dir};
use tigers_tui::screen::setup::{self, PlayConfig, PlayerKind};
use tonic::codegen::tokio_stream;
use tonic::{Request, Response, Status, Streaming};

use crate::support::temp_dir;

fn net(generation: u64) -> Network {
	let mut net = Network::new(Shape::default(), generation);
	net.generation = generation;
	net
}

fn save(net: &Network, path: &Path) {
	net.save(path).unwrap();
}

#[test]
fn the_newest_generation_in_a_run_directory_wins() {
	let run = temp_dir("the_newest_generation_in_a_run_directory_wins");
	let nets = run.join("nets");
	std::fs::create_dir_all(&nets).unwrap();
	for generation in [2, 10, 9] {
		save(
			&net(generation),
			&nets.join(format!("gen-{generation:06}.safetensors")),
		);
	}
	std::fs::write(nets.join("gen-000011.safetensors.tmp"), b"partial").unwrap();
	std::fs::write(nets.join("notes.txt"), b"").unwrap();
	let newest = latest_in_run_dir(&run).unwrap();
	assert_eq!(newest, nets.join("gen-000010.safetensors"));
	let loaded = net_source::load_file(&newest).unwrap();
	assert_eq!(loaded.net.generation, 10);
}

#[test]
fn the_best_net_a_run_directory_names_wins_over_the_newest() {
	let run = temp_dir("the_best_net_a_run_directory_names");
	let nets = run.join("nets");
	std::fs::create_dir_all(&nets).unwrap();
	for generation in [3, 7] {
		save(
			&net(generation),
			&nets.join(format!("gen-{generation:06}.safetensors")),
		);
	}
	// No pointer yet: the newest.
	assert_eq!(
		best_in_run_dir(&run).unwrap(),
		nets.join("gen-000007.safetensors")
	);
	std::fs::write(nets.join("best"), "gen-000003.safetensors\n").unwrap();
	assert_eq!(
		best_in_run_dir(&run).unwrap(),
		nets.join("gen-000003.safetensors")
	);
	// A pointer to a net that is not there, or to anything but a net file's name, is passed
	// over for the newest.
	for pointer in [
		"gen-000005.safetensors",
		"../gen-000003.safetensors",
		"notes.txt",
		"",
	] {
		std::fs::write(nets.join("best"), pointer).unwrap();
		assert_eq!(
			best_in_run_dir(&run).unwrap(),
			nets.join("gen-000007.safetensors"),
			"{pointer:?}"
		);
	}
}

#[test]
fn an_empty_run_directory_and_no_coordinator_give_both_reasons() {
	let run = temp_dir("an_empty_run_directory_and_no_coordinator");
	std::fs::create_dir_all(run.join("nets")).unwrap();
	assert!(matches!(
		latest_in_run_dir(&run),
		Err(NetSourceError::NoNets(_))
	));
	// Port 1 on the loopback address: nothing listens there, so the connection is refused.
	let why =
		net_source::find_best(&run, "http://127.0.0.1:1", &ClientSettings::default()).unwrap_err();
	assert!(matches!(*why.local, NetSourceError::NoNets(_)), "{why}");
	assert!(
		matches!(*why.remote, NetSourceError::Unreachable { .. }),
		"{why}"
	);
	let why = why.to_string();
	assert!(why.contains("holds no nets"), "{why}");
	assert!(why.contains("no coordinator answers"), "{why}");
}

#[test]
fn without_a_net_the_tigers_are_claude_and_the_screen_says_so() {
	let run = temp_dir("without_a_net_the_tigers_are_claude");
	let config = PlayConfig {
		run_dir: run,
		coordinator: "http://127.0.0.1:1".to_string(),
		..PlayConfig::default()
	};
	let setup = setup::build(&config).unwrap();
	assert!(setup.no_net_because.is_some());
	assert_eq!(setup.app.seat(tigers_core::Turn::Tiger).name(), "Claude");
	let status = setup.app.status().unwrap();
	assert!(status.text.contains("no net found"), "{status:?}");
}

#[test]
fn a_named_net_file_plays_the_net() {
	let dir = temp_dir("a_named_net_file_plays_the_net");
	let path = dir.join("seven.safetensors");
	save(&net(7), &path);
	let config = PlayConfig {
		sheep: PlayerKind::Net,
		tigers: PlayerKind::Human,
		net: Some(NetSource::File(path)),
		..PlayConfig::default()
	};
	let setup = setup::build(&config).unwrap();
	assert_eq!(setup.app.seat(tigers_core::Turn::Sheep).name(), "Net 7");
	// A named net that does not load is an error, not a silent fallback.
	let missing = PlayConfig {
		net: Some(NetSource::File(dir.join("missing.safetensors"))),
		..PlayConfig::default()
	};
	assert!(setup::build(&missing).is_err());
}

/// A coordinator that only answers `FetchNet`, and only with the token `s3cret`.
struct FakeCoordinator {
	file: NetFile,
}

type Stream<T> = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl Coordinator for FakeCoordinator {
	async fn join(&self, _: Request<JoinRequest>) -> Result<Response<JoinResponse>, Status> {
		Err(Status::unimplemented("join"))
	}

	async fn fetch_net(
		&self,
		request: Request<FetchNetRequest>,
	) -> Result<Response<NetFile>, Status> {
		let token = request.metadata().get("authorization");
		if token.and_then(|t| t.to_str().ok()) != Some("Bearer s3cret") {
			return Err(Status::unauthenticated("a wrong or missing token"));
		}
		if !request.get_ref().latest {
			return Err(Status::invalid_argument("this test wants the latest net"));
		}
		Ok(Response::new(self.file.clone()))
	}

	type SessionStream = Stream<CoordinatorMessage>;

	async fn session(
		&self,
		_: Request<Streaming<WorkerMessage>>,
	) -> Result<Response<Self::SessionStream>, Status> {
		Err(Status::unimplemented("session"))
	}

	type FetchTablebaseStream = Stream<tigers_proto::v1::TablebaseChunk>;

	async fn fetch_tablebase(
		&self,
		_: Request<tigers_proto::v1::FetchTablebaseRequest>,
	) -> Result<Response<Self::FetchTablebaseStream>, Status> {
		Err(Status::unimplemented("fetch_tablebase"))
	}
}

/// Serves a fake coordinator on a port of its own, on a thread of its own, for the rest of the
/// test process.
fn serve(file: NetFile) -> SocketAddr {
	let (sender, receiver) = mpsc::channel();
	std::thread::spawn(move || {
		let runtime = tokio::runtime::Runtime::new().unwrap();
		runtime.block_on(async move {
			let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
			sender.send(listener.local_addr().unwrap()).unwrap();
			tonic::transport::Server::builder()
				.add_service(CoordinatorServer::new(FakeCoordinator { file }))
				.serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener))
				.await
				.unwrap();
		});
	});
	receiver.recv().unwrap()
}

#[test]
fn the_latest_net_is_fetched_from_a_coordinator_with_the_token() {
	let bytes = net(12).to_bytes();
	let addr = serve(NetFile {
		generation: 12,
		sha256: sha256_hex(&bytes),
		safetensors: bytes,
	});
	let url = format!("http://{addr}");
	let with_token = ClientSettings {
		token: Some("s3cret".into()),
		tls_ca: None,
	};
	let loaded = net_source::load(&NetSource::parse(&url), &with_token).unwrap();
	assert_eq!(loaded.net.generation, 12);
	assert_eq!(*loaded.net, net(12));
	let refused = net_source::fetch_latest(&url, &ClientSettings::default()).unwrap_err();
	assert!(
		matches!(refused, NetSourceError::Refused { .. }),
		"{refused:?}"
	);
	assert!(refused.to_string().contains("Unauthenticated"), "{refused}");
}

#[test]
fn a_net_whose_bytes_do_not_match_its_hash_is_refused() {
	let bytes = net(3).to_bytes();
	let addr = serve(NetFile {
		generation: 3,
		sha256: "0".repeat(64),
		safetensors: bytes,
	});
	let settings = ClientSettings {
		token: Some("s3cret".into()),
		tls_ca: None,
	};
	let error = net_source::fetch_latest(&format!("http://{addr}"), &settings).unwrap_err();
	assert!(matches!(error, NetSourceError::BadNet { .. }), "{error:?}");
}
