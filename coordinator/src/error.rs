//! `CoordinatorError`, how the coordinator fails; `ServiceError`, why a call to its service was
//! refused; and the one place either becomes a gRPC status.

use thiserror::Error;
use tigers_process::metrics::MetricsError;
use tigers_proto::{
	MAX_MESSAGE_BYTES, MIN_WORKER_PROTOCOL, PROTOCOL_VERSION, REJECTED_SEQUENCE_KEY,
	RETRY_AFTER_KEY, VERSION_REFUSED_KEY,
};
use tonic::Status;

mod rejection;

pub(crate) use self::rejection::{RejectReason, Rejection};
use crate::config::BUILD_VERSION;
use crate::store::StorageError;
use crate::store::committer::WriteError;
use crate::text::{bounded, excerpt};

/// What can go wrong in the coordinator.
#[derive(Debug, Error)]
pub enum CoordinatorError {
	/// The run directory or ledger failed.
	#[error(transparent)]
	Storage(#[from] StorageError),
	/// The configuration cannot work.
	#[error("{0}")]
	Config(String),
	/// The gRPC server failed.
	#[error("gRPC server: {0}")]
	Transport(#[from] tonic::transport::Error),
	/// The metrics endpoint could not be started.
	#[error(transparent)]
	Metrics(#[from] MetricsError),
	/// A worker's identity was refused.
	#[error(transparent)]
	Identity(#[from] IdentityError),
	/// A file named in the configuration could not be read.
	#[error("{path}: {source}")]
	Io {
		/// The file.
		path: String,
		/// What the system said.
		source: std::io::Error,
	},
}

/// Why an identity was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum IdentityError {
	/// The presented secret is not 64 lowercase hex digits.
	#[error("worker_secret must be 64 lowercase hex digits or empty")]
	Malformed,
	/// The identity is bound to a secret the request did not present, or presented another.
	#[error(
		"worker {0} is bound to a secret this request does not present: another worker holds \
		 this identity, or this worker lost its state directory's worker_secret file"
	)]
	WrongSecret(String),
	/// The operating system's random number generator failed.
	#[error("cannot make a secret: the system's random number generator failed")]
	Random,
}

/// Why a call to the service was refused or failed. Every status the service's handlers
/// return is made from one of these, by the `From` below.
#[derive(Debug, Error)]
pub(crate) enum ServiceError {
	/// A text field too short, too long, or with control characters.
	#[error("{field} must be {min} to {max} printable characters, not {}", excerpt(.value))]
	Text {
		/// The field.
		field: &'static str,
		/// The fewest characters allowed.
		min: usize,
		/// The most.
		max: usize,
		/// What was sent.
		value: String,
	},
	/// A number out of its range.
	#[error("{field} must be {min} to {max}, not {value}")]
	OutOfRange {
		/// The field.
		field: &'static str,
		/// The smallest allowed.
		min: u64,
		/// The largest allowed.
		max: u64,
		/// What was sent.
		value: u64,
	},
	/// A heartbeat's rate that is not a number from 0 up to a billion.
	#[error("a heartbeat's samples per second must be a number from 0 to 1e9, not {0}")]
	Rate(f64),
	/// A worker whose protocol this coordinator does not speak: who must upgrade, and to what.
	#[error("{}", version_refusal(.build, *.protocol))]
	Version {
		/// The worker's build version, as it said.
		build: String,
		/// The worker's protocol (0 from a worker too old to send one).
		protocol: u32,
	},
	/// A worker that cannot read the run's input encoding.
	#[error(
		"this run's nets read input encoding {run}; this worker (build {}) reads encodings up \
		 to version {version} only: run workers of build {BUILD_VERSION}",
		excerpt(.build)
	)]
	InputVersion {
		/// The worker's build version, as it said.
		build: String,
		/// The newest input encoding it reads.
		version: u32,
		/// The encoding the run's nets read.
		run: u32,
	},
	/// A `worker loadtest` session at a coordinator not started to take them.
	#[error(
		"this coordinator takes no load test: the run would store, train on and archive its \
		 copies of one batch as real games. Start a coordinator for the test, with a run \
		 directory of its own and --accept-loadtest"
	)]
	LoadtestRefused,
	/// A net asked for that was not promoted yet.
	#[error("generation {wanted} does not exist yet; the latest is {latest}")]
	NoSuchGeneration {
		/// The generation asked for.
		wanted: u64,
		/// The newest there is.
		latest: u64,
	},
	/// A promoted net whose file cannot be read.
	#[error("generation {generation}: {error}")]
	NetFile {
		/// The generation.
		generation: u64,
		/// Why it cannot be read.
		error: StorageError,
	},
	/// A session that did not start with `SessionOpen`.
	#[error("a session starts with a SessionOpen message")]
	NoOpen,
	/// A session of a worker that has not joined (or whose join did not bind a secret).
	#[error("worker {} has not joined; call Join first", excerpt(.0))]
	NotJoined(String),
	/// A placement layer that does not exist (sheep placed and side to move).
	#[error("there is no placement layer with {placed} placed and the {side} to move")]
	NoSuchLayer {
		/// Sheep placed, as asked.
		placed: u32,
		/// The side to move, as asked.
		side: &'static str,
	},
	/// A placement layer not finished here, or not the file asked for.
	#[error("{layer} is not here as {}: {reason}", excerpt(.sha256))]
	LayerNotHere {
		/// The layer's file name.
		layer: String,
		/// The sha256 asked for.
		sha256: String,
		/// What this coordinator has instead.
		reason: String,
	},
	/// A slice submitted under a lease never handed out.
	#[error("no slice was handed out under lease {0}")]
	NoSuchLease(u64),
	/// A slice submitted under a lease handed to another worker.
	#[error("lease {lease} was handed to {}, not to {}", excerpt(.holder), excerpt(.worker))]
	NotYourLease {
		/// The lease.
		lease: u64,
		/// Who it was handed to.
		holder: String,
		/// Who submitted.
		worker: String,
	},
	/// A slice's values of the wrong length.
	#[error("the slice of lease {lease} is {expected} bytes, not {got}")]
	SliceLength {
		/// The lease.
		lease: u64,
		/// Its slice's length.
		expected: u64,
		/// What was sent.
		got: u64,
	},
	/// A worker caught returning wrong values.
	#[error("worker {} is flagged and gets no more slices: {reason}", excerpt(.worker))]
	Flagged {
		/// The worker.
		worker: String,
		/// What it was caught at.
		reason: String,
	},
	/// A tablebase asked for when there is none.
	#[error("this coordinator has no tablebase ({0})")]
	NoTablebase(String),
	/// A tablebase asked for that is not this coordinator's.
	#[error("this coordinator's tablebase is {ours}, not {}", excerpt(.wanted))]
	OtherTablebase {
		/// This coordinator's table's identity.
		ours: String,
		/// The one asked for.
		wanted: String,
	},
	/// A join under a new identity beyond the limit on new identities a minute.
	#[error(
		"too many new worker identities: this coordinator takes {per_minute} a minute; try \
		 again in {retry_after_seconds} s (a worker keeps its identity in its state directory, \
		 so a worker that restarts is no new one)"
	)]
	TooManyNewWorkers {
		/// The limit.
		per_minute: u32,
		/// Seconds until a new identity would be taken.
		retry_after_seconds: u64,
	},
	/// A join or session of one worker process while another holds the identity's live session.
	#[error(
		"worker {} already has a live session from another process (on host {}, heard {heard_ago:.0} s \
		 ago): two machines are running with one identity, most likely because a worker's state \
		 directory was copied. Give each machine a state directory of its own (in a copy, delete \
		 the worker_id and worker_secret files, and it joins as a new worker). This process \
		 waits and asks again; it is refused while the other's session lives",
		excerpt(.worker_id),
		excerpt(.host)
	)]
	IdentityInUse {
		/// The identity.
		worker_id: String,
		/// The host its live session joined from.
		host: String,
		/// Seconds since that session was heard from.
		heard_ago: f64,
		/// Seconds after which the session would have lapsed, had it gone quiet.
		retry_after_seconds: u64,
	},
	/// A progress stream beyond the limit.
	#[error(
		"too many progress streams: at most {limit} {scope}; close one (a dashboard needs \
		 one) or try again later"
	)]
	TooManyWatchers {
		/// The limit.
		limit: usize,
		/// `in all` or `on one connection`.
		scope: &'static str,
	},
	/// A session message over the size limit.
	#[error(
		"a session message is larger than the {} MiB limit: {}",
		MAX_MESSAGE_BYTES >> 20,
		excerpt(.0)
	)]
	TooLarge(String),
	/// A session message that does not decode.
	#[error("a session message does not decode: {}", excerpt(.0))]
	Undecodable(String),
	/// A session's stream failed otherwise: the connection is gone, and the status stays as
	/// the transport gave it (nobody reads it).
	#[error("{}", .0.message())]
	Stream(Status),
	/// A `SessionOpen` in a session already open.
	#[error("the session is already open")]
	AlreadyOpen,
	/// A session message with nothing in it.
	#[error("an empty message")]
	EmptyMessage,
	/// A sample batch refused: malformed, out of order, or content storage cannot keep. The
	/// worker drops it (the status names it).
	#[error("{}", .rejection.message)]
	BatchRefused {
		/// The batch's sequence number.
		sequence: u64,
		/// Why.
		rejection: Rejection,
	},
	/// A sample batch that could not be stored now; the worker sends it again later.
	#[error("could not store batch {sequence}: {reason}")]
	NotStored {
		/// The batch's sequence number.
		sequence: u64,
		/// Why: the ledger's writer could not store the batch or use up its number, or has
		/// stopped. (Content the ledger refuses is [`ServiceError::BatchRefused`].)
		reason: WriteError,
	},
	/// A session ended because the coordinator is stopping; the worker reconnects to its
	/// successor.
	#[error("the coordinator is shutting down")]
	ShuttingDown,
	/// A session ended because a newer one of the same worker opened.
	#[error("a newer session of this worker opened and took over this one")]
	TakenOver,
	/// A session ended because the worker said nothing for the idle timeout.
	#[error("no message from this worker for {0} s; the session is closed")]
	Idle(u64),
	/// A task on a blocking thread panicked or was cancelled.
	#[error("{what} task failed: {error}")]
	Task {
		/// Which task.
		what: &'static str,
		/// What tokio said.
		error: tokio::task::JoinError,
	},
	/// The coordinator itself failed, or refused an identity.
	#[error(transparent)]
	Coordinator(#[from] CoordinatorError),
}

impl ServiceError {
	/// A joined task's failure as an error, for `map_err`.
	pub(crate) fn task(what: &'static str) -> impl FnOnce(tokio::task::JoinError) -> ServiceError {
		move |error| ServiceError::Task { what, error }
	}
}

/// `status` with the trailing metadata that tells a worker how many seconds to wait before it
/// tries again.
fn with_retry_after(mut status: Status, seconds: u64) -> Status {
	if let Ok(value) = seconds.to_string().parse() {
		status.metadata_mut().insert(RETRY_AFTER_KEY, value);
	}
	status
}

/// `status` with the trailing metadata that names the refused batch's sequence number.
fn with_rejected_sequence(mut status: Status, sequence: u64) -> Status {
	if let Ok(value) = sequence.to_string().parse() {
		status.metadata_mut().insert(REJECTED_SEQUENCE_KEY, value);
	}
	status
}

/// `status` with the trailing metadata that names the worker protocols this build accepts.
fn with_accepted_protocols(mut status: Status) -> Status {
	let accepted = format!("{MIN_WORKER_PROTOCOL}-{PROTOCOL_VERSION}");
	if let Ok(value) = accepted.parse() {
		status.metadata_mut().insert(VERSION_REFUSED_KEY, value);
	}
	status
}

/// Why a worker of `build` speaking `protocol` is refused, and who must upgrade to what.
fn version_refusal(build: &str, protocol: u32) -> String {
	let worker = match protocol {
		0 => format!(
			"this worker (build {}, sending no protocol version)",
			excerpt(build)
		),
		_ => format!(
			"this worker (build {}, protocol {protocol})",
			excerpt(build)
		),
	};
	let coordinator = format!(
		"this coordinator (build {BUILD_VERSION}, worker protocols {MIN_WORKER_PROTOCOL} to \
		 {PROTOCOL_VERSION})"
	);
	if protocol < MIN_WORKER_PROTOCOL {
		format!(
			"{worker} is older than {coordinator} accepts: upgrade the worker to build {BUILD_VERSION}"
		)
	} else {
		format!(
			"{worker} is newer than {coordinator} understands: upgrade the coordinator, or run \
			 workers of build {BUILD_VERSION}"
		)
	}
}

impl From<ServiceError> for Status {
	fn from(error: ServiceError) -> Status {
		let message = bounded(error.to_string());
		match error {
			ServiceError::Text { .. }
			| ServiceError::OutOfRange { .. }
			| ServiceError::Rate(_)
			| ServiceError::NoOpen
			| ServiceError::Undecodable(_)
			| ServiceError::AlreadyOpen
			| ServiceError::EmptyMessage
			| ServiceError::NoSuchLayer { .. }
			| ServiceError::SliceLength { .. } => Status::invalid_argument(message),
			ServiceError::NotYourLease { .. } | ServiceError::Flagged { .. } => {
				Status::permission_denied(message)
			}
			ServiceError::LayerNotHere { .. } | ServiceError::NoSuchLease(_) => {
				Status::not_found(message)
			}
			ServiceError::BatchRefused { sequence, .. } => {
				with_rejected_sequence(Status::invalid_argument(message), sequence)
			}
			ServiceError::TooLarge(_) | ServiceError::TooManyWatchers { .. } => {
				Status::resource_exhausted(message)
			}
			ServiceError::TooManyNewWorkers {
				retry_after_seconds,
				..
			} => with_retry_after(Status::resource_exhausted(message), retry_after_seconds),
			ServiceError::IdentityInUse {
				retry_after_seconds,
				..
			} => with_retry_after(Status::already_exists(message), retry_after_seconds),
			ServiceError::Stream(status) => status,
			ServiceError::NotStored { .. } | ServiceError::ShuttingDown => {
				Status::unavailable(message)
			}
			ServiceError::TakenOver => Status::aborted(message),
			ServiceError::Idle(_) => Status::deadline_exceeded(message),
			ServiceError::Version { .. } | ServiceError::InputVersion { .. } => {
				with_accepted_protocols(Status::failed_precondition(message))
			}
			ServiceError::NotJoined(_)
			| ServiceError::LoadtestRefused
			| ServiceError::NoTablebase(_)
			| ServiceError::OtherTablebase { .. } => Status::failed_precondition(message),
			ServiceError::NoSuchGeneration { .. } | ServiceError::NetFile { .. } => {
				Status::not_found(message)
			}
			ServiceError::Task { .. } => Status::internal(message),
			ServiceError::Coordinator(error) => coordinator_status(&error, message),
		}
	}
}

impl From<StorageError> for ServiceError {
	fn from(error: StorageError) -> ServiceError {
		ServiceError::Coordinator(error.into())
	}
}

impl From<IdentityError> for ServiceError {
	fn from(error: IdentityError) -> ServiceError {
		ServiceError::Coordinator(error.into())
	}
}

impl From<CoordinatorError> for Status {
	fn from(error: CoordinatorError) -> Status {
		Status::from(ServiceError::Coordinator(error))
	}
}

fn coordinator_status(error: &CoordinatorError, message: String) -> Status {
	match error {
		// Storage failing is the coordinator's trouble, not the caller's: try again later.
		CoordinatorError::Storage(_) => Status::unavailable(message),
		CoordinatorError::Config(_) => Status::failed_precondition(message),
		CoordinatorError::Identity(IdentityError::Malformed) => Status::invalid_argument(message),
		CoordinatorError::Identity(IdentityError::WrongSecret(_)) => {
			Status::permission_denied(message)
		}
		CoordinatorError::Identity(IdentityError::Random) => Status::unavailable(message),
		CoordinatorError::Transport(_)
		| CoordinatorError::Metrics(_)
		| CoordinatorError::Io { .. } => Status::internal(message),
	}
}

#[cfg(test)]
mod tests {
	use tonic::Code;

	use super::*;

	#[test]
	fn each_refusal_has_its_status_code_and_says_what_was_wrong() {
		let cases = [
			(
				ServiceError::OutOfRange {
					field: "threads",
					min: 1,
					max: 4096,
					value: 0,
				},
				Code::InvalidArgument,
				"threads must be 1 to 4096, not 0",
			),
			(ServiceError::NoOpen, Code::InvalidArgument, "SessionOpen"),
			(
				ServiceError::InputVersion {
					build: "0.1.0".into(),
					version: 1,
					run: 2,
				},
				Code::FailedPrecondition,
				"this run's nets read input encoding 2; this worker (build \"0.1.0\") reads \
				 encodings up to version 1 only",
			),
			(
				ServiceError::NotJoined("w".repeat(500)),
				Code::FailedPrecondition,
				"has not joined",
			),
			(
				ServiceError::NoSuchGeneration {
					wanted: 8,
					latest: 7,
				},
				Code::NotFound,
				"generation 8 does not exist yet; the latest is 7",
			),
			(
				ServiceError::Coordinator(CoordinatorError::Identity(IdentityError::Malformed)),
				Code::InvalidArgument,
				"",
			),
			(
				ServiceError::Coordinator(CoordinatorError::Config("no".into())),
				Code::FailedPrecondition,
				"no",
			),
		];
		let refused = ServiceError::BatchRefused {
			sequence: 12,
			rejection: Rejection::new(
				RejectReason::Sample,
				"batch 12: sample 0 cannot be stored: score NaN is outside -1..=1".into(),
			),
		};
		let status = Status::from(refused);
		assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
		assert_eq!(
			status.metadata().get(REJECTED_SEQUENCE_KEY).unwrap(),
			"12",
			"the worker is told which batch to drop"
		);
		let cases = cases.into_iter().chain([
			(
				ServiceError::NotStored {
					sequence: 3,
					reason: WriteError::Stopped,
				},
				Code::Unavailable,
				"could not store batch 3: the ledger's writer has stopped",
			),
			(ServiceError::TakenOver, Code::Aborted, "took over"),
			(ServiceError::Idle(60), Code::DeadlineExceeded, "for 60 s"),
			(
				ServiceError::ShuttingDown,
				Code::Unavailable,
				"shutting down",
			),
			(ServiceError::EmptyMessage, Code::InvalidArgument, "empty"),
			(
				ServiceError::TooLarge("x".repeat(5000)),
				Code::ResourceExhausted,
				"16 MiB limit",
			),
		]);
		for (error, code, words) in cases {
			let status = Status::from(error);
			assert_eq!(status.code(), code, "{status:?}");
			assert!(status.message().contains(words), "{status:?}");
			// A peer's long text is cut short in the refusal.
			assert!(status.message().len() < 400, "{status:?}");
		}
	}
}
