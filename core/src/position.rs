//! `Position`: a board with the side to move, and its one-line text notation.
//!
//! The notation is three fields separated by single spaces:
//!
//! ```text
//! T...T/...../..S../...../T...T t 19
//! ```
//!
//! 1. the five rows from rank 5 (top) to rank 1, separated by `/`, each five characters from
//!    file a to file e: `T` a tiger, `S` a sheep, `.` an empty point;
//! 2. the side to move, `s` or `t`;
//! 3. the number of sheep still in hand, 0 to 20.
//!
//! Dead sheep are what is missing from 20. A text that describes a position no game can reach
//! (not four tigers, more than 20 sheep, more than five dead, tigers to move before any sheep was
//! placed, tigers to move after the fifth capture) is refused.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::{BoardError, DEAD_SHEEP_TO_WIN, GameBoard, TOTAL_SHEEP};
use crate::moves::Turn;
use crate::pos::Pos;

/// A board and the side to move: everything the rules need except the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
	/// Pieces and sheep in hand.
	pub board: GameBoard,
	/// The side to move.
	pub turn: Turn,
}

impl Default for Position {
	/// The start: tigers in the corners, 20 sheep in hand, sheep to move.
	fn default() -> Position {
		Position {
			board: GameBoard::default(),
			turn: Turn::Sheep,
		}
	}
}

/// The start position's text.
pub const START_TEXT: &str = "T...T/...../...../...../T...T s 20";

/// Positions with names, used by tests, benchmarks and the docs: the start, a position in the
/// middle of the placement phase, one in the movement phase, and one near the end (four sheep
/// dead).
pub const NAMED_POSITIONS: [(&str, &str); 4] = [
	("start", START_TEXT),
	("mid-placement", "T.S.T/.SSS./..T../S...S/...T. t 12"),
	("mid-movement", "SS.SS/SSSSS/SS.TS/STTTS/SSSSS t 0"),
	("near-end", "SSTSS/S.TSS/S..SS/ST..S/SSSST s 0"),
];

/// Why a text is not a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
	/// Not three space-separated fields.
	#[error("a position has three fields (rows, side to move, sheep in hand), found {0}")]
	Fields(usize),
	/// Not five rows.
	#[error("the board has 5 rows separated by '/', found {0}")]
	Rows(usize),
	/// A row is not five points long.
	#[error("row {rank} (rank {rank}) has {len} points; each row has 5")]
	RowLength {
		/// The rank, 5 (top) to 1.
		rank: u8,
		/// Its length in characters.
		len: usize,
	},
	/// A character that is neither `T`, `S` nor `.`.
	#[error("{found:?} at {at} is not a piece; use T, S or .")]
	Piece {
		/// The point.
		at: Pos,
		/// The character found.
		found: char,
	},
	/// The side to move is not `s` or `t`.
	#[error("the side to move is s or t, not {0:?}")]
	Side(String),
	/// The count of sheep in hand is not a number.
	#[error("sheep in hand is a number from 0 to 20, not {0:?}")]
	InHand(String),
	/// The pieces cannot stand together.
	#[error(transparent)]
	Board(#[from] BoardError),
	/// Tigers to move with all 20 sheep still in hand: the sheep always move first.
	#[error("tigers cannot be to move before the first sheep is placed")]
	TigersBeforeSheep,
	/// Tigers to move after five captures: the game ended on the fifth.
	#[error("tigers cannot be to move with five sheep dead; the game ended on the fifth capture")]
	TigersAfterFifthCapture,
}

impl Position {
	/// The position with this board and side to move, if a game can reach it.
	pub fn new(board: GameBoard, turn: Turn) -> Result<Position, PositionError> {
		if turn == Turn::Tiger {
			if u32::from(board.sheep_in_hand()) == TOTAL_SHEEP {
				return Err(PositionError::TigersBeforeSheep);
			}
			if board.dead_sheep() >= DEAD_SHEEP_TO_WIN {
				return Err(PositionError::TigersAfterFifthCapture);
			}
		}
		Ok(Position { board, turn })
	}
}

/// The board part of the notation: five rows joined by `/`.
pub(crate) fn rows_text(board: GameBoard) -> String {
	let mut text = String::with_capacity(29);
	for y in 0..5 {
		if y > 0 {
			text.push('/');
		}
		for x in 0..5 {
			let pos = Pos::new(x, y).expect("x and y are below 5");
			text.push(match board.piece_at(pos) {
				Some(Turn::Tiger) => 'T',
				Some(Turn::Sheep) => 'S',
				None => '.',
			});
		}
	}
	text
}

/// The board with its sheep in hand, as in the notation but without a side to move. (Here
/// rather than in `board`, which the notation builds on and so does not depend on.)
impl fmt::Debug for GameBoard {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(
			f,
			"GameBoard({} {})",
			rows_text(*self),
			self.sheep_in_hand()
		)
	}
}

impl fmt::Display for Position {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(
			f,
			"{} {} {}",
			rows_text(self.board),
			self.turn.letter(),
			self.board.sheep_in_hand()
		)
	}
}

impl FromStr for Position {
	type Err = PositionError;

	fn from_str(text: &str) -> Result<Position, PositionError> {
		let fields: Vec<&str> = text.split(' ').collect();
		let [rows, side, in_hand] = fields[..] else {
			return Err(PositionError::Fields(fields.len()));
		};
		let (tigers, sheep) = parse_rows(rows)?;
		let turn = match side {
			"s" => Turn::Sheep,
			"t" => Turn::Tiger,
			other => return Err(PositionError::Side(other.to_string())),
		};
		let in_hand_error = || PositionError::InHand(in_hand.to_string());
		let canonical_number = !in_hand.is_empty()
			&& in_hand.len() <= 2
			&& in_hand.bytes().all(|b| b.is_ascii_digit())
			&& !(in_hand.len() == 2 && in_hand.starts_with('0'));
		if !canonical_number {
			return Err(in_hand_error());
		}
		let in_hand: u32 = in_hand.parse().map_err(|_| in_hand_error())?;
		let board = GameBoard::new(tigers, sheep, in_hand)?;
		Position::new(board, turn)
	}
}

fn parse_rows(rows: &str) -> Result<(u32, u32), PositionError> {
	let rows: Vec<&str> = rows.split('/').collect();
	if rows.len() != 5 {
		return Err(PositionError::Rows(rows.len()));
	}
	let (mut tigers, mut sheep) = (0u32, 0u32);
	for (y, row) in rows.iter().enumerate() {
		let len = row.chars().count();
		if len != 5 {
			return Err(PositionError::RowLength {
				rank: 5 - y as u8,
				len,
			});
		}
		for (x, c) in row.chars().enumerate() {
			let at = Pos::new(x as u8, y as u8).expect("x and y are below 5");
			match c {
				'T' => tigers |= at.bit(),
				'S' => sheep |= at.bit(),
				'.' => {}
				found => return Err(PositionError::Piece { at, found }),
			}
		}
	}
	Ok((tigers, sheep))
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn start_round_trips() {
		assert_eq!(Position::default().to_string(), START_TEXT);
		assert_eq!(START_TEXT.parse::<Position>(), Ok(Position::default()));
	}

	#[test]
	fn named_positions_parse_and_round_trip() {
		for (name, text) in NAMED_POSITIONS {
			let position: Position = text.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
			assert_eq!(position.to_string(), text);
		}
	}

	#[test]
	fn a_midgame_round_trips() {
		let text = "T.S.T/.SSS./..T../S...S/...T. t 12";
		let position: Position = text.parse().unwrap();
		assert_eq!(position.to_string(), text);
		assert_eq!(position.board.sheep_on_board(), 6);
		assert_eq!(position.board.dead_sheep(), 2);
		assert_eq!(position.turn, Turn::Tiger);
	}

	fn error(text: &str) -> PositionError {
		text.parse::<Position>().unwrap_err()
	}

	#[test]
	fn impossible_positions_are_refused() {
		assert_eq!(
			error("T...T/...../...../...../T.... s 20"),
			BoardError::TigerCount(3).into()
		);
		assert_eq!(
			error("T...T/...../..T../...../T...T s 20"),
			BoardError::TigerCount(5).into()
		);
		assert_eq!(
			error("T...T/SSSSS/SSSSS/SSSS./T...T s 7"),
			BoardError::TooManySheep {
				on_board: 14,
				in_hand: 7
			}
			.into()
		);
		assert_eq!(
			error("T...T/...../...../...../T...T s 21"),
			BoardError::InHand(21).into()
		);
		assert_eq!(
			error("T...T/S..../...../...../T...T s 10"),
			BoardError::TooManyDead(9).into()
		);
		assert_eq!(
			error("T...T/...../...../...../T...T t 20"),
			PositionError::TigersBeforeSheep
		);
		assert_eq!(
			error("T...T/SSSSS/SSSSS/SSSSS/T...T t 0"),
			PositionError::TigersAfterFifthCapture
		);
	}

	#[test]
	fn malformed_text_says_what_is_wrong() {
		assert_eq!(
			error("T...T/...../...../...../T...T s"),
			PositionError::Fields(2)
		);
		assert_eq!(
			error("T...T/...../...../T...T s 20"),
			PositionError::Rows(4)
		);
		assert_eq!(
			error("T...T/..../...../...../T...T s 20"),
			PositionError::RowLength { rank: 4, len: 4 }
		);
		assert_eq!(
			error("T...T/..x../...../...../T...T s 20"),
			PositionError::Piece {
				at: "c4".parse().unwrap(),
				found: 'x'
			}
		);
		assert_eq!(
			error("T...T/...../...../...../T...T x 20"),
			PositionError::Side("x".into())
		);
		assert_eq!(
			error("T...T/...../...../...../T...T s -1"),
			PositionError::InHand("-1".into())
		);
		assert_eq!(
			error("T...T/...../...../...../T...T s +2"),
			PositionError::InHand("+2".into())
		);
		assert_eq!(
			error("T...T/...../...../...../T...T s 020"),
			PositionError::InHand("020".into())
		);
		assert_eq!(
			error("T...T/...../...../...../T...T s 09"),
			PositionError::InHand("09".into())
		);
		assert!(
			error("T...T/...../...../...../T...T t 20")
				.to_string()
				.contains("first sheep")
		);
	}
}
