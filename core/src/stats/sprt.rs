//! The sequential probability ratio test that stops a gate match, and the gate's match policy.

use std::fmt;

use thiserror::Error;

use super::score::{PairCounts, mean_and_variance, score_from_elo};

/// Before the LLR is taken, a pair score never seen counts as this many pairs, as fishtest does
/// (`regularize` in its `LLRcalc.py`). Without it, pairs that all went the same way would have
/// variance 0 and an infinite LLR; with it, they give a large finite one.
const PSEUDO_PAIRS: f64 = 1e-3;

/// A sequential probability ratio test between two Elo differences, for paired games.
///
/// H0 says the measured player is `elo0` Elo stronger than its opponent, H1 says `elo1`; the
/// test accepts one of them once the log-likelihood ratio leaves the bounds set by `alpha`, the
/// chance of accepting H1 when H0 holds, and `beta`, the chance of accepting H0 when H1 holds.
/// The likelihood ratio is the generalized SPRT's normal approximation used by chess engine
/// testing (fishtest's `LLR_alt2`), over pairs rather than games (the pentanomial model), since
/// the gate plays each opening from both sides. Build one with [`Sprt::new`], which checks the
/// parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
	elo0: f64,
	elo1: f64,
	alpha: f64,
	beta: f64,
}

/// Why [`Sprt::new`] refused its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum SprtError {
	/// The two hypotheses are not two finite Elo differences, the first below the second.
	#[error("elo0 ({elo0}) and elo1 ({elo1}) must be finite, with elo0 below elo1")]
	ElosNotIncreasing {
		/// The Elo difference of H0.
		elo0: f64,
		/// The Elo difference of H1.
		elo1: f64,
	},
	/// An error rate is not strictly between 0 and 1.
	#[error("{name} is {value}; an error rate must be strictly between 0 and 1")]
	RiskOutOfRange {
		/// `"alpha"` or `"beta"`.
		name: &'static str,
		/// The rate given.
		value: f64,
	},
	/// The error rates sum to 1 or more, so the bounds do not lie either side of 0.
	#[error("alpha ({alpha}) plus beta ({beta}) must be below 1")]
	RisksTooLarge {
		/// The chance of accepting H1 when H0 holds.
		alpha: f64,
		/// The chance of accepting H0 when H1 holds.
		beta: f64,
	},
}

/// What an SPRT says after the pairs so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
	/// The evidence is not yet strong enough either way.
	Continue,
	/// The LLR fell to the lower bound: the player is no stronger than `elo0`.
	AcceptH0,
	/// The LLR rose to the upper bound: the player is at least `elo1` stronger.
	AcceptH1,
}

impl Sprt {
	/// A test of `elo0` against `elo1` with error rates `alpha` and `beta`.
	///
	/// Fails unless both Elo differences are finite and `elo0 < elo1` (with equal ones no result
	/// tells them apart), both rates are strictly between 0 and 1, and they sum to less than 1.
	pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
		if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
			return Err(SprtError::ElosNotIncreasing { elo0, elo1 });
		}
		for (name, value) in [("alpha", alpha), ("beta", beta)] {
			if !(value > 0.0 && value < 1.0) {
				return Err(SprtError::RiskOutOfRange { name, value });
			}
		}
		if alpha + beta >= 1.0 {
			return Err(SprtError::RisksTooLarge { alpha, beta });
		}
		Ok(Sprt {
			elo0,
			elo1,
			alpha,
			beta,
		})
	}

	/// The Elo difference of H0.
	pub fn elo0(&self) -> f64 {
		self.elo0
	}

	/// The Elo difference of H1.
	pub fn elo1(&self) -> f64 {
		self.elo1
	}

	/// The chance of accepting H1 when H0 holds.
	pub fn alpha(&self) -> f64 {
		self.alpha
	}

	/// The chance of accepting H0 when H1 holds.
	pub fn beta(&self) -> f64 {
		self.beta
	}

	/// The LLR at or below which the test accepts H0: `ln(beta / (1 - alpha))`, below 0.
	pub fn lower_bound(&self) -> f64 {
		(self.beta / (1.0 - self.alpha)).ln()
	}

	/// The LLR at or above which the test accepts H1: `ln((1 - beta) / alpha)`, above 0.
	pub fn upper_bound(&self) -> f64 {
		((1.0 - self.beta) / self.alpha).ln()
	}

	/// The log-likelihood ratio of H1 against H0 after `pairs`; 0 with no pairs.
	///
	/// `N / (2 var) * ((x - s0)^2 - (x - s1)^2)`, where `N` is the number of pairs, `x` and `var`
	/// the mean and variance of the pair scores (0, 1/4, 1/2, 3/4, 1), and `s0`, `s1` the
	/// scores that `elo0` and `elo1` predict on the logistic curve. It grows with `N` when the
	/// mean lies nearer `s1` than `s0`, and falls when it lies nearer `s0`.
	pub fn llr(&self, pairs: &PairCounts) -> f64 {
		if pairs.pairs() == 0 {
			return 0.0;
		}
		let weighted = pairs.weighted_scores().map(|(score, count)| {
			let count = if count == 0.0 { PSEUDO_PAIRS } else { count };
			(score, count)
		});
		let Some((mean, variance, total)) = mean_and_variance(&weighted) else {
			return 0.0;
		};
		let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
		// The pseudo-pairs give every score some weight, so the variance is above 0.
		total / (2.0 * variance) * ((mean - s0).powi(2) - (mean - s1).powi(2))
	}

	/// Accepts H0 or H1 if the LLR after `pairs` has reached a bound.
	pub fn decide(&self, pairs: &PairCounts) -> SprtDecision {
		let llr = self.llr(pairs);
		if llr >= self.upper_bound() {
			SprtDecision::AcceptH1
		} else if llr <= self.lower_bound() {
			SprtDecision::AcceptH0
		} else {
			SprtDecision::Continue
		}
	}
}

/// When a gate match stops: an SPRT, no decision before a minimum, and a hard cap.
///
/// The SPRT's normal approximation is poor over a handful of pairs (two sweeps in a row can
/// reach a bound), so it is not consulted before `min_pairs`; `max_pairs` bounds the cost of a
/// candidate whose strength lies between `elo0` and `elo1`, where the test could run long.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GatePolicy {
	/// The test that ends the match early.
	pub sprt: Sprt,
	/// Pairs to play before the SPRT may stop the match.
	pub min_pairs: u32,
	/// Pairs after which the match stops whatever the SPRT says. It overrides `min_pairs`
	/// if smaller.
	pub max_pairs: u32,
}

/// Why a gate match stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateStop {
	/// The SPRT accepted H0: the candidate is no stronger than `elo0`.
	AcceptH0,
	/// The SPRT accepted H1: the candidate is at least `elo1` stronger.
	AcceptH1,
	/// The match reached `max_pairs` with the SPRT undecided.
	Cap,
}

impl GatePolicy {
	/// Whether a gate match with these `pairs` played should stop, and why; `None` to play on.
	///
	/// Below `min_pairs` (and the cap) the match goes on. After that the SPRT decides, and at the
	/// cap an undecided SPRT gives [`GateStop::Cap`]; an SPRT that has decided by the cap still
	/// reports its decision, which says more.
	pub fn should_stop(&self, pairs: &PairCounts) -> Option<GateStop> {
		let played = pairs.pairs();
		let at_cap = played >= self.max_pairs;
		if played < self.min_pairs && !at_cap {
			return None;
		}
		match self.sprt.decide(pairs) {
			SprtDecision::AcceptH0 => Some(GateStop::AcceptH0),
			SprtDecision::AcceptH1 => Some(GateStop::AcceptH1),
			SprtDecision::Continue => at_cap.then_some(GateStop::Cap),
		}
	}
}

impl fmt::Display for GateStop {
	/// A phrase for logs and reasons: "the SPRT accepted H0", for instance.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		f.write_str(match self {
			GateStop::AcceptH0 => "the SPRT accepted H0",
			GateStop::AcceptH1 => "the SPRT accepted H1",
			GateStop::Cap => "the match reached its cap with the SPRT undecided",
		})
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn sprt(elo0: f64, elo1: f64) -> Sprt {
		Sprt::new(elo0, elo1, 0.05, 0.05).unwrap()
	}

	fn pairs(counts: [u32; 5]) -> PairCounts {
		PairCounts { counts }
	}

	fn mirrored(counts: [u32; 5]) -> PairCounts {
		let mut counts = counts;
		counts.reverse();
		PairCounts { counts }
	}

	/// Pairs well above an even score: mean 0.6125, about +79 Elo, none of the counts 0.
	const STRONG: [u32; 5] = [5, 10, 40, 25, 20];

	#[test]
	fn bounds_come_from_the_error_rates() {
		let test = sprt(0.0, 20.0);
		// ln(0.05 / 0.95) = -ln 19.
		assert!((test.lower_bound() + 19f64.ln()).abs() < 1e-12);
		assert!((test.upper_bound() - 19f64.ln()).abs() < 1e-12);
		let lopsided = Sprt::new(0.0, 20.0, 0.1, 0.01).unwrap();
		assert!((lopsided.lower_bound() - (0.01f64 / 0.9).ln()).abs() < 1e-12);
		assert!((lopsided.upper_bound() - (0.99f64 / 0.1).ln()).abs() < 1e-12);
	}

	#[test]
	fn bad_parameters_are_refused() {
		assert_eq!(
			Sprt::new(10.0, 10.0, 0.05, 0.05),
			Err(SprtError::ElosNotIncreasing {
				elo0: 10.0,
				elo1: 10.0
			})
		);
		assert!(Sprt::new(20.0, 10.0, 0.05, 0.05).is_err());
		assert!(Sprt::new(f64::NAN, 10.0, 0.05, 0.05).is_err());
		assert!(Sprt::new(0.0, f64::INFINITY, 0.05, 0.05).is_err());
		assert_eq!(
			Sprt::new(0.0, 10.0, 0.0, 0.05),
			Err(SprtError::RiskOutOfRange {
				name: "alpha",
				value: 0.0
			})
		);
		assert!(matches!(
			Sprt::new(0.0, 10.0, 0.05, 1.0),
			Err(SprtError::RiskOutOfRange { name: "beta", .. })
		));
		assert!(matches!(
			Sprt::new(0.0, 10.0, 0.6, 0.5),
			Err(SprtError::RisksTooLarge { .. })
		));
		let error = Sprt::new(5.0, 0.0, 0.05, 0.05).unwrap_err();
		assert_eq!(
			error.to_string(),
			"elo0 (5) and elo1 (0) must be finite, with elo0 below elo1"
		);
	}

	#[test]
	fn no_pairs_is_no_evidence() {
		let test = sprt(0.0, 20.0);
		assert_eq!(test.llr(&PairCounts::default()), 0.0);
		assert_eq!(test.decide(&PairCounts::default()), SprtDecision::Continue);
	}

	#[test]
	fn the_llr_follows_the_normal_approximation() {
		let test = sprt(0.0, 50.0);
		// By hand: mean (10/4 + 40/2 + 25 * 3/4 + 20) / 100, mean square
		// (10/16 + 40/4 + 25 * 9/16 + 20) / 100.
		let mean = 0.6125;
		let variance = 0.446875 - mean * mean;
		let s1 = score_from_elo(50.0);
		let expected = 100.0 / (2.0 * variance) * ((mean - 0.5f64).powi(2) - (mean - s1).powi(2));
		assert!((test.llr(&pairs(STRONG)) - expected).abs() < 1e-9);
		assert!(expected > test.upper_bound());
	}

	#[test]
	fn strong_evidence_accepts_h1_and_its_mirror_h0() {
		let test = sprt(0.0, 50.0);
		assert_eq!(test.decide(&pairs(STRONG)), SprtDecision::AcceptH1);
		assert!(test.llr(&mirrored(STRONG)) < test.lower_bound());
		assert_eq!(test.decide(&mirrored(STRONG)), SprtDecision::AcceptH0);
	}

	#[test]
	fn mirroring_results_and_hypotheses_negates_the_llr() {
		let counts = [3, 0, 12, 7, 9];
		let forward = sprt(5.0, 30.0).llr(&pairs(counts));
		let backward = sprt(-30.0, -5.0).llr(&mirrored(counts));
		assert!(forward != 0.0);
		assert!((forward + backward).abs() < 1e-9);
	}

	#[test]
	fn the_same_evidence_twice_over_doubles_the_llr() {
		let test = sprt(0.0, 20.0);
		let once = [4, 6, 10, 8, 6];
		let twice = once.map(|count| 2 * count);
		let llr = test.llr(&pairs(once));
		assert!(llr > 0.0 && llr < test.upper_bound());
		assert!((test.llr(&pairs(twice)) - 2.0 * llr).abs() < 1e-9);
	}

	#[test]
	fn pairs_that_all_went_one_way_give_a_finite_llr() {
		let test = sprt(0.0, 20.0);
		let swept = test.llr(&pairs([0, 0, 0, 0, 10]));
		assert!(swept.is_finite() && swept > test.upper_bound());
		// Every pair split: exactly even, which H0 (0 Elo) predicts and H1 does not.
		let split = test.llr(&pairs([0, 0, 10, 0, 0]));
		assert!(split.is_finite() && split < test.lower_bound());
	}

	#[test]
	fn an_even_match_stays_undecided_at_first() {
		let test = sprt(0.0, 20.0);
		let even = pairs([2, 2, 2, 2, 2]);
		assert!(test.llr(&even) < 0.0);
		assert_eq!(test.decide(&even), SprtDecision::Continue);
	}

	fn policy(min_pairs: u32, max_pairs: u32) -> GatePolicy {
		GatePolicy {
			sprt: sprt(0.0, 50.0),
			min_pairs,
			max_pairs,
		}
	}

	#[test]
	fn the_sprt_waits_for_min_pairs() {
		// Four sweeps already pass the upper bound.
		let swept = pairs([0, 0, 0, 0, 4]);
		assert_eq!(policy(0, 100).sprt.decide(&swept), SprtDecision::AcceptH1);
		assert_eq!(policy(5, 100).should_stop(&swept), None);
		assert_eq!(policy(4, 100).should_stop(&swept), Some(GateStop::AcceptH1));
		assert_eq!(
			policy(10, 100).should_stop(&pairs(STRONG)),
			Some(GateStop::AcceptH1)
		);
		assert_eq!(
			policy(10, 100).should_stop(&mirrored(STRONG)),
			Some(GateStop::AcceptH0)
		);
	}

	#[test]
	fn an_undecided_match_stops_at_max_pairs() {
		let even = pairs([2, 2, 2, 2, 2]);
		assert_eq!(policy(0, 11).should_stop(&even), None);
		assert_eq!(policy(0, 10).should_stop(&even), Some(GateStop::Cap));
		assert_eq!(policy(0, 9).should_stop(&even), Some(GateStop::Cap));
		// The cap overrides a larger minimum.
		assert_eq!(policy(50, 10).should_stop(&even), Some(GateStop::Cap));
	}

	#[test]
	fn a_decision_at_the_cap_is_reported_as_the_decision() {
		assert_eq!(
			policy(0, 100).should_stop(&pairs(STRONG)),
			Some(GateStop::AcceptH1)
		);
		assert_eq!(
			policy(200, 100).should_stop(&pairs(STRONG)),
			Some(GateStop::AcceptH1)
		);
	}

	#[test]
	fn stops_read_as_phrases() {
		assert_eq!(GateStop::AcceptH0.to_string(), "the SPRT accepted H0");
		assert!(GateStop::Cap.to_string().contains("cap"));
	}
}
