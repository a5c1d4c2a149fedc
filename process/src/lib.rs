//! Tigers and Sheep: the process plumbing the coordinator's and the worker's binaries share
//! around their libraries, so that both start, log, report and stop the same way.
//!
//! - [`logging`]: logs to the terminal, or to a file while the terminal shows a dashboard;
//! - [`signal`]: a future that completes when the process is asked to stop;
//! - [`metrics`]: the Prometheus scrape endpoint and its recorder.

pub mod logging;
pub mod metrics;
pub mod signal;
