//! Prometheus metrics: `serve` binds the scrape endpoint and installs the process's recorder;
//! [`figures`] copies the run's live counters into it once a second and describes every metric,
//! including those recorded where the work happens and named there: the ingest path's latency
//! (`ingest::session`) and the ledger writer's commits (`store::committer`).
//!
//! The endpoint itself is `tigers_process::metrics`, which both binaries share. The recorder is
//! global to the process, so only one coordinator per process may serve metrics. Recording with
//! no recorder installed does nothing, which is how coordinators without `--metrics-listen` (and
//! most tests) run.

pub(crate) mod figures;

use std::future::Future;
use std::net::SocketAddr;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};

pub(crate) use figures::{describe, publish_every};
pub use tigers_process::metrics::MetricsError;

use crate::ingest::session::INGEST_SECONDS;

/// Upper bounds (seconds) of the ingest histogram's buckets. A batch is validated and committed
/// with an fsync, which takes a few milliseconds on a local disk and up to a second on a slow
/// network disk; the buckets span that range.
const INGEST_BUCKETS: [f64; 12] = [
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

/// The exporter's settings, shared by the endpoint and by tests that render without one: a true
/// histogram (with buckets) for ingest latency rather than a summary, so it can be aggregated
/// across restarts and coordinators.
pub(crate) fn builder() -> Result<PrometheusBuilder, MetricsError> {
	PrometheusBuilder::new()
		.set_buckets_for_metric(Matcher::Full(INGEST_SECONDS.to_string()), &INGEST_BUCKETS)
		.map_err(|e| MetricsError::Setup(e.to_string()))
}

/// Binds `address` for Prometheus scrapes of `/metrics` (any path answers), installs the
/// process's recorder and describes every metric. Returns the future that answers scrapes; it
/// runs until dropped or aborted.
///
/// Binding comes first, so a busy or foreign address is reported here and nothing is
/// installed. Must be called inside a tokio runtime: the exporter spawns its upkeep task on it.
pub(crate) fn serve(address: SocketAddr) -> Result<impl Future<Output = ()> + Send, MetricsError> {
	let serving = tigers_process::metrics::serve(builder()?, address)?;
	describe();
	Ok(serving)
}
