//! `Trainer`: a net with its optimiser, the replay window and the seeded randomness that draws
//! mini-batches, so the coordinator, the experiments and the tests train the same way.
//!
//! - `crew`: the helper threads of one [`Trainer::train`] call;
//! - [`schedule`]: the learning rate by step and the window's size by samples seen;
//! - [`average`]: the running average of the weights, which may stand as the candidate.

pub mod average;
mod crew;
pub mod schedule;

use std::sync::Arc;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::network::Network;
use crate::network::train::{Adam, AdamSettings, TrainingExample};
use crate::replay::{ReplayWindow, TargetSettings};
use crate::selfplay::Sample;
use crate::tablebase::Tablebase;
use schedule::{LearningRateSchedule, WindowGrowth};

/// How training runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainingSettings {
	/// Examples per optimiser step.
	pub batch_size: usize,
	/// Samples the replay window holds, or its base size if it grows.
	pub window: usize,
	/// How the window grows with the samples seen (not at all by default).
	pub window_growth: WindowGrowth,
	/// How many times a sample may be trained on.
	pub max_uses: u32,
	/// Targets and augmentation.
	pub targets: TargetSettings,
	/// The optimiser; its learning rate is the schedule's base rate.
	pub adam: AdamSettings,
	/// How the learning rate follows the optimiser's step (constant by default).
	pub schedule: LearningRateSchedule,
	/// The decay of the running average of the weights, below 1; 0 keeps no average, and the
	/// candidate is the weights themselves (see [`Trainer::candidate`]).
	pub weight_average: f32,
	/// Threads a step computes its gradient on (1 or more). The result does not depend on it:
	/// a batch's gradient is summed by fixed chunks in a fixed order (see
	/// [`crate::network::train::GRADIENT_CHUNK`]).
	pub threads: usize,
}

impl Default for TrainingSettings {
	/// Batches of 256 from a window of 200,000 samples that does not grow, each used at most 8
	/// times; the learning rate warms up over 5,000 steps and then falls by half a cosine to a
	/// tenth of itself over 1.5 million steps (about 75 minutes of training on the two-core
	/// development machine), and each candidate is a running average of the weights over about
	/// the last thousand steps. The falling rate and the average are issue 24's levers that
	/// kept the promoted nets improving in the runs of docs/training.md, where a constant rate
	/// and the last weights stopped after some 15 minutes. One thread: the coordinator trains
	/// beside self-play and gating on the same cores, and a step started on more threads pays
	/// for starting them (see [`Trainer::train`]).
	fn default() -> TrainingSettings {
		TrainingSettings {
			batch_size: 256,
			window: 200_000,
			window_growth: WindowGrowth::default(),
			max_uses: 8,
			targets: TargetSettings::default(),
			adam: AdamSettings::default(),
			schedule: LearningRateSchedule {
				shape: schedule::ScheduleShape::Cosine {
					period: 1_500_000,
					floor: 0.1,
				},
				warmup_steps: 5_000,
			},
			weight_average: 0.999,
			threads: 1,
		}
	}
}

/// A net in training.
pub struct Trainer {
	/// The net being trained (its generation is that of the last promoted net it started from).
	pub net: Network,
	/// Adam's state for `net`.
	pub adam: Adam,
	/// The samples to train on.
	pub window: ReplayWindow,
	/// The settings.
	pub settings: TrainingSettings,
	/// The solved movement phase, to rescore targets with (see [`TargetSettings::rescore`]).
	pub tablebase: Option<Arc<Tablebase>>,
	/// The running average of `net`'s weights, if the settings keep one; it starts at the
	/// weights the trainer starts from.
	pub average: Option<Network>,
	rng: Xoshiro256PlusPlus,
}

impl Trainer {
	/// Starts training `net` with fresh optimiser state and an empty window; batches are drawn
	/// from `seed`.
	pub fn new(net: Network, settings: TrainingSettings, seed: u64) -> Trainer {
		let adam = Adam::new(settings.adam, net.params().len());
		Trainer::resume(
			net,
			adam,
			ReplayWindow::new(settings.window, settings.max_uses),
			settings,
			seed,
		)
	}

	/// Continues training from saved parts.
	pub fn resume(
		net: Network,
		adam: Adam,
		window: ReplayWindow,
		settings: TrainingSettings,
		seed: u64,
	) -> Trainer {
		let average = (settings.weight_average > 0.0).then(|| net.clone());
		Trainer {
			net,
			adam,
			window,
			settings,
			tablebase: None,
			average,
			rng: Xoshiro256PlusPlus::seed_from_u64(seed),
		}
	}

	/// Adds samples to the window.
	pub fn add_samples(&mut self, samples: impl IntoIterator<Item = Sample>) {
		for sample in samples {
			self.window.push(sample);
		}
	}

	/// One optimiser step, if the window still has a batch's worth of unused draws; returns the
	/// batch's loss before the step. With several threads, they are started for this step.
	pub fn step(&mut self) -> Option<f32> {
		let batch = self.draw()?;
		self.schedule_rate();
		let loss = self
			.net
			.train_step_on(&mut self.adam, &batch, self.settings.threads);
		if let Some(average) = &mut self.average {
			average::update_average(average, &self.net, self.settings.weight_average);
		}
		Some(loss)
	}

	/// The net a candidate is made of: the running average of the weights if the settings
	/// keep one, else the weights themselves.
	pub fn candidate(&self) -> Network {
		match &self.average {
			Some(average) => {
				let mut candidate = average.clone();
				candidate.generation = self.net.generation;
				candidate
			}
			None => self.net.clone(),
		}
	}

	/// Up to `max_steps` steps, as many as the window allows; returns their losses. The same
	/// as calling [`Trainer::step`] as often, but with several threads they are started once
	/// for the call and wait between steps by spinning (and yielding), not sleeping: starting a
	/// thread cost 45 to 350 µs on the two-core development machine, as much as a step's work.
	pub fn train(&mut self, max_steps: usize) -> Vec<f32> {
		if self.settings.threads <= 1 || max_steps <= 1 {
			return (0..max_steps).map_while(|_| self.step()).collect();
		}
		crew::train(self, max_steps)
	}

	/// Sets Adam's learning rate for its next step by the schedule. The step is Adam's own
	/// count, which the checkpoint keeps, so a resumed run goes on where the schedule was; the
	/// base rate is the settings', so a run resumed with another `--learning-rate` takes it.
	fn schedule_rate(&mut self) {
		self.adam.settings.learning_rate = self
			.settings
			.schedule
			.rate(self.settings.adam.learning_rate, self.adam.steps());
	}

	/// The window's size after `samples_seen` samples by the settings' growth rule.
	pub fn window_capacity(&self, samples_seen: u64) -> usize {
		self.settings
			.window_growth
			.capacity(self.settings.window, samples_seen)
	}

	/// The next batch, if the window has one.
	fn draw(&mut self) -> Option<Vec<TrainingExample>> {
		self.window.draw_batch(
			self.settings.batch_size,
			&self.settings.targets,
			self.tablebase.as_deref(),
			&mut self.rng,
		)
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::board::GameBoard;
	use crate::moves::Turn;
	use crate::network::Shape;

	/// Samples from the positions of seeded random games, with varied targets.
	fn random_samples(count: usize) -> Vec<Sample> {
		use rand::RngExt;
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(count as u64);
		let mut samples = Vec::with_capacity(count);
		let (mut board, mut turn) = (GameBoard::default(), Turn::Sheep);
		while samples.len() < count {
			let moves = board.get_moves(turn);
			if moves.is_empty() || board.outcome(turn).is_some() {
				(board, turn) = (GameBoard::default(), Turn::Sheep);
				continue;
			}
			samples.push(Sample {
				board,
				turn,
				score: rng.random_range(-1.0..1.0),
				result: [1.0, 0.0, -1.0][rng.random_range(0..3)],
				ply: samples.len() as u32,
				generation: 0,
			});
			board.make_move_unchecked(moves[rng.random_range(0..moves.len())]);
			turn = turn.opponent();
		}
		samples
	}

	/// The losses and final weights of a seeded run of up to 12 steps of 100 examples (three
	/// whole chunks and a partial one), by `step` or by `train`.
	fn seeded_run(threads: usize, by_step: bool) -> (Vec<f32>, Vec<f32>) {
		// A falling rate with a warm-up, so that every path must follow the schedule alike.
		let settings = TrainingSettings {
			batch_size: 100,
			window: 400,
			max_uses: 3,
			threads,
			schedule: LearningRateSchedule {
				shape: schedule::ScheduleShape::Step {
					every: 5,
					factor: 0.5,
				},
				warmup_steps: 3,
			},
			..TrainingSettings::default()
		};
		let mut trainer = Trainer::new(Network::new(Shape::default(), 3), settings, 11);
		trainer.add_samples(random_samples(500));
		let losses = if by_step {
			(0..12).map_while(|_| trainer.step()).collect()
		} else {
			trainer.train(12)
		};
		(losses, trainer.net.params().to_vec())
	}

	#[test]
	fn seeded_training_is_reproducible_and_the_same_on_any_number_of_threads() {
		let reference = seeded_run(1, true);
		// 400 samples of the 500 stay in the window, 3 uses each: twelve batches of 100.
		assert_eq!(reference.0.len(), 12);
		assert_ne!(reference.1, Network::new(Shape::default(), 3).params());
		for threads in [1, 2, 3] {
			for by_step in [true, false] {
				assert_eq!(
					seeded_run(threads, by_step),
					reference,
					"{threads} threads, by step: {by_step}"
				);
			}
		}
	}

	#[test]
	fn the_schedule_sets_each_steps_rate_and_resumes_from_adams_step() {
		let settings = TrainingSettings {
			batch_size: 10,
			window: 100,
			max_uses: 100,
			schedule: LearningRateSchedule {
				shape: schedule::ScheduleShape::Step {
					every: 2,
					factor: 0.5,
				},
				warmup_steps: 0,
			},
			..TrainingSettings::default()
		};
		let base = settings.adam.learning_rate;
		let mut trainer = Trainer::new(Network::new(Shape::default(), 1), settings, 1);
		trainer.add_samples(random_samples(100));
		trainer.step().unwrap();
		assert_eq!(trainer.adam.settings.learning_rate, base);
		trainer.step().unwrap();
		trainer.step().unwrap();
		// The third step is step 2: one fall.
		assert_eq!(trainer.adam.settings.learning_rate, base * 0.5);
		// Resumed from the saved parts, the next step (3) keeps that rate, and step 4 falls.
		let mut resumed = Trainer::resume(
			trainer.net.clone(),
			trainer.adam.clone(),
			trainer.window.clone(),
			settings,
			2,
		);
		resumed.step().unwrap();
		assert_eq!(resumed.adam.settings.learning_rate, base * 0.5);
		resumed.step().unwrap();
		assert_eq!(resumed.adam.settings.learning_rate, base * 0.25);
		// A constant schedule keeps the settings' rate at every step.
		let mut constant = Trainer::new(
			Network::new(Shape::default(), 1),
			TrainingSettings {
				schedule: LearningRateSchedule::default(),
				..TrainingSettings::default()
			},
			1,
		);
		constant.add_samples(random_samples(300));
		constant.step().unwrap();
		assert_eq!(constant.adam.settings.learning_rate, 1e-3);
		// The default warms up: the first step is at 1 / 5,000 of the base rate.
		let mut warming = Trainer::new(
			Network::new(Shape::default(), 1),
			TrainingSettings::default(),
			1,
		);
		warming.add_samples(random_samples(300));
		warming.step().unwrap();
		assert!((warming.adam.settings.learning_rate - 1e-3 / 5_000.0).abs() < 1e-12);
	}

	#[test]
	fn the_default_training_keeps_a_fixed_window_a_falling_rate_and_an_average() {
		let settings = TrainingSettings::default();
		assert_eq!(settings.window, 200_000);
		assert!(settings.window_growth.is_fixed());
		assert_eq!(settings.schedule.shape.to_string(), "cosine:1500000:0.1");
		assert_eq!(settings.schedule.warmup_steps, 5_000);
		assert_eq!(settings.adam.learning_rate, 1e-3);
		assert_eq!(settings.weight_average, 0.999);
	}

	#[test]
	fn the_candidate_is_the_running_average_when_one_is_kept() {
		let settings = TrainingSettings {
			batch_size: 10,
			window: 100,
			max_uses: 100,
			weight_average: 0.5,
			..TrainingSettings::default()
		};
		let start = Network::new(Shape::default(), 4);
		let mut trainer = Trainer::new(start.clone(), settings, 1);
		trainer.add_samples(random_samples(100));
		trainer.step().unwrap();
		// Halfway from the start to the weights after one step.
		let candidate = trainer.candidate();
		for ((c, s), w) in candidate
			.params()
			.iter()
			.zip(start.params())
			.zip(trainer.net.params())
		{
			assert!((c - (s + w) / 2.0).abs() < 1e-6);
		}
		assert_ne!(candidate.params(), trainer.net.params());
		// On threads the average follows the same steps.
		trainer.step().unwrap();
		let mut threaded = Trainer::new(
			start.clone(),
			TrainingSettings {
				threads: 2,
				..settings
			},
			1,
		);
		threaded.add_samples(random_samples(100));
		assert_eq!(threaded.train(2).len(), 2);
		assert_eq!(threaded.candidate().params(), trainer.candidate().params());
		// Without an average, the candidate is the net.
		let plain_settings = TrainingSettings {
			weight_average: 0.0,
			..TrainingSettings::default()
		};
		let mut plain = Trainer::new(start, plain_settings, 1);
		plain.add_samples(random_samples(300));
		plain.step().unwrap();
		assert!(plain.average.is_none());
		assert_eq!(plain.candidate().params(), plain.net.params());
	}

	#[test]
	fn training_on_threads_stops_when_the_window_is_used_up() {
		let settings = TrainingSettings {
			batch_size: 64,
			window: 100,
			max_uses: 2,
			threads: 2,
			..TrainingSettings::default()
		};
		let mut trainer = Trainer::new(Network::new(Shape::default(), 1), settings, 1);
		trainer.add_samples(random_samples(100));
		// 200 uses: three batches of 64, then too few left.
		assert_eq!(trainer.train(100).len(), 3);
		assert_eq!(trainer.adam.steps(), 3);
		assert_eq!(trainer.window.uses_left(), 200 - 3 * 64);
	}

	#[test]
	fn training_stops_when_the_window_is_used_up() {
		let settings = TrainingSettings {
			batch_size: 4,
			max_uses: 2,
			window: 100,
			..TrainingSettings::default()
		};
		let mut trainer = Trainer::new(
			Network::new(
				Shape {
					hidden1: 8,
					hidden2: 4,
				},
				1,
			),
			settings,
			1,
		);
		assert_eq!(trainer.step(), None);
		let sample = Sample {
			board: GameBoard::default(),
			turn: Turn::Sheep,
			score: 0.1,
			result: 1.0,
			ply: 0,
			generation: 0,
		};
		trainer.add_samples(std::iter::repeat_n(sample, 10));
		// 10 samples, 2 uses each: five batches of four.
		assert_eq!(trainer.train(100).len(), 5);
		assert_eq!(trainer.adam.steps(), 5);
	}
}
