//! The board's lines: each point's neighbours and jump lines, built at compile time.
//!
//! Orthogonal lines join every pair of horizontally or vertically adjacent points. Diagonal lines
//! pass only through points whose `x + y` is even, so a diagonal step from such a point lands on
//! another such point and a diagonal jump stays on one line.

use crate::pos::{POINTS, Pos};

/// The eight directions as `(dx, dy)`, clockwise from "up" (towards rank 5).
pub const DIRECTIONS: [(i8, i8); 8] = [
	(0, -1),
	(1, -1),
	(1, 0),
	(1, 1),
	(0, 1),
	(-1, 1),
	(-1, 0),
	(-1, -1),
];

/// A jump from some point: over `over` (which must hold a sheep) onto `land` (which must be empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JumpLine {
	/// The point jumped over.
	pub over: Pos,
	/// The point landed on.
	pub land: Pos,
}

/// The jump lines from one point: up to eight, the first `len` valid.
#[derive(Clone, Copy, Debug)]
pub struct JumpLines {
	lines: [JumpLine; 8],
	len: u8,
}

impl JumpLines {
	/// The valid jump lines.
	#[inline]
	pub fn as_slice(&self) -> &[JumpLine] {
		&self.lines[..self.len as usize]
	}
}

/// The point one step from `(x, y)` in direction `dir` along a line, if the line exists there.
const fn step(x: i8, y: i8, dir: usize) -> Option<(i8, i8)> {
	let (dx, dy) = DIRECTIONS[dir];
	let diagonal = dx != 0 && dy != 0;
	if diagonal && (x + y) % 2 != 0 {
		return None;
	}
	let (nx, ny) = (x + dx, y + dy);
	if nx < 0 || ny < 0 || nx > 4 || ny > 4 {
		None
	} else {
		Some((nx, ny))
	}
}

const fn index_of(x: i8, y: i8) -> u8 {
	(x + 5 * y) as u8
}

const fn build_neighbours() -> [u32; POINTS] {
	let mut table = [0u32; POINTS];
	let mut i = 0;
	while i < POINTS {
		let (x, y) = ((i % 5) as i8, (i / 5) as i8);
		let mut dir = 0;
		while dir < 8 {
			if let Some((nx, ny)) = step(x, y, dir) {
				table[i] |= 1 << index_of(nx, ny);
			}
			dir += 1;
		}
		i += 1;
	}
	table
}

const fn build_jumps() -> [JumpLines; POINTS] {
	let unused = JumpLine {
		over: Pos::from_index_unchecked(0),
		land: Pos::from_index_unchecked(0),
	};
	let mut table = [JumpLines {
		lines: [unused; 8],
		len: 0,
	}; POINTS];
	let mut i = 0;
	while i < POINTS {
		let (x, y) = ((i % 5) as i8, (i / 5) as i8);
		let mut dir = 0;
		while dir < 8 {
			if let Some((ox, oy)) = step(x, y, dir)
				&& let Some((lx, ly)) = step(ox, oy, dir)
			{
				let entry = &mut table[i];
				entry.lines[entry.len as usize] = JumpLine {
					over: Pos::from_index_unchecked(index_of(ox, oy) as u32),
					land: Pos::from_index_unchecked(index_of(lx, ly) as u32),
				};
				entry.len += 1;
			}
			dir += 1;
		}
		i += 1;
	}
	table
}

/// For each point, the mask of points one step away along a line.
pub static NEIGHBOURS: [u32; POINTS] = build_neighbours();

/// For each point, its jump lines.
pub static JUMPS: [JumpLines; POINTS] = build_jumps();

/// Whether `a` and `b` are one step apart along a line.
#[inline]
pub fn are_neighbours(a: Pos, b: Pos) -> bool {
	NEIGHBOURS[a.index()] & b.bit() != 0
}

/// The point jumped over when going from `from` to `to`, if the two are a jump apart on a line.
pub fn jump_over(from: Pos, to: Pos) -> Option<Pos> {
	JUMPS[from.index()]
		.as_slice()
		.iter()
		.find(|line| line.land == to)
		.map(|line| line.over)
}

#[cfg(test)]
mod tests {
	use super::*;

	fn pos(name: &str) -> Pos {
		name.parse().unwrap()
	}

	#[test]
	fn corner_with_diagonal_has_three_neighbours() {
		assert_eq!(NEIGHBOURS[pos("a5").index()].count_ones(), 3);
		assert!(are_neighbours(pos("a5"), pos("b4")));
	}

	#[test]
	fn odd_points_have_no_diagonals() {
		// b5 (x + y = 1) joins a5, c5 and b4 only.
		let mask = NEIGHBOURS[pos("b5").index()];
		assert_eq!(mask, pos("a5").bit() | pos("c5").bit() | pos("b4").bit());
		assert!(!are_neighbours(pos("b5"), pos("a4")));
	}

	#[test]
	fn centre_has_eight_neighbours_and_eight_jumps() {
		assert_eq!(NEIGHBOURS[pos("c3").index()].count_ones(), 8);
		assert_eq!(JUMPS[pos("c3").index()].as_slice().len(), 8);
	}

	#[test]
	fn neighbour_relation_is_symmetric() {
		for a in Pos::all() {
			for b in Pos::all() {
				assert_eq!(are_neighbours(a, b), are_neighbours(b, a), "{a} {b}");
			}
		}
	}

	#[test]
	fn jumps_follow_lines() {
		assert_eq!(jump_over(pos("a5"), pos("c3")), Some(pos("b4")));
		assert_eq!(jump_over(pos("a5"), pos("c5")), Some(pos("b5")));
		assert_eq!(jump_over(pos("b5"), pos("d3")), None);
		assert_eq!(jump_over(pos("a5"), pos("b4")), None);
		for from in Pos::all() {
			for line in JUMPS[from.index()].as_slice() {
				assert!(are_neighbours(from, line.over));
				assert!(are_neighbours(line.over, line.land));
				assert_eq!(line.over.index() * 2, from.index() + line.land.index());
			}
		}
	}
}
