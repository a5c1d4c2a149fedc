//! `ClaudePlayer`: the search with a hand-written evaluation.

use std::time::Duration;

use crate::board::{GameBoard, each_point};
use crate::lines::{JUMPS, NEIGHBOURS};
use crate::moves::Turn;
use crate::search::{
	Evaluator, Killers, MAX_DEPTH, MinimaxPlayer, ScoreType, SearchParts, SearchReport,
	SearchSettings, TranspositionTable,
};

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
}

/// Table size for a player that plays one game at a time: 2^20 slots, 24 MiB.
pub const DEFAULT_TABLE_BITS: u32 = 20;

/// The search with [`ClaudeEval`], a transposition table and killers.
pub struct ClaudePlayer {
	/// How long one move may take; `None` searches to `max_depth` without a clock.
	pub time_limit: Option<Duration>,
	/// The deepest search, in plies.
	pub max_depth: u32,
	/// Extra plies allowed while a tiger can jump.
	pub quiescence_plies: u32,
	eval: ClaudeEval,
	table: TranspositionTable,
	killers: Killers,
	last: Option<SearchReport>,
}

/// Quiescence plies by default.
pub const DEFAULT_QUIESCENCE_PLIES: u32 = 0;

impl ClaudePlayer {
	/// A player that thinks for at most `time_limit` a move.
	pub fn new(time_limit: Duration) -> ClaudePlayer {
		ClaudePlayer::with_settings(SearchSettings {
			max_depth: MAX_DEPTH,
			time_limit: Some(time_limit),
			quiescence_plies: DEFAULT_QUIESCENCE_PLIES,
		})
	}

	/// A deterministic player that always searches exactly `depth` plies.
	pub fn fixed_depth(depth: u32) -> ClaudePlayer {
		ClaudePlayer::with_settings(SearchSettings {
			quiescence_plies: DEFAULT_QUIESCENCE_PLIES,
			..SearchSettings::fixed_depth(depth)
		})
	}

	/// A player with these settings and the default table size.
	pub fn with_settings(settings: SearchSettings) -> ClaudePlayer {
		ClaudePlayer {
			time_limit: settings.time_limit,
			max_depth: settings.max_depth,
			quiescence_plies: settings.quiescence_plies,
			eval: ClaudeEval,
			table: TranspositionTable::new(DEFAULT_TABLE_BITS),
			killers: Killers::new((MAX_DEPTH + settings.quiescence_plies) as usize),
			last: None,
		}
	}

	/// Forgets the table and killers, so the next search starts from nothing.
	pub fn clear(&mut self) {
		self.table.clear();
		self.killers.clear();
		self.last = None;
	}
}

impl MinimaxPlayer for ClaudePlayer {
	type Eval = ClaudeEval;

	fn name(&self) -> String {
		"Claude".to_string()
	}

	fn settings(&self) -> SearchSettings {
		SearchSettings {
			max_depth: self.max_depth,
			time_limit: self.time_limit,
			quiescence_plies: self.quiescence_plies,
		}
	}

	fn parts(&mut self) -> SearchParts<'_, ClaudeEval> {
		SearchParts {
			evaluator: &mut self.eval,
			table: Some(&mut self.table),
			killers: Some(&mut self.killers),
		}
	}

	fn new_game(&mut self) {
		self.clear();
	}

	fn set_last_search(&mut self, report: Option<SearchReport>) {
		self.last = report;
	}

	fn last_search(&self) -> Option<SearchReport> {
		self.last
	}
}
