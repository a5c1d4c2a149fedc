//! Self-play: one game between two searchers without a terminal, with seeded exploration, giving
//! its record and one training sample per searched position.
//!
//! Exploration, so that games from the same net differ:
//!
//! 1. the first `random_plies` moves are drawn uniformly from the legal moves;
//! 2. the next `softmax_plies` moves are drawn from a softmax over every move's exact search
//!    score, `p ∝ exp(value / temperature)`, with values in `-1..1` from the mover's side (a
//!    forced win counts 10, a forced loss -10, so forced results dominate at any sensible
//!    temperature);
//! 3. after that, the search's best move.
//!
//! Uniform moves alone would spread games widely but through positions no reasonable player
//! reaches; the softmax keeps early choices plausible while still varying them. Both draw from
//! the game's own seed, so a game is a function of the nets, the settings and the seed.
//!
//! With the tablebase and adjudication, a game stops at its first movement-phase position (all
//! sheep placed) with the table's exact result: perfect play from there is known, so searching
//! it out would only cost time and add the players' endgame mistakes to the result.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use thiserror::Error;

use crate::board::{BoardError, GameBoard};
use crate::game::Game;
use crate::moves::{Move, Turn};
use crate::outcome::Outcome;
use crate::position::{Position, PositionError};
use crate::record::GameRecord;
use crate::search::{MinimaxPlayer, forced_result, score_to_value};
use crate::tablebase::Tablebase;

/// How self-play games are played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlaySettings {
	/// Moves chosen uniformly at random at the start.
	pub random_plies: u32,
	/// Moves after those chosen by a softmax over the moves' scores.
	pub softmax_plies: u32,
	/// The softmax temperature, in value units (values lie in `-1..1`).
	pub temperature: f32,
	/// A game stops unfinished after this many plies (and counts as a draw).
	pub max_plies: u32,
}

impl Default for SelfPlaySettings {
	/// Two random plies, then eight by softmax at temperature 0.1; docs/training.md has the
	/// measured spread of games these give.
	fn default() -> SelfPlaySettings {
		SelfPlaySettings {
			random_plies: 2,
			softmax_plies: 8,
			temperature: 0.1,
			max_plies: 300,
		}
	}
}

/// One searched position of a self-play game, with what became of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
	/// The board.
	pub board: GameBoard,
	/// The side to move.
	pub turn: Turn,
	/// The search's value of the position, tigers' view, in `-1..=1`.
	pub score: f32,
	/// The game's result, tigers' view: 1 won, 0 drawn or unfinished, -1 lost.
	pub result: f32,
	/// Plies played before this position.
	pub ply: u32,
	/// The generation of the net that played the move from this position.
	pub generation: u64,
}

/// Why a value is not a sample self-play could have produced.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SampleError {
	/// The pieces do not make a board a game can reach.
	#[error(transparent)]
	Board(#[from] BoardError),
	/// The side to move cannot move on this board.
	#[error(transparent)]
	Position(#[from] PositionError),
	/// The game is over in this position, so nobody searched it.
	#[error("the position is already over ({0})")]
	Finished(Outcome),
	/// A number outside its range.
	#[error("{field} {value} is outside {range}")]
	Range {
		/// The field: `score`, `result` or `ply`.
		field: &'static str,
		/// Its value, printed.
		value: String,
		/// The values allowed.
		range: &'static str,
	},
}

impl Sample {
	/// The most plies a sample may report, far beyond any game's cap.
	pub const MAX_PLY: u32 = 10_000;

	/// Checks that self-play could have produced this sample: a board a game can reach (rebuilt
	/// from its masks, since a board may have been made unchecked from raw bits), a side that
	/// can move on it, a game not yet over, a finite score in `-1..=1`, a result of -1, 0 or 1
	/// and a ply up to [`Sample::MAX_PLY`]. The one rule for samples that arrive from workers
	/// and samples read back from storage.
	pub fn check(&self) -> Result<(), SampleError> {
		let board = GameBoard::new(
			self.board.tigers(),
			self.board.sheep(),
			u32::from(self.board.sheep_in_hand()),
		)?;
		Position::new(board, self.turn)?;
		if let Some(outcome) = board.outcome(self.turn) {
			return Err(SampleError::Finished(outcome));
		}
		let range = |field, value: &dyn std::fmt::Display, range| SampleError::Range {
			field,
			value: value.to_string(),
			range,
		};
		if !(self.score.is_finite() && (-1.0..=1.0).contains(&self.score)) {
			return Err(range("score", &self.score, "-1..=1"));
		}
		if ![-1.0, 0.0, 1.0].contains(&self.result) {
			return Err(range("result", &self.result, "{-1, 0, 1}"));
		}
		if self.ply > Sample::MAX_PLY {
			return Err(range("ply", &self.ply, "0..=10000"));
		}
		Ok(())
	}

	/// The value to train towards: `result_weight` of the result plus the rest of the search's
	/// score.
	pub fn target(&self, result_weight: f32) -> f32 {
		result_weight * self.result + (1.0 - result_weight) * self.score
	}

	/// The value to train towards when the tablebase may rescore: for a movement-phase
	/// position, its exact result (tigers' view: 1, 0 or -1) in place of both the game's result
	/// and the search's score; otherwise [`Sample::target`].
	pub fn target_with(&self, result_weight: f32, rescore_with: Option<&Tablebase>) -> f32 {
		match rescore_with.and_then(|table| table.probe(self.board, self.turn)) {
			Some(value) => value.sign() as f32 * self.turn.sign(),
			None => self.target(result_weight),
		}
	}
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayGame {
	/// The game as played.
	pub record: GameRecord,
	/// One sample per position a player searched.
	pub samples: Vec<Sample>,
	/// Positions the searches visited (those that chose moves by their best score).
	pub nodes: u64,
}

/// Plays one game from the start between `sheep` and `tigers`, exploring from `seed`, and tags
/// the samples with `generation`.
pub fn play_self_play_game<S: MinimaxPlayer, T: MinimaxPlayer>(
	sheep: &mut S,
	tigers: &mut T,
	settings: &SelfPlaySettings,
	seed: u64,
	generation: u64,
) -> SelfPlayGame {
	play_self_play_game_with(sheep, tigers, settings, seed, generation, None)
}

/// Whether the game of `seed` is one of the `share` (0 to 1) that a run adjudicating at the
/// movement phase plays to its end instead: a number in [0, 1) drawn from the seed alone (not
/// from the game's own generator, so the game's moves are the same either way) falls below the
/// share. The same seed and share always give the same answer, so a record replays exactly.
pub fn is_played_out(seed: u64, share: f32) -> bool {
	// SplitMix64's finaliser: nearby seeds give unrelated draws.
	let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
	z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
	z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
	z ^= z >> 31;
	// The top 24 bits, exactly representable as an f32 in [0, 1).
	let draw = (z >> 40) as f32 / (1u32 << 24) as f32;
	draw < share
}

/// As [`play_self_play_game`], stopping at the first movement-phase position with the exact
/// result if `adjudicate_with` gives a table. The record then ends unfinished (`result *`) at
/// that position; the samples carry the table's result.
pub fn play_self_play_game_with<S: MinimaxPlayer, T: MinimaxPlayer>(
	sheep: &mut S,
	tigers: &mut T,
	settings: &SelfPlaySettings,
	seed: u64,
	generation: u64,
	adjudicate_with: Option<&Tablebase>,
) -> SelfPlayGame {
	let mut players = Players {
		sheep,
		tigers,
		settings,
		generation,
		rng: Xoshiro256PlusPlus::seed_from_u64(seed),
		nodes: 0,
	};
	let mut game = Game::default();
	let mut samples = Vec::new();
	let mut adjudicated = None;
	players.sheep.new_game();
	players.tigers.new_game();
	while !game.is_over() && game.history().len() < settings.max_plies as usize {
		let ply = game.history().len() as u32;
		let (board, turn) = (game.board(), game.turn());
		if let Some(value) = adjudicate_with.and_then(|table| table.probe(board, turn)) {
			adjudicated = Some(value.sign() as f32 * turn.sign());
			break;
		}
		if ply < settings.random_plies {
			let legal = game.legal_moves();
			let mv = legal[players.rng.random_range(0..legal.len())];
			game.play(mv).expect("a legal move");
			continue;
		}
		let (mv, sample) = players.searched_ply(&game, ply);
		samples.push(sample);
		game.play(mv).expect("searchers return legal moves");
	}
	let result = adjudicated.unwrap_or_else(|| game.outcome().map_or(0.0, Outcome::value));
	for sample in &mut samples {
		sample.result = result;
	}
	let mut record = GameRecord::from_game(&game);
	record.seed = Some(seed);
	record.generation = Some(generation);
	SelfPlayGame {
		record,
		samples,
		nodes: players.nodes,
	}
}

/// The two sides of a self-play game, the exploration's random numbers (from the game's seed)
/// and the nodes their searches have visited.
struct Players<'a, S, T> {
	sheep: &'a mut S,
	tigers: &'a mut T,
	settings: &'a SelfPlaySettings,
	/// The generation the samples are tagged with.
	generation: u64,
	rng: Xoshiro256PlusPlus,
	nodes: u64,
}

impl<S: MinimaxPlayer, T: MinimaxPlayer> Players<'_, S, T> {
	/// The move at ply `ply`, one of those after the random ones: drawn by the softmax over the
	/// moves' scores for the first `softmax_plies`, the search's best after them. With it, the
	/// sample of the position (its result still to come).
	fn searched_ply(&mut self, game: &Game, ply: u32) -> (Move, Sample) {
		let (board, turn) = (game.board(), game.turn());
		let previous = game.previous();
		let (mv, score) = if ply < self.settings.random_plies + self.settings.softmax_plies {
			let scored = match turn {
				Turn::Sheep => self.sheep.score_moves(board, turn, &previous),
				Turn::Tiger => self.tigers.score_moves(board, turn, &previous),
			};
			softmax_choice(&scored, turn, self.settings.temperature, &mut self.rng)
		} else {
			let report = match turn {
				Turn::Sheep => self.sheep.pick_move(board, turn, &previous),
				Turn::Tiger => self.tigers.pick_move(board, turn, &previous),
			}
			.expect("a game that is not over has a legal move");
			self.nodes += report.nodes;
			(report.mv, report.score)
		};
		let sample = Sample {
			board,
			turn,
			score: score_to_value(score),
			result: 0.0,
			ply,
			generation: self.generation,
		};
		(mv, sample)
	}
}

/// Picks a move with probability `∝ exp(value / temperature)`, values from the mover's side.
/// Returns the move and its score (tigers' view).
fn softmax_choice(
	scored: &[(Move, f32)],
	turn: Turn,
	temperature: f32,
	rng: &mut Xoshiro256PlusPlus,
) -> (Move, f32) {
	debug_assert!(!scored.is_empty());
	let value = |score: f32| {
		let mover = score * turn.sign();
		if forced_result(score).is_some() {
			10.0 * mover.signum()
		} else {
			mover.clamp(-1.0, 1.0)
		}
	};
	let best = scored
		.iter()
		.map(|(_, s)| value(*s))
		.fold(f32::NEG_INFINITY, f32::max);
	// Subtracting the best value keeps every exponent at or below 0, so nothing overflows.
	let weights: Vec<f64> = scored
		.iter()
		.map(|(_, s)| f64::from((value(*s) - best) / temperature.max(1e-6)).exp())
		.collect();
	let mut pick = rng.random_range(0.0..weights.iter().sum::<f64>());
	for (weight, &(mv, score)) in weights.iter().zip(scored) {
		if pick < *weight {
			return (mv, score);
		}
		pick -= weight;
	}
	*scored.last().expect("at least one move")
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::claude::ClaudePlayer;
	use crate::moves::Move;

	fn game(seed: u64) -> SelfPlayGame {
		let settings = SelfPlaySettings {
			max_plies: 120,
			..SelfPlaySettings::default()
		};
		let mut sheep = ClaudePlayer::fixed_depth(2);
		let mut tigers = ClaudePlayer::fixed_depth(2);
		play_self_play_game(&mut sheep, &mut tigers, &settings, seed, 7)
	}

	#[test]
	fn the_share_of_games_played_out_is_a_function_of_the_seed_near_the_share() {
		for share in [0.0, 0.25, 0.5, 1.0] {
			let out = (0..20_000u64)
				.filter(|&seed| is_played_out(seed, share))
				.count();
			let expected = share * 20_000.0;
			// Within five standard deviations of a binomial draw.
			let sd = (20_000.0 * share * (1.0 - share)).sqrt();
			assert!((out as f32 - expected).abs() <= 5.0 * sd, "{share}: {out}");
			assert!((0..100).all(|seed| is_played_out(seed, share) == is_played_out(seed, share)));
		}
		// A larger share plays out every game a smaller one does.
		assert!((0..1000).all(|seed| !is_played_out(seed, 0.2) || is_played_out(seed, 0.6)));
	}

	#[test]
	fn a_game_is_a_function_of_its_seed() {
		assert_eq!(game(1), game(1));
		assert_ne!(game(1).record.moves, game(2).record.moves);
	}

	#[test]
	fn samples_describe_the_searched_positions() {
		let played = game(3);
		let (replayed, refused) = played.record.replay();
		assert!(refused.is_none());
		let expected =
			played.record.moves.len() - SelfPlaySettings::default().random_plies as usize;
		assert_eq!(played.samples.len(), expected);
		let result = replayed.outcome().map_or(0.0, Outcome::value);
		for sample in &played.samples {
			let (board, turn) = if sample.ply == 0 {
				(GameBoard::default(), Turn::Sheep)
			} else {
				let p = sample.ply as usize;
				(
					replayed.history()[p - 1].1,
					if p.is_multiple_of(2) {
						Turn::Sheep
					} else {
						Turn::Tiger
					},
				)
			};
			assert_eq!((sample.board, sample.turn), (board, turn));
			assert_eq!(sample.result, result);
			assert_eq!(sample.generation, 7);
			assert!((-1.0..=1.0).contains(&sample.score));
		}
		assert_eq!(played.record.seed, Some(3));
		assert_eq!(played.record.generation, Some(7));
	}

	#[test]
	fn self_play_samples_pass_the_check_and_impossible_ones_do_not() {
		for seed in 0..4 {
			for sample in game(seed).samples {
				assert_eq!(sample.check(), Ok(()), "{sample:?}");
			}
		}
		let good = game(5).samples[3];
		let refusal = |sample: Sample| sample.check().unwrap_err().to_string();
		assert!(
			refusal(Sample {
				score: f32::NAN,
				..good
			})
			.contains("score NaN")
		);
		assert!(
			refusal(Sample {
				score: -1.5,
				..good
			})
			.contains("score -1.5 is outside -1..=1")
		);
		assert!(
			refusal(Sample {
				result: 0.5,
				..good
			})
			.contains("result 0.5")
		);
		assert!(
			refusal(Sample {
				ply: 10_001,
				..good
			})
			.contains("ply 10001")
		);
		assert_eq!(
			Sample {
				ply: Sample::MAX_PLY,
				..good
			}
			.check(),
			Ok(())
		);
		let tigers_first = Sample {
			board: GameBoard::default(),
			turn: Turn::Tiger,
			..good
		};
		assert!(matches!(
			tigers_first.check(),
			Err(SampleError::Position(_))
		));
		// Sheep to move with every point around every tiger filled: the tigers are trapped and
		// the game is over.
		let over: Position = "T...T/SSSSS/SSSSS/SSSSS/T...T s 0".parse().unwrap();
		let finished = Sample {
			board: over.board,
			turn: over.turn,
			..good
		};
		assert!(matches!(finished.check(), Err(SampleError::Finished(_))));
		// Five tigers, from raw bits the checked constructor would refuse.
		let empty = !(good.board.tigers() | good.board.sheep()) & crate::board::BOARD_MASK;
		let board =
			GameBoard::from_bits(good.board.to_bits() | u64::from(empty & empty.wrapping_neg()));
		assert!(matches!(
			Sample { board, ..good }.check(),
			Err(SampleError::Board(BoardError::TigerCount(5)))
		));
	}

	#[test]
	fn targets_blend_result_and_score() {
		let sample = Sample {
			board: GameBoard::default(),
			turn: Turn::Sheep,
			score: 0.5,
			result: -1.0,
			ply: 0,
			generation: 0,
		};
		assert_eq!(sample.target(1.0), -1.0);
		assert_eq!(sample.target(0.0), 0.5);
		assert_eq!(sample.target(0.5), -0.25);
	}

	#[test]
	fn softmax_prefers_better_moves_and_never_picks_forced_losses() {
		let a: Move = "sa5".parse().unwrap();
		let b: Move = "sb5".parse().unwrap();
		let c: Move = "sc5".parse().unwrap();
		// Sheep to move: lower (tigers' view) is better for them; c loses by force.
		let scored = [(a, -0.5), (b, 0.5), (c, crate::search::WIN - 3.0)];
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
		let mut counts = [0; 3];
		for _ in 0..2000 {
			let (mv, _) = softmax_choice(&scored, Turn::Sheep, 0.5, &mut rng);
			counts[[a, b, c].iter().position(|m| *m == mv).unwrap()] += 1;
		}
		// exp(1 / 0.5) = 7.4 times as likely: about 1762 against 238.
		assert!(counts[0] > 1600 && counts[1] > 150, "{counts:?}");
		assert!(counts[2] < 5, "{counts:?}");
	}
}
