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
//! module only starts them (`run`). It may call `error`, `tablebase` and, for the token check,
//! the tablebase transfers and the answer to unserved calls it shares with a training run,
//! `server`.

mod config;
mod driver;
pub(crate) mod plan;
pub(crate) mod service;
mod solver;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tigers_core::Tablebase;
use tigers_core::tablebase::placement::PlacementError;
use tigers_proto::MAX_MESSAGE_BYTES;
use tigers_proto::services::Service;
use tigers_proto::v1::observe_server::ObserveServer;
use tigers_proto::v1::solve_server::SolveServer;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::Routes;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Server;
use tracing::{error, info};

use crate::error::CoordinatorError;
use crate::server::auth::TokenCheck;
use crate::server::routes::answering_unserved;
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
	let solver = open_solver(&config).await?;
	let _metrics = match config.metrics_listen {
		Some(address) => Some(service::serve_metrics(address, &solver)?),
		None => None,
	};
	let (driver, driver_ended) = start_driver(&solver)?;
	info!(address = %listener.local_addr().map_or_else(|_| "?".into(), |a| a.to_string()),
		dir = %config.dir.display(), from_placed = config.from_placed, "solving the placement phase");
	let served = Server::builder()
		.add_routes(service_routes(&config, &solver))
		.serve_with_incoming_shutdown(
			TcpListenerStream::new(listener),
			stop_when(shutdown, solver.clone(), driver_ended),
		)
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

/// The handlers over `solver`: the solve's service and the progress, each behind the
/// bearer-token check, and the training calls (or any other path) answered as unserved.
fn service_routes(config: &SolveConfig, solver: &Arc<Solver>) -> Routes {
	let handlers = Arc::new(SolveService::new(solver.clone()));
	let check = TokenCheck::new(config.token.clone());
	let solve = SolveServer::from_arc(handlers.clone())
		.max_decoding_message_size(MAX_MESSAGE_BYTES)
		.max_encoding_message_size(MAX_MESSAGE_BYTES);
	let observe = ObserveServer::from_arc(handlers)
		.max_decoding_message_size(MAX_MESSAGE_BYTES)
		.max_encoding_message_size(MAX_MESSAGE_BYTES);
	let served = Routes::new(InterceptedService::new(solve, check.clone()))
		.add_service(InterceptedService::new(observe, check));
	answering_unserved(served, Service::Solve)
}

/// The solve's shared state, over the movement table (read on a blocking thread) and the
/// directory the layers go to (created if needed).
async fn open_solver(config: &SolveConfig) -> Result<Arc<Solver>, CoordinatorError> {
	let path = config.movement.clone();
	let movement = tokio::task::spawn_blocking(move || Tablebase::read(&path))
		.await
		.map_err(|e| CoordinatorError::Config(format!("reading the movement table: {e}")))?
		.map_err(|e| CoordinatorError::Config(format!("{}: {e}", config.movement.display())))?;
	std::fs::create_dir_all(&config.dir).map_err(|source| CoordinatorError::Io {
		path: config.dir.display().to_string(),
		source,
	})?;
	Ok(Arc::new(Solver {
		inner: Mutex::new(Inner::new(clock_seed())),
		changed: Condvar::new(),
		movement: Arc::new(movement),
		config: config.clone(),
		started: Instant::now(),
		stop: AtomicBool::new(false),
	}))
}

/// The driver thread, which returns how the solve went.
type Driver = JoinHandle<Result<(), PlacementError>>;

/// The driver thread, and whether it ended in an error: told at once, so that the server stops
/// then (a panic drops the sender, which tells it too).
fn start_driver(
	solver: &Arc<Solver>,
) -> Result<(Driver, oneshot::Receiver<bool>), CoordinatorError> {
	let (ended, driver_ended) = oneshot::channel();
	let solver = solver.clone();
	let driver = std::thread::Builder::new()
		.name("placement-solve".into())
		.spawn(move || {
			let driven = driver::drive(&solver);
			if let Err(error) = &driven {
				error!(%error, "the solve failed");
			}
			let _ = ended.send(driven.is_err());
			driven
		})
		.map_err(|e| CoordinatorError::Config(format!("cannot start the solve: {e}")))?;
	Ok((driver, driver_ended))
}

/// Resolves when the server is to stop: on `shutdown`, once every layer is written, or when
/// the driver has ended in an error.
async fn stop_when(
	shutdown: impl Future<Output = ()>,
	solver: Arc<Solver>,
	driver_ended: oneshot::Receiver<bool>,
) {
	let failed = async move {
		if let Ok(false) = driver_ended.await {
			std::future::pending::<()>().await;
		}
	};
	tokio::select! {
		() = shutdown => info!("stopping"),
		() = all_written(&solver) => info!("every layer is written"),
		() = failed => info!("stopping: the solve has ended in an error"),
	}
}

/// Resolves once every layer is written and the workers have been told so, or the solve's
/// linger is over.
async fn all_written(solver: &Solver) {
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
