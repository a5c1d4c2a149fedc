//! The Prometheus scrape endpoint both server binaries serve, and the recorder it installs.
//!
//! The recorder is global to the process, so one endpoint per process. Recording with no
//! recorder installed does nothing: processes without `--metrics-listen`, and the workers a
//! coordinator runs in its own process, record nothing.

use std::future::Future;
use std::net::SocketAddr;

use metrics_exporter_prometheus::{BuildError, PrometheusBuilder};
use thiserror::Error;

/// Why the metrics endpoint could not be started.
#[derive(Debug, Error)]
pub enum MetricsError {
	/// The address could not be bound: in use, not local, or not permitted.
	#[error("cannot serve metrics on {address}: {reason}")]
	Bind {
		/// The address asked for.
		address: SocketAddr,
		/// What the system said.
		reason: String,
	},
	/// This process already serves metrics; the recorder can be installed only once.
	#[error("metrics are already being served by this process")]
	AlreadyInstalled,
	/// The exporter refused its settings.
	#[error("cannot set up the metrics exporter: {0}")]
	Setup(String),
}

/// Binds `address` for Prometheus scrapes over plain HTTP (any path answers, `/metrics` by
/// convention) and installs `builder`'s recorder for the whole process. Returns the future that
/// answers scrapes; it runs until dropped or aborted.
///
/// Binding comes first, so a busy or foreign address is reported here and nothing is
/// installed. Must be called inside a tokio runtime: the exporter spawns its upkeep task on it.
pub fn serve(
	builder: PrometheusBuilder,
	address: SocketAddr,
) -> Result<impl Future<Output = ()> + Send, MetricsError> {
	let (recorder, exporter) =
		builder
			.with_http_listener(address)
			.build()
			.map_err(|e| match e {
				BuildError::FailedToCreateHTTPListener(reason) => {
					MetricsError::Bind { address, reason }
				}
				other => MetricsError::Setup(other.to_string()),
			})?;
	::metrics::set_global_recorder(recorder).map_err(|_| MetricsError::AlreadyInstalled)?;
	Ok(async move {
		if let Err(e) = exporter.await {
			tracing::warn!(error = ?e, "the metrics endpoint stopped");
		}
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[tokio::test]
	async fn a_busy_address_is_an_error_naming_it() {
		let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
		let address = taken.local_addr().unwrap();
		let Err(error) = serve(PrometheusBuilder::new(), address) else {
			panic!("binding a busy address succeeded")
		};
		assert!(matches!(error, MetricsError::Bind { .. }), "{error:?}");
		assert!(error.to_string().contains(&address.to_string()), "{error}");
	}
}
