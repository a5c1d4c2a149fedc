//! Reconnection delays: exponential backoff with jitter.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The bounds of the reconnection delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackoffSettings {
	/// The ceiling of the first delay; it doubles after every failed attempt.
	pub initial: Duration,
	/// The largest ceiling.
	pub max: Duration,
}

impl Default for BackoffSettings {
	/// 0.5 s doubling to 30 s: a restarted coordinator is found within a second or two, and a
	/// fleet waiting for one that is down for long costs it a connection attempt per worker
	/// every 15 to 30 s.
	fn default() -> BackoffSettings {
		BackoffSettings {
			initial: Duration::from_millis(500),
			max: Duration::from_secs(30),
		}
	}
}

/// The delays before successive reconnection attempts.
///
/// Attempt `n` (from 0) has the ceiling `min(max, initial * 2^n)` and waits a uniformly random
/// time between half the ceiling and the ceiling ("equal jitter"). The jitter spreads out a
/// fleet that lost its coordinator at the same instant, so they do not all knock at once when
/// it comes back; keeping the lower half keeps the exponential spacing.
#[derive(Debug)]
pub(crate) struct Backoff {
	settings: BackoffSettings,
	attempt: u32,
	rng: SmallRng,
}

impl Backoff {
	/// A backoff at its first attempt, with jitter drawn from `seed`.
	pub(crate) fn new(settings: BackoffSettings, seed: u64) -> Backoff {
		Backoff {
			settings,
			attempt: 0,
			rng: SmallRng::seed_from_u64(seed),
		}
	}

	/// The ceiling of attempt `attempt`.
	pub(crate) fn ceiling(&self, attempt: u32) -> Duration {
		// 2^20 times any sensible initial delay is past any sensible maximum; capping the
		// exponent keeps the multiplication from overflowing.
		let factor = 1u32 << attempt.min(20);
		self.settings
			.initial
			.saturating_mul(factor)
			.min(self.settings.max)
	}

	/// The delay before the next attempt; each call counts one more failure.
	pub(crate) fn next_delay(&mut self) -> Duration {
		let ceiling = self.ceiling(self.attempt);
		self.attempt = self.attempt.saturating_add(1);
		let fraction = self.rng.random_range(0.5..=1.0);
		ceiling.mul_f64(fraction)
	}

	/// Back to the first delay, after a connection that worked.
	pub(crate) fn reset(&mut self) {
		self.attempt = 0;
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn backoff(seed: u64) -> Backoff {
		Backoff::new(BackoffSettings::default(), seed)
	}

	#[test]
	fn ceilings_double_from_half_a_second_to_thirty() {
		let b = backoff(1);
		let ceilings: Vec<u64> = (0..9).map(|n| b.ceiling(n).as_millis() as u64).collect();
		assert_eq!(
			ceilings,
			[500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
		);
		assert_eq!(b.ceiling(u32::MAX), Duration::from_secs(30));
	}

	#[test]
	fn delays_stay_between_half_the_ceiling_and_the_ceiling() {
		for seed in 0..50 {
			let mut b = backoff(seed);
			for attempt in 0..12 {
				let ceiling = b.ceiling(attempt);
				let delay = b.next_delay();
				assert!(
					delay >= ceiling / 2 && delay <= ceiling,
					"attempt {attempt}: {delay:?} outside [{:?}, {ceiling:?}]",
					ceiling / 2
				);
			}
		}
	}

	#[test]
	fn delays_are_jittered() {
		let firsts: std::collections::HashSet<Duration> =
			(0..20).map(|seed| backoff(seed).next_delay()).collect();
		assert!(firsts.len() > 10, "{firsts:?}");
	}

	#[test]
	fn reset_starts_over() {
		let mut b = backoff(3);
		for _ in 0..6 {
			b.next_delay();
		}
		assert!(b.next_delay() >= Duration::from_secs(15));
		b.reset();
		assert!(b.next_delay() <= Duration::from_millis(500));
	}
}
