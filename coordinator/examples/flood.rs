//! What one token holder can pile up on a running coordinator, measured: joins under ever new
//! worker identities for a while, then progress streams held open, with `Status` timed all
//! along. The coordinator's memory and its ledger's size are read from outside
//! (docs/benchmarks.md, "Floods").
//!
//! ```text
//! cargo run --release -p tigers-coordinator --example flood -- URL SECONDS WATCHERS [TOKEN]
//! ```
//!
//! `--help` explains each argument.
//!
//! Prints one line every 30 s of the join flood (joins taken and refused so far, the slowest
//! `Status` in the period), then the streams opened and refused, and `Status` beside them. The
//! streams are never read, as a client that opens them and stalls would do, and are held for
//! 20 s, or for `FLOOD_HOLD_SECONDS` when that is set.

use std::time::{Duration, Instant};

use clap::Parser;
use tigers_proto::client::{ClientSettings, Connector};
use tigers_proto::v1;
use tonic::Code;

/// Joins in flight at once on the flood's one connection.
const AT_ONCE: usize = 64;

/// Progress streams asked for on each connection: more than the default limit on one (16), so
/// that both limits are met.
const STREAMS_PER_CONNECTION: usize = 20;

/// How long the streams are held once open: `FLOOD_HOLD_SECONDS`, or 20 s.
fn hold() -> Duration {
	let seconds = std::env::var("FLOOD_HOLD_SECONDS")
		.ok()
		.and_then(|text| text.parse().ok());
	Duration::from_secs(seconds.unwrap_or(20))
}

/// Any failure, said once by `main`.
type Failure = Box<dyn std::error::Error>;

/// Floods a running coordinator with joins under new identities, then with progress streams
/// held open, timing `Status` all along.
#[derive(Parser)]
#[command(name = "flood")]
struct Options {
	/// The coordinator: http://host:port or https://host:port.
	url: String,
	/// How long to flood it with joins, in seconds.
	seconds: u64,
	/// Progress streams to open once the joins are over.
	watchers: usize,
	/// The run's token.
	token: Option<String>,
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
	let options = Options::parse();
	let settings = ClientSettings {
		token: options.token,
		tls_ca: None,
	};
	let connector = Connector::new(&options.url, &settings, Duration::from_secs(5))?;
	join_flood(&connector, Duration::from_secs(options.seconds)).await?;
	watch_flood(&connector, options.watchers).await
}

/// Joins under new identities, [`AT_ONCE`] at a time on one connection, for `length`.
async fn join_flood(connector: &Connector, length: Duration) -> Result<(), Failure> {
	let flooding = connector.connect_training().await?;
	let mut asking = connector.connect_observing().await?;
	let prefix = format!("flood-{}", std::process::id());
	let started = Instant::now();
	let (mut taken, mut refused, mut other) = (0u64, 0u64, 0u64);
	let mut slowest = Duration::ZERO;
	let mut next_line = Duration::from_secs(30);
	let mut n = 0u64;
	while started.elapsed() < length {
		let calls: Vec<_> = (0..AT_ONCE)
			.map(|_| {
				n += 1;
				let mut client = flooding.clone();
				let join = join_request(&format!("{prefix}-{n}"));
				tokio::spawn(async move { client.join(join).await })
			})
			.collect();
		for call in calls {
			match call.await? {
				Ok(_) => taken += 1,
				Err(status) if status.code() == Code::ResourceExhausted => refused += 1,
				Err(_) => other += 1,
			}
		}
		let asked = Instant::now();
		asking.status(v1::StatusRequest {}).await?;
		slowest = slowest.max(asked.elapsed());
		if started.elapsed() >= next_line {
			println!(
				"joins {:>4.0} s: taken {taken} refused {refused} other errors {other} \
				 slowest status {:.1} ms",
				started.elapsed().as_secs_f64(),
				slowest.as_secs_f64() * 1000.0
			);
			slowest = Duration::ZERO;
			next_line += Duration::from_secs(30);
		}
	}
	println!(
		"join flood over {:.0} s: {} joins, taken {taken}, refused {refused}, other errors {other}",
		started.elapsed().as_secs_f64(),
		taken + refused + other
	);
	Ok(())
}

/// Opens `count` progress streams, [`STREAMS_PER_CONNECTION`] a connection, holds them, and
/// times `Status` beside them.
async fn watch_flood(connector: &Connector, count: usize) -> Result<(), Failure> {
	let mut open = Vec::new();
	let (mut refused, mut other) = (0usize, 0usize);
	let mut connection = connector.connect_observing().await?;
	for asked in 0..count {
		if asked % STREAMS_PER_CONNECTION == 0 {
			connection = connector.connect_observing().await?;
		}
		match connection
			.watch_progress(v1::WatchRequest { interval_ms: 1000 })
			.await
		{
			Ok(stream) => open.push(stream.into_inner()),
			Err(status) if status.code() == Code::ResourceExhausted => refused += 1,
			Err(_) => other += 1,
		}
	}
	let mut asking = connector.connect_observing().await?;
	let mut times = Vec::new();
	for _ in 0..10 {
		let asked = Instant::now();
		asking.status(v1::StatusRequest {}).await?;
		times.push(asked.elapsed());
		tokio::time::sleep(Duration::from_millis(500)).await;
	}
	times.sort();
	println!(
		"watchers: asked {count}, open {}, refused {refused}, other errors {other}; status \
		 beside them: median {:.1} ms, slowest {:.1} ms",
		open.len(),
		times[times.len() / 2].as_secs_f64() * 1000.0,
		times[times.len() - 1].as_secs_f64() * 1000.0
	);
	// Held a little longer, for the coordinator's memory to be read meanwhile.
	println!("holding the streams for {} s", hold().as_secs());
	tokio::time::sleep(hold()).await;
	drop(open);
	Ok(())
}

/// A worker's join under `worker_id`, of this build's protocol.
fn join_request(worker_id: &str) -> v1::JoinRequest {
	v1::JoinRequest {
		worker_id: worker_id.to_string(),
		name: worker_id.to_string(),
		host: "flood".into(),
		threads: 1,
		build_version: env!("CARGO_PKG_VERSION").to_string(),
		input_version: tigers_core::network::Encoding::NEWEST.version(),
		worker_secret: String::new(),
		loadtest: false,
		protocol_version: tigers_proto::PROTOCOL_VERSION,
		instance: worker_id.to_string(),
	}
}
