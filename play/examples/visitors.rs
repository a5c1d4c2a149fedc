//! Visitors playing the net through the play API, as browsers on the play page do: GAMES games
//! at once, each from a loopback address of its own (127.0.0.2 and on, so that each has the
//! per-client bounds a real visitor has), the visitor playing a random legal move at once and
//! asking the net for its reply at MS milliseconds (`POST /api/v1/move`), a new game after each
//! end, for SECONDS. A 429 is waited out as its `Retry-After` says. Prints the net's moves a
//! second and the refusals.
//!
//! ```text
//! cargo run --release -p tigers-play --example visitors -- ADDR GAMES SECONDS MS [TOKEN]
//! ```
//!
//! docs/benchmarks.md measures a training run with and without them beside it.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::{Game, Position, Turn};
use tigers_testkit::http::request_from;

/// What all visitors counted.
#[derive(Default)]
struct Counts {
	moves: AtomicU64,
	refused: AtomicU64,
	games: AtomicU64,
}

/// One visitor: games against the net until `until`, the visitor playing the sheep in even
/// games and the tigers in odd ones.
async fn visit(
	address: SocketAddr,
	from: IpAddr,
	headers: Vec<String>,
	ms: u32,
	until: Instant,
	seed: u64,
	counts: Arc<Counts>,
) {
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
	let mut round = 0u64;
	while Instant::now() < until {
		let visitor = if round.is_multiple_of(2) {
			Turn::Sheep
		} else {
			Turn::Tiger
		};
		round += 1;
		let mut game = Game::new(Position::default());
		while !game.is_over() && Instant::now() < until {
			let legal = game.legal_moves();
			if game.position().turn == visitor {
				let mv = legal[rng.random_range(0..legal.len())];
				game.play(mv).expect("a legal move");
				continue;
			}
			let body = format!(
				"{{\"position\": \"{}\", \"player\": \"net\", \"ms\": {ms}}}",
				game.position()
			);
			let answer = request_from(from, address, "POST", "/api/v1/move", &headers, &body).await;
			match answer.status {
				200 => {
					let reply: serde_json::Value =
						serde_json::from_slice(&answer.body).expect("JSON");
					let text = reply["move"].as_str().expect("a move");
					game.play_text(text).expect("the net's move is legal");
					counts.moves.fetch_add(1, Ordering::Relaxed);
				}
				429 => {
					counts.refused.fetch_add(1, Ordering::Relaxed);
					let wait: u64 = answer
						.header("retry-after")
						.and_then(|s| s.parse().ok())
						.unwrap_or(1);
					tokio::time::sleep(Duration::from_secs(wait)).await;
				}
				other => panic!("the server answered {other}: {}", answer.text()),
			}
		}
		counts.games.fetch_add(1, Ordering::Relaxed);
	}
}

fn main() {
	let args: Vec<String> = std::env::args().skip(1).collect();
	if args.len() < 4 || args.iter().any(|a| a == "--help" || a == "-h") {
		println!(
			"usage: visitors ADDR GAMES SECONDS MS [TOKEN]\n\
			 GAMES visitors (1 to 250) play the net through the play API at ADDR, each from a \
			 loopback address of its own, the net at MS ms a move, for SECONDS."
		);
		return;
	}
	let address: SocketAddr = args[0].parse().expect("ADDR is host:port");
	let games: u8 = args[1].parse().expect("GAMES is 1 to 250");
	let seconds: u64 = args[2].parse().expect("SECONDS is a number");
	let ms: u32 = args[3].parse().expect("MS is a number");
	let headers: Vec<String> = args
		.get(4)
		.map(|token| vec![format!("Authorization: Bearer {token}")])
		.unwrap_or_default();
	let runtime = tokio::runtime::Builder::new_multi_thread()
		.enable_all()
		.build()
		.expect("a runtime");
	let counts = Arc::new(Counts::default());
	let started = Instant::now();
	let until = started + Duration::from_secs(seconds);
	runtime.block_on(async {
		let tasks: Vec<_> = (0..games)
			.map(|n| {
				let from = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + n));
				tokio::spawn(visit(
					address,
					from,
					headers.clone(),
					ms,
					until,
					u64::from(n),
					counts.clone(),
				))
			})
			.collect();
		for task in tasks {
			task.await.expect("a visitor");
		}
	});
	let elapsed = started.elapsed().as_secs_f64();
	println!(
		"visitors {games} seconds {elapsed:.0} net_moves {} net_moves/s {:.2} refused {} games {}",
		counts.moves.load(Ordering::Relaxed),
		counts.moves.load(Ordering::Relaxed) as f64 / elapsed,
		counts.refused.load(Ordering::Relaxed),
		counts.games.load(Ordering::Relaxed),
	);
}
