//! A coordinator serving TLS: a client trusting its certificate gets through, its local
//! worker, which trusts the coordinator's own certificate, delivers samples over TLS, its web
//! pages are served over TLS with the same certificate, and
//! `coordinator status --tls-ca` reads it. Also what `status` says when it cannot.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tigers_coordinator::{StatusError, fetch_status};
use tigers_proto::client::ClientSettings;
use tigers_proto::v1;
use tigers_proto::v1::observe_client::ObserveClient;
use tonic::transport::{Certificate, Channel, ClientTlsConfig};

use crate::common::{start, temp_dir, test_config};

/// The self-signed test certificate (for 127.0.0.1) that the worker's tests use too.
fn test_data(file: &str) -> PathBuf {
	PathBuf::from(env!("CARGO_MANIFEST_DIR"))
		.join("../worker/tests/data")
		.join(file)
}

async fn tls_client(
	port: u16,
	ca: &str,
) -> Result<ObserveClient<Channel>, tonic::transport::Error> {
	let pem = std::fs::read(test_data(ca)).expect("the test certificate");
	let tls = ClientTlsConfig::new()
		.ca_certificate(Certificate::from_pem(pem))
		.domain_name("127.0.0.1");
	let channel = Channel::from_shared(format!("https://127.0.0.1:{port}"))
		.expect("a URL")
		.tls_config(tls)?
		.connect()
		.await?;
	Ok(ObserveClient::new(channel))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_coordinator_serves_trusting_clients_and_its_local_worker() {
	let temp = temp_dir("tls");
	let mut config = test_config(temp.to_path_buf(), None);
	config.tls = Some((
		test_data("test-coordinator.pem"),
		test_data("test-coordinator.key"),
	));
	config.local_workers = 1;
	config.run.games_per_batch = 1;
	let pages = std::net::SocketAddr::from(([127, 0, 0, 1], tigers_testkit::free_port()));
	config.http_listen = Some(pages);
	let running = start(config).await;
	let port = running.address.port();

	// A client that trusts another certificate cannot talk to it.
	let refused = match tls_client(port, "unrelated-ca.pem").await {
		Err(_) => true,
		Ok(mut client) => client.status(v1::StatusRequest {}).await.is_err(),
	};
	assert!(refused, "a client trusting another certificate got through");

	let mut client = tls_client(port, "test-coordinator.pem")
		.await
		.expect("a TLS connection");
	let deadline = Instant::now() + Duration::from_secs(60);
	loop {
		let status = client
			.status(v1::StatusRequest {})
			.await
			.expect("status over TLS")
			.into_inner();
		if status.samples_total > 0 {
			assert!(status.workers.iter().any(|w| w.name == "local-0"));
			break;
		}
		assert!(
			Instant::now() < deadline,
			"no samples from the local worker over TLS: {status:?}"
		);
		tokio::time::sleep(Duration::from_millis(200)).await;
	}
	// The web pages are served over TLS with the same certificate.
	let page = tigers_testkit::http::request_tls(
		pages,
		&test_data("test-coordinator.pem"),
		"GET",
		"/api/status",
		&[],
		"",
	)
	.await
	.expect("the pages over TLS");
	assert_eq!(page.status, 200, "{}", page.text());
	assert!(page.text().contains("samples_total"), "{}", page.text());
	running.stop().await;
}

/// Runs the `coordinator` binary with `args` and returns its exit code, stdout and stderr.
fn coordinator_binary(args: &[&str]) -> (Option<i32>, String, String) {
	let output = std::process::Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.args(args)
		.env_remove("TIGERS_TOKEN")
		.output()
		.expect("the coordinator binary runs");
	(
		output.status.code(),
		String::from_utf8_lossy(&output.stdout).into_owned(),
		String::from_utf8_lossy(&output.stderr).into_owned(),
	)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_reaches_a_tls_coordinator_given_its_certificate() {
	let temp = temp_dir("tls-status");
	let mut config = test_config(temp.to_path_buf(), Some("s3cret"));
	config.tls = Some((
		test_data("test-coordinator.pem"),
		test_data("test-coordinator.key"),
	));
	let running = start(config).await;
	let url = format!("https://127.0.0.1:{}", running.address.port());
	let trusting = ClientSettings {
		token: Some("s3cret".into()),
		tls_ca: Some(test_data("test-coordinator.pem")),
	};
	let progress = fetch_status(&url, &trusting)
		.await
		.expect("status over TLS");
	assert!(!progress.run_name.is_empty());

	// Without a certificate to trust, the settings say what is missing.
	let untrusting = ClientSettings {
		tls_ca: None,
		..trusting.clone()
	};
	let error = fetch_status(&url, &untrusting).await.unwrap_err();
	assert!(matches!(error, StatusError::Settings { .. }), "{error:?}");
	assert!(error.to_string().contains("--tls-ca"), "{error}");
	// Trusting another certificate, the connection fails, and its sources say why.
	let wrong = ClientSettings {
		tls_ca: Some(test_data("unrelated-ca.pem")),
		..trusting.clone()
	};
	let error = fetch_status(&url, &wrong).await.unwrap_err();
	let chain = tigers_proto::client::error_chain(&error);
	assert!(chain.contains("certificate"), "{chain}");

	// The binary: --tls-ca works, and a refusal prints the coordinator's reason.
	let pem = test_data("test-coordinator.pem");
	let pem = pem.to_str().expect("a UTF-8 path");
	let args = [
		"status",
		"--connect",
		&url,
		"--tls-ca",
		pem,
		"--token",
		"s3cret",
	];
	let (code, stdout, stderr) = coordinator_binary(&args);
	assert_eq!(code, Some(0), "{stderr}");
	let json: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
	assert_eq!(json["run"], progress.run_name.as_str());
	let args = [
		"status",
		"--connect",
		&url,
		"--tls-ca",
		pem,
		"--token",
		"wrong",
	];
	let (code, _, stderr) = coordinator_binary(&args);
	assert_eq!(code, Some(1), "{stderr}");
	assert!(stderr.contains("Unauthenticated"), "{stderr}");
	running.stop().await;
}

#[test]
fn status_prints_why_it_cannot_reach_a_coordinator() {
	// A port that was free a moment ago: nothing listens there.
	let port = std::net::TcpListener::bind("127.0.0.1:0")
		.and_then(|listener| listener.local_addr())
		.expect("a free port")
		.port();
	let url = format!("http://127.0.0.1:{port}");
	let (code, stdout, stderr) = coordinator_binary(&["status", "--connect", &url]);
	assert_eq!(code, Some(1), "{stderr}");
	assert!(stdout.is_empty(), "{stdout}");
	// Not only "transport error": the cause the transport keeps further down.
	assert!(stderr.contains(&format!("cannot reach {url}")), "{stderr}");
	assert!(
		stderr.to_lowercase().contains("connection refused"),
		"{stderr}"
	);
}

/// A client of the coordinator on `port` trusting the PEM file at `ca`.
async fn client_trusting(port: u16, ca: &std::path::Path) -> ObserveClient<Channel> {
	let tls = ClientTlsConfig::new()
		.ca_certificate(Certificate::from_pem(std::fs::read(ca).expect("the CA")))
		.domain_name("127.0.0.1");
	let channel = Channel::from_shared(format!("https://127.0.0.1:{port}"))
		.expect("a URL")
		.tls_config(tls)
		.expect("TLS settings")
		.connect()
		.await
		.expect("a TLS connection");
	ObserveClient::new(channel)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificates_from_coordinator_tls_carry_a_worker_binary_and_a_ca_as_its_own_is_refused() {
	let temp = temp_dir("tls-made");
	let certs = temp.join("certs");
	let dir = certs.to_str().expect("a UTF-8 path");
	let (code, stdout, stderr) = coordinator_binary(&[
		"tls",
		"--out",
		dir,
		"--host",
		"127.0.0.1",
		"--host",
		"localhost",
	]);
	assert_eq!(code, Some(0), "{stderr}");
	assert!(
		stdout.contains("--tls-ca") && stdout.contains("ca.pem"),
		"{stdout}"
	);
	// Run again, it replaces nothing.
	let (code, _, stderr) = coordinator_binary(&["tls", "--out", dir, "--host", "127.0.0.1"]);
	assert_eq!(code, Some(1), "{stderr}");
	assert!(stderr.contains("exists"), "{stderr}");

	// The CA served as the coordinator's own: refused before serving, saying what to do.
	let mut config = test_config(temp.join("run-ca"), None);
	config.tls = Some((certs.join("ca.pem"), certs.join("ca.key")));
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
	let error = tigers_coordinator::server::run(config, listener, std::future::pending::<()>())
		.await
		.expect_err("a CA certificate is not served");
	let said = error.to_string();
	assert!(said.contains("is a CA certificate"), "{said}");
	assert!(
		said.contains("coordinator tls --out DIR --host NAME"),
		"{said}"
	);

	// The coordinator's certificate, signed by the CA: a real worker trusting the CA delivers,
	// and so it does with the files of the openssl recipe in docs/deploy.md.
	worker_delivers_over_tls(&temp.join("made"), &certs).await;
	let recipe = temp.join("openssl");
	let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/tls/openssl.sh");
	let made = std::process::Command::new("bash")
		.arg(script)
		.arg(&recipe)
		.args(["coordinator.example.org", "127.0.0.1"])
		.output()
		.expect("bash runs the recipe");
	assert!(
		made.status.success(),
		"{}",
		String::from_utf8_lossy(&made.stderr)
	);
	worker_delivers_over_tls(&temp.join("recipe"), &recipe).await;
}

/// Serves a run from `dir` with `certs`' coordinator certificate and waits until a worker
/// binary trusting `certs`' CA has delivered samples.
async fn worker_delivers_over_tls(dir: &std::path::Path, certs: &std::path::Path) {
	let mut config = test_config(dir.join("run"), None);
	config.tls = Some((certs.join("coordinator.pem"), certs.join("coordinator.key")));
	let running = start(config).await;
	let port = running.address.port();
	let mut worker = std::process::Command::new(crate::cluster::worker_binary())
		.arg("--connect")
		.arg(format!("https://127.0.0.1:{port}"))
		.arg("--tls-ca")
		.arg(certs.join("ca.pem"))
		.args(["--threads", "1", "--name", "tls-worker", "--no-tablebase"])
		.arg("--state-dir")
		.arg(dir.join("worker"))
		.stdout(std::process::Stdio::null())
		.stderr(std::fs::File::create(dir.join("worker.stderr")).unwrap())
		.spawn()
		.expect("the worker starts");
	let mut client = client_trusting(port, &certs.join("ca.pem")).await;
	let deadline = Instant::now() + Duration::from_secs(60);
	loop {
		let status = client
			.status(v1::StatusRequest {})
			.await
			.expect("status over TLS")
			.into_inner();
		if status
			.workers
			.iter()
			.any(|w| w.name == "tls-worker" && w.samples > 0)
		{
			break;
		}
		let log = std::fs::read_to_string(dir.join("worker.stderr")).unwrap_or_default();
		assert!(
			Instant::now() < deadline,
			"no samples from the worker over TLS: {log}"
		);
		tokio::time::sleep(Duration::from_millis(200)).await;
	}
	let _ = worker.kill();
	let _ = worker.wait();
	running.stop().await;
}
