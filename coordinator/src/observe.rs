//! What the run shows of itself: progress snapshots shared by every dashboard, the bounded
//! histories behind them (losses, gates, recent games and samples), when the run last improved,
//! `coordinator status`, the Prometheus figures and the coordinator's own dashboard.
//!
//! The histories are plain data held by `live`; the snapshots and figures read `live`. Nothing
//! here writes the run's storage or talks to workers.

pub mod gate_history;
pub mod improvement;
pub mod local_dashboard;
pub mod metrics;
pub mod progress;
pub mod recent;
pub mod series;
pub mod status;
