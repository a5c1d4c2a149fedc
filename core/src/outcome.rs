//! How a game ends: the winner and the reason.

use std::fmt;

use crate::moves::Turn;

/// A finished game's result with its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
	/// The tigers killed five sheep.
	TigersByCaptures,
	/// The sheep, to move, had no legal move.
	TigersBySheepBlocked,
	/// The tigers, to move, had no legal move: the sheep trapped them.
	SheepByTrapping,
	/// The same position (board, side to move, sheep in hand) came up a third time.
	DrawByRepetition,
}

impl Outcome {
	/// Every outcome, for listings and tests.
	pub const ALL: [Outcome; 4] = [
		Outcome::TigersByCaptures,
		Outcome::TigersBySheepBlocked,
		Outcome::SheepByTrapping,
		Outcome::DrawByRepetition,
	];

	/// The side that won, or `None` for a draw.
	pub const fn winner(self) -> Option<Turn> {
		match self {
			Outcome::TigersByCaptures | Outcome::TigersBySheepBlocked => Some(Turn::Tiger),
			Outcome::SheepByTrapping => Some(Turn::Sheep),
			Outcome::DrawByRepetition => None,
		}
	}

	/// The result from the tigers' side: `1.0` win, `0.0` draw, `-1.0` loss.
	pub const fn value(self) -> f32 {
		match self.winner() {
			Some(Turn::Tiger) => 1.0,
			Some(Turn::Sheep) => -1.0,
			None => 0.0,
		}
	}

	/// The short name used in game records, e.g. `tigers-by-captures`.
	pub const fn code(self) -> &'static str {
		match self {
			Outcome::TigersByCaptures => "tigers-by-captures",
			Outcome::TigersBySheepBlocked => "tigers-by-sheep-blocked",
			Outcome::SheepByTrapping => "sheep-by-trapping",
			Outcome::DrawByRepetition => "draw-by-repetition",
		}
	}

	/// The outcome with this record code.
	pub fn from_code(code: &str) -> Option<Outcome> {
		Outcome::ALL.into_iter().find(|o| o.code() == code)
	}
}

impl fmt::Display for Outcome {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		f.write_str(match self {
			Outcome::TigersByCaptures => "tigers win: five sheep captured",
			Outcome::TigersBySheepBlocked => "tigers win: the sheep cannot move",
			Outcome::SheepByTrapping => "sheep win: the tigers are trapped",
			Outcome::DrawByRepetition => "draw: the position came up a third time",
		})
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn codes_round_trip() {
		for o in Outcome::ALL {
			assert_eq!(Outcome::from_code(o.code()), Some(o));
		}
		assert_eq!(Outcome::from_code("tigers"), None);
	}

	#[test]
	fn values_follow_winners() {
		assert_eq!(Outcome::TigersByCaptures.value(), 1.0);
		assert_eq!(Outcome::SheepByTrapping.value(), -1.0);
		assert_eq!(Outcome::DrawByRepetition.value(), 0.0);
	}
}
