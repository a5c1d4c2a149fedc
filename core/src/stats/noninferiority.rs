//! The card's second test: a candidate that beat the incumbent head to head must not play worse
//! than the incumbent against `ClaudePlayer`, by more than a stated margin.
//!
//! Both nets play `ClaudePlayer` on the same openings, so each opening gives a paired
//! difference: the candidate's pair score minus the incumbent's. Nets a generation apart play
//! most openings the same way, so the differences vary far less than two separate matches'
//! scores do, and the test can be both strict (a one-sided 95% bound) and rarely in the way of
//! a net that is as good as its incumbent.

#[cfg(test)]
use super::promotion::DEFAULT_MARGIN;
use super::promotion::PromotionDecision;

/// The standard normal's 95% point, Φ⁻¹(0.95), from the normal table: a one-sided 95% lower
/// bound is the mean minus this many standard errors.
pub const Z_ONE_SIDED_95: f64 = 1.644_854;

/// Each opening's difference of pair scores, the candidate's minus the incumbent's, counted in
/// quarter points from -1 to 1: `counts[k]` is the number of openings where the candidate's
/// pair won `k - 4` half-points more than the incumbent's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairedDifference {
	/// Openings by the difference of half-points, -4 to 4, at index difference + 4.
	pub counts: [u32; 9],
}

impl PairedDifference {
	/// Counts one opening, on which the candidate's pair won `candidate` half-points and the
	/// incumbent's `incumbent` (each 0 to 4).
	pub fn add(&mut self, candidate: u8, incumbent: u8) {
		let index = 4 + i32::from(candidate.min(4)) - i32::from(incumbent.min(4));
		self.counts[index as usize] += 1;
	}

	/// Openings counted.
	pub fn openings(&self) -> u32 {
		self.counts.iter().sum()
	}

	/// Each opening's difference in points per game (-1 to 1) with its weight, and two
	/// imaginary openings at -1 and 1 when `adjusted`, as the adjusted score interval adds
	/// imaginary pairs: a hundred openings played alike would otherwise give no variance at all.
	fn weighted(&self, adjusted: bool) -> [(f64, f64); 9] {
		let mut weighted = [(0.0, 0.0); 9];
		for (k, (entry, &count)) in weighted.iter_mut().zip(&self.counts).enumerate() {
			*entry = ((k as f64 - 4.0) / 4.0, f64::from(count));
		}
		if adjusted {
			weighted[0].1 += 1.0;
			weighted[8].1 += 1.0;
		}
		weighted
	}

	/// The mean difference in points per game (0 with no openings).
	pub fn mean(&self) -> f64 {
		super::score::mean_and_variance(&self.weighted(false)).map_or(0.0, |(mean, _, _)| mean)
	}

	/// The standard error of the mean, from the openings and the two imaginary ones.
	pub fn standard_error(&self) -> f64 {
		let (_, variance, samples) = super::score::mean_and_variance(&self.weighted(true))
			.expect("the imaginary openings weigh more than 0");
		(variance / samples).sqrt()
	}

	/// The one-sided 95% lower bound of the mean difference: the candidate plays at least this
	/// much better than the incumbent (worse, if negative) with 95% confidence.
	pub fn lower_bound(&self) -> f64 {
		self.mean() - Z_ONE_SIDED_95 * self.standard_error()
	}
}

/// Whether a candidate passes the test: the lower bound of its paired difference against the
/// incumbent, both playing `ClaudePlayer` on the same openings, must be above `-margin`.
/// Nothing played is a failure: the test cannot show what it was not given.
pub fn not_worse(difference: &PairedDifference, margin: f64) -> PromotionDecision {
	let openings = difference.openings();
	if openings == 0 {
		return PromotionDecision {
			promote: false,
			reason: "keep the incumbent: no openings against ClaudePlayer were played".into(),
		};
	}
	let (mean, low) = (difference.mean(), difference.lower_bound());
	let comparison = format!(
		"against ClaudePlayer on the same {openings} openings the candidate scores {mean:+.3} \
		 (95% lower bound {low:+.3}) over the incumbent"
	);
	if low > -margin {
		PromotionDecision {
			promote: true,
			reason: format!("promote: {comparison}, within the margin of {margin:.3}"),
		}
	} else {
		PromotionDecision {
			promote: false,
			reason: format!(
				"keep the incumbent: {comparison}, so it may be worse by more than the margin \
				 of {margin:.3}"
			),
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn difference(pairs: &[(u8, u8, u32)]) -> PairedDifference {
		let mut difference = PairedDifference::default();
		for &(candidate, incumbent, times) in pairs {
			for _ in 0..times {
				difference.add(candidate, incumbent);
			}
		}
		difference
	}

	#[test]
	fn differences_are_counted_in_quarter_points_per_game() {
		let d = difference(&[(4, 0, 1), (0, 4, 1), (3, 2, 2)]);
		assert_eq!(d.counts, [1, 0, 0, 0, 0, 2, 0, 0, 1]);
		assert_eq!(d.openings(), 4);
		assert!((d.mean() - 0.125).abs() < 1e-12, "{}", d.mean());
	}

	#[test]
	fn nets_that_play_every_opening_alike_pass_and_the_imaginary_openings_keep_a_doubt() {
		// A hundred openings, each played the same by both nets: a mean of 0, and an error
		// from the two imaginary openings alone, sqrt((2/102) / 102).
		let d = difference(&[(3, 3, 60), (2, 2, 40)]);
		assert_eq!(d.mean(), 0.0);
		let expected = ((2.0 / 102.0) / 102.0_f64).sqrt();
		assert!((d.standard_error() - expected).abs() < 1e-12);
		let decision = not_worse(&d, DEFAULT_MARGIN);
		assert!(decision.promote, "{}", decision.reason);
		assert!(decision.reason.starts_with("promote: "));
		assert!(decision.reason.contains("same 100 openings"));
	}

	#[test]
	fn a_candidate_clearly_worse_against_claude_is_refused() {
		// It loses a quarter point a game on a third of the openings: -0.083 a game.
		let d = difference(&[(2, 3, 33), (3, 3, 67)]);
		assert!(d.mean() < -0.08);
		let decision = not_worse(&d, DEFAULT_MARGIN);
		assert!(!decision.promote, "{}", decision.reason);
		assert!(decision.reason.starts_with("keep the incumbent: "));
		assert!(decision.reason.contains("margin of 0.050"));
	}

	#[test]
	fn a_small_loss_within_the_margin_passes_and_a_tighter_margin_refuses_it() {
		// -0.015 a game: three openings of a hundred half a point a game worse.
		let d = difference(&[(2, 4, 3), (3, 3, 97)]);
		assert!((d.mean() + 0.015).abs() < 1e-12);
		assert!(not_worse(&d, DEFAULT_MARGIN).promote);
		assert!(!not_worse(&d, 0.01).promote);
	}

	#[test]
	fn noisy_differences_need_more_openings() {
		// The same mean of 0 from wildly different openings: 20 are too few to pass, 400 pass.
		let few = difference(&[(4, 0, 5), (0, 4, 5), (2, 2, 10)]);
		assert!(!not_worse(&few, DEFAULT_MARGIN).promote);
		let many = difference(&[(4, 2, 25), (2, 4, 25), (2, 2, 350)]);
		assert!(not_worse(&many, DEFAULT_MARGIN).promote);
	}

	#[test]
	fn nothing_played_is_refused() {
		let decision = not_worse(&PairedDifference::default(), DEFAULT_MARGIN);
		assert!(!decision.promote);
		assert!(decision.reason.contains("no openings"));
	}

	#[test]
	fn the_default_margin_is_five_hundredths_and_the_bound_one_sided_95_percent() {
		assert_eq!(DEFAULT_MARGIN, 0.05);
		assert!((Z_ONE_SIDED_95 - 1.644_854).abs() < 1e-6);
	}
}
