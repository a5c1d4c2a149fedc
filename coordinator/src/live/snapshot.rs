//! The progress snapshot: every counter and bounded list of `Live`, and what the process holds
//! apart from it, as one `Progress` message, every field named.
//!
//! A snapshot is bounded whatever the run's length or the number of workers that ever joined:
//! the gates as `GateHistory` lists them, and at most [`LISTED_WORKERS`] workers (those with a
//! session or heard from within [`LISTED_RECENTLY`]), with counts of them all.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tigers_proto::v1;

use crate::clock::unix_now;
use crate::live::Shared;
use crate::live::counters::Live;
use crate::live::worker::WorkerInfo;

/// The most workers a snapshot lists; the others are only counted.
pub(crate) const LISTED_WORKERS: usize = 200;

/// Workers without a session are listed if heard from this recently.
pub(crate) const LISTED_RECENTLY: Duration = Duration::from_secs(3600);

/// The most measurements at equal time a snapshot lists: the latest.
pub(crate) const TIMED_LISTED: usize = 200;

impl Shared {
	/// The run's setup: the incumbent's shape and input encoding (every generation of a run
	/// has the ones it started with), and the gate.
	fn setup(&self) -> v1::RunSetup {
		let net = self.current().net.clone();
		v1::RunSetup {
			net_shape: net.shape().to_string(),
			input_version: net.encoding().version(),
			gate: self.settings.gate_mode.name().to_string(),
		}
	}

	/// The run as a progress message, bounded in size (see the module's documentation).
	pub(crate) fn snapshot(&self) -> v1::Progress {
		self.snapshots_built.fetch_add(1, Ordering::Relaxed);
		let now = Instant::now();
		let mut live = self.live();
		let since_samples = live.last_samples().unwrap_or(self.started);
		let held = HeldApart {
			run_name: self.run_name.clone(),
			run_id: self.run_dir.id().to_string(),
			uptime_seconds: self.started.elapsed().as_secs_f64(),
			seconds_since_samples: now.saturating_duration_since(since_samples).as_secs_f64(),
			tablebase: self.tablebase.status(),
			no_stronger_alarm_seconds: self.settings.stall_alarm.as_secs_f64(),
			games: self.committer.games(),
			placement: self.placement.status(),
			setup: self.setup(),
			disk: self.disk.to_wire(),
		};
		live.progress(now, unix_now(), held)
	}
}

/// A snapshot's figures that the process holds apart from the live counters.
struct HeldApart {
	run_name: String,
	run_id: String,
	uptime_seconds: f64,
	seconds_since_samples: f64,
	tablebase: v1::TablebaseStatus,
	no_stronger_alarm_seconds: f64,
	games: Option<v1::GameArchive>,
	placement: v1::PlacementLayers,
	setup: v1::RunSetup,
	disk: v1::DiskSpace,
}

impl Live {
	/// The snapshot taken at `now` (`taken_at` in Unix seconds) of the live state and of what
	/// the process `held` apart. Every field is named, so that a field added to the message
	/// does not compile until a snapshot fills it.
	fn progress(&mut self, now: Instant, taken_at: f64, held: HeldApart) -> v1::Progress {
		let cpu_hours = self.cpu_hours(now);
		let (recent_samples, recent_superseded) = self.recent_samples.totals(now);
		v1::Progress {
			run_name: held.run_name,
			run_id: held.run_id,
			uptime_seconds: held.uptime_seconds,
			seconds_since_samples: held.seconds_since_samples,
			tablebase: Some(held.tablebase),
			no_stronger_alarm_seconds: held.no_stronger_alarm_seconds,
			games: held.games,
			placement_solve: None,
			placement: Some(held.placement),
			setup: Some(held.setup),
			disk: Some(held.disk),
			generation: self.generation,
			generation_since: self.generation_since,
			samples_total: self.samples_total,
			games_total: self.games_total,
			training_steps: self.training_steps,
			loss: self.recent_loss().unwrap_or(f64::NAN),
			window_samples: self.window_samples,
			window_capacity: self.window_capacity,
			gates: self.gates.listed(),
			gates_total: self.gates.total(),
			workers: self.worker_summaries(taken_at),
			workers_known: self.workers_known(),
			workers_connected: self.workers_connected(),
			batches_rejected: self.batches_rejected(),
			version_refusals: self.version_refusals,
			new_workers_refused: self.new_workers_refused,
			watchers_refused: self.watchers_refused,
			last_version_refusal: self.last_version_refusal.clone(),
			identity_in_use_refusals: self.identity_in_use_refusals,
			last_identity_in_use: self.last_identity_in_use.0.clone(),
			last_identity_in_use_at: self.last_identity_in_use.1,
			last_game: self.last_game.clone(),
			loss_history: self.loss_history.points().to_vec(),
			throughput: self.throughput.points().to_vec(),
			cpu_hours,
			taken_at,
			recent_samples,
			recent_superseded,
			recent_games: Some(self.recent_games.tally()),
			rejections: self.rejection_counts(),
			timed: self.timed_listed(),
			timed_running: self.timed_running.clone(),
			stronger_since: self.improvement.since,
			work: Some(self.work),
			ladder: Some(self.ladder.summary()),
			grades: self
				.grades
				.values()
				.rev()
				.take(TIMED_LISTED)
				.rev()
				.cloned()
				.collect(),
		}
	}

	/// The workers a snapshot lists, by identity: those with a session or heard from within
	/// [`LISTED_RECENTLY`] of `now` (Unix seconds), at most [`LISTED_WORKERS`], sessions and
	/// the most recently heard first.
	pub(super) fn listed_workers(&self, now: f64) -> Vec<(&String, &WorkerInfo)> {
		let mut listed: Vec<(&String, &WorkerInfo)> = self
			.workers
			.iter()
			.filter(|(_, w)| w.connected || w.heard_ago(now) <= LISTED_RECENTLY.as_secs_f64())
			.collect();
		listed.sort_by(|(_, a), (_, b)| {
			b.connected
				.cmp(&a.connected)
				.then(b.last_heard.total_cmp(&a.last_heard))
		});
		listed.truncate(LISTED_WORKERS);
		listed.sort_by_key(|(id, _)| *id);
		listed
	}

	/// The listed workers (`listed_workers`) as a snapshot shows them at `now` (Unix seconds).
	fn worker_summaries(&self, now: f64) -> Vec<v1::WorkerSummary> {
		self.listed_workers(now)
			.into_iter()
			.map(|(id, w)| v1::WorkerSummary {
				worker_id: id.clone(),
				name: w.name.clone(),
				host: w.host.clone(),
				threads: w.threads,
				connected: w.connected,
				generation: w.generation,
				samples: w.samples,
				samples_per_second: w.samples_per_second,
				seconds_since_heard: w.heard_ago(now),
				reconnects: w.sessions.saturating_sub(1),
				flagged: w.flagged,
			})
			.collect()
	}

	/// The refused batches, counted by reason.
	fn rejection_counts(&self) -> Vec<v1::RejectionCount> {
		self.rejections
			.iter()
			.map(|(reason, count)| v1::RejectionCount {
				reason: reason.name().to_string(),
				count: *count,
			})
			.collect()
	}

	/// The latest [`TIMED_LISTED`] measurements at equal time, oldest first.
	fn timed_listed(&self) -> Vec<v1::TimedMeasurement> {
		self.timed
			.values()
			.rev()
			.take(TIMED_LISTED)
			.rev()
			.cloned()
			.collect()
	}
}
