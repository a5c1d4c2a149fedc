//! The coordinator: serves nets and self-play assignments to workers over gRPC, stores their
//! samples durably, trains the net, gates candidates against `ClaudePlayer`, promotes, and keeps
//! everything needed to resume in its run directory.
//!
//! Its modules, by concern:
//!
//! - [`server`]: opening a run and serving it (`run`); the gRPC handlers, bearer tokens, worker
//!   identities and local workers;
//! - [`ingest`]: a worker's session, the checks of its sample batches and the spot checks of its
//!   searches;
//! - [`training`]: the training thread, gating and promotion, the self-play depth, and nets
//!   measured at equal time per move (`coordinator measure`);
//! - [`store`]: the run directory, its SQLite ledger and the ledger's writer thread, the game
//!   archive and the layouts of stored samples;
//! - [`observe`]: progress snapshots, the dashboards' histories, `coordinator status`, the
//!   Prometheus figures and the coordinator's own dashboard;
//! - [`solve`]: the placement phase solved over workers, slice by slice (`coordinator solve`);
//! - [`live`]: the live state shared by handlers and the training thread;
//! - [`tablebase`]: the tablebase, loaded or solved beside the run, and sent to workers;
//! - [`config`]: settings, the build version and the checks made before listening;
//! - [`error`]: the coordinator's errors and the service's refusals, and the one mapping of
//!   both to gRPC statuses;
//! - [`clock`], [`text`] and [`priority`]: the wall clock, peers' text cut short for messages,
//!   and the threads that give way to ingest.

pub mod clock;
pub mod config;
pub mod error;
pub mod ingest;
pub mod live;
pub mod observe;
pub mod priority;
pub mod server;
pub mod solve;
pub mod store;
pub mod tablebase;
pub mod text;
pub mod training;

#[cfg(test)]
mod test_support;
