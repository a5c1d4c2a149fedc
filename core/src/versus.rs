//! Games and matches between two searchers, without a terminal: seeded openings, paired games
//! with sides swapped, and results by side.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::game::Game;
use crate::moves::{Move, Turn};
use crate::outcome::Outcome;
use crate::search::MinimaxPlayer;

/// Games longer than this many plies stop unfinished and count as draws. Long games happen
/// when neither side can make progress yet no position comes round a third time.
pub const DEFAULT_MAX_PLIES: usize = 300;

/// `count` distinct openings of `plies` random legal moves from the start, from `seed`.
///
/// An opening never ends the game. The same seed always gives the same openings.
pub fn openings(seed: u64, count: usize, plies: usize) -> Vec<Vec<Move>> {
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
	let mut found: Vec<Vec<Move>> = Vec::with_capacity(count);
	// Give up on distinctness after many tries: very short openings have few variations.
	let mut tries = 0;
	while found.len() < count {
		tries += 1;
		let mut game = Game::default();
		let mut moves = Vec::with_capacity(plies);
		while moves.len() < plies {
			let legal = game.legal_moves();
			if legal.is_empty() {
				break;
			}
			let mv = legal[rng.random_range(0..legal.len())];
			game.play(mv).expect("generated moves are legal");
			moves.push(mv);
		}
		if game.is_over() || (found.contains(&moves) && tries < 100 * count) {
			continue;
		}
		found.push(moves);
	}
	found
}

/// Plays one game: `opening` first, then the two players until the game ends or `max_plies`.
pub fn play_game<S: MinimaxPlayer, T: MinimaxPlayer>(
	sheep: &mut S,
	tigers: &mut T,
	opening: &[Move],
	max_plies: usize,
) -> Game {
	play_game_while(sheep, tigers, opening, max_plies, &|| true)
		.expect("a game that is never stopped is finished")
}

/// As [`play_game`], asking `go_on` before every move: `None` if it said no, so that a long
/// match (one with a clock, say) can be abandoned between moves.
pub fn play_game_while<S: MinimaxPlayer, T: MinimaxPlayer>(
	sheep: &mut S,
	tigers: &mut T,
	opening: &[Move],
	max_plies: usize,
	go_on: &dyn Fn() -> bool,
) -> Option<Game> {
	play_game_until(sheep, tigers, opening, max_plies, go_on, &|_| false)
}

/// As [`play_game_while`], stopping early (the game unfinished) at the first position after
/// the opening where `stop_at` says so.
pub fn play_game_until<S: MinimaxPlayer, T: MinimaxPlayer>(
	sheep: &mut S,
	tigers: &mut T,
	opening: &[Move],
	max_plies: usize,
	go_on: &dyn Fn() -> bool,
	stop_at: &dyn Fn(&Game) -> bool,
) -> Option<Game> {
	let (game, refused) = Game::replay(Default::default(), opening);
	assert!(refused.is_none(), "openings must be legal: {refused:?}");
	let mut game = game;
	sheep.new_game();
	tigers.new_game();
	while !game.is_over() && game.history().len() < max_plies && !stop_at(&game) {
		if !go_on() {
			return None;
		}
		let (board, turn, previous) = (game.board(), game.turn(), game.previous());
		let report = match turn {
			Turn::Sheep => sheep.pick_move(board, turn, &previous),
			Turn::Tiger => tigers.pick_move(board, turn, &previous),
		};
		let report = report.expect("a game that is not over has a legal move");
		game.play(report.mv).expect("searchers return legal moves");
	}
	Some(game)
}

/// Wins, draws and losses of one player in the games it played on one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideResult {
	/// Games won.
	pub wins: u32,
	/// Games drawn, including games stopped unfinished.
	pub draws: u32,
	/// Games lost.
	pub losses: u32,
}

impl SideResult {
	/// Games played.
	pub fn games(&self) -> u32 {
		self.wins + self.draws + self.losses
	}

	/// Points: a win is 1, a draw 1/2.
	pub fn points(&self) -> f64 {
		f64::from(self.wins) + f64::from(self.draws) / 2.0
	}

	/// Counts a game with this outcome (or none) for a player on `side`.
	pub fn add(&mut self, outcome: Option<Outcome>, side: Turn) {
		self.add_winner(outcome.and_then(Outcome::winner), side);
	}

	/// Counts a game played on `side` that `winner` won (`None`: drawn or unfinished).
	pub fn add_winner(&mut self, winner: Option<Turn>, side: Turn) {
		match winner {
			None => self.draws += 1,
			Some(winner) if winner == side => self.wins += 1,
			Some(_) => self.losses += 1,
		}
	}
}

/// One player's results in a match, by side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchResult {
	/// Games played as the tigers.
	pub as_tigers: SideResult,
	/// Games played as the sheep.
	pub as_sheep: SideResult,
}

impl MatchResult {
	/// Games played.
	pub fn games(&self) -> u32 {
		self.as_tigers.games() + self.as_sheep.games()
	}

	/// The share of points won, 0 to 1.
	pub fn score(&self) -> f64 {
		let games = self.games();
		if games == 0 {
			return 0.5;
		}
		(self.as_tigers.points() + self.as_sheep.points()) / f64::from(games)
	}
}

/// Plays every opening twice, `a` as the sheep and then as the tigers, and returns `a`'s
/// results.
pub fn play_match<A: MinimaxPlayer, B: MinimaxPlayer>(
	a: &mut A,
	b: &mut B,
	openings: &[Vec<Move>],
	max_plies: usize,
) -> MatchResult {
	let mut result = MatchResult::default();
	for opening in openings {
		let game = play_game(a, b, opening, max_plies);
		result.as_sheep.add(game.outcome(), Turn::Sheep);
		let game = play_game(b, a, opening, max_plies);
		result.as_tigers.add(game.outcome(), Turn::Tiger);
	}
	result
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::claude::ClaudePlayer;

	#[test]
	fn openings_are_reproducible_distinct_and_legal() {
		let a = openings(7, 20, 4);
		assert_eq!(a, openings(7, 20, 4));
		assert_ne!(a, openings(8, 20, 4));
		for (i, opening) in a.iter().enumerate() {
			assert_eq!(opening.len(), 4);
			assert!(!a[..i].contains(opening));
			let (game, refused) = Game::replay(Default::default(), opening);
			assert!(refused.is_none() && !game.is_over());
		}
	}

	#[test]
	fn a_game_ends_or_stops_at_the_cap() {
		let mut sheep = ClaudePlayer::fixed_depth(2);
		let mut tigers = ClaudePlayer::fixed_depth(2);
		let game = play_game(&mut sheep, &mut tigers, &[], 40);
		assert!(game.is_over() || game.history().len() == 40);
	}

	#[test]
	fn paired_match_counts_each_side() {
		let mut a = ClaudePlayer::fixed_depth(2);
		let mut b = ClaudePlayer::fixed_depth(2);
		let result = play_match(&mut a, &mut b, &openings(1, 2, 2), 60);
		assert_eq!(result.as_tigers.games(), 2);
		assert_eq!(result.as_sheep.games(), 2);
		// The same player on both sides of the same openings: the same games, mirrored.
		assert_eq!(result.as_tigers.wins, result.as_sheep.losses);
		assert_eq!(result.as_tigers.draws, result.as_sheep.draws);
	}

	/// A player that forgets everything before every move.
	struct Forgetful<P: MinimaxPlayer>(P, fn(&mut P));

	impl<P: MinimaxPlayer> MinimaxPlayer for Forgetful<P> {
		type Eval = P::Eval;

		fn settings(&self) -> crate::search::SearchSettings {
			self.0.settings()
		}

		fn parts(&mut self) -> crate::search::SearchParts<'_, P::Eval> {
			(self.1)(&mut self.0);
			self.0.parts()
		}
	}

	#[test]
	fn fixed_depth_games_do_not_depend_on_what_earlier_moves_searched() {
		// Players that keep their tables through a game (as the gate's do) and players that
		// clear them before every move must play the same games, or a match would measure the
		// tables as much as the players. Before fixed-depth searches started from empty tables,
		// these openings gave different games: scores stored at earlier moves were trusted after
		// the game had repeated positions they had not counted on.
		let games = |forget: bool| {
			let mut moves = Vec::new();
			for opening in openings(11, 8, 4) {
				let (three, four) = (ClaudePlayer::fixed_depth(3), ClaudePlayer::fixed_depth(4));
				let (sheep_first, tigers_first) = if forget {
					let mut a = Forgetful(three, ClaudePlayer::clear);
					let mut b = Forgetful(four, ClaudePlayer::clear);
					(
						play_game(&mut a, &mut b, &opening, 300),
						play_game(&mut b, &mut a, &opening, 300),
					)
				} else {
					let (mut a, mut b) = (three, four);
					(
						play_game(&mut a, &mut b, &opening, 300),
						play_game(&mut b, &mut a, &opening, 300),
					)
				};
				moves.push((sheep_first.moves(), tigers_first.moves()));
			}
			moves
		};
		assert_eq!(games(false), games(true));
	}

	#[test]
	fn side_results_add_up() {
		let mut side = SideResult::default();
		side.add(Some(Outcome::TigersByCaptures), Turn::Tiger);
		side.add(Some(Outcome::SheepByTrapping), Turn::Tiger);
		side.add(Some(Outcome::DrawByRepetition), Turn::Tiger);
		side.add(None, Turn::Tiger);
		assert_eq!(
			side,
			SideResult {
				wins: 1,
				draws: 2,
				losses: 1
			}
		);
		assert_eq!(side.points(), 2.0);
	}
}
