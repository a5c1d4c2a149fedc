//! The promotion rule: whether a candidate network replaces the incumbent, from their gate matches.

use super::score::{Estimate, PairCounts};
use super::sprt::GateStop;

/// How one network did in its gate match against the fixed reference player.
///
/// Every network plays the same reference, so two records compare directly even when they were
/// made generations apart: the reference never changes, and the candidate never has to play the
/// incumbent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GateRecord {
	/// The network's paired results against the reference.
	pub pairs: PairCounts,
	/// Why the match stopped.
	pub stop: GateStop,
}

impl GateRecord {
	/// The network's score against the reference, with the pentanomial interval.
	pub fn estimate(&self) -> Estimate {
		self.pairs.estimate()
	}
}

/// What a candidate must show to replace the incumbent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PromotionRule {
	/// How far the candidate's score against the reference must rise above the incumbent's, in
	/// points per game (0 to 1). The gain must exceed it: with the default of 0, a candidate
	/// that only ties the incumbent does not replace it, which keeps equal networks from
	/// churning.
	pub min_gain: f64,
	/// Promote only when the gate's SPRT accepted H1, not also when the match reached its cap
	/// undecided. Off by default: the cap then leaves the decision to the scores.
	pub require_h1: bool,
	/// How far below the incumbent a candidate may score against `ClaudePlayer`, both playing
	/// the same openings, and still be promoted, when the gate checks that too
	/// (`stats::not_worse`); in points per game.
	pub claude_margin: f64,
}

impl Default for PromotionRule {
	/// Any gain, a capped match counts, and the check against `ClaudePlayer` allows
	/// [`DEFAULT_MARGIN`].
	fn default() -> PromotionRule {
		PromotionRule {
			min_gain: 0.0,
			require_h1: false,
			claude_margin: DEFAULT_MARGIN,
		}
	}
}

/// The default margin, in points per game against `ClaudePlayer`: a candidate whose score there
/// may be at most this much below the incumbent's still passes. At the scores the nets reach
/// against `ClaudePlayer` (0.7 to 0.9 at depth 3) 0.05 is about 30 to 60 Elo, a little less
/// than two consecutive promoted nets' measurements differ by chance over 100 pairs each
/// (docs/training.md).
pub const DEFAULT_MARGIN: f64 = 0.05;

/// Whether to promote, and a sentence saying why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromotionDecision {
	/// True to make the candidate the new incumbent.
	pub promote: bool,
	/// Why, with the scores behind it, for the training log.
	pub reason: String,
}

impl PromotionDecision {
	/// Keeps the incumbent, for `reason`.
	fn keep(reason: &str) -> PromotionDecision {
		PromotionDecision {
			promote: false,
			reason: format!("keep the incumbent: {reason}"),
		}
	}
}

/// Decides whether `candidate` replaces the incumbent, from their gate records.
///
/// The checks, in order; the first that fails keeps the incumbent:
///
/// 1. the candidate played at least one pair;
/// 2. its gate SPRT did not accept H0: a candidate shown to be no stronger than `elo0` is
///    rejected however its score compares, since the test controls that error and the point
///    estimates do not;
/// 3. if `rule.require_h1`, the SPRT accepted H1 rather than stopping at the cap;
/// 4. its score against the reference exceeds the incumbent's by more than `rule.min_gain`.
///
/// `incumbent` is `None` while the incumbent has no gate record, as with the first network,
/// which is the incumbent from the start: the candidate is then compared against a score of 0,
/// so any candidate that passes the SPRT checks and scores at all replaces it.
///
/// The gate's SPRT measures the candidate against the reference, not against the incumbent.
/// Once the networks are well above the reference, fixed `elo0` and `elo1` near 0 would accept
/// H1 for every candidate and leave the decision to check 4 alone; the training loop can instead
/// centre them on the incumbent's Elo against the reference (its record's `estimate().elo()`),
/// so that H1 means "better than the incumbent".
pub fn promote(
	candidate: &GateRecord,
	incumbent: Option<&GateRecord>,
	rule: &PromotionRule,
) -> PromotionDecision {
	let (baseline, against) = match incumbent {
		Some(record) => {
			let estimate = record.estimate();
			(estimate.score, format!("the incumbent's {estimate}"))
		}
		None => (0.0, "0, as the incumbent has no gate record".to_string()),
	};
	decide(candidate, "the reference", baseline, &against, rule)
}

/// Decides whether `candidate` replaces the incumbent after a match played against the
/// incumbent itself (`--gate incumbent`), where the reference is the incumbent: the same
/// checks as [`promote`], with the score compared with 0.5, what the incumbent scores against
/// itself. The SPRT behind `candidate.stop` is then the plain one, "no better than the
/// incumbent" against "`elo1` better", since its Elo is already the candidate's over the
/// incumbent.
pub fn promote_over_incumbent(candidate: &GateRecord, rule: &PromotionRule) -> PromotionDecision {
	decide(
		candidate,
		"the incumbent",
		0.5,
		"0.500, an even match",
		rule,
	)
}

/// The checks of [`promote`] for a `candidate` that played `opponent`, its score compared with
/// `baseline` (described as `against`).
fn decide(
	candidate: &GateRecord,
	opponent: &str,
	baseline: f64,
	against: &str,
	rule: &PromotionRule,
) -> PromotionDecision {
	let score = candidate.estimate();
	if candidate.pairs.pairs() == 0 {
		return PromotionDecision::keep("the candidate played no gate games");
	}
	if let Some(objection) = sprt_objection(candidate.stop, rule) {
		return PromotionDecision::keep(&format!("{objection} (score {score} against {opponent})"));
	}
	let gain = score.score - baseline;
	let comparison =
		format!("the candidate scores {score} against {opponent}, {gain:+.3} over {against}");
	if gain > rule.min_gain {
		PromotionDecision {
			promote: true,
			reason: format!(
				"promote: {comparison}, above the minimum gain of {:.3}; {}",
				rule.min_gain, candidate.stop
			),
		}
	} else {
		PromotionDecision::keep(&format!(
			"{comparison}, not above the minimum gain of {:.3}",
			rule.min_gain
		))
	}
}

/// Why the way the candidate's gate match stopped rules it out, if it does (checks 2 and 3).
fn sprt_objection(stop: GateStop, rule: &PromotionRule) -> Option<String> {
	match stop {
		GateStop::AcceptH0 => Some(format!("{stop} for the candidate")),
		GateStop::Cap if rule.require_h1 => Some(format!("the rule requires H1 and {stop}")),
		GateStop::AcceptH1 | GateStop::Cap => None,
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn record(counts: [u32; 5], stop: GateStop) -> GateRecord {
		GateRecord {
			pairs: PairCounts { counts },
			stop,
		}
	}

	/// Scores 0.6 against the reference.
	const GOOD: [u32; 5] = [2, 4, 4, 4, 6];
	/// Scores 0.5 against the reference.
	const EVEN: [u32; 5] = [2, 4, 8, 4, 2];

	#[test]
	fn the_test_records_score_as_their_comments_say() {
		assert!((record(GOOD, GateStop::Cap).estimate().score - 0.6).abs() < 1e-12);
		assert_eq!(record(EVEN, GateStop::Cap).estimate().score, 0.5);
	}

	#[test]
	fn a_better_score_is_promoted() {
		let incumbent = record(EVEN, GateStop::AcceptH0);
		for stop in [GateStop::AcceptH1, GateStop::Cap] {
			let decision = promote(
				&record(GOOD, stop),
				Some(&incumbent),
				&PromotionRule::default(),
			);
			assert!(decision.promote, "{}", decision.reason);
			assert!(decision.reason.starts_with("promote: "));
			assert!(decision.reason.contains("the incumbent's 0.500"));
		}
	}

	#[test]
	fn head_to_head_a_candidate_must_score_above_an_even_match() {
		let rule = PromotionRule::default();
		let decision = promote_over_incumbent(&record(GOOD, GateStop::Cap), &rule);
		assert!(decision.promote, "{}", decision.reason);
		assert!(
			decision
				.reason
				.contains("against the incumbent, +0.100 over 0.500"),
			"{}",
			decision.reason
		);
		// An even match keeps the incumbent, and so does H0 whatever the score.
		assert!(!promote_over_incumbent(&record(EVEN, GateStop::Cap), &rule).promote);
		let rejected = promote_over_incumbent(&record(GOOD, GateStop::AcceptH0), &rule);
		assert!(!rejected.promote);
		assert!(
			rejected.reason.contains("accepted H0"),
			"{}",
			rejected.reason
		);
		let margin = PromotionRule {
			min_gain: 0.15,
			..PromotionRule::default()
		};
		assert!(!promote_over_incumbent(&record(GOOD, GateStop::AcceptH1), &margin).promote);
	}

	#[test]
	fn a_worse_or_equal_score_is_not() {
		let rule = PromotionRule::default();
		let good = record(GOOD, GateStop::AcceptH1);
		let decision = promote(&record(EVEN, GateStop::AcceptH1), Some(&good), &rule);
		assert!(!decision.promote);
		assert!(decision.reason.starts_with("keep the incumbent: "));
		// A tie keeps the incumbent.
		assert!(!promote(&good, Some(&good), &rule).promote);
	}

	#[test]
	fn the_gain_must_exceed_min_gain() {
		let incumbent = record(EVEN, GateStop::Cap);
		let candidate = record(GOOD, GateStop::AcceptH1);
		let gain = candidate.estimate().score - incumbent.estimate().score;
		let rule = |min_gain| PromotionRule {
			min_gain,
			..PromotionRule::default()
		};
		assert!(promote(&candidate, Some(&incumbent), &rule(gain - 0.01)).promote);
		assert!(!promote(&candidate, Some(&incumbent), &rule(gain + 0.01)).promote);
		let decision = promote(&candidate, Some(&incumbent), &rule(0.2));
		assert!(
			decision
				.reason
				.contains("not above the minimum gain of 0.200")
		);
	}

	#[test]
	fn an_sprt_that_accepted_h0_rejects_whatever_the_scores() {
		let incumbent = record(EVEN, GateStop::Cap);
		let decision = promote(
			&record(GOOD, GateStop::AcceptH0),
			Some(&incumbent),
			&PromotionRule::default(),
		);
		assert!(!decision.promote);
		assert!(
			decision.reason.contains("accepted H0"),
			"{}",
			decision.reason
		);
	}

	#[test]
	fn require_h1_rejects_a_capped_match() {
		let incumbent = record(EVEN, GateStop::Cap);
		let rule = PromotionRule {
			require_h1: true,
			..PromotionRule::default()
		};
		let capped = promote(&record(GOOD, GateStop::Cap), Some(&incumbent), &rule);
		assert!(!capped.promote);
		assert!(capped.reason.contains("requires H1"));
		assert!(promote(&record(GOOD, GateStop::AcceptH1), Some(&incumbent), &rule).promote);
	}

	#[test]
	fn without_an_incumbent_record_the_baseline_is_0() {
		let rule = PromotionRule::default();
		let decision = promote(&record(EVEN, GateStop::Cap), None, &rule);
		assert!(decision.promote);
		assert!(decision.reason.contains("no gate record"));
		// A candidate that lost every game does not beat 0.
		let lost = record([10, 0, 0, 0, 0], GateStop::Cap);
		assert!(!promote(&lost, None, &rule).promote);
		// Nor does any candidate the SPRT rejected.
		assert!(!promote(&record(GOOD, GateStop::AcceptH0), None, &rule).promote);
	}

	#[test]
	fn a_candidate_without_games_is_not_promoted() {
		let empty = record([0; 5], GateStop::Cap);
		let decision = promote(&empty, None, &PromotionRule::default());
		assert!(!decision.promote);
		assert!(decision.reason.contains("no gate games"));
	}
}
