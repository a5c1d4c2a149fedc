//! The bounds on what visitors may make the server compute: the longest time a move, how many
//! searches run at once over all visitors, and each visitor's own share, a bucket of search
//! time that refills with the clock. A request past a bound is refused with the seconds after
//! which it would be taken, never queued: a crowd of visitors cannot starve the rest of the
//! process (training, in the coordinator) of more cores than the setting gives them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The bounds a server is started with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
	/// The longest search a request may ask for, in milliseconds.
	pub max_ms: u32,
	/// Searches at once over all visitors: the cores the pages may take.
	pub searches: usize,
	/// A visitor's bucket of search time, in milliseconds: what it may spend at once.
	pub bucket_ms: u32,
	/// How fast a visitor's bucket refills: milliseconds of search a second of the clock.
	pub refill_ms_per_s: u32,
	/// Requests that cost no search (a position's values, the net's evaluation) a visitor may
	/// make a second, on average; as many again at once.
	pub lookups_per_s: u32,
}

impl Default for Limits {
	/// One search at a time, at most 5 s a move; a visitor may spend 20 s of search at once and
	/// then half a core (500 ms a second), enough for a game at 100 ms to 1 s a move; 50 table
	/// look-ups a second.
	fn default() -> Limits {
		Limits {
			max_ms: 5_000,
			searches: 1,
			bucket_ms: 20_000,
			refill_ms_per_s: 500,
			lookups_per_s: 50,
		}
	}
}

/// Why a request was not taken now: when to try again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy {
	/// The whole seconds after which the request would be taken (at least 1).
	pub retry_after_s: u64,
	/// What bound refused it.
	pub bound: Bound,
}

/// The bound that refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
	/// Every search slot is taken.
	Searches,
	/// This visitor has spent its search time.
	SearchTime,
	/// This visitor asked for too many look-ups.
	Lookups,
}

impl Busy {
	/// The sentence for the refusal.
	pub fn sentence(&self) -> String {
		let what = match self.bound {
			Bound::Searches => "every search slot of this server is in use",
			Bound::SearchTime => "this client has used its share of search time",
			Bound::Lookups => "this client has made too many requests",
		};
		format!("{what}; try again in {} s", self.retry_after_s)
	}
}

/// A bucket that refills with the clock, in some unit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bucket {
	level: f64,
	at: Instant,
}

impl Bucket {
	/// A bucket holding `level` at `now`.
	pub(crate) fn holding(level: f64, now: Instant) -> Bucket {
		Bucket { level, at: now }
	}

	/// Takes `cost` if the bucket (of `capacity`, refilling `rate` a second) holds it; else the
	/// seconds until it will.
	pub(crate) fn take(
		&mut self,
		cost: f64,
		capacity: f64,
		rate: f64,
		now: Instant,
	) -> Result<(), f64> {
		let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
		self.level = (self.level + elapsed * rate).min(capacity);
		self.at = now;
		if self.level >= cost {
			self.level -= cost;
			Ok(())
		} else if rate > 0.0 {
			Err((cost.min(capacity) - self.level) / rate)
		} else {
			Err(f64::INFINITY)
		}
	}
}

/// A visitor's two buckets.
#[derive(Clone, Copy, Debug)]
struct Visitor {
	search: Bucket,
	lookups: Bucket,
}

/// The bounds in force, shared by every request.
pub struct Gate {
	limits: Limits,
	slots: Arc<Semaphore>,
	visitors: Mutex<HashMap<IpAddr, Visitor>>,
}

/// A search slot, held while the search runs.
pub struct Slot {
	_permit: OwnedSemaphorePermit,
}

/// How many visitors are remembered before those whose buckets are full again are forgotten.
const VISITORS_KEPT: usize = 10_000;

impl Gate {
	/// The bounds `limits`.
	pub fn new(limits: Limits) -> Gate {
		Gate {
			limits,
			slots: Arc::new(Semaphore::new(limits.searches.max(1))),
			visitors: Mutex::new(HashMap::new()),
		}
	}

	/// The bounds.
	pub fn limits(&self) -> Limits {
		self.limits
	}

	fn visitor<T>(&self, client: IpAddr, now: Instant, f: impl FnOnce(&mut Visitor) -> T) -> T {
		let mut visitors = self
			.visitors
			.lock()
			.unwrap_or_else(|poisoned| poisoned.into_inner());
		if visitors.len() >= VISITORS_KEPT {
			// Forget everyone idle long enough to have full buckets again.
			let limits = self.limits;
			let full_after = Duration::from_secs_f64(
				f64::from(limits.bucket_ms) / f64::from(limits.refill_ms_per_s.max(1)) + 2.0,
			);
			visitors.retain(|_, v| now.saturating_duration_since(v.search.at) < full_after);
		}
		let limits = self.limits;
		let visitor = visitors.entry(client).or_insert(Visitor {
			search: Bucket {
				level: f64::from(limits.bucket_ms),
				at: now,
			},
			lookups: Bucket {
				level: f64::from(limits.lookups_per_s),
				at: now,
			},
		});
		f(visitor)
	}

	/// A look-up for `client`, if its rate allows.
	pub fn lookup(&self, client: IpAddr) -> Result<(), Busy> {
		let rate = f64::from(self.limits.lookups_per_s);
		self.visitor(client, Instant::now(), |v| {
			v.lookups.take(1.0, rate, rate, Instant::now())
		})
		.map_err(|wait| busy(wait, Bound::Lookups))
	}

	/// A slot for a search of `ms` for `client`: its share of search time is charged only if
	/// a slot is free.
	pub fn search(&self, client: IpAddr, ms: u32) -> Result<Slot, Busy> {
		let Ok(permit) = self.slots.clone().try_acquire_owned() else {
			return Err(busy(1.0, Bound::Searches));
		};
		let limits = self.limits;
		self.visitor(client, Instant::now(), |v| {
			v.search.take(
				f64::from(ms),
				f64::from(limits.bucket_ms),
				f64::from(limits.refill_ms_per_s),
				Instant::now(),
			)
		})
		.map_err(|wait| busy(wait, Bound::SearchTime))?;
		Ok(Slot { _permit: permit })
	}
}

/// A refusal after `wait` seconds, rounded up to a whole second of at least one.
fn busy(wait: f64, bound: Bound) -> Busy {
	let retry_after_s = if wait.is_finite() {
		(wait.ceil() as u64).max(1)
	} else {
		3600
	};
	Busy {
		retry_after_s,
		bound,
	}
}

#[cfg(test)]
mod tests {
	use std::net::Ipv4Addr;

	use super::*;

	const ONE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
	const TWO: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

	#[test]
	fn a_bucket_refills_with_the_clock_and_says_how_long_to_wait() {
		let start = Instant::now();
		let mut bucket = Bucket {
			level: 10.0,
			at: start,
		};
		assert_eq!(bucket.take(8.0, 10.0, 2.0, start), Ok(()));
		assert_eq!(bucket.take(8.0, 10.0, 2.0, start), Err(3.0));
		assert_eq!(
			bucket.take(8.0, 10.0, 2.0, start + Duration::from_secs(3)),
			Ok(())
		);
		// Never above its capacity, however long it waits.
		assert_eq!(
			bucket.take(11.0, 10.0, 2.0, start + Duration::from_secs(100)),
			Err(0.0)
		);
	}

	#[test]
	fn searches_are_bounded_at_once_and_per_client() {
		let gate = Gate::new(Limits {
			searches: 2,
			bucket_ms: 1_000,
			refill_ms_per_s: 100,
			..Limits::default()
		});
		let first = gate.search(ONE, 400).unwrap();
		let second = gate.search(TWO, 400).unwrap();
		let full = gate.search(TWO, 100).map(|_| ()).unwrap_err();
		assert_eq!(full.bound, Bound::Searches);
		assert_eq!(full.retry_after_s, 1);
		drop((first, second));
		let _third = gate.search(ONE, 400).unwrap();
		// 800 of 1,000 spent: the next 400 must wait for 200 more, two seconds at 100 a second.
		let spent = gate.search(ONE, 400).map(|_| ()).unwrap_err();
		assert_eq!(spent.bound, Bound::SearchTime);
		assert_eq!(spent.retry_after_s, 2);
		assert!(
			spent.sentence().contains("try again in 2 s"),
			"{}",
			spent.sentence()
		);
		// Another client is not charged for it.
		assert!(gate.search(TWO, 400).is_ok());
	}

	#[test]
	fn lookups_are_bounded_per_client() {
		let gate = Gate::new(Limits {
			lookups_per_s: 5,
			..Limits::default()
		});
		for _ in 0..5 {
			gate.lookup(ONE).unwrap();
		}
		let refused = gate.lookup(ONE).unwrap_err();
		assert_eq!(refused.bound, Bound::Lookups);
		assert_eq!(refused.retry_after_s, 1);
		assert!(gate.lookup(TWO).is_ok());
	}
}
