//! A match's score: pair counts, the mean with its 95% interval, and Elo from a score and back.

use std::fmt;

use crate::moves::Turn;
use crate::outcome::Outcome;
use crate::versus::MatchResult;

/// The 97.5% point of the standard normal distribution, Φ⁻¹(0.975), from the normal table: a
/// two-sided 95% interval is the mean plus or minus this many standard errors.
pub const Z_95: f64 = 1.959964;

/// Elo differences are clamped to plus or minus this, the difference at which a player scores
/// 99.7%. A score of exactly 0 or 1 would be infinitely many Elo; past this point a match of a few
/// hundred games rests on one or two games, so larger figures would only be noise.
pub const MAX_ELO: f64 = 1000.0;

/// Imaginary pairs added by [`Estimate::from_pairs_adjusted`], half lost twice and half won
/// twice: four games, about z² = 1.96², as the Agresti-Coull interval adds to a proportion.
pub const PSEUDO_PAIRS: f64 = 2.0;

/// Below this many pairs an interval says little whatever its width: the normal approximation
/// behind it is rough, and one opening more can move the score by several hundredths. The usual
/// rule of thumb for a normal approximation is some thirty samples.
pub const FEW_PAIRS: u32 = 30;

/// One game's result for the player being measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
	/// The player lost: 0 points.
	Loss,
	/// A draw, or a game stopped unfinished: 1/2 point.
	Draw,
	/// The player won: 1 point.
	Win,
}

impl GameResult {
	/// The result for the player on `side` of a game that ended with `outcome`. A game stopped
	/// unfinished (`None`) is a draw, as in [`SideResult::add`](crate::versus::SideResult::add).
	pub fn for_side(outcome: Option<Outcome>, side: Turn) -> GameResult {
		GameResult::of_winner(outcome.and_then(Outcome::winner), side)
	}

	/// The result for `side` of a game `winner` won (`None`: drawn or unfinished).
	pub fn of_winner(winner: Option<Turn>, side: Turn) -> GameResult {
		match winner {
			None => GameResult::Draw,
			Some(winner) if winner == side => GameResult::Win,
			Some(_) => GameResult::Loss,
		}
	}

	/// Points counted in halves: a loss 0, a draw 1, a win 2.
	pub fn half_points(self) -> u8 {
		match self {
			GameResult::Loss => 0,
			GameResult::Draw => 1,
			GameResult::Win => 2,
		}
	}
}

/// Results of paired games, one opening played once from each side, counted by the pair's points.
///
/// `counts[k]` is the number of pairs that won `k` half-points: 0 for two losses, 1 for a loss and
/// a draw, 2 for two draws or a win and a loss, 3 for a win and a draw, 4 for two wins. This is
/// the pentanomial record; it keeps what a win/draw/loss count loses, how the two games of a pair
/// went together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairCounts {
	/// Pairs by half-points won, 0 to 4.
	pub counts: [u32; 5],
}

impl PairCounts {
	/// Counts one pair: the measured player's results in the pair's two games, in either order.
	pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
		self.counts[usize::from(first.half_points() + second.half_points())] += 1;
	}

	/// Pairs played.
	pub fn pairs(&self) -> u32 {
		self.counts.iter().sum()
	}

	/// Games played, two per pair.
	pub fn games(&self) -> u32 {
		2 * self.pairs()
	}

	/// The score estimate with the pentanomial interval: [`Estimate::from_pairs`].
	pub fn estimate(&self) -> Estimate {
		Estimate::from_pairs(self)
	}

	/// The score estimate with an interval that stays honest for few or one-sided pairs:
	/// [`Estimate::from_pairs_adjusted`]. For a figure shown to a user.
	pub fn adjusted_estimate(&self) -> Estimate {
		Estimate::from_pairs_adjusted(self)
	}

	/// Whether there are fewer than [`FEW_PAIRS`] pairs, too few for any interval to mean much.
	pub fn has_few_pairs(&self) -> bool {
		self.pairs() < FEW_PAIRS
	}

	/// Each pair score (the pair's points per game, 0 to 1 in quarters) with how often it came.
	pub(super) fn weighted_scores(&self) -> [(f64, f64); 5] {
		let mut weighted = [(0.0, 0.0); 5];
		for (half_points, (entry, &count)) in weighted.iter_mut().zip(&self.counts).enumerate() {
			// Four half-points make a pair's full two points, a score of 1.
			*entry = (half_points as f64 / 4.0, f64::from(count));
		}
		weighted
	}
}

/// The mean, variance and total weight of values seen with the given weights.
///
/// The variance divides by the total weight, not one less: the maximum-likelihood estimate,
/// which is what the SPRT's normal approximation takes. `None` when the weights sum to 0.
pub(super) fn mean_and_variance(weighted: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
	let total: f64 = weighted.iter().map(|&(_, weight)| weight).sum();
	if total <= 0.0 {
		return None;
	}
	let mean = weighted
		.iter()
		.map(|&(value, weight)| value * weight)
		.sum::<f64>()
		/ total;
	let squares: f64 = weighted
		.iter()
		.map(|&(value, weight)| weight * (value - mean).powi(2))
		.sum();
	Some((mean, squares / total, total))
}

/// A player's mean score with a 95% confidence interval.
///
/// The interval is the normal approximation, mean ± [`Z_95`] standard errors, clamped to 0..1.
/// It needs a few dozen games to mean much. When every game (or pair) went the same way the
/// observed variance is 0 and the interval collapses onto the score, for instance `1.000 [1.000,
/// 1.000]` after two wins: no small-sample correction is made, so read a narrow interval from a
/// handful of games with care; [`Estimate::from_pairs_adjusted`] makes one. The gate does not
/// decide on the interval; it decides with the SPRT after
/// [`GatePolicy::min_pairs`](super::GatePolicy::min_pairs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
	/// Mean points per game, 0 to 1: a win 1, a draw 1/2.
	pub score: f64,
	/// The low end of the 95% interval, never below 0.
	pub low: f64,
	/// The high end of the 95% interval, never above 1.
	pub high: f64,
	/// Games behind the estimate.
	pub games: u32,
}

impl Estimate {
	/// The estimate from no games: an even score, anywhere from 0 to 1.
	pub const UNKNOWN: Estimate = Estimate {
		score: 0.5,
		low: 0.0,
		high: 1.0,
		games: 0,
	};

	/// From wins, draws and losses, taking the games as independent (the trinomial model).
	///
	/// Right for games with no pairing. For paired games, where each opening is played from
	/// both sides, use [`Estimate::from_pairs`]: the two games of a pair are correlated (an
	/// opening that favours one side gives a win and a loss), and this interval, which ignores
	/// that, comes out too wide.
	pub fn from_wdl(wins: u32, draws: u32, losses: u32) -> Estimate {
		let weighted = [
			(1.0, f64::from(wins)),
			(0.5, f64::from(draws)),
			(0.0, f64::from(losses)),
		];
		Estimate::from_weighted(&weighted, wins + draws + losses)
	}

	/// From one player's [`MatchResult`], both sides together, as independent games
	/// ([`Estimate::from_wdl`]); a match result no longer knows which games were paired.
	pub fn from_match(result: &MatchResult) -> Estimate {
		let (tigers, sheep) = (result.as_tigers, result.as_sheep);
		Estimate::from_wdl(
			tigers.wins + sheep.wins,
			tigers.draws + sheep.draws,
			tigers.losses + sheep.losses,
		)
	}

	/// From paired games (the pentanomial model): the variance is taken between pair scores, so
	/// the correlation of a pair's two games is counted. This is the estimate for gate matches,
	/// which play every opening twice with sides swapped.
	///
	/// With independent games it gives the same interval as [`Estimate::from_wdl`]; with games
	/// decided by the opening, a narrower one.
	pub fn from_pairs(pairs: &PairCounts) -> Estimate {
		Estimate::from_weighted(&pairs.weighted_scores(), pairs.games())
	}

	/// From paired games as [`Estimate::from_pairs`], with the interval a small or one-sided
	/// sample needs: the pentanomial interval after [`PSEUDO_PAIRS`] imaginary pairs are added,
	/// half of them lost twice and half won twice.
	///
	/// This is the Agresti-Coull adjustment (about z² = 4 imaginary games, half won, half lost),
	/// which makes the normal interval behave like Wilson's: three pairs that each scored 3/4 give
	/// `0.750 [0.353, 0.947]`, not the observed variance's `[0.750, 0.750]`, and a hundred drawn
	/// pairs a narrow interval rather than none. With many pairs it tends to the plain
	/// pentanomial interval. The score is the pairs' own mean; only the interval is adjusted.
	pub fn from_pairs_adjusted(pairs: &PairCounts) -> Estimate {
		let mut weighted = pairs.weighted_scores();
		let Some((score, _, _)) = mean_and_variance(&weighted) else {
			return Estimate::UNKNOWN;
		};
		weighted[0].1 += PSEUDO_PAIRS / 2.0;
		weighted[4].1 += PSEUDO_PAIRS / 2.0;
		let (mean, variance, samples) =
			mean_and_variance(&weighted).expect("the imaginary pairs weigh more than 0");
		let half_width = Z_95 * (variance / samples).sqrt();
		Estimate {
			score,
			low: (mean - half_width).max(0.0),
			high: (mean + half_width).min(1.0),
			games: pairs.games(),
		}
	}

	/// The estimate from samples (games or pair scores) with their counts as weights.
	fn from_weighted(weighted: &[(f64, f64)], games: u32) -> Estimate {
		let Some((mean, variance, samples)) = mean_and_variance(weighted) else {
			return Estimate::UNKNOWN;
		};
		let half_width = Z_95 * (variance / samples).sqrt();
		Estimate {
			score: mean,
			low: (mean - half_width).max(0.0),
			high: (mean + half_width).min(1.0),
			games,
		}
	}

	/// The same estimate as an Elo difference, each end transformed by [`elo_from_score`].
	pub fn elo(&self) -> EloEstimate {
		EloEstimate {
			elo: elo_from_score(self.score),
			low: elo_from_score(self.low),
			high: elo_from_score(self.high),
		}
	}
}

impl fmt::Display for Estimate {
	/// `0.563 [0.512, 0.614]`: the score, then the interval.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(f, "{:.3} [{:.3}, {:.3}]", self.score, self.low, self.high)
	}
}

/// An Elo difference with its 95% confidence interval, each within ±[`MAX_ELO`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
	/// The Elo difference for the mean score.
	pub elo: f64,
	/// The low end of the interval.
	pub low: f64,
	/// The high end of the interval.
	pub high: f64,
}

impl fmt::Display for EloEstimate {
	/// `+43.7 [+8.6, +78.1]`: the difference, then the interval.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(f, "{:+.1} [{:+.1}, {:+.1}]", self.elo, self.low, self.high)
	}
}

/// The Elo difference that gives `score` on the logistic curve: `-400 log10(1/score - 1)`.
///
/// A score outside 0..1 counts as 0 or 1, and the result is clamped to ±[`MAX_ELO`], so 0 and 1
/// give -1000 and +1000 rather than infinities. NaN stays NaN.
pub fn elo_from_score(score: f64) -> f64 {
	let score = score.clamp(0.0, 1.0);
	// Computed as the equal `400 log10(score / (1 - score))` so that an even score gives +0, not
	// -0, and the logarithm's infinities at 0 and 1 come out with the right signs.
	(400.0 * (score / (1.0 - score)).log10()).clamp(-MAX_ELO, MAX_ELO)
}

/// The expected score of a player `elo` points stronger: `1 / (1 + 10^(-elo/400))`, the inverse
/// of [`elo_from_score`].
pub fn score_from_elo(elo: f64) -> f64 {
	1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The 95% Wilson interval of a proportion, `successes` of `trials` (at least one): unlike the
/// normal interval it stays inside 0 to 1 and is not empty at 0 or 1.
pub fn wilson_interval(successes: u32, trials: u32) -> (f64, f64) {
	debug_assert!(trials > 0 && successes <= trials);
	let (n, p) = (f64::from(trials), f64::from(successes) / f64::from(trials));
	let z2 = Z_95 * Z_95;
	let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
	let half = Z_95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
	(centre - half, centre + half)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_wilson_interval_stays_inside_0_to_1_and_holds_its_share() {
		let (low, high) = wilson_interval(50, 100);
		assert!(
			(low - 0.404).abs() < 1e-3 && (high - 0.596).abs() < 1e-3,
			"{low} {high}"
		);
		let (low, high) = wilson_interval(200, 200);
		assert!(
			(low - 0.981).abs() < 1e-3 && high <= 1.0 && high > 0.999,
			"{low} {high}"
		);
		assert!(wilson_interval(0, 10).0.abs() < 1e-12);
	}
	use crate::versus::SideResult;

	fn close(a: f64, b: f64, tolerance: f64) -> bool {
		(a - b).abs() <= tolerance
	}

	#[test]
	fn no_games_is_an_even_score_anywhere_in_0_to_1() {
		assert_eq!(Estimate::from_wdl(0, 0, 0), Estimate::UNKNOWN);
		assert_eq!(PairCounts::default().estimate(), Estimate::UNKNOWN);
		assert_eq!(Estimate::UNKNOWN.to_string(), "0.500 [0.000, 1.000]");
	}

	#[test]
	fn fifty_wins_fifty_losses_is_half_plus_or_minus_0_098() {
		// Per-game variance 1/4, standard error sqrt(0.25 / 100) = 0.05.
		let estimate = Estimate::from_wdl(50, 0, 50);
		assert_eq!(estimate.score, 0.5);
		assert!(close(estimate.low, 0.5 - 0.05 * Z_95, 1e-12));
		assert!(close(estimate.high, 0.5 + 0.05 * Z_95, 1e-12));
		assert_eq!(estimate.games, 100);
		assert_eq!(estimate.to_string(), "0.500 [0.402, 0.598]");
	}

	#[test]
	fn draws_count_half_and_narrow_the_interval() {
		let drawn = Estimate::from_wdl(30, 40, 30);
		let decisive = Estimate::from_wdl(50, 0, 50);
		assert_eq!(drawn.score, 0.5);
		assert!(drawn.high - drawn.low < decisive.high - decisive.low);
		assert_eq!(Estimate::from_wdl(0, 10, 0).score, 0.5);
		assert!(close(Estimate::from_wdl(3, 2, 5).score, 0.4, 1e-12));
	}

	#[test]
	fn four_times_the_games_halves_the_interval() {
		let small = Estimate::from_wdl(30, 20, 50);
		let large = Estimate::from_wdl(120, 80, 200);
		assert_eq!(small.score, large.score);
		assert!(close(
			large.high - large.low,
			(small.high - small.low) / 2.0,
			1e-12
		));
	}

	#[test]
	fn the_score_rises_with_each_win() {
		let mut previous = Estimate::from_wdl(0, 0, 20);
		for wins in 1..=20 {
			let estimate = Estimate::from_wdl(wins, 0, 20 - wins);
			assert!(estimate.score > previous.score);
			assert!(estimate.low >= previous.low && estimate.high >= previous.high);
			previous = estimate;
		}
	}

	#[test]
	fn a_clean_sweep_collapses_the_interval_inside_0_to_1() {
		let sweep = Estimate::from_wdl(10, 0, 0);
		assert_eq!((sweep.score, sweep.low, sweep.high), (1.0, 1.0, 1.0));
		let whitewash = Estimate::from_wdl(0, 0, 10);
		assert_eq!(
			(whitewash.score, whitewash.low, whitewash.high),
			(0.0, 0.0, 0.0)
		);
		// Nearly all wins: the normal interval would pass 1 and is clamped.
		let nearly = Estimate::from_wdl(9, 0, 1);
		assert!(nearly.high == 1.0 && nearly.low < 0.9);
	}

	#[test]
	fn a_match_result_is_the_sum_of_its_sides() {
		let result = MatchResult {
			as_tigers: SideResult {
				wins: 30,
				draws: 10,
				losses: 10,
			},
			as_sheep: SideResult {
				wins: 20,
				draws: 10,
				losses: 20,
			},
		};
		assert_eq!(
			Estimate::from_match(&result),
			Estimate::from_wdl(50, 20, 30)
		);
		assert_eq!(Estimate::from_match(&result).score, result.score());
	}

	#[test]
	fn pairs_count_half_points() {
		use GameResult::{Draw, Loss, Win};
		let mut pairs = PairCounts::default();
		pairs.add_pair(Loss, Loss);
		pairs.add_pair(Draw, Loss);
		pairs.add_pair(Win, Loss);
		pairs.add_pair(Loss, Win);
		pairs.add_pair(Draw, Draw);
		pairs.add_pair(Win, Draw);
		pairs.add_pair(Win, Win);
		assert_eq!(pairs.counts, [1, 1, 3, 1, 1]);
		assert_eq!((pairs.pairs(), pairs.games()), (7, 14));
		// 0 + 1 + 2 + 2 + 2 + 3 + 4 = 14 half-points of 28.
		assert_eq!(pairs.estimate().score, 0.5);
	}

	#[test]
	fn game_results_follow_the_winner() {
		let tigers_won = Some(Outcome::TigersByCaptures);
		assert_eq!(
			GameResult::for_side(tigers_won, Turn::Tiger),
			GameResult::Win
		);
		assert_eq!(
			GameResult::for_side(tigers_won, Turn::Sheep),
			GameResult::Loss
		);
		assert_eq!(GameResult::for_side(None, Turn::Sheep), GameResult::Draw);
		let repeated = Some(Outcome::DrawByRepetition);
		assert_eq!(
			GameResult::for_side(repeated, Turn::Tiger),
			GameResult::Draw
		);
	}

	#[test]
	fn pairs_decided_by_the_opening_narrow_the_pentanomial_interval() {
		// 30 pairs split by the opening, 10 swept each way: 50 wins and 50 losses in all.
		let pairs = PairCounts {
			counts: [10, 0, 30, 0, 10],
		};
		let paired = pairs.estimate();
		let unpaired = Estimate::from_wdl(50, 0, 50);
		assert_eq!(
			(paired.score, paired.games),
			(unpaired.score, unpaired.games)
		);
		// Pair-score variance (10 * 1/4 + 10 * 1/4) / 50 = 0.1, standard error sqrt(0.1 / 50).
		assert!(close(
			paired.high - 0.5,
			Z_95 * (0.1f64 / 50.0).sqrt(),
			1e-12
		));
		assert!(paired.high - paired.low < unpaired.high - unpaired.low);
		// Every pair split: the opening decided every game and the games say nothing more.
		let split = PairCounts {
			counts: [0, 0, 50, 0, 0],
		}
		.estimate();
		assert_eq!((split.low, split.high), (0.5, 0.5));
	}

	#[test]
	fn independent_pairs_give_the_trinomial_interval() {
		// Independent games won half the time: pairs lose, split and win as 1 : 2 : 1.
		let paired = PairCounts {
			counts: [25, 0, 50, 0, 25],
		}
		.estimate();
		let unpaired = Estimate::from_wdl(100, 0, 100);
		assert!(close(paired.low, unpaired.low, 1e-12));
		assert!(close(paired.high, unpaired.high, 1e-12));
	}

	fn pairs_of(counts: [u32; 5]) -> PairCounts {
		PairCounts { counts }
	}

	#[test]
	fn three_one_sided_pairs_give_a_wide_adjusted_interval() {
		// Three pairs of a win and a draw: the observed variance is 0.
		let pairs = pairs_of([0, 0, 0, 3, 0]);
		assert_eq!(pairs.estimate().low, pairs.estimate().high);
		let adjusted = pairs.adjusted_estimate();
		assert_eq!((adjusted.score, adjusted.games), (0.75, 6));
		assert!(close(adjusted.low, 0.353, 0.001), "{adjusted}");
		assert!(close(adjusted.high, 0.947, 0.001), "{adjusted}");
		assert!(adjusted.high - adjusted.low > 0.5, "{adjusted}");
		assert!(pairs.has_few_pairs());
		let elo = adjusted.elo();
		assert!(elo.low < 0.0 && elo.high > 400.0, "{elo}");
	}

	#[test]
	fn drawn_pairs_give_a_narrow_adjusted_interval_rather_than_none() {
		let pairs = pairs_of([0, 0, 100, 0, 0]);
		let adjusted = pairs.adjusted_estimate();
		assert_eq!(adjusted.score, 0.5);
		assert!(adjusted.low < 0.5 && adjusted.high > 0.5, "{adjusted}");
		assert!(adjusted.high - adjusted.low < 0.05, "{adjusted}");
		assert!(!pairs.has_few_pairs());
	}

	#[test]
	fn many_pairs_make_the_adjusted_interval_the_pentanomial_one() {
		let pairs = pairs_of([300, 600, 1200, 600, 300]);
		let (plain, adjusted) = (pairs.estimate(), pairs.adjusted_estimate());
		assert_eq!(plain.score, adjusted.score);
		assert!(close(plain.low, adjusted.low, 0.001), "{plain} {adjusted}");
		assert!(
			close(plain.high, adjusted.high, 0.001),
			"{plain} {adjusted}"
		);
		assert_eq!(pairs_of([0; 5]).adjusted_estimate(), Estimate::UNKNOWN);
	}

	#[test]
	fn known_elo_differences() {
		assert_eq!(elo_from_score(0.5), 0.0);
		// -400 log10(1/3) = 190.848...
		assert!(close(elo_from_score(0.75), 190.849, 1e-3));
		assert!(close(elo_from_score(0.25), -190.849, 1e-3));
		assert!(close(score_from_elo(400.0), 10.0 / 11.0, 1e-12));
		assert_eq!(score_from_elo(0.0), 0.5);
	}

	#[test]
	fn elo_is_odd_increasing_and_inverts_the_score() {
		let mut previous = f64::NEG_INFINITY;
		for step in 1..100 {
			let score = f64::from(step) / 100.0;
			let elo = elo_from_score(score);
			assert!(elo > previous);
			assert!(close(elo, -elo_from_score(1.0 - score), 1e-9));
			assert!(close(score_from_elo(elo), score, 1e-12));
			previous = elo;
		}
	}

	#[test]
	fn certain_scores_clamp_to_max_elo() {
		assert_eq!(elo_from_score(1.0), MAX_ELO);
		assert_eq!(elo_from_score(0.0), -MAX_ELO);
		assert_eq!(elo_from_score(1.5), MAX_ELO);
		assert_eq!(elo_from_score(-0.5), -MAX_ELO);
		assert_eq!(elo_from_score(0.9999), MAX_ELO);
		assert!(elo_from_score(0.99) < MAX_ELO);
		assert!(close(score_from_elo(MAX_ELO), 0.997, 1e-3));
	}

	#[test]
	fn the_elo_interval_transforms_the_score_interval() {
		let estimate = Estimate::from_wdl(60, 10, 30);
		let elo = estimate.elo();
		assert_eq!(elo.elo, elo_from_score(estimate.score));
		assert!(elo.low < elo.elo && elo.elo < elo.high);
		assert!(close(score_from_elo(elo.low), estimate.low, 1e-12));
		assert!(close(score_from_elo(elo.high), estimate.high, 1e-12));
		assert_eq!(
			Estimate::UNKNOWN.elo().to_string(),
			"+0.0 [-1000.0, +1000.0]"
		);
	}
}
