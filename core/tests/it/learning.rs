//! Training on self-play samples lowers the loss on held-out positions from other games of the
//! same kind: the smallest proof that the learning pipeline learns.
//!
//! The games are between two `ClaudePlayer`s with the usual exploration. Their results depend on
//! the positions in ways a net can pick up (material, trapped tigers), so the trained net must
//! beat not only the untrained one but also the best constant guess. A fresh net's own games are
//! too random to show more than the mean within a test's budget.

use tigers_core::network::Shape;
use tigers_core::network::train::TrainingExample;
use tigers_core::replay::TargetSettings;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{Sample, SelfPlaySettings, play_self_play_game};
use tigers_core::trainer::schedule::LearningRateSchedule;
use tigers_core::trainer::{Trainer, TrainingSettings};
use tigers_core::{ClaudePlayer, Network};

fn self_play_samples(seeds: std::ops::Range<u64>) -> Vec<Sample> {
	let settings = SelfPlaySettings {
		max_plies: 150,
		..SelfPlaySettings::default()
	};
	let mut sheep = ClaudePlayer::with_settings(SearchSettings::fixed_depth(2));
	let mut tigers = ClaudePlayer::with_settings(SearchSettings::fixed_depth(2));
	seeds
		.flat_map(|seed| play_self_play_game(&mut sheep, &mut tigers, &settings, seed, 0).samples)
		.collect()
}

#[test]
fn training_lowers_held_out_loss() {
	// Train on the results alone: ClaudePlayer's scores are not in the net's -1..1 units.
	let targets = TargetSettings {
		result_weight: 1.0,
		..TargetSettings::default()
	};
	let examples = |samples: &[Sample]| -> Vec<TrainingExample> {
		samples
			.iter()
			.map(|s| TrainingExample {
				board: s.board.canonical().0,
				turn: s.turn,
				target: s.target(targets.result_weight),
			})
			.collect()
	};
	let train = self_play_samples(0..500);
	let held_out = examples(&self_play_samples(10_000..10_100));
	assert!(
		train.len() > 5_000 && held_out.len() > 500,
		"{} {}",
		train.len(),
		held_out.len()
	);

	let mean_target = examples(&train).iter().map(|e| e.target).sum::<f32>() / train.len() as f32;
	let constant_loss = held_out
		.iter()
		.map(|e| (e.target - mean_target).powi(2))
		.sum::<f32>()
		/ held_out.len() as f32;

	let settings = TrainingSettings {
		batch_size: 32,
		max_uses: 2,
		targets,
		// A constant rate from the first step: the test trains a few hundred steps, far fewer
		// than the default warm-up.
		schedule: LearningRateSchedule::default(),
		..TrainingSettings::default()
	};
	let mut trainer = Trainer::new(
		Network::new(
			Shape {
				hidden1: 32,
				hidden2: 16,
			},
			9,
		),
		settings,
		4,
	);
	let before = trainer.net.loss(&held_out);
	trainer.add_samples(train);
	let steps = trainer.train(100_000).len();
	let after = trainer.net.loss(&held_out);
	assert!(steps > 300, "only {steps} steps");
	assert!(
		after < 0.7 * before,
		"held-out loss {before} -> {after} after {steps} steps"
	);
	assert!(
		after < 0.9 * constant_loss,
		"{after} is no better than the mean ({constant_loss})"
	);
}
