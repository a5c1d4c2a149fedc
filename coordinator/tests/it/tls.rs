//! A coordinator serving TLS: a client trusting its certificate gets through, and its local
//! worker, which trusts the coordinator's own certificate, delivers samples over TLS.

use std::path::PathBuf;
use std::time::{Duration, Instant};

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
	let mut config = test_config(temp_dir("tls"), None);
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
