//! `Killers`: quiet moves that caused a cut-off, two per remaining depth, tried early next time.

use crate::moves::Move;

/// Two killer moves for each remaining depth.
pub struct Killers {
	slots: Vec<[Option<Move>; 2]>,
}

impl Killers {
	/// Room for remaining depths `0..=max_depth`.
	pub fn new(max_depth: usize) -> Killers {
		Killers {
			slots: vec![[None; 2]; max_depth + 1],
		}
	}

	/// The killers at this remaining depth, newest first.
	#[inline]
	pub fn get(&self, depth: usize) -> [Option<Move>; 2] {
		self.slots.get(depth).copied().unwrap_or([None; 2])
	}

	/// Records a quiet move that refuted a position at this remaining depth.
	#[inline]
	pub fn record(&mut self, depth: usize, mv: Move) {
		if let Some(slot) = self.slots.get_mut(depth)
			&& slot[0] != Some(mv)
		{
			slot[1] = slot[0];
			slot[0] = Some(mv);
		}
	}

	/// Forgets every killer.
	pub fn clear(&mut self) {
		self.slots.fill([None; 2]);
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn newest_first_and_no_duplicates() {
		let a: Move = "ta5b4".parse().unwrap();
		let b: Move = "te5d4".parse().unwrap();
		let mut killers = Killers::new(4);
		killers.record(2, a);
		killers.record(2, a);
		assert_eq!(killers.get(2), [Some(a), None]);
		killers.record(2, b);
		assert_eq!(killers.get(2), [Some(b), Some(a)]);
		assert_eq!(killers.get(9), [None, None]);
		killers.clear();
		assert_eq!(killers.get(2), [None, None]);
	}
}
