//! The session loop: connect, `Join`, open the `Session` stream, send spooled batches and
//! heartbeats while taking assignments and acknowledgements, and on any failure reconnect with
//! backoff. Only a refusal (FAILED_PRECONDITION from `Join`), a rejected token or a refused
//! identity (PERMISSION_DENIED) ends it with an error; after a stop is asked for, it ends once
//! every spooled batch is acknowledged.
//!
//! Identity: the first `Join` hands the worker a secret, kept in the state directory before
//! anything else happens, and presented at every later `Join` and `SessionOpen`.
//!
//! Exactly once: batches are numbered when spooled; each session first drops what the
//! coordinator says it has (`last_acked_sequence`) and renumbers the rest to follow on from it
//! if they do not, then sends them in order, and every acknowledged batch is deleted. Whatever a
//! dropped connection loses is sent again by the next session, and the coordinator drops the
//! duplicates. A coordinator that claims more than this worker ever numbered is not believed:
//! nothing is deleted, nothing sent, and the session ends with an error.
//!
//! Runs: a join names the run the coordinator serves. A spool of another run is set aside
//! before anything is sent (one log line says where), so a coordinator started for a new run on
//! the same address never receives the old run's batches; games played for the old run that
//! finish later are not kept. A batch the coordinator refuses as another run's is set aside
//! too, and the session ends so that the next join closes the gap it leaves.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use thiserror::Error;
use tigers_core::Network;
use tigers_proto::convert::{Assignment, ConvertError};
use tigers_proto::services::{Service, unserved};
use tigers_proto::v1::{
	self, CoordinatorMessage, Heartbeat, JoinRequest, SessionOpen, WorkerMessage,
	coordinator_message, worker_message,
};
use tigers_proto::{REJECTED_SEQUENCE_KEY, RETRY_AFTER_KEY, VERSION_REFUSED_KEY};
use tokio::sync::{Notify, mpsc, watch};
use tokio::time::MissedTickBehavior;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Status, Streaming};

use crate::backoff::{Backoff, BackoffSettings};
use crate::client::{Client, Connector};
use crate::error::WorkerError;
use crate::fetch::{NetError, fetch_net};
use crate::seed::random_u64;
use crate::selfplay::{Control, Playing};
use crate::spool::{KEEP_SET_ASIDE, Spool, SpoolError};
use crate::state::Secret;
use crate::stats::Stats;
use crate::tablebase::TablebaseStore;
use tigers_proto::client::error_chain;

/// How long a unary call (and the opening of the session stream) may take. Keepalive pings
/// find a dead connection; this finds a coordinator that is alive but stuck.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Messages queued for the coordinator beyond what the connection has taken: enough to keep the
/// stream busy, few enough that a batch read from the spool is soon on its way.
const OUTBOUND_BUFFER: usize = 8;

/// How long a stopping worker waits for the coordinator to end the session after ending its
/// own side: an answer on loopback or a LAN takes milliseconds.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// How often a connected worker logs its progress at info level: often enough to show it is
/// alive in a log, rarely enough not to drown it.
const PROGRESS_LOG_INTERVAL: Duration = Duration::from_secs(60);

/// What every session shares with the rest of the worker.
pub(crate) struct Shared {
	/// Makes connections.
	pub(crate) connector: Connector,
	/// What `Join` says about this worker (its secret aside).
	pub(crate) join: JoinRequest,
	/// The identity's secret.
	pub(crate) secret: Arc<Secret>,
	/// Batches to send; acknowledged ones are removed.
	pub(crate) spool: Arc<Spool>,
	/// Where assignments go.
	pub(crate) control: Arc<Control>,
	/// The tablebase assignments name, held or being fetched.
	pub(crate) tablebases: Arc<TablebaseStore>,
	/// For heartbeats.
	pub(crate) stats: Arc<Stats>,
	/// Woken by the batcher after each batch spooled.
	pub(crate) spooled: Arc<Notify>,
	/// How often to send a heartbeat.
	pub(crate) heartbeat_interval: Duration,
	/// True once the worker is stopping: end as soon as the spool is empty. Its sender lives
	/// as long as the sessions run.
	pub(crate) draining: watch::Receiver<bool>,
}

/// Why a session ended.
#[derive(Debug, Error)]
pub(crate) enum SessionError {
	/// No connection.
	#[error("cannot connect: {}", error_chain(.0))]
	Connect(tonic::transport::Error),
	/// A call failed.
	#[error("{call} failed: {} ({})", status.message(), status.code())]
	Rpc {
		/// The method.
		call: &'static str,
		/// Its status.
		status: Status,
	},
	/// A call took longer than [`CALL_TIMEOUT`].
	#[error("{0} took longer than {CALL_TIMEOUT:?}")]
	Timeout(&'static str),
	/// The coordinator ended the session stream.
	#[error("the coordinator closed the session")]
	Closed,
	/// The coordinator sent settings out of range.
	#[error("the coordinator sent an assignment this worker cannot play: {0}")]
	Assignment(#[from] ConvertError),
	/// The net fetched was not the one announced, or not a net.
	#[error(transparent)]
	Net(#[from] NetError),
	/// The spool failed.
	#[error(transparent)]
	Spool(#[from] SpoolError),
	/// The join named no run (a coordinator of another protocol, or a broken one).
	#[error("the coordinator's join answer names no run ({0:?} is not a run id)")]
	NoRun(String),
	/// The coordinator refused a batch as another run's.
	#[error("the coordinator refused batch {sequence}: {reason}")]
	OtherRun {
		/// The batch.
		sequence: u64,
		/// The coordinator's sentence.
		reason: String,
	},
	/// The server serves no training: the sentence says what it is.
	#[error("{0}")]
	Unserved(String),
	/// The secret a join handed could not be kept.
	#[error("cannot keep the identity's secret: {0}")]
	Secret(WorkerError),
	/// A blocking task failed.
	#[error("internal error: {0}")]
	Internal(String),
}

impl SessionError {
	/// The error to stop the worker with, for the failures that retrying cannot mend.
	fn fatal(&self) -> Option<WorkerError> {
		if let SessionError::Unserved(sentence) = self {
			return Some(WorkerError::WrongServer(sentence.clone()));
		}
		let SessionError::Rpc { call, status } = self else {
			return None;
		};
		match status.code() {
			Code::Unauthenticated => Some(WorkerError::Unauthenticated(status.message().into())),
			Code::PermissionDenied => Some(WorkerError::IdentityRefused(status.message().into())),
			Code::FailedPrecondition if *call == "Join" => {
				let message = status.message().into();
				if status.metadata().contains_key(VERSION_REFUSED_KEY) {
					Some(WorkerError::Version(message))
				} else {
					Some(WorkerError::Refused(message))
				}
			}
			_ => None,
		}
	}

	/// This error, or for a call the server at `url` does not serve, the sentence that says
	/// what kind of server it is.
	fn told_unserved(self, url: &str) -> SessionError {
		let sentence = match &self {
			SessionError::Rpc { status, .. } => unserved(url, Service::Training, status),
			_ => None,
		};
		sentence.map_or(self, SessionError::Unserved)
	}

	/// How long the coordinator asked this worker to wait before trying again, if it did (a
	/// join under a new identity past its limit on them, or while another process holds this
	/// identity's session).
	fn retry_after(&self) -> Option<Duration> {
		match self {
			SessionError::Rpc { status, .. }
				if matches!(status.code(), Code::ResourceExhausted | Code::AlreadyExists) =>
			{
				status
					.metadata()
					.get(RETRY_AFTER_KEY)?
					.to_str()
					.ok()?
					.parse()
					.ok()
					.map(Duration::from_secs)
			}
			_ => None,
		}
	}

	/// The batch the coordinator refused as malformed, if that is why the session ended.
	fn rejected_sequence(&self) -> Option<u64> {
		match self {
			SessionError::Rpc { status, .. } if status.code() == Code::InvalidArgument => status
				.metadata()
				.get(REJECTED_SEQUENCE_KEY)?
				.to_str()
				.ok()?
				.parse()
				.ok(),
			_ => None,
		}
	}
}

fn rpc(call: &'static str) -> impl FnOnce(Status) -> SessionError {
	move |status| SessionError::Rpc { call, status }
}

/// Awaits `call` (the method `name`) for at most [`CALL_TIMEOUT`].
async fn timed<T>(
	name: &'static str,
	call: impl Future<Output = Result<T, Status>>,
) -> Result<T, SessionError> {
	tokio::time::timeout(CALL_TIMEOUT, call)
		.await
		.map_err(|_| SessionError::Timeout(name))?
		.map_err(rpc(name))
}

/// Runs sessions, reconnecting with backoff, until a fatal error, or until the spool is empty
/// once draining.
pub(crate) async fn run_sessions(
	shared: &Shared,
	settings: BackoffSettings,
) -> Result<(), WorkerError> {
	let mut backoff = Backoff::new(settings, random_u64());
	retry_sessions(shared, &mut backoff, |shared, backoff| {
		Box::pin(session(shared, backoff))
	})
	.await
}

/// One attempt at a session, boxed: a session's future is large, and made once a connection.
type Attempt<'a> = Pin<Box<dyn Future<Output = Result<(), SessionError>> + Send + 'a>>;

/// Runs `attempt` (one session) again and again with the backoff's delays between them, until a
/// fatal error, or until the spool is empty once draining.
async fn retry_sessions(
	shared: &Shared,
	backoff: &mut Backoff,
	attempt: impl for<'a> Fn(&'a Shared, &'a mut Backoff) -> Attempt<'a>,
) -> Result<(), WorkerError> {
	loop {
		let ended = attempt(shared, backoff).await;
		shared.stats.session_ended();
		let error = match ended {
			Ok(()) => return Ok(()),
			Err(error) => error,
		};
		if let Some(fatal) = error.fatal() {
			// The reason is the worker's last line, printed once by whoever runs it.
			tracing::error!("the coordinator will not take this worker; stopping");
			return Err(fatal);
		}
		if let Some(sequence) = error.rejected_sequence() {
			drop_rejected(shared, sequence, &error).await;
		}
		if *shared.draining.borrow() && shared.spool.is_empty() {
			return Ok(());
		}
		wait_before_retry(shared, backoff, &error).await;
	}
}

/// Drops batch `sequence`, which the coordinator refused as malformed.
async fn drop_rejected(shared: &Shared, sequence: u64, error: &SessionError) {
	tracing::error!(%error, sequence, "the coordinator refused a batch; dropping it");
	let spool = shared.spool.clone();
	match blocking(move || spool.remove(sequence)).await {
		Ok(Ok(_)) => {}
		Ok(Err(error)) => tracing::error!(%error, "cannot drop the refused batch"),
		Err(error) => tracing::error!(%error, "cannot drop the refused batch"),
	}
}

/// Logs why the session ended and waits the backoff's next delay, or less if a stop comes.
async fn wait_before_retry(shared: &Shared, backoff: &mut Backoff, error: &SessionError) {
	// The backoff's delay, or longer if the coordinator said when to come back.
	let delay = backoff
		.next_delay()
		.max(error.retry_after().unwrap_or_default());
	let self_play = match shared.control.current() {
		Some(_) => "playing on",
		None => "waiting for a first assignment",
	};
	tracing::warn!(
		%error,
		retry_in = ?delay,
		unacked_batches = shared.spool.len(),
		self_play,
		"no session with the coordinator"
	);
	// A stop that comes during the wait cuts it short: the grace period is for sending, not
	// for sleeping. Once stopping, though, the delays hold as before: a coordinator that is
	// down would otherwise be asked (and the failure logged) thousands of times a second for
	// the whole grace period.
	let mut draining = shared.draining.clone();
	if *draining.borrow_and_update() {
		tokio::time::sleep(delay).await;
		return;
	}
	tokio::select! {
		() = tokio::time::sleep(delay) => {}
		_ = draining.wait_for(|draining| *draining) => {}
	}
}

/// One session, from connecting to its end.
async fn session(shared: &Shared, backoff: &mut Backoff) -> Result<(), SessionError> {
	let mut client = shared
		.connector
		.connect_training()
		.await
		.map_err(SessionError::Connect)?;
	let joined = join(shared, &mut client).await?;
	let run_id = settle_spool(shared, &joined).await?;
	let last_acked = joined.last_acked_sequence;
	let (outbound, requests) = mpsc::channel(OUTBOUND_BUFFER);
	let open = worker_message::Body::Open(SessionOpen {
		worker_id: shared.join.worker_id.clone(),
		worker_secret: shared.secret.get(),
		instance: shared.join.instance.clone(),
	});
	send(&outbound, open).await?;
	let inbound = timed("Session", client.session(ReceiverStream::new(requests)))
		.await?
		.into_inner();
	// The highest sequence sent in this session: acknowledgements above it are not believed.
	let sent = AtomicU64::new(last_acked);
	let receiving = receive_loop(shared, &mut client, inbound, backoff, &sent, &run_id);
	tokio::pin!(receiving);
	let result = tokio::select! {
		result = send_loop(shared, &outbound, &sent) => result,
		result = &mut receiving => return result,
	};
	// Stopping with nothing left to send: end the stream, and give the coordinator a moment to
	// end its side, so that it sees a worker that left rather than a connection that broke.
	drop(outbound);
	let _ = tokio::time::timeout(CLOSE_TIMEOUT, &mut receiving).await;
	result
}

/// Joins with the identity's secret, keeping a new secret if the coordinator issues one.
async fn join(shared: &Shared, client: &mut Client) -> Result<v1::JoinResponse, SessionError> {
	let request = JoinRequest {
		worker_secret: shared.secret.get(),
		..shared.join.clone()
	};
	let joined = timed("Join", client.join(request))
		.await
		.map_err(|error| error.told_unserved(shared.connector.url()))?
		.into_inner();
	shared.stats.session_opened();
	if !joined.worker_secret.is_empty() {
		// Kept before it is used: a worker that lost it could not open a session again.
		let secret = shared.secret.clone();
		let issued = joined.worker_secret.clone();
		blocking(move || secret.store(&issued))
			.await?
			.map_err(SessionError::Secret)?;
		tracing::info!("the coordinator bound this worker's identity to a new secret");
	}
	Ok(joined)
}

/// Brings the spool in line with the join: of its run, and without what the coordinator says
/// it has (the rest renumbered to follow on); returns the run.
async fn settle_spool(
	shared: &Shared,
	joined: &v1::JoinResponse,
) -> Result<Arc<str>, SessionError> {
	let last_acked = joined.last_acked_sequence;
	let run_id = begin_run(shared, joined).await?;
	let spool = shared.spool.clone();
	let done = match blocking(move || spool.acknowledge_through(last_acked)).await? {
		Ok(done) => done,
		Err(error @ SpoolError::CoordinatorAhead { .. }) => {
			tracing::error!(%error, "not deleting or sending any spooled batch");
			return Err(error.into());
		}
		Err(error) => return Err(error.into()),
	};
	tracing::info!(
		run = %joined.run_name,
		coordinator_build = %joined.build_version,
		coordinator_protocol = joined.protocol_version,
		last_acked,
		dropped = done.deleted,
		renumbered = done.renumbered,
		unacked_batches = shared.spool.len(),
		"joined the coordinator"
	);
	Ok(run_id)
}

/// Makes the join's run the spool's, setting aside a spool of another run; returns the run.
async fn begin_run(shared: &Shared, joined: &v1::JoinResponse) -> Result<Arc<str>, SessionError> {
	if !tigers_proto::is_run_id(&joined.run_id) {
		return Err(SessionError::NoRun(joined.run_id.clone()));
	}
	let (spool, run, last_acked) = (
		shared.spool.clone(),
		joined.run_id.clone(),
		joined.last_acked_sequence,
	);
	if let Some(aside) = blocking(move || spool.begin_run(&run, last_acked)).await?? {
		tracing::warn!(
			old_run = %aside.run,
			run = %joined.run_id,
			run_name = %joined.run_name,
			batches = aside.batches,
			path = %aside.path.display(),
			kept_days = KEEP_SET_ASIDE.as_secs() / 86_400,
			"the coordinator serves another run than this worker's spool: its batches are set aside, never to be sent"
		);
	}
	Ok(joined.run_id.as_str().into())
}

/// Sends what is spooled above `sent` (the highest sequence sent so far, kept up to date),
/// then waits for more, sending heartbeats meanwhile. Ends when draining with nothing left to
/// send.
async fn send_loop(
	shared: &Shared,
	outbound: &mpsc::Sender<WorkerMessage>,
	sent: &AtomicU64,
) -> Result<(), SessionError> {
	let mut heartbeat = tokio::time::interval(shared.heartbeat_interval);
	heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
	let mut progress = tokio::time::interval(PROGRESS_LOG_INTERVAL);
	progress.set_missed_tick_behavior(MissedTickBehavior::Delay);
	// The first tick is immediate; the "joined" line has just said it all.
	progress.tick().await;
	let mut draining = shared.draining.clone();
	loop {
		send_spooled(shared, outbound, sent).await?;
		if *draining.borrow_and_update() && shared.spool.is_empty() {
			return Ok(());
		}
		tokio::select! {
			() = shared.spooled.notified() => {}
			_ = heartbeat.tick() => send(outbound, heartbeat_message(shared)).await?,
			_ = progress.tick() => log_progress(shared),
			// An error means the sender is gone, which `run` never lets happen mid-session.
			Ok(()) = draining.changed() => {}
		}
	}
}

/// Sends the spooled batches above `sent`, in order, raising `sent` as it goes. A batch that
/// turns out corrupt ends the session: the ones after it would leave a gap the coordinator
/// refuses, and the next join renumbers them to close it.
async fn send_spooled(
	shared: &Shared,
	outbound: &mpsc::Sender<WorkerMessage>,
	sent: &AtomicU64,
) -> Result<(), SessionError> {
	for sequence in shared.spool.sequences_after(sent.load(Ordering::Relaxed)) {
		let spool = shared.spool.clone();
		match blocking(move || spool.read(sequence)).await? {
			Ok(Some(batch)) => {
				sent.store(sequence, Ordering::Relaxed);
				send(outbound, worker_message::Body::Batch(batch)).await?;
			}
			// Acknowledged since it was listed.
			Ok(None) => sent.store(sequence, Ordering::Relaxed),
			Err(error @ SpoolError::Corrupt { .. }) => {
				tracing::error!(%error, "a spooled batch is lost; the next session renumbers the rest");
				return Err(error.into());
			}
			Err(error) => return Err(error.into()),
		}
	}
	Ok(())
}

/// Takes the coordinator's messages: assignments (fetching their nets) and acknowledgements
/// (deleting the batches). Ends when draining and the last batch is acknowledged.
async fn receive_loop(
	shared: &Shared,
	client: &mut Client,
	mut inbound: Streaming<CoordinatorMessage>,
	backoff: &mut Backoff,
	sent: &AtomicU64,
	run_id: &Arc<str>,
) -> Result<(), SessionError> {
	while let Some(message) = inbound.message().await.map_err(rpc("Session"))? {
		match message.body {
			Some(coordinator_message::Body::Assignment(wire)) => {
				apply_assignment(shared, client, &wire, run_id).await?;
				// The coordinator is up and serving: the next loss starts the delays over.
				backoff.reset();
			}
			Some(coordinator_message::Body::Ack(ack)) => {
				if ack.sequence > sent.load(Ordering::Relaxed) {
					tracing::error!(
						sequence = ack.sequence,
						"the coordinator acknowledged a batch this session never sent; ignored"
					);
					continue;
				}
				let spool = shared.spool.clone();
				let removed = blocking(move || spool.remove(ack.sequence)).await??;
				tracing::debug!(
					sequence = ack.sequence,
					accepted = ack.accepted,
					removed,
					"batch acknowledged"
				);
				if *shared.draining.borrow() && shared.spool.is_empty() {
					return Ok(());
				}
			}
			Some(coordinator_message::Body::Refused(refused)) => {
				let spool = shared.spool.clone();
				let sequence = refused.sequence;
				let path = blocking(move || spool.set_aside(sequence)).await??;
				tracing::error!(
					sequence,
					path = ?path.map(|p| p.display().to_string()),
					reason = %refused.reason,
					"the coordinator refused a batch as another run's; it is set aside"
				);
				return Err(SessionError::OtherRun {
					sequence,
					reason: refused.reason,
				});
			}
			None => tracing::warn!("the coordinator sent an empty message"),
		}
	}
	Err(SessionError::Closed)
}

/// Plays `wire` from now on, fetching its net unless it is the one held.
async fn apply_assignment(
	shared: &Shared,
	client: &mut Client,
	wire: &v1::Assignment,
	run_id: &Arc<str>,
) -> Result<(), SessionError> {
	let assignment = Assignment::from_wire(wire)?;
	let net = net_for(shared, client, &assignment).await?;
	let tablebase = assignment
		.tablebase_sha256
		.as_deref()
		.and_then(|identity| shared.tablebases.held(identity));
	log_playing(&assignment, tablebase.is_some());
	let wanted = assignment
		.tablebase_sha256
		.clone()
		.filter(|_| tablebase.is_none());
	shared.control.set(Playing {
		run_id: run_id.clone(),
		assignment,
		net,
		tablebase,
	});
	if let Some(identity) = wanted {
		let (wants, gives) = (shared.control.clone(), shared.control.clone());
		shared.tablebases.obtain(
			&identity,
			shared.connector.clone(),
			move |identity| wants.wants_tablebase(identity),
			move |table| gives.give_tablebase(&table),
		);
	}
	Ok(())
}

/// The net `assignment` plays: the one held if it is that net, else fetched.
async fn net_for(
	shared: &Shared,
	client: &mut Client,
	assignment: &Assignment,
) -> Result<Arc<Network>, SessionError> {
	let held = shared
		.control
		.current()
		.filter(|playing| playing.assignment.sha256 == assignment.sha256)
		.map(|playing| playing.net.clone());
	match held {
		Some(net) => Ok(net),
		None => {
			tracing::info!(
				generation = assignment.generation,
				sha256 = %assignment.sha256,
				"fetching the net"
			);
			Ok(timed("FetchNet", fetch_net(client, assignment)).await??)
		}
	}
}

/// Logs what is played from now on; `has_tablebase` when the table it names is held.
fn log_playing(assignment: &Assignment, has_tablebase: bool) {
	tracing::info!(
		generation = assignment.generation,
		depth = assignment.depth,
		games_per_batch = assignment.games_per_batch,
		max_plies = assignment.selfplay.max_plies,
		tablebase = match (&assignment.tablebase_sha256, has_tablebase) {
			(None, _) => "none",
			(Some(_), true) => "ready",
			// Not a table that is missing for good: it comes from the cache or the coordinator,
			// and self-play takes it up (and adjudicates with it) once it is loaded.
			(Some(_), false) => "loading; playing without it until it is ready",
		},
		adjudicate = assignment.adjudicate,
		"playing"
	);
}

fn log_progress(shared: &Shared) {
	let stats = shared.stats.snapshot(Instant::now());
	tracing::info!(
		generation = shared.control.current().map(|p| p.assignment.generation),
		games = stats.games,
		samples = stats.samples,
		samples_per_second = format_args!("{:.0}", stats.samples_per_second),
		unacked_batches = shared.spool.len(),
		"progress"
	);
}

fn heartbeat_message(shared: &Shared) -> worker_message::Body {
	let stats = shared.stats.snapshot(Instant::now());
	worker_message::Body::Heartbeat(Heartbeat {
		generation: shared
			.control
			.current()
			.map(|playing| playing.assignment.generation),
		games: stats.games,
		samples_per_second: stats.samples_per_second,
		unacked_batches: u32::try_from(shared.spool.len()).unwrap_or(u32::MAX),
	})
}

async fn send(
	outbound: &mpsc::Sender<WorkerMessage>,
	body: worker_message::Body,
) -> Result<(), SessionError> {
	let message = WorkerMessage { body: Some(body) };
	outbound
		.send(message)
		.await
		.map_err(|_| SessionError::Closed)
}

/// Runs disk work off the async threads.
async fn blocking<T: Send + 'static>(
	work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, SessionError> {
	tokio::task::spawn_blocking(work)
		.await
		.map_err(|e| SessionError::Internal(e.to_string()))
}

#[cfg(test)]
mod tests;
