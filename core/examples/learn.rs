//! An in-process training run, to check that the pipeline learns: self-play with the promoted
//! net, Adam on the replay window, a gate against `ClaudePlayer` after every round, promotion by
//! the core rule. Prints one line per round.
//!
//! `cargo run --release -p tigers-core --example learn -- [--rounds N] [--games N]
//! [--depth D] [--threads N] [--seed S] [--canonical]` (`--help` explains each).
//!
//! Self-play and the gate's pairs run on threads started here: the library's
//! `play_self_play_game` and `play_gate_pair` play one game or pair a call.

use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use tigers_core::gate::{GateSettings, GateTally, gate_openings, play_gate_pair};
use tigers_core::network::Shape;
use tigers_core::replay::Augmentation;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{Sample, SelfPlaySettings, play_self_play_game};
use tigers_core::stats::{GateRecord, PromotionRule, promote};
use tigers_core::trainer::schedule::LearningRateSchedule;
use tigers_core::trainer::{Trainer, TrainingSettings};
use tigers_core::{Network, NeuralPlayer};

/// An in-process training run: self-play, training and gating against ClaudePlayer each
/// round, one line per round.
#[derive(Parser)]
#[command(name = "learn")]
struct Options {
	/// Rounds of self-play, training and gating.
	#[arg(long, default_value_t = 20)]
	rounds: u32,
	/// Self-play games per round.
	#[arg(long, default_value_t = 200)]
	games: u64,
	/// Search depth of self-play and of the gate.
	#[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
	depth: u32,
	/// Threads for self-play and gating.
	#[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=256))]
	threads: u64,
	/// The seed of the first net, the self-play games and the training draws.
	#[arg(long, default_value_t = 1)]
	seed: u64,
	/// Train on canonical boards instead of a random symmetric image per example.
	#[arg(long)]
	canonical: bool,
}

fn self_play(net: &Arc<Network>, options: &Options, first_seed: u64) -> Vec<Sample> {
	let settings = SelfPlaySettings::default();
	let search = SearchSettings::fixed_depth(options.depth);
	std::thread::scope(|scope| {
		let workers: Vec<_> = (0..options.threads)
			.map(|thread| {
				scope.spawn(move || {
					let mut sheep = NeuralPlayer::with_net(net.clone(), search, 16);
					let mut tigers = NeuralPlayer::with_net(net.clone(), search, 16);
					let mut samples = Vec::new();
					let mut seed = first_seed + thread;
					while seed < first_seed + options.games {
						let game = play_self_play_game(
							&mut sheep,
							&mut tigers,
							&settings,
							seed,
							net.generation,
						);
						samples.extend(game.samples);
						seed += options.threads;
					}
					samples
				})
			})
			.collect();
		workers
			.into_iter()
			.flat_map(|w| w.join().expect("self-play thread"))
			.collect()
	})
}

fn gate(net: &Arc<Network>, settings: &GateSettings, threads: usize) -> GateTally {
	let openings = gate_openings(settings);
	let mut tally = GateTally::default();
	for chunk in openings.chunks(threads) {
		let pairs: Vec<_> = std::thread::scope(|scope| {
			let handles: Vec<_> = chunk
				.iter()
				.map(|o| scope.spawn(move || play_gate_pair(net, settings, o, None)))
				.collect();
			handles
				.into_iter()
				.map(|h| h.join().expect("gate thread"))
				.collect()
		});
		for pair in pairs {
			if tally.add(pair, &settings.policy) {
				return tally;
			}
		}
	}
	tally
}

fn describe(tally: &GateTally) -> String {
	let (t, s) = (tally.by_side.as_tigers, tally.by_side.as_sheep);
	format!(
		"score {} as tigers +{}={}-{} as sheep +{}={}-{}",
		tally.pairs.estimate(),
		t.wins,
		t.draws,
		t.losses,
		s.wins,
		s.draws,
		s.losses
	)
}

fn main() {
	let options = Options::parse();
	let start = Instant::now();
	let gate_settings = GateSettings {
		search: SearchSettings::fixed_depth(options.depth),
		..GateSettings::default()
	};
	let mut incumbent = Arc::new(Network::new(Shape::default(), options.seed));
	let first = gate(&incumbent, &gate_settings, options.threads as usize);
	let mut incumbent_record: Option<GateRecord> = first.record();
	println!("round 0 generation 0 minutes 0.0 {}", describe(&first));
	// A constant rate, as the figures in docs/training.md were made with; the candidate is the
	// trained net itself, so no running average is kept.
	let mut training = TrainingSettings {
		schedule: LearningRateSchedule::default(),
		weight_average: 0.0,
		..TrainingSettings::default()
	};
	if options.canonical {
		training.targets.augmentation = Augmentation::Canonical;
	}
	let mut trainer = Trainer::new((*incumbent).clone(), training, options.seed);
	for round in 1..=options.rounds {
		let samples = self_play(&incumbent, &options, u64::from(round) * 1_000_000);
		let games_samples = samples.len();
		trainer.add_samples(samples);
		let losses = trainer.train(usize::MAX);
		let loss = losses.iter().sum::<f32>() / losses.len().max(1) as f32;
		let mut candidate = trainer.net.clone();
		candidate.generation = incumbent.generation + 1;
		let candidate = Arc::new(candidate);
		let against = GateSettings {
			policy: gate_settings.policy_against(incumbent_record.as_ref()),
			..gate_settings
		};
		let tally = gate(&candidate, &against, options.threads as usize);
		let record = tally.record().expect("a finished gate");
		let decision = promote(
			&record,
			incumbent_record.as_ref(),
			&PromotionRule::default(),
		);
		if decision.promote {
			incumbent = candidate.clone();
			incumbent_record = Some(record);
		}
		println!(
			"round {round} generation {} minutes {:.1} samples {games_samples} steps {} loss {loss:.4} candidate {} {}",
			incumbent.generation,
			start.elapsed().as_secs_f64() / 60.0,
			losses.len(),
			describe(&tally),
			if decision.promote { "PROMOTED" } else { "kept" },
		);
	}
}
