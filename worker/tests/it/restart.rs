//! A worker restarted with the same state directory: same identity, sequence numbers going on,
//! and the spool of the previous run sent.

use tigers_worker::spool::Spool;

use crate::coordinator::{Mode, State, TestServer, net_file};
use crate::{PATIENCE, TempDir, Worker, check_batch, config, is_contiguous_from_one};

#[tokio::test]
async fn a_restarted_worker_continues_its_sequence_and_resends_its_spool() {
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("restart");
	let mut settings = config(&server.url(), dir.path());
	// Stop at once: what is not acknowledged must stay in the spool.
	settings.shutdown_grace = std::time::Duration::ZERO;

	let first = Worker::start(settings.clone());
	state
		.wait_for("two stored batches", PATIENCE, |r| r.stored.len() >= 2)
		.await;
	state.set_mode(Mode::Swallow);
	state
		.wait_for("two lost batches", PATIENCE, |r| r.swallowed.len() >= 2)
		.await;
	first.stop().await.unwrap();
	// Batches the first worker sent just before it stopped may still be on their way; the
	// server must not store them when it stops swallowing, or its record would have a gap
	// no real coordinator makes.
	state
		.wait_for("the first session to end", PATIENCE, |r| {
			r.sessions_ended == r.sessions
		})
		.await;

	let stored_before = state.record().stored.len() as u64;
	let (spooled, next_sequence) = {
		let spool = Spool::open(&dir.path().join("spool"), 20).unwrap();
		(spool.sequences_after(0), spool.next_sequence())
	};
	// The lost batches (and any made since) wait on disk, numbered after the stored ones.
	assert!(spooled.len() >= 2, "{spooled:?}");
	assert_eq!(spooled[0], stored_before + 1);
	assert!(state.record().swallowed.iter().all(|s| spooled.contains(s)));
	assert_eq!(next_sequence, spooled.last().unwrap() + 1);

	state.set_mode(Mode::Store);
	let second = Worker::start(settings);
	state
		.wait_for("the spool sent and new batches after it", PATIENCE, |r| {
			r.stored.len() as u64 > next_sequence
		})
		.await;
	second.stop().await.unwrap();

	let record = state.record();
	assert_eq!(record.joins.len(), 2);
	assert_eq!(record.joins[0].worker_id, record.joins[1].worker_id);
	assert!(is_contiguous_from_one(record.stored.keys()));
	for sequence in &spooled {
		assert!(
			record.stored.contains_key(sequence),
			"batch {sequence} was not sent"
		);
	}
	// The second run numbered its own batches after the first run's.
	assert!(record.stored.contains_key(&next_sequence));
	for batch in record.stored.values() {
		check_batch(batch, &[0]);
	}
	drop(server);
}
