//! The run's durable storage: the run directory (nets, the atomic training checkpoint), its
//! SQLite ledger, the ledger's writer thread, the archive of self-play games and the binary
//! layouts of stored samples.
//!
//! It may call `clock`, `text` and the core and proto crates; nothing here knows of the live
//! state, the service or the training thread.

pub mod archive;
pub mod committer;
pub mod ledger;
pub mod rundir;
pub mod samples_codec;
pub mod storage_error;

pub use storage_error::StorageError;
