//! `ClaudePlayer`: the search with a hand-written evaluation.

use std::time::Duration;

use crate::board::{GameBoard, each_point};
use crate::lines::{JUMPS, NEIGHBOURS};
use crate::moves::Turn;
use crate::player::SearchPlayer;
use crate::search::{Evaluator, MAX_DEPTH, ScoreType, SearchSettings};

/// The hand-written evaluation, from the tigers' side.
///
/// | term | weight | why |
/// |---|---|---|
/// | dead sheep | +100 | five dead sheep win the game for the tigers |
/// | jumps available | +20 | a sheep left hanging is likely to be lost |
/// | trapped tigers | −15 | a tiger with no move is one step from the sheep's win |
/// | tiger moves | +2 | mobility: the sheep win by squeezing it to nothing |
///
/// ```
/// use tigers_core::{GameBoard, Turn, claude::ClaudeEval, search::Evaluator};
/// // At the start the four corner tigers have three steps each.
/// assert_eq!(ClaudeEval.evaluate(GameBoard::default(), Turn::Sheep), 24.0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ClaudeEval;

impl Evaluator for ClaudeEval {
	#[inline]
	fn evaluate(&mut self, board: GameBoard, _turn: Turn) -> ScoreType {
		let (sheep, empty) = (board.sheep(), board.empty());
		let (mut jumps, mut moves, mut trapped) = (0, 0, 0);
		for tiger in each_point(board.tigers()) {
			let steps = (NEIGHBOURS[tiger.index()] & empty).count_ones();
			let mut tiger_jumps = 0;
			for line in JUMPS[tiger.index()].as_slice() {
				tiger_jumps +=
					u32::from(sheep & line.over.bit() != 0 && empty & line.land.bit() != 0);
			}
			jumps += tiger_jumps;
			moves += steps + tiger_jumps;
			trapped += u32::from(steps + tiger_jumps == 0);
		}
		(100 * board.dead_sheep() as i32 + 20 * jumps as i32 - 15 * trapped as i32
			+ 2 * moves as i32) as ScoreType
	}

	/// This evaluation costs a few nanoseconds, less than a table probe's cache miss: skipping
	/// the table at depth 1 made fixed-depth searches 1.5 to 1.8 times faster (docs/search.md).
	fn table_min_depth(&self) -> u32 {
		2
	}
}

/// Table size for a player that plays one game at a time: 2^20 slots, 24 MiB.
pub const DEFAULT_TABLE_BITS: u32 = 20;

/// The search with [`ClaudeEval`], a transposition table and killers.
pub type ClaudePlayer = SearchPlayer<ClaudeEval>;

impl SearchPlayer<ClaudeEval> {
	/// A player that thinks for at most `time_limit` a move.
	pub fn new(time_limit: Duration) -> ClaudePlayer {
		ClaudePlayer::with_settings(SearchSettings {
			time_limit: Some(time_limit),
			..SearchSettings::fixed_depth(MAX_DEPTH)
		})
	}

	/// A deterministic player that always searches exactly `depth` plies.
	pub fn fixed_depth(depth: u32) -> ClaudePlayer {
		ClaudePlayer::with_settings(SearchSettings::fixed_depth(depth))
	}

	/// A player with these settings and the default table size.
	pub fn with_settings(settings: SearchSettings) -> ClaudePlayer {
		SearchPlayer::with_parts("Claude", ClaudeEval, settings, DEFAULT_TABLE_BITS)
	}
}
