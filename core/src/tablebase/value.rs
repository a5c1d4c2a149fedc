//! A movement-phase position's exact value, and the byte an entry stores it in.

use std::fmt;

/// The longest distance an entry can hold, in plies.
pub const MAX_DISTANCE: u32 = 254;

/// A position's exact value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
	/// The side to move wins in this many plies (odd), against the longest defence.
	Win(u32),
	/// Neither side can force a win.
	Draw,
	/// The side to move loses in this many plies (even) at best.
	Loss(u32),
}

impl Value {
	/// The value for the other side: a win for one is a loss for the other, in as many plies.
	pub fn flip(self) -> Value {
		match self {
			Value::Win(n) => Value::Loss(n),
			Value::Draw => Value::Draw,
			Value::Loss(n) => Value::Win(n),
		}
	}

	/// The value one ply earlier, for the side that moved into this position: what the mover
	/// gets by playing the move that leads here.
	pub fn before_move(self) -> Value {
		match self {
			Value::Win(n) => Value::Loss(n + 1),
			Value::Draw => Value::Draw,
			Value::Loss(n) => Value::Win(n + 1),
		}
	}

	/// The better of two values for the side choosing between them: the quicker win, else a
	/// draw, else the slower loss.
	pub fn preferred(self, other: Value) -> Value {
		match (self, other) {
			(Value::Win(a), Value::Win(b)) => Value::Win(a.min(b)),
			(Value::Loss(a), Value::Loss(b)) => Value::Loss(a.max(b)),
			_ if self.sign() >= other.sign() => self,
			_ => other,
		}
	}

	/// Win, draw or loss as 1, 0, -1.
	pub fn sign(self) -> i32 {
		match self {
			Value::Win(_) => 1,
			Value::Draw => 0,
			Value::Loss(_) => -1,
		}
	}
}

impl fmt::Display for Value {
	/// `win 17`, `draw` or `loss 8`, from the side to move's point of view.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		match self {
			Value::Win(n) => write!(f, "win {n}"),
			Value::Draw => write!(f, "draw"),
			Value::Loss(n) => write!(f, "loss {n}"),
		}
	}
}

/// An entry's byte: 0 for a draw (or undecided, during the solve), else the distance plus one.
#[inline]
pub(crate) fn decode_value(byte: u8) -> Value {
	match byte {
		0 => Value::Draw,
		b if b % 2 == 0 => Value::Win(u32::from(b - 1)),
		b => Value::Loss(u32::from(b - 1)),
	}
}

/// The byte of a win in `distance` (odd) plies.
#[inline]
pub(crate) fn encode_win(distance: u32) -> u8 {
	debug_assert!(distance % 2 == 1 && distance <= MAX_DISTANCE);
	distance as u8 + 1
}

/// The byte of a loss in `distance` (even) plies.
#[inline]
pub(crate) fn encode_loss(distance: u32) -> u8 {
	debug_assert!(distance.is_multiple_of(2) && distance <= MAX_DISTANCE);
	distance as u8 + 1
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn values_survive_their_byte() {
		for byte in 0..=u8::MAX {
			let back = match decode_value(byte) {
				Value::Draw => 0,
				Value::Win(n) => encode_win(n),
				Value::Loss(n) => encode_loss(n),
			};
			assert_eq!(back, byte);
		}
		assert_eq!(decode_value(encode_loss(0)), Value::Loss(0));
		assert_eq!(decode_value(encode_win(1)), Value::Win(1));
	}

	#[test]
	fn a_move_turns_a_loss_into_a_longer_win() {
		assert_eq!(Value::Loss(0).before_move(), Value::Win(1));
		assert_eq!(Value::Win(3).before_move(), Value::Loss(4));
		assert_eq!(Value::Draw.before_move(), Value::Draw);
		assert_eq!(Value::Win(5).flip(), Value::Loss(5));
		assert_eq!(Value::Loss(8).to_string(), "loss 8");
		assert_eq!(Value::Win(5).preferred(Value::Win(3)), Value::Win(3));
		assert_eq!(Value::Loss(4).preferred(Value::Loss(6)), Value::Loss(6));
		assert_eq!(Value::Loss(4).preferred(Value::Draw), Value::Draw);
		assert_eq!(Value::Draw.preferred(Value::Win(9)), Value::Win(9));
	}
}
