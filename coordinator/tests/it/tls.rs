//! A coordinator serving TLS: a client trusting its certificate gets through, its local
//! worker, which trusts the coordinator's own certificate, delivers samples over TLS, and
//! `coordinator status --tls-ca` reads it. Also what `status` says when it cannot.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tigers_coordinator::{StatusError, fetch_status};
use tigers_proto::client::ClientSettings;
use tigers_proto::v1;
use tigers_proto::v1::coordinator_client::CoordinatorClient;
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
) -> Result<CoordinatorClient<Channel>, tonic::transport::Error> {
	let pem = std::fs::read(test_data(ca)).expect("the test certificate");
	let tls = ClientTlsConfig::new()
		.ca_certificate(Certificate::from_pem(pem))
		.domain_name("127.0.0.1");
	let channel = Channel::from_shared(format!("https://127.0.0.1:{port}"))
		.expect("a URL")
		.tls_config(tls)?
		.connect()
		.await?;
	Ok(CoordinatorClient::new(channel))
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
