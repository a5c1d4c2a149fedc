//! The coordinator's local workers (`--local-workers`): workers in this process that connect
//! over loopback like any other worker, each with a state directory of its own in the run
//! directory. They are the coordinator's only use of the worker crate: the table the
//! coordinator holds is offered to them here too, so that they do not read or fetch a copy.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use tigers_core::Tablebase;
use tigers_worker::WorkerConfig;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::warn;

use crate::config::CoordinatorConfig;

/// Offers the coordinator's `table` to the local workers in this process, whose assignments
/// name it (called when the run opens with a table, and when the solve beside it finishes).
pub(super) fn share_tablebase(table: &Arc<Tablebase>) {
	tigers_worker::share_tablebase(table);
}

/// The local workers, running.
pub(super) struct LocalWorkers {
	/// Turns true to stop them.
	stop: watch::Sender<bool>,
	running: Vec<JoinHandle<()>>,
}

impl LocalWorkers {
	/// Starts the configured number of local workers, connecting to the server at `address`
	/// and keeping their state in `run_dir`.
	pub(super) fn start(
		config: &CoordinatorConfig,
		address: SocketAddr,
		run_dir: &Path,
	) -> LocalWorkers {
		let (stop, stopped) = watch::channel(false);
		let running = (0..config.local_workers)
			.map(|index| {
				let worker = worker_config(config, address, run_dir, index);
				let mut stopped = stopped.clone();
				tokio::spawn(async move {
					let until = async move {
						let _ = stopped.wait_for(|stopped| *stopped).await;
					};
					if let Err(e) = tigers_worker::run(worker, until).await {
						warn!(%e, "local worker stopped");
					}
				})
			})
			.collect();
		LocalWorkers { stop, running }
	}

	/// Stops every local worker and waits until each has flushed its last batches and stopped.
	pub(super) async fn stop(self) {
		let _ = self.stop.send(true);
		for worker in self.running {
			let _ = worker.await;
		}
	}
}

/// The settings of local worker `index`, which connects to `address`.
fn worker_config(
	config: &CoordinatorConfig,
	address: SocketAddr,
	run_dir: &Path,
	index: u32,
) -> WorkerConfig {
	let mut worker = WorkerConfig::new(config.local_url(address));
	worker.name = format!("local-{index}");
	worker.threads = config.local_worker_threads;
	worker.token.clone_from(&config.token);
	worker.state_dir = run_dir.join("local-workers").join(format!("local-{index}"));
	// The certificate must name the host of `local_url` for local workers to trust it.
	worker.tls_ca = config.tls.as_ref().map(|(cert, _)| cert.clone());
	// Local workers stop before the server, so a short grace is enough to flush.
	worker.shutdown_grace = std::time::Duration::from_secs(3);
	// They take the coordinator's own table (shared in the process), never a second copy.
	worker.tablebase.clone_from(&config.tablebase);
	worker.no_tablebase = config.no_tablebase;
	worker
}
