//! Prints perft counts for depths 1 to DEPTH from the start or from a given position.
//!
//! ```text
//! cargo run --release -p tigers-core --example perft -- DEPTH [--position TEXT] [--slow]
//! ```
//!
//! Standard output holds only the `perft(d) = N` lines, so runs can be compared with `diff`;
//! the time of each depth goes to standard error. `--slow` counts with the reference generator
//! and cross-checks the fast one at every node (it panics at the first disagreement).
//! A bad depth or position text is reported on standard error with exit code 2; `--help` lists
//! the options.

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use tigers_core::Position;
use tigers_core::perft::{perft, perft_checked};

/// Prints perft counts (move paths of each length) for depths 1 to DEPTH.
#[derive(Parser)]
#[command(name = "perft")]
struct Options {
	/// The deepest depth to count (1 and up).
	#[arg(value_parser = clap::value_parser!(u32).range(1..))]
	depth: u32,
	/// The position to count from [default: the start].
	#[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
	position: Option<Position>,
	/// Count with the slow reference generator, checking the fast one at every node.
	#[arg(long)]
	slow: bool,
}

fn main() -> ExitCode {
	let options = Options::parse();
	let Position { board, turn } = options.position.unwrap_or_default();
	for depth in 1..=options.depth {
		let started = Instant::now();
		let count = if options.slow {
			perft_checked(board, turn, depth)
		} else {
			perft(board, turn, depth)
		};
		println!("perft({depth}) = {count}");
		eprintln!("  depth {depth}: {:.3} s", started.elapsed().as_secs_f64());
	}
	ExitCode::SUCCESS
}
