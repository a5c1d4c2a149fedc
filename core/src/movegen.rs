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
