//! Where each placement-phase position sits in its layer's file.
//!
//! A placement position is the sheep placed so far (`placed`, 0 to 19 with the sheep to move, 1
//! to 19 with the tigers to move), the sheep dead (0 to 4, at most `placed`), the side to move,
//! the four tigers and the `placed - dead` sheep on the board. A *layer* is one `placed` and one
//! side to move; inside it the entries go by dead sheep, then by tiger class, then by the rank of
//! the sheep set:
//!
//! - **Tigers by class**, as in the movement table (`Layout`): the 1,666 classes of tiger sets
//!   under the eight symmetries, each stored under its least mask.
//! - **Sheep by rank.** The sheep stand on some of the 21 points the class's tigers leave free.
//!   Numbered 0 to 20 in ascending order, those points turn the sheep into a 21-bit set, whose
//!   colexicographic rank among the `C(21, s)` sets of its size is the entry's place in the
//!   class's block. `colex_rank` takes three table lookups.
//!
//! An entry is two bits ([`Verdict`](super::Verdict)), four to a byte, and every class's block
//! starts on a byte of its own (the last byte is padded with the code 3), so that the solve's
//! threads own whole bytes. As in the movement table, a class whose mask is symmetric in itself
//! stores a position under each image; all images hold the same value.

use crate::moves::Turn;
use crate::tablebase::index::{BINOMIAL, FREE_POINTS, Layout, TIGER_CLASSES};

/// The most sheep placed in a placement position: with 20 placed the movement phase begins.
pub const LAST_PLACED: u32 = 19;
/// The most sheep dead in a position that is not over (the fifth capture wins).
pub const MAX_DEAD: u32 = 4;
/// All 21 free points, as a set of their numbers.
pub(crate) const ALL_FREE: u32 = (1 << FREE_POINTS) - 1;

/// Points per chunk of a 21-bit set in the rank table.
const CHUNK_BITS: u32 = 7;
/// `RANK[chunk][before][bits]`: what a 7-bit chunk of a sheep set adds to its colexicographic
/// rank, given how many of the set's points lie in the chunks before it.
static RANK: [[[u32; 128]; FREE_POINTS + 1]; 3] = build_rank_table();

const fn build_rank_table() -> [[[u32; 128]; FREE_POINTS + 1]; 3] {
	let mut table = [[[0u32; 128]; FREE_POINTS + 1]; 3];
	let mut chunk = 0;
	while chunk < 3 {
		let mut before = 0;
		while before <= FREE_POINTS {
			let mut bits = 0;
			while bits < 128 {
				let mut sum = 0;
				let mut k = before;
				let mut bit = 0;
				while bit < CHUNK_BITS as usize {
					if bits & (1 << bit) != 0 {
						k += 1;
						let point = chunk * CHUNK_BITS as usize + bit;
						if k <= FREE_POINTS && point < FREE_POINTS {
							sum += BINOMIAL[point][k];
						}
					}
					bit += 1;
				}
				table[chunk][before][bits] = sum;
				bits += 1;
			}
			before += 1;
		}
		chunk += 1;
	}
	table
}

/// The colexicographic rank of a set of free points (bits 0 to 20) among the sets of its size:
/// `sum C(x_i, i)` over its points `x_1 < x_2 < ...`.
#[inline]
pub(crate) fn colex_rank(set: u32) -> u32 {
	debug_assert!(set & !ALL_FREE == 0);
	let low = set & 127;
	let middle = (set >> 7) & 127;
	let high = set >> 14;
	let before_middle = low.count_ones() as usize;
	let before_high = before_middle + middle.count_ones() as usize;
	RANK[0][0][low as usize]
		+ RANK[1][before_middle][middle as usize]
		+ RANK[2][before_high][high as usize]
}

/// The sets of `size` free points in colexicographic order (rank 0 first).
pub(crate) fn sets_in_rank_order(size: u32) -> impl Iterator<Item = u32> {
	let count = BINOMIAL[FREE_POINTS][size as usize];
	let first = (1u32 << size) - 1;
	(0..count).scan(first, |set, _| {
		let current = *set;
		*set = next_set(current);
		Some(current)
	})
}

/// The next larger number with as many bits set: the next set in colexicographic order.
#[inline]
fn next_set(set: u32) -> u32 {
	if set == 0 {
		return 0;
	}
	let lowest = set & set.wrapping_neg();
	let ripple = set + lowest;
	ripple | (((set ^ ripple) >> 2) / lowest)
}

/// Sets of `size` points among the 21 free ones.
#[inline]
pub(crate) fn sets_of(size: u32) -> u32 {
	BINOMIAL[FREE_POINTS][size as usize]
}

/// A board mask of points (none a tiger of `class`) as a set of the class's free points.
#[inline]
pub(crate) fn to_free_set(layout: &Layout, class: usize, mask: u32) -> u32 {
	let rank = layout.free_rank(class);
	let mut set = 0;
	let mut rest = mask;
	while rest != 0 {
		let point = rest.trailing_zeros() as usize;
		rest &= rest - 1;
		debug_assert!(rank[point] != u8::MAX, "a sheep on a tiger");
		set |= 1 << rank[point];
	}
	set
}

/// A set of the class's free points as a board mask.
#[inline]
pub(crate) fn to_board_mask(layout: &Layout, class: usize, set: u32) -> u32 {
	let points = layout.free_points(class);
	let mut mask = 0;
	let mut rest = set;
	while rest != 0 {
		mask |= 1 << points[rest.trailing_zeros() as usize];
		rest &= rest - 1;
	}
	mask
}

/// One layer: the sheep placed and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayerId {
	/// Sheep placed so far, dead ones included.
	pub placed: u32,
	/// The side to move.
	pub turn: Turn,
}

impl LayerId {
	/// The layer, if there is one: the sheep to move with 0 to 19 placed, the tigers with 1 to
	/// 19 (they move only after a sheep).
	pub fn new(placed: u32, turn: Turn) -> Option<LayerId> {
		let lowest = match turn {
			Turn::Sheep => 0,
			Turn::Tiger => 1,
		};
		(lowest..=LAST_PLACED)
			.contains(&placed)
			.then_some(LayerId { placed, turn })
	}

	/// Every layer from `from_placed` sheep placed up, in the order the solve needs them: each
	/// after the layer its moves lead to (the sheep with 19 placed first, the start last).
	pub fn solve_order(from_placed: u32) -> Vec<LayerId> {
		// With `p` placed the sheep's layer needs the tigers' with `p + 1`, and the tigers' layer
		// needs the sheep's with `p`: so sheep, then tigers, from 19 placed down.
		(from_placed..=LAST_PLACED)
			.rev()
			.flat_map(|placed| [Turn::Sheep, Turn::Tiger].map(|turn| LayerId::new(placed, turn)))
			.flatten()
			.collect()
	}

	/// The layer whose values this one's moves lead to, or `None` for the sheep with 19 placed,
	/// whose placements lead into the movement phase.
	pub fn child(self) -> Option<LayerId> {
		match self.turn {
			Turn::Sheep => LayerId::new(self.placed + 1, Turn::Tiger),
			Turn::Tiger => LayerId::new(self.placed, Turn::Sheep),
		}
	}

	/// The most sheep that can be dead in this layer.
	pub fn max_dead(self) -> u32 {
		self.placed.min(MAX_DEAD)
	}

	/// Sheep on the board with `dead` of them eaten.
	pub fn sheep_on_board(self, dead: u32) -> u32 {
		self.placed - dead
	}

	/// The layer's file name, e.g. `placed-19-sheep.tbp`.
	pub fn file_name(self) -> String {
		format!("placed-{:02}-{}.tbp", self.placed, turn_name(self.turn))
	}
}

impl Ord for LayerId {
	/// Fewest placed first; with as many placed, the sheep to move first.
	fn cmp(&self, other: &LayerId) -> std::cmp::Ordering {
		let key = |id: &LayerId| (id.placed, id.turn == Turn::Tiger);
		key(self).cmp(&key(other))
	}
}

impl PartialOrd for LayerId {
	fn partial_cmp(&self, other: &LayerId) -> Option<std::cmp::Ordering> {
		Some(self.cmp(other))
	}
}

/// `sheep` or `tigers`.
pub(crate) fn turn_name(turn: Turn) -> &'static str {
	match turn {
		Turn::Sheep => "sheep",
		Turn::Tiger => "tigers",
	}
}

/// Where a layer's entries lie: its blocks by dead sheep and tiger class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerShape {
	/// The layer.
	pub id: LayerId,
	/// Bytes before each dead count's blocks; the last is the layer's length.
	dead_start: [u64; MAX_DEAD as usize + 2],
	/// Bytes of one class's block, per dead count.
	class_bytes: [u64; MAX_DEAD as usize + 1],
}

impl LayerShape {
	/// The shape of layer `id`.
	pub fn of(id: LayerId) -> LayerShape {
		let mut dead_start = [0u64; MAX_DEAD as usize + 2];
		let mut class_bytes = [0u64; MAX_DEAD as usize + 1];
		for dead in 0..=MAX_DEAD as usize {
			if dead as u32 <= id.max_dead() {
				class_bytes[dead] = u64::from(sets_of(id.sheep_on_board(dead as u32))).div_ceil(4);
			}
			dead_start[dead + 1] = dead_start[dead] + class_bytes[dead] * TIGER_CLASSES as u64;
		}
		LayerShape {
			id,
			dead_start,
			class_bytes,
		}
	}

	/// The layer's length in bytes.
	pub fn bytes(&self) -> u64 {
		self.dead_start[MAX_DEAD as usize + 1]
	}

	/// Entries (positions counting each stored image once), padding left out.
	pub fn entries(&self) -> u64 {
		(0..=self.id.max_dead())
			.map(|dead| u64::from(sets_of(self.id.sheep_on_board(dead))) * TIGER_CLASSES as u64)
			.sum()
	}

	/// The bytes of class `class`'s block with `dead` sheep dead.
	#[inline]
	pub fn block(&self, dead: u32, class: usize) -> std::ops::Range<u64> {
		let start = self.dead_start[dead as usize] + class as u64 * self.class_bytes[dead as usize];
		start..start + self.class_bytes[dead as usize]
	}

	/// The first byte of class `class`'s block with `dead` sheep dead.
	#[inline]
	pub fn block_start(&self, dead: u32, class: usize) -> u64 {
		self.dead_start[dead as usize] + class as u64 * self.class_bytes[dead as usize]
	}

	/// The byte and bit shift of an entry.
	#[inline]
	pub fn address(&self, dead: u32, class: usize, rank: u32) -> (u64, u32) {
		(
			self.block_start(dead, class) + u64::from(rank / 4),
			2 * (rank % 4),
		)
	}
}

/// Where a position lies: its layer, dead sheep, tiger class and rank, through the first
/// symmetry that sends its tigers onto the class's mask. `None` outside the placement phase (no
/// sheep in hand, five dead, or the tigers to move before any sheep was placed).
pub(crate) fn locate(board: crate::GameBoard, turn: Turn) -> Option<(LayerId, u32, usize, u32)> {
	let in_hand = u32::from(board.sheep_in_hand());
	if in_hand == 0 {
		return None;
	}
	let placed = crate::board::TOTAL_SHEEP - in_hand;
	let dead = placed.checked_sub(board.sheep().count_ones())?;
	if dead > MAX_DEAD {
		return None;
	}
	let id = LayerId::new(placed, turn)?;
	let layout = Layout::get();
	let (class, sym) = layout.class_of(board.tigers());
	let set = to_free_set(layout, class, sym.apply_mask(board.sheep()));
	Some((id, dead, class, colex_rank(set)))
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn ranks_number_each_size_from_zero_in_order() {
		for size in [0, 1, 2, 5, 10, 19, 21] {
			let mut count = 0;
			for (expected, set) in sets_in_rank_order(size).enumerate() {
				assert_eq!(set.count_ones(), size);
				assert_eq!(colex_rank(set), expected as u32);
				count += 1;
			}
			assert_eq!(count, sets_of(size));
		}
	}

	#[test]
	fn the_solve_order_puts_each_layer_after_its_child() {
		let order = LayerId::solve_order(0);
		assert_eq!(order.len(), 20 + 19);
		assert_eq!(order[0], LayerId::new(19, Turn::Sheep).unwrap());
		assert_eq!(order.last(), LayerId::new(0, Turn::Sheep).as_ref());
		for (at, id) in order.iter().enumerate() {
			if let Some(child) = id.child() {
				let child_at = order.iter().position(|c| *c == child).unwrap();
				assert!(child_at < at, "{id:?} before its child {child:?}");
			}
		}
		let last = LayerId::solve_order(17);
		assert_eq!(last.len(), 6);
		assert!(last.iter().all(|id| id.placed >= 17));
	}

	#[test]
	fn shapes_hold_every_entry_on_whole_bytes() {
		let id = LayerId::new(12, Turn::Tiger).unwrap();
		let shape = LayerShape::of(id);
		let classes = TIGER_CLASSES as u64;
		let expected: u64 = (0..=4).map(|d| u64::from(sets_of(12 - d)) * classes).sum();
		assert_eq!(shape.entries(), expected);
		assert!(shape.bytes() * 4 >= shape.entries());
		assert!(shape.bytes() * 4 < shape.entries() + 4 * 5 * classes);
		let (byte, shift) = shape.address(4, TIGER_CLASSES - 1, sets_of(8) - 1);
		assert_eq!(byte, shape.bytes() - 1);
		assert!(shift <= 6);
	}
}
