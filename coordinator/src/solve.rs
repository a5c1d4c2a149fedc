//! `coordinator solve`: the placement phase solved over workers, layer by layer, into the same
//! files as `tui tablebase build --placement` (docs/tablebase.md, "On the cluster").
//!
//! Ownership: `Solver` holds the state behind one mutex, held only for bookkeeping. The
//! driver thread alone moves from layer to layer: it installs a layer's plan, computes the
//! slices that need the coordinator's own values, writes the layer when every slice is done,
//! and then offers that layer to the workers as the next one's child. The gRPC handlers hand
//! out slices and take them back, after a spot check on tokio's blocking threads.
//!
//! `config` is what the solve is told, `solver` its shared state, `driver` the driver thread,
//! `plan` one layer's slices and leases (pure bookkeeping), `service` the gRPC handlers; this
//! module only starts them (`run`). It may call `error`, `tablebase` and, for the token check
//! and the tablebase transfers it shares with a training run, `server`.

mod config;
mod driver;
pub(crate) mod plan;
pub(crate) mod service;
mod solver;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tigers_core::Tablebase;
use tigers_proto::MAX_MESSAGE_BYTES;
use tigers_proto::v1::coordinator_server::CoordinatorServer;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Server;
use tracing::{error, info};

use crate::error::CoordinatorError;
use crate::server::auth::TokenCheck;
use crate::solve::service::SolveService;
use crate::solve::solver::{Inner, Solver, clock_seed};

pub use self::config::SolveConfig;

/// Solves the layers `config` asks for with the workers that connect to `listener`, until they
/// are all written or `shutdown` resolves.
pub async fn run(
	config: SolveConfig,
	listener: TcpListener,
	shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), CoordinatorError> {
	let path = config.movement.clone();
	let movement = tokio::task::spawn_blocking(move || Tablebase::read(&path))
		.await
		.map_err(|e| CoordinatorError::Config(format!("reading the movement table: {e}")))?
		.map_err(|e| CoordinatorError::Config(format!("{}: {e}", config.movement.display())))?;
	std::fs::create_dir_all(&config.dir).map_err(|source| CoordinatorError::Io {
		path: config.dir.display().to_string(),
		source,
	})?;
	let solver = Arc::new(Solver {
		inner: Mutex::new(Inner::new(clock_seed())),
		changed: Condvar::new(),
		movement: Arc::new(movement),
		config: config.clone(),
		started: Instant::now(),
		stop: AtomicBool::new(false),
	});
	let _metrics = match config.metrics_listen {
		Some(address) => Some(service::serve_metrics(address, &solver)?),
		None => None,
	};
	// Whether the driver ended in an error: told at once, so that the server stops then
	// (a panic drops the sender, which tells it too).
	let (ended, driver_ended) = tokio::sync::oneshot::channel();
	let driver = {
		let solver = solver.clone();
		std::thread::Builder::new()
			.name("placement-solve".into())
			.spawn(move || {
				let driven = driver::drive(&solver);
				if let Err(error) = &driven {
					error!(%error, "the solve failed");
				}
				let _ = ended.send(driven.is_err());
				driven
			})
			.map_err(|e| CoordinatorError::Config(format!("cannot start the solve: {e}")))?
	};
	info!(address = %listener.local_addr().map_or_else(|_| "?".into(), |a| a.to_string()),
		dir = %config.dir.display(), from_placed = config.from_placed, "solving the placement phase");
	let server = CoordinatorServer::new(SolveService::new(solver.clone()))
		.max_decoding_message_size(MAX_MESSAGE_BYTES)
		.max_encoding_message_size(MAX_MESSAGE_BYTES);
	let service = InterceptedService::new(server, TokenCheck::new(config.token.clone()));
	let finished = {
		let solver = solver.clone();
		async move {
			loop {
				tokio::time::sleep(Duration::from_millis(100)).await;
				if solver.lock().finished {
					break;
				}
			}
			let deadline = Instant::now() + solver.config.linger;
			while Instant::now() < deadline && !solver.is_done_telling() {
				tokio::time::sleep(Duration::from_millis(100)).await;
			}
		}
	};
	let failed = async move {
		if let Ok(false) = driver_ended.await {
			std::future::pending::<()>().await;
		}
	};
	let stopping = async move {
		tokio::select! {
			() = shutdown => info!("stopping"),
			() = finished => info!("every layer is written"),
			() = failed => info!("stopping: the solve has ended in an error"),
		}
	};
	let served = Server::builder()
		.add_service(service)
		.serve_with_incoming_shutdown(TcpListenerStream::new(listener), stopping)
		.await;
	solver.stop.store(true, Ordering::Relaxed);
	solver.poke();
	let driven = tokio::task::spawn_blocking(move || driver.join())
		.await
		.map_err(|e| CoordinatorError::Config(format!("the solve thread: {e}")))?
		.map_err(|_| CoordinatorError::Config("the solve thread panicked".into()))?;
	served?;
	driven.map_err(|e| CoordinatorError::Config(e.to_string()))
}
