//! Writes a fresh, seeded network file and prints the net's value of each named position, so
//! other tools can check that they read the file and the input encoding the same way.
//!
//! `cargo run -p tigers-core --example net -- PATH [SEED]` prints `sha256 HEX`, then one line
//! per named position: `POSITION<TAB>VALUE` (the value of the position as written, not of its
//! canonical image).

use std::process::ExitCode;

use tigers_core::network::Shape;
use tigers_core::position::NAMED_POSITIONS;
use tigers_core::{Network, Position};

fn main() -> ExitCode {
	let args: Vec<String> = std::env::args().skip(1).collect();
	let Some(path) = args.first() else {
		eprintln!("usage: net PATH [SEED]");
		return ExitCode::from(2);
	};
	let seed = match args.get(1).map(|s| s.parse::<u64>()) {
		None => 1,
		Some(Ok(seed)) => seed,
		Some(Err(_)) => {
			eprintln!("SEED must be a whole number");
			return ExitCode::from(2);
		}
	};
	let mut net = Network::new(Shape::default(), seed);
	net.generation = 7;
	if let Err(error) = net.save(path.as_ref()) {
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
