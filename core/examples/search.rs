//! Searches one position to a fixed depth and prints the report with nodes per second; or, with
//! `--random N`, searches the positions of N seeded random games and prints the totals.
//!
//! `cargo run --release -p tigers-core --example search -- DEPTH [--position TEXT | --random N]
//! [--net FILE | --fresh-net SEED]` (`--help` explains each).
//!
//! Without `--net` or `--fresh-net` the player is `ClaudePlayer`; with either, `NeuralPlayer`
//! with the same table size, so the two can be compared at equal depth. With `--random`, each
//! position is one from a game of 0 to 59 random plies (seed 7, the same for every run), the
//! player is cleared before each search, and only the searches are timed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::claude::DEFAULT_TABLE_BITS;
use tigers_core::network::Shape;
use tigers_core::search::{MAX_DEPTH, SearchSettings};
use tigers_core::{
	ClaudePlayer, GameBoard, MinimaxPlayer, Network, NeuralPlayer, Position, SearchReport, Turn,
};

/// Searches one position to a fixed depth, or the positions of seeded random games, and prints
/// the nodes searched and the nodes per second.
#[derive(Parser)]
#[command(name = "search")]
struct Options {
	/// The search depth in plies (1 to 64).
	#[arg(value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
	depth: u32,
	/// The position to search [default: the start].
	#[arg(
		long,
		value_name = "TEXT",
		allow_hyphen_values = true,
		conflicts_with = "random"
	)]
	position: Option<Position>,
	/// Search the positions of N seeded random games instead, and print the totals.
	#[arg(long, value_name = "N")]
	random: Option<usize>,
	/// Search with this net file (`NeuralPlayer`) instead of `ClaudePlayer`.
	#[arg(long, value_name = "FILE")]
	net: Option<PathBuf>,
	/// Search with a fresh net of this seed (`NeuralPlayer`) instead of `ClaudePlayer`.
	#[arg(long, value_name = "SEED", conflicts_with = "net")]
	fresh_net: Option<u64>,
}

impl Options {
	/// The net to search with, if any: the file named, or a fresh one.
	fn net(&self) -> Result<Option<Network>, String> {
		if let Some(path) = &self.net {
			return Network::load(path).map(Some).map_err(|e| e.to_string());
		}
		Ok(self
			.fresh_net
			.map(|seed| Network::new(Shape::default(), seed)))
	}
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
	let options = Options::parse();
	let net = match options.net() {
		Ok(net) => net,
		Err(error) => {
			eprintln!("{error}");
			return ExitCode::FAILURE;
		}
	};
	let settings = SearchSettings::fixed_depth(options.depth);
	if let Some(count) = options.random {
		let positions = random_positions(count);
		let (nodes, time) = match net {
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
	let position = options.position.unwrap_or_default();
	let Position { board, turn } = position;
	let start = Instant::now();
	let report: Option<SearchReport> =
		match net {
			None => ClaudePlayer::with_settings(settings).pick_move(board, turn, &[]),
			Some(net) => NeuralPlayer::with_net(Arc::new(net), settings, DEFAULT_TABLE_BITS)
				.pick_move(board, turn, &[]),
		};
	let Some(report) = report else {
		eprintln!("no legal move in {position}");
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
