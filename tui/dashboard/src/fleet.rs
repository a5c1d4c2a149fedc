//! The fleet summed up from a progress snapshot: which workers count as producing, each
//! worker's state, and the figures over all of them. Data and words only, no drawing: the
//! dashboard's Fleet pane and the coordinator's Workers page both show what this computes.

use tigers_proto::v1;

use crate::alarms::is_quiet;
use crate::format;

/// Whether a worker's reported rate is current: it has a session and has been heard from
/// lately. Only those count in the fleet's total rate.
pub fn is_producing(worker: &v1::WorkerSummary) -> bool {
	worker.connected && !is_quiet(worker)
}

/// Workers connected and known: the snapshot's counts of all of them, or, from a coordinator
/// (or a recording) without them, the listed workers.
pub fn worker_counts(p: &v1::Progress) -> (u64, u64) {
	if p.workers_known > 0 {
		(p.workers_connected, p.workers_known)
	} else {
		let connected = p.workers.iter().filter(|w| w.connected).count();
		(connected as u64, p.workers.len() as u64)
	}
}

/// What a worker is doing, from its summary and the latest generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkerState {
	/// It has no session.
	Gone,
	/// It has a session but has not been heard from lately.
	Quiet,
	/// It plays with a net older than the latest.
	Behind,
	/// It plays with the latest net, or one it has not told.
	Playing,
}

impl WorkerState {
	/// The state of `worker` when the latest generation is `latest`.
	pub fn of(worker: &v1::WorkerSummary, latest: u64) -> WorkerState {
		if !worker.connected {
			WorkerState::Gone
		} else if is_quiet(worker) {
			WorkerState::Quiet
		} else if worker.generation.is_some_and(|g| g < latest) {
			WorkerState::Behind
		} else {
			WorkerState::Playing
		}
	}

	/// The state as one word: `gone`, `quiet`, `behind` or `playing`.
	pub fn word(self) -> &'static str {
		match self {
			WorkerState::Gone => "gone",
			WorkerState::Quiet => "quiet",
			WorkerState::Behind => "behind",
			WorkerState::Playing => "playing",
		}
	}
}

/// The fleet in a few figures.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetSummary {
	/// Workers with a session now.
	pub connected: u64,
	/// Workers the coordinator knows of.
	pub known: u64,
	/// Workers the snapshot lists (it may list fewer than are known).
	pub listed: u64,
	/// Threads of the connected listed workers.
	pub threads: u32,
	/// Samples a second reported by the listed workers that are producing now.
	pub samples_per_second: f64,
	/// Worker CPU-hours over the run.
	pub cpu_hours: f64,
	/// Samples received in the last 5 minutes.
	pub recent_samples: u64,
	/// Of those, the samples from superseded generations.
	pub recent_superseded: u64,
}

impl FleetSummary {
	/// The figures of `p`'s fleet.
	pub fn of(p: &v1::Progress) -> FleetSummary {
		let (connected, known) = worker_counts(p);
		FleetSummary {
			connected,
			known,
			listed: p.workers.len() as u64,
			threads: p
				.workers
				.iter()
				.filter(|w| w.connected)
				.map(|w| w.threads)
				.sum(),
			samples_per_second: p
				.workers
				.iter()
				.filter(|w| is_producing(w))
				.map(|w| w.samples_per_second)
				.sum(),
			cpu_hours: p.cpu_hours,
			recent_samples: p.recent_samples,
			recent_superseded: p.recent_superseded,
		}
	}

	/// The figures as phrases, in order: workers connected of known (and how many are not
	/// listed), threads, the reported rate, CPU-hours, and the share of recent samples from
	/// superseded generations.
	pub fn phrases(&self) -> [String; 5] {
		let unlisted = self.known.saturating_sub(self.listed);
		let more = if unlisted > 0 {
			format!(" ({unlisted} not listed)")
		} else {
			String::new()
		};
		[
			format!(
				"{} of {} workers connected{more}",
				self.connected, self.known
			),
			format!("{} threads", self.threads),
			format!(
				"{} samples/s reported",
				format::rate(self.samples_per_second)
			),
			format!("{:.2} CPU-hours over the run", self.cpu_hours),
			format!(
				"{} of the {} samples of the last 5 min came from superseded generations",
				format::percent(self.recent_superseded, self.recent_samples),
				format::count(self.recent_samples)
			),
		]
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::alarms::QUIET_SECONDS;

	fn worker(connected: bool, heard: f64, generation: Option<u64>) -> v1::WorkerSummary {
		v1::WorkerSummary {
			connected,
			seconds_since_heard: heard,
			generation,
			threads: 4,
			samples_per_second: 10.0,
			..v1::WorkerSummary::default()
		}
	}

	#[test]
	fn a_worker_is_gone_quiet_behind_or_playing() {
		let state = |w: &v1::WorkerSummary| WorkerState::of(w, 7);
		assert_eq!(state(&worker(false, 1.0, Some(7))), WorkerState::Gone);
		assert_eq!(
			state(&worker(true, QUIET_SECONDS, Some(7))),
			WorkerState::Quiet
		);
		assert_eq!(state(&worker(true, 1.0, Some(6))), WorkerState::Behind);
		assert_eq!(state(&worker(true, 1.0, Some(7))), WorkerState::Playing);
		assert_eq!(state(&worker(true, 1.0, None)), WorkerState::Playing);
		assert_eq!(WorkerState::Behind.word(), "behind");
	}

	#[test]
	fn only_producing_workers_count_in_the_rate_and_connected_ones_in_the_threads() {
		let p = v1::Progress {
			workers: vec![
				worker(true, 1.0, Some(3)),
				worker(true, QUIET_SECONDS, Some(3)),
				worker(false, 1.0, Some(3)),
			],
			workers_connected: 2,
			workers_known: 5,
			cpu_hours: 1.5,
			recent_samples: 1_000,
			recent_superseded: 250,
			..v1::Progress::default()
		};
		let summary = FleetSummary::of(&p);
		assert_eq!(
			(summary.connected, summary.known, summary.listed),
			(2, 5, 3)
		);
		assert_eq!(summary.threads, 8);
		assert_eq!(summary.samples_per_second, 10.0);
		assert_eq!(
			summary.phrases(),
			[
				"2 of 5 workers connected (2 not listed)",
				"8 threads",
				"10.0 samples/s reported",
				"1.50 CPU-hours over the run",
				"25% of the 1,000 samples of the last 5 min came from superseded generations",
			]
		);
	}

	#[test]
	fn without_the_coordinators_counts_the_listed_workers_are_counted() {
		let p = v1::Progress {
			workers: vec![worker(true, 1.0, None), worker(false, 1.0, None)],
			..v1::Progress::default()
		};
		assert_eq!(worker_counts(&p), (1, 2));
		assert_eq!(
			FleetSummary::of(&p).phrases()[0],
			"1 of 2 workers connected"
		);
	}
}
