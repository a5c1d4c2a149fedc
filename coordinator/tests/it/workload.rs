//! The self-play depth following the fleet: a session that sends samples far faster than the
//! trainer can use them is asked for deeper searches, never beyond the bound, and for shallower
//! ones again once the samples stop.

use std::time::{Duration, Instant};

use tigers_coordinator::config::DepthAdaptation;
use tigers_proto::v1;
use tigers_proto::v1::coordinator_message::Body as ToWorker;

use crate::common::{
	WAIT, batch_message, client, join, real_batch, session, start, status, temp_dir, test_config,
};

/// Reads the session until `sequence` is acknowledged, or, with `None`, until `until`; returns
/// the depths of the assignments that came meanwhile.
async fn read_session(
	inbound: &mut tonic::Streaming<v1::CoordinatorMessage>,
	sequence: Option<u64>,
	until: Instant,
) -> Vec<u32> {
	let mut depths = Vec::new();
	loop {
		let left = until.saturating_duration_since(Instant::now());
		let Ok(message) = tokio::time::timeout(left, inbound.message()).await else {
			assert!(
				sequence.is_none(),
				"no acknowledgement of {sequence:?} in time"
			);
			return depths;
		};
		let message = message.expect("the session stays healthy");
		match message.expect("the session stays open").body {
			Some(ToWorker::Assignment(assignment)) => depths.push(assignment.depth),
			Some(ToWorker::Ack(ack)) if Some(ack.sequence) == sequence => {
				assert!(ack.accepted, "batch {} refused", ack.sequence);
				return depths;
			}
			other => panic!("unexpected message {other:?}"),
		}
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coordinator_fed_faster_than_it_trains_raises_the_depth_within_bounds() {
	let dir = temp_dir("workload");
	let mut config = test_config(dir.to_path_buf(), None);
	config.run.depth = 1;
	config.run.adapt = DepthAdaptation {
		max_depth: 3,
		period: Duration::from_secs(1),
	};
	// Each sample may be drawn 100,000 times, so a step of 16 examples consumes 0.00016 fresh
	// samples: whatever the machine, the trainer can use only a few a second, and one session
	// sending batches as fast as they are acknowledged outruns it.
	config.run.training.max_uses = 100_000;
	config.run.training.window = 2_000;
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "feeder").await;
	let (sender, mut inbound, first) = session(&mut client, "feeder", &secret).await;
	assert_eq!(first.depth, 1, "a run starts at its minimum depth");
	let games: Vec<v1::SampleBatch> = (0..8).map(|seed| real_batch(0, 0, seed)).collect();

	// Fed: the depth goes up a ply a period, to the bound and no further.
	let mut depths = vec![first.depth];
	let mut sequence = 0;
	let fed_until = Instant::now() + Duration::from_secs(60);
	let mut at_bound_since = None;
	while at_bound_since.is_none_or(|since: Instant| since.elapsed() < Duration::from_secs(3)) {
		assert!(
			Instant::now() < fed_until,
			"the depth went {depths:?} in a minute of feeding"
		);
		sequence += 1;
		let mut batch = games[sequence as usize % games.len()].clone();
		batch.sequence = sequence;
		sender.send(batch_message(batch)).await.expect("sent");
		depths.extend(read_session(&mut inbound, Some(sequence), Instant::now() + WAIT).await);
		if at_bound_since.is_none() && depths.last() == Some(&3) {
			at_bound_since = Some(Instant::now());
		}
	}
	assert_eq!(depths, [1, 2, 3], "one ply at a time, up to the bound");
	let work = status(&mut client)
		.await
		.work
		.expect("the snapshot has the work");
	assert_eq!((work.depth, work.depth_min, work.depth_max), (3, 1, 3));
	assert!(
		work.arriving_per_second > work.trainable_per_second && work.trainable_per_second > 0.0,
		"{work:?}"
	);

	// Starved: back down to the minimum, a ply a period.
	let lowered = read_session(&mut inbound, None, Instant::now() + Duration::from_secs(8)).await;
	assert_eq!(lowered, [2, 1], "the depth goes down again without samples");
	let work = status(&mut client)
		.await
		.work
		.expect("the snapshot has the work");
	assert_eq!(work.depth, 1);
	assert_eq!(work.arriving_per_second, 0.0);
	drop(sender);
	running.stop().await;
	let _ = std::fs::remove_dir_all(&dir);
}
