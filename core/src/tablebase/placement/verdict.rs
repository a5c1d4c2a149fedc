//! A placement position's value without a distance, and the two bits a layer file keeps it in.

use std::fmt;

use crate::tablebase::value::Value;

/// A placement position's value for the side to move, without a distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
	/// The side to move can force a win.
	Win,
	/// Neither side can force a win.
	Draw,
	/// The other side can force a win.
	Loss,
}

/// The two-bit code of a draw.
pub(crate) const DRAW: u8 = 0;
/// The two-bit code of a win for the side to move.
pub(crate) const WIN: u8 = 1;
/// The two-bit code of a loss for the side to move.
pub(crate) const LOSS: u8 = 2;
/// The two-bit code of padding after a block's last entry; never a position's.
pub(crate) const PAD: u8 = 3;

impl Verdict {
	/// The value for the other side.
	pub fn flip(self) -> Verdict {
		match self {
			Verdict::Win => Verdict::Loss,
			Verdict::Draw => Verdict::Draw,
			Verdict::Loss => Verdict::Win,
		}
	}

	/// Win, draw or loss as 1, 0, -1.
	pub fn sign(self) -> i32 {
		match self {
			Verdict::Win => 1,
			Verdict::Draw => 0,
			Verdict::Loss => -1,
		}
	}

	/// The movement table's value without its distance.
	pub fn of_value(value: Value) -> Verdict {
		match value {
			Value::Win(_) => Verdict::Win,
			Value::Draw => Verdict::Draw,
			Value::Loss(_) => Verdict::Loss,
		}
	}

	pub(crate) fn from_code(code: u8) -> Option<Verdict> {
		match code {
			DRAW => Some(Verdict::Draw),
			WIN => Some(Verdict::Win),
			LOSS => Some(Verdict::Loss),
			_ => None,
		}
	}
}

impl fmt::Display for Verdict {
	/// `win`, `draw` or `loss`, from the side to move's point of view.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		f.write_str(match self {
			Verdict::Win => "win",
			Verdict::Draw => "draw",
			Verdict::Loss => "loss",
		})
	}
}

/// The code of entry `rank` in a block that starts at `bytes[0]`.
#[inline]
pub(crate) fn code_at(bytes: &[u8], start: u64, rank: u32) -> u8 {
	(bytes[(start + u64::from(rank / 4)) as usize] >> (2 * (rank % 4))) & 3
}
