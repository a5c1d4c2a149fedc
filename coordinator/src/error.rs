//! `CoordinatorError`, and the one place it becomes a gRPC status.

use thiserror::Error;
use tonic::Status;

use crate::StorageError;
use crate::metrics::MetricsError;

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
		match error {
			// Storage failing is the coordinator's trouble, not the caller's: try again later.
			CoordinatorError::Storage(e) => Status::unavailable(e.to_string()),
			CoordinatorError::Config(e) => Status::failed_precondition(e),
			CoordinatorError::Transport(e) => Status::internal(e.to_string()),
			CoordinatorError::Metrics(e) => Status::internal(e.to_string()),
			e @ CoordinatorError::Io { .. } => Status::internal(e.to_string()),
		}
	}
}
