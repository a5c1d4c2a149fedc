//! The live state's unit tests: a worker's join, sessions and batches, the counters, the best
//! net named once a change, a measurement at equal time, and the snapshot's bounds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tigers_core::Turn;
use tigers_proto::v1;
use tokio::sync::Notify;

use crate::clock::unix_now;
use crate::error::{RejectReason, ServiceError};
use crate::live::snapshot::LISTED_WORKERS;
use crate::live::worker::WorkerInfo;
use crate::live::{BatchFigures, Joining, Live};

#[test]
fn the_best_net_is_named_once_each_time_it_changes() {
	let side = Some(v1::SideResult {
		wins: 60,
		draws: 30,
		losses: 10,
	});
	let gate = |generation| v1::GateSummary {
		generation,
		measurement: true,
		promoted: true,
		as_tigers: side,
		as_sheep: side,
		..v1::GateSummary::default()
	};
	let mut live = Live::default();
	assert_eq!(live.best_changed(), None);
	live.record_gate(gate(0));
	assert_eq!(live.best_changed(), Some(0));
	assert_eq!(live.best_changed(), None);
	// Generation 1 beats generation 0 head to head: it is the best now.
	live.record_gate(v1::GateSummary {
		opponent_generation: Some(0),
		measurement: false,
		..gate(1)
	});
	live.record_gate(gate(1));
	assert_eq!(live.best_changed(), Some(1));
	assert_eq!(live.gates.total(), 3);
	let ladder = live.ladder.summary();
	assert_eq!((ladder.matches, ladder.best_generation), (3, Some(1)));
	// A pointer that could not be written is named again after the next match.
	live.best_not_named();
	assert_eq!(live.best_changed(), Some(1));
}

fn worker(threads: u32, connected: bool) -> WorkerInfo {
	WorkerInfo {
		connected,
		sessions: 1,
		..WorkerInfo::new(String::new(), String::new(), threads, unix_now())
	}
}

#[test]
fn cpu_time_counts_connected_threads_only() {
	let start = Instant::now();
	let mut live = Live::default();
	live.workers.insert("a".into(), worker(4, true));
	live.workers.insert("b".into(), worker(8, false));
	live.count_cpu(start);
	live.count_cpu(start + Duration::from_secs(90));
	assert_eq!(live.cpu_seconds, 360.0);
	live.workers.get_mut("b").unwrap().connected = true;
	let hours = live.cpu_hours(start + Duration::from_secs(390));
	assert!((hours - (360.0 + 12.0 * 300.0) / 3600.0).abs() < 1e-9);
}

#[test]
fn rejections_are_counted_by_reason() {
	let mut live = Live::default();
	live.count_rejection(RejectReason::Sample);
	live.count_rejection(RejectReason::Sample);
	live.count_rejection(RejectReason::Size);
	assert_eq!(live.batches_rejected(), 3);
	assert_eq!(live.rejected(RejectReason::Sample), 2);
	assert_eq!(live.rejected(RejectReason::Run), 0);
}

#[test]
fn a_measurement_at_equal_time_runs_then_is_recorded() {
	let mut live = Live::default();
	live.timed_started(v1::TimedRunning {
		generation: 4,
		pairs: 100,
		..v1::TimedRunning::default()
	});
	live.timed_progressed(7);
	assert_eq!(live.timed_running().map(|r| r.pairs_done), Some(7));
	live.timed_finished(v1::TimedMeasurement {
		generation: 4,
		..v1::TimedMeasurement::default()
	});
	assert!(live.timed_running().is_none());
	assert!(live.is_timed(4) && !live.is_timed(3));
	assert_eq!(live.last_timed().map(|t| t.generation), Some(4));
}

fn joining(name: &str) -> Joining {
	Joining {
		name: name.into(),
		host: "h".into(),
		threads: 2,
		samples: 40,
		flagged: 1,
		secret_sha256: "ab".into(),
		secret_confirmed: false,
	}
}

#[test]
fn a_worker_joins_opens_a_session_sends_a_batch_and_closes_it() {
	let mut live = Live::default();
	assert!(matches!(
		live.session_opened("w", "p".into(), 1, &Arc::new(Notify::new())),
		Err(ServiceError::NotJoined(_))
	));
	live.worker_joined("w", joining("first"));
	// A second join keeps the ledger's totals of the first and takes the new name.
	live.worker_joined("w", joining("second"));
	let worker = live.worker("w").unwrap();
	assert_eq!((worker.name.as_str(), worker.samples), ("second", 40));
	assert_eq!(worker.secret_sha256(), Some("ab"));
	assert!(!worker.is_secret_confirmed());
	live.session_opened("w", "p".into(), 1, &Arc::new(Notify::new()))
		.unwrap();
	assert!(live.worker("w").unwrap().is_secret_confirmed());
	assert_eq!(live.workers_connected(), 1);
	// Another process under the same identity waits while this session is live.
	assert!(matches!(
		live.check_not_held("w", "q"),
		Err(ServiceError::IdentityInUse { .. })
	));
	assert_eq!(live.identity_in_use_refusals, 1);
	live.check_not_held("w", "p").unwrap();
	live.heartbeat("w", Some(3), 12.5);
	let last = "a game".to_string();
	let batch = BatchFigures {
		samples: 100,
		superseded: 10,
		games: 2,
		last_game: Some(&last),
	};
	live.batch_stored("w", batch, [Some(Turn::Tiger), None]);
	assert_eq!((live.samples_total(), live.games_total()), (100, 2));
	assert_eq!(live.last_game, "a game");
	assert_eq!(live.worker("w").unwrap().samples, 140);
	// An older session closing leaves the newer one open.
	live.session_opened("w", "p".into(), 2, &Arc::new(Notify::new()))
		.unwrap();
	live.session_closed("w", 1);
	assert_eq!(live.workers_connected(), 1);
	live.session_closed("w", 2);
	let worker = live.worker("w").unwrap();
	assert!(!worker.connected);
	assert_eq!(
		(worker.generation, worker.samples_per_second),
		(Some(3), 0.0)
	);
}

#[test]
fn old_workers_are_forgotten_and_listing_is_bounded() {
	let start = unix_now();
	let mut live = Live::default();
	let at = |seconds: u32| start + f64::from(seconds);
	let mut add = |id: String, connected, heard| {
		let mut w = worker(1, connected);
		w.last_heard = heard;
		live.workers.insert(id, w);
	};
	add("gone-long".into(), false, start);
	add("connected-long".into(), true, start);
	for n in 0..1000 {
		add(format!("flood-{n:04}"), false, at(10_000 + n));
	}
	let now = at(12_000);
	let listed = live.listed_workers(now);
	assert_eq!(listed.len(), LISTED_WORKERS);
	// A session always shows; then the most recently heard; in identity order.
	assert!(listed.iter().any(|(id, _)| *id == "connected-long"));
	assert!(listed.iter().any(|(id, _)| *id == "flood-0999"));
	assert!(!listed.iter().any(|(id, _)| *id == "gone-long"));
	assert!(listed.windows(2).all(|w| w[0].0 < w[1].0));
	assert_eq!(live.forget_workers(now, Duration::from_secs(5_000)), 1);
	assert!(live.workers.contains_key("connected-long"));
	assert!(!live.workers.contains_key("gone-long"));
	assert_eq!(live.forget_workers(now, Duration::from_secs(5_000)), 0);
	assert_eq!(
		live.forget_workers(at(20_000), Duration::from_secs(60)),
		1000
	);
	assert_eq!(live.workers.len(), 1);
}
