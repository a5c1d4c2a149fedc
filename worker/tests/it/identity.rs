//! The worker's identity: the secret its first join hands it is kept in the state directory
//! and presented from then on; a refused identity stops the worker; a coordinator claiming
//! more batches than the worker ever numbered is not believed.

use tigers_worker::WorkerError;
use tigers_worker::spool::Spool;

use crate::coordinator::{Mode, SECRET, State, TestServer, net_file};
use crate::{PATIENCE, TempDir, Worker, config};

#[tokio::test]
async fn the_secret_handed_at_the_first_join_is_kept_and_presented() {
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("secret-kept");
	let first = Worker::start(config(&server.url(), dir.path()));
	state
		.wait_for("a stored batch", PATIENCE, |r| !r.stored.is_empty())
		.await;
	first.stop().await.unwrap();
	let kept = std::fs::read_to_string(dir.path().join("worker_secret")).unwrap();
	assert_eq!(kept.trim(), SECRET);

	let second = Worker::start(config(&server.url(), dir.path()));
	state
		.wait_for("a second session", PATIENCE, |r| r.sessions >= 2)
		.await;
	second.stop().await.unwrap();
	let record = state.record();
	assert_eq!(
		record.joins[0].worker_secret, "",
		"none before the first join"
	);
	assert!(record.joins[1..].iter().all(|j| j.worker_secret == SECRET));
	assert!(record.session_secrets.iter().all(|s| s == SECRET));
}

#[tokio::test]
async fn an_identity_bound_to_another_secret_stops_the_worker() {
	let state = State::new(net_file(1, 0), 1);
	state.bind_secret(&"0".repeat(64));
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("secret-refused");
	let error = Worker::start(config(&server.url(), dir.path()))
		.finished()
		.await
		.unwrap_err();
	assert!(
		matches!(&error, WorkerError::IdentityRefused(m) if m.contains("another secret")),
		"{error:?}"
	);
	assert!(error.to_string().contains("--state-dir"), "{error}");
	let record = state.record();
	assert_eq!(record.joins.len(), 1, "a refusal is not retried");
	assert_eq!(record.sessions, 0);
}

#[tokio::test]
async fn a_coordinator_claiming_unsent_batches_makes_the_worker_keep_its_spool() {
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("claim-ahead");
	let mut settings = config(&server.url(), dir.path());
	settings.shutdown_grace = std::time::Duration::ZERO;
	// Batches vanish unacknowledged, so the spool holds some when the worker stops.
	state.set_mode(Mode::Swallow);
	let first = Worker::start(settings.clone());
	state
		.wait_for("three lost batches", PATIENCE, |r| r.swallowed.len() >= 3)
		.await;
	first.stop().await.unwrap();
	state
		.wait_for("the session to end", PATIENCE, |r| {
			r.sessions_ended == r.sessions
		})
		.await;
	let spooled = Spool::open(&dir.path().join("spool"), 20)
		.unwrap()
		.sequences_after(0);
	assert!(spooled.len() >= 3, "{spooled:?}");

	// The coordinator now claims far more than the worker ever numbered.
	state.set_mode(Mode::Store);
	state.claim_last_acked((1 << 63) - 1);
	let (received, sessions) = {
		let record = state.record();
		(record.received.len(), record.sessions)
	};
	let second = Worker::start(settings);
	state
		.wait_for("three joins after the claim", PATIENCE, |r| {
			r.joins.len() >= 4
		})
		.await;
	second.stop().await.unwrap();
	let record = state.record();
	assert_eq!(record.received.len(), received, "nothing was sent");
	assert_eq!(record.sessions, sessions, "no session was opened");
	let spool = Spool::open(&dir.path().join("spool"), 20).unwrap();
	let kept = spool.sequences_after(0);
	assert!(
		spooled.iter().all(|s| kept.contains(s)),
		"{spooled:?} not all in {kept:?}"
	);
	assert!(spool.next_sequence() < 1 << 63);
}
