//! The Prometheus endpoint: a coordinator with `metrics_listen` answers scrapes over plain HTTP
//! with the run's figures, and a busy address is a clear error from the library and the binary.
//!
//! The recorder is global to the process, so every assertion about served figures sits in one
//! test; the others fail before anything is installed.

use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

use tigers_coordinator::MetricsError;
use tigers_coordinator::error::CoordinatorError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::*;

/// A loopback address that was free a moment ago.
fn free_address() -> SocketAddr {
	SocketAddr::from(([127, 0, 0, 1], free_port()))
}

/// One scrape of `/metrics`, with HTTP/1.1 over a plain socket: the body if the answer is 200.
async fn scrape(address: SocketAddr) -> std::io::Result<String> {
	let mut stream = tokio::net::TcpStream::connect(address).await?;
	let request = format!("GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
	stream.write_all(request.as_bytes()).await?;
	let mut answer = String::new();
	stream.read_to_string(&mut answer).await?;
	let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
	assert!(head.starts_with("HTTP/1.1 200"), "{head}");
	Ok(body.to_string())
}

/// The value of one series (name with its labels, as printed) in a scrape.
fn value(text: &str, series: &str) -> Option<f64> {
	text.lines()
		.find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Scrapes until `done` holds for the text, which the coordinator publishes once a second.
async fn scrape_until(address: SocketAddr, done: impl Fn(&str) -> bool) -> String {
	let deadline = Instant::now() + WAIT;
	loop {
		let text = scrape(address).await.unwrap_or_default();
		if done(&text) || Instant::now() > deadline {
			return text;
		}
		tokio::time::sleep(Duration::from_millis(100)).await;
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scrape_shows_samples_refusals_duplicates_and_ingest_times() {
	let metrics_address = free_address();
	let temp = temp_dir("metrics");
	let mut config = test_config(temp.to_path_buf(), None);
	config.metrics_listen = Some(metrics_address);
	let window = config.run.training.window;
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "m1").await;
	let (sender, mut inbound, _) = session(&mut client, "m1", &secret).await;

	// One good batch, the same again, then a malformed one that ends the session.
	let batch = real_batch(1, 0, 11);
	let count = batch.samples.len() as f64;
	sender.send(batch_message(batch.clone())).await.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	sender.send(batch_message(batch)).await.unwrap();
	assert!(!next_ack(&mut inbound).await.unwrap().accepted);
	let mut bad = real_batch(2, 0, 12);
	bad.samples[0].tigers = 0b11111; // five tigers
	sender.send(batch_message(bad)).await.unwrap();
	assert!(next_ack(&mut inbound).await.is_err());

	let text = scrape_until(metrics_address, |text| {
		value(text, "tigers_batches_rejected_total{reason=\"sample\"}") == Some(1.0)
			&& value(text, "tigers_workers_connected") == Some(0.0)
	})
	.await;
	let expected = [
		("tigers_samples_total", count),
		("tigers_games_total", 1.0),
		("tigers_batches_duplicate_total", 1.0),
		("tigers_batches_rejected_total{reason=\"sample\"}", 1.0),
		("tigers_batches_rejected_total{reason=\"sequence\"}", 0.0),
		("tigers_gates_total{result=\"promoted\"}", 0.0),
		("tigers_generation", 0.0),
		("tigers_window_capacity_samples", window as f64),
		("tigers_workers_connected", 0.0),
		("tigers_workers_known", 1.0),
	];
	for (series, wanted) in expected {
		assert_eq!(value(&text, series), Some(wanted), "{series} in\n{text}");
	}
	assert!(
		text.contains("# TYPE tigers_ingest_seconds histogram"),
		"{text}"
	);
	// Every outcome of the web login is listed from the start (other tests in this process
	// may have counted some).
	for outcome in ["accepted", "wrong", "throttled"] {
		let series = format!("tigers_web_logins_total{{outcome=\"{outcome}\"}}");
		assert!(value(&text, &series).is_some(), "{series} in\n{text}");
	}
	// Other tests' coordinators in this process record ingest times too, hence at least.
	let timed = value(&text, "tigers_ingest_seconds_count").unwrap_or(0.0);
	assert!(timed >= 3.0, "{timed} batches timed in\n{text}");

	// A second endpoint in the same process is refused: the recorder is already installed.
	let temp = temp_dir("metrics-second");
	let mut second = test_config(temp.to_path_buf(), None);
	second.metrics_listen = Some(free_address());
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
	let refused = tigers_coordinator::server::run(second, listener, std::future::pending()).await;
	assert!(
		matches!(
			refused,
			Err(CoordinatorError::Metrics(MetricsError::AlreadyInstalled))
		),
		"{refused:?}"
	);

	// Stopping the coordinator closes the endpoint.
	drop(sender);
	running.stop().await;
	let deadline = Instant::now() + WAIT;
	while tokio::net::TcpStream::connect(metrics_address)
		.await
		.is_ok()
	{
		assert!(
			Instant::now() < deadline,
			"the endpoint outlived its coordinator"
		);
		tokio::time::sleep(Duration::from_millis(50)).await;
	}
}

#[tokio::test]
async fn a_busy_metrics_address_fails_before_the_run_is_opened() {
	let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
	let address = taken.local_addr().unwrap();
	let run_dir = temp_dir("metrics-busy");
	let mut config = test_config(run_dir.to_path_buf(), None);
	config.metrics_listen = Some(address);
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
	let result = tigers_coordinator::server::run(config, listener, std::future::pending()).await;
	let Err(error) = result else {
		panic!("a busy metrics address was accepted")
	};
	assert!(
		matches!(error, CoordinatorError::Metrics(MetricsError::Bind { .. })),
		"{error:?}"
	);
	assert!(error.to_string().contains(&address.to_string()), "{error}");
	assert!(!run_dir.exists(), "the run was opened");
}

#[test]
fn the_binary_exits_with_an_error_naming_a_busy_metrics_address() {
	let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
	let address = taken.local_addr().unwrap().to_string();
	let temp = temp_dir("metrics-binary");
	let output = Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.args(["--listen", "127.0.0.1:0", "--metrics-listen", &address])
		.arg("--run-dir")
		.arg(&temp)
		.output()
		.expect("the coordinator runs");
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(1), "{stderr}");
	assert!(
		stderr.contains(&format!("cannot serve metrics on {address}")),
		"{stderr}"
	);
}

#[test]
fn the_binary_refuses_open_metrics_for_a_run_without_a_token() {
	let temp = temp_dir("metrics-open");
	let output = Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.args([
			"--listen",
			"127.0.0.1:0",
			"--metrics-listen",
			"0.0.0.0:0",
			"--headless",
		])
		.arg("--run-dir")
		.arg(&temp)
		.env_remove("TIGERS_TOKEN")
		.output()
		.expect("the coordinator runs");
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(2), "{stderr}");
	assert!(
		stderr.contains("refusing to serve metrics on 0.0.0.0:0"),
		"{stderr}"
	);
}
