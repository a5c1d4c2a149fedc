//! The API's latency from many clients at once: `GET /api/v1/position` of random positions,
//! each answered with every move's exact value, from CLIENTS concurrent connections, in the
//! movement phase and in the placement phase (its layers read from disk; a layer's blocks are
//! not cached between probes). Prints the percentiles of each phase.
//!
//! ```text
//! cargo run --release -p tigers-play --example api-latency -- [CLIENTS] [REQUESTS_EACH] [--keep-alive]
//! ```
//!
//! Each request comes on a connection of its own, or with `--keep-alive` each client sends all
//! of its requests on one connection, as a browser does.
//!
//! It needs the movement table and the placement layers at their default paths
//! (`tui tablebase build`, `tui tablebase build --placement`); a phase whose table is missing
//! is skipped with a line saying so.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::analysis::Tables;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::{Game, Position, Tablebase};
use tigers_play::limits::Limits;
use tigers_play::{Fixed, Server, query};
use tigers_process::locations;
use tigers_testkit::http::get;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Random positions of one phase: the movement table's entries, or random placements.
fn positions(table: &Tablebase, placement: bool, count: usize, seed: u64) -> Vec<String> {
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
	let mut found = Vec::with_capacity(count);
	while found.len() < count {
		if !placement {
			let (position, _) = table.entry(rng.random_range(0..table.len()));
			found.push(position.to_string());
			continue;
		}
		// A game of random moves, stopped at a random ply of the placement phase.
		let mut game = Game::new(Position::default());
		let stop = rng.random_range(1..39);
		while game.history().len() < stop && !game.is_over() {
			let legal = game.legal_moves();
			let mv = legal[rng.random_range(0..legal.len())];
			game.play(mv).expect("a legal move");
		}
		if game.board().sheep_in_hand() > 0 && !game.is_over() {
			found.push(game.position().to_string());
		}
	}
	found
}

/// The `q`th quantile of sorted durations.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
	sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// One client on one kept-alive connection: each request's time to its whole answer.
async fn keep_alive(address: SocketAddr, positions: &[String]) -> Vec<Duration> {
	let mut stream = tokio::net::TcpStream::connect(address)
		.await
		.expect("a connection");
	stream.set_nodelay(true).expect("no delay");
	let mut times = Vec::with_capacity(positions.len());
	let mut buffer = Vec::new();
	let mut chunk = [0u8; 16384];
	for position in positions {
		let path = format!("/api/v1/position?position={}", query::encode(position));
		let asked = Instant::now();
		let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n");
		stream
			.write_all(request.as_bytes())
			.await
			.expect("the request is sent");
		buffer.clear();
		loop {
			let read = stream.read(&mut chunk).await.expect("the answer is read");
			assert!(read > 0, "the server closed a kept-alive connection");
			buffer.extend_from_slice(&chunk[..read]);
			let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") else {
				continue;
			};
			let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
			assert!(head.starts_with("http/1.1 200"), "{position}: {head}");
			let length: usize = head
				.lines()
				.find_map(|line| line.strip_prefix("content-length:")?.trim().parse().ok())
				.expect("a length");
			if buffer.len() >= end + 4 + length {
				break;
			}
		}
		times.push(asked.elapsed());
	}
	times
}

async fn phase(
	address: SocketAddr,
	name: &str,
	all: Vec<String>,
	clients: usize,
	kept_alive: bool,
) {
	let per = all.len() / clients;
	let all = Arc::new(all);
	let started = Instant::now();
	let mut tasks = Vec::new();
	for client in 0..clients {
		let all = all.clone();
		tasks.push(tokio::spawn(async move {
			let mine = &all[client * per..(client + 1) * per];
			if kept_alive {
				return keep_alive(address, mine).await;
			}
			let mut times = Vec::with_capacity(per);
			for position in mine {
				let path = format!("/api/v1/position?position={}", query::encode(position));
				let asked = Instant::now();
				let answer = get(address, &path, &[]).await;
				assert_eq!(answer.status, 200, "{position}: {}", answer.text());
				times.push(asked.elapsed());
			}
			times
		}));
	}
	let mut times = Vec::new();
	for task in tasks {
		times.extend(task.await.expect("a client"));
	}
	let wall = started.elapsed();
	times.sort();
	let connections = if kept_alive {
		"a kept-alive connection each"
	} else {
		"a connection a request"
	};
	println!(
		"{name} ({connections}): {} requests from {clients} clients in {:.2} s ({:.0} a second): p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
		times.len(),
		wall.as_secs_f64(),
		times.len() as f64 / wall.as_secs_f64(),
		quantile(&times, 0.5).as_secs_f64() * 1e3,
		quantile(&times, 0.9).as_secs_f64() * 1e3,
		quantile(&times, 0.99).as_secs_f64() * 1e3,
		times[times.len() - 1].as_secs_f64() * 1e3,
	);
}

/// The usage line `--help` prints.
const USAGE: &str = "usage: api-latency [CLIENTS] [REQUESTS_EACH] [--keep-alive]   (50 and 40 by default)\n\
	Serves the play API with the tables at their default paths and prints the percentiles of\n\
	GET /api/v1/position from CLIENTS concurrent clients, in each phase: each request on a new\n\
	connection, or with --keep-alive each client's requests on one connection, as a browser's.";

fn main() {
	if std::env::args().skip(1).any(|a| a == "--help" || a == "-h") {
		println!("{USAGE}");
		return;
	}
	let kept_alive = std::env::args().any(|a| a == "--keep-alive");
	let mut args = std::env::args().skip(1).filter(|a| a != "--keep-alive");
	let clients: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
	let each: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(40);
	let movement = locations::tablebase_path(None)
		.ok()
		.and_then(|path| Tablebase::read(&path).ok())
		.map(Arc::new);
	let placement = locations::placement_dir(None)
		.ok()
		.and_then(|dir| PlacementTable::open(&dir).ok())
		.map(Arc::new);
	let runtime = tokio::runtime::Builder::new_multi_thread()
		.enable_all()
		.build()
		.expect("a runtime");
	runtime.block_on(async move {
		let Some(table) = movement.clone() else {
			println!("no movement table at its default path: nothing to measure");
			return;
		};
		let limits = Limits {
			lookups_per_s: 1_000_000,
			..Limits::default()
		};
		let server = Server::new(
			Fixed {
				tables: Tables {
					movement: movement.clone(),
					placement: placement.clone(),
				},
				net: None,
			},
			limits,
		);
		let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
			.await
			.expect("a port");
		let address = listener.local_addr().expect("its address");
		tokio::spawn(tigers_play::serve(
			tigers_play::listen::Listening::Plain(listener),
			server,
			tigers_play::access::Access::new(tigers_play::access::AccessSettings::default()),
			std::future::pending(),
		));
		let count = clients * each;
		phase(
			address,
			"movement",
			positions(&table, false, count, 1),
			clients,
			kept_alive,
		)
		.await;
		match &placement {
			Some(layers) if layers.is_complete() => {
				phase(
					address,
					"placement",
					positions(&table, true, count, 2),
					clients,
					kept_alive,
				)
				.await;
			}
			_ => println!("placement: skipped, not every placement layer is at its default path"),
		}
	});
}
