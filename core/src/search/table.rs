//! `TranspositionTable`: a fixed-size cache of searched positions, shared by symmetric positions.
//!
//! The key is the canonical board (the least of its eight symmetric images) with the side to move
//! in the top bit. It is exact: the 25-bit masks and the in-hand count fit in 64 bits with room
//! to spare, so two different positions never share a key and entries need no extra check.
//! Best moves are stored as seen on the canonical board and mapped back on the way out.
//!
//! Entries are stamped with the search that wrote them. A score holds only for the game history
//! it was searched under (a position that would now come round a third time is a draw, whatever
//! was stored), so each search says what it may take from earlier ones ([`Reuse`]).

use crate::board::GameBoard;
use crate::moves::{Move, Turn};
use crate::symmetry::Symmetry;

/// What the table knows about a position: bounds on its score, the depth they hold for, and the
/// best move found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheEntry {
	/// The score is at least this (side-to-move view).
	pub lower: f32,
	/// The score is at most this (side-to-move view).
	pub upper: f32,
	/// The remaining depth the bounds were searched to.
	pub depth: u8,
	/// The best (or refuting) move, if one was found.
	pub best: Option<Move>,
}

#[derive(Clone, Copy, Default)]
struct Slot {
	/// 0 marks an empty slot; a real key always has tiger bits set.
	key: u64,
	lower: f32,
	upper: f32,
	best: u16,
	/// The search that wrote the entry.
	generation: u16,
	depth: u8,
}

const _: () = assert!(size_of::<Slot>() == 24);

/// What a new search may use of the entries earlier searches left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reuse {
	/// Nothing: the search starts from an empty table, so its result depends on nothing before.
	Nothing,
	/// Their best moves, to order moves; not their scores.
	MovesOnly,
	/// Everything: their scores still hold.
	Everything,
}

const NO_MOVE: u16 = u16::MAX;

/// A position's table key and the symmetry that maps it onto its canonical board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableKey {
	key: u64,
	symmetry: Symmetry,
}

impl TableKey {
	/// The key of `board` with `turn` to move.
	#[inline]
	pub fn new(board: GameBoard, turn: Turn) -> TableKey {
		let (canonical, symmetry) = board.canonical();
		let side = u64::from(turn == Turn::Tiger) << 63;
		TableKey {
			key: canonical.to_bits() | side,
			symmetry,
		}
	}
}

/// A cache with `1 << bits` slots of 24 bytes, replaced on collision.
pub struct TranspositionTable {
	slots: Vec<Slot>,
	shift: u32,
	/// The search now writing entries.
	generation: u16,
	/// Entries from older searches are not seen at all.
	visible_from: u16,
	/// Entries from older searches give their move but not their scores.
	scores_from: u16,
}

impl TranspositionTable {
	/// A table of `1 << bits` slots; `bits` is clamped to 4..=30.
	pub fn new(bits: u32) -> TranspositionTable {
		let bits = bits.clamp(4, 30);
		TranspositionTable {
			slots: vec![Slot::default(); 1 << bits],
			shift: 64 - bits,
			generation: 1,
			visible_from: 1,
			scores_from: 1,
		}
	}

	/// Starts a new search that may use `reuse` of what earlier searches stored. Forgetting costs
	/// no time: older entries are only marked, by their generation.
	pub fn begin_search(&mut self, reuse: Reuse) {
		if reuse == Reuse::Everything {
			return;
		}
		if self.generation == u16::MAX {
			self.clear();
		}
		self.generation += 1;
		self.scores_from = self.generation;
		if reuse == Reuse::Nothing {
			self.visible_from = self.generation;
		}
	}

	/// How many slots the table has.
	pub fn capacity(&self) -> usize {
		self.slots.len()
	}

	/// Forgets everything.
	pub fn clear(&mut self) {
		self.slots.fill(Slot::default());
		(self.generation, self.visible_from, self.scores_from) = (1, 1, 1);
	}

	#[inline]
	fn index(&self, key: u64) -> usize {
		// Fibonacci hashing spreads the structured board bits over the whole table.
		(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
	}

	/// What the table holds for this position, if anything this search may use: an entry from
	/// an earlier search whose scores may not be reused comes with no bounds at depth 0.
	#[inline]
	pub fn lookup(&self, key: TableKey) -> Option<CacheEntry> {
		let slot = &self.slots[self.index(key.key)];
		if slot.key != key.key || slot.generation < self.visible_from {
			return None;
		}
		let best = (slot.best != NO_MOVE)
			.then(|| key.symmetry.inverse().apply_move(Move::unpack(slot.best)));
		Some(if slot.generation < self.scores_from {
			CacheEntry {
				lower: f32::NEG_INFINITY,
				upper: f32::INFINITY,
				depth: 0,
				best,
			}
		} else {
			CacheEntry {
				lower: slot.lower,
				upper: slot.upper,
				depth: slot.depth,
				best,
			}
		})
	}

	/// Stores what the search learnt about this position, replacing the slot's entry.
	#[inline]
	pub fn insert(&mut self, key: TableKey, entry: CacheEntry) {
		let index = self.index(key.key);
		self.slots[index] = Slot {
			key: key.key,
			lower: entry.lower,
			upper: entry.upper,
			generation: self.generation,
			depth: entry.depth,
			best: entry
				.best
				.map_or(NO_MOVE, |mv| key.symmetry.apply_move(mv).pack()),
		};
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::position::Position;

	#[test]
	fn symmetric_positions_share_an_entry_with_the_move_mapped() {
		let position: Position = "T...T/.S.../...../...../T...T t 19".parse().unwrap();
		let mut table = TranspositionTable::new(10);
		let jump: Move = "ta5xc3".parse().unwrap();
		let entry = CacheEntry {
			lower: 1.0,
			upper: 2.0,
			depth: 3,
			best: Some(jump),
		};
		table.insert(TableKey::new(position.board, Turn::Tiger), entry);
		for sym in Symmetry::ALL {
			let image = sym.apply_board(position.board);
			let found = table
				.lookup(TableKey::new(image, Turn::Tiger))
				.expect("shared entry");
			assert_eq!(found.best, Some(sym.apply_move(jump)));
			assert!(image.check_move(found.best.unwrap(), Turn::Tiger).is_ok());
			assert_eq!((found.lower, found.upper, found.depth), (1.0, 2.0, 3));
		}
		assert_eq!(
			table.lookup(TableKey::new(position.board, Turn::Sheep)),
			None
		);
		table.begin_search(Reuse::Everything);
		assert_eq!(
			table.lookup(TableKey::new(position.board, Turn::Tiger)),
			Some(entry)
		);
		table.begin_search(Reuse::MovesOnly);
		let moves_only = table
			.lookup(TableKey::new(position.board, Turn::Tiger))
			.expect("the move is kept");
		assert_eq!(moves_only.best, Some(jump));
		assert_eq!(moves_only.depth, 0);
		assert_eq!(
			(moves_only.lower, moves_only.upper),
			(f32::NEG_INFINITY, f32::INFINITY)
		);
		table.begin_search(Reuse::Nothing);
		assert_eq!(
			table.lookup(TableKey::new(position.board, Turn::Tiger)),
			None
		);
		table.insert(TableKey::new(position.board, Turn::Tiger), entry);
		table.clear();
		assert_eq!(
			table.lookup(TableKey::new(position.board, Turn::Tiger)),
			None
		);
	}
}
