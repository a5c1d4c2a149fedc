//! The retrograde solve: every movement-phase position's value, layer by layer.
//!
//! A capture moves a position one layer down (one more sheep dead) and nothing moves it back, so
//! the layers are solved from four dead to none, each knowing the values of the layer below.
//! Inside a layer the solve works outwards from the ends of games, one distance at a time:
//!
//! 1. **Start.** Every canonical entry counts its distinct children (canonical entries, in this
//!    layer or, through a capture, the one below). A position without a move is lost now
//!    (distance 0); with four dead, a tiger that can jump wins at once (distance 1).
//! 2. **Level m.** Take every position decided at distance `m`: this layer's, and the one below's
//!    with the sheep to move (where captures land). Walk each back one move to its parents in
//!    this layer. If the child is lost for its mover, a parent not yet decided wins at `m + 1`:
//!    the shortest win, since shorter ones were found at earlier levels. If the child is won, the
//!    parent has one child fewer left to refute; when none is left, every move loses and the
//!    parent loses at `m + 1`, the longest defence, since its last child fell at `m`.
//! 3. **Draws.** What is undecided when no level has positions left can avoid losing for ever:
//!    a draw.
//!
//! Parents are counted once per distinct canonical child, on both sides: walking back from a
//! canonical child and canonicalising the parents finds exactly the canonical positions that
//! have a move to some image of that child, so the counts match without tracking symmetries.
//! Values and counters are atomic bytes so that two threads can share a level: a parent is won
//! by whichever thread gets there first (a compare-and-swap from "undecided"), and lost by the
//! thread whose decrement empties its counter. A parent with a lost child is never counted down
//! to zero, so the two never race for one position.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};

use thiserror::Error;

use crate::lines::{JUMPS, NEIGHBOURS};
use crate::moves::Turn;
use crate::tablebase::index::{Entry, LAYERS, Layout, POSITIONS, POSITIONS_UP_TO_SYMMETRY};
use crate::tablebase::value::{MAX_DISTANCE, encode_loss, encode_win};

/// Entries a thread takes at a time.
const CHUNK: usize = 1 << 14;

/// How far a solve has got, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveProgress {
	/// Work done, in entries (each entry counts twice: once to start, once to decide).
	pub done: u64,
	/// All the work.
	pub total: u64,
	/// The layer being solved, by dead sheep.
	pub dead: u32,
}

/// Why a solve could not finish.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SolveError {
	/// A win or loss is longer than a table entry can hold.
	#[error(
		"a position with {dead} dead is decided only after {distance} plies, more than the {MAX_DISTANCE} a table entry holds"
	)]
	TooLong {
		/// The layer.
		dead: u32,
		/// The distance reached.
		distance: u32,
	},
	/// The solved table does not hold the movement phase's positions: a bug in the index.
	#[error(
		"the solved table has {up_to_symmetry} positions up to symmetry and {positions} in all, expected {POSITIONS_UP_TO_SYMMETRY} and {POSITIONS}"
	)]
	Counts {
		/// Canonical entries found.
		up_to_symmetry: u64,
		/// Positions counting images.
		positions: u64,
	},
}

/// Solves every layer on `threads` threads; returns the whole table's entries, with the values
/// of non-canonical entries copied from their canonical ones.
pub(crate) fn solve(
	threads: usize,
	progress: &(dyn Fn(SolveProgress) + Sync),
) -> Result<Vec<u8>, SolveError> {
	let layout = Layout::get();
	let total = 2 * u64::from(layout.len());
	let done = AtomicU64::new(0);
	let mut layers: Vec<Vec<u8>> = vec![Vec::new(); LAYERS];
	for layer in (0..LAYERS).rev() {
		let deeper = layers.get(layer + 1).map(Vec::as_slice);
		let report = |step: u64| {
			let now = done.fetch_add(step, Ordering::Relaxed) + step;
			progress(SolveProgress {
				done: now,
				total,
				dead: layer as u32,
			});
		};
		let solver = LayerSolver::new(layout, layer, threads.max(1));
		layers[layer] = solver.run(deeper, &report)?;
	}
	let mut values: Vec<u8> = layers.concat();
	copy_to_symmetric_entries(layout, &mut values, threads.max(1));
	Ok(values)
}

/// One layer's solve: its values and counters, and the positions decided at each distance.
struct LayerSolver<'a> {
	layout: &'a Layout,
	layer: usize,
	threads: usize,
	range: Range<u32>,
	/// Each entry's value as stored in the table; 0 while undecided.
	values: Vec<AtomicU8>,
	/// Each undecided entry's children not yet known to win for their mover.
	unrefuted: Vec<AtomicU8>,
}

/// What a thread gathers while starting a layer or working through a level.
#[derive(Default)]
struct Found {
	/// Entries decided at the next distance.
	next: Vec<u32>,
	/// With four dead: entries won at distance 1 by a capture, found while starting.
	won_at_once: Vec<u32>,
}

impl<'a> LayerSolver<'a> {
	fn new(layout: &'a Layout, layer: usize, threads: usize) -> LayerSolver<'a> {
		let range = layout.layer_range(layer);
		let len = range.len();
		LayerSolver {
			layout,
			layer,
			threads,
			range,
			values: (0..len).map(|_| AtomicU8::new(0)).collect(),
			unrefuted: (0..len).map(|_| AtomicU8::new(0)).collect(),
		}
	}

	/// Solves the layer, knowing the values of the layer below (`deeper`) if there is one;
	/// `report` hears of the work as it is done.
	fn run(
		self,
		deeper: Option<&[u8]>,
		report: &(dyn Fn(u64) + Sync),
	) -> Result<Vec<u8>, SolveError> {
		// 1. Start: counters, immediate losses and (with four dead) immediate wins.
		let levels = self.start(report);
		let below = deeper.map(|values| decided_by_distance(self.layout, self.layer + 1, values));

		// 2. Outwards, one distance at a time.
		let decided = self.outwards(levels, below.as_deref(), report)?;

		// 3. The rest are draws (or non-canonical entries, filled in at the end).
		report(self.range.len() as u64 - decided);
		Ok(self.values.into_iter().map(AtomicU8::into_inner).collect())
	}

	/// Step 1 on every entry; returns the entries decided by distance so far: those lost now
	/// (distance 0) and, with four dead, those won at once (distance 1).
	fn start(&self, report: &(dyn Fn(u64) + Sync)) -> Vec<Vec<u32>> {
		let started = parallel(
			self.threads,
			self.range.len(),
			|chunk, found: &mut Found| {
				for local in chunk.clone() {
					self.start_entry(self.range.start + local as u32, found);
				}
				report(chunk.len() as u64);
			},
		);
		let (lost_now, won_now) =
			started
				.into_iter()
				.fold((Vec::new(), Vec::new()), |(mut lost, mut won), found| {
					lost.extend(found.next);
					won.extend(found.won_at_once);
					(lost, won)
				});
		vec![lost_now, won_now]
	}

	/// Step 2: works out from `levels`, this layer's entries decided by distance, and from
	/// `below`, the next layer's (with the sheep to move), until no distance has positions
	/// left; returns how many of this layer's entries it decided, those in `levels` included.
	fn outwards(
		&self,
		mut levels: Vec<Vec<u32>>,
		below: Option<&[Vec<u32>]>,
		report: &(dyn Fn(u64) + Sync),
	) -> Result<u64, SolveError> {
		let mut decided = 0u64;
		let mut distance = 0usize;
		let below_levels = below.map_or(0, <[_]>::len);
		while distance < levels.len().max(below_levels) {
			let here = levels.get(distance).map_or(&[][..], Vec::as_slice);
			let there = below
				.and_then(|b| b.get(distance))
				.map_or(&[][..], Vec::as_slice);
			decided += here.len() as u64;
			if (here.len() + there.len()) > 0 && distance + 1 > MAX_DISTANCE as usize {
				return Err(SolveError::TooLong {
					dead: self.layer as u32,
					distance: distance as u32 + 1,
				});
			}
			let next = self.level(distance as u32, here, there, report);
			if !next.is_empty() {
				if levels.len() <= distance + 1 {
					levels.resize(distance + 2, Vec::new());
				}
				levels[distance + 1].extend(next);
			}
			if let Some(done) = levels.get_mut(distance) {
				*done = Vec::new(); // its memory is not needed again
			}
			distance += 1;
		}
		Ok(decided)
	}

	/// Counts a canonical entry's children, or decides it at once.
	fn start_entry(&self, index: u32, found: &mut Found) {
		let entry = self.layout.decode(index);
		if !self.layout.is_asymmetric(entry.class)
			&& self
				.layout
				.canonical_index(entry.tigers, entry.empty, entry.turn)
				!= index
		{
			return; // a copy of another entry's position
		}
		let mut children = Distinct::new();
		let mut captures_fifth = false;
		for_each_child(entry, |child| match child {
			Child::FifthCapture => captures_fifth = true,
			Child::Position(tigers, empty, turn) => {
				children.push(self.layout.canonical_index(tigers, empty, turn));
			}
		});
		let local = (index - self.range.start) as usize;
		if captures_fifth {
			self.values[local].store(encode_win(1), Ordering::Relaxed);
			found.won_at_once.push(index);
		} else if children.is_empty() {
			self.values[local].store(encode_loss(0), Ordering::Relaxed);
			found.next.push(index);
		} else {
			self.unrefuted[local].store(children.len() as u8, Ordering::Relaxed);
		}
	}

	/// Walks back from the positions decided at `distance` (this layer's, and the layer
	/// below's with the sheep to move) and returns the parents decided at `distance + 1`.
	/// Walks back from the positions decided at `distance` (this layer's `here`, the next
	/// layer's `below`), reporting `here`'s positions as they are done: a level can hold
	/// millions, and a bar that jumped before walking them would stand still meanwhile.
	fn level(
		&self,
		distance: u32,
		here: &[u32],
		below: &[u32],
		report: &(dyn Fn(u64) + Sync),
	) -> Vec<u32> {
		let child_lost = distance.is_multiple_of(2);
		let value = if child_lost {
			encode_win(distance + 1)
		} else {
			encode_loss(distance + 1)
		};
		let decide = |parent: u32, found: &mut Found| {
			let local = (parent - self.range.start) as usize;
			let decided = if child_lost {
				self.values[local]
					.compare_exchange(0, value, Ordering::Relaxed, Ordering::Relaxed)
					.is_ok()
			} else if self.values[local].load(Ordering::Relaxed) == 0 {
				let left = self.unrefuted[local].fetch_sub(1, Ordering::Relaxed);
				debug_assert!(left > 0, "more refuted children than children");
				if left == 1 {
					self.values[local].store(value, Ordering::Relaxed);
				}
				left == 1
			} else {
				false
			};
			if decided {
				found.next.push(parent);
			}
		};
		let found = parallel(
			self.threads,
			here.len() + below.len(),
			|chunk, found: &mut Found| {
				for i in chunk.clone() {
					let mut parents = Distinct::new();
					let add = |tigers, empty, turn| {
						parents.push(self.layout.canonical_index(tigers, empty, turn));
					};
					if i < here.len() {
						for_each_parent(self.layout.decode(here[i]), add);
					} else {
						for_each_capturing_parent(self.layout.decode(below[i - here.len()]), add);
					}
					for &parent in parents.as_slice() {
						decide(parent, found);
					}
				}
				let walked_here = chunk.start.min(here.len())..chunk.end.min(here.len());
				report(walked_here.len() as u64);
			},
		);
		found.into_iter().flat_map(|f| f.next).collect()
	}
}

/// A layer's canonical entries with the sheep to move, by distance (draws left out).
fn decided_by_distance(layout: &Layout, layer: usize, values: &[u8]) -> Vec<Vec<u32>> {
	let range = layout.layer_range(layer);
	// The sheep-to-move entries are the first half of each layer.
	let sheep_half = &values[..values.len() / 2];
	let mut levels: Vec<Vec<u32>> = Vec::new();
	for (local, &byte) in sheep_half.iter().enumerate() {
		if byte == 0 {
			continue;
		}
		let distance = usize::from(byte - 1);
		if levels.len() <= distance {
			levels.resize(distance + 1, Vec::new());
		}
		levels[distance].push(range.start + local as u32);
	}
	levels
}

/// Gives every non-canonical entry the value of its position's canonical entry.
fn copy_to_symmetric_entries(layout: &Layout, values: &mut [u8], threads: usize) {
	let copies: Vec<Vec<(u32, u8)>> = parallel(
		threads,
		values.len(),
		|chunk, copies: &mut Vec<(u32, u8)>| {
			for index in chunk {
				let entry = layout.decode(index as u32);
				if layout.is_asymmetric(entry.class) {
					continue;
				}
				let canonical = layout.canonical_index(entry.tigers, entry.empty, entry.turn);
				if canonical != index as u32 {
					copies.push((index as u32, values[canonical as usize]));
				}
			}
		},
	);
	for (index, value) in copies.into_iter().flatten() {
		values[index as usize] = value;
	}
}

/// A move's result, as the solve sees it.
pub(crate) enum Child {
	/// A position in the table: tigers, empty points, side to move.
	Position(u32, u32, Turn),
	/// A capture of the fifth sheep: the tigers have won.
	FifthCapture,
}

/// Calls `f` with the result of every legal move of an entry's position.
pub(crate) fn for_each_child(entry: Entry, mut f: impl FnMut(Child)) {
	let (tigers, empty, sheep) = (entry.tigers, entry.empty, entry.sheep());
	match entry.turn {
		Turn::Sheep => {
			for to in points(empty) {
				for from in points(NEIGHBOURS[to] & sheep) {
					let moved = bit(to) | bit(from);
					f(Child::Position(tigers, empty ^ moved, Turn::Tiger));
				}
			}
		}
		Turn::Tiger => {
			for from in points(tigers) {
				for to in points(NEIGHBOURS[from] & empty) {
					let moved = bit(to) | bit(from);
					f(Child::Position(tigers ^ moved, empty ^ moved, Turn::Sheep));
				}
				for line in JUMPS[from].as_slice() {
					if sheep & line.over.bit() == 0 || empty & line.land.bit() == 0 {
						continue;
					}
					if entry.layer == LAYERS - 1 {
						f(Child::FifthCapture);
					} else {
						let moved = bit(from) | line.land.bit();
						let empty = empty ^ moved ^ line.over.bit();
						f(Child::Position(tigers ^ moved, empty, Turn::Sheep));
					}
				}
			}
		}
	}
}

/// Calls `f` with every position of the same layer that has a move to this entry's position.
fn for_each_parent(entry: Entry, mut f: impl FnMut(u32, u32, Turn)) {
	let (tigers, empty, sheep) = (entry.tigers, entry.empty, entry.sheep());
	match entry.turn {
		// The sheep just stepped: one of them came from an empty neighbour.
		Turn::Tiger => {
			for was_at in points(empty) {
				for now_at in points(NEIGHBOURS[was_at] & sheep) {
					f(tigers, empty ^ bit(was_at) ^ bit(now_at), Turn::Sheep);
				}
			}
		}
		// A tiger just stepped, from an empty neighbour.
		Turn::Sheep => {
			for now_at in points(tigers) {
				for was_at in points(NEIGHBOURS[now_at] & empty) {
					let moved = bit(was_at) | bit(now_at);
					f(tigers ^ moved, empty ^ moved, Turn::Tiger);
				}
			}
		}
	}
}

/// Calls `f` with every position one layer up (one sheep fewer dead) whose tigers could have
/// reached this entry's position by a capture. The entry has the sheep to move.
fn for_each_capturing_parent(entry: Entry, mut f: impl FnMut(u32, u32, Turn)) {
	debug_assert_eq!(entry.turn, Turn::Sheep);
	let (tigers, empty) = (entry.tigers, entry.empty);
	for now_at in points(tigers) {
		// Jump lines run both ways: the tiger came from `land` over `over`.
		for line in JUMPS[now_at].as_slice() {
			let (over, was_at) = (line.over.bit(), line.land.bit());
			if empty & over != 0 && empty & was_at != 0 {
				let moved = bit(now_at) | was_at;
				f(tigers ^ moved, empty ^ moved ^ over, Turn::Tiger);
			}
		}
	}
}

#[inline]
fn bit(point: usize) -> u32 {
	1 << point
}

/// The points of a mask, as indices.
#[inline]
fn points(mut mask: u32) -> impl Iterator<Item = usize> {
	std::iter::from_fn(move || {
		if mask == 0 {
			return None;
		}
		let point = mask.trailing_zeros() as usize;
		mask &= mask - 1;
		Some(point)
	})
}

/// Up to 48 distinct entries, on the stack (no position has more moves).
struct Distinct {
	items: [u32; crate::movegen::MAX_MOVES],
	len: usize,
}

impl Distinct {
	fn new() -> Distinct {
		Distinct {
			items: [0; crate::movegen::MAX_MOVES],
			len: 0,
		}
	}

	#[inline]
	fn push(&mut self, item: u32) {
		if !self.as_slice().contains(&item) {
			self.items[self.len] = item;
			self.len += 1;
		}
	}

	fn is_empty(&self) -> bool {
		self.len == 0
	}

	fn len(&self) -> usize {
		self.len
	}

	fn as_slice(&self) -> &[u32] {
		&self.items[..self.len]
	}
}

/// Runs `work` over `0..len` in chunks on `threads` scoped threads, each with its own
/// accumulator; returns the accumulators.
pub(crate) fn parallel<T: Default + Send>(
	threads: usize,
	len: usize,
	work: impl Fn(Range<usize>, &mut T) + Sync,
) -> Vec<T> {
	let next = AtomicUsize::new(0);
	let run = || {
		let mut acc = T::default();
		loop {
			let start = next.fetch_add(CHUNK, Ordering::Relaxed);
			if start >= len {
				return acc;
			}
			work(start..(start + CHUNK).min(len), &mut acc);
		}
	};
	if threads <= 1 {
		return vec![run()];
	}
	std::thread::scope(|scope| {
		let handles: Vec<_> = (0..threads).map(|_| scope.spawn(run)).collect();
		handles
			.into_iter()
			.map(|h| h.join().expect("a solve thread panicked"))
			.collect()
	})
}
