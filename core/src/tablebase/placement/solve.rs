//! One layer's values from its child layer's, class block by class block.
//!
//! The work goes by blocks (one dead count, one tiger class), so that every lookup a block makes
//! stays in one or two small blocks of the child layer and in cache:
//!
//! - **Sheep to move.** A placement keeps the tigers, so every child of a block lies in the
//!   child layer's block of the same class and dead count (or, with 19 placed, in the movement
//!   table's). A position is won if some placement leaves the tigers lost, lost if every one
//!   leaves them won, and drawn otherwise; the first lost child ends the search.
//! - **Tigers to move.** A tiger move changes the class. The block is walked once per tiger
//!   move: for a fixed move the child's class and the symmetry that canonicalises it are fixed
//!   too, so a table made once per move maps the block's sheep sets onto the child block's
//!   (three lookups), and every lookup of that pass lands in one child block. Two bits per
//!   position gather what the moves found: some move leaves the sheep lost (a win), some move
//!   does not leave them won (at least a draw). No move at all is a loss.
//!
//! A block is written by one thread only (blocks start on whole bytes), so the threads share
//! nothing but the list of blocks left and the progress count, and the result does not depend
//! on their number.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::lines::{JUMPS, NEIGHBOURS};
use crate::moves::Turn;
use crate::pos::Pos;
use crate::tablebase::index::{FREE_POINTS, Layout, TIGER_CLASSES};
use crate::tablebase::placement::index::{
	ALL_FREE, LayerId, LayerShape, MAX_DEAD, colex_rank, sets_in_rank_order, sets_of, to_board_mask,
};
use crate::tablebase::placement::verdict::{DRAW, LOSS, WIN, code_at};
use crate::tablebase::table::Tablebase;
use crate::tablebase::value::{Value, decode_value};

/// Where a layer's moves lead.
#[derive(Clone, Copy)]
pub enum Children<'a> {
	/// Into the movement phase: the sheep to move with 19 placed.
	Movement(&'a Tablebase),
	/// Into another placement layer's values (its bytes, as [`solve_layer`] returns them).
	Layer(&'a [u8]),
}

/// How far a layer's solve has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerProgress {
	/// Entries decided.
	pub done: u64,
	/// The layer's entries.
	pub total: u64,
}

/// Classes in one slice of a layer: the unit of work a thread takes, of resuming, and of
/// the files a stopped solve keeps. 64 makes 27 slices per dead count, a few megabytes each in
/// the largest layers.
pub const SLICE_CLASSES: usize = 64;

/// One slice of a layer: a dead count and a run of classes, whose blocks are contiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
	/// Sheep dead.
	pub dead: u32,
	/// The first class.
	pub first_class: usize,
	/// One past the last class.
	pub end_class: usize,
}

impl Slice {
	/// Every slice of a layer, in the layer's byte order.
	pub fn all(id: LayerId) -> Vec<Slice> {
		(0..=id.max_dead())
			.flat_map(|dead| {
				(0..TIGER_CLASSES)
					.step_by(SLICE_CLASSES)
					.map(move |first_class| Slice {
						dead,
						first_class,
						end_class: (first_class + SLICE_CLASSES).min(TIGER_CLASSES),
					})
			})
			.collect()
	}

	/// The slice's bytes within its layer.
	pub fn bytes(&self, shape: &LayerShape) -> std::ops::Range<u64> {
		shape.block_start(self.dead, self.first_class)..shape.block_start(self.dead, self.end_class)
	}

	/// A name for its file: `slice-D-CCCC`.
	pub fn name(&self) -> String {
		format!("slice-{}-{:04}", self.dead, self.first_class)
	}

	/// Positions in the slice, in layer `id`.
	pub fn entries(&self, id: LayerId) -> u64 {
		slice_entries(id, *self)
	}

	/// Whether the slice lies in layer `id`: a dead count the layer has and a non-empty run of
	/// its classes. Any such run is solved by [`solve_one_slice`], not only those of
	/// [`Slice::all`], so that a part of a slice can be computed again to check it.
	pub fn is_in(&self, id: LayerId) -> bool {
		self.dead <= id.max_dead()
			&& self.first_class < self.end_class
			&& self.end_class <= TIGER_CLASSES
	}
}

/// Solves one slice of layer `id` alone, on this thread, from its children's values (as for
/// [`solve_layer`]): the slice's bytes, exactly those [`solve_layer`] writes at
/// [`Slice::bytes`]. This is the unit of work a cluster hands out.
pub fn solve_one_slice(id: LayerId, children: Children<'_>, slice: Slice) -> Vec<u8> {
	debug_assert!(slice.is_in(id));
	let range = slice.bytes(&LayerShape::of(id));
	let mut bytes = vec![0u8; (range.end - range.start) as usize];
	solve_slice(id, children, slice, &mut Scratch::default(), &mut bytes);
	bytes
}

/// Where a layer's finished slices are kept while it is solved, so that a stopped solve
/// resumes at the slices not yet done.
pub trait SliceStore: Sync {
	/// A finished slice's bytes, if it was kept whole.
	fn load(&self, slice: Slice, length: usize) -> Option<Vec<u8>>;
	/// Keeps a finished slice's bytes.
	fn save(&self, slice: Slice, bytes: &[u8]);
}

/// Keeps nothing: a solve that starts again starts from the beginning of the layer.
pub struct NoSlices;

impl SliceStore for NoSlices {
	fn load(&self, _: Slice, _: usize) -> Option<Vec<u8>> {
		None
	}

	fn save(&self, _: Slice, _: &[u8]) {}
}

/// Solves layer `id` on `threads` threads from its children's values, calling `progress` after
/// each slice. Returns the layer's bytes ([`LayerShape`]). `children` must be the movement table
/// for the sheep with 19 placed and the layer [`LayerId::child`] names otherwise. Slices that
/// `store` holds are taken from it; each slice solved is handed to it.
pub fn solve_layer(
	id: LayerId,
	children: Children<'_>,
	threads: usize,
	store: &dyn SliceStore,
	progress: &(dyn Fn(LayerProgress) + Sync),
) -> Vec<u8> {
	let shape = LayerShape::of(id);
	let mut out = vec![0u8; shape.bytes() as usize];
	let jobs = Mutex::new(slices(&shape, &mut out).into_iter());
	let done = AtomicU64::new(0);
	let total = shape.entries();
	std::thread::scope(|scope| {
		for _ in 0..threads.max(1) {
			scope.spawn(|| {
				let mut scratch = Scratch::default();
				loop {
					let next = jobs.lock().expect("no thread panics holding it").next();
					let Some((slice, bytes)) = next else {
						break;
					};
					match store.load(slice, bytes.len()) {
						Some(kept) => bytes.copy_from_slice(&kept),
						None => {
							solve_slice(id, children, slice, &mut scratch, bytes);
							store.save(slice, bytes);
						}
					}
					let entries = slice_entries(id, slice);
					let now = done.fetch_add(entries, Ordering::Relaxed) + entries;
					progress(LayerProgress { done: now, total });
				}
			});
		}
	});
	out
}

/// Positions in a slice.
fn slice_entries(id: LayerId, slice: Slice) -> u64 {
	u64::from(sets_of(id.sheep_on_board(slice.dead))) * (slice.end_class - slice.first_class) as u64
}

/// Solves one slice's blocks into `bytes`.
fn solve_slice(
	id: LayerId,
	children: Children<'_>,
	slice: Slice,
	scratch: &mut Scratch,
	bytes: &mut [u8],
) {
	let shape = LayerShape::of(id);
	let child_shape = id.child().map(LayerShape::of);
	let size = id.sheep_on_board(slice.dead);
	let block_bytes = (shape.block(slice.dead, 0).end - shape.block(slice.dead, 0).start) as usize;
	for (class, block) in (slice.first_class..slice.end_class).zip(bytes.chunks_mut(block_bytes)) {
		match (id.turn, children) {
			(Turn::Sheep, children) => {
				sheep_block(
					children,
					child_shape.as_ref(),
					slice.dead,
					class,
					size,
					block,
				);
			}
			(Turn::Tiger, Children::Layer(child)) => {
				let job = TigerBlock {
					child,
					child_shape: child_shape.as_ref().expect("tigers have a child"),
					dead: slice.dead,
					class,
					size,
				};
				job.solve(scratch, block);
			}
			(Turn::Tiger, Children::Movement(_)) => {
				unreachable!("the tigers' moves never lead into the movement phase")
			}
		}
	}
}

/// The layer's bytes cut into its slices.
fn slices<'a>(shape: &LayerShape, out: &'a mut [u8]) -> Vec<(Slice, &'a mut [u8])> {
	let mut slices = Vec::new();
	let mut rest = out;
	for slice in Slice::all(shape.id) {
		let range = slice.bytes(shape);
		let (bytes, tail) = rest.split_at_mut((range.end - range.start) as usize);
		slices.push((slice, bytes));
		rest = tail;
	}
	debug_assert!(rest.is_empty());
	slices
}

/// Sets entry `rank` of a block to `code`.
#[inline]
fn put(block: &mut [u8], rank: u32, code: u8) {
	let shift = 2 * (rank % 4);
	let byte = &mut block[(rank / 4) as usize];
	*byte = (*byte & !(3 << shift)) | code << shift;
}

/// The block of the sheep to move with `dead` dead, `size` sheep on the board, class `class`.
fn sheep_block(
	children: Children<'_>,
	child_shape: Option<&LayerShape>,
	dead: u32,
	class: usize,
	size: u32,
	block: &mut [u8],
) {
	block.fill(u8::MAX);
	let layout = Layout::get();
	let child_code = |set: u32| -> u8 {
		match children {
			Children::Layer(bytes) => {
				let start = child_shape
					.expect("a placement layer's shape")
					.block_start(dead, class);
				code_at(bytes, start, colex_rank(set))
			}
			Children::Movement(table) => {
				let empty = to_board_mask(layout, class, ALL_FREE & !set);
				let index = layout.index_in_class(class, empty, Turn::Tiger);
				match decode_value(table.values()[index as usize]) {
					Value::Win(_) => WIN,
					Value::Draw => DRAW,
					Value::Loss(_) => LOSS,
				}
			}
		}
	};
	for (rank, set) in sets_in_rank_order(size).enumerate() {
		// With sheep in hand there is always an empty point, so at least one child.
		let mut code = LOSS;
		let mut empty = ALL_FREE & !set;
		while empty != 0 {
			let point = empty & empty.wrapping_neg();
			empty ^= point;
			match child_code(set | point) {
				LOSS => {
					code = WIN;
					break;
				}
				DRAW => code = DRAW,
				_ => {}
			}
		}
		put(block, rank as u32, code);
	}
}

/// Scratch space a thread keeps between tiger blocks.
#[derive(Default)]
struct Scratch {
	/// Bit per entry: some move leaves the sheep lost.
	wins: Vec<u64>,
	/// Bit per entry: some move does not leave the sheep won.
	saved: Vec<u64>,
}

/// Maps a set of one class's free points onto another's, seven points at a time.
struct SetMap([[u32; 128]; 3]);

impl SetMap {
	/// The map that sends free point `i` to `image[i]` (a set of at most one point).
	fn new(image: &[u32; FREE_POINTS]) -> SetMap {
		let mut table = [[0u32; 128]; 3];
		for (chunk, rows) in table.iter_mut().enumerate() {
			for bits in 1..128usize {
				let low = bits.trailing_zeros() as usize;
				let point = chunk * 7 + low;
				let one = if point < FREE_POINTS { image[point] } else { 0 };
				rows[bits] = rows[bits & (bits - 1)] | one;
			}
		}
		SetMap(table)
	}

	#[inline]
	fn apply(&self, set: u32) -> u32 {
		self.0[0][(set & 127) as usize]
			| self.0[1][((set >> 7) & 127) as usize]
			| self.0[2][(set >> 14) as usize]
	}
}

/// One block of the tigers to move, and where its moves lead.
struct TigerBlock<'a> {
	/// The sheep-to-move layer with as many placed.
	child: &'a [u8],
	child_shape: &'a LayerShape,
	dead: u32,
	class: usize,
	size: u32,
}

impl TigerBlock<'_> {
	fn solve(&self, scratch: &mut Scratch, block: &mut [u8]) {
		let words = (sets_of(self.size) as usize).div_ceil(64);
		for bits in [&mut scratch.wins, &mut scratch.saved] {
			bits.clear();
			bits.resize(words, 0);
		}
		let layout = Layout::get();
		let tigers = layout.class_tigers(self.class);
		let mut from_points = tigers;
		while from_points != 0 {
			let from = from_points.trailing_zeros() as usize;
			from_points &= from_points - 1;
			let mut steps = NEIGHBOURS[from] & !tigers;
			while steps != 0 {
				let to = steps.trailing_zeros() as usize;
				steps &= steps - 1;
				self.step(scratch, from, to, None);
			}
			for line in JUMPS[from].as_slice() {
				if tigers & (line.over.bit() | line.land.bit()) == 0 {
					self.step(scratch, from, line.land.index(), Some(line.over.index()));
				}
			}
		}
		block.fill(u8::MAX);
		for rank in 0..sets_of(self.size) {
			let bit = |bits: &[u64]| bits[(rank / 64) as usize] >> (rank % 64) & 1 != 0;
			let code = if bit(&scratch.wins) {
				WIN
			} else if bit(&scratch.saved) {
				DRAW
			} else {
				LOSS
			};
			put(block, rank, code);
		}
	}

	/// One pass over the block for the tiger move `from` to `to`, over the sheep on `over` if
	/// it is a jump.
	fn step(&self, scratch: &mut Scratch, from: usize, to: usize, over: Option<usize>) {
		let layout = Layout::get();
		let free_rank = layout.free_rank(self.class);
		let must_be_empty = 1u32 << free_rank[to];
		let must_hold = over.map_or(0, |point| 1u32 << free_rank[point]);
		let mark = |bits: &mut Vec<u64>, rank: usize| bits[rank / 64] |= 1 << (rank % 64);
		if over.is_some() && self.dead == MAX_DEAD {
			// The fifth capture wins at once.
			for (rank, set) in sets_in_rank_order(self.size).enumerate() {
				if set & must_hold != 0 && set & must_be_empty == 0 {
					mark(&mut scratch.wins, rank);
				}
			}
			return;
		}
		let tigers = layout.class_tigers(self.class) ^ (1 << from) ^ (1 << to);
		let (child_class, symmetry) = layout.class_of(tigers);
		let child_rank = layout.free_rank(child_class);
		let mut image = [0u32; FREE_POINTS];
		for (i, &point) in layout.free_points(self.class).iter().enumerate() {
			let point = usize::from(point);
			if point != to && Some(point) != over {
				let pos = Pos::from_index(point).expect("a board point");
				image[i] = 1 << child_rank[symmetry.apply_pos(pos).index()];
			}
		}
		let map = SetMap::new(&image);
		let child_dead = self.dead + u32::from(over.is_some());
		let start = self.child_shape.block_start(child_dead, child_class);
		for (rank, set) in sets_in_rank_order(self.size).enumerate() {
			if set & must_be_empty != 0 || set & must_hold != must_hold {
				continue;
			}
			match code_at(self.child, start, colex_rank(map.apply(set))) {
				LOSS => {
					mark(&mut scratch.wins, rank);
					mark(&mut scratch.saved, rank);
				}
				DRAW => mark(&mut scratch.saved, rank),
				code => debug_assert!(code == WIN, "padding read as a position"),
			}
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn set_maps_move_each_point_to_its_image() {
		let mut image = [0u32; FREE_POINTS];
		for (i, slot) in image.iter_mut().enumerate() {
			*slot = 1 << ((i * 5) % FREE_POINTS);
		}
		image[3] = 0;
		let map = SetMap::new(&image);
		for set in [0u32, 1, 0b1000, ALL_FREE, 0x1_5555, 0x10_0001] {
			let expected = (0..FREE_POINTS)
				.filter(|i| set & (1 << i) != 0)
				.fold(0, |acc, i| acc | image[i]);
			assert_eq!(map.apply(set), expected);
		}
	}

	/// A child layer of made-up values (no padding code), the same on every call.
	fn made_up_layer(id: LayerId) -> Vec<u8> {
		let mut state = 0x9e37_79b9_u32;
		(0..LayerShape::of(id).bytes())
			.map(|_| {
				(0..4).fold(0u8, |byte, i| {
					state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
					byte | (((state >> 24) % 3) as u8) << (2 * i)
				})
			})
			.collect()
	}

	#[test]
	fn one_slice_alone_is_the_layers_bytes_at_its_place() {
		for turn in [Turn::Sheep, Turn::Tiger] {
			let id = LayerId::new(3, turn).expect("a layer");
			let child = made_up_layer(id.child().expect("a child layer"));
			let whole = solve_layer(id, Children::Layer(&child), 2, &NoSlices, &|_| {});
			let shape = LayerShape::of(id);
			for slice in Slice::all(id) {
				let range = slice.bytes(&shape);
				let alone = solve_one_slice(id, Children::Layer(&child), slice);
				assert_eq!(
					alone,
					whole[range.start as usize..range.end as usize],
					"{slice:?}"
				);
			}
			let part = Slice {
				dead: 1,
				first_class: 70,
				end_class: 71,
			};
			let range = part.bytes(&shape);
			assert!(part.is_in(id));
			assert_eq!(
				solve_one_slice(id, Children::Layer(&child), part),
				whole[range.start as usize..range.end as usize]
			);
		}
	}
}
