//! Counting placement layers: positions up to symmetry, and wins, draws and losses for the side
//! to move by dead sheep.
//!
//! A position is counted once per set of symmetric images: in a class whose tigers have no
//! symmetry every entry is its own; in the others an entry counts only if no image under the
//! class's symmetries has a smaller rank.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::symmetry::Symmetry;
use crate::tablebase::Wdl;
use crate::tablebase::index::{Layout, TIGER_CLASSES};
use crate::tablebase::placement::index::{
	LayerId, LayerShape, MAX_DEAD, colex_rank, sets_in_rank_order, sets_of, to_board_mask,
	to_free_set,
};
use crate::tablebase::placement::verdict::{DRAW, LOSS, WIN, code_at};

/// One layer counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerCount {
	/// The layer.
	pub id: LayerId,
	/// Wins, draws and losses for the side to move, up to symmetry, by dead sheep (0 to 4).
	pub by_dead: [Wdl; MAX_DEAD as usize + 1],
}

impl LayerCount {
	/// The layer's positions up to symmetry.
	pub fn up_to_symmetry(&self) -> u64 {
		self.by_dead.iter().map(Wdl::total).sum()
	}

	/// Wins, draws and losses over every dead count.
	pub fn total(&self) -> Wdl {
		self.by_dead.iter().fold(Wdl::default(), |sum, wdl| Wdl {
			wins: sum.wins + wdl.wins,
			draws: sum.draws + wdl.draws,
			losses: sum.losses + wdl.losses,
		})
	}
}

/// Whether the entry `rank` (sheep `set`) of `class` is the least of its symmetric images.
#[inline]
pub(crate) fn is_canonical(layout: &Layout, class: usize, set: u32, rank: u32) -> bool {
	let stabiliser = layout.stabiliser(class);
	if stabiliser == 1 {
		return true;
	}
	let sheep = to_board_mask(layout, class, set);
	Symmetry::ALL[1..]
		.iter()
		.filter(|sym| stabiliser & (1 << sym.index()) != 0)
		.all(|sym| colex_rank(to_free_set(layout, class, sym.apply_mask(sheep))) >= rank)
}

/// Positions up to symmetry with `sheep` sheep on the board and the side to move given: the
/// canonical entries of one dead count's blocks, counted from the index alone.
pub fn count_up_to_symmetry(sheep: u32) -> u64 {
	let layout = Layout::get();
	(0..TIGER_CLASSES)
		.map(|class| {
			if layout.stabiliser(class) == 1 {
				u64::from(sets_of(sheep))
			} else {
				sets_in_rank_order(sheep)
					.enumerate()
					.filter(|(rank, set)| is_canonical(layout, class, *set, *rank as u32))
					.count() as u64
			}
		})
		.sum()
}

/// Counts a layer's values (its bytes, as solved or read).
pub fn count_layer(id: LayerId, bytes: &[u8]) -> LayerCount {
	count_layer_on(id, bytes, 1)
}

/// As [`count_layer`], on `threads` scoped threads, each taking the next block (one dead count
/// and tiger class) as it finishes one; the counts do not depend on the threads.
pub fn count_layer_on(id: LayerId, bytes: &[u8], threads: usize) -> LayerCount {
	let layout = Layout::get();
	let shape = LayerShape::of(id);
	let blocks: Vec<(u32, usize)> = (0..=id.max_dead())
		.flat_map(|dead| (0..TIGER_CLASSES).map(move |class| (dead, class)))
		.collect();
	let next = AtomicUsize::new(0);
	let count = || {
		let mut by_dead = [Wdl::default(); MAX_DEAD as usize + 1];
		while let Some(&(dead, class)) = blocks.get(next.fetch_add(1, Ordering::Relaxed)) {
			let wdl = &mut by_dead[dead as usize];
			let start = shape.block_start(dead, class);
			let symmetric = layout.stabiliser(class) != 1;
			for (rank, set) in sets_in_rank_order(id.sheep_on_board(dead)).enumerate() {
				let rank = rank as u32;
				if symmetric && !is_canonical(layout, class, set, rank) {
					continue;
				}
				match code_at(bytes, start, rank) {
					WIN => wdl.wins += 1,
					DRAW => wdl.draws += 1,
					LOSS => wdl.losses += 1,
					_ => {}
				}
			}
		}
		by_dead
	};
	let parts: Vec<_> = std::thread::scope(|scope| {
		let others: Vec<_> = (1..threads.max(1)).map(|_| scope.spawn(count)).collect();
		let mut parts = vec![count()];
		parts.extend(
			others
				.into_iter()
				.map(|h| h.join().expect("a count thread")),
		);
		parts
	});
	let mut by_dead = [Wdl::default(); MAX_DEAD as usize + 1];
	for part in parts {
		for (sum, wdl) in by_dead.iter_mut().zip(part) {
			sum.wins += wdl.wins;
			sum.draws += wdl.draws;
			sum.losses += wdl.losses;
		}
	}
	LayerCount { id, by_dead }
}

#[cfg(test)]
mod tests {
	use super::*;

	/// Burnside's lemma, apart from the index: orbits of (four tigers, `sheep` sheep) under the
	/// eight symmetries are the average number of such placements each symmetry leaves alone.
	/// A symmetry fixes a placement when each of its cycles of points is all tigers, all sheep or
	/// all empty, so the count is a coefficient of the product over cycles of
	/// `1 + t^len + s^len`.
	fn burnside(sheep: usize) -> u64 {
		let mut fixed_total = 0u64;
		for sym in Symmetry::ALL {
			let mut seen = 0u32;
			// coefficients[t][s]
			let mut poly = vec![vec![0u64; 26]; 5];
			poly[0][0] = 1;
			for start in 0..25u32 {
				if seen & (1 << start) != 0 {
					continue;
				}
				let mut len = 0;
				let mut point = 1u32 << start;
				while seen & point == 0 {
					seen |= point;
					len += 1;
					point = sym.apply_mask(point);
				}
				let mut next = vec![vec![0u64; 26]; 5];
				for t in 0..5 {
					for s in 0..26 {
						let c = poly[t][s];
						if c == 0 {
							continue;
						}
						next[t][s] += c;
						if t + len < 5 {
							next[t + len][s] += c;
						}
						if s + len < 26 {
							next[t][s + len] += c;
						}
					}
				}
				poly = next;
			}
			fixed_total += poly[4][sheep];
		}
		assert_eq!(fixed_total % 8, 0);
		fixed_total / 8
	}

	#[test]
	fn canonical_entries_are_burnsides_count() {
		for sheep in [0, 1, 2, 3, 9, 15, 19, 20] {
			assert_eq!(
				count_up_to_symmetry(sheep as u32),
				burnside(sheep),
				"{sheep} sheep"
			);
		}
	}

	#[test]
	fn the_whole_placement_phase_is_33_billion_positions_up_to_symmetry() {
		let mut total = 0u64;
		for id in LayerId::solve_order(0) {
			for dead in 0..=id.max_dead() {
				total += burnside(id.sheep_on_board(dead) as usize);
			}
		}
		assert_eq!(total, 33_047_419_414);
	}
}
