//! `coordinator`'s flags for self-play and training: the search depths, the batches, the
//! replay window, the targets, the learning rate, the net's shape and input encoding, and the
//! steps between candidates and checkpoints.

use std::time::Duration;

use clap::Args;
use clap::builder::RangedU64ValueParser;
use tigers_coordinator::config::RunSettings;
use tigers_core::network::{Encoding, Shape};
use tigers_core::trainer::schedule::{LearningRateSchedule, ScheduleShape, WindowGrowth};

use crate::cli::common::{number_where, run_defaults, share};

/// Self-play's and training's flags.
#[derive(Args)]
pub(crate) struct TrainingArgs {
	/// Search depth of the gate, and of self-play at the start and at the least (1 to 16).
	#[arg(long, default_value_t = run_defaults().depth,
		value_parser = clap::value_parser!(u32).range(1..=16))]
	depth: u32,
	/// The deepest self-play search asked of workers while they send samples faster than the
	/// trainer can use them (up to 16); at most --depth keeps self-play at --depth.
	#[arg(long, value_name = "DEPTH", default_value_t = run_defaults().adapt.max_depth,
		value_parser = clap::value_parser!(u32).range(0..=16))]
	self_play_depth_max: u32,
	/// Seconds of sample and training rates behind each decision on the self-play depth: the
	/// least time between two changes.
	#[arg(long, value_name = "SECONDS",
		default_value_t = run_defaults().adapt.period.as_secs())]
	self_play_depth_seconds: u64,
	/// Games per sample batch.
	#[arg(long, default_value_t = run_defaults().games_per_batch)]
	games_per_batch: u32,
	/// Examples per training step.
	#[arg(long, default_value_t = run_defaults().training.batch_size)]
	batch_size: usize,
	/// Samples in the replay window: its size, or its base size c if it grows (--window-beta).
	#[arg(long, default_value_t = run_defaults().training.window)]
	window: usize,
	/// The window's growth with the samples seen n, by KataGo's rule c * (1 + beta * ((n / c)
	/// ^ alpha - 1) / alpha) once n passes c: its beta, at least 0; 0 keeps the window fixed.
	#[arg(long, default_value_t = run_defaults().training.window_growth.beta,
		value_parser = growth_beta)]
	window_beta: f64,
	/// The growing window's alpha, above 0 and at most 1 (KataGo's 0.75 by default).
	#[arg(long, default_value_t = run_defaults().training.window_growth.alpha,
		value_parser = growth_alpha)]
	window_alpha: f64,
	/// The most samples a growing window may hold (each costs about 40 bytes of memory and 35
	/// in every checkpoint); 0 for no bound.
	#[arg(long, value_name = "SAMPLES", default_value_t = run_defaults().training.window_growth.max)]
	window_max: usize,
	/// Times each sample may be trained on.
	#[arg(long, default_value_t = run_defaults().training.max_uses)]
	max_uses: u32,
	/// Hidden layer widths of the net, as H1xH2: a new run's generation 0 has them (64x32 when
	/// left out); a resumed run keeps the shape it started with and refuses another.
	#[arg(long, value_name = "H1xH2")]
	net_shape: Option<Shape>,
	/// The net's input encoding: 1, pieces and counts, or 2 (when left out), those and a plane
	/// of the sheep a tiger could capture now. A new run's generation 0 reads it; a resumed run
	/// keeps the encoding it started with and refuses another. Workers older than encoding 2
	/// can serve only a run of encoding 1.
	#[arg(long, value_name = "VERSION")]
	input_version: Option<Encoding>,
	/// Weight of the game result in the target (the rest is the search score).
	#[arg(long, default_value_t = run_defaults().training.targets.result_weight,
		value_parser = share::<f32>)]
	result_weight: f32,
	/// Adam's learning rate: the base rate of the schedule.
	#[arg(long, default_value_t = run_defaults().training.adam.learning_rate)]
	learning_rate: f32,
	/// How the learning rate falls with the training step: constant; step:EVERY:FACTOR (times
	/// FACTOR every EVERY steps); cosine:PERIOD:FLOOR (half a cosine down to FLOOR times the
	/// rate over PERIOD steps); inverse:HALF_LIFE (the rate / (1 + step / HALF_LIFE)).
	#[arg(long, value_name = "SHAPE", default_value_t = run_defaults().training.schedule.shape)]
	lr_schedule: ScheduleShape,
	/// The decay (0 to below 1) of a running average of the weights, which is then the
	/// candidate instead of the weights themselves; 0 keeps no average.
	#[arg(long, value_name = "DECAY", default_value_t = run_defaults().training.weight_average,
		value_parser = decay)]
	weight_average: f32,
	/// Steps over which the learning rate rises linearly to the schedule's; 0 for none.
	#[arg(long, value_name = "STEPS",
		default_value_t = run_defaults().training.schedule.warmup_steps)]
	lr_warmup_steps: u64,
	/// Training steps between candidates (and between checkpoints).
	#[arg(long, default_value_t = run_defaults().steps_per_candidate)]
	steps_per_candidate: u64,
	/// Longest time between checkpoints while training, in seconds: the most training a crash
	/// can cost, unless checkpoints are slow to write (a large window), when they are held to a
	/// tenth of the training thread's time.
	#[arg(long, value_name = "SECONDS", default_value_t = run_defaults().checkpoint_every.as_secs())]
	checkpoint_seconds: u64,
	/// Threads each training step computes its gradient on (1 to 64); the result does not
	/// depend on it. More pays only where cores are left over from self-play and gating.
	#[arg(long, default_value_t = run_defaults().training.threads,
		value_parser = RangedU64ValueParser::<usize>::new().range(1..=64))]
	train_threads: usize,
}

impl TrainingArgs {
	/// Sets the search depths of the gate and of self-play, the games in a batch, and the
	/// trainer's settings (window, targets, learning rate, threads, and the steps between
	/// candidates and checkpoints) in `run`.
	pub(super) fn apply(&self, run: &mut RunSettings) {
		run.depth = self.depth;
		run.gate.search.max_depth = self.depth;
		run.adapt.max_depth = self.self_play_depth_max.max(self.depth);
		run.adapt.period = Duration::from_secs(self.self_play_depth_seconds.max(1));
		run.games_per_batch = self.games_per_batch.clamp(1, 1000);
		run.shape = self.net_shape;
		run.encoding = self.input_version;
		run.steps_per_candidate = self.steps_per_candidate.max(1);
		run.steps_per_checkpoint = run.steps_per_candidate;
		run.checkpoint_every = Duration::from_secs(self.checkpoint_seconds.max(1));
		let training = &mut run.training;
		training.batch_size = self.batch_size.max(1);
		training.window = self.window.max(self.batch_size);
		training.window_growth = WindowGrowth {
			alpha: self.window_alpha,
			beta: self.window_beta,
			max: self.window_max,
		};
		training.max_uses = self.max_uses.max(1);
		training.targets.result_weight = self.result_weight;
		training.adam.learning_rate = self.learning_rate;
		training.weight_average = self.weight_average;
		training.schedule = LearningRateSchedule {
			shape: self.lr_schedule,
			warmup_steps: self.lr_warmup_steps,
		};
		training.threads = self.train_threads;
	}
}

/// A running average's decay, 0 to below 1 (`--weight-average`).
fn decay(text: &str) -> Result<f32, String> {
	number_where(text, |value| (0.0..1.0).contains(value), "0 to below 1")
}

/// The window's growth beta, 0 or more (`--window-beta`).
fn growth_beta(text: &str) -> Result<f64, String> {
	number_where(
		text,
		|value: &f64| *value >= 0.0 && value.is_finite(),
		"0 or more",
	)
}

/// The window's growth alpha, above 0 and at most 1 (`--window-alpha`).
fn growth_alpha(text: &str) -> Result<f64, String> {
	number_where(
		text,
		|value| *value > 0.0 && *value <= 1.0,
		"above 0 and at most 1",
	)
}
