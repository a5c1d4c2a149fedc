//! Searches one position to a fixed depth and prints the report with nodes per second.
//!
//! `cargo run --release -p tigers-core --example search -- DEPTH [--position TEXT]
//! [--net FILE | --fresh-net SEED]`
//!
//! Without `--net` or `--fresh-net` the player is `ClaudePlayer`; with either, `NeuralPlayer`
//! with the same table size, so the two can be compared at equal depth.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use tigers_core::claude::DEFAULT_TABLE_BITS;
use tigers_core::network::Shape;
use tigers_core::search::SearchSettings;
use tigers_core::{ClaudePlayer, MinimaxPlayer, Network, NeuralPlayer, Position, SearchReport};

struct Options {
	depth: u32,
	position: Position,
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
		net: None,
	};
	for pair in args[1..].chunks(2) {
		let [flag, value] = pair else {
			return Err(format!("{} needs a value", pair[0]));
		};
		match flag.as_str() {
			"--position" => options.position = value.parse().map_err(|e| format!("{e}"))?,
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

fn main() -> ExitCode {
	let args: Vec<String> = std::env::args().skip(1).collect();
	let options = match parse(&args) {
		Ok(options) => options,
		Err(error) => {
			eprintln!(
				"{error}\nusage: search DEPTH [--position TEXT] [--net FILE | --fresh-net SEED]"
			);
			return ExitCode::from(2);
		}
	};
	let settings = SearchSettings::fixed_depth(options.depth);
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
