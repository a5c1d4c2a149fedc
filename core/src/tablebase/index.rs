//! Where each movement-phase position sits in the table.
//!
//! A movement-phase position is the tigers' mask, the empty points' mask (the sheep are all the
//! other points) and the side to move. With `d` sheep dead there are `d + 1` empty points, so the
//! table has five layers, one per number of dead sheep, and the empty points are a small set:
//!
//! - **Tigers by class.** The 12,650 sets of four tiger points fall into [`TIGER_CLASSES`]
//!   classes under the board's eight symmetries. Each class is stored once, under its least mask;
//!   a position is first turned by a symmetry that sends its tigers there.
//! - **Empty points by rank.** The `d + 1` empty points lie among the 21 points the class's
//!   tigers leave free; their colexicographic rank among the `C(21, d + 1)` such sets is the
//!   position's place inside its class.
//!
//! So an entry is `layer start + (side * classes + class) * C(21, d + 1) + rank`. A class whose
//! tigers are symmetric in themselves (a stabiliser larger than the identity) stores some
//! positions more than once, under each image; the least of those indices is the position's
//! *canonical* entry. The solve works on canonical entries only and copies their values into the
//! others at the end, so a probe may use whichever symmetry it finds first.

use std::sync::OnceLock;

use crate::board::BOARD_MASK;
use crate::moves::Turn;
use crate::symmetry::Symmetry;

/// Movement-phase positions up to the board's eight symmetries.
pub const POSITIONS_UP_TO_SYMMETRY: u64 = 88_260_972;
/// Movement-phase positions counting every symmetric image.
pub const POSITIONS: u64 = 705_743_500;

/// Layers of the table: one per number of dead sheep, 0 to 4.
pub const LAYERS: usize = 5;
/// Points left for sheep and empty points once the four tigers stand.
pub(crate) const FREE_POINTS: usize = 21;
/// Sets of four points among 25: `C(25, 4)`.
const TIGER_SETS: usize = 12_650;
/// Classes of tiger sets under the eight symmetries (Burnside's count, checked by a test).
pub const TIGER_CLASSES: usize = 1_666;

/// `BINOMIAL[n][k]` = n choose k, for n up to 25.
pub(crate) static BINOMIAL: [[u32; 26]; 26] = build_binomial();

/// `n` choose `k`.
#[inline]
fn binomial(n: usize, k: usize) -> u32 {
	BINOMIAL[n][k]
}

const fn build_binomial() -> [[u32; 26]; 26] {
	let mut table = [[0u32; 26]; 26];
	let mut n = 0;
	while n < 26 {
		table[n][0] = 1;
		let mut k = 1;
		while k <= n {
			table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
			k += 1;
		}
		n += 1;
	}
	table
}

/// One class of tiger sets: its least member and what a position needs to be ranked under it.
struct TigerClass {
	/// The class's least tiger mask, under which its positions are stored.
	tigers: u32,
	/// For each point, its place among the 21 free points (ascending), or 255 for a tiger.
	free_rank: [u8; 25],
	/// The free points in ascending order.
	free_points: [u8; FREE_POINTS],
	/// The symmetries that keep the class's mask in place, as a bit set (bit 0 = identity).
	stabiliser: u8,
}

/// A tiger set's class and the symmetries that send the set to the class's mask.
#[derive(Clone, Copy)]
struct ClassRef {
	class: u16,
	/// The symmetries (as a bit set) that map this tiger set onto the class's mask.
	symmetries: u8,
}

/// A decoded entry: the position an index stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
	/// The layer: how many sheep are dead.
	pub layer: usize,
	/// The side to move.
	pub turn: Turn,
	/// The tigers' mask (the class's least mask).
	pub tigers: u32,
	/// The empty points' mask.
	pub empty: u32,
	/// The tigers' class.
	pub class: usize,
}

impl Entry {
	/// The sheep's mask: every point neither a tiger nor empty.
	#[inline]
	pub fn sheep(self) -> u32 {
		BOARD_MASK & !(self.tigers | self.empty)
	}
}

/// The index: tiger classes, their lookup by tiger set, and where each layer starts.
pub(crate) struct Layout {
	classes: Vec<TigerClass>,
	by_tiger_set: Vec<ClassRef>,
	/// Entries before each layer; the last is the table's length.
	layer_start: [u32; LAYERS + 1],
}

impl Layout {
	/// The one layout, built on first use (a few milliseconds).
	pub fn get() -> &'static Layout {
		static LAYOUT: OnceLock<Layout> = OnceLock::new();
		LAYOUT.get_or_init(Layout::build)
	}

	fn build() -> Layout {
		let mut least_of = vec![0u32; TIGER_SETS];
		let mut masks = Vec::with_capacity(TIGER_SETS);
		for_each_subset(25, 4, |mask| masks.push(mask));
		debug_assert_eq!(masks.len(), TIGER_SETS);
		for &mask in &masks {
			let least = Symmetry::ALL
				.iter()
				.map(|s| s.apply_mask(mask))
				.min()
				.expect("eight symmetries");
			least_of[tiger_set_rank(mask)] = least;
		}
		let mut class_masks: Vec<u32> = least_of.clone();
		class_masks.sort_unstable();
		class_masks.dedup();
		let classes: Vec<TigerClass> = class_masks.iter().map(|&m| TigerClass::new(m)).collect();
		let by_tiger_set = masks_by_rank(&masks)
			.into_iter()
			.map(|mask| {
				let least = least_of[tiger_set_rank(mask)];
				let class = class_masks
					.binary_search(&least)
					.expect("every least mask is a class");
				ClassRef {
					class: class as u16,
					symmetries: symmetry_set(|s| s.apply_mask(mask) == least),
				}
			})
			.collect();
		let mut layer_start = [0u32; LAYERS + 1];
		for layer in 0..LAYERS {
			layer_start[layer + 1] = layer_start[layer] + 2 * (classes.len() as u32) * ranks(layer);
		}
		Layout {
			classes,
			by_tiger_set,
			layer_start,
		}
	}

	/// How many tiger classes there are.
	pub fn class_count(&self) -> usize {
		self.classes.len()
	}

	/// Entries in the whole table.
	pub fn len(&self) -> u32 {
		self.layer_start[LAYERS]
	}

	/// The indices of one layer.
	pub fn layer_range(&self, layer: usize) -> std::ops::Range<u32> {
		self.layer_start[layer]..self.layer_start[layer + 1]
	}

	/// The entry holding a position's value, through the first symmetry that places its tigers.
	/// The caller guarantees a movement-phase position: four tigers, 1 to 5 empty points.
	#[inline]
	pub fn index(&self, tigers: u32, empty: u32, turn: Turn) -> u32 {
		let class_ref = self.by_tiger_set[tiger_set_rank(tigers)];
		let sym = Symmetry::ALL[class_ref.symmetries.trailing_zeros() as usize];
		self.index_in_class(class_ref.class as usize, sym.apply_mask(empty), turn)
	}

	/// The position's canonical entry: the least of the entries its symmetric images have.
	#[inline]
	pub fn canonical_index(&self, tigers: u32, empty: u32, turn: Turn) -> u32 {
		let class_ref = self.by_tiger_set[tiger_set_rank(tigers)];
		let class = class_ref.class as usize;
		let mut symmetries = class_ref.symmetries;
		let mut best = u32::MAX;
		while symmetries != 0 {
			let sym = Symmetry::ALL[symmetries.trailing_zeros() as usize];
			symmetries &= symmetries - 1;
			best = best.min(self.index_in_class(class, sym.apply_mask(empty), turn));
		}
		best
	}

	/// The entry of a position whose tigers already stand on class `class`'s mask.
	#[inline]
	pub(crate) fn index_in_class(&self, class: usize, empty: u32, turn: Turn) -> u32 {
		let layer = empty.count_ones() as usize - 1;
		debug_assert!(layer < LAYERS && empty & self.classes[class].tigers == 0);
		let free_rank = &self.classes[class].free_rank;
		let mut rank = 0;
		let mut rest = empty;
		let mut k = 1;
		while rest != 0 {
			let point = rest.trailing_zeros() as usize;
			rest &= rest - 1;
			rank += BINOMIAL[free_rank[point] as usize][k];
			k += 1;
		}
		let side = turn_number(turn) * self.classes.len() as u32;
		self.layer_start[layer] + (side + class as u32) * ranks(layer) + rank
	}

	/// The position an index stands for (the stored image, not always the canonical one).
	pub fn decode(&self, index: u32) -> Entry {
		let layer = (0..LAYERS)
			.find(|&l| index < self.layer_start[l + 1])
			.expect("index inside the table");
		let local = index - self.layer_start[layer];
		let per_class = ranks(layer);
		let (slot, mut rank) = (local / per_class, local % per_class);
		let classes = self.classes.len() as u32;
		let turn = if slot >= classes {
			Turn::Tiger
		} else {
			Turn::Sheep
		};
		let class_number = (slot % classes) as usize;
		let class = &self.classes[class_number];
		let mut empty = 0;
		for k in (1..=layer + 1).rev() {
			// The largest free place f with C(f, k) <= rank is the k-th empty point's place.
			let mut place = FREE_POINTS - 1;
			while BINOMIAL[place][k] > rank {
				place -= 1;
			}
			rank -= BINOMIAL[place][k];
			empty |= 1 << class.free_points[place];
		}
		Entry {
			layer,
			turn,
			tigers: class.tigers,
			empty,
			class: class_number,
		}
	}

	/// Whether an index is its position's canonical entry, and if so how many of the eight
	/// symmetries leave the position unchanged.
	pub fn stabiliser_size(&self, index: u32) -> Option<u32> {
		let entry = self.decode(index);
		let class = entry.class;
		let stabiliser = self.classes[class].stabiliser;
		if stabiliser == 1 {
			return Some(1);
		}
		let mut size = 0;
		for sym in Symmetry::ALL {
			if stabiliser & (1 << sym.index()) == 0 {
				continue;
			}
			let image = self.index_in_class(class, sym.apply_mask(entry.empty), entry.turn);
			if image < index {
				return None;
			}
			size += u32::from(image == index);
		}
		Some(size)
	}

	/// The layer's entries in blocks of one side to move and one tiger class, in table order:
	/// `(turn, class, indices)`.
	pub fn blocks(
		&self,
		layer: usize,
	) -> impl Iterator<Item = (Turn, usize, std::ops::Range<u32>)> {
		let per_class = ranks(layer);
		let start = self.layer_start[layer];
		let classes = self.classes.len();
		(0..2 * classes).map(move |slot| {
			let turn = if slot < classes {
				Turn::Sheep
			} else {
				Turn::Tiger
			};
			let first = start + slot as u32 * per_class;
			(turn, slot % classes, first..first + per_class)
		})
	}

	/// The class of a set of four tiger points, and the first symmetry that sends the set onto
	/// the class's mask.
	#[inline]
	pub(crate) fn class_of(&self, tigers: u32) -> (usize, Symmetry) {
		let class_ref = self.by_tiger_set[tiger_set_rank(tigers)];
		let sym = Symmetry::ALL[class_ref.symmetries.trailing_zeros() as usize];
		(class_ref.class as usize, sym)
	}

	/// The class's least tiger mask.
	#[inline]
	pub(crate) fn class_tigers(&self, class: usize) -> u32 {
		self.classes[class].tigers
	}

	/// The 21 points the class's tigers leave free, in ascending order.
	#[inline]
	pub(crate) fn free_points(&self, class: usize) -> &[u8; FREE_POINTS] {
		&self.classes[class].free_points
	}

	/// For each point, its place among the class's free points (255 for a tiger).
	#[inline]
	pub(crate) fn free_rank(&self, class: usize) -> &[u8; 25] {
		&self.classes[class].free_rank
	}

	/// The symmetries that keep the class's mask in place, as a bit set (bit 0 = identity).
	#[inline]
	pub(crate) fn stabiliser(&self, class: usize) -> u8 {
		self.classes[class].stabiliser
	}

	/// Whether the class's tigers have no symmetry but the identity, so that each of its
	/// positions has one entry only, which is canonical.
	pub fn is_asymmetric(&self, class: usize) -> bool {
		self.classes[class].stabiliser == 1
	}
}

impl TigerClass {
	fn new(tigers: u32) -> TigerClass {
		let mut free_rank = [u8::MAX; 25];
		let mut free_points = [0u8; FREE_POINTS];
		let free = (0..25u8).filter(|point| tigers & (1 << point) == 0);
		for (rank, point) in free.enumerate() {
			free_rank[point as usize] = rank as u8;
			free_points[rank] = point;
		}
		TigerClass {
			tigers,
			free_rank,
			free_points,
			stabiliser: symmetry_set(|s| s.apply_mask(tigers) == tigers),
		}
	}
}

/// Sets of `layer + 1` empty points among the 21 free ones.
#[inline]
fn ranks(layer: usize) -> u32 {
	BINOMIAL[FREE_POINTS][layer + 1]
}

#[inline]
fn turn_number(turn: Turn) -> u32 {
	match turn {
		Turn::Sheep => 0,
		Turn::Tiger => 1,
	}
}

/// The colexicographic rank of a set of four points among all such sets.
#[inline]
fn tiger_set_rank(mut tigers: u32) -> usize {
	debug_assert_eq!(tigers.count_ones(), 4);
	let mut rank = 0;
	for k in 1..=4 {
		let point = tigers.trailing_zeros() as usize;
		tigers &= tigers - 1;
		rank += binomial(point, k) as usize;
	}
	rank
}

/// The symmetries for which `keep` holds, as a bit set.
fn symmetry_set(keep: impl Fn(Symmetry) -> bool) -> u8 {
	Symmetry::ALL
		.iter()
		.filter(|s| keep(**s))
		.fold(0, |set, s| set | 1 << s.index())
}

/// The masks again, placed at their ranks.
fn masks_by_rank(masks: &[u32]) -> Vec<u32> {
	let mut by_rank = vec![0u32; masks.len()];
	for &mask in masks {
		by_rank[tiger_set_rank(mask)] = mask;
	}
	by_rank
}

/// Calls `f` with every mask of `k` points among the first `n`.
fn for_each_subset(n: u32, k: u32, mut f: impl FnMut(u32)) {
	fn go(start: u32, n: u32, k: u32, mask: u32, f: &mut dyn FnMut(u32)) {
		if k == 0 {
			f(mask);
			return;
		}
		for point in start..=n - k {
			go(point + 1, n, k - 1, mask | 1 << point, f);
		}
	}
	go(0, n, k, 0, &mut f);
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn tiger_classes_are_burnsides_count() {
		// Burnside: the average over the eight symmetries of the 4-sets each leaves in place.
		let mut fixed = 0;
		for sym in Symmetry::ALL {
			for_each_subset(25, 4, |mask| {
				fixed += u32::from(sym.apply_mask(mask) == mask);
			});
		}
		assert_eq!(fixed % 8, 0);
		assert_eq!(fixed as usize / 8, TIGER_CLASSES);
		assert_eq!(Layout::get().class_count(), TIGER_CLASSES);
	}

	#[test]
	fn tiger_ranks_are_a_bijection() {
		let mut seen = vec![false; TIGER_SETS];
		for_each_subset(25, 4, |mask| {
			let rank = tiger_set_rank(mask);
			assert!(!seen[rank]);
			seen[rank] = true;
		});
		assert!(seen.iter().all(|s| *s));
	}

	#[test]
	fn layers_have_the_expected_sizes() {
		let layout = Layout::get();
		let per_class: [u32; LAYERS] = [21, 210, 1330, 5985, 20349];
		for (layer, n) in per_class.iter().enumerate() {
			assert_eq!(
				layout.layer_range(layer).len() as u32,
				2 * TIGER_CLASSES as u32 * n
			);
		}
		assert_eq!(layout.len(), 2 * TIGER_CLASSES as u32 * 27_895);
	}

	#[test]
	fn decode_inverts_index_in_every_layer() {
		let layout = Layout::get();
		for layer in 0..LAYERS {
			// Every 997th entry: all classes and ranks are reached over the layers.
			for index in layout.layer_range(layer).step_by(997) {
				let entry = layout.decode(index);
				assert_eq!(entry.layer, layer);
				assert_eq!(entry.empty.count_ones() as usize, layer + 1);
				assert_eq!(entry.empty & entry.tigers, 0);
				assert_eq!(
					layout.index_in_class(entry.class, entry.empty, entry.turn),
					index
				);
			}
		}
	}

	#[test]
	fn symmetric_images_share_the_canonical_entry() {
		let layout = Layout::get();
		for index in layout.layer_range(2).step_by(1009) {
			let entry = layout.decode(index);
			let canonical = layout.canonical_index(entry.tigers, entry.empty, entry.turn);
			for sym in Symmetry::ALL {
				let (tigers, empty) = (sym.apply_mask(entry.tigers), sym.apply_mask(entry.empty));
				assert_eq!(layout.canonical_index(tigers, empty, entry.turn), canonical);
				// The probe's entry is one of the position's images.
				let probe = layout.decode(layout.index(tigers, empty, entry.turn));
				assert_eq!(
					layout.canonical_index(probe.tigers, probe.empty, probe.turn),
					canonical
				);
			}
		}
	}
}
