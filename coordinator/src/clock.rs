//! The wall clock as the run's records keep it: seconds since the Unix epoch.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in unix seconds. A clock before 1970 is a broken machine; 0 keeps the row readable.
pub(crate) fn unix_now() -> f64 {
	SystemTime::now()
		.duration_since(UNIX_EPOCH)
		.map_or(0.0, |elapsed| elapsed.as_secs_f64())
}
