//! A worker's state directory copied to a second machine: the built binaries as processes. The
//! first worker keeps its session; the copy is told why it is refused and how to mend it, and
//! waits without taking the session over; once the first has stopped, the copy is let in,
//! and the identity's batches are in the ledger once each whatever its spool held.

use std::path::Path;
use std::time::Duration;

use tigers_proto::v1;

use crate::cluster::{
	Reaped, ledger_sequences, spawn_coordinator, spawn_worker, terminate, wait_for, wait_until,
};
use crate::common::{free_port, temp_dir};

/// Copies the files of a worker's state directory (its identity, its secret and its spool).
fn copy_state(from: &Path, to: &Path) {
	for entry in walk(from) {
		let relative = entry.strip_prefix(from).unwrap();
		let target = to.join(relative);
		std::fs::create_dir_all(target.parent().unwrap()).unwrap();
		// A batch acknowledged and deleted while the copy runs is simply not copied.
		let _ = std::fs::copy(&entry, &target);
	}
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
	let mut files = Vec::new();
	for entry in std::fs::read_dir(dir).unwrap().flatten() {
		let path = entry.path();
		if path.is_dir() {
			files.extend(walk(&path));
		} else {
			files.push(path);
		}
	}
	files
}

/// The one worker the status lists.
fn only_worker(progress: &v1::Progress) -> &v1::WorkerSummary {
	assert_eq!(progress.workers.len(), 1, "{:?}", progress.workers);
	&progress.workers[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copied_state_directory_waits_while_the_first_worker_keeps_its_session() {
	let dir = temp_dir("copied");
	std::fs::create_dir_all(&dir).unwrap();
	let (log, copy_log) = (dir.join("log.jsonl"), dir.join("copy.jsonl"));
	let port = free_port();
	let mut coordinator = Reaped(spawn_coordinator(port, &dir.join("run"), &log));
	let mut first = Reaped(spawn_worker(port, "first", &dir.join("first"), &log));
	let before = wait_for(
		port,
		Duration::from_secs(120),
		"the first worker's samples",
		|p| p.workers.iter().any(|w| w.connected && w.samples > 0),
	)
	.await;
	let identity = only_worker(&before).worker_id.clone();

	// The copy presents the same identity and secret from another process.
	copy_state(&dir.join("first"), &dir.join("copy"));
	let mut copy = Reaped(spawn_worker(port, "copy", &dir.join("copy"), &copy_log));
	wait_until(Duration::from_secs(60), "the copy's refusal", || {
		std::fs::read_to_string(&copy_log)
			.is_ok_and(|text| text.contains("already has a live session from another process"))
	});
	let said = std::fs::read_to_string(&copy_log).unwrap();
	assert!(said.contains("state directory was copied"), "{said}");
	assert!(
		said.contains("delete the worker_id and worker_secret files"),
		"{said}"
	);
	assert!(
		copy.0.try_wait().unwrap().is_none(),
		"the copy waits, it does not stop"
	);

	// The first keeps its session, its name and its host, and its samples keep coming.
	let during = wait_for(
		port,
		Duration::from_secs(60),
		"more of the first's samples",
		|p| {
			p.identity_in_use_refusals >= 1 && only_worker(p).samples > only_worker(&before).samples
		},
	)
	.await;
	let shown = only_worker(&during);
	assert_eq!(shown.worker_id, identity);
	assert!(shown.connected);
	assert_eq!(shown.name, "first");
	assert_eq!(shown.reconnects, 0, "the copy never took the session over");
	assert!(
		during.last_identity_in_use.contains(&identity[..8]),
		"{during:?}"
	);

	// Once the first stops, the copy is let in. What its worker does then depends on its
	// spool: batches in it were delivered by the first meanwhile, so it refuses to send them
	// (its state directory is older than the identity); with none, it carries the identity on
	// from the last batch stored. Either way no batch is stored twice or skipped.
	terminate(&mut first.0);
	wait_for(
		port,
		Duration::from_secs(30),
		"the first's session closed",
		|p| !only_worker(p).connected,
	)
	.await;
	wait_until(Duration::from_secs(90), "the copy let in", || {
		std::fs::read_to_string(&copy_log).is_ok_and(|text| {
			text.contains("this state directory is older than the worker's")
				|| text.contains("skipping ahead")
		})
	});
	terminate(&mut copy.0);
	let last = wait_for(port, Duration::from_secs(10), "a last status", |_| true).await;
	assert_eq!(last.batches_rejected, 0, "{:?}", last.rejections);
	terminate(&mut coordinator.0);
	let ledger = ledger_sequences(&dir.join("run"));
	assert_eq!(ledger.len(), 1, "one identity: {ledger:?}");
	let (worker, sequences, samples) = &ledger[0];
	assert_eq!(worker, &identity);
	let n = sequences.len() as u64;
	assert_eq!(sequences, &(1..=n).collect::<Vec<_>>(), "gaps or repeats");
	assert_eq!(*samples, last.samples_total);
}
