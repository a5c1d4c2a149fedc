//! How many of a player's movement-phase moves kept the exact result.

use crate::game::Game;
use crate::moves::Turn;
use crate::tablebase::table::Tablebase;

/// How many of a player's movement-phase moves kept the position's exact result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accuracy {
	/// Moves made in movement-phase positions.
	pub moves: u32,
	/// Those that kept the result (see [`Tablebase::keeps_value`]).
	pub kept: u32,
}

impl Accuracy {
	/// The moves `side` made in the movement phase of `game`, judged by `table`.
	pub fn of_game(table: &Tablebase, game: &Game, side: Turn) -> Accuracy {
		let mut accuracy = Accuracy::default();
		let mut before = game.start().board;
		for (mv, after) in game.history() {
			if mv.side() == side
				&& let Some(kept) = table.keeps_value(before, *mv)
			{
				accuracy.moves += 1;
				accuracy.kept += u32::from(kept);
			}
			before = *after;
		}
		accuracy
	}

	/// Both counts added.
	#[must_use]
	pub fn plus(self, other: Accuracy) -> Accuracy {
		Accuracy {
			moves: self.moves + other.moves,
			kept: self.kept + other.kept,
		}
	}

	/// The share kept, 0 to 1; `None` without moves.
	pub fn share(&self) -> Option<f64> {
		(self.moves > 0).then(|| f64::from(self.kept) / f64::from(self.moves))
	}
}
