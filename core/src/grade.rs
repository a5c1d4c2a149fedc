//! Grades from the exact values: a fixed suite of positions from both phases, each with its
//! exact value (won, drawn or lost for the side to move) and the moves that keep it, and a net
//! graded on it two ways: whether its own evaluation puts a position in the right class, and
//! whether the move its search picks keeps the exact value.
//!
//! The suite is drawn once, with a seed, from games between varied players (`ClaudePlayer` at
//! depths 1 to 3 with random moves mixed in, from random openings), keeping the positions in
//! which some legal move gives the value away: a position where every move keeps the value
//! grades nothing. It is kept as text (one position a line) so that grading needs neither
//! table: `suite` writes and reads that text, and [`draw_suite`] draws it again from the tables,
//! the same lines for the same seed.

mod exact;
mod suite;

use std::sync::Arc;

use crate::search::MinimaxPlayer;
use crate::tablebase::placement::Verdict;
use crate::{Network, NeuralPlayer, SearchSettings, Turn};

pub use exact::ExactTables;
pub use suite::{
	GAMES_PER_POSITION, SuiteEntry, SuiteError, SuiteShape, draw_suite, read_suite, write_suite,
};

/// The suite kept in the repository (`core/data/grade-suite.txt`): 500 positions of each phase,
/// drawn by `tui tablebase suite --seed 1 --per-phase 500` from the whole solved game.
pub const SUITE: &str = include_str!("../data/grade-suite.txt");

/// Where an evaluation, in the tigers' view from -1 to 1, stops calling a position drawn: a
/// third of the way to either end, as `learn-exact` classes its held-out values.
pub const CLASS_BOUND: f32 = 1.0 / 3.0;

/// A phase's grades: positions graded, and how many the net got right each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseGrades {
	/// Positions of the phase in the suite.
	pub positions: u32,
	/// Those whose class (won, drawn, lost) the net's own evaluation got right.
	pub class_right: u32,
	/// Those in which the move the net's search picked kept the exact value.
	pub moves_kept: u32,
}

impl PhaseGrades {
	/// Both counts as shares (0 to 1), `None` with no positions.
	pub fn shares(&self) -> Option<(f64, f64)> {
		(self.positions > 0).then(|| {
			let n = f64::from(self.positions);
			(
				f64::from(self.class_right) / n,
				f64::from(self.moves_kept) / n,
			)
		})
	}

	/// Both counts added up.
	pub fn plus(self, other: PhaseGrades) -> PhaseGrades {
		PhaseGrades {
			positions: self.positions + other.positions,
			class_right: self.class_right + other.class_right,
			moves_kept: self.moves_kept + other.moves_kept,
		}
	}
}

/// A net's grades on a suite, by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grades {
	/// Positions with sheep still in hand.
	pub placement: PhaseGrades,
	/// Positions with every sheep placed.
	pub movement: PhaseGrades,
}

impl Grades {
	/// Both phases together.
	pub fn whole(&self) -> PhaseGrades {
		self.placement.plus(self.movement)
	}

	/// Two gradings' counts added up, phase by phase (parts of one suite graded apart).
	pub fn plus(self, other: Grades) -> Grades {
		Grades {
			placement: self.placement.plus(other.placement),
			movement: self.movement.plus(other.movement),
		}
	}
}

/// The class of an evaluation in the tigers' view: won, drawn or lost for the side to move.
pub fn class_of(evaluation: f32, turn: Turn) -> Verdict {
	let for_mover = if turn == Turn::Tiger {
		evaluation
	} else {
		-evaluation
	};
	if for_mover > CLASS_BOUND {
		Verdict::Win
	} else if for_mover < -CLASS_BOUND {
		Verdict::Loss
	} else {
		Verdict::Draw
	}
}

/// Grades `net` on `suite`: its evaluation's class, and its search's move at `settings` (no
/// table in play, a fresh search for each position, as a net meets a position it has not seen).
pub fn grade(net: &Arc<Network>, suite: &[SuiteEntry], settings: SearchSettings) -> Grades {
	let mut player = NeuralPlayer::with_net(net.clone(), settings, GRADE_TABLE_BITS);
	let mut grades = Grades::default();
	for entry in suite {
		let (board, turn) = (entry.position.board, entry.position.turn);
		let class_right = class_of(net.forward(board, turn), turn) == entry.value;
		player.new_game();
		let picked = player.pick_move(board, turn, &[]).map(|report| report.mv);
		let kept = picked.is_some_and(|mv| entry.keeping.contains(&mv));
		let phase = if board.sheep_in_hand() > 0 {
			&mut grades.placement
		} else {
			&mut grades.movement
		};
		phase.positions += 1;
		phase.class_right += u32::from(class_right);
		phase.moves_kept += u32::from(kept);
	}
	grades
}

/// The grading search's transposition table: 2^18 entries, a few megabytes, plenty for one
/// position searched at a gate's depth or for a tenth of a second.
const GRADE_TABLE_BITS: u32 = 18;

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn an_evaluation_is_classed_for_the_side_to_move() {
		assert_eq!(class_of(0.9, Turn::Tiger), Verdict::Win);
		assert_eq!(class_of(0.9, Turn::Sheep), Verdict::Loss);
		assert_eq!(class_of(-0.5, Turn::Sheep), Verdict::Win);
		assert_eq!(class_of(0.2, Turn::Tiger), Verdict::Draw);
		assert_eq!(class_of(-0.3, Turn::Sheep), Verdict::Draw);
	}

	#[test]
	fn phase_grades_add_and_give_shares() {
		let grades = Grades {
			placement: PhaseGrades {
				positions: 4,
				class_right: 3,
				moves_kept: 4,
			},
			movement: PhaseGrades {
				positions: 6,
				class_right: 3,
				moves_kept: 5,
			},
		};
		assert_eq!(
			grades.whole(),
			PhaseGrades {
				positions: 10,
				class_right: 6,
				moves_kept: 9
			}
		);
		assert_eq!(grades.whole().shares(), Some((0.6, 0.9)));
		assert_eq!(PhaseGrades::default().shares(), None);
	}
}
