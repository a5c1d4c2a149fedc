//! The board's eight symmetries (rotations and reflections) and a canonical form.
//!
//! Every symmetry of the square maps lines to lines: orthogonal lines to orthogonal lines, and
//! the diagonals (through points with even `x + y`) to diagonals, because `x + y` keeps its
//! parity when `x` becomes `4 - x` or `x` and `y` swap. So a symmetry maps legal moves to legal
//! moves, and symmetric positions have the same value.

use crate::board::{BOARD_MASK, GameBoard};
use crate::moves::Move;
use crate::pos::{POINTS, Pos};

/// One of the eight symmetries of the square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(u8);

impl Symmetry {
	/// The identity.
	pub const IDENTITY: Symmetry = Symmetry(0);

	/// All eight, the identity first.
	pub const ALL: [Symmetry; 8] = [
		Symmetry(0),
		Symmetry(1),
		Symmetry(2),
		Symmetry(3),
		Symmetry(4),
		Symmetry(5),
		Symmetry(6),
		Symmetry(7),
	];

	/// The symmetry with this number (0..8).
	pub const fn from_index(index: usize) -> Option<Symmetry> {
		if index < 8 {
			Some(Symmetry(index as u8))
		} else {
			None
		}
	}

	/// The number of this symmetry (0..8).
	pub const fn index(self) -> usize {
		self.0 as usize
	}

	/// The symmetry that undoes this one.
	pub const fn inverse(self) -> Symmetry {
		Symmetry(INVERSE[self.0 as usize])
	}

	/// Where this symmetry sends a point.
	#[inline]
	pub const fn apply_pos(self, pos: Pos) -> Pos {
		POINT_MAP[self.0 as usize][pos.index()]
	}

	/// Where this symmetry sends each point of a mask of points.
	#[inline]
	pub fn apply_mask(self, mask: u32) -> u32 {
		let table = &ROW_MAP[self.0 as usize];
		let mut out = 0;
		for (row, entries) in table.iter().enumerate() {
			out |= entries[((mask >> (5 * row)) & 31) as usize];
		}
		out
	}

	/// The board seen through this symmetry; sheep in hand are unchanged.
	#[inline]
	pub fn apply_board(self, board: GameBoard) -> GameBoard {
		let bits = board.to_bits();
		let tigers = self.apply_mask(bits as u32);
		let sheep_word = (bits >> 32) as u32;
		let sheep = self.apply_mask(sheep_word & BOARD_MASK) | (sheep_word & !BOARD_MASK);
		GameBoard::from_bits(tigers as u64 | (sheep as u64) << 32)
	}

	/// The move seen through this symmetry.
	#[inline]
	pub const fn apply_move(self, mv: Move) -> Move {
		match mv {
			Move::Place { to } => Move::Place {
				to: self.apply_pos(to),
			},
			Move::SheepStep { from, to } => Move::SheepStep {
				from: self.apply_pos(from),
				to: self.apply_pos(to),
			},
			Move::TigerStep { from, to } => Move::TigerStep {
				from: self.apply_pos(from),
				to: self.apply_pos(to),
			},
			Move::TigerJump { from, to } => Move::TigerJump {
				from: self.apply_pos(from),
				to: self.apply_pos(to),
			},
		}
	}
}

/// `(x, y)` under symmetry `s`: bit 0 mirrors x, bit 1 mirrors y, bit 2 swaps x and y (first).
const fn map_xy(s: u8, x: u8, y: u8) -> (u8, u8) {
	let (mut x, mut y) = if s & 4 != 0 { (y, x) } else { (x, y) };
	if s & 1 != 0 {
		x = 4 - x;
	}
	if s & 2 != 0 {
		y = 4 - y;
	}
	(x, y)
}

const fn build_point_map() -> [[Pos; POINTS]; 8] {
	let mut table = [[Pos::from_index_unchecked(0); POINTS]; 8];
	let mut s = 0;
	while s < 8 {
		let mut i = 0;
		while i < POINTS {
			let (x, y) = map_xy(s as u8, (i % 5) as u8, (i / 5) as u8);
			table[s][i] = Pos::from_index_unchecked((x + 5 * y) as u32);
			i += 1;
		}
		s += 1;
	}
	table
}

/// For each symmetry, row (0..5) and pattern of the row's five bits, the mapped mask.
const fn build_row_map() -> [[[u32; 32]; 5]; 8] {
	let mut table = [[[0u32; 32]; 5]; 8];
	let mut s = 0;
	while s < 8 {
		let mut row = 0;
		while row < 5 {
			let mut pattern = 0;
			while pattern < 32 {
				let mut bit = 0;
				while bit < 5 {
					if pattern & (1 << bit) != 0 {
						let to = POINT_MAP[s][row * 5 + bit];
						table[s][row][pattern] |= to.bit();
					}
					bit += 1;
				}
				pattern += 1;
			}
			row += 1;
		}
		s += 1;
	}
	table
}

const fn build_inverse() -> [u8; 8] {
	let mut table = [0u8; 8];
	let mut s = 0;
	while s < 8 {
		let mut t = 0;
		while t < 8 {
			// t undoes s if it sends the image of a point with distinct x and y back.
			let (x, y) = map_xy(s as u8, 0, 1);
			let (bx, by) = map_xy(t as u8, x, y);
			if bx == 0 && by == 1 {
				table[s] = t as u8;
			}
			t += 1;
		}
		s += 1;
	}
	table
}

static POINT_MAP: [[Pos; POINTS]; 8] = build_point_map();
static ROW_MAP: [[[u32; 32]; 5]; 8] = build_row_map();
const INVERSE: [u8; 8] = build_inverse();

impl GameBoard {
	/// The least of the eight symmetric images (by raw bits), and the symmetry that gives it.
	///
	/// Symmetric boards have the same canonical board, so tables keyed by it share entries.
	#[inline]
	pub fn canonical(self) -> (GameBoard, Symmetry) {
		let mut best = (self, Symmetry::IDENTITY);
		for sym in &Symmetry::ALL[1..] {
			let image = sym.apply_board(self);
			if image.to_bits() < best.0.to_bits() {
				best = (image, *sym);
			}
		}
		best
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::position::Position;

	#[test]
	fn each_symmetry_is_a_permutation_and_has_an_inverse() {
		for sym in Symmetry::ALL {
			let mut seen = 0u32;
			for p in Pos::all() {
				seen |= sym.apply_pos(p).bit();
				assert_eq!(sym.inverse().apply_pos(sym.apply_pos(p)), p);
			}
			assert_eq!(seen, BOARD_MASK);
		}
	}

	#[test]
	fn the_eight_are_distinct() {
		let c: Pos = "b5".parse().unwrap();
		let mut images: Vec<Pos> = Symmetry::ALL.iter().map(|s| s.apply_pos(c)).collect();
		images.sort();
		images.dedup();
		assert_eq!(images.len(), 8);
	}

	#[test]
	fn masks_map_like_points() {
		let board: Position = "T.S.T/.SSS./..T../S...S/...T. t 12".parse().unwrap();
		for sym in Symmetry::ALL {
			let image = sym.apply_board(board.board);
			for p in Pos::all() {
				assert_eq!(image.piece_at(sym.apply_pos(p)), board.board.piece_at(p));
			}
			assert_eq!(image.sheep_in_hand(), 12);
		}
	}

	#[test]
	fn canonical_form_is_shared_by_all_images() {
		let board: Position = "T.S.T/.SSS./..T../S...S/...T. t 12".parse().unwrap();
		let (canonical, sym) = board.board.canonical();
		assert_eq!(sym.apply_board(board.board), canonical);
		for s in Symmetry::ALL {
			assert_eq!(s.apply_board(board.board).canonical().0, canonical);
		}
		assert_eq!(GameBoard::default().canonical().0, GameBoard::default());
	}
}
