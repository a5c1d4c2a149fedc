//! The worker's figures as Prometheus metrics: production, spool depth, sessions and the
//! generation played, copied once a second from the counters the worker keeps anyway.
//!
//! Counters start at zero with each process, as Prometheus expects of counters.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ::metrics::{Unit, counter, describe_counter, describe_gauge, gauge};

use crate::selfplay::Control;
use crate::spool::Spool;
use crate::stats::Stats;

/// How often the figures are copied. Prometheus scrapes every 15 s or more by default.
const PUBLISH_INTERVAL: Duration = Duration::from_secs(1);

const GAMES: &str = "tigers_worker_games_total";
const SAMPLES: &str = "tigers_worker_samples_total";
const RATE: &str = "tigers_worker_samples_per_second";
const SPOOL: &str = "tigers_worker_spool_batches";
const SPOOL_CAPACITY: &str = "tigers_worker_spool_capacity_batches";
const SESSIONS: &str = "tigers_worker_sessions_total";
const CONNECTED: &str = "tigers_worker_connected";
const GENERATION: &str = "tigers_worker_generation";

/// Gives each of the worker's metrics its help text and unit. Call once, after the recorder is
/// installed.
pub fn describe() {
	describe_counter!(
		GAMES,
		Unit::Count,
		"Self-play games finished by this process."
	);
	describe_counter!(SAMPLES, Unit::Count, "Samples from those games.");
	describe_gauge!(
		RATE,
		"Samples per second over the last minute (heartbeats report the same figure)."
	);
	describe_gauge!(
		SPOOL,
		Unit::Count,
		"Batches on disk waiting for the coordinator's acknowledgement."
	);
	describe_gauge!(
		SPOOL_CAPACITY,
		Unit::Count,
		"Batches the spool holds at most; self-play pauses when it is full."
	);
	describe_counter!(
		SESSIONS,
		Unit::Count,
		"Sessions opened with the coordinator; each beyond the first is a reconnection."
	);
	describe_gauge!(
		CONNECTED,
		"1 while a session with the coordinator is open, else 0."
	);
	describe_gauge!(
		GENERATION,
		Unit::Count,
		"The generation of the net being played; absent before the first assignment."
	);
}

/// The parts of a running worker the figures come from.
pub(crate) struct Sources {
	/// Production and sessions.
	pub(crate) stats: Arc<Stats>,
	/// Unacknowledged batches.
	pub(crate) spool: Arc<Spool>,
	/// The assignment being played.
	pub(crate) control: Arc<Control>,
}

impl Sources {
	/// Records the figures at `now` in the current recorder (none installed: nothing happens).
	pub(crate) fn publish(&self, now: Instant) {
		let stats = self.stats.snapshot(now);
		counter!(GAMES).absolute(stats.games);
		counter!(SAMPLES).absolute(stats.samples);
		gauge!(RATE).set(stats.samples_per_second);
		gauge!(SPOOL).set(self.spool.len() as f64);
		gauge!(SPOOL_CAPACITY).set(self.spool.capacity() as f64);
		counter!(SESSIONS).absolute(stats.sessions);
		gauge!(CONNECTED).set(if stats.connected { 1.0 } else { 0.0 });
		if let Some(playing) = self.control.current() {
			gauge!(GENERATION).set(playing.assignment.generation as f64);
		}
	}

	/// Publishes every [`PUBLISH_INTERVAL`], until the task is aborted.
	pub(crate) async fn publish_every(self) {
		let mut ticks = tokio::time::interval(PUBLISH_INTERVAL);
		loop {
			ticks.tick().await;
			self.publish(Instant::now());
		}
	}
}

#[cfg(test)]
mod tests {
	use metrics_exporter_prometheus::PrometheusBuilder;

	use super::*;
	use crate::testing::{TempDir, playing};

	#[test]
	fn the_figures_appear_in_a_scrape() {
		let dir = TempDir::new("figures");
		let sources = Sources {
			stats: Arc::new(Stats::new(Instant::now())),
			spool: Arc::new(Spool::open(dir.path(), 7).unwrap()),
			control: Arc::new(Control::default()),
		};
		sources.stats.record_game(40, Instant::now());
		sources.stats.record_game(60, Instant::now());
		sources.stats.session_opened();
		sources.control.set(playing(3, 1, 8));
		let recorder = PrometheusBuilder::new().build_recorder();
		::metrics::with_local_recorder(&recorder, || {
			describe();
			sources.publish(Instant::now());
		});
		let text = recorder.handle().render();
		for line in [
			"tigers_worker_games_total 2",
			"tigers_worker_samples_total 100",
			"tigers_worker_spool_batches 0",
			"tigers_worker_spool_capacity_batches 7",
			"tigers_worker_sessions_total 1",
			"tigers_worker_connected 1",
			"tigers_worker_generation 3",
		] {
			assert!(
				text.lines().any(|l| l == line),
				"{line:?} missing from\n{text}"
			);
		}
		assert!(text.contains("tigers_worker_samples_per_second "), "{text}");
	}
}
