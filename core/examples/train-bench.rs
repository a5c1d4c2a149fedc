//! How fast the trainer learns from real samples: plays seeded self-play games with a fresh net
//! (depth 3, default exploration), then trains the default net with the default settings (batch
//! 256, a window of 200,000 samples each used at most 8 times) as the coordinator does in a
//! steady state: the window full, and new samples arriving as fast as steps use them up
//! (batch / uses, 32 a step), added every 16 steps (`--turn`) before a call of `Trainer::train`,
//! so that old samples leave the window. Prints `samples/s N`: examples trained on per second,
//! over the timed steps (the new samples' arrival included). `--turn 1` steps one at a time, as
//! the coordinator does today, which starts the threads for every step. `--window N` trains from
//! a window of N samples instead, as a run whose window grows (`--window-beta`) comes to: a
//! larger window is drawn from at random over more memory.
//!
//! `cargo run --release -p tigers-core --example train-bench -- [--threads N] [--steps S]
//! [--turn T] [--window N] [--games G] [--seed S] [--dump FILE]` (`--help` explains each).
//!
//! The games' samples, about 33 a game, are used over and over to fill the window and to arrive.
//! `--dump FILE` writes them as little-endian `f32` rows of the 54 inputs and the target, for
//! `train_bench_torch.py` next to this file, which trains the same net in PyTorch.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use clap::builder::RangedU64ValueParser;
use tigers_core::network::{Shape, encode};
use tigers_core::neural::SELF_PLAY_TABLE_BITS;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{Sample, SelfPlaySettings, play_self_play_game};
use tigers_core::trainer::schedule::LearningRateSchedule;
use tigers_core::trainer::{Trainer, TrainingSettings};
use tigers_core::{Network, NeuralPlayer};

/// How many samples a second the trainer learns from, as the coordinator trains in a steady
/// state; prints `samples/s N`.
#[derive(Parser)]
#[command(name = "train-bench")]
struct Options {
	/// Threads to train on.
	#[arg(long, value_name = "N", default_value_t = TrainingSettings::default().threads,
		value_parser = at_least_one())]
	threads: usize,
	/// Training steps to time.
	#[arg(long, value_name = "S", default_value_t = 2000, value_parser = at_least_one())]
	steps: usize,
	/// Steps in each call of `Trainer::train`, with the new samples added before it (the
	/// coordinator's training thread takes turns of 16 steps between looks at its inbox).
	#[arg(long, value_name = "T", default_value_t = 16, value_parser = at_least_one())]
	turn: usize,
	/// Samples in the window the steps draw from (raised to a batch if fewer).
	#[arg(long, value_name = "N", default_value_t = TrainingSettings::default().window,
		value_parser = at_least_one())]
	window: usize,
	/// Self-play games whose samples fill the window and arrive.
	#[arg(long, value_name = "G", default_value_t = 300,
		value_parser = clap::value_parser!(u64).range(1..))]
	games: u64,
	/// The seed of the games' net, of the trained net and of the training draws.
	#[arg(long, value_name = "S", default_value_t = 1)]
	seed: u64,
	/// Also write the games' samples to FILE, for `train_bench_torch.py`.
	#[arg(long, value_name = "FILE")]
	dump: Option<PathBuf>,
}

/// A count of 1 or more.
fn at_least_one() -> RangedU64ValueParser<usize> {
	RangedU64ValueParser::new().range(1..)
}

/// The samples of `games` self-play games at depth 3 between two copies of a fresh net.
fn play(games: u64, seed: u64) -> Vec<Sample> {
	let net = Arc::new(Network::new(Shape::default(), seed));
	let search = SearchSettings::fixed_depth(3);
	let mut sheep = NeuralPlayer::with_net(net.clone(), search, SELF_PLAY_TABLE_BITS);
	let mut tigers = NeuralPlayer::with_net(net, search, SELF_PLAY_TABLE_BITS);
	let settings = SelfPlaySettings::default();
	(0..games)
		.flat_map(|game| {
			play_self_play_game(&mut sheep, &mut tigers, &settings, seed ^ game << 8, 0).samples
		})
		.collect()
}

fn dump(path: &Path, samples: &[Sample], result_weight: f32) -> std::io::Result<()> {
	let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
	for sample in samples {
		let inputs = encode(sample.board, sample.turn);
		for value in inputs.iter().chain([&sample.target(result_weight)]) {
			out.write_all(&value.to_le_bytes())?;
		}
	}
	out.flush()
}

fn main() -> ExitCode {
	let options = Options::parse();
	let started = Instant::now();
	let samples = play(options.games, options.seed);
	eprintln!(
		"{} samples from {} games in {:.1} s",
		samples.len(),
		options.games,
		started.elapsed().as_secs_f64()
	);
	let defaults = TrainingSettings::default();
	if let Some(path) = &options.dump
		&& let Err(error) = dump(path, &samples, defaults.targets.result_weight)
	{
		eprintln!("{}: {error}", path.display());
		return ExitCode::FAILURE;
	}
	// The step alone, as docs/benchmarks.md measured it: no running average to update, and the
	// rate (which does not change the work) constant.
	let settings = TrainingSettings {
		threads: options.threads,
		schedule: LearningRateSchedule::default(),
		weight_average: 0.0,
		window: options.window.max(defaults.batch_size),
		..defaults
	};
	let net = Network::new(Shape::default(), options.seed);
	let mut trainer = Trainer::new(net, settings, options.seed);
	let mut arriving = samples.iter().copied().cycle();
	trainer.add_samples(arriving.by_ref().take(settings.window));
	let per_step = settings.batch_size / settings.max_uses as usize;
	let mut turn = |trainer: &mut Trainer, steps: usize| {
		trainer.add_samples(arriving.by_ref().take(per_step * steps));
		let losses = trainer.train(steps);
		assert_eq!(losses.len(), steps, "new samples keep the window in draws");
		losses[steps - 1]
	};
	// A turn first, so that the timed ones find their memory warm.
	let first = turn(&mut trainer, options.turn);
	let turns = options.steps.div_ceil(options.turn);
	let started = Instant::now();
	let mut last = first;
	for _ in 0..turns {
		last = turn(&mut trainer, options.turn);
	}
	let seconds = started.elapsed().as_secs_f64();
	let steps = turns * options.turn;
	eprintln!(
		"{steps} steps of {} on {} threads from a window of {} in {seconds:.3} s; loss {first:.4} \
		 at the start, {last:.4} at the end",
		settings.batch_size, settings.threads, settings.window
	);
	println!(
		"samples/s {:.0}",
		(steps * settings.batch_size) as f64 / seconds
	);
	ExitCode::SUCCESS
}
