//! Moves and their notation: `sc3` (place), `sc3c2` (sheep step), `ta5b4` (tiger step),
//! `ta5xc3` (tiger jump).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::pos::{ParsePosError, Pos};

/// The side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
	/// The sheep: they place, then step; they move first.
	Sheep,
	/// The tigers: they step or jump from the first move on.
	Tiger,
}

impl Turn {
	/// The other side.
	#[inline]
	pub const fn opponent(self) -> Turn {
		match self {
			Turn::Sheep => Turn::Tiger,
			Turn::Tiger => Turn::Sheep,
		}
	}

	/// `+1.0` for tigers and `-1.0` for sheep: turns a tigers'-view score into this side's view.
	#[inline]
	pub const fn sign(self) -> f32 {
		match self {
			Turn::Sheep => -1.0,
			Turn::Tiger => 1.0,
		}
	}

	/// The side's name in the plural, as used in messages ("sheep", "tigers").
	pub const fn name(self) -> &'static str {
		match self {
			Turn::Sheep => "sheep",
			Turn::Tiger => "tigers",
		}
	}

	/// The letter that starts this side's moves (`s` or `t`).
	pub const fn letter(self) -> char {
		match self {
			Turn::Sheep => 's',
			Turn::Tiger => 't',
		}
	}
}

impl fmt::Display for Turn {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		f.write_str(self.name())
	}
}

/// A move of either side. Which side makes it is part of the move.
///
/// ```
/// use tigers_core::Move;
/// for text in ["sc3", "sc3c2", "ta5b4", "ta5xc3"] {
///     let mv: Move = text.parse().unwrap();
///     assert_eq!(mv.to_string(), text);
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
	/// A sheep from the hand placed on an empty point.
	Place {
		/// Where the sheep goes.
		to: Pos,
	},
	/// A sheep on the board stepping to a neighbouring empty point.
	SheepStep {
		/// The sheep's point.
		from: Pos,
		/// The empty neighbour.
		to: Pos,
	},
	/// A tiger stepping to a neighbouring empty point.
	TigerStep {
		/// The tiger's point.
		from: Pos,
		/// The empty neighbour.
		to: Pos,
	},
	/// A tiger jumping along a line over a sheep onto the empty point behind it, killing the sheep.
	TigerJump {
		/// The tiger's point.
		from: Pos,
		/// The empty landing point, two steps away.
		to: Pos,
	},
}

impl Move {
	/// The side that makes this move.
	#[inline]
	pub const fn side(self) -> Turn {
		match self {
			Move::Place { .. } | Move::SheepStep { .. } => Turn::Sheep,
			Move::TigerStep { .. } | Move::TigerJump { .. } => Turn::Tiger,
		}
	}

	/// The point the moving piece leaves, or `None` for a placement.
	#[inline]
	pub const fn from(self) -> Option<Pos> {
		match self {
			Move::Place { .. } => None,
			Move::SheepStep { from, .. }
			| Move::TigerStep { from, .. }
			| Move::TigerJump { from, .. } => Some(from),
		}
	}

	/// The point the moving piece ends on.
	#[inline]
	pub const fn to(self) -> Pos {
		match self {
			Move::Place { to }
			| Move::SheepStep { to, .. }
			| Move::TigerStep { to, .. }
			| Move::TigerJump { to, .. } => to,
		}
	}

	/// Whether this move kills a sheep.
	#[inline]
	pub const fn is_jump(self) -> bool {
		matches!(self, Move::TigerJump { .. })
	}

	/// The move packed in 12 bits (kind, from, to), for compact tables.
	#[inline]
	pub(crate) const fn pack(self) -> u16 {
		let (kind, from, to) = match self {
			Move::Place { to } => (0, 0, to.index()),
			Move::SheepStep { from, to } => (1, from.index(), to.index()),
			Move::TigerStep { from, to } => (2, from.index(), to.index()),
			Move::TigerJump { from, to } => (3, from.index(), to.index()),
		};
		(kind << 10 | from << 5 | to) as u16
	}

	/// The move [`Move::pack`] packed.
	#[inline]
	pub(crate) const fn unpack(code: u16) -> Move {
		let from = Pos::from_index_unchecked(((code >> 5) & 31) as u32);
		let to = Pos::from_index_unchecked((code & 31) as u32);
		match code >> 10 {
			0 => Move::Place { to },
			1 => Move::SheepStep { from, to },
			2 => Move::TigerStep { from, to },
			_ => Move::TigerJump { from, to },
		}
	}

	/// The point a jump passes over (the midpoint of a jump line).
	#[inline]
	pub(crate) const fn jumped_point(from: Pos, to: Pos) -> Pos {
		Pos::from_index_unchecked(((from.index() + to.index()) / 2) as u32)
	}
}

impl fmt::Display for Move {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		match *self {
			Move::Place { to } => write!(f, "s{to}"),
			Move::SheepStep { from, to } => write!(f, "s{from}{to}"),
			Move::TigerStep { from, to } => write!(f, "t{from}{to}"),
			Move::TigerJump { from, to } => write!(f, "t{from}x{to}"),
		}
	}
}

/// Why a text is not a move in our notation.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseMoveError {
	/// Nothing to read.
	#[error("a move is empty; expected something like sc3, sc3c2, ta5b4 or ta5xc3")]
	Empty,
	/// The first letter names no side.
	#[error("a move starts with s (sheep) or t (tigers), not {0:?}")]
	Side(char),
	/// A point in the move is not a point.
	#[error("in move {text:?}: {source}")]
	Point {
		/// The whole move text.
		text: String,
		/// What is wrong with the point.
		source: ParsePosError,
	},
	/// The shape fits neither side's moves.
	#[error("{text:?} is not a move: {why}")]
	Shape {
		/// The whole move text.
		text: String,
		/// What was expected.
		why: &'static str,
	},
}

impl FromStr for Move {
	type Err = ParseMoveError;

	fn from_str(text: &str) -> Result<Move, ParseMoveError> {
		let side = match text.chars().next() {
			None => return Err(ParseMoveError::Empty),
			Some('s') => Turn::Sheep,
			Some('t') => Turn::Tiger,
			Some(other) => return Err(ParseMoveError::Side(other)),
		};
		let rest = &text[1..];
		let point = |s: &str| {
			s.parse::<Pos>().map_err(|source| ParseMoveError::Point {
				text: text.to_string(),
				source,
			})
		};
		let shape = |why| ParseMoveError::Shape {
			text: text.to_string(),
			why,
		};
		if !rest.is_ascii() {
			return Err(shape("moves are written in ASCII letters and digits"));
		}
		match (side, rest.len()) {
			(Turn::Sheep, 2) => Ok(Move::Place { to: point(rest)? }),
			(Turn::Sheep, 4) => Ok(Move::SheepStep {
				from: point(&rest[..2])?,
				to: point(&rest[2..])?,
			}),
			(Turn::Tiger, 4) => Ok(Move::TigerStep {
				from: point(&rest[..2])?,
				to: point(&rest[2..])?,
			}),
			(Turn::Tiger, 5) if &rest[2..3] == "x" => Ok(Move::TigerJump {
				from: point(&rest[..2])?,
				to: point(&rest[3..])?,
			}),
			(Turn::Tiger, 5) => Err(shape(
				"a tiger jump puts an x between its two points, as in ta5xc3",
			)),
			(Turn::Sheep, _) => Err(shape(
				"a sheep move is one point (a placement, sc3) or two (a step, sc3c2)",
			)),
			(Turn::Tiger, _) => Err(shape(
				"a tiger move is two points (a step, ta5b4) or a jump (ta5xc3)",
			)),
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn the_four_kinds_round_trip() {
		for text in ["sc3", "sc3c2", "ta5b4", "ta5xc3", "se1", "td4d5"] {
			let mv: Move = text.parse().unwrap();
			assert_eq!(mv.to_string(), text);
		}
	}

	#[test]
	fn parsed_moves_have_the_right_kind() {
		let c3 = Pos::new(2, 2).unwrap();
		assert_eq!("sc3".parse(), Ok(Move::Place { to: c3 }));
		assert!("ta5xc3".parse::<Move>().unwrap().is_jump());
		assert_eq!("ta5xc3".parse::<Move>().unwrap().side(), Turn::Tiger);
	}

	#[test]
	fn parse_errors_name_the_problem() {
		assert_eq!("".parse::<Move>(), Err(ParseMoveError::Empty));
		assert_eq!("xc3".parse::<Move>(), Err(ParseMoveError::Side('x')));
		assert!(matches!(
			"sz3".parse::<Move>(),
			Err(ParseMoveError::Point { .. })
		));
		assert!(matches!(
			"tc3".parse::<Move>(),
			Err(ParseMoveError::Shape { .. })
		));
		assert!(matches!(
			"ta5-c3".parse::<Move>(),
			Err(ParseMoveError::Shape { .. })
		));
		assert!(matches!(
			"sa5xc3".parse::<Move>(),
			Err(ParseMoveError::Shape { .. })
		));
		assert!(matches!(
			"sé3".parse::<Move>(),
			Err(ParseMoveError::Shape { .. })
		));
		let message = "tc3c9".parse::<Move>().unwrap_err().to_string();
		assert!(message.contains("rank"), "{message}");
	}

	#[test]
	fn packing_round_trips() {
		for text in ["sa5", "se1", "sc3c2", "ta5b4", "te1xc3"] {
			let mv: Move = text.parse().unwrap();
			assert_eq!(Move::unpack(mv.pack()), mv);
		}
	}

	#[test]
	fn jumped_point_is_the_midpoint() {
		let from: Pos = "a5".parse().unwrap();
		let to: Pos = "c3".parse().unwrap();
		assert_eq!(Move::jumped_point(from, to).to_string(), "b4");
	}
}
