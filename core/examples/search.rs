//! Searches one position to a fixed depth and prints the report with nodes per second.
//!
//! `cargo run --release -p tigers-core --example search -- DEPTH [POSITION] [QUIESCENCE_PLIES]`

use std::process::ExitCode;
use std::time::Instant;

use tigers_core::{ClaudePlayer, MinimaxPlayer, Position};

fn main() -> ExitCode {
	let args: Vec<String> = std::env::args().skip(1).collect();
	let Some(depth) = args.first().and_then(|d| d.parse::<u32>().ok()) else {
		eprintln!("usage: search DEPTH [POSITION] [QUIESCENCE_PLIES]");
		return ExitCode::from(2);
	};
	let position = match args.get(1).map(|text| text.parse::<Position>()) {
		None => Position::default(),
		Some(Ok(position)) => position,
		Some(Err(error)) => {
			eprintln!("bad position: {error}");
			return ExitCode::from(2);
		}
	};
	let mut player = ClaudePlayer::fixed_depth(depth);
	if let Some(plies) = args.get(2) {
		let Ok(plies) = plies.parse() else {
			eprintln!("quiescence plies must be a number, not {plies:?}");
			return ExitCode::from(2);
		};
		player.quiescence_plies = plies;
	}
	let start = Instant::now();
	let Some(report) = player.pick_move(position.board, position.turn, &[]) else {
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
