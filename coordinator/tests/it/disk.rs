//! A full disk: a coordinator whose run directory is on a small tmpfs (mounted by the test,
//! which needs root, as in CI) is filled mid-run and freed again. While short of space it
//! keeps its sessions open and acknowledges nothing, `status` says so, and once space returns
//! every batch is stored and acknowledged, once.

use std::time::{Duration, Instant};

use tigers_proto::v1;
use tigers_testkit::disk::{Tmpfs, fill};

use crate::common::*;

/// The samples in the batches [`real_batch`] makes for `sequences` (each its own seed).
fn samples_in(sequences: std::ops::Range<u64>) -> u64 {
	sequences
		.map(|sequence| real_batch(sequence, 0, sequence).samples.len() as u64)
		.sum()
}

/// Sends the batches [`real_batch`] makes for `sequences` on a task of its own (the session
/// may stop reading), which hands the sender back at the end.
fn send_in_background(
	sender: tokio::sync::mpsc::Sender<v1::WorkerMessage>,
	sequences: std::ops::Range<u64>,
) -> tokio::task::JoinHandle<tokio::sync::mpsc::Sender<v1::WorkerMessage>> {
	tokio::spawn(async move {
		for sequence in sequences {
			sender
				.send(batch_message(real_batch(sequence, 0, sequence)))
				.await
				.unwrap();
		}
		sender
	})
}

/// The run's disk as `status` shows it.
async fn disk(client: &mut Client) -> v1::DiskSpace {
	status(client).await.disk.expect("the run's disk")
}

/// Waits until `status` says the disk is short of space (or not, for `low` false).
async fn until_disk(client: &mut Client, low: bool) -> v1::DiskSpace {
	let deadline = Instant::now() + WAIT;
	loop {
		let disk = disk(client).await;
		if disk.low == low {
			return disk;
		}
		assert!(
			Instant::now() < deadline,
			"the disk never became low={low}: {disk:?}"
		);
		tokio::time::sleep(Duration::from_millis(100)).await;
	}
}

/// Reads acknowledgements until `count` have come, none refused; panics if the session ends.
async fn acks(inbound: &mut tonic::Streaming<v1::CoordinatorMessage>, count: usize) {
	for _ in 0..count {
		let ack = next_ack(inbound).await.expect("the session stays open");
		assert!(ack.accepted, "{ack:?}");
	}
}

/// No acknowledgement and no end of the session for `wait`.
async fn silence(inbound: &mut tonic::Streaming<v1::CoordinatorMessage>, wait: Duration) {
	let deadline = tokio::time::Instant::now() + wait;
	loop {
		match tokio::time::timeout_at(deadline, inbound.message()).await {
			Err(_) => return,
			Ok(Ok(Some(v1::CoordinatorMessage {
				body: Some(v1::coordinator_message::Body::Assignment(_)),
			}))) => continue,
			Ok(other) => panic!("while the disk is short of space: {other:?}"),
		}
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn below_the_margin_batches_wait_with_the_session_open_and_are_stored_once_space_returns() {
	let Some(fs) = Tmpfs::mount("margin", 48) else {
		return;
	};
	let mut config = test_config(fs.dir().join("run"), None);
	config.min_free_bytes = 8 << 20;
	// Shorter than the wait below: a session waiting for the disk must not end for idleness.
	config.limits.session_idle_timeout = Duration::from_secs(2);
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "d1").await;
	let (sender, mut inbound, _) = session(&mut client, "d1", &secret).await;
	let first = real_batch(1, 0, 1);
	let per_batch = first.samples.len() as u64;
	sender.send(batch_message(first)).await.unwrap();
	acks(&mut inbound, 1).await;
	assert!(!disk(&mut client).await.low);

	let ballast = fill(fs.dir(), 4 << 20);
	let short = until_disk(&mut client, true).await;
	assert!(short.free_bytes.unwrap() < short.margin_bytes, "{short:?}");
	assert!(
		short.low_since > 0.0 && short.dir.ends_with("run"),
		"{short:?}"
	);
	// More batches than a session holds in flight: it stops reading, and neither the worker's
	// silence nor the wait ends it.
	let batches = 40u64;
	let sending = send_in_background(sender, 2..2 + batches);
	silence(&mut inbound, Duration::from_secs(5)).await;
	assert_eq!(status(&mut client).await.samples_total, per_batch);

	std::fs::remove_file(&ballast).unwrap();
	until_disk(&mut client, false).await;
	acks(&mut inbound, batches as usize).await;
	let _sender = sending.await.unwrap();
	let progress = status(&mut client).await;
	let expected = samples_in(1..2 + batches);
	assert_eq!(progress.samples_total, expected);
	assert_eq!(progress.workers_connected, 1);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_fails_for_lack_of_space_is_done_again_once_space_returns() {
	let Some(fs) = Tmpfs::mount("full", 48) else {
		return;
	};
	let mut config = test_config(fs.dir().join("run"), None);
	// No margin: only a failed write starts the state.
	config.min_free_bytes = 0;
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "d2").await;
	let (sender, mut inbound, _) = session(&mut client, "d2", &secret).await;
	sender
		.send(batch_message(real_batch(1, 0, 1)))
		.await
		.unwrap();
	acks(&mut inbound, 1).await;

	let ballast = fill(fs.dir(), 0);
	// Enough batches to outgrow what the ledger's files hold already.
	let batches = 300u64;
	let sending = send_in_background(sender, 2..2 + batches);
	// Some may be stored before a write fails; then the acknowledgements stop.
	let mut acknowledged = 0;
	while let Ok(ack) = tokio::time::timeout(Duration::from_secs(3), next_ack(&mut inbound)).await {
		assert!(ack.expect("the session stays open").accepted);
		acknowledged += 1;
		assert!(
			acknowledged < batches,
			"every batch was stored on a full disk"
		);
	}
	let short = disk(&mut client).await;
	assert!(short.low, "{short:?}");

	std::fs::remove_file(&ballast).unwrap();
	acks(&mut inbound, (batches - acknowledged) as usize).await;
	let _sender = sending.await.unwrap();
	until_disk(&mut client, false).await;
	let expected = samples_in(1..2 + batches);
	assert_eq!(status(&mut client).await.samples_total, expected);
	running.stop().await;
}
