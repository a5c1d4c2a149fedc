//! How well a player kept the exact value over a whole game: its placement-phase moves judged by
//! the placement layers, its movement-phase moves by the movement table, and the moves that
//! gave a value away (a win into a draw or a loss, a draw into a loss).

use crate::game::Game;
use crate::moves::{Move, Turn};
use crate::tablebase::placement::store::PlacementTable;
use crate::tablebase::placement::verdict::Verdict;
use crate::tablebase::{Accuracy, Tablebase};
use crate::{GameBoard, board::DEAD_SHEEP_TO_WIN};

/// One side's moves over a whole game, judged by both solved phases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WholeGameAccuracy {
	/// Placement-phase moves whose value the layers knew, and those that kept it.
	pub placement: Accuracy,
	/// Movement-phase moves, and those that kept the result.
	pub movement: Accuracy,
}

impl WholeGameAccuracy {
	/// Both phases together.
	pub fn whole(&self) -> Accuracy {
		self.placement.plus(self.movement)
	}

	/// Moves that gave a value away, in both phases.
	pub fn value_losing_moves(&self) -> u32 {
		self.whole().moves - self.whole().kept
	}

	/// Both sides' or both games' counts added.
	#[must_use]
	pub fn plus(self, other: WholeGameAccuracy) -> WholeGameAccuracy {
		WholeGameAccuracy {
			placement: self.placement.plus(other.placement),
			movement: self.movement.plus(other.movement),
		}
	}

	/// The moves `side` made in `game`, judged by `placement` and `movement`. A placement move
	/// whose position or result is in a layer that is not there is left out.
	pub fn of_game(
		placement: &PlacementTable,
		movement: &Tablebase,
		game: &Game,
		side: Turn,
	) -> WholeGameAccuracy {
		WholeGameAccuracy::of_game_from(placement, movement, game, side, 0)
	}

	/// As [`WholeGameAccuracy::of_game`], leaving out the first `first_ply` plies: an opening
	/// the players were given rather than chose.
	pub fn of_game_from(
		placement: &PlacementTable,
		movement: &Tablebase,
		game: &Game,
		side: Turn,
		first_ply: usize,
	) -> WholeGameAccuracy {
		let mut accuracy = WholeGameAccuracy::default();
		let mut before = game.start().board;
		for (ply, (mv, after)) in game.history().iter().enumerate() {
			if mv.side() == side && ply >= first_ply {
				if before.sheep_in_hand() > 0 {
					if let Some(kept) = keeps_placement_value(placement, movement, before, *mv) {
						accuracy.placement.moves += 1;
						accuracy.placement.kept += u32::from(kept);
					}
				} else if let Some(kept) = movement.keeps_value(before, *mv) {
					accuracy.movement.moves += 1;
					accuracy.movement.kept += u32::from(kept);
				}
			}
			before = *after;
		}
		accuracy
	}
}

/// Whether `mv`, played by its side on a placement-phase `board`, keeps the position's value;
/// `None` where a layer needed is not there or cannot be read.
pub fn keeps_placement_value(
	placement: &PlacementTable,
	movement: &Tablebase,
	board: GameBoard,
	mv: Move,
) -> Option<bool> {
	let turn = mv.side();
	let before = placement.probe(board, turn).ok()??;
	let after = board.after_move_unchecked(mv);
	let now = if after.dead_sheep() >= DEAD_SHEEP_TO_WIN {
		Verdict::Win
	} else if after.sheep_in_hand() == 0 {
		Verdict::of_value(movement.probe(after, turn.opponent())?).flip()
	} else {
		placement.probe(after, turn.opponent()).ok()??.flip()
	};
	Some(now.sign() >= before.sign())
}
