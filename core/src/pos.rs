//! Points of the 5x5 board and their names (`a5` .. `e1`).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Number of points on the board.
pub const POINTS: usize = 25;

/// One of the 25 points, stored as its index `x + 5 * y`.
///
/// `x` runs over the files `a`..`e` (0..=4); `y` = 0 is the top row, rank 5. So index 0 is `a5`,
/// index 4 is `e5`, index 20 is `a1` and index 24 is `e1`:
///
/// ```text
///    a  b  c  d  e
/// 5  0  1  2  3  4
/// 4  5  6  7  8  9
/// 3 10 11 12 13 14
/// 2 15 16 17 18 19
/// 1 20 21 22 23 24
/// ```
///
/// ```
/// use tigers_core::Pos;
/// let p: Pos = "c3".parse().unwrap();
/// assert_eq!((p.x(), p.y(), p.index()), (2, 2, 12));
/// assert_eq!(Pos::from_index(20).unwrap().to_string(), "a1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos(u8);

impl Pos {
	/// The point at file `x` and row `y` (0..5 each), or `None` off the board.
	pub const fn new(x: u8, y: u8) -> Option<Pos> {
		if x < 5 && y < 5 {
			Some(Pos(x + 5 * y))
		} else {
			None
		}
	}

	/// The point with this index (0..25), or `None` off the board.
	pub const fn from_index(index: usize) -> Option<Pos> {
		if index < POINTS {
			Some(Pos(index as u8))
		} else {
			None
		}
	}

	/// The point with this index; the caller guarantees `index < 25`.
	#[inline]
	pub(crate) const fn from_index_unchecked(index: u32) -> Pos {
		debug_assert!(index < POINTS as u32);
		Pos(index as u8)
	}

	/// Every point, in index order.
	pub fn all() -> impl Iterator<Item = Pos> {
		(0..POINTS as u8).map(Pos)
	}

	/// The index `x + 5 * y`, in `0..25`.
	#[inline]
	pub const fn index(self) -> usize {
		self.0 as usize
	}

	/// The file, 0 (`a`) to 4 (`e`).
	#[inline]
	pub const fn x(self) -> u8 {
		self.0 % 5
	}

	/// The row from the top, 0 (rank 5) to 4 (rank 1).
	#[inline]
	pub const fn y(self) -> u8 {
		self.0 / 5
	}

	/// The bit of this point in a board mask.
	#[inline]
	pub const fn bit(self) -> u32 {
		1 << self.0
	}

	/// Whether diagonal lines pass through this point (`x + y` even).
	#[inline]
	pub const fn has_diagonals(self) -> bool {
		(self.x() + self.y()).is_multiple_of(2)
	}
}

impl fmt::Display for Pos {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		let file = (b'a' + self.x()) as char;
		let rank = (b'5' - self.y()) as char;
		write!(f, "{file}{rank}")
	}
}

/// Why a text is not the name of a point.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePosError {
	/// The text is not two characters long.
	#[error("a point is a file a-e and a rank 1-5, like c3, not {0:?}")]
	Length(String),
	/// The first character is not a file.
	#[error("{0:?} is not a file; files are a to e")]
	File(char),
	/// The second character is not a rank.
	#[error("{0:?} is not a rank; ranks are 1 to 5")]
	Rank(char),
}

impl FromStr for Pos {
	type Err = ParsePosError;

	fn from_str(text: &str) -> Result<Pos, ParsePosError> {
		let mut chars = text.chars();
		let (Some(file), Some(rank), None) = (chars.next(), chars.next(), chars.next()) else {
			return Err(ParsePosError::Length(text.to_string()));
		};
		if !('a'..='e').contains(&file) {
			return Err(ParsePosError::File(file));
		}
		if !('1'..='5').contains(&rank) {
			return Err(ParsePosError::Rank(rank));
		}
		let x = file as u8 - b'a';
		let y = b'5' - rank as u8;
		Ok(Pos(x + 5 * y))
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn names_round_trip_for_every_point() {
		for p in Pos::all() {
			assert_eq!(p.to_string().parse::<Pos>(), Ok(p));
		}
	}

	#[test]
	fn corners_and_centre() {
		assert_eq!(Pos::new(0, 0).unwrap().to_string(), "a5");
		assert_eq!(Pos::new(4, 4).unwrap().to_string(), "e1");
		assert_eq!(Pos::new(2, 2).unwrap().to_string(), "c3");
		assert_eq!(Pos::new(5, 0), None);
	}

	#[test]
	fn bad_names_say_what_is_wrong() {
		assert_eq!("f3".parse::<Pos>(), Err(ParsePosError::File('f')));
		assert_eq!("c6".parse::<Pos>(), Err(ParsePosError::Rank('6')));
		assert_eq!("c".parse::<Pos>(), Err(ParsePosError::Length("c".into())));
		assert_eq!(
			"c33".parse::<Pos>(),
			Err(ParsePosError::Length("c33".into()))
		);
	}
}
