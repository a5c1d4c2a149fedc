//! `Live`'s and `Shared`'s unit tests: the best net named once a change, the snapshot's bounds.

use std::time::Duration;

use super::*;

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
}

fn worker(threads: u32, connected: bool) -> WorkerInfo {
	WorkerInfo {
		connected,
		sessions: 1,
		..WorkerInfo::new(String::new(), String::new(), threads, unix_now())
	}
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
	assert_eq!(live.rejections[&RejectReason::Sample], 2);
}
