//! Plays a paired match between two `ClaudePlayer` search settings, to measure whether a change to
//! the search helps (build the two versions, or compare depths and time limits).
//!
//! `cargo run --release -p tigers-core --example versus -- [--depth D] [--openings N]
//! [--opening-plies P] [--seed S] [--b-depth D] [--time-ms MS]` (`--help` explains each).
//!
//! With `--time-ms` both players search iteratively up to `--depth` under that time limit per
//! move, which compares features at equal cost rather than equal depth (not reproducible). The
//! score is A's, with a 95% interval from the pairs (pentanomial), as the gate computes it.

use std::time::Instant;

use clap::Parser;
use tigers_core::ClaudePlayer;
use tigers_core::search::SearchSettings;
use tigers_core::stats::{GameResult, PairCounts};
use tigers_core::versus::{DEFAULT_MAX_PLIES, openings, play_game};
use tigers_core::{Turn, versus::MatchResult};

/// A paired match between two ClaudePlayer settings, A and B: every opening is played twice,
/// A as the sheep and then as the tigers. Prints A's results and score.
#[derive(Parser)]
#[command(name = "versus")]
struct Options {
	/// A's search depth (with --time-ms: its deepest iteration).
	#[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
	depth: u32,
	/// B's search depth [default: the same as A's].
	#[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
	b_depth: Option<u32>,
	/// Openings, each played twice.
	#[arg(long, default_value_t = 50)]
	openings: usize,
	/// Random plies in each opening.
	#[arg(long, default_value_t = 4)]
	opening_plies: usize,
	/// The seed the openings come from.
	#[arg(long, default_value_t = 1)]
	seed: u64,
	/// Search each move for this long (both players) instead of to a fixed depth.
	#[arg(long, value_name = "MS")]
	time_ms: Option<u64>,
}

fn main() {
	let options = Options::parse();
	let (depth, b_depth, time_ms) = (options.depth, options.b_depth, options.time_ms);
	let settings = |depth| SearchSettings {
		time_limit: time_ms.map(std::time::Duration::from_millis),
		..SearchSettings::fixed_depth(depth)
	};
	let mut a = ClaudePlayer::with_settings(settings(depth));
	let mut b = ClaudePlayer::with_settings(settings(b_depth.unwrap_or(depth)));
	let start = Instant::now();
	let mut result = MatchResult::default();
	let mut pairs = PairCounts::default();
	for opening in openings(options.seed, options.openings, options.opening_plies) {
		let as_sheep = play_game(&mut a, &mut b, &opening, DEFAULT_MAX_PLIES).outcome();
		let as_tigers = play_game(&mut b, &mut a, &opening, DEFAULT_MAX_PLIES).outcome();
		result.as_sheep.add(as_sheep, Turn::Sheep);
		result.as_tigers.add(as_tigers, Turn::Tiger);
		pairs.add_pair(
			GameResult::for_side(as_sheep, Turn::Sheep),
			GameResult::for_side(as_tigers, Turn::Tiger),
		);
	}
	let estimate = pairs.estimate();
	println!(
		"A (depth {depth}) against B (depth {}){}: A as tigers +{} ={} -{}, as sheep +{} ={} -{}; \
		 A's score {:.3} [{:.3}, {:.3}] (95%, by pairs) over {} games ({:.1}s)",
		b_depth.unwrap_or(depth),
		time_ms.map_or(String::new(), |ms| format!(", {ms} ms a move")),
		result.as_tigers.wins,
		result.as_tigers.draws,
		result.as_tigers.losses,
		result.as_sheep.wins,
		result.as_sheep.draws,
		result.as_sheep.losses,
		result.score(),
		estimate.low,
		estimate.high,
		result.games(),
		start.elapsed().as_secs_f64()
	);
}
