//! Legal move generation from the precomputed line tables, into a fixed-size list.

use std::ops::Deref;

use crate::board::{GameBoard, each_point};
use crate::lines::{JUMPS, NEIGHBOURS};
use crate::moves::{Move, Turn};

/// More moves than any position has. Sheep have at most 21 placements or 40 steps (at most
/// nine points are empty, each with at most eight neighbours, but only five are empty once all
/// sheep are placed and fewer than five are dead); tigers at most 32 (eight lines each).
pub const MAX_MOVES: usize = 48;

/// A list of moves on the stack.
#[derive(Clone, Copy)]
pub struct MoveList {
	moves: [Move; MAX_MOVES],
	len: usize,
}

impl MoveList {
	/// An empty list.
	#[inline]
	pub fn new() -> MoveList {
		MoveList {
			moves: [Move::Place {
				to: crate::Pos::from_index_unchecked(0),
			}; MAX_MOVES],
			len: 0,
		}
	}

	/// Appends a move; the list never overflows for moves of one position.
	#[inline]
	pub fn push(&mut self, mv: Move) {
		debug_assert!(self.len < MAX_MOVES);
		self.moves[self.len] = mv;
		self.len += 1;
	}

	/// Keeps the moves for which `keep` holds, in order; `keep` sees each move once, in order.
	pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
		let mut kept = 0;
		for i in 0..self.len {
			let mv = self.moves[i];
			if keep(mv) {
				self.moves[kept] = mv;
				kept += 1;
			}
		}
		self.len = kept;
	}

	/// The moves as a mutable slice, for reordering.
	#[inline]
	pub fn as_mut_slice(&mut self) -> &mut [Move] {
		&mut self.moves[..self.len]
	}
}

impl Default for MoveList {
	fn default() -> MoveList {
		MoveList::new()
	}
}

impl Deref for MoveList {
	type Target = [Move];

	#[inline]
	fn deref(&self) -> &[Move] {
		&self.moves[..self.len]
	}
}

impl std::fmt::Debug for MoveList {
	fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
		f.debug_list()
			.entries(self.iter().map(|m| m.to_string()))
			.finish()
	}
}

impl GameBoard {
	/// Every legal move of `turn`, ignoring whether the game is over.
	///
	/// Order: tiger jumps before tiger steps; sheep moves by destination, then origin.
	#[inline]
	pub fn get_moves(self, turn: Turn) -> MoveList {
		let mut list = MoveList::new();
		match turn {
			Turn::Sheep => self.sheep_moves(&mut list),
			Turn::Tiger => {
				self.tiger_jumps(&mut list);
				self.tiger_steps(&mut list);
			}
		}
		list
	}

	/// How many legal moves `turn` has; faster than generating them.
	#[inline]
	pub fn count_moves(self, turn: Turn) -> u32 {
		let empty = self.empty();
		match turn {
			Turn::Sheep if self.sheep_in_hand() > 0 => empty.count_ones(),
			Turn::Sheep => {
				let sheep = self.sheep();
				each_point(empty)
					.map(|p| (NEIGHBOURS[p.index()] & sheep).count_ones())
					.sum()
			}
			Turn::Tiger => self.count_tiger_jumps() + self.count_tiger_steps(),
		}
	}

	/// The tigers' jumps: captures available right now.
	#[inline]
	pub fn tiger_jumps(self, list: &mut MoveList) {
		let (sheep, empty) = (self.sheep(), self.empty());
		for from in each_point(self.tigers()) {
			for line in JUMPS[from.index()].as_slice() {
				if sheep & line.over.bit() != 0 && empty & line.land.bit() != 0 {
					list.push(Move::TigerJump {
						from,
						to: line.land,
					});
				}
			}
		}
	}

	/// How many jumps the tigers have.
	#[inline]
	pub fn count_tiger_jumps(self) -> u32 {
		let (sheep, empty) = (self.sheep(), self.empty());
		let mut count = 0;
		for from in each_point(self.tigers()) {
			for line in JUMPS[from.index()].as_slice() {
				count += u32::from(sheep & line.over.bit() != 0 && empty & line.land.bit() != 0);
			}
		}
		count
	}

	/// The sheep the tigers could capture right now, were it their move: a mask of the points
	/// of sheep that some tiger's jump line passes over with its landing point empty, the same
	/// test as [`GameBoard::tiger_jumps`] makes. Sheep to move or not, the mask is the same.
	#[inline]
	pub fn capturable_sheep(self) -> u32 {
		let (sheep, empty) = (self.sheep(), self.empty());
		let mut capturable = 0;
		for from in each_point(self.tigers()) {
			for line in JUMPS[from.index()].as_slice() {
				if empty & line.land.bit() != 0 {
					capturable |= sheep & line.over.bit();
				}
			}
		}
		capturable
	}

	/// How many steps the tigers have.
	#[inline]
	pub fn count_tiger_steps(self) -> u32 {
		let empty = self.empty();
		each_point(self.tigers())
			.map(|p| (NEIGHBOURS[p.index()] & empty).count_ones())
			.sum()
	}

	fn tiger_steps(self, list: &mut MoveList) {
		let empty = self.empty();
		for from in each_point(self.tigers()) {
			for to in each_point(NEIGHBOURS[from.index()] & empty) {
				list.push(Move::TigerStep { from, to });
			}
		}
	}

	fn sheep_moves(self, list: &mut MoveList) {
		let empty = self.empty();
		if self.sheep_in_hand() > 0 {
			for to in each_point(empty) {
				list.push(Move::Place { to });
			}
			return;
		}
		let sheep = self.sheep();
		for to in each_point(empty) {
			for from in each_point(NEIGHBOURS[to.index()] & sheep) {
				list.push(Move::SheepStep { from, to });
			}
		}
	}
}

#[cfg(test)]
mod tests {
	use rand::{RngExt, SeedableRng};
	use rand_xoshiro::Xoshiro256PlusPlus;

	use super::*;
	use crate::lines::jump_over;
	use crate::position::Position;

	/// The names of the points of the sheep the tigers could capture on `text`'s board.
	fn capturable(text: &str) -> Vec<String> {
		let position: Position = text.parse().unwrap();
		let mut names: Vec<String> = each_point(position.board.capturable_sheep())
			.map(|p| p.to_string())
			.collect();
		names.sort();
		names
	}

	#[test]
	fn a_corner_captures_along_its_diagonal_onto_an_empty_point_only() {
		// a5 over b4 onto c3.
		assert_eq!(capturable("T..../.S.../...../....T/...TT s 19"), ["b4"]);
		// c3 holds a sheep, so b4 cannot be jumped, and no tiger stands next to c3.
		assert!(capturable("T..../.S.../..S../....T/...TT s 18").is_empty());
		// b4 between two tigers: each lands on the other.
		assert!(capturable("T..../.S.../..T../...../...TT s 19").is_empty());
	}

	#[test]
	fn a_point_without_diagonals_captures_along_its_rows_and_files_only() {
		// b5 has no diagonals: c4 is not on a line with it. a5 has no point beyond it; c5 and
		// b4 do (d5 and b3, empty).
		assert_eq!(
			capturable("STS../.SS../...../....T/...TT s 16"),
			["b4", "c5"]
		);
	}

	#[test]
	fn an_edge_point_captures_along_the_edge_and_inwards() {
		// a3 over a4 onto a5, over b3 onto c3, over b2 onto c1 (a3 has diagonals); not over a2,
		// whose point beyond is a1's tiger, though a1 jumps b2 too.
		assert_eq!(
			capturable("....T/S..../TS.../SS.../T...T s 16"),
			["a4", "b2", "b3"]
		);
	}

	#[test]
	fn the_centre_captures_on_all_eight_lines_where_the_landing_point_is_empty() {
		// c3 over c2 onto c1 and over d2 onto e1; b4's landing point a5 holds a sheep.
		assert_eq!(
			capturable("S..TT/.S.../..T../..SS./T.... t 16"),
			["c2", "d2"]
		);
	}

	/// The mask holds exactly the sheep the move generator's jumps go over.
	#[test]
	fn capturable_sheep_are_the_sheep_the_generated_jumps_go_over() {
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(24);
		let mut positions_with_jumps = 0;
		for _ in 0..100 {
			let (mut board, mut turn) = (GameBoard::default(), Turn::Sheep);
			for _ in 0..100 {
				let mut jumps = MoveList::new();
				board.tiger_jumps(&mut jumps);
				let over = jumps.iter().fold(0, |mask, jump| match *jump {
					Move::TigerJump { from, to } => mask | jump_over(from, to).unwrap().bit(),
					_ => unreachable!("only jumps"),
				});
				assert_eq!(board.capturable_sheep(), over, "{board:?}");
				positions_with_jumps += usize::from(over != 0);
				let moves = board.get_moves(turn);
				if moves.is_empty() || board.outcome(turn).is_some() {
					break;
				}
				board.make_move_unchecked(moves[rng.random_range(0..moves.len())]);
				turn = turn.opponent();
			}
		}
		assert!(positions_with_jumps > 100, "{positions_with_jumps}");
	}
}
