//! What any holder of the token may make the coordinator keep: new worker identities (a row of
//! the ledger each, kept until they are forgotten) and progress streams (a task and a buffer
//! each). Past a limit the answer is `RESOURCE_EXHAUSTED` with the seconds to wait, and the
//! rest of the service is untouched.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::error::ServiceError;

/// A token bucket: up to `capacity` at once, refilled at `capacity` a minute.
#[derive(Debug)]
pub(crate) struct PerMinute {
	capacity: f64,
	tokens: f64,
	refilled: Instant,
}

impl PerMinute {
	/// A full bucket of `per_minute`; 0 for no limit.
	pub(crate) fn new(per_minute: u32, now: Instant) -> PerMinute {
		PerMinute {
			capacity: f64::from(per_minute),
			tokens: f64::from(per_minute),
			refilled: now,
		}
	}

	/// The limit: how many a minute.
	pub(crate) fn per_minute(&self) -> u32 {
		self.capacity as u32
	}

	/// Takes one if there is one; else how long until there is.
	pub(crate) fn take(&mut self, now: Instant) -> Result<(), Duration> {
		if self.capacity == 0.0 {
			return Ok(());
		}
		let per_second = self.capacity / 60.0;
		let elapsed = now.saturating_duration_since(self.refilled).as_secs_f64();
		self.tokens = (self.tokens + elapsed * per_second).min(self.capacity);
		self.refilled = now;
		if self.tokens >= 1.0 {
			self.tokens -= 1.0;
			return Ok(());
		}
		Err(Duration::from_secs_f64((1.0 - self.tokens) / per_second))
	}
}

/// The progress streams open, in all and by connection, and their limits.
#[derive(Debug)]
pub(crate) struct Watchers {
	most: usize,
	most_per_connection: usize,
	open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
	total: usize,
	by_connection: HashMap<Option<SocketAddr>, usize>,
}

impl Watchers {
	/// At most `most` streams at once, and `most_per_connection` on one connection.
	pub(crate) fn new(most: usize, most_per_connection: usize) -> Arc<Watchers> {
		Arc::new(Watchers {
			most,
			most_per_connection,
			open: Mutex::default(),
		})
	}

	/// Counts a new stream from `connection` (the peer's address, when the transport knows
	/// it), or refuses it; the stream is counted until the [`Watching`] is dropped.
	pub(crate) fn open(
		self: &Arc<Watchers>,
		connection: Option<SocketAddr>,
	) -> Result<Watching, ServiceError> {
		let mut open = self.lock();
		let on_connection = open.by_connection.get(&connection).copied().unwrap_or(0);
		if open.total >= self.most {
			return Err(ServiceError::TooManyWatchers {
				limit: self.most,
				scope: "in all",
			});
		}
		if on_connection >= self.most_per_connection {
			return Err(ServiceError::TooManyWatchers {
				limit: self.most_per_connection,
				scope: "on one connection",
			});
		}
		open.total += 1;
		*open.by_connection.entry(connection).or_default() += 1;
		Ok(Watching {
			watchers: self.clone(),
			connection,
		})
	}

	/// Streams open now.
	#[cfg(test)]
	fn count(&self) -> usize {
		self.lock().total
	}

	fn lock(&self) -> MutexGuard<'_, Open> {
		self.open.lock().unwrap_or_else(PoisonError::into_inner)
	}
}

/// One open progress stream, counted until dropped.
#[derive(Debug)]
pub(crate) struct Watching {
	watchers: Arc<Watchers>,
	connection: Option<SocketAddr>,
}

impl Drop for Watching {
	fn drop(&mut self) {
		let mut open = self.watchers.lock();
		open.total = open.total.saturating_sub(1);
		if let Some(count) = open.by_connection.get_mut(&self.connection) {
			*count -= 1;
			if *count == 0 {
				open.by_connection.remove(&self.connection);
			}
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_bucket_gives_its_capacity_at_once_then_refills_by_the_minute() {
		let start = Instant::now();
		let mut bucket = PerMinute::new(3, start);
		for _ in 0..3 {
			assert!(bucket.take(start).is_ok());
		}
		let wait = bucket.take(start).unwrap_err();
		assert!((wait.as_secs_f64() - 20.0).abs() < 1e-6, "{wait:?}");
		// A third of a minute later, one more; a long pause refills only to the capacity.
		assert!(bucket.take(start + Duration::from_secs(20)).is_ok());
		assert!(bucket.take(start + Duration::from_secs(20)).is_err());
		let later = start + Duration::from_secs(3600);
		for _ in 0..3 {
			assert!(bucket.take(later).is_ok());
		}
		assert!(bucket.take(later).is_err());
		let mut unbounded = PerMinute::new(0, start);
		assert!((0..10_000).all(|_| unbounded.take(start).is_ok()));
	}

	#[test]
	fn streams_are_counted_in_all_and_by_connection_until_dropped() {
		let watchers = Watchers::new(3, 2);
		let a = Some("127.0.0.1:1000".parse().unwrap());
		let b = Some("127.0.0.1:2000".parse().unwrap());
		let first = watchers.open(a).unwrap();
		let _second = watchers.open(a).unwrap();
		let refused = watchers.open(a).unwrap_err().to_string();
		assert!(refused.contains("2 on one connection"), "{refused}");
		let _third = watchers.open(b).unwrap();
		let refused = watchers.open(b).unwrap_err().to_string();
		assert!(refused.contains("3 in all"), "{refused}");
		assert_eq!(watchers.count(), 3);
		drop(first);
		assert_eq!(watchers.count(), 2);
		assert!(watchers.open(a).is_ok());
	}
}
