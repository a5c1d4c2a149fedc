//! A position's exact value and every legal move's, from the solved tables, best first.
//!
//! The movement table gives a value with its distance in plies; the placement layers give win,
//! draw or loss without a distance. A move's value is the mover's in the position after it (the
//! opponent's value there, turned round), so its distance counts the plies left after the move:
//! a move that ends the game is a win (or loss) in 0. A value no table holds (a layer not on
//! disk, no table loaded) is unknown. Moves are listed best first for the side to move: wins,
//! the quickest first; draws; unknown; losses, the slowest first; ties by notation.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::tablebase::Value;
use crate::tablebase::placement::{PlacementError, PlacementTable, Verdict};
use crate::{Game, GameBoard, Move, Position, Tablebase, Turn};

/// The solved tables at hand: the movement phase, the placement layers, either or none.
#[derive(Clone, Default)]
pub struct Tables {
	/// The movement table.
	pub movement: Option<Arc<Tablebase>>,
	/// The placement layers (some or all).
	pub placement: Option<Arc<PlacementTable>>,
}

impl Tables {
	/// Whether the perfect player can play: the movement table and every placement layer.
	pub fn can_play_perfectly(&self) -> bool {
		self.movement.is_some() && self.placement.as_ref().is_some_and(|p| p.is_complete())
	}
}

/// Win, draw or loss for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wdl {
	/// That side can force a win.
	Win,
	/// Neither side can force a win.
	Draw,
	/// The other side can force a win.
	Loss,
}

impl Wdl {
	/// Win, draw or loss as 1, 0, -1.
	pub fn sign(self) -> i32 {
		match self {
			Wdl::Win => 1,
			Wdl::Draw => 0,
			Wdl::Loss => -1,
		}
	}

	/// The word the API writes.
	pub fn word(self) -> &'static str {
		match self {
			Wdl::Win => "win",
			Wdl::Draw => "draw",
			Wdl::Loss => "loss",
		}
	}
}

/// An exact value for one side: win, draw or loss, with the plies to the end where the
/// movement table gives them; `Unknown` where no table holds the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
	/// Known, perhaps with a distance in plies.
	Known(Wdl, Option<u32>),
	/// No table holds it.
	Unknown,
}

impl Exact {
	/// From the movement table's value.
	fn of_value(value: Value) -> Exact {
		match value {
			Value::Win(n) => Exact::Known(Wdl::Win, Some(n)),
			Value::Draw => Exact::Known(Wdl::Draw, None),
			Value::Loss(n) => Exact::Known(Wdl::Loss, Some(n)),
		}
	}

	/// From the placement layers' verdict.
	fn of_verdict(verdict: Verdict) -> Exact {
		Exact::Known(
			match verdict {
				Verdict::Win => Wdl::Win,
				Verdict::Draw => Wdl::Draw,
				Verdict::Loss => Wdl::Loss,
			},
			None,
		)
	}

	/// The same value for the other side.
	pub fn flip(self) -> Exact {
		match self {
			Exact::Known(Wdl::Win, n) => Exact::Known(Wdl::Loss, n),
			Exact::Known(Wdl::Loss, n) => Exact::Known(Wdl::Win, n),
			other => other,
		}
	}

	/// Win, draw or loss, if known.
	pub fn wdl(self) -> Option<Wdl> {
		match self {
			Exact::Known(wdl, _) => Some(wdl),
			Exact::Unknown => None,
		}
	}

	/// The distance in plies, where the movement table gives one.
	pub fn distance(self) -> Option<u32> {
		match self {
			Exact::Known(_, distance) => distance,
			Exact::Unknown => None,
		}
	}

	/// How good this value is for its side, larger better: wins above draws above unknown
	/// above losses, a quicker win and a slower loss better (a win or loss without a
	/// distance counts as the slowest win and the quickest loss).
	fn rank(self) -> (i32, i64) {
		match self {
			Exact::Known(Wdl::Win, n) => (3, -i64::from(n.unwrap_or(u32::MAX))),
			Exact::Known(Wdl::Draw, _) => (2, 0),
			Exact::Unknown => (1, 0),
			Exact::Known(Wdl::Loss, n) => (0, i64::from(n.unwrap_or(0))),
		}
	}
}

/// One legal move and its exact value for the side that plays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveValue {
	/// The move.
	pub mv: Move,
	/// The mover's value in the position after it.
	pub value: Exact,
}

/// A position's exact value and its moves', best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
	/// The position.
	pub position: Position,
	/// How the game stands there by the rules, if it is over (the side to move has lost: no
	/// legal move, or the fifth sheep taken).
	pub over: bool,
	/// Its value for the side to move.
	pub value: Exact,
	/// Every legal move, best first for the side to move.
	pub moves: Vec<MoveValue>,
}

/// Why a position could not be analysed: a layer file that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("the placement layers could not be read: {0}")]
pub struct AnalysisError(#[from] pub PlacementError);

/// The exact value of `board` with `turn` to move, from whichever table holds it; a position
/// where the game is over is a loss in 0 for the side to move.
pub fn value_of(tables: &Tables, board: GameBoard, turn: Turn) -> Result<Exact, AnalysisError> {
	if board.outcome(turn).is_some() {
		return Ok(Exact::Known(Wdl::Loss, Some(0)));
	}
	if board.sheep_in_hand() == 0 {
		return Ok(tables
			.movement
			.as_ref()
			.and_then(|table| table.probe(board, turn))
			.map_or(Exact::Unknown, Exact::of_value));
	}
	Ok(match &tables.placement {
		Some(layers) => layers
			.probe(board, turn)?
			.map_or(Exact::Unknown, Exact::of_verdict),
		None => Exact::Unknown,
	})
}

/// `position`'s value and its every legal move's, best first.
pub fn analyse(tables: &Tables, position: Position) -> Result<Analysis, AnalysisError> {
	let (board, turn) = (position.board, position.turn);
	let value = value_of(tables, board, turn)?;
	let game = Game::new(position);
	let mut moves = Vec::new();
	if !game.is_over() {
		for &mv in game.legal_moves().iter() {
			let after = board.after_move_unchecked(mv);
			let value = value_of(tables, after, turn.opponent())?.flip();
			moves.push(MoveValue { mv, value });
		}
	}
	moves.sort_by(better);
	Ok(Analysis {
		position,
		over: game.is_over(),
		value,
		moves,
	})
}

/// The order of moves in an analysis: the better for the mover first, then by notation.
fn better(a: &MoveValue, b: &MoveValue) -> Ordering {
	b.value
		.rank()
		.cmp(&a.value.rank())
		.then_with(|| a.mv.to_string().cmp(&b.mv.to_string()))
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn values_turn_round_and_rank_wins_quickest_and_losses_slowest_first() {
		let win = |n| Exact::Known(Wdl::Win, Some(n));
		let loss = |n| Exact::Known(Wdl::Loss, Some(n));
		assert_eq!(win(3).flip(), loss(3));
		assert_eq!(Exact::Unknown.flip(), Exact::Unknown);
		let mut ranked = [
			loss(2),
			Exact::Unknown,
			win(9),
			Exact::Known(Wdl::Draw, None),
			loss(10),
			win(1),
			Exact::Known(Wdl::Win, None),
		];
		ranked.sort_by_key(|value| std::cmp::Reverse(value.rank()));
		assert_eq!(
			ranked,
			[
				win(1),
				win(9),
				Exact::Known(Wdl::Win, None),
				Exact::Known(Wdl::Draw, None),
				Exact::Unknown,
				loss(10),
				loss(2),
			]
		);
	}

	#[test]
	fn without_tables_every_move_is_listed_unknown_in_notation_order() {
		let start = Position::default();
		let analysis = analyse(&Tables::default(), start).unwrap();
		assert_eq!(analysis.value, Exact::Unknown);
		assert_eq!(analysis.moves.len(), 21);
		assert!(analysis.moves.iter().all(|m| m.value == Exact::Unknown));
		let texts: Vec<String> = analysis.moves.iter().map(|m| m.mv.to_string()).collect();
		let mut sorted = texts.clone();
		sorted.sort();
		assert_eq!(texts, sorted);
	}

	#[test]
	fn a_finished_position_is_lost_in_zero_with_no_moves() {
		// The tigers are trapped: every tiger hemmed in with no capture.
		let trapped: Position = "TSSST/SS.SS/SSSSS/SSSSS/TSSST t 0".parse().unwrap();
		let analysis = analyse(&Tables::default(), trapped).unwrap();
		assert!(analysis.over);
		assert_eq!(analysis.value, Exact::Known(Wdl::Loss, Some(0)));
		assert!(analysis.moves.is_empty());
	}
}
