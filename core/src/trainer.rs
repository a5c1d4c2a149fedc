//! `Trainer`: a net with its optimiser, the replay window and the seeded randomness that draws
//! mini-batches, so the coordinator, the experiments and the tests train the same way.

use std::sync::Arc;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::network::Network;
use crate::network::train::{Adam, AdamSettings};
use crate::replay::{ReplayWindow, TargetSettings};
use crate::selfplay::Sample;
use crate::tablebase::Tablebase;

/// How training runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainingSettings {
	/// Examples per optimiser step.
	pub batch_size: usize,
	/// Samples the replay window holds.
	pub window: usize,
	/// How many times a sample may be trained on.
	pub max_uses: u32,
	/// Targets and augmentation.
	pub targets: TargetSettings,
	/// The optimiser.
	pub adam: AdamSettings,
}

impl Default for TrainingSettings {
	/// Batches of 256 from a window of 200,000 samples, each used at most 8 times; these
	/// trained steadily in the experiments recorded in docs/training.md.
	fn default() -> TrainingSettings {
		TrainingSettings {
			batch_size: 256,
			window: 200_000,
			max_uses: 8,
			targets: TargetSettings::default(),
			adam: AdamSettings::default(),
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
		Trainer {
			net,
			adam,
			window,
			settings,
			tablebase: None,
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
	/// batch's loss before the step.
	pub fn step(&mut self) -> Option<f32> {
		let batch = self.window.draw_batch(
			self.settings.batch_size,
			&self.settings.targets,
			self.tablebase.as_deref(),
			&mut self.rng,
		)?;
		Some(self.net.train_step(&mut self.adam, &batch))
	}

	/// Up to `max_steps` steps, as many as the window allows; returns their losses.
	pub fn train(&mut self, max_steps: usize) -> Vec<f32> {
		(0..max_steps).map_while(|_| self.step()).collect()
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::board::GameBoard;
	use crate::moves::Turn;
	use crate::network::Shape;

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
