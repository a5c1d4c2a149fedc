//! The run's durable storage: the run directory (nets, the atomic training checkpoint), its
//! SQLite ledger, the ledger's writer thread, the archive of self-play games and the binary
//! layouts of stored samples.
//!
//! It may call `clock`, `text` and the core and proto crates, and names the metrics its writer
//! records (`committer::LEDGER_COMMITS`); nothing here knows of the live state, the service or
//! the training thread.

pub(crate) mod archive;
pub(crate) mod committer;
pub(crate) mod disk;
pub(crate) mod ledger;
pub(crate) mod rundir;
pub(crate) mod samples_codec;
pub(crate) mod storage_error;

pub(crate) use storage_error::StorageError;
