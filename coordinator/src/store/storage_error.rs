//! `StorageError`: every way the run directory and the ledger can fail.

use std::path::PathBuf;

use thiserror::Error;
use tigers_core::network::file::NetFileError;
use tigers_core::selfplay::SampleError;

/// Why reading or writing the run directory or its ledger failed.
#[derive(Debug, Error)]
pub enum StorageError {
	/// SQLite refused a statement or could not open the ledger.
	#[error("ledger: {doing}: {source}")]
	Sqlite {
		/// What was being done, e.g. "inserting a batch".
		doing: &'static str,
		/// What SQLite said.
		source: rusqlite::Error,
	},
	/// The ledger's file could not be opened (a missing directory, no permission).
	#[error("{}: opening the ledger: {source}", path.display())]
	OpenLedger {
		/// The database file.
		path: PathBuf,
		/// What SQLite said.
		source: rusqlite::Error,
	},
	/// A file or directory could not be read, written, synced or renamed.
	#[error("{}: {doing}: {source}", path.display())]
	Io {
		/// The file or directory.
		path: PathBuf,
		/// What was being done, e.g. "syncing".
		doing: &'static str,
		/// What the system said.
		source: std::io::Error,
	},
	/// Stored data does not decode: a truncated file, a wrong header, an impossible board.
	#[error("{what} is corrupt: {why}")]
	Corrupt {
		/// The file or record, e.g. "checkpoint/window.bin" or "batch 17's samples".
		what: String,
		/// What is wrong with it.
		why: String,
	},
	/// A sample given to be stored breaks core's rule for samples, so it could not be read
	/// back; it is refused.
	#[error("sample {index} cannot be stored: {error}")]
	InvalidSample {
		/// Its position in the batch.
		index: usize,
		/// What is wrong with it.
		error: SampleError,
	},
	/// A net or optimizer file was refused.
	#[error("{}: {source}", path.display())]
	NetFile {
		/// The file.
		path: PathBuf,
		/// Why the file was refused.
		source: NetFileError,
	},
	/// The samples of a batch that is still needed were pruned from the ledger.
	#[error(
		"batch {id} is needed to rebuild the replay window but its samples were pruned; \
		 the checkpoint is older than the last pruning"
	)]
	Pruned {
		/// The batch.
		id: i64,
	},
	/// The ledger was written by a newer program.
	#[error("the ledger has schema version {found}, but this program knows versions up to {known}")]
	SchemaVersion {
		/// The version found in the file.
		found: i64,
		/// The newest version this program can migrate to.
		known: i64,
	},
	/// Another coordinator holds the run directory's lock.
	#[error(
		"run directory {} is in use by another coordinator (it holds the directory's lock file); \
		 stop that one first, or give this one another --run-dir",
		.0.display()
	)]
	RunDirLocked(PathBuf),
	/// A worker was named that the ledger has never seen.
	#[error("no worker {0:?} in the ledger")]
	UnknownWorker(String),
}

impl StorageError {
	/// A `map_err` adapter for SQLite errors while `doing` something.
	pub(crate) fn sqlite(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> StorageError {
		move |source| StorageError::Sqlite { doing, source }
	}

	/// A `map_err` adapter for I/O errors on `path` while `doing` something.
	pub(crate) fn io(
		path: impl Into<PathBuf>,
		doing: &'static str,
	) -> impl FnOnce(std::io::Error) -> StorageError {
		let path = path.into();
		move |source| StorageError::Io {
			path,
			doing,
			source,
		}
	}

	/// A corruption of `what` because of `why`.
	pub(crate) fn corrupt(what: impl Into<String>, why: impl Into<String>) -> StorageError {
		StorageError::Corrupt {
			what: what.into(),
			why: why.into(),
		}
	}
}
