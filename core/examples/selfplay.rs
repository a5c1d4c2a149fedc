//! Plays self-play games with one net and reports how varied they are: distinct games, results,
//! samples and speed. Used to choose the exploration settings (docs/training.md).
//!
//! `cargo run --release -p tigers-core --example selfplay -- [--games N] [--depth D]
//! [--threads N] [--net-seed S] [--random-plies N] [--softmax-plies N] [--temperature-milli T]`

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use tigers_core::network::Shape;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{SelfPlaySettings, play_self_play_game};
use tigers_core::{Network, NeuralPlayer};

fn main() {
	let (mut games, mut depth, mut threads, mut net_seed) = (1000u64, 3u32, 2u64, 1u64);
	let mut settings = SelfPlaySettings::default();
	let args: Vec<String> = std::env::args().skip(1).collect();
	for pair in args.chunks(2) {
		let value = pair
			.get(1)
			.and_then(|v| v.parse::<u64>().ok())
			.unwrap_or_else(|| {
				eprintln!("{} needs a number", pair[0]);
				std::process::exit(2);
			});
		match pair[0].as_str() {
			"--games" => games = value,
			"--depth" => depth = value as u32,
			"--threads" => threads = value.max(1),
			"--net-seed" => net_seed = value,
			"--random-plies" => settings.random_plies = value as u32,
			"--softmax-plies" => settings.softmax_plies = value as u32,
			"--temperature-milli" => settings.temperature = value as f32 / 1000.0,
			other => {
				eprintln!("unknown option {other}");
				std::process::exit(2);
			}
		}
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
