//! One worker's open session: assignments out, batches and heartbeats in, each batch stored
//! durably (by the ledger's writer, `committer`, with the batches of other sessions that
//! arrived at the same time) before its acknowledgement.
//!
//! A session's batches are in flight side by side, up to [`IN_FLIGHT`]: each is checked on a
//! blocking thread as it arrives, handed to the ledger's writer in the order it arrived (so the
//! writer sees the sequence numbers in order, and several of them share a group commit), and
//! acknowledged in that order once its group is on disk. The first batch that cannot be stored
//! ends the session; batches already with the writer are answered first, batches after a
//! refused one are not handed to it at all.
//!
//! A session ends when the worker closes it, when a message does not decode or is too large
//! (INVALID_ARGUMENT or RESOURCE_EXHAUSTED), at the first batch that cannot be stored
//! (INVALID_ARGUMENT with the refused sequence, or UNAVAILABLE), when the worker says nothing
//! for the idle timeout while none of its batches is in flight (DEADLINE_EXCEEDED; a session
//! whose batches wait for the ledger waits however long, and does not count that), when a newer session of the same identity takes
//! over (ABORTED), or when the coordinator shuts down (UNAVAILABLE). Whichever way it ends, the
//! worker is shown disconnected unless a newer session of it is open.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use metrics::histogram;
use tigers_proto::v1;
use tigers_proto::v1::coordinator_message::Body as ToWorker;
use tigers_proto::v1::worker_message::Body as FromWorker;
use tokio::sync::{Notify, mpsc, watch};
use tokio::task::{JoinError, JoinHandle};
use tonic::{Code, Status, Streaming};
use tracing::{info, warn};

use crate::error::{RejectReason, Rejection, ServiceError};
use crate::ingest::research::Research;
use crate::ingest::validate::{Expect, ValidBatch, validate_batch};
use crate::live::{BatchFigures, Current, Shared};
use crate::store::committer::WriteError;
use crate::store::ledger::{BatchInsert, NewBatch};
use crate::text::{bounded, excerpt};
use crate::training::inbox::{Inbox, StoredBatch};

/// The most batches of one session in flight (being checked, or with the ledger's writer) at a
/// time. One at a time held a session to one group commit a batch, 160 to 180 batches a second
/// on the development machine, while a worker back from an outage sends its whole spool at
/// once; 32 took one session to 620 to 680 (docs/benchmarks.md, "Ingest at the rate a fleet
/// offers"), and are far from filling the writer's groups (of 1,024) alone.
pub(crate) const IN_FLIGHT: usize = 32;

/// The metric of seconds from receiving a sample batch to its acknowledgement being ready:
/// validation and the ledger's durable insert. A histogram, described with the others (and
/// given its buckets) in `observe::metrics`.
pub(crate) const INGEST_SECONDS: &str = "tigers_ingest_seconds";

/// A batch being checked and encoded on a blocking thread.
struct Checking {
	sequence: u64,
	received: Instant,
	task: JoinHandle<Result<(ValidBatch, NewBatch), Rejection>>,
}

/// A batch with the ledger's writer, waiting for its answer.
struct Storing {
	sequence: u64,
	received: Instant,
	/// What became of it, once its group is on disk.
	answer: Answer,
}

/// What became of a batch handed to the ledger's writer: stored (or found stored before),
/// refused, or not stored.
type Outcome = Result<(ValidBatch, BatchInsert), StoreError>;

/// The answer to await for a batch with the ledger's writer.
type Answer = Pin<Box<dyn Future<Output = Outcome> + Send>>;

/// A session's batches in flight, oldest first.
#[derive(Default)]
struct InFlight {
	checking: VecDeque<Checking>,
	storing: VecDeque<Storing>,
	/// Set at the first refused batch: the session ends once its refusal is on disk, and no
	/// later batch goes to the writer (it would be stored after a number the worker drops).
	refused: bool,
}

impl InFlight {
	/// Whether another batch may be read from the worker.
	fn has_room(&self) -> bool {
		!self.refused && self.checking.len() + self.storing.len() < IN_FLIGHT
	}

	fn is_empty(&self) -> bool {
		self.checking.is_empty() && self.storing.is_empty()
	}
}

/// A batch checked: its sequence, when it came, and the check's result.
type Checked = (
	u64,
	Instant,
	Result<Result<(ValidBatch, NewBatch), Rejection>, JoinError>,
);

/// A batch the ledger's writer answered for: its sequence, when it came, and what became of it.
type Settled = (u64, Instant, Outcome);

/// The oldest batch's check, once it is done; the caller makes sure there is one. Cancel safe:
/// the handle's answer and the removal come in one poll.
async fn next_checked(checking: &mut VecDeque<Checking>) -> Checked {
	let oldest = checking.front_mut().expect("a batch is being checked");
	let checked = (&mut oldest.task).await;
	let done = checking.pop_front().expect("it was there");
	(done.sequence, done.received, checked)
}

/// The oldest batch with the writer and what became of it, once the writer answers; the
/// caller makes sure there is one. Cancel safe, as [`next_checked`].
async fn next_stored(storing: &mut VecDeque<Storing>) -> Settled {
	let oldest = storing.front_mut().expect("a batch is with the writer");
	let outcome = oldest.answer.as_mut().await;
	let done = storing.pop_front().expect("it was there");
	(done.sequence, done.received, outcome)
}

/// Whether a session goes on, or why it ends: the error for the status it ends with, `None`
/// for a stream that ended.
type Step = ControlFlow<Option<ServiceError>>;

/// Goes on after `result`, unless it is the error that ends the session.
fn go_on(result: Result<(), ServiceError>) -> Step {
	result.map_or_else(|error| Step::Break(Some(error)), Step::Continue)
}

/// One worker's open session.
pub(crate) struct Session {
	pub(crate) worker_id: String,
	/// This session's number, to tell it from a newer session of the same worker.
	pub(crate) id: u64,
	pub(crate) shared: Arc<Shared>,
	pub(crate) training: Arc<Inbox>,
	pub(crate) research: Research,
	pub(crate) outgoing: mpsc::Sender<Result<v1::CoordinatorMessage, Status>>,
	/// Notified when a newer session of the same worker opens.
	pub(crate) taken_over: Arc<Notify>,
	/// How long the worker may say nothing.
	pub(crate) idle_timeout: Duration,
	/// Whether a stale batch of this session was logged.
	pub(crate) stale_noted: AtomicBool,
}

/// The status a session's inbound stream error ends it with: a message that does not decode
/// is the worker's fault (`INVALID_ARGUMENT` from proto's codec already, `INTERNAL` from any
/// other layer that fails to decode), one over the size limit too; anything else means the
/// connection is gone and nobody will read the status.
pub(crate) fn inbound_error(status: Status) -> ServiceError {
	match status.code() {
		Code::OutOfRange | Code::ResourceExhausted => {
			ServiceError::TooLarge(status.message().to_string())
		}
		Code::Internal => ServiceError::Undecodable(status.message().to_string()),
		_ => ServiceError::Stream(status),
	}
}

impl Session {
	async fn send(&self, body: ToWorker) -> bool {
		self.outgoing
			.send(Ok(v1::CoordinatorMessage { body: Some(body) }))
			.await
			.is_ok()
	}

	/// Ends the stream with the status of `error`.
	async fn fail(&self, error: ServiceError) {
		let _ = self.outgoing.send(Err(error.into())).await;
	}

	/// Serves the session until the worker, the coordinator or an error ends it (see the
	/// module's documentation), then sees its batches with the writer through.
	pub(crate) async fn run(self, mut inbound: Streaming<v1::WorkerMessage>) {
		let mut promotions = self.shared.subscribe();
		let mut closing = self.shared.closing();
		let first = promotions.borrow_and_update().assignment.to_wire();
		if !self.send(ToWorker::Assignment(first)).await {
			return self.close();
		}
		let idle = tokio::time::sleep(self.idle_timeout);
		tokio::pin!(idle);
		let mut flight = InFlight::default();
		// Whether the worker may still send: once it has closed its side, the batches in
		// flight are seen through before the session ends.
		let mut open = true;
		let ending = loop {
			if !open && flight.is_empty() {
				break None;
			}
			let step = tokio::select! {
				_ = closing.changed() => {
					// The worker will reconnect, with backoff, to this coordinator's successor.
					Step::Break(Some(ServiceError::ShuttingDown))
				}
				() = self.taken_over.notified() => {
					info!(worker = %self.worker_id, "a newer session took over");
					Step::Break(Some(ServiceError::TakenOver))
				}
				// Idleness counts only while the coordinator owes the worker nothing: while
				// batches of the session wait for the ledger (a full disk, more offered than
				// it takes), the worker's silence is the coordinator's own doing.
				() = &mut idle, if flight.is_empty() => {
					warn!(worker = %self.worker_id, "no message within the idle timeout; ending the session");
					Step::Break(Some(ServiceError::Idle(self.idle_timeout.as_secs())))
				}
				changed = promotions.changed() => {
					self.forward_assignment(changed, &mut promotions).await
				}
				checked = next_checked(&mut flight.checking), if !flight.checking.is_empty() => {
					go_on(self.hand_to_writer(&mut flight, checked))
				}
				stored = next_stored(&mut flight.storing), if !flight.storing.is_empty() => {
					// An answer makes room: the worker's time to speak starts again now.
					idle.as_mut().reset(tokio::time::Instant::now() + self.idle_timeout);
					self.answer(stored).await
				}
				message = inbound.message(), if open && flight.has_room() => {
					idle.as_mut().reset(tokio::time::Instant::now() + self.idle_timeout);
					self.take_message(message, &mut flight, &mut open).await
				}
			};
			if let Step::Break(ending) = step {
				break ending;
			}
		};
		self.settle(flight).await;
		if let Some(error) = ending {
			self.fail(error).await;
		}
		self.close();
	}

	/// Tells the worker the assignment now in force, after a promotion or a change of depth.
	async fn forward_assignment(
		&self,
		changed: Result<(), watch::error::RecvError>,
		promotions: &mut watch::Receiver<Arc<Current>>,
	) -> Step {
		if changed.is_err() {
			return Step::Break(None);
		}
		let assignment = promotions.borrow_and_update().assignment.to_wire();
		if self.send(ToWorker::Assignment(assignment)).await {
			Step::Continue(())
		} else {
			Step::Break(None)
		}
	}

	/// Sends the acknowledgement of a batch the ledger's writer answered for, or ends the
	/// session for one refused or not stored.
	async fn answer(&self, stored: Settled) -> Step {
		match self.acknowledge(stored) {
			Ok(ack) => {
				self.send(ToWorker::Ack(ack)).await;
				Step::Continue(())
			}
			Err(error) => Step::Break(Some(error)),
		}
	}

	/// Takes what came from the worker: a message, the end of its side (`open` then goes
	/// false), or a stream error, which ends the session.
	async fn take_message(
		&self,
		message: Result<Option<v1::WorkerMessage>, Status>,
		flight: &mut InFlight,
		open: &mut bool,
	) -> Step {
		match message {
			Ok(Some(message)) => go_on(self.handle(message, flight).await),
			Ok(None) => {
				*open = false;
				Step::Continue(())
			}
			Err(status) if is_connection_gone(&status) => {
				// A worker that stops drops its connection as it goes: that ends its session,
				// but it is not an error to warn about.
				info!(worker = %self.worker_id, "the worker's connection closed");
				Step::Break(None)
			}
			Err(status) => {
				warn!(worker = %self.worker_id, %status, "session ended with an error");
				Step::Break(Some(inbound_error(status)))
			}
		}
	}

	/// Answers the batches already with the ledger's writer when the session ends, so that
	/// every batch stored is counted and trained on once: acknowledged if the worker still
	/// listens (it resends the others, and hears they were stored), the rest left for the
	/// worker to send again. Batches still being checked are dropped unstored.
	async fn settle(&self, mut flight: InFlight) {
		while !flight.storing.is_empty() {
			let (sequence, received, outcome) = next_stored(&mut flight.storing).await;
			histogram!(INGEST_SECONDS).record(received.elapsed().as_secs_f64());
			let accepted = match outcome {
				Ok((valid, BatchInsert::Inserted { id })) => {
					self.deliver(id, valid);
					true
				}
				Ok((_, BatchInsert::Duplicate)) => {
					self.shared.live().batch_duplicate();
					false
				}
				// Refused or not stored: the next session deals with it.
				_ => continue,
			};
			let ack = ToWorker::Ack(v1::Ack { sequence, accepted });
			// Never waiting: a worker that is gone, or taken over, may not read it.
			let _ = self
				.outgoing
				.try_send(Ok(v1::CoordinatorMessage { body: Some(ack) }));
		}
	}

	/// Shows the worker disconnected, unless a newer session of it is open.
	fn close(&self) {
		self.shared.live().session_closed(&self.worker_id, self.id);
		info!(worker = %self.worker_id, "session closed");
	}

	async fn handle(
		&self,
		message: v1::WorkerMessage,
		flight: &mut InFlight,
	) -> Result<(), ServiceError> {
		self.shared.live().worker_heard(&self.worker_id);
		match message.body {
			Some(FromWorker::Batch(batch)) if batch.run_id != self.shared.run_dir.id() => {
				let refused = self.refuse_other_run(&batch);
				self.send(ToWorker::Refused(refused)).await;
				Ok(())
			}
			Some(FromWorker::Batch(batch)) => {
				flight.checking.push_back(self.check(batch));
				Ok(())
			}
			Some(FromWorker::Heartbeat(beat)) => {
				check_heartbeat(&beat, self.shared.current().assignment.generation)?;
				self.shared.live().heartbeat(
					&self.worker_id,
					beat.generation,
					beat.samples_per_second,
				);
				Ok(())
			}
			Some(FromWorker::Open(_)) => Err(ServiceError::AlreadyOpen),
			None => Err(ServiceError::EmptyMessage),
		}
	}

	/// Starts checking a batch and encoding it for the ledger, CPU work for a blocking thread.
	fn check(&self, batch: v1::SampleBatch) -> Checking {
		let expect = Expect {
			generation: self.shared.current().assignment.generation,
			max_staleness: self.shared.settings.max_staleness,
		};
		let worker_id = self.worker_id.clone();
		let sequence = batch.sequence;
		let task = tokio::task::spawn_blocking(move || {
			let valid = validate_batch(batch, expect)?;
			let new = valid.for_ledger(&worker_id);
			Ok((valid, new))
		});
		Checking {
			sequence,
			received: Instant::now(),
			task,
		}
	}

	/// Hands a checked batch to the ledger's writer, which stores it with the next group, or,
	/// for a refused batch, uses up its number durably before the worker hears of it and drops
	/// the batch (so that its next batch is the next one expected even after a crash). In the
	/// order the batches came, without waiting: the writer takes them in that order.
	fn hand_to_writer(
		&self,
		flight: &mut InFlight,
		(sequence, received, checked): Checked,
	) -> Result<(), ServiceError> {
		let committer = self.shared.committer();
		let answer: Answer = match checked.map_err(ServiceError::task("storing"))? {
			Ok((valid, new)) => {
				let reply = committer.submit(new);
				Box::pin(async move {
					match reply.await.unwrap_or(Err(WriteError::Stopped)) {
						Ok(inserted) => Ok((valid, inserted)),
						Err(reason) => Err(StoreError::Storage(reason)),
					}
				})
			}
			Err(rejection) => {
				flight.refused = true;
				flight.checking.clear();
				let reply = committer.submit_refusal(&self.worker_id, sequence);
				Box::pin(async move {
					match reply.await.unwrap_or(Err(WriteError::Stopped)) {
						Ok(_) => Err(StoreError::Invalid(rejection)),
						Err(reason) => Err(StoreError::Storage(reason)),
					}
				})
			}
		};
		flight.storing.push_back(Storing {
			sequence,
			received,
			answer,
		});
		Ok(())
	}

	/// The acknowledgement of a batch the ledger's writer answered for, once it is counted and
	/// handed to training; the error that ends the session for one refused or not stored.
	fn acknowledge(&self, (sequence, received, outcome): Settled) -> Result<v1::Ack, ServiceError> {
		// Refusals are timed too: a flood of bad batches costs the same validation work.
		histogram!(INGEST_SECONDS).record(received.elapsed().as_secs_f64());
		let (valid, inserted) = match outcome {
			Ok(done) => done,
			Err(StoreError::Invalid(rejection)) => return Err(self.refuse(sequence, rejection)),
			Err(StoreError::Storage(reason)) => {
				return Err(ServiceError::NotStored { sequence, reason });
			}
		};
		let Some(id) = self.stored_id(sequence, inserted)? else {
			return Ok(v1::Ack {
				sequence,
				accepted: false,
			});
		};
		self.deliver(id, valid);
		Ok(v1::Ack {
			sequence,
			accepted: true,
		})
	}

	/// The stored batch's ledger id; `None` for a batch stored before (counted, and
	/// acknowledged as not accepted); an error that ends the session for one out of order.
	fn stored_id(&self, sequence: u64, inserted: BatchInsert) -> Result<Option<i64>, ServiceError> {
		match inserted {
			BatchInsert::Inserted { id } => Ok(Some(id)),
			BatchInsert::Duplicate => {
				self.shared.live().batch_duplicate();
				Ok(None)
			}
			BatchInsert::OutOfOrder { expected } => {
				let why = if sequence < expected {
					"was refused before and is never stored"
				} else {
					"would leave a gap"
				};
				let message =
					format!("batch {sequence} {why}: this worker's next batch must be {expected}");
				Err(self.refuse(sequence, Rejection::new(RejectReason::Sequence, message)))
			}
		}
	}

	/// Counts a stored batch, offers it to the spot checks unless it is stale, and hands it to
	/// the training thread: a stale batch without its samples, so that the checkpoint covering
	/// its id lets the ledger prune them (a fleet sending only stale batches would otherwise
	/// fill the ledger with samples nobody trains on) and a restart does not put them in the
	/// window.
	fn deliver(&self, id: i64, valid: ValidBatch) {
		self.count_stored(&valid);
		if valid.stale {
			// Once a session: a worker back from a long outage sends its whole spool.
			if !self.stale_noted.swap(true, Ordering::Relaxed) {
				warn!(worker = %self.worker_id, sequence = valid.sequence, "stale batches stored but not trained on (more than the staleness limit behind); this session's others are not logged");
			}
		} else {
			self.research.offer(&self.worker_id, valid.samples());
		}
		// The training thread outlives every session; if it has stopped, the process is
		// shutting down, and the batch waits unread but safe in the ledger.
		self.training.send(StoredBatch {
			id,
			samples: valid.into_trainable(),
		});
	}

	/// Counts a refused batch and makes the error that ends the session, naming the batch.
	fn refuse(&self, sequence: u64, rejection: Rejection) -> ServiceError {
		self.shared.live().count_rejection(rejection.reason);
		warn!(worker = %excerpt(&self.worker_id), kind = rejection.reason.name(), reason = %bounded(rejection.message.clone()), "batch refused");
		ServiceError::BatchRefused {
			sequence,
			rejection,
		}
	}

	/// Counts a batch played for another run (or naming none) and makes the answer that tells
	/// the worker so. Nothing is stored and no sequence is used up: the number belongs to the
	/// other run, and the session goes on.
	fn refuse_other_run(&self, batch: &v1::SampleBatch) -> v1::BatchRefused {
		let run = &self.shared.run_dir;
		let played_for = if batch.run_id.is_empty() {
			"names no run".to_string()
		} else {
			format!("was played for run {}", excerpt(&batch.run_id))
		};
		let reason = format!(
			"batch {} {played_for}, but this coordinator serves run {} (id {}): it is not \
			 stored here and must not be sent again",
			batch.sequence,
			run.name(),
			run.id()
		);
		self.shared.live().count_rejection(RejectReason::Run);
		warn!(worker = %excerpt(&self.worker_id), sequence = batch.sequence, reason = %bounded(reason.clone()), "batch of another run refused");
		v1::BatchRefused {
			sequence: batch.sequence,
			run_id: run.id().to_string(),
			reason,
		}
	}

	/// Adds a stored batch to the live counters.
	fn count_stored(&self, valid: &ValidBatch) {
		let table = self.shared.tablebase.table();
		let winners = valid.endings.iter().map(|e| e.winner(table.as_deref()));
		let batch = BatchFigures {
			samples: valid.samples().len() as u64,
			superseded: valid.superseded as u64,
			games: valid.game_records.len() as u64,
			last_game: valid.game_records.last(),
		};
		self.shared
			.live()
			.batch_stored(&self.worker_id, batch, winners);
	}
}

/// Why a batch was not stored: refused (the worker drops it), or not stored now (it is sent
/// again).
enum StoreError {
	Invalid(Rejection),
	Storage(WriteError),
}

/// Whether a stream's error only says that the peer's connection went away (closed, reset or
/// cut short), which is how a worker that stops or dies ends its session.
fn is_connection_gone(status: &Status) -> bool {
	use std::io::ErrorKind;
	let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(status);
	let gone = |io: &std::io::Error| {
		matches!(
			io.kind(),
			ErrorKind::BrokenPipe | ErrorKind::ConnectionReset | ErrorKind::UnexpectedEof
		)
	};
	while let Some(error) = cause {
		// h2 keeps the connection's I/O error to itself rather than as a source.
		if let Some(io) = error
			.downcast_ref::<h2::Error>()
			.and_then(h2::Error::get_io)
		{
			return gone(io);
		}
		if let Some(io) = error.downcast_ref::<std::io::Error>() {
			return gone(io);
		}
		cause = error.source();
	}
	false
}

/// The fastest a heartbeat may say a worker plays, in samples a second: far above any machine.
const MAX_SAMPLES_PER_SECOND: f64 = 1e9;

/// A heartbeat's claims checked before they are shown: a generation the run has (none above
/// the current one), and a rate that is a number from 0 to [`MAX_SAMPLES_PER_SECOND`].
fn check_heartbeat(beat: &v1::Heartbeat, current: u64) -> Result<(), ServiceError> {
	if let Some(generation) = beat.generation.filter(|&g| g > current) {
		return Err(ServiceError::OutOfRange {
			field: "a heartbeat's generation",
			min: 0,
			max: current,
			value: generation,
		});
	}
	let rate = beat.samples_per_second;
	if !(0.0..=MAX_SAMPLES_PER_SECOND).contains(&rate) {
		return Err(ServiceError::Rate(rate));
	}
	Ok(())
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn stream_errors_become_the_workers_fault_or_stay_as_they_are() {
		let status = |error| Status::from(inbound_error(error));
		let too_large = Status::out_of_range("decoded message length too large");
		assert_eq!(status(too_large).code(), Code::ResourceExhausted);
		let garbled = status(Status::internal("failed to decode Protobuf message"));
		assert_eq!(garbled.code(), Code::InvalidArgument);
		assert!(garbled.message().contains("does not decode"), "{garbled}");
		let from_codec = Status::invalid_argument("the message is not a valid WorkerMessage");
		assert_eq!(status(from_codec.clone()).message(), from_codec.message());
		assert_eq!(status(from_codec).code(), Code::InvalidArgument);
		assert_eq!(status(Status::cancelled("gone")).code(), Code::Cancelled);
	}
}
