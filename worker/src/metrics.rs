//! Prometheus metrics: the worker's own figures in `figures`, served by the
//! endpoint both binaries share (`tigers_process::metrics`).
//!
//! The recorder is global to the process, so one endpoint per process. Recording with no
//! recorder installed does nothing: workers without `--metrics-listen`, and the coordinator's
//! in-process workers, record nothing.

pub(crate) mod figures;

pub use figures::describe;
