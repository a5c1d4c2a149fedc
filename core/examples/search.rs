//! Searches one position to a fixed depth and prints the report with nodes per second; or, with
//! `--random N`, searches the positions of N seeded random games and prints the totals.
//!
//! `cargo run --release -p tigers-core --example search -- DEPTH [--position TEXT | --random N]
//! [--net FILE | --fresh-net SEED]`
//!
//! Without `--net` or `--fresh-net` the player is `ClaudePlayer`; with either, `NeuralPlayer`
//! with the same table size, so the two can be compared at equal depth. With `--random`, each
//! position is one from a game of 0 to 59 random plies (seed 7, the same for every run), the
//! player is cleared before each search, and only the searches are timed.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::claude::DEFAULT_TABLE_BITS;
use tigers_core::network::Shape;
use tigers_core::search::SearchSettings;
use tigers_core::{
	ClaudePlayer, GameBoard, MinimaxPlayer, Network, NeuralPlayer, Position, SearchReport, Turn,
};

struct Options {
	depth: u32,
	position: Position,
	random: Option<usize>,
	net: Option<Network>,
}

fn parse(args: &[String]) -> Result<Options, String> {
	let depth = args
		.first()
		.and_then(|d| d.parse().ok())
		.ok_or("the first argument is DEPTH")?;
	let mut options = Options {
		depth,
		position: Position::default(),
		random: None,
		net: None,
	};
	for pair in args[1..].chunks(2) {
		let [flag, value] = pair else {
			return Err(format!("{} needs a value", pair[0]));
		};
		match flag.as_str() {
			"--position" => options.position = value.parse().map_err(|e| format!("{e}"))?,
			"--random" => options.random = Some(value.parse().map_err(|_| "bad --random count")?),
			"--net" => {
				let net = Network::load(value.as_ref()).map_err(|e| format!("{e}"))?;
				options.net = Some(net);
			}
			"--fresh-net" => {
				let seed = value.parse().map_err(|_| "bad --fresh-net seed")?;
				options.net = Some(Network::new(Shape::default(), seed));
			}
			other => return Err(format!("unknown option {other}")),
		}
	}
	Ok(options)
}

/// `count` positions, each after 0 to 59 random plies of its own game, none of them over.
fn random_positions(count: usize) -> Vec<Position> {
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
	let mut positions = Vec::with_capacity(count);
	while positions.len() < count {
		let (mut board, mut turn) = (GameBoard::default(), Turn::Sheep);
		for _ in 0..rng.random_range(0..60) {
			let moves = board.get_moves(turn);
			if moves.is_empty() || board.outcome(turn).is_some() {
				break;
			}
			board.make_move_unchecked(moves[rng.random_range(0..moves.len())]);
			turn = turn.opponent();
		}
		if board.outcome(turn).is_none() && !board.get_moves(turn).is_empty() {
			positions.push(Position { board, turn });
		}
	}
	positions
}

/// Searches every position with a cleared player; returns the nodes and the searching time.
fn search_all<P: MinimaxPlayer>(player: &mut P, positions: &[Position]) -> (u64, Duration) {
	let (mut nodes, mut time) = (0, Duration::ZERO);
	for p in positions {
		player.new_game();
		let start = Instant::now();
		let report = player.pick_move(p.board, p.turn, &[]);
		time += start.elapsed();
		nodes += report.expect("the positions have moves").nodes;
	}
	(nodes, time)
}

fn main() -> ExitCode {
	let args: Vec<String> = std::env::args().skip(1).collect();
	let options = match parse(&args) {
		Ok(options) => options,
		Err(error) => {
			eprintln!(
				"{error}\nusage: search DEPTH [--position TEXT | --random N] \
				 [--net FILE | --fresh-net SEED]"
			);
			return ExitCode::from(2);
		}
	};
	let settings = SearchSettings::fixed_depth(options.depth);
	if let Some(count) = options.random {
		let positions = random_positions(count);
		let (nodes, time) = match options.net {
			None => search_all(&mut ClaudePlayer::with_settings(settings), &positions),
			Some(net) => search_all(
				&mut NeuralPlayer::with_net(Arc::new(net), settings, DEFAULT_TABLE_BITS),
				&positions,
			),
		};
		let seconds = time.as_secs_f64();
		println!(
			"positions {count} depth {} nodes {nodes} time {seconds:.3}s nps {:.0}",
			options.depth,
			nodes as f64 / seconds
		);
		return ExitCode::SUCCESS;
	}
	let Position { board, turn } = options.position;
	let start = Instant::now();
	let report: Option<SearchReport> =
		match options.net {
			None => ClaudePlayer::with_settings(settings).pick_move(board, turn, &[]),
			Some(net) => NeuralPlayer::with_net(Arc::new(net), settings, DEFAULT_TABLE_BITS)
				.pick_move(board, turn, &[]),
		};
	let Some(report) = report else {
		eprintln!("no legal move in {}", options.position);
		return ExitCode::from(1);
	};
	let seconds = start.elapsed().as_secs_f64();
	println!(
		"bestmove {} depth {} score {} nodes {} time {:.3}s nps {:.0}",
		report.mv,
		report.depth,
		report.score,
		report.nodes,
		seconds,
		report.nodes as f64 / seconds
	);
	ExitCode::SUCCESS
}
