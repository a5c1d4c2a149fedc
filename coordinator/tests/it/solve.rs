//! The placement phase solved over worker processes (`coordinator solve`, `worker solve`) on
//! loopback, from 19 placed (the last two layers: the sheep's, computed from the movement
//! table, and the tigers', from the sheep's): the files are byte for byte those of the
//! one-machine build with one worker and with three; a worker that lies is flagged and its
//! slices done again, a slice held and never returned goes to another worker, and a
//! coordinator killed with SIGKILL resumes at the slices it kept. Bad calls are refused with
//! the right status and change nothing; each kind of coordinator answers the other's calls
//! UNIMPLEMENTED, naming its own service, and a worker of the other kind stops with a sentence
//! that says what it reached.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tigers_coordinator::fetch_status;
use tigers_coordinator::solve::SolveConfig;
use tigers_core::tablebase::placement::LayerId;
use tigers_proto::client::ClientSettings;
use tigers_proto::v1;
use tonic::Code;

use crate::cluster::{coordinator_binary, wait_until, worker_binary};
use crate::common::{client, free_port, start, temp_dir, test_config};
use crate::tablebase::{table, table_path};

const FROM_PLACED: u32 = 19;
const TOKEN: &str = "solve-test-token";
/// Long enough for two debug builds' solves of the last layers on a loaded two-core machine.
const SOLVE_LIMIT: Duration = Duration::from_secs(400);

/// The one-machine build of the layers from 19 placed, made once and kept in the target
/// directory.
fn reference() -> &'static PathBuf {
	crate::tablebase::last_layers()
}

fn log_file(path: &Path) -> std::fs::File {
	std::fs::OpenOptions::new()
		.create(true)
		.append(true)
		.open(path)
		.expect("a log file")
}

fn spawn_coordinator(port: u16, dir: &Path, log: &Path) -> Child {
	Command::new(coordinator_binary())
		.args(["solve", "--listen", &format!("127.0.0.1:{port}"), "--dir"])
		.arg(dir)
		.arg("--movement")
		.arg(table_path())
		.args(["--from-placed", &FROM_PLACED.to_string()])
		.args(["--slice-timeout", "5", "--log-json"])
		.env("TIGERS_TOKEN", TOKEN)
		.stdout(Stdio::null())
		.stderr(log_file(log))
		.spawn()
		.expect("the coordinator starts")
}

/// A `worker solve` process; its summary line goes to `out`.
fn spawn_worker(port: u16, name: &str, log: &Path, out: &Path, test: Option<&str>) -> Child {
	let mut command = Command::new(worker_binary());
	command
		.args(["solve", "--connect", &format!("http://127.0.0.1:{port}")])
		.args(["--threads", "1", "--name", name, "--tablebase"])
		.arg(table_path())
		.arg("--log-json")
		.env("TIGERS_TOKEN", TOKEN)
		.env_remove("TIGERS_TEST_SOLVE_LIE")
		.env_remove("TIGERS_TEST_SOLVE_HOLD")
		.stdout(log_file(out))
		.stderr(log_file(log));
	if let Some(switch) = test {
		command.env(switch, "1");
	}
	command.spawn().expect("the worker starts")
}

/// The solve's progress, if the coordinator answers.
fn progress(port: u16) -> Option<v1::PlacementSolve> {
	let runtime = tokio::runtime::Builder::new_current_thread()
		.enable_all()
		.build()
		.expect("a runtime");
	let settings = ClientSettings {
		token: Some(TOKEN.into()),
		tls_ca: None,
	};
	let url = format!("http://127.0.0.1:{port}");
	runtime
		.block_on(fetch_status(&url, &settings))
		.ok()
		.and_then(|status| status.placement_solve)
}

/// Polls the progress until `done` holds.
fn wait_for(
	port: u16,
	what: &str,
	done: impl Fn(&v1::PlacementSolve) -> bool,
) -> v1::PlacementSolve {
	let deadline = Instant::now() + SOLVE_LIMIT;
	let mut last = None;
	while Instant::now() < deadline {
		if let Some(progress) = progress(port) {
			if done(&progress) {
				return progress;
			}
			last = Some(progress);
		}
		std::thread::sleep(Duration::from_millis(200));
	}
	panic!("timed out waiting for {what}; last progress: {last:?}");
}

fn wait_exit(child: &mut Child, what: &str) -> std::process::ExitStatus {
	wait_until(SOLVE_LIMIT, what, || child.try_wait().unwrap().is_some());
	child.wait().expect("an exit status")
}

/// The fields of the coordinator's last log line saying every layer is written.
fn final_counts(log: &Path) -> serde_json::Value {
	let text = std::fs::read_to_string(log).expect("the log");
	let line = text
		.lines()
		.rev()
		.find(|line| line.contains("the placement solve is done"))
		.unwrap_or_else(|| panic!("no final line in the log:\n{text}"));
	let value: serde_json::Value = serde_json::from_str(line).expect("a JSON log line");
	value["fields"].clone()
}

fn assert_same_files(dir: &Path, reference: &Path) {
	for id in LayerId::solve_order(FROM_PLACED) {
		let ours = std::fs::read(dir.join(id.file_name())).expect("the cluster's layer");
		let theirs = std::fs::read(reference.join(id.file_name())).expect("the reference layer");
		assert!(
			ours == theirs,
			"{} differs from the one-machine build",
			id.file_name()
		);
	}
	let names = |dir: &Path| {
		let mut names: Vec<String> = std::fs::read_dir(dir)
			.expect("a directory")
			.map(|entry| {
				entry
					.expect("an entry")
					.file_name()
					.to_string_lossy()
					.into_owned()
			})
			.filter(|name| name != ".lock")
			.collect();
		names.sort();
		names
	};
	assert_eq!(
		names(dir),
		names(reference),
		"no .partial directory or manifest left over"
	);
}

#[test]
fn one_worker_and_three_write_the_one_machine_builds_bytes() {
	let reference = reference();
	for workers in [1, 3] {
		let dir = temp_dir("solve-workers");
		let log = dir.with_extension("log");
		let port = free_port();
		let mut coordinator = spawn_coordinator(port, &dir, &log);
		let mut spawned: Vec<(Child, PathBuf)> = (0..workers)
			.map(|i| {
				let out = dir.with_extension(format!("w{i}.out"));
				(spawn_worker(port, &format!("w{i}"), &log, &out, None), out)
			})
			.collect();
		let status = wait_exit(&mut coordinator, "the solve to finish");
		assert!(
			status.success(),
			"the coordinator failed; see {}",
			log.display()
		);
		assert_same_files(&dir, reference);
		let counts = final_counts(&log);
		// At least one doubled slice a layer, and a class of every slice checked again.
		assert!(counts["doubled"].as_u64() >= Some(2), "{counts}");
		assert!(counts["checked"].as_u64() > Some(0), "{counts}");
		assert_eq!(counts["flagged"].as_u64(), Some(0), "{counts}");
		for (worker, out) in &mut spawned {
			assert!(wait_exit(worker, "a worker to stop").success());
			let summary = std::fs::read_to_string(&*out).expect("the summary");
			let slices: u64 = summary
				.split_whitespace()
				.nth(1)
				.and_then(|n| n.parse().ok())
				.unwrap_or_else(|| panic!("no summary: {summary}"));
			assert!(slices > 0, "every worker did some work: {summary}");
			assert!(summary.contains("placed-19-sheep.tbp"), "{summary}");
		}
		// Tens of megabytes a run: kept only when a test fails, to look at.
		let _ = std::fs::remove_dir_all(&dir);
		let _ = std::fs::remove_file(&log);
		for (_, out) in &spawned {
			let _ = std::fs::remove_file(out);
		}
	}
}

#[test]
fn a_liar_is_flagged_a_held_slice_moves_and_a_killed_coordinator_resumes() {
	let reference = reference();
	let dir = temp_dir("solve-faults");
	let log = dir.with_extension("log");
	let out = dir.with_extension("out");
	let port = free_port();
	let mut coordinator = spawn_coordinator(port, &dir, &log);
	let mut honest = spawn_worker(port, "honest", &log, &out, None);
	let mut liar = spawn_worker(port, "liar", &log, &out, Some("TIGERS_TEST_SOLVE_LIE"));
	let mut holder = spawn_worker(port, "holder", &log, &out, Some("TIGERS_TEST_SOLVE_HOLD"));

	// 1. The liar is caught on its first slice and refused from then on.
	let caught = wait_for(port, "the liar to be flagged", |p| {
		p.workers.iter().any(|w| w.name == "liar" && w.flagged)
	});
	let flagged: Vec<&str> = caught
		.workers
		.iter()
		.filter(|w| w.flagged)
		.map(|w| w.name.as_str())
		.collect();
	assert_eq!(flagged, ["liar"]);
	assert!(!wait_exit(&mut liar, "the liar to stop").success());

	// 2. The slice the holder never returns goes to another worker after its deadline.
	wait_for(port, "a slice to be handed out again", |p| {
		p.slices_reassigned >= 1
	});

	// 3. Killed in the middle of a layer, the coordinator keeps the slices it finished.
	let before = wait_for(port, "a few slices kept", |p| {
		p.slices_done >= 10 && p.slices_done < p.slices / 2
	});
	coordinator.kill().expect("SIGKILL");
	coordinator.wait().expect("the coordinator ended");
	// A slice caught half written (`.tmp`, renamed when whole) is not kept.
	let kept =
		std::fs::read_dir(dir.join(format!("{}.partial", before.layer))).map_or(0, |entries| {
			entries
				.flatten()
				.filter(|entry| entry.path().extension().is_none())
				.count()
		}) as u32;
	assert!(kept >= 10, "{kept} slices kept of {before:?}");
	let mut coordinator = spawn_coordinator(port, &dir, &log);
	let resumed = wait_for(port, "the restarted coordinator", |p| !p.layer.is_empty());
	if resumed.layer == before.layer {
		assert!(resumed.slices_done >= kept, "{resumed:?} after {kept} kept");
	}

	// 4. The honest worker reconnects by itself and finishes; the files are the same.
	assert!(wait_exit(&mut coordinator, "the solve to finish").success());
	assert!(wait_exit(&mut honest, "the honest worker to stop").success());
	holder.kill().expect("SIGKILL");
	holder.wait().expect("the holder ended");
	assert_same_files(&dir, reference);
	let _ = std::fs::remove_dir_all(&dir);
	let _ = std::fs::remove_file(&log);
	let _ = std::fs::remove_file(&out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_calls_are_refused_and_change_nothing() {
	table();
	let dir = temp_dir("solve-refusals");
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
		.await
		.expect("a free port");
	let address = listener.local_addr().expect("an address");
	let mut config = SolveConfig::new(dir.to_path_buf(), table_path());
	config.from_placed = FROM_PLACED;
	config.token = Some(TOKEN.into());
	let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
	let running = tokio::spawn(tigers_coordinator::solve::run(
		config,
		listener,
		async move {
			let _ = stopped.await;
		},
	));
	let mut anonymous = client(address, None).await;
	let refused = anonymous
		.solve
		.solve_work(v1::SolveWorkRequest { worker: "w".into() })
		.await
		.expect_err("no token");
	assert_eq!(refused.code(), Code::Unauthenticated);
	let mut client = client(address, Some(TOKEN)).await;
	let fetch = |placed, sha256: &str| v1::FetchLayerRequest {
		placed,
		tigers_to_move: true,
		sha256: sha256.into(),
	};
	let no_layer = client
		.solve
		.fetch_layer(fetch(25, ""))
		.await
		.expect_err("no layer");
	assert_eq!(no_layer.code(), Code::InvalidArgument, "{no_layer:?}");
	let not_here = client
		.solve
		.fetch_layer(fetch(18, "ab"))
		.await
		.expect_err("not solved");
	assert_eq!(not_here.code(), Code::NotFound, "{not_here:?}");
	let unnamed = client
		.solve
		.solve_work(v1::SolveWorkRequest {
			worker: String::new(),
		})
		.await
		.expect_err("no name");
	assert_eq!(unnamed.code(), Code::InvalidArgument);
	// A real task, then its values with one byte too many: refused, and the lease still good.
	let task = loop {
		let answer = client
			.solve
			.solve_work(v1::SolveWorkRequest { worker: "w".into() })
			.await
			.expect("work")
			.into_inner();
		if let Some(task) = answer.task {
			break task;
		}
		tokio::time::sleep(Duration::from_millis(100)).await;
	};
	let submit = |lease, length: u64| v1::SubmitSliceRequest {
		worker: "w".into(),
		lease,
		values: vec![0; length as usize],
	};
	let long = client
		.solve
		.submit_slice(submit(task.lease, task.bytes + 1))
		.await
		.expect_err("too long");
	assert_eq!(long.code(), Code::InvalidArgument, "{long:?}");
	let unknown = client
		.solve
		.submit_slice(submit(task.lease + 1_000_000, task.bytes))
		.await
		.expect_err("no such lease");
	assert_eq!(unknown.code(), Code::NotFound, "{unknown:?}");
	// A training call is no call of this server's, whatever the token: UNIMPLEMENTED, naming
	// the service it does serve.
	let training = anonymous
		.join(crate::common::join_request("w"))
		.await
		.expect_err("not a training run");
	assert_unserved(&training, "tigers.v1.Solve");
	// A solve's call as the builds before the split made it is refused as final.
	let old = old_solve_call(address).await;
	assert_eq!(old.code(), Code::FailedPrecondition, "{old:?}");
	assert!(old.message().contains("upgrade the worker"), "{old:?}");
	let shown = client
		.observe
		.status(v1::StatusRequest {})
		.await
		.expect("status")
		.into_inner()
		.placement_solve
		.expect("the solve's progress");
	assert_eq!(
		(shown.slices_done, shown.slices_in_flight),
		(0, 1),
		"{shown:?}"
	);
	assert_eq!(shown.layers, 2);
	// Dashboards follow the same progress.
	let mut watch = client
		.observe
		.watch_progress(v1::WatchRequest { interval_ms: 100 })
		.await
		.expect("a progress stream")
		.into_inner();
	let first = watch.message().await.expect("a snapshot").expect("one");
	assert_eq!(first.placement_solve.map(|p| p.layers), Some(2));
	drop(watch);
	let _ = stop.send(());
	running.await.expect("the task").expect("a clean stop");
	assert!(
		!dir.join(LayerId::solve_order(FROM_PLACED)[0].file_name())
			.exists(),
		"nothing was written"
	);

	// A coordinator that trains serves none of the solve's calls.
	let training_dir = temp_dir("solve-training");
	let training = start(test_config(training_dir.to_path_buf(), None)).await;
	let mut trainer = crate::common::client(training.address, None).await;
	let refused = trainer
		.solve
		.solve_work(v1::SolveWorkRequest { worker: "w".into() })
		.await
		.expect_err("not a solve");
	assert_unserved(&refused, "tigers.v1.Coordinator");
	training.stop().await;
	let _ = std::fs::remove_dir_all(&training_dir);
	let _ = std::fs::remove_dir_all(&dir);
}

/// Checks that `status` is the answer to a call the server does not serve, from a coordinator
/// whose own kind's service is `serves`.
fn assert_unserved(status: &tonic::Status, serves: &str) {
	assert_eq!(status.code(), Code::Unimplemented, "{status:?}");
	let named = status.metadata().get(tigers_proto::services::SERVES_KEY);
	assert_eq!(
		named.and_then(|value| value.to_str().ok()),
		Some(serves),
		"{status:?}"
	);
	assert!(status.message().contains(serves), "{status:?}");
}

/// `SolveWork` at the path of the builds before the split (`/tigers.v1.Coordinator/SolveWork`),
/// as their `worker solve` calls it, with the token.
async fn old_solve_call(address: std::net::SocketAddr) -> tonic::Status {
	use tonic::codegen::http::uri::PathAndQuery;
	let channel = tonic::transport::Channel::from_shared(format!("http://{address}"))
		.expect("a URL")
		.connect()
		.await
		.expect("a connection");
	let mut grpc = tonic::client::Grpc::new(channel);
	grpc.ready().await.expect("ready");
	let mut request = tonic::Request::new(v1::SolveWorkRequest { worker: "w".into() });
	request.metadata_mut().insert(
		"authorization",
		format!("Bearer {TOKEN}").parse().expect("a header"),
	);
	let codec =
		tigers_proto::codec::WireCodec::<v1::SolveWorkRequest, v1::SolveWorkResponse>::default();
	grpc.unary(
		request,
		PathAndQuery::from_static("/tigers.v1.Coordinator/SolveWork"),
		codec,
	)
	.await
	.expect_err("refused")
}

/// A worker started at the other kind of coordinator stops at its first call, with exit
/// status 1 and one sentence saying which kind it reached: `worker` at a coordinator that
/// solves, `worker solve` at one that trains.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_at_the_other_kind_of_coordinator_says_what_it_reached_and_stops() {
	table();
	let dir = temp_dir("solve-wrong-worker");
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
		.await
		.expect("a free port");
	let solving = listener.local_addr().expect("an address");
	let mut config = SolveConfig::new(dir.join("layers"), table_path());
	config.from_placed = FROM_PLACED;
	config.token = Some(TOKEN.into());
	let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
	let running = tokio::spawn(tigers_coordinator::solve::run(
		config,
		listener,
		async move {
			let _ = stopped.await;
		},
	));
	let training = start(test_config(dir.join("run"), None)).await;

	let mut trainer = Command::new(worker_binary());
	trainer
		.args(["--connect", &format!("http://{solving}")])
		.args(["--threads", "1", "--name", "trainer", "--no-tablebase"])
		.arg("--state-dir")
		.arg(dir.join("state"))
		.env("TIGERS_TOKEN", TOKEN);
	let said = stops_saying(&mut trainer, &dir.join("trainer.stderr")).await;
	assert!(
		said.contains(&format!(
			"the server at http://{solving} is a coordinator that solves the placement phase \
			 (`coordinator solve`), not a coordinator that trains (`coordinator serve`)"
		)),
		"{said}"
	);
	assert!(said.contains("run `worker solve`"), "{said}");

	let mut solver = Command::new(worker_binary());
	solver
		.args([
			"solve",
			"--connect",
			&format!("http://{}", training.address),
		])
		.args(["--threads", "1", "--name", "solver", "--tablebase"])
		.arg(table_path());
	let said = stops_saying(&mut solver, &dir.join("solver.stderr")).await;
	assert!(
		said.contains(&format!(
			"the server at http://{} is a coordinator that trains (`coordinator serve`), not a \
			 coordinator that solves the placement phase (`coordinator solve`)",
			training.address
		)),
		"{said}"
	);

	training.stop().await;
	let _ = stop.send(());
	running.await.expect("the task").expect("a clean stop");
	let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `command` with its standard error to `log` until it exits, which must be with status 1
/// within a minute; what it wrote there.
async fn stops_saying(command: &mut Command, log: &Path) -> String {
	let mut child = command
		.stdout(Stdio::null())
		.stderr(std::fs::File::create(log).expect("a log file"))
		.spawn()
		.expect("the worker starts");
	let status = tokio::task::spawn_blocking(move || {
		wait_until(Duration::from_secs(60), "the worker to stop", || {
			child.try_wait().unwrap().is_some()
		});
		child.wait().expect("an exit status")
	})
	.await
	.expect("the waiting task");
	let said = std::fs::read_to_string(log).expect("the worker's log");
	assert_eq!(status.code(), Some(1), "{said}");
	said
}

/// A solve that fails (here its first layer's kept slices cannot be kept: a file stands where
/// their directory goes) stops serving at once and returns the error, with no signal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_solve_stops_the_coordinator() {
	table();
	let dir = temp_dir("solve-failed");
	let first = LayerId::solve_order(FROM_PLACED)[0];
	let kept = dir.join(format!(
		"{}.partial",
		first.file_name().trim_end_matches(".tbp")
	));
	std::fs::create_dir_all(&dir).expect("the directory");
	std::fs::write(&kept, b"in the way").expect("a file in the way");
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
		.await
		.expect("a free port");
	let mut config = SolveConfig::new(dir.to_path_buf(), table_path());
	config.from_placed = FROM_PLACED;
	let running = tigers_coordinator::solve::run(config, listener, std::future::pending());
	let ended = tokio::time::timeout(Duration::from_secs(120), running)
		.await
		.expect("the coordinator stops by itself");
	let error = ended.expect_err("the solve failed").to_string();
	assert!(error.contains(".partial"), "{error}");
	let _ = std::fs::remove_dir_all(&dir);
}
