//! `Stats`: games and samples the worker has produced, its sample rate over the last minute,
//! and its sessions with the coordinator, for heartbeats, logs and metrics.
//!
//! Written by the batcher thread (one call per finished game) and the session loop (sessions
//! opened and ended), read by the session when it sends a heartbeat and by the metrics
//! publisher; a mutex keeps the counters and the window consistent with each other.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The window the sample rate is measured over, as the heartbeat's field promises.
const RATE_WINDOW: Duration = Duration::from_secs(60);

/// The worker's production counters.
#[derive(Debug)]
pub(crate) struct Stats {
	inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
	started: Instant,
	games: u64,
	samples: u64,
	sessions: u64,
	connected: bool,
	/// Finished games in the window: when, and how many samples each gave.
	recent: VecDeque<(Instant, u64)>,
}

/// The counters at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Snapshot {
	/// Games finished since the worker started.
	pub(crate) games: u64,
	/// Samples from them.
	pub(crate) samples: u64,
	/// Samples per second over the last minute (or since the start, if that is shorter).
	pub(crate) samples_per_second: f64,
	/// Sessions opened (joins that succeeded) since the worker started.
	pub(crate) sessions: u64,
	/// Whether a session is open.
	pub(crate) connected: bool,
}

impl Stats {
	/// Counters at zero, the clock starting at `now`.
	pub(crate) fn new(now: Instant) -> Stats {
		Stats {
			inner: Mutex::new(Inner {
				started: now,
				games: 0,
				samples: 0,
				sessions: 0,
				connected: false,
				recent: VecDeque::new(),
			}),
		}
	}

	/// Counts a game with `samples` samples that finished at `now`.
	pub(crate) fn record_game(&self, samples: u64, now: Instant) {
		let mut inner = self.lock();
		inner.games += 1;
		inner.samples += samples;
		inner.recent.push_back((now, samples));
		inner.forget_before(now);
	}

	/// Counts a session opened with the coordinator.
	pub(crate) fn session_opened(&self) {
		let mut inner = self.lock();
		inner.sessions += 1;
		inner.connected = true;
	}

	/// Notes that the open session, if any, has ended.
	pub(crate) fn session_ended(&self) {
		self.lock().connected = false;
	}

	/// The counters at `now`.
	pub(crate) fn snapshot(&self, now: Instant) -> Snapshot {
		let mut inner = self.lock();
		inner.forget_before(now);
		let in_window: u64 = inner.recent.iter().map(|(_, samples)| samples).sum();
		// Dividing by the whole minute in the first seconds would understate the rate.
		let span = now
			.saturating_duration_since(inner.started)
			.min(RATE_WINDOW);
		let samples_per_second = if span.is_zero() {
			0.0
		} else {
			in_window as f64 / span.as_secs_f64()
		};
		Snapshot {
			games: inner.games,
			samples: inner.samples,
			samples_per_second,
			sessions: inner.sessions,
			connected: inner.connected,
		}
	}

	fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
		// Counters are updated in one step each, so a poisoned lock still holds sane numbers.
		self.inner
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
	}
}

impl Inner {
	fn forget_before(&mut self, now: Instant) {
		while let Some((at, _)) = self.recent.front() {
			if now.saturating_duration_since(*at) <= RATE_WINDOW {
				break;
			}
			self.recent.pop_front();
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn the_rate_covers_the_last_minute_only() {
		let start = Instant::now();
		let at = |seconds: u64| start + Duration::from_secs(seconds);
		let stats = Stats::new(start);
		assert_eq!(stats.snapshot(start).samples_per_second, 0.0);
		stats.record_game(100, at(5));
		stats.record_game(200, at(10));
		let early = stats.snapshot(at(10));
		assert_eq!((early.games, early.samples), (2, 300));
		assert!((early.samples_per_second - 30.0).abs() < 1e-9, "{early:?}");
		stats.record_game(600, at(70));
		// At 70 s the game at 5 s has left the window; 200 + 600 over 60 s.
		let later = stats.snapshot(at(70));
		assert_eq!((later.games, later.samples), (3, 900));
		assert!(
			(later.samples_per_second - 800.0 / 60.0).abs() < 1e-9,
			"{later:?}"
		);
		// Long after, nothing is recent but the totals remain.
		let idle = stats.snapshot(at(1000));
		assert_eq!((idle.games, idle.samples_per_second), (3, 0.0));
	}

	#[test]
	fn sessions_are_counted_and_the_open_one_shown() {
		let stats = Stats::new(Instant::now());
		let seen = |stats: &Stats| {
			let snapshot = stats.snapshot(Instant::now());
			(snapshot.sessions, snapshot.connected)
		};
		assert_eq!(seen(&stats), (0, false));
		stats.session_opened();
		assert_eq!(seen(&stats), (1, true));
		stats.session_ended();
		stats.session_ended();
		assert_eq!(seen(&stats), (1, false));
		stats.session_opened();
		assert_eq!(seen(&stats), (2, true));
	}
}
