//! A worker's session: joining, fetching nets, numbered batches, heartbeats, new nets, and
//! coming back after the coordinator dies.

use tigers_core::network::Encoding;
use tigers_proto::convert::sample_from_wire;
use tigers_worker::spool::Spool;

use crate::coordinator::{Mode, State, TestServer, assignment, net_file};
use crate::{PATIENCE, TempDir, Worker, check_batch, config, is_contiguous_from_one};

#[tokio::test]
async fn a_worker_joins_fetches_the_net_and_streams_numbered_batches() {
	let net = net_file(1, 3);
	let state = State::new(net.clone(), 2);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("stream");
	let worker = Worker::start(config(&server.url(), dir.path()));
	state
		.wait_for("three batches and a heartbeat with games", PATIENCE, |r| {
			r.stored.len() >= 3 && r.heartbeats.iter().any(|h| h.games > 0)
		})
		.await;
	{
		let record = state.record();
		let join = &record.joins[0];
		assert_eq!(join.name, "it-worker");
		assert_eq!(join.threads, 1);
		assert_eq!(join.build_version, env!("CARGO_PKG_VERSION"));
		assert_eq!(join.input_version, Encoding::NEWEST.version());
		assert!(!join.host.is_empty());
		assert!(
			join.worker_id.starts_with("it-worker-"),
			"{}",
			join.worker_id
		);
		assert_eq!(record.fetches.len(), 1);
		assert_eq!(record.fetches[0].generation, 3);
		// Sequences from 1, in order, each sent once.
		assert!(is_contiguous_from_one(record.stored.keys()));
		assert_eq!(record.received[..3], [1, 2, 3]);
		assert_eq!(record.duplicates, 0);
		for batch in record.stored.values() {
			assert_eq!(batch.game_records.len(), 2);
			check_batch(batch, &[3]);
		}
		let beat = record.heartbeats.iter().find(|h| h.games > 0).unwrap();
		assert_eq!(beat.generation, Some(3));
		assert!(beat.unacked_batches <= 20);
	}
	worker.stop().await.unwrap();
	// Everything spooled before the stop was sent and acknowledged within the grace period.
	let spool = Spool::open(&dir.path().join("spool"), 20).unwrap();
	assert!(spool.is_empty(), "{:?}", spool.sequences_after(0));
	let record = state.record();
	assert_eq!(spool.next_sequence(), record.stored.len() as u64 + 1);
	assert!(is_contiguous_from_one(record.stored.keys()));
}

#[tokio::test]
async fn a_pushed_net_is_fetched_and_played_from_the_next_game_on() {
	let (first, second) = (net_file(1, 3), net_file(2, 4));
	let state = State::new(first, 1);
	state.add_net(second.clone());
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("push");
	let worker = Worker::start(config(&server.url(), dir.path()));
	state
		.wait_for("a batch of generation 3", PATIENCE, |r| {
			!r.stored.is_empty()
		})
		.await;
	state.push_assignment(assignment(&second, 1));
	// With one thread, at most the game in progress at the push is still of generation 3.
	state
		.wait_for("three batches of generation 4", PATIENCE, |r| {
			let generations: Vec<u64> =
				r.stored.values().map(|b| b.samples[0].generation).collect();
			generations.iter().rev().take(3).all(|g| *g == 4) && generations.len() >= 4
		})
		.await;
	{
		let record = state.record();
		let fetched: Vec<u64> = record.fetches.iter().map(|f| f.generation).collect();
		assert_eq!(fetched, [3, 4]);
		let generations: Vec<u64> = record
			.stored
			.values()
			.map(|b| {
				check_batch(b, &[3, 4]);
				// A game is played with one net from start to end.
				let first = b.samples[0].generation;
				assert!(b.samples.iter().all(|s| s.generation == first));
				first
			})
			.collect();
		// Once switched, never back.
		let switch = generations.iter().position(|g| *g == 4).unwrap();
		assert!(
			generations[switch..].iter().all(|g| *g == 4),
			"{generations:?}"
		);
		assert!(switch <= record.stored.len() - 3);
	}
	worker.stop().await.unwrap();
}

#[tokio::test]
async fn a_net_whose_hash_differs_from_the_announced_one_is_never_played() {
	let net = net_file(1, 0);
	let state = State::new(net.clone(), 1);
	// The bytes served are another net's: the worker must refuse them.
	let mut impostor = net_file(2, 0);
	impostor.sha256 = net.sha256.clone();
	state.add_net(impostor);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("bad-hash");
	let worker = Worker::start(config(&server.url(), dir.path()));
	// Refusing, the worker holds no net, so each new session fetches again.
	state
		.wait_for("three fetches", PATIENCE, |r| r.fetches.len() >= 3)
		.await;
	{
		let record = state.record();
		assert!(record.sessions >= 3);
		assert!(record.received.is_empty(), "{:?}", record.received);
	}
	worker.stop().await.unwrap();
	assert!(state.record().received.is_empty());
}

#[tokio::test]
async fn after_the_coordinator_dies_the_worker_reconnects_and_resends_what_was_lost() {
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(state.clone());
	let address = server.address;
	let dir = TempDir::new("reconnect");
	let worker = Worker::start(config(&server.url(), dir.path()));
	state
		.wait_for("two stored batches", PATIENCE, |r| r.stored.len() >= 2)
		.await;
	// Batches now vanish in flight, unacknowledged; then the coordinator dies.
	state.set_mode(Mode::Swallow);
	state
		.wait_for("two lost batches", PATIENCE, |r| r.swallowed.len() >= 2)
		.await;
	server.kill();
	let (stored_before, lost) = {
		let record = state.record();
		(record.stored.len() as u64, record.swallowed.clone())
	};
	assert!(is_contiguous_from_one(state.record().stored.keys()));
	// The coordinator comes back on the same address and stores again.
	state.set_mode(Mode::Store);
	let server = TestServer::start(state.clone(), address);
	let highest_lost = *lost.iter().max().unwrap();
	state
		.wait_for("the lost batches stored and more", PATIENCE, |r| {
			r.stored.len() as u64 > highest_lost + 2
		})
		.await;
	{
		let record = state.record();
		assert!(record.joins.len() >= 2, "the worker joined again by itself");
		assert_eq!(
			record.joins[0].worker_id,
			record.joins.last().unwrap().worker_id
		);
		// Every sequence stored once, with no gap: the lost ones were sent again.
		assert!(is_contiguous_from_one(record.stored.keys()));
		for sequence in &lost {
			assert!(*sequence > stored_before);
			assert!(record.stored.contains_key(sequence));
			let sends = record.received.iter().filter(|s| *s == sequence).count();
			assert!(sends >= 2, "batch {sequence} was sent {sends} times");
		}
		for batch in record.stored.values() {
			check_batch(batch, &[0]);
			for (index, sample) in batch.samples.iter().enumerate() {
				sample_from_wire(index, sample).unwrap();
			}
		}
	}
	worker.stop().await.unwrap();
	drop(server);
}

#[tokio::test]
async fn a_batch_the_coordinator_refuses_as_malformed_is_dropped_not_resent() {
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("rejected");
	let worker = Worker::start(config(&server.url(), dir.path()));
	state
		.wait_for("a stored batch", PATIENCE, |r| !r.stored.is_empty())
		.await;
	state.set_mode(Mode::RejectNext);
	state
		.wait_for("a refusal, then three more batches", PATIENCE, |r| {
			r.rejected.len() == 1 && r.stored.keys().any(|s| *s > r.rejected[0] + 3)
		})
		.await;
	{
		let record = state.record();
		let rejected = record.rejected[0];
		assert_eq!(record.sessions, 2, "the worker opened a new session");
		// Sent once, never again; every other sequence stored.
		assert_eq!(
			record.received.iter().filter(|s| **s == rejected).count(),
			1
		);
		assert!(!record.stored.contains_key(&rejected));
		let highest = *record.stored.keys().last().unwrap();
		assert_eq!(record.stored.len() as u64, highest - 1);
	}
	worker.stop().await.unwrap();
}

#[tokio::test]
async fn a_worker_trusts_a_self_signed_coordinator_given_with_tls_ca() {
	let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
	let certificate = data.join("test-coordinator.pem");
	let identity = tonic::transport::Identity::from_pem(
		std::fs::read(&certificate).unwrap(),
		std::fs::read(data.join("test-coordinator.key")).unwrap(),
	);
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::with_tls(state.clone(), identity);
	let url = format!("https://{}", server.address);
	let dir = TempDir::new("tls");

	let mut trusting = config(&url, &dir.path().join("trusting"));
	trusting.tls_ca = Some(certificate);
	let worker = Worker::start(trusting);
	state
		.wait_for("a batch over TLS", PATIENCE, |r| !r.stored.is_empty())
		.await;
	worker.stop().await.unwrap();

	// Trusting another certificate, the worker refuses the handshake every time it tries.
	let (joins, connections) = {
		let record = state.record();
		(record.joins.len(), record.connections)
	};
	let mut distrusting = config(&url, &dir.path().join("distrusting"));
	distrusting.tls_ca = Some(data.join("unrelated-ca.pem"));
	let worker = Worker::start(distrusting);
	state
		.wait_for("three more connection attempts", PATIENCE, |r| {
			r.connections >= connections + 3
		})
		.await;
	assert_eq!(state.record().joins.len(), joins);
	worker.stop().await.unwrap();
}
