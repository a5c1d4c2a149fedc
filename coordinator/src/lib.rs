//! The coordinator: serves nets and self-play assignments to workers over gRPC, stores their
//! samples durably, trains the net, gates candidates (against the incumbent net, or
//! `ClaudePlayer` under `--gate sprt`), promotes, measures the promoted nets against
//! `ClaudePlayer`, and keeps everything needed to resume in its run directory.
//!
//! Its modules, by concern, in the order they may call (each uses only those before it, as
//! docs/architecture.md states and `.ci/room-order.py` checks):
//!
//! - `clock`, `text` and `priority`: the wall clock, peers' text cut short for messages,
//!   and the threads that give way to ingest;
//! - [`config`]: settings, the build version and the checks made before listening;
//! - `store`: the run directory, its SQLite ledger and the ledger's writer thread, the game
//!   archive and the layouts of stored samples;
//! - [`error`]: the coordinator's errors and the service's refusals (a batch's among them), and
//!   the one mapping of both to gRPC statuses;
//! - `tablebase`: the tablebase, loaded or solved beside the run, and sent to workers; where
//!   the tables are looked for, and whether they must be there (`tablebase::source`);
//! - `live`: the live state shared by handlers and the training thread, changed through
//!   methods named for what happened, and the bounded histories the dashboards draw;
//! - `training`: the training thread, gating and promotion, the self-play depth, and nets
//!   measured at equal time per move (`coordinator measure`);
//! - `ingest`: a worker's session, the checks of its sample batches and the spot checks of its
//!   searches;
//! - `observe`: progress snapshots, `coordinator status`, the Prometheus figures and the
//!   coordinator's own dashboard;
//! - `web`: the run's read-only web pages (`--http-listen`, docs/web.md);
//! - [`server`]: opening a run and serving it (`run`); the gRPC handlers, bearer tokens, worker
//!   identities and local workers;
//! - [`solve`]: the placement phase solved over workers, slice by slice (`coordinator solve`).
//!
//! Its public surface is what the binary (`src/main.rs`) and the integration tests
//! (`tests/it`) use, and no more:
//!
//! - [`server::run`] and [`solve::run`] (with [`solve::SolveConfig`]): a run served, a
//!   placement solve served;
//! - [`server::certificates::make_certificates`]: `coordinator tls`;
//! - [`config`]: everything a coordinator is started with; [`error::CoordinatorError`]: how
//!   starting or serving fails;
//! - [`fetch_status`], [`progress_json`] and [`StatusError`]: `coordinator status`;
//! - [`measure`], [`MeasureSettings`], [`Measured`] and [`Opponent`]: `coordinator measure`;
//!   [`TableSource`] and [`TableError`]: the tables it judges and plays with;
//! - [`LocalDashboard`]: the coordinator's own screen; [`MetricsError`]: a metrics endpoint
//!   that could not start;
//! - [`Ledger`], [`RunDir`], [`GameEnding`] and [`disagreement`]: for the tests that read a
//!   run directory or check what a worker is held to.
//!
//! Everything else is `pub(crate)`; the `unreachable_pub` lint keeps it so.

#![warn(unreachable_pub)]
pub(crate) mod clock;
pub mod config;
pub mod error;
pub(crate) mod ingest;
pub(crate) mod live;
pub(crate) mod observe;
pub(crate) mod priority;
pub mod server;
pub mod solve;
pub(crate) mod store;
pub(crate) mod tablebase;
pub(crate) mod text;
pub(crate) mod training;
pub(crate) mod web;

pub use ingest::research::disagreement;
pub use ingest::validate::GameEnding;
pub use observe::local_dashboard::LocalDashboard;
pub use observe::metrics::MetricsError;
pub use observe::status::{StatusError, fetch_status, progress_json};
pub use store::ledger::Ledger;
pub use store::rundir::RunDir;
pub use tablebase::source::{TableError, TableSource};
pub use training::grades::{GradeError, GradeSettings, grade_net, load_suite};
pub use training::measure::{MeasureSettings, Measured, Opponent, measure};

#[cfg(test)]
mod test_support;
