//! Times probes of the placement layers on disk: positions from seeded random placement games,
//! those inside the layers present, each probed in two passes (a probe reads its block, up to
//! 4 KiB, and inflates it as far as its byte, or reads one byte of a format-1 file; how much of
//! the files the operating system already caches decides the first pass).
//!
//! `cargo run --release -p tigers-core --example placement-probe -- DIR [PROBES]` (`--help`
//! explains each).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::{GameBoard, Turn};

/// Times probes of the placement layers in a directory, in two passes over the same positions.
#[derive(Parser)]
#[command(name = "placement-probe")]
struct Options {
	/// The placement layers' directory (`tui tablebase build --placement --dir DIR`).
	dir: PathBuf,
	/// Positions to probe in each pass.
	#[arg(default_value_t = 100_000,
		value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
	probes: usize,
}

fn main() -> ExitCode {
	let Options { dir, probes } = Options::parse();
	let table = match PlacementTable::open(&dir) {
		Ok(table) => table,
		Err(error) => {
			eprintln!("{error}");
			return ExitCode::FAILURE;
		}
	};
	let lowest = table.layers().map(|id| id.placed).min().unwrap_or(20);
	if lowest > 19 {
		eprintln!("no placement layers in {}", dir.display());
		return ExitCode::FAILURE;
	}
	let positions = positions(probes, lowest);
	for pass in ["first", "second"] {
		let started = Instant::now();
		let mut known = 0;
		for &(board, turn) in &positions {
			known += usize::from(matches!(table.probe(board, turn), Ok(Some(_))));
		}
		let elapsed = started.elapsed();
		println!(
			"{pass} pass: {} probes, {known} answered, {:.2} µs a probe",
			positions.len(),
			elapsed.as_secs_f64() * 1e6 / positions.len() as f64
		);
	}
	ExitCode::SUCCESS
}

/// Positions of random games (seed 11) once at least `lowest` sheep are placed, until the last
/// sheep is placed or the game ends.
fn positions(count: usize, lowest: u32) -> Vec<(GameBoard, Turn)> {
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
	let mut positions = Vec::with_capacity(count);
	while positions.len() < count {
		let mut board = GameBoard::default();
		let mut turn = Turn::Sheep;
		while board.sheep_in_hand() > 0 && board.outcome(turn).is_none() {
			let placed = 20 - u32::from(board.sheep_in_hand());
			if placed >= lowest && !(turn == Turn::Tiger && placed == 0) {
				positions.push((board, turn));
			}
			let moves = board.get_moves(turn);
			let mv = moves[rng.random_range(0..moves.len())];
			board = board.after_move_unchecked(mv);
			turn = turn.opponent();
		}
	}
	positions.truncate(count);
	positions
}
