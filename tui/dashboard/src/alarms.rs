//! What is wrong with a run, judged from one progress snapshot: the alarms the dashboard shows
//! in red above every pane.

use std::fmt;

use tigers_proto::v1;

use crate::format;

/// No samples for this long, while workers are connected or the run has been up this long,
/// is an alarm.
pub const NO_SAMPLES_SECONDS: f64 = 120.0;
/// At least this many recent games before the draw rate is judged.
pub const DRAWS_MIN_GAMES: u32 = 50;
/// A share of draws at or above this among recent games is an alarm.
pub const DRAWS_SHARE: f64 = 0.98;
/// A connected worker not heard from for this long is quiet.
pub const QUIET_SECONDS: f64 = 30.0;
/// A share of the samples leaving the replay window trained on below this is an alarm: over
/// half the fleet's work is thrown away (docs/training.md, "Work per sample").
pub const TRAINED_SHARE: f64 = 0.5;
/// A worker refused within this long for an identity another process holds is an alarm: a
/// second machine with a copy of the identity is refused every 15 s while it runs.
pub const IDENTITY_IN_USE_SECONDS: f64 = 300.0;

/// One thing wrong with the run.
#[derive(Clone, Debug, PartialEq)]
pub enum Alarm {
	/// The run directory's disk is short of space: batches wait, training pauses.
	DiskLow {
		/// The run directory.
		dir: String,
		/// Its free bytes, where measured.
		free_bytes: Option<u64>,
		/// The margin kept.
		margin_bytes: u64,
	},
	/// No sample batch stored for a while.
	NoSamples {
		/// Seconds since the last.
		seconds: f64,
	},
	/// Nearly every recent self-play game was a draw.
	AllDraws {
		/// Draws among the recent games.
		draws: u32,
		/// Recent games.
		games: u32,
	},
	/// Training produced a loss that is not a number or infinite.
	LossNotFinite,
	/// Workers whose searches disagreed with the coordinator's re-search.
	Flagged {
		/// Their names.
		workers: Vec<String>,
	},
	/// Connected workers not heard from lately.
	Quiet {
		/// Their names.
		workers: Vec<String>,
	},
	/// No stronger net for longer than the run's alarm setting: more hardware or other
	/// settings are needed for the run to improve.
	NoStrongerNet {
		/// Seconds since the last stronger net.
		seconds: f64,
	},
	/// Workers refused for their version: they stop until someone installs another build.
	VersionRefused {
		/// Joins refused so.
		count: u64,
		/// The last refusal's sentence, as the worker was told it.
		last: String,
	},
	/// A worker process was refused lately because another holds its identity's live session:
	/// two machines run with one identity, most likely from a copied state directory.
	IdentityInUse {
		/// Joins and sessions refused so over the coordinator's life.
		count: u64,
		/// The last refusal's sentence, as the worker was told it.
		last: String,
	},
	/// The coordinator's tablebase solve failed; the run goes on without it.
	TablebaseFailed {
		/// Why.
		reason: String,
	},
	/// Most samples leave the replay window untrained: the fleet outruns the trainer.
	Untrained {
		/// The share (0 to 1) trained on.
		share: f64,
		/// The self-play depth in force and its maximum.
		depth: u32,
		/// The deepest the coordinator may ask for.
		max: u32,
	},
}

impl fmt::Display for Alarm {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		match self {
			Alarm::DiskLow {
				dir,
				free_bytes,
				margin_bytes,
			} => {
				let free = free_bytes.map_or("unknown".to_string(), |b| format!("{} MiB", b >> 20));
				write!(
					f,
					"the disk of {dir} is short of space ({free} free, {} MiB kept): batches \
					 wait and training pauses until space is freed",
					margin_bytes >> 20
				)
			}
			Alarm::NoSamples { seconds } => {
				write!(f, "no samples for {}", format::duration(*seconds))
			}
			Alarm::AllDraws { draws, games } => {
				write!(f, "{draws} of the last {games} self-play games were draws")
			}
			Alarm::LossNotFinite => write!(f, "the training loss is not finite"),
			Alarm::Flagged { workers } => {
				write!(f, "searches disagreed with ours: {}", workers.join(", "))
			}
			Alarm::Quiet { workers } => write!(
				f,
				"not heard from in {}: {}",
				format::duration(QUIET_SECONDS),
				workers.join(", ")
			),
			Alarm::NoStrongerNet { seconds } => {
				write!(f, "no stronger net for {}", format::duration(*seconds))
			}
			Alarm::VersionRefused { count, last } => {
				let joins = if *count == 1 { "join" } else { "joins" };
				write!(
					f,
					"{count} {joins} refused for the worker's version; the last: {last}"
				)
			}
			Alarm::IdentityInUse { count, last } => {
				let refusals = if *count == 1 { "refusal" } else { "refusals" };
				write!(
					f,
					"{count} {refusals} of a worker whose identity another process holds; the \
					 last: {last}"
				)
			}
			Alarm::TablebaseFailed { reason } => {
				write!(f, "no tablebase, the solve failed: {reason}")
			}
			Alarm::Untrained { share, depth, max } => write!(
				f,
				"only {:.0}% of samples trained on (self-play depth {depth} of at most {max}): \
				 the fleet outruns the trainer",
				100.0 * share
			),
		}
	}
}

/// Every alarm `progress` raises, in a fixed order.
pub fn alarms(progress: &v1::Progress) -> Vec<Alarm> {
	// A placement solve has no samples, games or gates to be alarmed about.
	if progress.placement_solve.is_some() {
		return Vec::new();
	}
	CHECKS.iter().filter_map(|check| check(progress)).collect()
}

/// The checks that raise the alarms, in the order the alarms are shown.
const CHECKS: [fn(&v1::Progress) -> Option<Alarm>; 11] = [
	disk_low,
	no_samples,
	all_draws,
	loss_not_finite,
	flagged,
	quiet,
	no_stronger_net,
	version_refused,
	identity_in_use,
	tablebase_failed,
	untrained,
];

/// The run directory's disk short of space.
fn disk_low(progress: &v1::Progress) -> Option<Alarm> {
	let disk = progress.disk.as_ref().filter(|d| d.low)?;
	Some(Alarm::DiskLow {
		dir: disk.dir.clone(),
		free_bytes: disk.free_bytes,
		margin_bytes: disk.margin_bytes,
	})
}

/// No samples for [`NO_SAMPLES_SECONDS`], while workers are connected or once the run has been
/// up that long.
fn no_samples(progress: &v1::Progress) -> Option<Alarm> {
	let connected = progress.workers.iter().any(|w| w.connected);
	(progress.seconds_since_samples >= NO_SAMPLES_SECONDS
		&& (connected || progress.uptime_seconds >= NO_SAMPLES_SECONDS))
		.then_some(Alarm::NoSamples {
			seconds: progress.seconds_since_samples,
		})
}

/// Draws at [`DRAWS_SHARE`] or more of at least [`DRAWS_MIN_GAMES`] recent games.
fn all_draws(progress: &v1::Progress) -> Option<Alarm> {
	let games = progress.recent_games?;
	let total = games.tiger_wins + games.sheep_wins + games.draws;
	(total >= DRAWS_MIN_GAMES && f64::from(games.draws) >= DRAWS_SHARE * f64::from(total))
		.then_some(Alarm::AllDraws {
			draws: games.draws,
			games: total,
		})
}

/// A loss, the latest or the last in the history, that is not finite.
fn loss_not_finite(progress: &v1::Progress) -> Option<Alarm> {
	let last_loss = progress.loss_history.last().map(|p| p.loss);
	((progress.training_steps > 0 && !progress.loss.is_finite())
		|| last_loss.is_some_and(|l| !l.is_finite()))
	.then_some(Alarm::LossNotFinite)
}

/// Workers flagged for searches that disagreed.
fn flagged(progress: &v1::Progress) -> Option<Alarm> {
	let workers = worker_names(progress, |w| w.flagged > 0);
	(!workers.is_empty()).then_some(Alarm::Flagged { workers })
}

/// Connected workers gone quiet.
fn quiet(progress: &v1::Progress) -> Option<Alarm> {
	let workers = worker_names(progress, is_quiet);
	(!workers.is_empty()).then_some(Alarm::Quiet { workers })
}

/// The names of the workers that `pick` picks.
fn worker_names(progress: &v1::Progress, pick: impl Fn(&v1::WorkerSummary) -> bool) -> Vec<String> {
	progress
		.workers
		.iter()
		.filter(|w| pick(w))
		.map(|w| w.name.clone())
		.collect()
}

/// No stronger net for longer than the run's alarm setting, when it has one.
fn no_stronger_net(progress: &v1::Progress) -> Option<Alarm> {
	let no_stronger = progress.taken_at - progress.stronger_since;
	(progress.no_stronger_alarm_seconds > 0.0
		&& progress.stronger_since > 0.0
		&& no_stronger >= progress.no_stronger_alarm_seconds)
		.then_some(Alarm::NoStrongerNet {
			seconds: no_stronger,
		})
}

/// Any join refused for the worker's version.
fn version_refused(progress: &v1::Progress) -> Option<Alarm> {
	(progress.version_refusals > 0).then(|| Alarm::VersionRefused {
		count: progress.version_refusals,
		last: progress.last_version_refusal.clone(),
	})
}

/// A worker refused within [`IDENTITY_IN_USE_SECONDS`] for an identity another process holds.
fn identity_in_use(progress: &v1::Progress) -> Option<Alarm> {
	// A copy keeps being refused every few seconds, so the alarm stays up while it runs; a
	// worker restarted before its old session lapsed is refused once and the alarm goes.
	(progress.identity_in_use_refusals > 0
		&& progress.taken_at - progress.last_identity_in_use_at < IDENTITY_IN_USE_SECONDS)
		.then(|| Alarm::IdentityInUse {
			count: progress.identity_in_use_refusals,
			last: progress.last_identity_in_use.clone(),
		})
}

/// The coordinator's tablebase solve failed.
fn tablebase_failed(progress: &v1::Progress) -> Option<Alarm> {
	let status = progress
		.tablebase
		.as_ref()
		.filter(|t| t.state == "failed")?;
	Some(Alarm::TablebaseFailed {
		reason: status.detail.clone(),
	})
}

/// Less than [`TRAINED_SHARE`] of the samples leaving the window trained on.
fn untrained(progress: &v1::Progress) -> Option<Alarm> {
	let work = progress.work?;
	let share = work.trained_share.filter(|s| *s < TRAINED_SHARE)?;
	Some(Alarm::Untrained {
		share,
		depth: work.depth,
		max: work.depth_max,
	})
}

/// Whether a connected worker has gone quiet.
pub fn is_quiet(worker: &v1::WorkerSummary) -> bool {
	worker.connected && worker.seconds_since_heard >= QUIET_SECONDS
}

#[cfg(test)]
mod tests {
	use super::*;

	fn healthy() -> v1::Progress {
		v1::Progress {
			uptime_seconds: 600.0,
			seconds_since_samples: 3.0,
			training_steps: 100,
			loss: 0.5,
			recent_games: Some(v1::GameTally {
				tiger_wins: 30,
				sheep_wins: 20,
				draws: 50,
			}),
			workers: vec![v1::WorkerSummary {
				name: "w1".into(),
				connected: true,
				seconds_since_heard: 1.0,
				..v1::WorkerSummary::default()
			}],
			..v1::Progress::default()
		}
	}

	#[test]
	fn a_healthy_run_raises_nothing() {
		assert_eq!(alarms(&healthy()), []);
	}

	#[test]
	fn a_new_run_without_workers_is_not_alarming_yet() {
		let progress = v1::Progress {
			uptime_seconds: 30.0,
			seconds_since_samples: 30.0,
			loss: f64::NAN,
			..v1::Progress::default()
		};
		assert_eq!(alarms(&progress), []);
	}

	#[test]
	fn a_run_without_a_stronger_net_for_its_setting_raises_the_alarm() {
		let mut progress = healthy();
		progress.taken_at = 10_000.0;
		progress.stronger_since = 10_000.0 - 1_799.0;
		progress.no_stronger_alarm_seconds = 1_800.0;
		assert_eq!(alarms(&progress), []);
		progress.stronger_since = 10_000.0 - 1_800.0;
		let found = alarms(&progress);
		assert_eq!(found, [Alarm::NoStrongerNet { seconds: 1_800.0 }]);
		assert_eq!(found[0].to_string(), "no stronger net for 30m 00s");
		// Off when the setting is 0, and before the first gate match.
		progress.no_stronger_alarm_seconds = 0.0;
		assert_eq!(alarms(&progress), []);
		progress.no_stronger_alarm_seconds = 1_800.0;
		progress.stronger_since = 0.0;
		assert_eq!(alarms(&progress), []);
	}

	#[test]
	fn an_identity_refused_in_use_is_an_alarm_for_five_minutes() {
		let mut progress = healthy();
		progress.taken_at = 10_000.0;
		progress.identity_in_use_refusals = 1;
		progress.last_identity_in_use = "worker w1 already has a live session".into();
		progress.last_identity_in_use_at = 10_000.0 - 299.0;
		let found = alarms(&progress);
		assert_eq!(
			found,
			[Alarm::IdentityInUse {
				count: 1,
				last: "worker w1 already has a live session".into()
			}]
		);
		assert!(found[0].to_string().starts_with("1 refusal of a worker"));
		// A worker restarted before its old session lapsed was refused once, long ago.
		progress.last_identity_in_use_at = 10_000.0 - IDENTITY_IN_USE_SECONDS;
		assert_eq!(alarms(&progress), []);
	}

	#[test]
	fn each_problem_raises_its_alarm() {
		let mut progress = healthy();
		progress.seconds_since_samples = 300.0;
		progress.recent_games = Some(v1::GameTally {
			tiger_wins: 1,
			sheep_wins: 0,
			draws: 99,
		});
		progress.loss = f64::NAN;
		progress.workers[0].flagged = 2;
		progress.workers[0].seconds_since_heard = 45.0;
		progress.tablebase = Some(v1::TablebaseStatus {
			state: "failed".into(),
			detail: "disk full".into(),
			..v1::TablebaseStatus::default()
		});
		progress.work = Some(v1::SelfPlayWork {
			depth: 5,
			depth_max: 5,
			trained_share: Some(0.4),
			..v1::SelfPlayWork::default()
		});
		progress.version_refusals = 3;
		progress.last_version_refusal = "upgrade the worker to build 0.2.0".into();
		progress.identity_in_use_refusals = 2;
		progress.last_identity_in_use = "worker w1 already has a live session".into();
		progress.last_identity_in_use_at = progress.taken_at - IDENTITY_IN_USE_SECONDS + 1.0;
		progress.disk = Some(v1::DiskSpace {
			dir: "runs/default".into(),
			free_bytes: Some(512 << 20),
			margin_bytes: 1 << 30,
			low: true,
			low_since: progress.taken_at - 10.0,
		});
		let found = alarms(&progress);
		assert!(
			found[0]
				.to_string()
				.contains("runs/default is short of space (512 MiB free, 1024 MiB kept)"),
			"{}",
			found[0]
		);
		assert_eq!(
			found,
			[
				Alarm::DiskLow {
					dir: "runs/default".into(),
					free_bytes: Some(512 << 20),
					margin_bytes: 1 << 30,
				},
				Alarm::NoSamples { seconds: 300.0 },
				Alarm::AllDraws {
					draws: 99,
					games: 100
				},
				Alarm::LossNotFinite,
				Alarm::Flagged {
					workers: vec!["w1".into()]
				},
				Alarm::Quiet {
					workers: vec!["w1".into()]
				},
				Alarm::VersionRefused {
					count: 3,
					last: "upgrade the worker to build 0.2.0".into()
				},
				Alarm::IdentityInUse {
					count: 2,
					last: "worker w1 already has a live session".into()
				},
				Alarm::TablebaseFailed {
					reason: "disk full".into()
				},
				Alarm::Untrained {
					share: 0.4,
					depth: 5,
					max: 5
				},
			]
		);
		assert_eq!(found[1].to_string(), "no samples for 5m 00s");
		assert_eq!(
			found[6].to_string(),
			"3 joins refused for the worker's version; the last: upgrade the worker to build 0.2.0"
		);
		assert_eq!(
			found[7].to_string(),
			"2 refusals of a worker whose identity another process holds; the last: worker w1 \
			 already has a live session"
		);
		assert_eq!(
			found[9].to_string(),
			"only 40% of samples trained on (self-play depth 5 of at most 5): the fleet outruns \
			 the trainer"
		);
		// Half or more trained on is no alarm.
		progress.work = progress.work.map(|w| v1::SelfPlayWork {
			trained_share: Some(0.5),
			..w
		});
		assert!(
			!alarms(&progress)
				.iter()
				.any(|a| matches!(a, Alarm::Untrained { .. }))
		);
	}
}
