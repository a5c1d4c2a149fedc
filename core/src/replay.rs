//! `ReplayWindow`: the most recent self-play samples, which training draws mini-batches from.
//!
//! Each sample may be trained on at most `max_uses` times, so training cannot run far ahead of
//! the games that feed it: once every sample in the window is used up, no batch can be drawn
//! until new samples arrive. Old samples leave the window when it is full.

use std::collections::VecDeque;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::network::train::TrainingExample;
use crate::selfplay::Sample;
use crate::symmetry::Symmetry;
use crate::tablebase::Tablebase;

/// How training turns samples into examples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetSettings {
	/// How much of the target is the game's result; the rest is the search's score.
	pub result_weight: f32,
	/// Which symmetric image of each board to train on.
	pub augmentation: Augmentation,
	/// Whether movement-phase samples train towards the tablebase's exact result (when the
	/// trainer has a table; see [`Sample::target_with`]).
	pub rescore: bool,
}

impl Default for TargetSettings {
	/// Half result, half search score; a random symmetric image per example (see
	/// [`Augmentation`]); rescoring with the tablebase when there is one.
	fn default() -> TargetSettings {
		TargetSettings {
			result_weight: 0.5,
			augmentation: Augmentation::RandomSymmetry,
			rescore: true,
		}
	}
}

/// Which of a board's eight symmetric images an example shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Augmentation {
	/// The canonical image only. The search shows the net boards as they stand, in any of
	/// their images, so a net trained this way meets images in play that it never trained on;
	/// it trained worse even when the search showed canonical boards (docs/training.md).
	Canonical,
	/// One of the eight images drawn at random per example: the net sees eight times as many
	/// distinct inputs, which regularises it; this trained better (docs/training.md).
	RandomSymmetry,
}

/// The last `capacity` samples, with how often each has been trained on.
#[derive(Clone, Debug)]
pub struct ReplayWindow {
	capacity: usize,
	max_uses: u32,
	samples: VecDeque<(Sample, u32)>,
	/// Positions in `samples` of samples not yet used up, possibly stale (see `draw_batch`).
	fresh: Vec<u64>,
	/// How many samples were ever added; the id of the front sample is `added - len`.
	added: u64,
	/// Uses left over all samples in the window.
	uses_left: u64,
	/// What became of the samples that left the window.
	departed: Departed,
}

/// What became of the samples that left a window (pushed out by newer ones) over its life:
/// how many left, how many of those were never drawn, and their draws added up. Samples still
/// in the window are not counted: they may yet be drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Departed {
	/// Samples that left the window.
	pub samples: u64,
	/// Of those, the ones never drawn for training.
	pub unused: u64,
	/// Their draws, added up.
	pub uses: u64,
}

impl Departed {
	/// The counts since `earlier`, a value this one grew from.
	pub fn since(&self, earlier: &Departed) -> Departed {
		Departed {
			samples: self.samples.saturating_sub(earlier.samples),
			unused: self.unused.saturating_sub(earlier.unused),
			uses: self.uses.saturating_sub(earlier.uses),
		}
	}

	/// The share (0 to 1) of the departed samples that were drawn at least once; `None` if none
	/// departed.
	pub fn trained_share(&self) -> Option<f64> {
		(self.samples > 0).then(|| (self.samples - self.unused) as f64 / self.samples as f64)
	}

	/// The mean number of draws of a departed sample; `None` if none departed.
	pub fn mean_uses(&self) -> Option<f64> {
		(self.samples > 0).then(|| self.uses as f64 / self.samples as f64)
	}
}

impl ReplayWindow {
	/// An empty window of `capacity` samples, each usable `max_uses` times.
	pub fn new(capacity: usize, max_uses: u32) -> ReplayWindow {
		ReplayWindow {
			capacity: capacity.max(1),
			max_uses: max_uses.max(1),
			samples: VecDeque::with_capacity(capacity.min(1 << 20)),
			fresh: Vec::new(),
			added: 0,
			uses_left: 0,
			departed: Departed::default(),
		}
	}

	/// Samples in the window.
	pub fn len(&self) -> usize {
		self.samples.len()
	}

	/// Whether the window is empty.
	pub fn is_empty(&self) -> bool {
		self.samples.is_empty()
	}

	/// The most samples the window holds.
	pub fn capacity(&self) -> usize {
		self.capacity
	}

	/// How many samples were ever added.
	pub fn total_added(&self) -> u64 {
		self.added
	}

	/// What became of the samples that have left the window so far.
	pub fn departed(&self) -> Departed {
		self.departed
	}

	/// The samples with their use counts, oldest first.
	pub fn iter(&self) -> impl Iterator<Item = &(Sample, u32)> {
		self.samples.iter()
	}

	/// Changes the most samples the window holds (at least 1); a smaller window drops its
	/// oldest samples at once, counted as departed.
	pub fn set_capacity(&mut self, capacity: usize) {
		self.capacity = capacity.max(1);
		while self.samples.len() > self.capacity {
			self.evict_oldest();
		}
	}

	/// Drops the oldest sample, counting what became of it.
	fn evict_oldest(&mut self) {
		if let Some((_, evicted_uses)) = self.samples.pop_front() {
			self.uses_left -= u64::from(self.max_uses.saturating_sub(evicted_uses));
			self.departed.samples += 1;
			self.departed.unused += u64::from(evicted_uses == 0);
			self.departed.uses += u64::from(evicted_uses);
		}
	}

	/// Adds a sample, dropping the oldest if the window is full.
	pub fn push(&mut self, sample: Sample) {
		self.push_with_uses(sample, 0);
	}

	/// Adds a sample that has already been used `uses` times (when restoring a saved window).
	pub fn push_with_uses(&mut self, sample: Sample, uses: u32) {
		if self.samples.len() == self.capacity {
			self.evict_oldest();
		}
		self.samples.push_back((sample, uses));
		self.uses_left += u64::from(self.max_uses.saturating_sub(uses));
		if uses < self.max_uses {
			self.fresh.push(self.added);
		}
		self.added += 1;
	}

	fn front_id(&self) -> u64 {
		self.added - self.samples.len() as u64
	}

	/// How many more draws the window can give before new samples are needed.
	pub fn uses_left(&self) -> u64 {
		self.uses_left
	}

	/// Draws `size` examples, with replacement, uniformly from the samples not yet used up,
	/// counting a use for each draw; `None` (and nothing counted) if fewer than `size` draws
	/// are left. `tablebase` rescores movement-phase targets if `targets.rescore` says so.
	pub fn draw_batch(
		&mut self,
		size: usize,
		targets: &TargetSettings,
		tablebase: Option<&Tablebase>,
		rng: &mut Xoshiro256PlusPlus,
	) -> Option<Vec<TrainingExample>> {
		let rescore_with = tablebase.filter(|_| targets.rescore);
		if self.uses_left < size as u64 || size == 0 {
			return None;
		}
		self.prune_fresh();
		let mut batch = Vec::with_capacity(size);
		while batch.len() < size {
			let slot = rng.random_range(0..self.fresh.len());
			let id = self.fresh[slot];
			// An id whose sample has left the window is dropped when drawn, and the draw made
			// again: the draws stay uniform over the samples still fresh.
			let Some(index) = id.checked_sub(self.front_id()) else {
				self.fresh.swap_remove(slot);
				continue;
			};
			let index = index as usize;
			let (sample, uses) = &mut self.samples[index];
			*uses += 1;
			self.uses_left -= 1;
			let board = match targets.augmentation {
				Augmentation::Canonical => sample.board.canonical().0,
				Augmentation::RandomSymmetry => {
					Symmetry::ALL[rng.random_range(0..8)].apply_board(sample.board)
				}
			};
			batch.push(TrainingExample {
				board,
				turn: sample.turn,
				target: sample.target_with(targets.result_weight, rescore_with),
			});
			if *uses >= self.max_uses {
				self.fresh.swap_remove(slot);
			}
			if self.fresh.is_empty() {
				break;
			}
		}
		Some(batch)
	}

	/// Drops the ids of samples that left the window once they are as many as the window's
	/// samples, so that the list stays within twice the window while each draw costs O(1)
	/// amortised. A scan per draw was about half of `draw_batch`'s time, itself a sixth of a
	/// training step's (`perf` on train-bench, docs/benchmarks.md).
	fn prune_fresh(&mut self) {
		if self.fresh.len() > 2 * self.samples.len() {
			let front = self.front_id();
			self.fresh.retain(|id| *id >= front);
		}
	}
}

#[cfg(test)]
mod tests {
	use rand::SeedableRng;

	use super::*;
	use crate::board::GameBoard;
	use crate::moves::Turn;

	fn sample(ply: u32) -> Sample {
		Sample {
			board: GameBoard::default(),
			turn: Turn::Sheep,
			score: 0.0,
			result: 1.0,
			ply,
			generation: 0,
		}
	}

	#[test]
	fn the_defaults_are_the_documented_ones() {
		// docs/training.md: half result, half score, random symmetric images, rescoring.
		let targets = TargetSettings::default();
		assert_eq!(targets.result_weight, 0.5);
		assert_eq!(targets.augmentation, Augmentation::RandomSymmetry);
		assert!(targets.rescore);
	}

	#[test]
	fn the_window_keeps_the_most_recent_samples() {
		let mut window = ReplayWindow::new(3, 2);
		for ply in 0..5 {
			window.push(sample(ply));
		}
		assert_eq!(window.len(), 3);
		assert_eq!(window.total_added(), 5);
		let plies: Vec<u32> = window.iter().map(|(s, _)| s.ply).collect();
		assert_eq!(plies, [2, 3, 4]);
	}

	#[test]
	fn each_sample_is_used_at_most_max_uses_times() {
		let mut window = ReplayWindow::new(10, 3);
		for ply in 0..10 {
			window.push(sample(ply));
		}
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
		let targets = TargetSettings::default();
		let mut drawn = 0;
		while let Some(batch) = window.draw_batch(4, &targets, None, &mut rng) {
			drawn += batch.len();
		}
		// 30 uses in all: seven batches of 4, then two uses are left, too few for a batch.
		assert_eq!(drawn, 28);
		assert_eq!(window.uses_left(), 2);
		assert!(window.iter().all(|(_, uses)| *uses <= 3));
		window.push(sample(10));
		assert!(
			window.draw_batch(1, &targets, None, &mut rng).is_some(),
			"a new sample can be drawn"
		);
	}

	#[test]
	fn a_window_grows_to_keep_more_and_shrinks_by_its_oldest() {
		let mut window = ReplayWindow::new(3, 2);
		for ply in 0..3 {
			window.push(sample(ply));
		}
		window.set_capacity(5);
		for ply in 3..5 {
			window.push(sample(ply));
		}
		assert_eq!(window.len(), 5);
		assert_eq!(window.capacity(), 5);
		window.set_capacity(2);
		let plies: Vec<u32> = window.iter().map(|(s, _)| s.ply).collect();
		assert_eq!(plies, [3, 4]);
		assert_eq!(window.uses_left(), 4);
		assert_eq!(window.departed().samples, 3);
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
		let batch = window
			.draw_batch(4, &TargetSettings::default(), None, &mut rng)
			.unwrap();
		assert!(batch.len() == 4 && window.uses_left() == 0);
	}

	#[test]
	fn evicted_samples_are_never_drawn() {
		let mut window = ReplayWindow::new(4, 100);
		for ply in 0..4 {
			window.push(sample(ply));
		}
		for ply in 100..104 {
			window.push(sample(ply));
		}
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
		let batch = window
			.draw_batch(50, &TargetSettings::default(), None, &mut rng)
			.unwrap();
		assert_eq!(batch.len(), 50);
		assert!(window.iter().all(|(s, _)| s.ply >= 100));
		assert_eq!(window.iter().map(|(_, uses)| *uses).sum::<u32>(), 50);
		assert_eq!(window.uses_left(), 4 * 100 - 50);
	}

	#[test]
	fn samples_that_leave_are_counted_with_their_uses() {
		let mut window = ReplayWindow::new(4, 3);
		let targets = TargetSettings::default();
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
		for ply in 0..4 {
			window.push(sample(ply));
		}
		assert_eq!(window.departed(), Departed::default());
		assert_eq!(window.departed().trained_share(), None);
		// Twelve draws use up all four samples, three times each.
		window.draw_batch(12, &targets, None, &mut rng).unwrap();
		let before = window.departed();
		for ply in 4..10 {
			window.push(sample(ply));
		}
		// Four used samples left, then two never drawn.
		let departed = window.departed().since(&before);
		assert_eq!(
			departed,
			Departed {
				samples: 6,
				unused: 2,
				uses: 12
			}
		);
		assert_eq!(departed.trained_share(), Some(4.0 / 6.0));
		assert_eq!(departed.mean_uses(), Some(2.0));
	}

	#[test]
	fn ids_of_evicted_samples_do_not_pile_up() {
		let mut window = ReplayWindow::new(10, 4);
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
		let targets = TargetSettings::default();
		for ply in 0..2000 {
			window.push(sample(ply));
			if ply % 10 == 9 {
				let batch = window.draw_batch(8, &targets, None, &mut rng).unwrap();
				assert_eq!(batch.len(), 8);
				// Pruned once stale ids outnumber the window's samples.
				assert!(window.fresh.len() <= 2 * window.len());
			}
		}
		let front = window.front_id();
		let live = window.fresh.iter().filter(|id| **id >= front).count();
		let unused = window.iter().filter(|(_, uses)| *uses < 4).count();
		assert_eq!(live, unused);
	}

	#[test]
	fn targets_and_augmentation_are_applied() {
		let mut window = ReplayWindow::new(8, 100);
		let board: GameBoard = "T...T/.S.../...../...../T...T t 19"
			.parse::<crate::Position>()
			.unwrap()
			.board;
		window.push(Sample {
			board,
			turn: Turn::Tiger,
			score: 0.2,
			result: -1.0,
			ply: 1,
			generation: 0,
		});
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
		let canonical = TargetSettings {
			result_weight: 0.25,
			augmentation: Augmentation::Canonical,
			rescore: false,
		};
		let batch = window.draw_batch(1, &canonical, None, &mut rng).unwrap();
		assert_eq!(batch[0].board, board.canonical().0);
		assert!((batch[0].target - (-0.25 + 0.75 * 0.2)).abs() < 1e-6);
		let random = TargetSettings {
			augmentation: Augmentation::RandomSymmetry,
			..canonical
		};
		let mut images = std::collections::HashSet::new();
		for _ in 0..60 {
			let batch = window.draw_batch(1, &random, None, &mut rng).unwrap();
			assert_eq!(batch[0].board.canonical().0, board.canonical().0);
			images.insert(batch[0].board);
		}
		assert!(
			images.len() >= 3,
			"random symmetries vary the board: {}",
			images.len()
		);
	}
}
