//! How fast wrong tokens are taken, so that a token cannot be guessed by trying: each client
//! address has a few tries free, then waits before each further try, twice as long each time,
//! up to a bound; and wrong tokens from all addresses together are held to a rate. A try
//! while its address (or everyone) must wait is refused without the token being looked at, so
//! waiting cannot be skipped by guessing faster. A right token clears its address's record.
//!
//! An IPv6 client is keyed by its /64 network, which one machine usually holds whole; an
//! IPv4 address mapped into IPv6 is the IPv4 address.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::time::{Duration, Instant};

use crate::limits::Bucket;

/// The bounds on wrong tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoginLimits {
	/// Wrong tokens an address may send before it must wait.
	pub free_failures: u32,
	/// The first wait, after the free tries; each further wrong token doubles it.
	pub first_wait: Duration,
	/// The longest wait.
	pub longest_wait: Duration,
	/// Wrong tokens a minute from all addresses together (as many again at once); past it
	/// every try waits, from any address.
	pub failures_per_minute: u32,
	/// How long after its last wrong token an address starts afresh.
	pub forget_after: Duration,
}

impl Default for LoginLimits {
	/// Five free tries, then 1 s, 2 s, 4 s and on up to 10 minutes between tries (about a dozen
	/// guesses in the first minute, then six an hour); 60 wrong tokens a minute in all; an
	/// address quiet for an hour starts again.
	fn default() -> LoginLimits {
		LoginLimits {
			free_failures: 5,
			first_wait: Duration::from_secs(1),
			longest_wait: Duration::from_secs(600),
			failures_per_minute: 60,
			forget_after: Duration::from_secs(3600),
		}
	}
}

/// Why a try is refused unlooked-at: the whole seconds to wait (at least 1), and whether the
/// wait is everyone's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
	/// Seconds until a try is taken again.
	pub seconds: u64,
	/// Whether all addresses must wait (too many wrong tokens in all), not just this one.
	pub everyone: bool,
}

impl Wait {
	/// The sentence for the refusal.
	pub fn sentence(&self) -> String {
		let who = if self.everyone {
			"too many wrong tokens have come from all addresses together"
		} else {
			"too many wrong tokens have come from your address"
		};
		format!("{who}; try again in {} s", self.seconds)
	}
}

/// One address's wrong tokens.
#[derive(Clone, Copy, Debug)]
struct Record {
	failures: u32,
	last: Instant,
	until: Instant,
}

/// Addresses remembered before those that may try again freely are forgotten.
const ADDRESSES_KEPT: usize = 10_000;

/// The records of wrong tokens, by address and in all.
#[derive(Debug)]
pub(crate) struct Throttle {
	limits: LoginLimits,
	addresses: HashMap<IpAddr, Record>,
	all: Bucket,
}

impl Throttle {
	/// No wrong token yet.
	pub(crate) fn new(limits: LoginLimits, now: Instant) -> Throttle {
		Throttle {
			limits,
			addresses: HashMap::new(),
			all: Bucket::holding(f64::from(limits.failures_per_minute), now),
		}
	}

	fn all_rate(&self) -> (f64, f64) {
		let capacity = f64::from(self.limits.failures_per_minute);
		(capacity, capacity / 60.0)
	}

	/// Whether `client` may try a token at `now`; else how long it must wait.
	pub(crate) fn allowed(&mut self, client: IpAddr, now: Instant) -> Result<(), Wait> {
		if let Some(record) = self.addresses.get(&address_key(client))
			&& record.until > now
		{
			return Err(Wait {
				seconds: whole_seconds(record.until - now),
				everyone: false,
			});
		}
		let (capacity, rate) = self.all_rate();
		let mut probe = self.all;
		probe.take(1.0, capacity, rate, now).map_err(|wait| Wait {
			seconds: whole_seconds(Duration::from_secs_f64(wait.min(3600.0))),
			everyone: true,
		})
	}

	/// Counts a wrong token from `client` at `now`; the wait it now imposes on the address, if
	/// any.
	pub(crate) fn failed(&mut self, client: IpAddr, now: Instant) -> Option<Duration> {
		let (capacity, rate) = self.all_rate();
		let _ = self.all.take(1.0, capacity, rate, now);
		if self.addresses.len() >= ADDRESSES_KEPT {
			self.forget(now);
		}
		let limits = self.limits;
		let record = self.addresses.entry(address_key(client)).or_insert(Record {
			failures: 0,
			last: now,
			until: now,
		});
		if now.saturating_duration_since(record.last) > limits.forget_after {
			record.failures = 0;
		}
		record.failures = record.failures.saturating_add(1);
		record.last = now;
		let beyond = record
			.failures
			.checked_sub(limits.free_failures.saturating_add(1))?;
		let wait = limits
			.first_wait
			.saturating_mul(1u32 << beyond.min(30))
			.min(limits.longest_wait);
		record.until = now + wait;
		Some(wait)
	}

	/// A right token from `client`: its record is cleared.
	pub(crate) fn succeeded(&mut self, client: IpAddr) {
		self.addresses.remove(&address_key(client));
	}

	/// Forgets the addresses that may try again and would start afresh; if that is not
	/// enough, those whose last wrong token is oldest.
	fn forget(&mut self, now: Instant) {
		let forget_after = self.limits.forget_after;
		self.addresses.retain(|_, record| {
			record.until > now || now.saturating_duration_since(record.last) <= forget_after
		});
		while self.addresses.len() >= ADDRESSES_KEPT {
			let Some(oldest) = self
				.addresses
				.iter()
				.min_by_key(|(_, record)| record.last)
				.map(|(key, _)| *key)
			else {
				break;
			};
			self.addresses.remove(&oldest);
		}
	}
}

/// The key a client is counted under: an IPv4 address, or an IPv6 address's /64 network.
pub(crate) fn address_key(client: IpAddr) -> IpAddr {
	match client {
		IpAddr::V4(_) => client,
		IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
			Some(v4) => IpAddr::V4(v4),
			None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & (u128::MAX << 64))),
		},
	}
}

/// `wait` in whole seconds, rounded up, at least 1.
fn whole_seconds(wait: Duration) -> u64 {
	wait.as_secs()
		.saturating_add(u64::from(wait.subsec_nanos() > 0))
		.max(1)
}

#[cfg(test)]
mod tests {
	use super::*;

	fn ip(text: &str) -> IpAddr {
		text.parse().unwrap()
	}

	#[test]
	fn an_address_waits_after_its_free_tries_twice_as_long_each_time() {
		let start = Instant::now();
		let mut throttle = Throttle::new(LoginLimits::default(), start);
		let client = ip("192.0.2.7");
		for _ in 0..5 {
			assert_eq!(throttle.allowed(client, start), Ok(()));
			assert_eq!(throttle.failed(client, start), None);
		}
		let mut now = start;
		for expected in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600] {
			assert_eq!(throttle.allowed(client, now), Ok(()));
			assert_eq!(
				throttle.failed(client, now),
				Some(Duration::from_secs(expected))
			);
			let refused = throttle.allowed(client, now).unwrap_err();
			assert_eq!(
				refused,
				Wait {
					seconds: expected,
					everyone: false
				}
			);
			assert!(
				throttle
					.allowed(
						client,
						now + Duration::from_secs(expected) - Duration::from_millis(1)
					)
					.is_err()
			);
			now += Duration::from_secs(expected);
		}
		// Another address is not held back, and a right token clears the record.
		assert_eq!(throttle.allowed(ip("192.0.2.8"), start), Ok(()));
		throttle.succeeded(client);
		assert_eq!(throttle.allowed(client, now), Ok(()));
		assert_eq!(throttle.failed(client, now), None);
	}

	#[test]
	fn an_address_quiet_for_long_enough_starts_afresh() {
		let start = Instant::now();
		let limits = LoginLimits::default();
		let mut throttle = Throttle::new(limits, start);
		let client = ip("192.0.2.7");
		for _ in 0..6 {
			throttle.failed(client, start);
		}
		let later = start + limits.forget_after + Duration::from_secs(2);
		assert_eq!(throttle.allowed(client, later), Ok(()));
		assert_eq!(throttle.failed(client, later), None);
	}

	#[test]
	fn wrong_tokens_from_all_addresses_are_held_to_the_rate() {
		let start = Instant::now();
		let limits = LoginLimits {
			failures_per_minute: 10,
			..LoginLimits::default()
		};
		let mut throttle = Throttle::new(limits, start);
		for n in 0..10u8 {
			let client = IpAddr::from([198, 51, 100, n]);
			assert_eq!(throttle.allowed(client, start), Ok(()));
			throttle.failed(client, start);
		}
		let fresh = ip("203.0.113.1");
		assert_eq!(
			throttle.allowed(fresh, start),
			Err(Wait {
				seconds: 6,
				everyone: true
			})
		);
		// A tenth of a minute later there is room for one more.
		assert_eq!(
			throttle.allowed(fresh, start + Duration::from_secs(6)),
			Ok(())
		);
	}

	#[test]
	fn ipv6_clients_count_by_their_64_network_and_mapped_ipv4_as_ipv4() {
		assert_eq!(
			address_key(ip("2001:db8:1:2:aaaa::1")),
			address_key(ip("2001:db8:1:2:bbbb::9"))
		);
		assert_ne!(
			address_key(ip("2001:db8:1:2::1")),
			address_key(ip("2001:db8:1:3::1"))
		);
		assert_eq!(address_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
		assert_eq!(address_key(ip("192.0.2.1")), ip("192.0.2.1"));
	}

	#[test]
	fn the_records_stay_bounded() {
		let start = Instant::now();
		let limits = LoginLimits {
			failures_per_minute: u32::MAX,
			..LoginLimits::default()
		};
		let mut throttle = Throttle::new(limits, start);
		for n in 0..(ADDRESSES_KEPT as u32 + 500) {
			throttle.failed(IpAddr::from(n.to_be_bytes()), start);
		}
		assert!(throttle.addresses.len() <= ADDRESSES_KEPT);
	}
}
