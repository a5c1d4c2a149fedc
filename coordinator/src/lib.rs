//! Tigers and Sheep: the coordinator library, which trains nets, gates them and serves them to
//! workers. So far it holds the start of its persistent storage: the ledger, an SQLite database
//! of every sample batch acknowledged to a worker, the workers, generations, gate matches,
//! losses and throughput.
//!
//! - [`ledger`]: [`Ledger`](ledger::Ledger), the run's SQLite ledger;
//! - [`samples_codec`]: the binary layouts of samples in ledger blobs and window files;
//! - [`storage_error`]: [`StorageError`], how storage fails.

pub mod ledger;
pub mod samples_codec;
pub mod storage_error;

pub use storage_error::StorageError;

#[cfg(test)]
mod test_support;
