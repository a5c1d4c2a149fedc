//! Writes a fresh, seeded network file and prints the net's value of each named position, so
//! other tools can check that they read the file and the input encoding the same way.
//!
//! `cargo run -p tigers-core --example net -- PATH [SEED]` prints `sha256 HEX`, then one line
//! per named position: `POSITION<TAB>VALUE` (the value of the position as written, not of its
//! canonical image).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tigers_core::network::Shape;
use tigers_core::position::NAMED_POSITIONS;
use tigers_core::{Network, Position};

/// Writes a seeded net file and prints its sha256 and its values of the named positions.
#[derive(Parser)]
#[command(name = "net")]
struct Options {
	/// Where to write the safetensors file.
	path: PathBuf,
	/// The seed of the net's weights.
	#[arg(default_value_t = 1)]
	seed: u64,
}

fn main() -> ExitCode {
	let Options { path, seed } = Options::parse();
	let mut net = Network::new(Shape::default(), seed);
	net.generation = 7;
	if let Err(error) = net.save(&path) {
		eprintln!("{error}");
		return ExitCode::FAILURE;
	}
	println!("sha256 {}", net.sha256());
	for (_, text) in NAMED_POSITIONS {
		let position: Position = text.parse().expect("named positions parse");
		println!("{text}\t{}", net.forward(position.board, position.turn));
	}
	ExitCode::SUCCESS
}
