//! What the run shows of itself: progress snapshots shared by every dashboard, `coordinator
//! status`, the Prometheus figures and the coordinator's own dashboard.
//!
//! The snapshots and figures read `live` (whose histories they show) and never change it. It
//! may call `live`, `clock`, `config`, `error`, `store`, `tablebase` and the metric names of
//! `ingest`; nothing here writes the run's storage or talks to workers.

pub(crate) mod local_dashboard;
pub(crate) mod metrics;
pub(crate) mod progress;
pub(crate) mod status;
