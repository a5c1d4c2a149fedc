//! The worker's Prometheus endpoint: a worker with `metrics_listen` answers scrapes over plain
//! HTTP with its production, spool and session figures, and stops answering when it stops.
//!
//! The recorder is global to the process, so one test serves metrics; the busy-address case is
//! a unit test of the endpoint.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::coordinator::{State, TestServer, net_file};
use crate::{PATIENCE, TempDir, Worker, config};

/// One scrape of `/metrics` with HTTP/1.1 over a plain socket: the body of a 200 answer.
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

/// The value of one series in a scrape.
fn value(text: &str, series: &str) -> Option<f64> {
	text.lines()
		.find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn a_scrape_shows_games_samples_spool_and_sessions() {
	let state = State::new(net_file(1, 3), 2);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("metrics");
	let address = std::net::TcpListener::bind("127.0.0.1:0")
		.and_then(|l| l.local_addr())
		.unwrap();
	let mut config = config(&server.url(), dir.path());
	config.metrics_listen = Some(address);
	let worker = Worker::start(config);
	state
		.wait_for("two stored batches", PATIENCE, |r| r.stored.len() >= 2)
		.await;

	// The figures are published once a second; games finished before the scrape are in it.
	let deadline = Instant::now() + PATIENCE;
	let text = loop {
		let text = scrape(address).await.unwrap_or_default();
		let games = value(&text, "tigers_worker_games_total").unwrap_or(0.0);
		if games >= 4.0 || Instant::now() > deadline {
			break text;
		}
		tokio::time::sleep(Duration::from_millis(100)).await;
	};
	assert!(
		value(&text, "tigers_worker_games_total") >= Some(4.0),
		"{text}"
	);
	assert!(
		value(&text, "tigers_worker_samples_total") > Some(0.0),
		"{text}"
	);
	assert!(
		value(&text, "tigers_worker_samples_per_second") > Some(0.0),
		"{text}"
	);
	assert_eq!(
		value(&text, "tigers_worker_sessions_total"),
		Some(1.0),
		"{text}"
	);
	assert_eq!(value(&text, "tigers_worker_connected"), Some(1.0), "{text}");
	assert_eq!(
		value(&text, "tigers_worker_generation"),
		Some(3.0),
		"{text}"
	);
	assert_eq!(
		value(&text, "tigers_worker_spool_capacity_batches"),
		Some(20.0),
		"{text}"
	);
	let spooled = value(&text, "tigers_worker_spool_batches").expect("the spool depth");
	assert!((0.0..=20.0).contains(&spooled), "{text}");

	// The endpoint goes away with the worker.
	worker.stop().await.unwrap();
	let deadline = Instant::now() + PATIENCE;
	while tokio::net::TcpStream::connect(address).await.is_ok() {
		assert!(
			Instant::now() < deadline,
			"the endpoint outlived its worker"
		);
		tokio::time::sleep(Duration::from_millis(50)).await;
	}
}
