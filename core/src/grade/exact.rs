//! `ExactTables`: the exact value of any position of the game, from the movement table and the
//! placement layers, and the moves that keep it.

use crate::board::DEAD_SHEEP_TO_WIN;
use crate::tablebase::placement::{PlacementTable, Verdict};
use crate::{GameBoard, Move, Tablebase, Turn};

/// The exact value of positions of either phase: the movement table, and the placement layers.
pub struct ExactTables<'a> {
	/// The movement phase, solved.
	pub movement: &'a Tablebase,
	/// The placement phase's layers (those present answer).
	pub placement: &'a PlacementTable,
}

impl ExactTables<'_> {
	/// The value of `board` with `turn` to move, if a table knows it.
	pub fn verdict(&self, board: GameBoard, turn: Turn) -> Option<Verdict> {
		if board.sheep_in_hand() == 0 {
			self.movement.probe(board, turn).map(Verdict::of_value)
		} else {
			self.placement.probe(board, turn).ok().flatten()
		}
	}

	/// The value of `board` for `turn` to move and the legal moves that keep it, if the tables
	/// know the position and every position a move leads to.
	pub fn keeping_moves(&self, board: GameBoard, turn: Turn) -> Option<(Verdict, Vec<Move>)> {
		let value = self.verdict(board, turn)?;
		let mut keeping = Vec::new();
		for &mv in board.get_moves(turn).iter() {
			let after = board.after_move_unchecked(mv);
			let reached = if after.dead_sheep() >= DEAD_SHEEP_TO_WIN {
				Verdict::Win
			} else {
				self.verdict(after, turn.opponent())?.flip()
			};
			if reached == value {
				keeping.push(mv);
			}
		}
		Some((value, keeping))
	}
}
