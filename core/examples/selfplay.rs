//! Plays self-play games with one net and reports how varied they are: distinct games, results,
//! samples and speed. Used to choose the exploration settings (docs/training.md).
//!
//! `cargo run --release -p tigers-core --example selfplay -- [--games N] [--depth D]
//! [--threads N] [--net-seed S] [--random-plies N] [--softmax-plies N] [--temperature-milli T]`
//! (`--help` explains each).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use tigers_core::network::Shape;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{SelfPlaySettings, play_self_play_game};
use tigers_core::{Network, NeuralPlayer};

/// Self-play games of one (untrained, seeded) net, and how varied they are.
#[derive(Parser)]
#[command(name = "selfplay")]
struct Options {
	/// Games to play.
	#[arg(long, default_value_t = 1000)]
	games: u64,
	/// Search depth in plies.
	#[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
	depth: u32,
	/// Threads to play on.
	#[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=4096))]
	threads: u64,
	/// The seed of the net's weights.
	#[arg(long, default_value_t = 1)]
	net_seed: u64,
	/// Random plies at the start of each game [default: self-play's].
	#[arg(long, value_name = "N")]
	random_plies: Option<u32>,
	/// Plies chosen by softmax after the random ones [default: self-play's].
	#[arg(long, value_name = "N")]
	softmax_plies: Option<u32>,
	/// The softmax temperature, in thousandths [default: self-play's].
	#[arg(long, value_name = "T")]
	temperature_milli: Option<u32>,
}

fn main() {
	let options = Options::parse();
	let (games, depth, threads, net_seed) = (
		options.games,
		options.depth,
		options.threads,
		options.net_seed,
	);
	let mut settings = SelfPlaySettings::default();
	if let Some(plies) = options.random_plies {
		settings.random_plies = plies;
	}
	if let Some(plies) = options.softmax_plies {
		settings.softmax_plies = plies;
	}
	if let Some(milli) = options.temperature_milli {
		settings.temperature = milli as f32 / 1000.0;
	}
	let net = Arc::new(Network::new(Shape::default(), net_seed));
	let search = SearchSettings::fixed_depth(depth);
	let start = Instant::now();
	let played: Vec<_> = std::thread::scope(|scope| {
		let handles: Vec<_> = (0..threads)
			.map(|thread| {
				let net = net.clone();
				scope.spawn(move || {
					let mut sheep = NeuralPlayer::with_net(net.clone(), search, 16);
					let mut tigers = NeuralPlayer::with_net(net, search, 16);
					(thread..games)
						.step_by(threads as usize)
						.map(|seed| {
							play_self_play_game(&mut sheep, &mut tigers, &settings, seed, 0)
						})
						.collect::<Vec<_>>()
				})
			})
			.collect();
		handles
			.into_iter()
			.flat_map(|h| h.join().expect("self-play thread"))
			.collect()
	});
	let seconds = start.elapsed().as_secs_f64();
	let distinct: HashSet<_> = played.iter().map(|g| g.record.moves.clone()).collect();
	let samples: usize = played.iter().map(|g| g.samples.len()).sum();
	let mut results = [0u32; 3];
	for game in &played {
		let result = game.samples.first().map_or(0.0, |s| s.result);
		results[(result + 1.0) as usize] += 1;
	}
	println!(
		"games {games} distinct {} samples {samples} sheep-wins {} draws {} tiger-wins {} \
		 time {seconds:.1}s games/s {:.1} samples/s {:.0}",
		distinct.len(),
		results[0],
		results[1],
		results[2],
		games as f64 / seconds,
		samples as f64 / seconds,
	);
}
