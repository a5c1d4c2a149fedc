//! How training's settings change as a run goes on: the learning rate as a function of the
//! optimiser's step, and the replay window's size as a function of the samples seen. Both are
//! pure, so a run that stops and resumes at the same step and sample count goes on exactly as
//! if it had not stopped.

use std::fmt;
use std::str::FromStr;

/// How the learning rate follows the optimiser's step: a shape times an optional linear
/// warm-up. The rate at a step is the base rate (`AdamSettings::learning_rate`) times the
/// shape's factor at that step, times the warm-up's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LearningRateSchedule {
	/// How the rate falls.
	pub shape: ScheduleShape,
	/// Steps over which the rate rises linearly from `1 / warmup_steps` of its value to all of
	/// it; 0 for none. The shape counts from step 0 all the same.
	pub warmup_steps: u64,
}

impl Default for LearningRateSchedule {
	/// A constant rate without warm-up: how every run trained before schedules existed.
	fn default() -> LearningRateSchedule {
		LearningRateSchedule {
			shape: ScheduleShape::Constant,
			warmup_steps: 0,
		}
	}
}

impl LearningRateSchedule {
	/// The rate for the step numbered `step` (0 for the first), from the base rate `base`.
	pub fn rate(&self, base: f32, step: u64) -> f32 {
		let warmup = if step < self.warmup_steps {
			(step + 1) as f64 / self.warmup_steps as f64
		} else {
			1.0
		};
		(f64::from(base) * self.shape.factor(step) * warmup) as f32
	}
}

/// The shape of a learning-rate schedule: the factor (at most 1) the base rate is multiplied by
/// at each step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScheduleShape {
	/// The base rate at every step.
	Constant,
	/// Multiplied by `factor` after every `every` steps: `factor ^ (step / every)`.
	Step {
		/// Steps between two falls (at least 1).
		every: u64,
		/// What each fall multiplies the rate by, in `0..=1`.
		factor: f64,
	},
	/// Half a cosine from the base rate down to `floor` times it over `period` steps, then
	/// `floor` times it.
	Cosine {
		/// Steps to reach the floor (at least 1).
		period: u64,
		/// The last factor, in `0..=1`.
		floor: f64,
	},
	/// `1 / (1 + step / half_life)`: half the base rate after `half_life` steps, a third after
	/// twice as many.
	InverseTime {
		/// Steps to half the base rate (at least 1).
		half_life: u64,
	},
}

impl ScheduleShape {
	/// The factor at the step numbered `step`.
	pub fn factor(&self, step: u64) -> f64 {
		match *self {
			ScheduleShape::Constant => 1.0,
			ScheduleShape::Step { every, factor } => {
				let falls = step / every.max(1);
				factor.powf(falls as f64)
			}
			ScheduleShape::Cosine { period, floor } => {
				let done = (step as f64 / period.max(1) as f64).min(1.0);
				floor + (1.0 - floor) * 0.5 * (1.0 + (std::f64::consts::PI * done).cos())
			}
			ScheduleShape::InverseTime { half_life } => {
				1.0 / (1.0 + step as f64 / half_life.max(1) as f64)
			}
		}
	}
}

/// The text of a shape as the command line takes it: `constant`, `step:EVERY:FACTOR`,
/// `cosine:PERIOD:FLOOR` or `inverse:HALF_LIFE`.
impl fmt::Display for ScheduleShape {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		match self {
			ScheduleShape::Constant => write!(f, "constant"),
			ScheduleShape::Step { every, factor } => write!(f, "step:{every}:{factor}"),
			ScheduleShape::Cosine { period, floor } => write!(f, "cosine:{period}:{floor}"),
			ScheduleShape::InverseTime { half_life } => write!(f, "inverse:{half_life}"),
		}
	}
}

/// Why a schedule's text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
	"{text:?} is not a learning-rate schedule ({why}); write constant, step:EVERY:FACTOR, \
	 cosine:PERIOD:FLOOR or inverse:HALF_LIFE, e.g. step:200000:0.5"
)]
pub struct ScheduleError {
	/// The text refused.
	pub text: String,
	/// What is wrong with it.
	pub why: String,
}

impl FromStr for ScheduleShape {
	type Err = ScheduleError;

	fn from_str(text: &str) -> Result<ScheduleShape, ScheduleError> {
		let refuse = |why: &str| ScheduleError {
			text: text.to_string(),
			why: why.to_string(),
		};
		let parts: Vec<&str> = text.split(':').collect();
		let steps = |part: &str| match part.parse::<u64>() {
			Ok(steps) if steps > 0 => Ok(steps),
			_ => Err(refuse("a step count must be a whole number above 0")),
		};
		let share = |part: &str| match part.parse::<f64>() {
			Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
			_ => Err(refuse("a factor must be a number from 0 to 1")),
		};
		match parts.as_slice() {
			["constant"] => Ok(ScheduleShape::Constant),
			["step", every, factor] => Ok(ScheduleShape::Step {
				every: steps(every)?,
				factor: share(factor)?,
			}),
			["cosine", period, floor] => Ok(ScheduleShape::Cosine {
				period: steps(period)?,
				floor: share(floor)?,
			}),
			["inverse", half_life] => Ok(ScheduleShape::InverseTime {
				half_life: steps(half_life)?,
			}),
			_ => Err(refuse("unknown shape or wrong number of parts")),
		}
	}
}

/// How the replay window grows with the samples seen, by KataGo's rule: with `c` the base
/// window and `n` the samples seen, `c * (1 + beta * ((n / c)^alpha - 1) / alpha)` once `n`
/// passes `c`, and `c` before. `beta` 0 keeps the window at `c`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowGrowth {
	/// How the growth bends, in `(0, 1]`: 1 grows in proportion to the samples seen, lower
	/// values ever more slowly.
	pub alpha: f64,
	/// How fast the window grows, at least 0; 0 for a fixed window.
	pub beta: f64,
	/// The most samples the window may hold whatever the rule says; 0 for no bound. Each
	/// sample costs about 40 bytes in memory and 35 in every checkpoint.
	pub max: usize,
}

/// KataGo's `alpha`, from its paper's appendix and its `shuffle.py`.
pub const KATAGO_ALPHA: f64 = 0.75;
/// KataGo's `beta`, from the same places (with a base window of 250,000 samples).
pub const KATAGO_BETA: f64 = 0.4;

impl Default for WindowGrowth {
	/// No growth (`beta` 0): the fixed window every run had before the rule existed; `alpha`
	/// is KataGo's, ready for a `beta` to be set.
	fn default() -> WindowGrowth {
		WindowGrowth {
			alpha: KATAGO_ALPHA,
			beta: 0.0,
			max: 0,
		}
	}
}

impl WindowGrowth {
	/// Whether the window ever grows.
	pub fn is_fixed(&self) -> bool {
		self.beta == 0.0
	}

	/// The window's size after `samples_seen` samples, from the base window `base`: never
	/// below `base`, never above `max` (when it is set and above `base`).
	pub fn capacity(&self, base: usize, samples_seen: u64) -> usize {
		let base = base.max(1);
		if self.is_fixed() || samples_seen <= base as u64 {
			return base;
		}
		let c = base as f64;
		let alpha = self.alpha.clamp(f64::MIN_POSITIVE, 1.0);
		let grown = c * (1.0 + self.beta * ((samples_seen as f64 / c).powf(alpha) - 1.0) / alpha);
		let bound = if self.max == 0 {
			usize::MAX
		} else {
			self.max.max(base)
		};
		// `as` saturates a float beyond the integer's range.
		(grown as usize).clamp(base, bound)
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn close(a: f64, b: f64) -> bool {
		(a - b).abs() <= 1e-9 * b.abs().max(1.0)
	}

	#[test]
	fn the_default_schedule_is_todays_constant_rate() {
		let schedule = LearningRateSchedule::default();
		assert_eq!(schedule.shape, ScheduleShape::Constant);
		assert_eq!(schedule.warmup_steps, 0);
		for step in [0, 1, 1_000, 10_000_000] {
			assert_eq!(schedule.rate(1e-3, step), 1e-3);
		}
	}

	#[test]
	fn a_step_schedule_falls_by_its_factor_every_so_many_steps() {
		let shape = ScheduleShape::Step {
			every: 100,
			factor: 0.5,
		};
		assert_eq!(shape.factor(0), 1.0);
		assert_eq!(shape.factor(99), 1.0);
		assert_eq!(shape.factor(100), 0.5);
		assert_eq!(shape.factor(250), 0.25);
	}

	#[test]
	fn a_cosine_schedule_falls_from_one_to_its_floor_and_stays() {
		let shape = ScheduleShape::Cosine {
			period: 1_000,
			floor: 0.1,
		};
		assert!(close(shape.factor(0), 1.0));
		assert!(close(shape.factor(500), 0.55));
		assert!(close(shape.factor(1_000), 0.1));
		assert!(close(shape.factor(5_000), 0.1));
		let falls = (0..=1_000).map(|s| shape.factor(s)).collect::<Vec<_>>();
		assert!(falls.windows(2).all(|w| w[1] <= w[0]));
	}

	#[test]
	fn an_inverse_time_schedule_halves_after_its_half_life() {
		let shape = ScheduleShape::InverseTime { half_life: 400 };
		assert_eq!(shape.factor(0), 1.0);
		assert!(close(shape.factor(400), 0.5));
		assert!(close(shape.factor(800), 1.0 / 3.0));
	}

	#[test]
	fn the_warm_up_rises_linearly_to_the_scheduled_rate() {
		let schedule = LearningRateSchedule {
			shape: ScheduleShape::Constant,
			warmup_steps: 4,
		};
		let rates: Vec<f32> = (0..6).map(|s| schedule.rate(1.0, s)).collect();
		assert_eq!(rates, [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]);
		let decaying = LearningRateSchedule {
			shape: ScheduleShape::Step {
				every: 2,
				factor: 0.5,
			},
			warmup_steps: 4,
		};
		// The shape counts from step 0 under the warm-up too.
		assert_eq!(decaying.rate(1.0, 2), 0.75 * 0.5);
	}

	#[test]
	fn a_shape_reads_back_from_its_text_and_bad_texts_are_refused() {
		for shape in [
			ScheduleShape::Constant,
			ScheduleShape::Step {
				every: 200_000,
				factor: 0.5,
			},
			ScheduleShape::Cosine {
				period: 1_000_000,
				floor: 0.05,
			},
			ScheduleShape::InverseTime { half_life: 300_000 },
		] {
			assert_eq!(shape.to_string().parse(), Ok(shape));
		}
		for bad in [
			"",
			"linear",
			"step:0:0.5",
			"step:10:1.5",
			"cosine:10",
			"inverse:x",
		] {
			let error = bad.parse::<ScheduleShape>().unwrap_err();
			assert!(error.to_string().contains("step:EVERY:FACTOR"), "{error}");
		}
	}

	#[test]
	fn the_default_window_does_not_grow() {
		let growth = WindowGrowth::default();
		assert!(growth.is_fixed());
		assert_eq!((growth.alpha, growth.beta, growth.max), (0.75, 0.0, 0));
		for seen in [0, 200_000, 40_000_000] {
			assert_eq!(growth.capacity(200_000, seen), 200_000);
		}
	}

	#[test]
	fn katagos_window_grows_as_its_formula_says() {
		let growth = WindowGrowth {
			alpha: KATAGO_ALPHA,
			beta: KATAGO_BETA,
			max: 0,
		};
		let c = 250_000;
		// Until the base window is full, the base window.
		assert_eq!(growth.capacity(c, 0), c);
		assert_eq!(growth.capacity(c, c as u64), c);
		// At 16 c: (16)^0.75 = 8, so c (1 + 0.4 * 7 / 0.75) = c * 4.7333...
		assert_eq!(growth.capacity(c, 16 * c as u64), 1_183_333);
		// The 60-minute run's 39.8 million samples: about 6.1 million.
		let hour = growth.capacity(c, 39_800_000);
		assert!((6_000_000..6_200_000).contains(&hour), "{hour}");
		let sizes: Vec<usize> = (1..50).map(|k| growth.capacity(c, k * 1_000_000)).collect();
		assert!(sizes.windows(2).all(|w| w[1] >= w[0]));
	}

	#[test]
	fn a_bound_caps_the_window_but_never_below_the_base() {
		let growth = WindowGrowth {
			alpha: 1.0,
			beta: 1.0,
			max: 1_000,
		};
		// alpha = beta = 1 keeps every sample seen.
		assert_eq!(growth.capacity(100, 700), 700);
		assert_eq!(growth.capacity(100, 5_000), 1_000);
		let low = WindowGrowth { max: 50, ..growth };
		assert_eq!(low.capacity(100, 5_000), 100);
	}
}
