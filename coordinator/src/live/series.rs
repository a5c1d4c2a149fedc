//! `Thinned`: a series that keeps at most a fixed number of evenly spaced points however long
//! the run, for the loss and throughput charts a dashboard draws.
//!
//! Every `stride`-th point pushed is kept. When the series is full, every other kept point is
//! dropped and the stride doubles, so the points stay evenly spaced over the whole run and the
//! memory and message size stay bounded.

/// How many points a run's charts keep.
pub(crate) const CHART_POINTS: usize = 400;

/// A bounded, evenly thinned series.
#[derive(Clone, Debug)]
pub(crate) struct Thinned<T> {
	points: Vec<T>,
	capacity: usize,
	stride: u64,
	pushed: u64,
}

impl<T> Default for Thinned<T> {
	fn default() -> Thinned<T> {
		Thinned::new(CHART_POINTS)
	}
}

impl<T> Thinned<T> {
	/// An empty series of at most `capacity` points (at least 2).
	pub(crate) fn new(capacity: usize) -> Thinned<T> {
		Thinned {
			points: Vec::new(),
			capacity: capacity.max(2),
			stride: 1,
			pushed: 0,
		}
	}

	/// Offers a point; it is kept if it falls on the stride.
	pub(crate) fn push(&mut self, point: T) {
		let keep = self.pushed.is_multiple_of(self.stride);
		self.pushed += 1;
		if !keep {
			return;
		}
		if self.points.len() == self.capacity {
			let mut index = 0;
			self.points.retain(|_| {
				index += 1;
				index % 2 == 1
			});
			self.stride *= 2;
			if !(self.pushed - 1).is_multiple_of(self.stride) {
				return;
			}
		}
		self.points.push(point);
	}

	/// The kept points, oldest first.
	pub(crate) fn points(&self) -> &[T] {
		&self.points
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn short_series_keep_everything() {
		let mut series = Thinned::new(8);
		for i in 0..8 {
			series.push(i);
		}
		assert_eq!(series.points(), [0, 1, 2, 3, 4, 5, 6, 7]);
	}

	#[test]
	fn long_series_stay_bounded_and_evenly_spaced() {
		let mut series = Thinned::new(8);
		for i in 0..1000 {
			series.push(i);
			assert!(series.points().len() <= 8);
		}
		let points = series.points();
		assert_eq!(points[0], 0);
		let gap = points[1] - points[0];
		assert!(gap > 1);
		assert!(points.windows(2).all(|w| w[1] - w[0] == gap), "{points:?}");
		assert!(1000 - points[points.len() - 1] <= gap, "{points:?}");
	}
}
