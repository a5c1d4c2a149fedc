//! `RatingLadder`: every match the run played with a promoted net (its gate, its measurements
//! at the gate's depth and at equal time) fitted at once into ratings with `ClaudePlayer` at 0
//! (core's `stats::LadderBook`), and the best net by that ladder.
//!
//! Candidates that were not promoted are left out: their nets are not kept, so nothing else
//! they played could tie their rating to the others'. The fit is redone lazily, at the first
//! snapshot after a match was added, under the live state's lock; a run's few hundred
//! generations take well under a millisecond (docs/benchmarks.md, "The rating ladder").

use tigers_core::stats::{Ladder, LadderBook};
use tigers_core::versus::SideResult;
use tigers_proto::v1;

/// A player on the ladder: `ClaudePlayer`, the anchor, or a promoted net by its generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Player {
	/// `ClaudePlayer`, rated 0.
	Claude,
	/// The net of this generation.
	Net(u64),
}

/// Games a net must have played on the ladder to be named the best: one full gate or
/// measurement match of 100 pairs. A net promoted after a short gate stopped early is
/// eligible once its measurement has been played.
pub(crate) const BEST_MIN_GAMES: u64 = 200;

/// The most players a snapshot lists: the anchor, the [`LISTED_BEST`] best by lower bound and
/// the newest up to this count. A run's snapshot stays bounded however many nets it promotes.
pub(crate) const LISTED_PLAYERS: usize = 300;

/// Of the listed players, how many are chosen for their lower bound rather than their age.
pub(crate) const LISTED_BEST: usize = 50;

/// The run's matches and their latest fit.
#[derive(Debug)]
pub(crate) struct RatingLadder {
	book: LadderBook<Player>,
	fitted: Option<Ladder<Player>>,
}

impl Default for RatingLadder {
	fn default() -> RatingLadder {
		RatingLadder {
			book: LadderBook::new(Player::Claude),
			fitted: None,
		}
	}
}

impl RatingLadder {
	/// Adds a finished gate: a promoted candidate's match (against `ClaudePlayer` or the
	/// incumbent), or a promoted net's measurement. A refused candidate's is left out.
	pub(crate) fn record_gate(&mut self, gate: &v1::GateSummary) {
		if !gate.promoted && !gate.measurement {
			return;
		}
		let opponent = gate.opponent_generation.map_or(Player::Claude, Player::Net);
		self.record(
			Player::Net(gate.generation),
			opponent,
			gate.as_tigers,
			gate.as_sheep,
		);
	}

	/// Adds a promoted net's measurement at equal time per move against `ClaudePlayer`.
	pub(crate) fn record_timed(&mut self, timed: &v1::TimedMeasurement) {
		let net = Player::Net(timed.generation);
		self.record(net, Player::Claude, timed.as_tigers, timed.as_sheep);
	}

	fn record(
		&mut self,
		first: Player,
		second: Player,
		as_tigers: Option<v1::SideResult>,
		as_sheep: Option<v1::SideResult>,
	) {
		let side = |result: Option<v1::SideResult>| {
			let result = result.unwrap_or_default();
			SideResult {
				wins: result.wins,
				draws: result.draws,
				losses: result.losses,
			}
		};
		self.book
			.record(first, second, side(as_tigers), side(as_sheep));
		self.fitted = None;
	}

	/// The ladder as a snapshot carries it, fitted again if a match came since the last fit.
	pub(crate) fn summary(&mut self) -> v1::Ladder {
		summary(self.fitted())
	}

	/// The best net by the ladder, if one has played enough games.
	pub(crate) fn best_generation(&mut self) -> Option<u64> {
		best(self.fitted())
	}

	fn fitted(&mut self) -> &Ladder<Player> {
		let book = &self.book;
		self.fitted.get_or_insert_with(|| book.fit())
	}
}

/// The fitted ladder as its message: the players [`listed`], and the best net.
pub(crate) fn summary(ladder: &Ladder<Player>) -> v1::Ladder {
	v1::Ladder {
		ratings: listed(ladder)
			.into_iter()
			.map(|(player, rating)| rating_message(player, rating))
			.collect(),
		best_generation: best(ladder),
		players: ladder.ratings.len() as u64,
		matches: ladder.matches,
		games: ladder.games,
		tigers_advantage: ladder.tigers_advantage,
		dispersion: ladder.dispersion,
		min_games_for_best: BEST_MIN_GAMES,
	}
}

/// The net with the highest lower bound among those with [`BEST_MIN_GAMES`] games or more.
fn best(ladder: &Ladder<Player>) -> Option<u64> {
	let best = ladder.best(BEST_MIN_GAMES, |player| matches!(player, Player::Net(_)));
	best.and_then(|player| match player {
		Player::Net(generation) => Some(*generation),
		Player::Claude => None,
	})
}

fn rating_message(player: Player, rating: tigers_core::stats::Rating) -> v1::PlayerRating {
	v1::PlayerRating {
		generation: match player {
			Player::Claude => None,
			Player::Net(generation) => Some(generation),
		},
		rating: rating.rating,
		low: rating.low,
		high: rating.high,
		games: rating.games,
	}
}

/// The players a snapshot lists, in the ladder's order (`ClaudePlayer`, then by generation):
/// every one while they fit in [`LISTED_PLAYERS`]; past that the anchor, the
/// [`LISTED_BEST`] with the highest lower bounds, and the newest nets.
fn listed(ladder: &Ladder<Player>) -> Vec<(Player, tigers_core::stats::Rating)> {
	if ladder.ratings.len() <= LISTED_PLAYERS {
		return ladder.ratings.clone();
	}
	let mut by_bound: Vec<usize> = (0..ladder.ratings.len()).collect();
	by_bound.sort_by(|&a, &b| ladder.ratings[b].1.low.total_cmp(&ladder.ratings[a].1.low));
	let mut keep = vec![false; ladder.ratings.len()];
	let mut kept = 0;
	let anchor = ladder
		.ratings
		.iter()
		.position(|(player, _)| *player == Player::Claude);
	for at in anchor
		.into_iter()
		.chain(by_bound.into_iter().take(LISTED_BEST))
	{
		kept += usize::from(!keep[at]);
		keep[at] = true;
	}
	for at in (0..ladder.ratings.len()).rev() {
		if kept == LISTED_PLAYERS {
			break;
		}
		kept += usize::from(!keep[at]);
		keep[at] = true;
	}
	ladder
		.ratings
		.iter()
		.zip(keep)
		.filter(|(_, keep)| *keep)
		.map(|(entry, _)| *entry)
		.collect()
}

#[cfg(test)]
mod tests {
	use super::*;

	fn side(wins: u32, draws: u32, losses: u32) -> Option<v1::SideResult> {
		Some(v1::SideResult {
			wins,
			draws,
			losses,
		})
	}

	fn gate(
		generation: u64,
		promoted: bool,
		measurement: bool,
		opponent: Option<u64>,
	) -> v1::GateSummary {
		v1::GateSummary {
			generation,
			promoted,
			measurement,
			opponent_generation: opponent,
			as_tigers: side(40, 50, 10),
			as_sheep: side(40, 50, 10),
			..v1::GateSummary::default()
		}
	}

	#[test]
	fn promoted_gates_and_measurements_count_and_refused_candidates_do_not() {
		let mut ladder = RatingLadder::default();
		ladder.record_gate(&gate(1, true, true, None));
		ladder.record_gate(&gate(2, true, false, Some(1)));
		ladder.record_gate(&gate(3, false, false, Some(2)));
		let summary = ladder.summary();
		assert_eq!(summary.matches, 2);
		assert_eq!(summary.players, 3);
		let generations: Vec<_> = summary.ratings.iter().map(|r| r.generation).collect();
		assert_eq!(generations, [None, Some(1), Some(2)]);
		// 2 beat 1, which beat ClaudePlayer by the same margin: about twice as far up.
		let (one, two) = (summary.ratings[1].rating, summary.ratings[2].rating);
		assert!(one > 100.0 && (two - 2.0 * one).abs() < 1.0, "{one} {two}");
	}

	#[test]
	fn the_best_net_needs_enough_games_and_is_the_surest() {
		let mut ladder = RatingLadder::default();
		// Generation 1 played 200 games; generation 2 only its head-to-head of 200 against 1,
		// which chains its interval; generation 3 scored more, but over 20 games.
		ladder.record_gate(&gate(1, true, true, None));
		ladder.record_gate(&gate(2, true, false, Some(1)));
		ladder.record_gate(&v1::GateSummary {
			as_tigers: side(10, 0, 0),
			as_sheep: side(10, 0, 0),
			..gate(3, true, true, None)
		});
		let summary = ladder.summary();
		assert_eq!(summary.best_generation, Some(2));
		assert_eq!(summary.min_games_for_best, BEST_MIN_GAMES);
	}

	#[test]
	fn timed_measurements_are_matches_against_claude() {
		let mut ladder = RatingLadder::default();
		ladder.record_timed(&v1::TimedMeasurement {
			generation: 4,
			as_tigers: side(0, 100, 100),
			as_sheep: side(0, 100, 100),
			..v1::TimedMeasurement::default()
		});
		let summary = ladder.summary();
		assert_eq!(summary.ratings.len(), 2);
		assert!(summary.ratings[1].rating < -100.0);
		assert_eq!(summary.best_generation, Some(4));
	}

	#[test]
	fn a_long_run_lists_the_anchor_the_surest_and_the_newest() {
		let mut ladder = RatingLadder::default();
		for generation in 1..=400 {
			// Generation 10 is far stronger than the rest.
			let strong = if generation == 10 {
				side(100, 0, 0)
			} else {
				side(30, 40, 30)
			};
			ladder.record_gate(&v1::GateSummary {
				as_tigers: strong,
				as_sheep: strong,
				..gate(generation, true, true, None)
			});
		}
		let summary = ladder.summary();
		assert_eq!(summary.players, 401);
		assert_eq!(summary.ratings.len(), LISTED_PLAYERS);
		let listed: Vec<_> = summary.ratings.iter().map(|r| r.generation).collect();
		assert_eq!(listed[0], None);
		assert!(listed.contains(&Some(10)));
		assert!(listed.contains(&Some(400)));
		assert_eq!(summary.best_generation, Some(10));
		assert!(listed.windows(2).all(|pair| pair[0] < pair[1]));
	}
}
