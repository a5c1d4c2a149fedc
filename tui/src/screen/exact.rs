//! What the tablebase says about the game on screen: the exact value of the position, and the
//! moves that gave away a win or a draw.

use tigers_core::tablebase::Value;
use tigers_core::{Game, GameBoard, Move, Tablebase, Turn};
use tigers_widgets::Slip;

/// The position's exact result in words, by side: "tigers win in 17", "sheep win in 9",
/// "draw"; `None` outside the movement phase.
pub fn describe_position(table: &Tablebase, board: GameBoard, turn: Turn) -> Option<String> {
	let value = table.probe(board, turn)?;
	Some(describe_value(value, turn))
}

/// A value for `turn` in words, by side.
pub fn describe_value(value: Value, turn: Turn) -> String {
	match value {
		Value::Draw => "draw".to_string(),
		Value::Win(n) => format!("{} win in {n}", side_name(turn)),
		Value::Loss(n) => format!("{} win in {n}", side_name(turn.opponent())),
	}
}

fn side_name(turn: Turn) -> &'static str {
	match turn {
		Turn::Sheep => "sheep",
		Turn::Tiger => "tigers",
	}
}

/// If `mv`, played by its side on `before`, made that side's exact result worse.
pub fn slip(table: &Tablebase, before: GameBoard, mv: Move) -> Option<Slip> {
	let turn = mv.side();
	let was = table.probe(before, turn)?;
	let after = before.after_move_unchecked(mv);
	let now = match table.probe(after, turn.opponent()) {
		Some(value) => value.before_move(),
		None => Value::Win(1), // the fifth capture
	};
	(now.sign() < was.sign()).then_some(Slip {
		before: was,
		after: now,
	})
}

/// For every move of the game, whether it slipped.
pub fn slips(table: &Tablebase, game: &Game) -> Vec<Option<Slip>> {
	let mut before = game.start().board;
	game.history()
		.iter()
		.map(|(mv, after)| {
			let slipped = slip(table, before, *mv);
			before = *after;
			slipped
		})
		.collect()
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn values_are_said_by_side() {
		assert_eq!(
			describe_value(Value::Win(17), Turn::Tiger),
			"tigers win in 17"
		);
		assert_eq!(
			describe_value(Value::Loss(8), Turn::Tiger),
			"sheep win in 8"
		);
		assert_eq!(describe_value(Value::Draw, Turn::Sheep), "draw");
	}
}
