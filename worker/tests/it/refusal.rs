//! Refusals that retrying cannot mend end `run` with an error instead of retrying forever.

use tigers_worker::WorkerError;

use crate::coordinator::{State, TestServer, net_file};
use crate::{TempDir, Worker, config};

#[tokio::test]
async fn a_refused_join_stops_the_worker_with_the_coordinators_reason() {
	let state = State::new(net_file(1, 0), 1);
	state.refuse_joins("this coordinator takes no load test (9.9.9)");
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("refused");
	let worker = Worker::start(config(&server.url(), dir.path()));
	let error = worker.finished().await.unwrap_err();
	match &error {
		WorkerError::Refused(message) => assert!(message.contains("9.9.9"), "{message}"),
		other => panic!("expected a refusal, got {other:?}"),
	}
	// Once: a refusal is not retried.
	let record = state.record();
	assert_eq!(record.joins.len(), 1);
	assert_eq!(record.sessions, 0);
}

#[tokio::test]
async fn a_wrong_token_stops_the_worker_as_unauthenticated() {
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("bad-token");
	let mut settings = config(&server.url(), dir.path());
	settings.token = Some("not-the-token".into());
	let error = Worker::start(settings).finished().await.unwrap_err();
	assert!(
		matches!(error, WorkerError::Unauthenticated(_)),
		"{error:?}"
	);
	// The server's interceptor turned it away before Join ran.
	assert!(state.record().joins.is_empty());

	let mut settings = config(&server.url(), dir.path());
	settings.token = None;
	let error = Worker::start(settings).finished().await.unwrap_err();
	assert!(
		matches!(error, WorkerError::Unauthenticated(_)),
		"{error:?}"
	);
}
