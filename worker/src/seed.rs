//! Random numbers from the operating system, for game seeds, jitter and new worker ids.

use std::hash::{BuildHasher, RandomState};

use rand::TryRng;
use rand::rngs::SysRng;

/// A random `u64` from the operating system.
///
/// Should the system's generator fail (it practically never does), std's per-process random
/// hashing keys stand in: they too come from the system, once, and differ per call here.
pub(crate) fn random_u64() -> u64 {
	SysRng
		.try_next_u64()
		.unwrap_or_else(|_| RandomState::new().hash_one(std::time::Instant::now()))
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn draws_differ() {
		let draws: std::collections::HashSet<u64> = (0..100).map(|_| random_u64()).collect();
		assert_eq!(draws.len(), 100);
	}
}
