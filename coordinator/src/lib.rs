//! Tigers and Sheep: the coordinator library, which trains nets, gates them and serves them to
//! workers. So far it holds the coordinator's persistent storage: the run directory (promoted
//! nets and the atomically saved training checkpoint) and the ledger (an SQLite database of
//! every sample batch acknowledged to a worker, the workers, generations, gate matches, losses
//! and throughput), from which a coordinator killed at any moment restarts where it stopped.
//!
//! - [`rundir`]: [`RunDir`](rundir::RunDir), nets by generation and the training checkpoint;
//! - [`ledger`]: [`Ledger`](ledger::Ledger), the run's SQLite ledger;
//! - [`samples_codec`]: the binary layouts of samples in ledger blobs and window files;
//! - [`storage_error`]: [`StorageError`], how storage fails.

pub mod ledger;
pub mod rundir;
pub mod samples_codec;
pub mod storage_error;

pub use storage_error::StorageError;

#[cfg(test)]
mod test_support;
