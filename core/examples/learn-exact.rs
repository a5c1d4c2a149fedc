//! The capacity experiment: a net of a given shape trained on the exact values of placement
//! positions, read from the solved placement phase, instead of self-play's targets. What such a
//! net reaches is about the most self-play could teach that shape; measured like a run's nets
//! (`coordinator measure NET --placement DIR`), it says whether the loop or the net is the limit.
//!
//! Positions come from games between two `ClaudePlayer`s at depth 1 with the movement table in
//! play, each opened with a random number of uniformly random moves and then a softmax over
//! the moves' scores, stopped at the first movement-phase position: varied, but through
//! positions that players reach. Each placement position is kept with its exact value (the
//! tigers' view: 1 won, 0 drawn, -1 lost) as both the result and the score, so the target is
//! the exact value whatever the result's weight. A held-out tenth of the games' positions is
//! not trained on: the lines report how often the net's value falls on the right one of won,
//! drawn and lost there.
//!
//! `cargo run --release -p tigers-core --example learn-exact -- --placement DIR --movement FILE
//! --out NET [--positions N] [--steps N] [--hidden1 H] [--hidden2 H] [--input-version V]
//! [--threads N] [--compare NET]...`

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use tigers_core::network::{Encoding, Shape};
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{Sample, SelfPlaySettings, play_self_play_game_with};
use tigers_core::tablebase::Tablebase;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::trainer::schedule::LearningRateSchedule;
use tigers_core::trainer::{Trainer, TrainingSettings};
use tigers_core::{ClaudePlayer, Network};

/// A net trained on the placement phase's exact values; one line per round of steps.
#[derive(Parser)]
#[command(name = "learn-exact")]
struct Options {
	/// The placement layers (every one).
	#[arg(long)]
	placement: PathBuf,
	/// The movement-phase table.
	#[arg(long)]
	movement: PathBuf,
	/// Where the trained net is written (safetensors).
	#[arg(long)]
	out: PathBuf,
	/// Placement positions to collect (a tenth held out).
	#[arg(long, default_value_t = 2_000_000)]
	positions: usize,
	/// Optimiser steps of 256 examples.
	#[arg(long, default_value_t = 400_000)]
	steps: usize,
	/// Steps between report lines.
	#[arg(long, default_value_t = 20_000)]
	report_every: usize,
	/// The first hidden layer's width.
	#[arg(long, default_value_t = Shape::default().hidden1)]
	hidden1: usize,
	/// The second hidden layer's width.
	#[arg(long, default_value_t = Shape::default().hidden2)]
	hidden2: usize,
	/// The input encoding of the net trained (1, or 2 with the plane of the sheep a tiger could
	/// capture now), 2 as a new run's nets read.
	#[arg(long, default_value = "2")]
	input_version: Encoding,
	/// Most random moves opening a game (each game draws 0 to this many).
	#[arg(long, default_value_t = 16)]
	random_plies: u32,
	/// Threads for collecting positions and for each step's gradient.
	#[arg(long, default_value_t = 2)]
	threads: usize,
	/// The seed of the games, the net and the trainer's draws.
	#[arg(long, default_value_t = 1)]
	seed: u64,
	/// Other nets (a run's, say) measured on the same held-out positions before training.
	#[arg(long)]
	compare: Vec<PathBuf>,
}

/// The exact value of `sample`'s position for the tigers, if its layer knows it.
fn exact(placement: &PlacementTable, sample: &Sample) -> Option<f32> {
	let verdict = placement.probe(sample.board, sample.turn).ok()??;
	Some((verdict.sign() as f32) * sample.turn.sign())
}

/// Positions with their exact values, from games seeded `seed`, `seed + step`, ...
fn collect(
	options: &Options,
	movement: &Arc<Tablebase>,
	placement: &PlacementTable,
	first_seed: u64,
	step: u64,
	wanted: usize,
) -> Vec<Sample> {
	let search = SearchSettings::fixed_depth(1);
	let mut sheep = ClaudePlayer::with_settings(search);
	let mut tigers = ClaudePlayer::with_settings(search);
	sheep.set_tablebase(Some(movement.clone()));
	tigers.set_tablebase(Some(movement.clone()));
	let mut samples = Vec::with_capacity(wanted);
	let mut seed = first_seed;
	while samples.len() < wanted {
		let settings = SelfPlaySettings {
			random_plies: (seed % u64::from(options.random_plies + 1)) as u32,
			softmax_plies: 40,
			temperature: 0.1,
			max_plies: 300,
		};
		let game =
			play_self_play_game_with(&mut sheep, &mut tigers, &settings, seed, 0, Some(movement));
		for mut sample in game.samples {
			if sample.board.sheep_in_hand() == 0 {
				continue;
			}
			if let Some(value) = exact(placement, &sample) {
				sample.result = value;
				sample.score = value;
				samples.push(sample);
			}
		}
		seed += step;
	}
	samples.truncate(wanted);
	samples
}

/// The share of `samples` whose value the net places on the right one of won (above 1/3),
/// drawn and lost (below -1/3), and the mean squared error.
fn held_out(net: &Network, samples: &[Sample]) -> (f64, f64) {
	let mut right = 0usize;
	let mut squares = 0.0f64;
	for sample in samples {
		let value = net.forward(sample.board, sample.turn);
		let class = |v: f32| {
			if v > 1.0 / 3.0 {
				1
			} else if v < -1.0 / 3.0 {
				-1
			} else {
				0
			}
		};
		right += usize::from(class(value) == class(sample.result));
		squares += f64::from(value - sample.result).powi(2);
	}
	let n = samples.len().max(1) as f64;
	(right as f64 / n, squares / n)
}

fn main() {
	let options = Options::parse();
	let started = Instant::now();
	let movement = Arc::new(Tablebase::read(&options.movement).unwrap_or_else(|e| {
		eprintln!("learn-exact: {}: {e}", options.movement.display());
		std::process::exit(1);
	}));
	let placement = PlacementTable::open(&options.placement).unwrap_or_else(|e| {
		eprintln!("learn-exact: {}: {e}", options.placement.display());
		std::process::exit(1);
	});
	if !placement.is_complete() {
		eprintln!(
			"learn-exact: {} does not hold every placement layer",
			options.placement.display()
		);
		std::process::exit(1);
	}
	let threads = options.threads.max(1);
	let per_thread = options.positions.div_ceil(threads);
	let mut samples: Vec<Sample> = std::thread::scope(|scope| {
		let handles: Vec<_> = (0..threads as u64)
			.map(|t| {
				let (options, movement, placement) = (&options, &movement, &placement);
				scope.spawn(move || {
					collect(
						options,
						movement,
						placement,
						options.seed.wrapping_mul(1 << 32) + t,
						threads as u64,
						per_thread,
					)
				})
			})
			.collect();
		handles
			.into_iter()
			.flat_map(|h| h.join().expect("a collecting thread"))
			.collect()
	});
	let (won, drawn) = samples.iter().fold((0, 0), |(w, d), s| {
		(
			w + usize::from(s.result > 0.5),
			d + usize::from(s.result == 0.0),
		)
	});
	println!(
		"{} positions in {:.0} s: tigers win {:.1}%, draw {:.1}%, lose {:.1}%",
		samples.len(),
		started.elapsed().as_secs_f64(),
		100.0 * won as f64 / samples.len() as f64,
		100.0 * drawn as f64 / samples.len() as f64,
		100.0 * (samples.len() - won - drawn) as f64 / samples.len() as f64
	);
	// Every tenth position held out (games were collected whole, so neighbours share a game).
	let test: Vec<Sample> = samples.iter().step_by(10).copied().collect();
	let mut index = 0;
	samples.retain(|_| {
		index += 1;
		(index - 1) % 10 != 0
	});
	for path in &options.compare {
		let net = Network::load(path).unwrap_or_else(|e| {
			eprintln!("learn-exact: {}: {e}", path.display());
			std::process::exit(1);
		});
		let (right, mse) = held_out(&net, &test);
		println!(
			"{}: held-out: right class {:.2}%, mse {mse:.4}",
			path.display(),
			100.0 * right
		);
	}
	let shape = Shape {
		hidden1: options.hidden1,
		hidden2: options.hidden2,
	};
	let settings = TrainingSettings {
		window: samples.len(),
		max_uses: u32::MAX,
		threads,
		// A constant rate and the last weights, as the experiment in docs/training.md ran.
		schedule: LearningRateSchedule::default(),
		weight_average: 0.0,
		..TrainingSettings::default()
	};
	let mut trainer = Trainer::new(
		Network::with_encoding(shape, options.input_version, options.seed),
		settings,
		options.seed,
	);
	trainer.add_samples(samples);
	let mut done = 0;
	while done < options.steps {
		let round = options.report_every.min(options.steps - done);
		let losses = trainer.train(round);
		if losses.is_empty() {
			break;
		}
		done += losses.len();
		let loss = losses.iter().sum::<f32>() / losses.len() as f32;
		let (right, mse) = held_out(&trainer.net, &test);
		println!(
			"steps {done} minutes {:.1} loss {loss:.4} held-out: right class {:.2}%, mse {mse:.4}",
			started.elapsed().as_secs_f64() / 60.0,
			100.0 * right
		);
	}
	trainer.net.save(&options.out).unwrap_or_else(|e| {
		eprintln!("learn-exact: {}: {e}", options.out.display());
		std::process::exit(1);
	});
	println!("net written to {}", options.out.display());
}
