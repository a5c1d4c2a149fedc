//! `worker loadtest`: many simulated workers against one coordinator, to measure how fast it
//! takes batches in and how long their acknowledgements take.
//!
//! Each simulated worker is a real identity with its own connection: it joins (and is given a
//! secret), opens a session with that secret and takes its assignment, as a worker does. Once
//! every session is open, one of them fetches the assignment's net and plays one batch of
//! self-play games with it; every session then sends copies of that batch under its own next
//! sequence numbers, so the coordinator validates, stores and trains on each as a new batch
//! (each copy stamped with the generation of the session's latest assignment, as a worker
//! that follows the promotions would send it: copies of generation 0 would soon be too old to
//! train on, and a coordinator that stops training is not the one a fleet meets),
//! with at most `in_flight` of a session's batches unacknowledged at a time. Sending stops at
//! the end of the timed run; acknowledgements still outstanding are awaited for at most
//! [`DRAIN`] and counted as errors if they do not come.
//!
//! A join refused for the coordinator's limit on new identities a minute is tried again after
//! the wait it names, as a worker does, within the setup's deadline.
//!
//! By default every session sends as fast as its acknowledgements allow (saturating), which
//! measures the most the coordinator takes in. With a rate (`rate`, batches a second in all),
//! the sessions share it evenly, each sending on a fixed schedule, their schedules spread over
//! one period, as a fleet of real workers offers its batches; an acknowledgement's time is then
//! counted from when its batch was due, so a coordinator that falls behind shows it in the
//! times rather than by being offered less.

mod copies;
mod report;

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tigers_proto::convert::Assignment;
use tigers_proto::v1::{
	self, CoordinatorMessage, JoinRequest, SampleBatch, SessionOpen, WorkerMessage,
	coordinator_message, worker_message,
};
use tokio::sync::{Semaphore, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;

use self::copies::Copies;
use self::report::{Acked, SessionTally, micros};
pub use self::report::{LoadtestReport, SecondRow};
use crate::batcher::PendingBatch;
use crate::client::{Client, Connector};
use crate::config::{WorkerConfig, host_name};
use crate::error::WorkerError;
use crate::fetch::fetch_net;
use crate::seed::random_u64;
use crate::selfplay::{Players, Playing};

/// How long the acknowledgements still outstanding at the end of the run are awaited.
pub const DRAIN: Duration = Duration::from_secs(5);

/// Sessions opened at once while setting up: a thousand joins at the same moment would time
/// out on a busy coordinator, and opening them in waves takes seconds, not minutes.
const OPENING_AT_ONCE: usize = 64;

/// The most simulated workers: each holds a connection and two tasks.
pub const MAX_SESSIONS: usize = 10_000;

/// What to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadtestSettings {
	/// Simulated workers, 1 to [`MAX_SESSIONS`].
	pub sessions: usize,
	/// The timed run's length, 1 s to an hour.
	pub duration: Duration,
	/// Batches a session may have unacknowledged at a time, 1 to 1000.
	pub in_flight: usize,
	/// How long opening every session and playing the batch may take.
	pub setup_timeout: Duration,
	/// Batches a second offered by all sessions together, 1 to [`MAX_RATE`]; `None` to
	/// saturate.
	pub rate: Option<u32>,
	/// How often each session sends a heartbeat, from its opening to its end, as a real
	/// worker does (the worker's own default, 5 s); 10 ms to a minute.
	pub heartbeat: Duration,
}

/// The highest offered rate, in batches a second.
pub const MAX_RATE: u32 = 1_000_000;

impl LoadtestSettings {
	/// `sessions` workers for `duration`, four batches in flight each (what a real worker's
	/// outbound buffer allows and more), with two minutes to set up.
	pub fn new(sessions: usize, duration: Duration) -> LoadtestSettings {
		LoadtestSettings {
			sessions,
			duration,
			in_flight: 4,
			setup_timeout: Duration::from_secs(120),
			rate: None,
			heartbeat: WorkerConfig::new(String::new()).heartbeat_interval,
		}
	}

	fn validate(&self) -> Result<(), WorkerError> {
		let fail = |text: String| Err(WorkerError::Config(text));
		if !(1..=MAX_SESSIONS).contains(&self.sessions) {
			return fail(format!(
				"sessions is {}, outside 1..={MAX_SESSIONS}",
				self.sessions
			));
		}
		if !(Duration::from_secs(1)..=Duration::from_secs(3600)).contains(&self.duration) {
			return fail(format!(
				"the run must last 1 to 3600 seconds, not {:?}",
				self.duration
			));
		}
		if !(1..=1000).contains(&self.in_flight) {
			return fail(format!("in-flight is {}, outside 1..=1000", self.in_flight));
		}
		if !(Duration::from_millis(10)..=Duration::from_secs(60)).contains(&self.heartbeat) {
			return fail(format!(
				"the heartbeat interval is {:?}, outside 10 ms to a minute",
				self.heartbeat
			));
		}
		if let Some(rate) = self.rate.filter(|rate| !(1..=MAX_RATE).contains(rate)) {
			return fail(format!(
				"the rate is {rate} batches a second, outside 1..={MAX_RATE}"
			));
		}
		Ok(())
	}

	/// How often each of `sessions` sends at the offered rate; `None` to saturate.
	fn interval(&self, sessions: usize) -> Option<Duration> {
		self.rate
			.map(|rate| Duration::from_secs_f64(sessions.max(1) as f64 / f64::from(rate)))
	}
}

/// An open session of one simulated worker.
struct Opened {
	client: Client,
	outbound: mpsc::Sender<WorkerMessage>,
	inbound: Streaming<CoordinatorMessage>,
	assignment: v1::Assignment,
	next_sequence: u64,
	/// The run the coordinator serves, which every batch names.
	run_id: String,
}

/// Runs a load test against the coordinator at `config.url` (with its token and TLS
/// certificate; the other settings are not used). Only bad settings are an error: sessions
/// that cannot open or that fail are counted in the report's errors, with the first reason.
pub async fn loadtest(
	config: &WorkerConfig,
	settings: &LoadtestSettings,
) -> Result<LoadtestReport, WorkerError> {
	settings.validate()?;
	let connector = crate::client::connector(config)?;
	let ready = match set_up(&connector, settings).await {
		Ok(ready) => ready,
		Err(report) => return Ok(*report),
	};
	tracing::info!(
		sessions = ready.sessions.len(),
		samples_per_batch = ready.template.samples.len(),
		games_per_batch = ready.template.game_records.len(),
		"sessions open; sending"
	);
	let tallies = run_sessions(ready.sessions, &ready.template, settings).await;
	let mut report = LoadtestReport::new(
		settings.sessions,
		settings.duration.as_secs_f64(),
		tallies,
		ready.failed,
	);
	report.offered = settings.rate;
	Ok(report)
}

/// The sessions that opened and the batch they are to send.
struct Ready {
	sessions: Vec<Opened>,
	/// How many sessions did not open, with the first reason.
	failed: (usize, Option<String>),
	template: Arc<SampleBatch>,
}

/// Opens the sessions and plays the batch they send, within the setup's deadline; or the
/// report of a run that cannot start.
async fn set_up(
	connector: &Connector,
	settings: &LoadtestSettings,
) -> Result<Ready, Box<LoadtestReport>> {
	let prefix = format!("loadtest-{:08x}", random_u64() as u32);
	let setup_deadline = tokio::time::Instant::now() + settings.setup_timeout;
	let opening = open_all(connector, &prefix, settings);
	let Ok((mut sessions, failed)) = tokio::time::timeout_at(setup_deadline, opening).await else {
		let why = format!(
			"the sessions did not open within {:?}",
			settings.setup_timeout
		);
		return Err(Box::new(failed_report(settings, settings.sessions, why)));
	};
	let Some(first) = sessions.first_mut() else {
		return Err(Box::new(LoadtestReport::new(
			settings.sessions,
			settings.duration.as_secs_f64(),
			Vec::new(),
			failed,
		)));
	};
	let template = match tokio::time::timeout_at(setup_deadline, template_batch(first)).await {
		Ok(Ok(batch)) => Arc::new(batch),
		Ok(Err(why)) => return Err(Box::new(failed_report(settings, settings.sessions, why))),
		Err(_) => {
			let why = "playing the batch to send took too long".to_string();
			return Err(Box::new(failed_report(settings, settings.sessions, why)));
		}
	};
	Ok(Ready {
		sessions,
		failed,
		template,
	})
}

/// Drives every session through the timed run, each on a task of its own; their tallies.
async fn run_sessions(
	sessions: Vec<Opened>,
	template: &Arc<SampleBatch>,
	settings: &LoadtestSettings,
) -> Vec<SessionTally> {
	let start = Instant::now();
	let count = sessions.len();
	// Shared by the sessions that opened, so that the rate offered is the one asked for.
	let interval = settings.interval(count);
	let tasks: Vec<_> = sessions
		.into_iter()
		.enumerate()
		.map(|(index, session)| {
			let template = template.clone();
			// Each session's first batch a share of one period after the start, so that the
			// sessions together send evenly rather than all at once.
			let first_due = interval.map_or(start, |every| {
				start + every.mul_f64(index as f64 / count as f64)
			});
			let plan = Plan {
				start,
				end: start + settings.duration,
				in_flight: settings.in_flight,
				interval,
				first_due,
			};
			tokio::spawn(drive(session, template, plan))
		})
		.collect();
	let mut tallies = Vec::with_capacity(tasks.len());
	for task in tasks {
		match task.await {
			Ok(tally) => tallies.push(tally),
			Err(error) => {
				let mut tally = SessionTally::default();
				tally.error(0, || format!("a session task failed: {error}"));
				tallies.push(tally);
			}
		}
	}
	tallies
}

/// A report for a run that could not start: every session counted as an error.
fn failed_report(settings: &LoadtestSettings, errors: usize, why: String) -> LoadtestReport {
	LoadtestReport::new(
		settings.sessions,
		settings.duration.as_secs_f64(),
		Vec::new(),
		(errors, Some(why)),
	)
}

/// Opens every session, [`OPENING_AT_ONCE`] at a time; the open ones, and how many failed with
/// the first reason.
async fn open_all(
	connector: &Connector,
	prefix: &str,
	settings: &LoadtestSettings,
) -> (Vec<Opened>, (usize, Option<String>)) {
	let permits = Arc::new(Semaphore::new(OPENING_AT_ONCE));
	let tasks: Vec<_> = (0..settings.sessions)
		.map(|index| {
			let (connector, permits) = (connector.clone(), permits.clone());
			let worker_id = format!("{prefix}-{index:05}");
			let queue = settings.in_flight + 2;
			let heartbeat = settings.heartbeat;
			tokio::spawn(async move {
				let _permit = permits.acquire_owned().await;
				open_session(&connector, worker_id, queue, heartbeat).await
			})
		})
		.collect();
	let mut opened = Vec::new();
	let (mut failed, mut first_error) = (0, None);
	for task in tasks {
		match task.await {
			Ok(Ok(session)) => opened.push(session),
			Ok(Err(why)) => {
				failed += 1;
				first_error = first_error.or(Some(why));
			}
			Err(error) => {
				failed += 1;
				first_error =
					first_error.or_else(|| Some(format!("a session task failed: {error}")));
			}
		}
	}
	(opened, (failed, first_error))
}

/// Connects, joins as `worker_id` (a new identity, given a secret), opens the session with the
/// secret and reads the first assignment.
async fn open_session(
	connector: &Connector,
	worker_id: String,
	queue: usize,
	heartbeat: Duration,
) -> Result<Opened, String> {
	let mut client = connector
		.connect_training()
		.await
		.map_err(|e| format!("cannot connect: {e}"))?;
	let joined = join(&mut client, &worker_id).await?;
	let (outbound, requests) = mpsc::channel(queue);
	let open = worker_message::Body::Open(SessionOpen {
		instance: worker_id.clone(),
		worker_id,
		worker_secret: joined.worker_secret,
	});
	// The channel is new and has room: this cannot fail.
	let _ = outbound.try_send(WorkerMessage { body: Some(open) });
	let mut inbound = client
		.session(ReceiverStream::new(requests))
		.await
		.map_err(|status| format!("Session failed: {} ({})", status.message(), status.code()))?
		.into_inner();
	let assignment = first_assignment(&mut inbound).await?;
	tokio::spawn(beat(outbound.downgrade(), heartbeat, assignment.generation));
	Ok(Opened {
		client,
		outbound,
		inbound,
		assignment,
		next_sequence: joined.last_acked_sequence + 1,
		run_id: joined.run_id,
	})
}

/// Sends a heartbeat on `outbound` every `every`, as a real worker does, while waiting for the
/// other sessions to open and while sending; ends with the session (when its sender goes).
async fn beat(outbound: mpsc::WeakSender<WorkerMessage>, every: Duration, generation: u64) {
	let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
	loop {
		ticks.tick().await;
		let Some(outbound) = outbound.upgrade() else {
			return;
		};
		let heartbeat = worker_message::Body::Heartbeat(v1::Heartbeat {
			generation: Some(generation),
			..v1::Heartbeat::default()
		});
		if outbound
			.send(WorkerMessage {
				body: Some(heartbeat),
			})
			.await
			.is_err()
		{
			return;
		}
	}
}

/// Joins as `worker_id`, a new identity, waiting out the coordinator's limit on new identities.
async fn join(client: &mut Client, worker_id: &str) -> Result<v1::JoinResponse, String> {
	let join = JoinRequest {
		worker_id: worker_id.to_string(),
		name: worker_id.to_string(),
		host: host_name(),
		threads: 1,
		build_version: env!("CARGO_PKG_VERSION").to_string(),
		input_version: tigers_core::network::Encoding::NEWEST.version(),
		worker_secret: String::new(),
		loadtest: true,
		protocol_version: tigers_proto::PROTOCOL_VERSION,
		instance: worker_id.to_string(),
	};
	loop {
		match client.join(join.clone()).await {
			Ok(joined) => return Ok(joined.into_inner()),
			// Past the coordinator's limit on new identities a minute: as a worker does, wait
			// as long as it says (the setup's deadline bounds the whole).
			Err(status) if retry_after(&status).is_some() => {
				tokio::time::sleep(retry_after(&status).unwrap_or_default()).await;
			}
			Err(status) => {
				return Err(format!(
					"Join failed: {} ({})",
					status.message(),
					status.code()
				));
			}
		}
	}
}

/// The assignment a session opens with.
async fn first_assignment(
	inbound: &mut Streaming<CoordinatorMessage>,
) -> Result<v1::Assignment, String> {
	match inbound.message().await {
		Ok(Some(CoordinatorMessage {
			body: Some(coordinator_message::Body::Assignment(assignment)),
		})) => Ok(assignment),
		Ok(_) => Err("the session did not start with an assignment".into()),
		Err(status) => Err(format!(
			"Session failed: {} ({})",
			status.message(),
			status.code()
		)),
	}
}

/// How long a join refused for the limit on new identities is asked to wait.
fn retry_after(status: &tonic::Status) -> Option<Duration> {
	if status.code() != tonic::Code::ResourceExhausted {
		return None;
	}
	let seconds = status.metadata().get(tigers_proto::RETRY_AFTER_KEY)?;
	seconds.to_str().ok()?.parse().ok().map(Duration::from_secs)
}

/// One batch of the assignment's games, played with its net (without a tablebase), as a worker
/// would send it (its sequence to be set).
async fn template_batch(session: &mut Opened) -> Result<SampleBatch, String> {
	let assignment = Assignment::from_wire(&session.assignment)
		.map_err(|e| format!("the coordinator's assignment cannot be played: {e}"))?;
	let net = fetch_net(&mut session.client, &assignment)
		.await
		.map_err(|status| format!("FetchNet failed: {} ({})", status.message(), status.code()))?
		.map_err(|e| e.to_string())?;
	let games = assignment.games_per_batch;
	let playing = Arc::new(Playing {
		run_id: session.run_id.as_str().into(),
		assignment,
		net,
		tablebase: None,
	});
	tokio::task::spawn_blocking(move || {
		let run = playing.run_id.clone();
		let mut players = Players::new(playing);
		let mut pending = PendingBatch::default();
		for _ in 0..games {
			let game = players.play(random_u64());
			let record = game.record.to_text();
			if pending.would_overflow(&game, &record) {
				break;
			}
			pending.add(&run, &game, record);
		}
		pending.take()
	})
	.await
	.map_err(|e| format!("playing the batch failed: {e}"))
}

/// When a session sends and how much.
#[derive(Clone, Copy, Debug)]
struct Plan {
	start: Instant,
	end: Instant,
	in_flight: usize,
	/// The time between the session's batches at an offered rate; `None` to saturate.
	interval: Option<Duration>,
	/// When its first batch is due.
	first_due: Instant,
}

impl Plan {
	/// Whole seconds from the start to `at`.
	fn second(&self, at: Instant) -> u32 {
		at.saturating_duration_since(self.start).as_secs() as u32
	}
}

/// Sends copies of `template` under the session's next sequence numbers, at most
/// `plan.in_flight` unacknowledged (and, at an offered rate, each when it is due), until
/// `plan.end`; then waits up to [`DRAIN`] for the rest.
async fn drive(mut session: Opened, template: Arc<SampleBatch>, plan: Plan) -> SessionTally {
	let mut books = Books {
		tally: SessionTally::default(),
		unacked: VecDeque::new(),
		samples: u32::try_from(template.samples.len()).unwrap_or(u32::MAX),
		plan,
		generation: session.assignment.generation,
	};
	let drained_by = tokio::time::Instant::from_std(plan.end + DRAIN);
	let mut copies = Copies::new(template, books.generation, plan.first_due);
	loop {
		let now = Instant::now();
		let sending = now < plan.end && copies.next_due < plan.end;
		if !sending && books.unacked.is_empty() {
			break;
		}
		let room = books.unacked.len() < plan.in_flight;
		if sending && room && now >= copies.next_due {
			if send_copy(&mut session, &mut books, &mut copies, now)
				.await
				.is_break()
			{
				break;
			}
			continue;
		}
		let wake = match () {
			() if sending && room => tokio::time::Instant::from_std(copies.next_due),
			() if sending => tokio::time::Instant::from_std(plan.end),
			() => drained_by,
		};
		let flow = tokio::select! {
			message = session.inbound.message() => books.received(message),
			() = tokio::time::sleep_until(wake) => {
				if sending { ControlFlow::Continue(()) } else { books.gave_up() }
			}
		};
		if flow.is_break() {
			break;
		}
	}
	books.tally
}

/// Sends the next copy, due at or before `now`, and books it as unacknowledged; `Break` when
/// the session's stream has closed.
async fn send_copy(
	session: &mut Opened,
	books: &mut Books,
	copies: &mut Copies,
	now: Instant,
) -> ControlFlow<()> {
	let batch = copies.batch(books.generation, session.next_sequence);
	let message = WorkerMessage {
		body: Some(worker_message::Body::Batch(batch)),
	};
	if session.outbound.send(message).await.is_err() {
		books.tally.error(books.plan.second(now), || {
			"the session stream closed".into()
		});
		return ControlFlow::Break(());
	}
	let counted_from = copies.sent(books.plan.interval, now);
	books
		.unacked
		.push_back((session.next_sequence, counted_from));
	session.next_sequence += 1;
	ControlFlow::Continue(())
}

/// What one session has sent and had acknowledged.
struct Books {
	tally: SessionTally,
	/// The coordinator handles a session's batches in order, so acknowledgements come in the
	/// order the batches went: sequence numbers and when they were sent, oldest first.
	unacked: VecDeque<(u64, Instant)>,
	/// Samples in each batch.
	samples: u32,
	plan: Plan,
	/// The generation of the session's latest assignment, which the copies are stamped with.
	generation: u64,
}

impl Books {
	/// Books a message from the coordinator: an acknowledgement of the oldest batch, an
	/// assignment to ignore, or the end of the session.
	fn received(
		&mut self,
		message: Result<Option<CoordinatorMessage>, tonic::Status>,
	) -> ControlFlow<()> {
		let at = Instant::now();
		let second = self.plan.second(at);
		let ack = match message {
			Ok(Some(CoordinatorMessage {
				body: Some(coordinator_message::Body::Ack(ack)),
			})) => ack,
			// A new assignment after a promotion: the next copies are of its generation.
			Ok(Some(CoordinatorMessage {
				body: Some(coordinator_message::Body::Assignment(assignment)),
			})) => {
				self.generation = assignment.generation;
				return ControlFlow::Continue(());
			}
			Ok(Some(_)) => return ControlFlow::Continue(()),
			Ok(None) => {
				self.tally
					.error(second, || "the coordinator closed the session".into());
				return ControlFlow::Break(());
			}
			Err(status) => {
				self.tally.error(second, || {
					format!(
						"the session failed: {} ({})",
						status.message(),
						status.code()
					)
				});
				return ControlFlow::Break(());
			}
		};
		match self.unacked.pop_front() {
			Some((sequence, sent)) if sequence == ack.sequence && ack.accepted => {
				self.tally.acked.push(Acked {
					second,
					latency_us: micros(at - sent),
					samples: self.samples,
				});
			}
			_ => self.tally.error(second, || {
				format!(
					"batch {} was acknowledged out of order or as already stored",
					ack.sequence
				)
			}),
		}
		ControlFlow::Continue(())
	}

	/// Counts every batch still unacknowledged after the drain as an error.
	fn gave_up(&mut self) -> ControlFlow<()> {
		let late = self.unacked.len();
		for _ in 0..late {
			self.tally.error(self.plan.second(Instant::now()), || {
				format!("{late} batches were not acknowledged within {DRAIN:?} of the end")
			});
		}
		ControlFlow::Break(())
	}
}
