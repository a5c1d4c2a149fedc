//! The coordinator: serves nets and self-play assignments to workers over gRPC, stores their
//! samples durably, trains the net, gates candidates against `ClaudePlayer`, promotes, and keeps
//! everything needed to resume in its run directory.
//!
//! - [`config`]: settings and the checks made before listening;
//! - [`server`]: opening a run and serving it (`run`);
//! - [`service`]: the gRPC handlers; `session`: one worker's session;
//! - [`identity`]: worker identities bound to secrets;
//! - [`auth`]: bearer tokens;
//! - [`validate`]: checks of received sample batches, and why one is refused;
//! - [`state`]: the live state shared by handlers and the training thread;
//! - [`progress`]: progress snapshots built once per period and shared by every dashboard;
//! - [`series`], [`gates`] and [`recent`]: the bounded histories and recent tallies behind the
//!   dashboards;
//! - [`text`]: peers' text cut short for messages;
//! - [`training`]: the training thread, gating and promotion;
//! - [`workload`]: the self-play depth, raised while the fleet outruns the trainer;
//! - [`tablebase`]: the tablebase, loaded or solved beside the run, and sent to workers;
//! - [`research`]: spot checks of workers' searches;
//! - [`priority`]: the threads that give way to ingest;
//! - [`rundir`] and [`ledger`]: the run directory (nets, the atomic training checkpoint) and its
//!   SQLite ledger (every acknowledged batch, workers, generations, gates, losses, throughput);
//! - [`committer`]: the ledger's writer thread: batches stored in groups sharing one commit,
//!   writes nobody waits for, pruning and compaction;
//! - [`archive`]: every stored self-play game, kept in the run directory by generation;
//! - [`samples_codec`]: the binary layouts of samples in ledger blobs and window files;
//! - [`storage_error`]: how storage fails;
//! - [`status`]: the run as JSON for `coordinator status`;
//! - [`improvement`]: when the run last got a stronger net, for the alarm when it has not for
//!   long;
//! - [`timed`]: promoted nets measured at equal time per move, beside the gate;
//! - [`measure`]: a net file measured the same way outside a run (`coordinator measure`);
//! - [`solve`]: the placement phase solved over workers, slice by slice (`coordinator solve`);
//! - [`local_dashboard`]: the coordinator's own dashboard on its terminal;
//! - [`metrics`]: the Prometheus endpoint and the figures it serves;
//! - [`error`]: the coordinator's errors and the service's refusals, and the one mapping of
//!   both to gRPC statuses.

pub mod archive;
pub mod auth;
pub mod clock;
pub mod committer;
pub mod config;
pub mod error;
pub mod gates;
pub mod identity;
pub mod improvement;
pub mod ledger;
pub mod local_dashboard;
pub mod measure;
pub mod metrics;
pub mod priority;
pub mod progress;
pub mod recent;
pub mod research;
pub mod rundir;
pub mod samples_codec;
pub mod series;
pub mod server;
pub mod service;
mod session;
pub mod solve;
pub mod state;
pub mod status;
pub mod storage_error;
pub mod tablebase;
pub mod text;
pub mod timed;
pub mod training;
pub mod validate;
pub mod workload;

pub use storage_error::StorageError;

#[cfg(test)]
mod test_support;
