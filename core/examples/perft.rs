//! Prints perft counts for depths 1 to DEPTH from the start or from a given position.
//!
//! ```text
//! cargo run --release -p tigers-core --example perft -- DEPTH [--position TEXT] [--slow]
//! ```
//!
//! Standard output holds only the `perft(d) = N` lines, so runs can be compared with `diff`;
//! the time of each depth goes to standard error. `--slow` counts with the reference generator
//! and cross-checks the fast one at every node (it panics at the first disagreement).
//! A bad depth or position text is reported on standard error with exit code 2.

use std::process::ExitCode;
use std::time::Instant;

use tigers_core::Position;
use tigers_core::perft::{perft, perft_checked};

const USAGE: &str = "usage: perft DEPTH [--position TEXT] [--slow]";

/// What the command line asks for.
struct Options {
	depth: u32,
	position: Position,
	slow: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
	let (mut depth, mut position, mut slow) = (None, Position::default(), false);
	while let Some(arg) = args.next() {
		match arg.as_str() {
			"--slow" => slow = true,
			"--position" => {
				let text = args.next().ok_or("--position needs a position text")?;
				position = text
					.parse()
					.map_err(|e| format!("bad position {text:?}: {e}"))?;
			}
			_ if depth.is_none() && !arg.starts_with("--") => {
				let d: u32 = arg
					.parse()
					.map_err(|_| format!("DEPTH is a whole number from 1, not {arg:?}"))?;
				if d == 0 {
					return Err("DEPTH must be at least 1".to_string());
				}
				depth = Some(d);
			}
			_ => return Err(format!("unexpected argument {arg:?}")),
		}
	}
	let depth = depth.ok_or("missing DEPTH")?;
	Ok(Options {
		depth,
		position,
		slow,
	})
}

fn main() -> ExitCode {
	let options = match parse_args(std::env::args().skip(1)) {
		Ok(options) => options,
		Err(message) => {
			eprintln!("perft: {message}\n{USAGE}");
			return ExitCode::from(2);
		}
	};
	let Position { board, turn } = options.position;
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
