//! `CoordinatorError`, and the one place it becomes a gRPC status.

use thiserror::Error;
use tonic::Status;

use crate::StorageError;
use crate::identity::IdentityError;
use crate::metrics::MetricsError;
use crate::text::bounded;

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

impl From<CoordinatorError> for Status {
	fn from(error: CoordinatorError) -> Status {
		let message = bounded(error.to_string());
		match error {
			// Storage failing is the coordinator's trouble, not the caller's: try again later.
			CoordinatorError::Storage(_) => Status::unavailable(message),
			CoordinatorError::Config(_) => Status::failed_precondition(message),
			CoordinatorError::Identity(IdentityError::Malformed) => {
				Status::invalid_argument(message)
			}
			CoordinatorError::Identity(IdentityError::WrongSecret(_)) => {
				Status::permission_denied(message)
			}
			CoordinatorError::Identity(IdentityError::Random) => Status::unavailable(message),
			CoordinatorError::Transport(_)
			| CoordinatorError::Metrics(_)
			| CoordinatorError::Io { .. } => Status::internal(message),
		}
	}
}
