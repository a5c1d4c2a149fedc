//! `GameBoard`: the position as two 32-bit masks, and the rules that change it.

use std::fmt;

use thiserror::Error;

use crate::lines::{JUMPS, NEIGHBOURS, are_neighbours, jump_over};
use crate::moves::{Move, Turn};
use crate::outcome::Outcome;
use crate::pos::{POINTS, Pos};

/// The bits of a mask that are board points.
pub const BOARD_MASK: u32 = (1 << POINTS) - 1;
/// Where the count of sheep in hand starts in the sheep mask.
const IN_HAND_SHIFT: u32 = 25;
/// One sheep in hand, as a value in the sheep mask.
const ONE_IN_HAND: u32 = 1 << IN_HAND_SHIFT;
/// How many sheep the sheep side has in all.
pub const TOTAL_SHEEP: u32 = 20;
/// How many tigers are on the board, always.
pub const TIGERS: u32 = 4;
/// Dead sheep that win the game for the tigers.
pub const DEAD_SHEEP_TO_WIN: u32 = 5;

/// A position without the side to move: where the tigers and sheep stand and how many sheep are
/// still in hand. `Copy`, 8 bytes, passed by value.
///
/// The low 25 bits of each mask are the points (bit `x + 5 * y`); the high seven bits of the
/// sheep mask count the sheep still in hand. The default is the start: four tigers in the corners
/// and 20 sheep in hand.
///
/// ```
/// use tigers_core::GameBoard;
/// let board = GameBoard::default();
/// assert_eq!(board.sheep_in_hand(), 20);
/// assert_eq!(
///     board.to_string(),
///     "\
/// 5 T . . . T
/// 4 . . . . .
/// 3 . . . . .
/// 2 . . . . .
/// 1 T . . . T
///   a b c d e
/// "
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameBoard {
	tigers: u32,
	sheep: u32,
}

const _: () = assert!(size_of::<GameBoard>() == 8);

impl Default for GameBoard {
	fn default() -> GameBoard {
		let corners = 1 | 1 << 4 | 1 << 20 | 1 << 24;
		GameBoard {
			tigers: corners,
			sheep: TOTAL_SHEEP << IN_HAND_SHIFT,
		}
	}
}

/// Why a set of pieces is not a position that can arise in a game.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BoardError {
	/// A mask has bits set beyond the 25 points.
	#[error("a piece mask has bits set beyond the 25 points")]
	OffBoard,
	/// A tiger and a sheep share a point.
	#[error("a tiger and a sheep both stand on {0}")]
	Overlap(Pos),
	/// There are not exactly four tigers.
	#[error("there must be exactly 4 tigers, not {0}")]
	TigerCount(u32),
	/// More than 20 sheep in hand.
	#[error("at most 20 sheep can be in hand, not {0}")]
	InHand(u32),
	/// Sheep on the board and in hand add up to more than 20.
	#[error("{on_board} sheep on the board and {in_hand} in hand make more than 20")]
	TooManySheep {
		/// Sheep on the board.
		on_board: u32,
		/// Sheep in hand.
		in_hand: u32,
	},
	/// More sheep are missing than the game allows to die.
	#[error("{0} sheep are dead, but the game ends when the fifth dies")]
	TooManyDead(u32),
}

/// Why a move cannot be played in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
	/// It is the other side's turn.
	#[error("it is the {0}' turn")]
	NotYourTurn(Turn),
	/// The game is already over.
	#[error("the game is over ({0})")]
	GameOver(Outcome),
	/// A placement while no sheep are left in hand.
	#[error("no sheep are left in hand to place")]
	NoSheepInHand,
	/// A sheep step while sheep are still in hand.
	#[error("sheep cannot move until all 20 are placed ({0} still in hand)")]
	SheepStillInHand(u8),
	/// The moving piece is not on its starting point.
	#[error("there is no {piece} on {at}")]
	NoPieceThere {
		/// The point named as the start.
		at: Pos,
		/// "sheep" or "tiger".
		piece: &'static str,
	},
	/// The destination is not empty.
	#[error("{0} is not empty")]
	Occupied(Pos),
	/// A step between points that no line joins in one step.
	#[error("{from} and {to} are not neighbours along a line")]
	NotNeighbours {
		/// The start.
		from: Pos,
		/// The destination.
		to: Pos,
	},
	/// A jump between points that are not two steps apart on one line.
	#[error("{from} and {to} are not two steps apart on one line")]
	NotAJumpLine {
		/// The start.
		from: Pos,
		/// The landing point.
		to: Pos,
	},
	/// A jump over a point without a sheep.
	#[error("there is no sheep on {0} to jump over")]
	NothingToJump(Pos),
}

impl GameBoard {
	/// The board with these tigers, sheep and sheep in hand, if it can arise in a game.
	pub fn new(tigers: u32, sheep: u32, sheep_in_hand: u32) -> Result<GameBoard, BoardError> {
		if tigers & !BOARD_MASK != 0 || sheep & !BOARD_MASK != 0 {
			return Err(BoardError::OffBoard);
		}
		if let Some(index) = lowest_point(tigers & sheep) {
			return Err(BoardError::Overlap(index));
		}
		if tigers.count_ones() != TIGERS {
			return Err(BoardError::TigerCount(tigers.count_ones()));
		}
		if sheep_in_hand > TOTAL_SHEEP {
			return Err(BoardError::InHand(sheep_in_hand));
		}
		let on_board = sheep.count_ones();
		if on_board + sheep_in_hand > TOTAL_SHEEP {
			return Err(BoardError::TooManySheep {
				on_board,
				in_hand: sheep_in_hand,
			});
		}
		let dead = TOTAL_SHEEP - on_board - sheep_in_hand;
		if dead > DEAD_SHEEP_TO_WIN {
			return Err(BoardError::TooManyDead(dead));
		}
		Ok(GameBoard {
			tigers,
			sheep: sheep | sheep_in_hand << IN_HAND_SHIFT,
		})
	}

	/// The mask of points holding a tiger.
	#[inline]
	pub const fn tigers(self) -> u32 {
		self.tigers
	}

	/// The mask of points holding a sheep.
	#[inline]
	pub const fn sheep(self) -> u32 {
		self.sheep & BOARD_MASK
	}

	/// The mask of empty points.
	#[inline]
	pub const fn empty(self) -> u32 {
		!(self.tigers | self.sheep) & BOARD_MASK
	}

	/// Sheep not yet placed.
	#[inline]
	pub const fn sheep_in_hand(self) -> u8 {
		(self.sheep >> IN_HAND_SHIFT) as u8
	}

	/// Sheep on the board.
	#[inline]
	pub const fn sheep_on_board(self) -> u32 {
		self.sheep().count_ones()
	}

	/// Sheep killed so far.
	#[inline]
	pub const fn dead_sheep(self) -> u32 {
		TOTAL_SHEEP - self.sheep_on_board() - self.sheep_in_hand() as u32
	}

	/// The raw masks `(tigers, sheep with the in-hand count in its high bits)`, e.g. for hashing.
	#[inline]
	pub const fn to_bits(self) -> u64 {
		self.tigers as u64 | (self.sheep as u64) << 32
	}

	/// The board from raw bits as [`GameBoard::to_bits`] gives them; the caller guarantees they
	/// came from a valid board (or a symmetric image of one).
	#[inline]
	pub(crate) const fn from_bits(bits: u64) -> GameBoard {
		GameBoard {
			tigers: bits as u32,
			sheep: (bits >> 32) as u32,
		}
	}

	/// What stands on a point.
	pub const fn piece_at(self, pos: Pos) -> Option<Turn> {
		if self.tigers & pos.bit() != 0 {
			Some(Turn::Tiger)
		} else if self.sheep & pos.bit() != 0 {
			Some(Turn::Sheep)
		} else {
			None
		}
	}

	/// Whether `mv` is legal for `turn` on this board (the game-over check is the game's).
	pub fn check_move(&self, mv: Move, turn: Turn) -> Result<(), MoveError> {
		if mv.side() != turn {
			return Err(MoveError::NotYourTurn(turn));
		}
		let empty = self.empty();
		let in_hand = self.sheep_in_hand();
		let need_piece = |at: Pos, mask: u32, piece| {
			if mask & at.bit() == 0 {
				Err(MoveError::NoPieceThere { at, piece })
			} else {
				Ok(())
			}
		};
		let need_empty = |at: Pos| {
			if empty & at.bit() == 0 {
				Err(MoveError::Occupied(at))
			} else {
				Ok(())
			}
		};
		match mv {
			Move::Place { to } => {
				if in_hand == 0 {
					return Err(MoveError::NoSheepInHand);
				}
				need_empty(to)
			}
			Move::SheepStep { from, to } => {
				if in_hand > 0 {
					return Err(MoveError::SheepStillInHand(in_hand));
				}
				need_piece(from, self.sheep(), "sheep")?;
				check_step(from, to)?;
				need_empty(to)
			}
			Move::TigerStep { from, to } => {
				need_piece(from, self.tigers, "tiger")?;
				check_step(from, to)?;
				need_empty(to)
			}
			Move::TigerJump { from, to } => {
				need_piece(from, self.tigers, "tiger")?;
				let over = jump_over(from, to).ok_or(MoveError::NotAJumpLine { from, to })?;
				if self.sheep() & over.bit() == 0 {
					return Err(MoveError::NothingToJump(over));
				}
				need_empty(to)
			}
		}
	}

	/// Plays `mv` for `turn` if it is legal; on an error the board is untouched.
	pub fn make_move(&mut self, mv: Move, turn: Turn) -> Result<(), MoveError> {
		self.check_move(mv, turn)?;
		self.make_move_unchecked(mv);
		Ok(())
	}

	/// Plays `mv` without checking it; for moves from the move generator.
	#[inline]
	pub fn make_move_unchecked(&mut self, mv: Move) {
		match mv {
			Move::Place { to } => {
				debug_assert!(self.sheep_in_hand() > 0 && self.empty() & to.bit() != 0);
				self.sheep = (self.sheep - ONE_IN_HAND) | to.bit();
			}
			Move::SheepStep { from, to } => self.sheep ^= from.bit() | to.bit(),
			Move::TigerStep { from, to } => self.tigers ^= from.bit() | to.bit(),
			Move::TigerJump { from, to } => {
				self.tigers ^= from.bit() | to.bit();
				self.sheep ^= Move::jumped_point(from, to).bit();
			}
		}
	}

	/// The board after `mv`, which must be legal.
	#[inline]
	#[must_use]
	pub fn after_move_unchecked(mut self, mv: Move) -> GameBoard {
		self.make_move_unchecked(mv);
		self
	}

	/// Whether `turn` has at least one legal move.
	pub fn has_legal_move(self, turn: Turn) -> bool {
		let empty = self.empty();
		match turn {
			// With sheep in hand at least two points are empty, so a placement always exists.
			Turn::Sheep if self.sheep_in_hand() > 0 => true,
			// Fewer points are empty than hold sheep, so look from the empty points.
			Turn::Sheep => {
				let sheep = self.sheep();
				each_point(empty).any(|p| NEIGHBOURS[p.index()] & sheep != 0)
			}
			Turn::Tiger => each_point(self.tigers).any(|p| self.tiger_can_move(p, empty)),
		}
	}

	fn tiger_can_move(self, tiger: Pos, empty: u32) -> bool {
		NEIGHBOURS[tiger.index()] & empty != 0
			|| JUMPS[tiger.index()]
				.as_slice()
				.iter()
				.any(|line| self.sheep & line.over.bit() != 0 && empty & line.land.bit() != 0)
	}

	/// Whether the side that just moved has won, `turn` being the side about to move.
	pub fn check_win(self, turn: Turn) -> bool {
		self.outcome(turn).is_some()
	}

	/// How the game stands with `turn` to move, without repetitions (those need the history).
	pub fn outcome(self, turn: Turn) -> Option<Outcome> {
		if self.dead_sheep() >= DEAD_SHEEP_TO_WIN {
			Some(Outcome::TigersByCaptures)
		} else if self.has_legal_move(turn) {
			None
		} else {
			Some(match turn {
				Turn::Sheep => Outcome::TigersBySheepBlocked,
				Turn::Tiger => Outcome::SheepByTrapping,
			})
		}
	}
}

fn check_step(from: Pos, to: Pos) -> Result<(), MoveError> {
	if are_neighbours(from, to) {
		Ok(())
	} else {
		Err(MoveError::NotNeighbours { from, to })
	}
}

fn lowest_point(mask: u32) -> Option<Pos> {
	each_point(mask).next()
}

/// The points of a mask, lowest index first.
#[inline]
pub fn each_point(mut mask: u32) -> impl Iterator<Item = Pos> {
	std::iter::from_fn(move || {
		if mask == 0 {
			return None;
		}
		let index = mask.trailing_zeros();
		mask &= mask - 1;
		Some(Pos::from_index_unchecked(index))
	})
}

impl fmt::Display for GameBoard {
	/// The board as five rows of `T`, `S` and `.`, rank 5 first, with labels.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		for y in 0..5 {
			write!(f, "{}", 5 - y)?;
			for x in 0..5 {
				let pos = Pos::new(x, y).expect("x and y are below 5");
				let c = match self.piece_at(pos) {
					Some(Turn::Tiger) => 'T',
					Some(Turn::Sheep) => 'S',
					None => '.',
				};
				write!(f, " {c}")?;
			}
			writeln!(f)?;
		}
		writeln!(f, "  a b c d e")
	}
}

#[cfg(test)]
mod tests;
