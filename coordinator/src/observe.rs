//! What the run shows of itself: progress snapshots shared by every dashboard, the bounded
//! histories behind them (losses, gates, recent games and samples), when the run last improved,
//! `coordinator status`, the Prometheus figures and the coordinator's own dashboard.
//!
//! The histories are plain data held by `live`; the snapshots and figures read `live`. It may
//! call `live`, `clock`, `config`, the ledger's row types in `store`, and the reasons and states
//! of `ingest::validate` and `tablebase` it shows; nothing here writes the run's storage or
//! talks to workers.

pub(crate) mod gate_history;
pub(crate) mod improvement;
pub(crate) mod ladder;
pub(crate) mod local_dashboard;
pub(crate) mod metrics;
pub(crate) mod progress;
pub(crate) mod recent;
pub(crate) mod series;
pub(crate) mod status;
