//! `WorkerError`: the ways a worker can fail to start or be told to stop for good.
//!
//! Everything else (a coordinator that is down, a dropped connection, a net that does not check
//! out) is retried with backoff inside the session loop and only logged.

use std::path::PathBuf;

use thiserror::Error;
use tigers_process::metrics::MetricsError;
use tigers_process::token::TOKEN_ENV;

use crate::spool::SpoolError;

/// Why [`run`](crate::run) or [`bench`](crate::bench()) stopped with an error.
#[derive(Debug, Error)]
pub enum WorkerError {
	/// A setting is out of range.
	#[error("invalid setting: {0}")]
	Config(String),
	/// The coordinator URL, the certificate or the token cannot be used.
	#[error(transparent)]
	Client(#[from] tigers_proto::client::ClientError),
	/// The state directory could not be created, read or written.
	#[error("state directory {path}: {source}")]
	State {
		/// The file or directory concerned.
		path: PathBuf,
		/// What the system said.
		source: std::io::Error,
	},
	/// The state directory holds something this worker cannot use.
	#[error("state directory {path}: {reason}")]
	StateContents {
		/// The file concerned.
		path: PathBuf,
		/// What is wrong with it.
		reason: String,
	},
	/// Another worker (process or in-process) holds the state directory.
	#[error(
		"state directory {0} is in use by another worker; give each worker its own --state-dir"
	)]
	StateLocked(PathBuf),
	/// The spool could not be opened.
	#[error(transparent)]
	Spool(#[from] SpoolError),
	/// The self-play thread pool could not be started.
	#[error("cannot start the self-play threads: {0}")]
	Pool(#[from] rayon::ThreadPoolBuildError),
	/// The coordinator refused this worker (FAILED_PRECONDITION from `Join`), for instance a
	/// load test at a coordinator that takes none. Retrying cannot help.
	#[error("the coordinator refused this worker: {0}")]
	Refused(String),
	/// The coordinator refused this worker's version (protocol or input encoding): the message
	/// says which side to upgrade. The worker exits with [`crate::EXIT_VERSION_REFUSED`].
	#[error("the coordinator refused this worker's version: {0}")]
	Version(String),
	/// The server at the URL is not a coordinator that trains (it answered UNIMPLEMENTED):
	/// the sentence says what it is. Retrying cannot help.
	#[error(
		"{0}: point --connect at a coordinator that trains, or run `worker solve` against one \
		 that solves"
	)]
	WrongServer(String),
	/// The coordinator did not accept the token (UNAUTHENTICATED). Retrying cannot help.
	#[error(
		"the coordinator did not accept the token (check --token or {env}): {0}",
		env = TOKEN_ENV
	)]
	Unauthenticated(String),
	/// The coordinator bound this worker's identity to a secret it does not present
	/// (PERMISSION_DENIED). Retrying cannot help.
	#[error(
		"the coordinator refused this worker's identity: {0}. Give this worker a new \
		 --state-dir, or have the run's operator release the identity"
	)]
	IdentityRefused(String),
	/// The metrics endpoint could not be started.
	#[error(transparent)]
	Metrics(#[from] MetricsError),
	/// A background task of the worker itself failed.
	#[error("internal error: {0}")]
	Internal(String),
}
