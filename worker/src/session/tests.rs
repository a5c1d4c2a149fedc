//! The session loop's tests: the retry loop's waits with no coordinator, which failures end the
//! worker, and what the coordinator's status metadata asks for.

use std::sync::atomic::AtomicU32;

use tigers_proto::v1::SampleBatch;
use tonic::metadata::MetadataValue;

use super::*;
use crate::config::WorkerConfig;
use crate::selfplay::Control;
use crate::state::StateDir;
use crate::testing::TempDir;

/// The parts of a worker that the retry loop uses, with one batch spooled (so that a
/// draining worker has something to send) and no coordinator.
struct Stopping {
	shared: Shared,
	draining: watch::Sender<bool>,
	_state: StateDir,
	_dir: TempDir,
}

fn stopping(label: &str) -> Stopping {
	let dir = TempDir::new(label);
	let state = StateDir::open(dir.path(), "retry").unwrap();
	let spool = Spool::open(&state.spool_dir(), 10).unwrap();
	spool.push(&mut SampleBatch::default()).unwrap();
	let (draining, draining_receiver) = watch::channel(false);
	let shared = Shared {
		connector: crate::client::connector(&WorkerConfig::new("http://127.0.0.1:1")).unwrap(),
		join: JoinRequest::default(),
		secret: Arc::new(state.secret().unwrap()),
		spool: Arc::new(spool),
		control: Arc::new(Control::default()),
		tablebases: Arc::new(TablebaseStore::new(None, false)),
		stats: Arc::new(Stats::new(Instant::now())),
		spooled: Arc::new(Notify::new()),
		heartbeat_interval: Duration::from_secs(5),
		draining: draining_receiver,
	};
	Stopping {
		shared,
		draining,
		_state: state,
		_dir: dir,
	}
}

/// Runs the retry loop with `settings` for `grace` of the paused clock, every attempt
/// failing at once, and returns how many attempts were made. The attempts end the loop
/// after 1,000, so that a loop that never sleeps fails the test instead of hanging it.
async fn attempts_within(stopping: &Stopping, settings: BackoffSettings, grace: Duration) -> u32 {
	let attempts = Arc::new(AtomicU32::new(0));
	let mut backoff = Backoff::new(settings, 7);
	let counted = attempts.clone();
	let retrying = retry_sessions(&stopping.shared, &mut backoff, move |_, _| {
		let attempts = counted.clone();
		Box::pin(async move {
			if attempts.fetch_add(1, Ordering::Relaxed) >= 1000 {
				return Ok(());
			}
			Err(SessionError::Closed)
		})
	});
	let _ = tokio::time::timeout(grace, retrying).await;
	attempts.load(Ordering::Relaxed)
}

#[tokio::test(start_paused = true)]
async fn a_draining_worker_without_a_coordinator_waits_between_attempts() {
	let stopping = stopping("retry-draining");
	stopping.draining.send_replace(true);
	// Delays of 0.25-0.5 s, 0.5-1 s, 1-2 s, 2-4 s and 4-8 s: in a grace of 5 s, an attempt
	// at 0 s and after each of the first three delays at least, the first four at most.
	let grace = Duration::from_secs(5);
	let attempts = attempts_within(&stopping, BackoffSettings::default(), grace).await;
	assert!((4..=5).contains(&attempts), "{attempts} attempts");
}

#[tokio::test(start_paused = true)]
async fn a_stop_cuts_the_current_wait_short_and_only_that_one() {
	let stopping = stopping("retry-stop");
	let draining = stopping.draining.clone();
	tokio::spawn(async move {
		tokio::time::sleep(Duration::from_secs(1)).await;
		draining.send_replace(true);
	});
	// Delays of 15 to 30 s: an attempt at 0 s, one at the stop (1 s), then a wait past 10 s.
	let settings = BackoffSettings {
		initial: Duration::from_secs(30),
		max: Duration::from_secs(30),
	};
	let attempts = attempts_within(&stopping, settings, Duration::from_secs(10)).await;
	assert_eq!(attempts, 2);
}

fn failed(call: &'static str, status: Status) -> SessionError {
	SessionError::Rpc { call, status }
}

#[test]
fn only_refusals_and_bad_tokens_are_fatal() {
	let refused = failed("Join", Status::failed_precondition("takes no load test"));
	assert!(matches!(refused.fatal(), Some(WorkerError::Refused(m)) if m.contains("load test")));
	let mut version = Status::failed_precondition("upgrade the worker to build 0.2.0");
	version
		.metadata_mut()
		.insert(VERSION_REFUSED_KEY, "2-3".parse().unwrap());
	assert!(matches!(
		failed("Join", version).fatal(),
		Some(WorkerError::Version(m)) if m.contains("upgrade the worker")
	));
	let token = failed("Session", Status::unauthenticated("wrong token"));
	assert!(matches!(
		token.fatal(),
		Some(WorkerError::Unauthenticated(_))
	));
	for call in ["Join", "Session"] {
		let identity = failed(call, Status::permission_denied("bound to another secret"));
		assert!(matches!(
			identity.fatal(),
			Some(WorkerError::IdentityRefused(m)) if m.contains("another secret")
		));
	}
	// Another session of the same identity took over: try again.
	assert!(
		failed("Session", Status::aborted("took over"))
			.fatal()
			.is_none()
	);
	// A session for an identity the coordinator forgot (it restarted): join again.
	let forgotten = failed("Session", Status::failed_precondition("unknown worker"));
	assert!(forgotten.fatal().is_none());
	for retried in [
		failed("Join", Status::unavailable("down")),
		failed("FetchNet", Status::not_found("no such generation")),
		SessionError::Closed,
		SessionError::Timeout("Join"),
	] {
		assert!(retried.fatal().is_none(), "{retried}");
	}
}

#[test]
fn a_refused_batch_is_named_by_the_status_metadata() {
	let mut status = Status::invalid_argument("sample 3: score is NaN");
	status
		.metadata_mut()
		.insert(REJECTED_SEQUENCE_KEY, MetadataValue::from_static("17"));
	assert_eq!(failed("Session", status).rejected_sequence(), Some(17));
	let unnamed = failed("Session", Status::invalid_argument("bad"));
	assert_eq!(unnamed.rejected_sequence(), None);
	let mut other = Status::unavailable("ledger busy");
	other
		.metadata_mut()
		.insert(REJECTED_SEQUENCE_KEY, MetadataValue::from_static("17"));
	assert_eq!(failed("Session", other).rejected_sequence(), None);
}

#[test]
fn a_coordinator_asking_for_a_pause_is_heard() {
	let mut busy = Status::resource_exhausted("too many new worker identities");
	busy.metadata_mut()
		.insert(RETRY_AFTER_KEY, MetadataValue::from_static("42"));
	let error = failed("Join", busy);
	assert_eq!(error.retry_after(), Some(Duration::from_secs(42)));
	// Not fatal: the worker waits and tries again.
	assert!(error.fatal().is_none());
	let plain = failed("Join", Status::resource_exhausted("no hint"));
	assert_eq!(plain.retry_after(), None);
}
