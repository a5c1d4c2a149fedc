//! The minimax search shared by every computer player: iterative deepening alpha-beta over an
//! [`Evaluator`], with an optional transposition table and killer moves.
//!
//! - [`table`]: the transposition table, keyed by canonical board;
//! - [`killers`]: killer moves per remaining depth;
//! - [`alphabeta`]: the search itself.

pub mod alphabeta;
pub mod killers;
pub mod table;

use std::time::Duration;

use crate::board::GameBoard;
use crate::moves::{Move, Turn};
use crate::tablebase::placement::PlacementTable;
use crate::tablebase::{Tablebase, Value};

pub use killers::Killers;
pub use table::{CacheEntry, Reuse, TableKey, TranspositionTable};

/// A search score, positive favouring tigers (inside the search: favouring the side to move).
pub type ScoreType = f32;

/// The score of a won game, less the plies it takes: quicker wins score higher.
pub const WIN: ScoreType = 1_000_000.0;
/// The score of a drawn game.
pub const DRAW: ScoreType = 0.0;
/// Evaluations must stay strictly inside `-EVAL_LIMIT..EVAL_LIMIT`, far from forced results.
pub const EVAL_LIMIT: ScoreType = WIN / 2.0;
/// The deepest search, in plies.
pub const MAX_DEPTH: u32 = 64;
/// Scores beyond this in magnitude are forced results.
const FORCED: ScoreType = WIN - 1000.0;

/// The static evaluation a search uses where it stops.
pub trait Evaluator {
	/// The score of a position, positive favouring tigers whichever side is to move; finite and
	/// inside `-EVAL_LIMIT..EVAL_LIMIT`; a function of the position alone, whatever was
	/// evaluated before it.
	///
	/// Symmetric boards share transposition table entries, so they should score alike. Where
	/// they do not (a net's values for the eight images of a board differ a little), a node can
	/// take a bound or a score found for one of its images earlier (in the same search, or in an
	/// earlier one whose entries it may reuse): a fixed-depth search stays deterministic, since
	/// it visits positions in the same order every time, but its score for a position can depend
	/// on which image of it came first, and a position and its mirror image can be given
	/// slightly different scores and moves.
	fn evaluate(&mut self, board: GameBoard, turn: Turn) -> ScoreType;

	/// The least remaining depth at which the search consults the transposition table. A probe
	/// is usually a cache miss; at depth 1 it can only save the evaluations of one node's
	/// children, which for a cheap evaluation cost less than the miss.
	fn table_min_depth(&self) -> u32 {
		1
	}

	/// Forgets whatever the evaluation keeps between calls (caches); the player's `clear` calls
	/// it. Values must not depend on it.
	fn clear(&mut self) {}
}

/// How deep and how long to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchSettings {
	/// The most plies to search, counting the move itself (1..=64).
	pub max_depth: u32,
	/// How long a search may take: it starts no new iteration after half of it and abandons
	/// an iteration at the whole. `None` searches to `max_depth` without a clock, which makes the
	/// search deterministic.
	pub time_limit: Option<Duration>,
}

impl SearchSettings {
	/// A deterministic search to exactly `depth` plies.
	pub fn fixed_depth(depth: u32) -> SearchSettings {
		SearchSettings {
			max_depth: depth,
			time_limit: None,
		}
	}
}

/// What a search found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchReport {
	/// The move to play.
	pub mv: Move,
	/// The deepest completed iteration.
	pub depth: u32,
	/// The score after `mv`, positive favouring tigers.
	pub score: ScoreType,
	/// Positions visited, over all iterations.
	pub nodes: u64,
}

impl SearchReport {
	/// If the score is a forced result: the winner and in how many plies from the root.
	pub fn forced_result(&self) -> Option<(Turn, u32)> {
		forced_result(self.score)
	}
}

/// A search score (tigers' view) as a value in `-1..=1`: forced results become `±1`, other
/// scores are clamped (a net's scores already lie inside).
pub fn score_to_value(score: ScoreType) -> f32 {
	if score.abs() >= FORCED {
		score.signum()
	} else {
		score.clamp(-1.0, 1.0)
	}
}

/// The score of an exact value (side to move's view) at a node `ply` plies below the root: the
/// same as the search gives a forced result found by looking ahead.
pub fn exact_score(value: Value, ply: u32) -> ScoreType {
	match value {
		Value::Win(n) => WIN - (ply + n) as ScoreType,
		Value::Draw => DRAW,
		Value::Loss(n) => -(WIN - (ply + n) as ScoreType),
	}
}

/// If `score` (tigers' view) is a forced result: the winner and in how many plies.
pub fn forced_result(score: ScoreType) -> Option<(Turn, u32)> {
	if score.abs() < FORCED {
		return None;
	}
	let winner = if score > 0.0 {
		Turn::Tiger
	} else {
		Turn::Sheep
	};
	Some((winner, (WIN - score.abs()).round() as u32))
}

/// The parts of a player the search borrows: its evaluation and its optional tables.
pub struct SearchParts<'a, E: Evaluator> {
	/// The evaluation.
	pub evaluator: &'a mut E,
	/// The transposition table, if the player keeps one.
	pub table: Option<&'a mut TranspositionTable>,
	/// Killer moves, if the player keeps them.
	pub killers: Option<&'a mut Killers>,
	/// The solved movement phase, if the player has it.
	pub tablebase: Option<&'a Tablebase>,
	/// The solved placement phase, if the player plays only value-keeping placement moves.
	pub placement: Option<&'a PlacementTable>,
}

/// A computer player that is a search with its own evaluation.
///
/// Implementors supply the evaluation, the settings and storage; [`MinimaxPlayer::pick_move`]
/// runs the search. Nothing here draws: screens belong to the `tui` crate.
pub trait MinimaxPlayer {
	/// The evaluation type.
	type Eval: Evaluator;

	/// A short name for panels and records.
	fn name(&self) -> String {
		"Computer".to_string()
	}

	/// Depth and time limit.
	fn settings(&self) -> SearchSettings;

	/// The evaluation and tables, borrowed for one search.
	fn parts(&mut self) -> SearchParts<'_, Self::Eval>;

	/// Called before each new game: forget what belongs to the last one (tables, reports), so
	/// that a fixed-depth game does not depend on the games before it.
	fn new_game(&mut self) {}

	/// Stores the report of the last search, for display.
	fn set_last_search(&mut self, _report: Option<SearchReport>) {}

	/// The report of the last search.
	fn last_search(&self) -> Option<SearchReport> {
		None
	}

	/// The static evaluation of a position, positive favouring tigers.
	fn evaluate(&mut self, board: GameBoard, turn: Turn) -> ScoreType {
		self.parts().evaluator.evaluate(board, turn)
	}

	/// Searches `board` with `turn` to move; `previous` is every earlier board of the game,
	/// oldest first, for repetitions. Returns `None` only when `turn` has no legal move.
	fn pick_move(
		&mut self,
		board: GameBoard,
		turn: Turn,
		previous: &[GameBoard],
	) -> Option<SearchReport> {
		let settings = self.settings();
		let report = alphabeta::search(self.parts(), &settings, board, turn, previous);
		self.set_last_search(report);
		report
	}

	/// Every legal move with its exact score (tigers' view) at this player's `max_depth`,
	/// without a clock; see [`alphabeta::score_moves`].
	fn score_moves(
		&mut self,
		board: GameBoard,
		turn: Turn,
		previous: &[GameBoard],
	) -> Vec<(Move, ScoreType)> {
		let settings = SearchSettings {
			time_limit: None,
			..self.settings()
		};
		alphabeta::score_moves(self.parts(), &settings, board, turn, previous)
	}
}
