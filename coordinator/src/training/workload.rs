//! Work per sample that follows the fleet: the self-play search depth goes up while samples
//! arrive faster than the trainer can use them, and down again once a shallower search would
//! no longer overfeed it.
//!
//! The trainer uses at most `batch x steps/s / uses per sample` fresh samples a second (its
//! capacity, [`Rates::trainable`]); samples beyond that leave the replay window having been
//! drawn fewer times than they could be, or never. A deeper search costs the fleet more CPU per
//! sample and gives better targets, so a fleet that outruns the trainer is asked for deeper
//! searches instead (docs/training.md, "Work per sample"; docs/scaling.md has the figures).
//!
//! [`next_depth`] is the rule, a pure function of the rates; [`DepthControl`] is the training
//! thread's bookkeeping around it: it measures both rates over each period and decides once a
//! period, so the depth changes at most once a period and each decision sees only rates
//! measured at the depth in force.

use std::time::{Duration, Instant};

use tigers_core::replay::Departed;
use tigers_proto::v1;

/// Samples a second arriving at the coordinator, and fresh samples a second the trainer can use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rates {
	/// Samples stored per second.
	pub arriving: f64,
	/// Training steps per second while training, times the batch size, over the uses allowed
	/// per sample: the fresh samples a second the trainer can take; 0 if not known yet.
	pub trainable: f64,
}

/// How many times as many samples a second a search one ply shallower gives, at the most:
/// `worker bench` on one thread measured 5.8 from depth 3 to 2 and 5.7 from 5 to 4, but only
/// 2.5 to 2.7 from the even depths (docs/scaling.md; measured with input encoding 1, the bench's
/// default then, and not yet again with encoding 2). The rule lowers the depth only when even
/// this many samples would not overfeed the trainer, so a lowered depth is not raised again at
/// the next decision; the price is a depth kept while the trainer could take up to about six
/// times the arrival.
pub(crate) const SHALLOWER_GAIN: f64 = 6.0;

/// The depth is lowered only if the shallower search's expected arrival is below this share
/// of the trainer's capacity: a margin for the rates' noise.
pub(crate) const LOWER_BELOW: f64 = 0.8;

/// The self-play depth for the next period, within `min..=max` (a `max` below `min` counts as
/// `min`), given the `rates` measured at `current`:
///
/// - one ply deeper if samples arrive faster than the trainer can use them;
/// - one ply shallower if [`SHALLOWER_GAIN`] times the arrival would still be under
///   [`LOWER_BELOW`] of the capacity;
/// - otherwise, or when the capacity is not known, `current` (brought within the bounds).
///
/// Between the two thresholds the depth stays where it is: that band is the hysteresis that
/// keeps it from going up and down on every decision.
pub(crate) fn next_depth(rates: Rates, min: u32, max: u32, current: u32) -> u32 {
	let max = max.max(min);
	let current = current.clamp(min, max);
	let known = rates.trainable.is_finite() && rates.trainable > 0.0 && rates.arriving.is_finite();
	if !known {
		current
	} else if rates.arriving > rates.trainable && current < max {
		current + 1
	} else if rates.arriving * SHALLOWER_GAIN < rates.trainable * LOWER_BELOW && current > min {
		current - 1
	} else {
		current
	}
}

/// The training thread's measurements for [`next_depth`]: samples added to the window, and
/// steps taken with the time they took, over the current period.
#[derive(Debug)]
pub(crate) struct DepthControl {
	min: u32,
	max: u32,
	period: Duration,
	/// Examples per step over uses per sample: fresh samples a step consumes.
	samples_per_step: f64,
	depth: u32,
	period_start: Instant,
	arrived: u64,
	steps: u64,
	busy: Duration,
	departed_at_start: Departed,
	/// The last capacity measured, kept through periods without steps.
	trainable: f64,
	figures: v1::SelfPlayWork,
}

impl DepthControl {
	/// Control between `min` and `max` (at least `min`) starting at `min`, deciding every
	/// `period`; a step trains on `batch_size` examples, each sample drawn at most `max_uses`
	/// times. `departed` is the window's count so far.
	pub(crate) fn new(
		min: u32,
		max: u32,
		period: Duration,
		batch_size: usize,
		max_uses: u32,
		departed: Departed,
		now: Instant,
	) -> DepthControl {
		let max = max.max(min);
		DepthControl {
			min,
			max,
			period,
			samples_per_step: batch_size as f64 / f64::from(max_uses.max(1)),
			depth: min,
			period_start: now,
			arrived: 0,
			steps: 0,
			busy: Duration::ZERO,
			departed_at_start: departed,
			trainable: 0.0,
			figures: v1::SelfPlayWork {
				depth: min,
				depth_min: min,
				depth_max: max,
				..v1::SelfPlayWork::default()
			},
		}
	}

	/// Counts samples added to the window.
	pub(crate) fn arrived(&mut self, samples: usize) {
		self.arrived += samples as u64;
	}

	/// Counts training steps and the time they took.
	pub(crate) fn trained(&mut self, steps: usize, took: Duration) {
		if steps > 0 {
			self.steps += steps as u64;
			self.busy += took;
		}
	}

	/// The depth in force.
	#[cfg(test)]
	fn depth(&self) -> u32 {
		self.depth
	}

	/// At the end of a period (`None` before): measures its rates and the samples that left the
	/// window (`departed`, the window's count so far), decides the depth for the next one, and
	/// starts it. Returns the new figures; their depth is the one to play from now on.
	pub(crate) fn tick(&mut self, now: Instant, departed: Departed) -> Option<v1::SelfPlayWork> {
		let elapsed = now.saturating_duration_since(self.period_start);
		if elapsed < self.period {
			return None;
		}
		if self.steps > 0 && !self.busy.is_zero() {
			self.trainable = self.steps as f64 / self.busy.as_secs_f64() * self.samples_per_step;
		}
		let rates = Rates {
			arriving: self.arrived as f64 / elapsed.as_secs_f64(),
			trainable: self.trainable,
		};
		let left = departed.since(&self.departed_at_start);
		self.depth = next_depth(rates, self.min, self.max, self.depth);
		self.figures = v1::SelfPlayWork {
			depth: self.depth,
			depth_min: self.min,
			depth_max: self.max,
			arriving_per_second: rates.arriving,
			trainable_per_second: rates.trainable,
			// A period in which no sample left keeps the last share shown.
			trained_share: left.trained_share().or(self.figures.trained_share),
			mean_uses: left.mean_uses().or(self.figures.mean_uses),
		};
		self.period_start = now;
		self.arrived = 0;
		self.steps = 0;
		self.busy = Duration::ZERO;
		self.departed_at_start = departed;
		Some(self.figures)
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn rates(arriving: f64, trainable: f64) -> Rates {
		Rates {
			arriving,
			trainable,
		}
	}

	#[test]
	fn an_overfed_trainer_gets_deeper_searches_up_to_the_bound() {
		assert_eq!(next_depth(rates(12_000.0, 10_000.0), 3, 5, 3), 4);
		assert_eq!(next_depth(rates(12_000.0, 10_000.0), 3, 5, 4), 5);
		assert_eq!(next_depth(rates(90_000.0, 10_000.0), 3, 5, 5), 5);
		// One ply a decision, however far over.
		assert_eq!(next_depth(rates(1e9, 1.0), 3, 5, 3), 4);
	}

	#[test]
	fn a_starved_trainer_gets_shallower_searches_down_to_the_bound() {
		// Six times 1,000 is 6,000, under 80% of 10,000.
		assert_eq!(next_depth(rates(1_000.0, 10_000.0), 3, 5, 5), 4);
		assert_eq!(next_depth(rates(0.0, 10_000.0), 3, 5, 4), 3);
		assert_eq!(next_depth(rates(0.0, 10_000.0), 3, 5, 3), 3);
	}

	#[test]
	fn between_the_thresholds_the_depth_stays() {
		// Under capacity, but a ply shallower could overfeed: 6 x 1,500 > 8,000.
		for arriving in [1_500.0, 5_000.0, 9_999.0, 10_000.0] {
			assert_eq!(next_depth(rates(arriving, 10_000.0), 3, 5, 4), 4);
		}
		// Just either side of the band.
		assert_eq!(next_depth(rates(10_001.0, 10_000.0), 3, 5, 4), 5);
		assert_eq!(next_depth(rates(1_300.0, 10_000.0), 3, 5, 4), 3);
	}

	#[test]
	fn unknown_capacity_changes_nothing_but_the_bounds_hold() {
		for trainable in [0.0, f64::NAN, -1.0] {
			assert_eq!(next_depth(rates(50_000.0, trainable), 3, 5, 4), 4);
		}
		assert_eq!(next_depth(rates(f64::INFINITY, 10.0), 3, 5, 4), 4);
		// A depth from outside the bounds (they changed over a restart) is brought in.
		assert_eq!(next_depth(rates(0.0, 0.0), 3, 5, 9), 5);
		assert_eq!(next_depth(rates(0.0, 0.0), 3, 5, 1), 3);
		// A maximum below the minimum is the minimum: adaptation off.
		assert_eq!(next_depth(rates(1e9, 1.0), 4, 2, 4), 4);
	}

	#[test]
	fn control_decides_once_a_period_on_that_periods_rates() {
		let start = Instant::now();
		let second = Duration::from_secs(1);
		let departed = Departed::default();
		// Batches of 256, 8 uses: 32 fresh samples a step.
		let mut control = DepthControl::new(2, 4, 10 * second, 256, 8, departed, start);
		assert_eq!(control.depth(), 2);
		control.trained(100, second / 10);
		control.arrived(500_000);
		assert_eq!(control.tick(start + 9 * second, departed), None);
		// 1,000 steps/s x 32 = 32,000 trainable; 50,000 arrived per second.
		let figures = control.tick(start + 10 * second, departed).unwrap();
		assert_eq!(figures.depth, 3);
		assert_eq!(figures.arriving_per_second, 50_000.0);
		assert_eq!(figures.trainable_per_second, 32_000.0);
		assert_eq!(figures.trained_share, None);
		// A period without steps keeps the capacity; nothing arrived: one ply shallower.
		let departed = Departed {
			samples: 100,
			unused: 25,
			uses: 300,
		};
		let figures = control.tick(start + 20 * second, departed).unwrap();
		assert_eq!(figures.depth, 2);
		assert_eq!(figures.trainable_per_second, 32_000.0);
		assert_eq!(figures.trained_share, Some(0.75));
		assert_eq!(figures.mean_uses, Some(3.0));
		// No sample left in the next period: the last share stands.
		let figures = control.tick(start + 30 * second, departed).unwrap();
		assert_eq!(figures.trained_share, Some(0.75));
		assert_eq!((figures.depth_min, figures.depth_max), (2, 4));
	}
}
