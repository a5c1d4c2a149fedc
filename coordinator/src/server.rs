//! Opening a run (new or resumed) and serving it: `run(config, listener, shutdown)` behind the
//! binary's thin `main`, so tests can start a coordinator on `127.0.0.1:0`.

mod open;

use std::future::Future;
use std::sync::Arc;

use tigers_proto::MAX_MESSAGE_BYTES;
use tigers_proto::v1::coordinator_server::CoordinatorServer;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tracing::{info, warn};

pub use self::open::open_run;
use crate::auth::TokenCheck;
use crate::config::CoordinatorConfig;
use crate::error::CoordinatorError;
use crate::metrics;
use crate::progress;
use crate::research::Research;
use crate::service::CoordinatorService;
use crate::state::Shared;
use crate::timed::TimedMeasurer;
use crate::training::{self, TrainingInput};

/// Solves the tablebase on a thread of its own while the run goes on; once it is ready, local
/// workers share it and every session is told the assignment that names it. (The training
/// thread and the gate pick it up from `Shared` themselves.)
fn start_tablebase_solve(shared: Arc<Shared>, threads: usize) {
	let spawned = std::thread::Builder::new()
		.name("tablebase".into())
		.spawn(move || {
			shared.tablebase.build(threads, |table| {
				tigers_worker::share_tablebase(&table);
				shared.reassign_with_tablebase();
			});
		});
	if let Err(e) = spawned {
		warn!(%e, "cannot start the tablebase solve; training goes on without it");
	}
}

/// Stops a background task when `run` returns, whichever way it returns.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
	fn drop(&mut self) {
		self.0.abort();
	}
}

/// Serves the run on `listener` until `shutdown` resolves, with local workers and Prometheus
/// metrics if configured; then stops the workers, checkpoints the training state and returns.
pub async fn run(
	config: CoordinatorConfig,
	listener: TcpListener,
	shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), CoordinatorError> {
	config.check_exposure().map_err(CoordinatorError::Config)?;
	// The metrics address is checked before the run is opened, so a busy one fails fast.
	let _endpoint = match config.metrics_listen {
		Some(address) => {
			let serving = metrics::serve(address)?;
			info!(%address, "serving metrics");
			Some(AbortOnDrop(tokio::spawn(serving)))
		}
		None => None,
	};
	let opening = config.clone();
	let (shared, start) = tokio::task::spawn_blocking(move || open_run(&opening))
		.await
		.map_err(|e| CoordinatorError::Config(format!("opening the run failed: {e}")))??;
	let pool = Arc::new(
		rayon::ThreadPoolBuilder::new()
			.num_threads(config.gate_threads())
			.thread_name(|i| format!("gate-{i}"))
			.start_handler(|_| crate::priority::lower_this_thread())
			.build()
			.map_err(|e| CoordinatorError::Config(format!("cannot start the gating pool: {e}")))?,
	);
	let publisher = config
		.metrics_listen
		.is_some()
		.then(|| AbortOnDrop(tokio::spawn(metrics::publish_every(shared.clone()))));
	let (training_inbox, training_thread) = training::start(shared.clone(), start, pool);
	if shared.tablebase.table().is_none() && shared.tablebase.path().is_some() {
		let cores = std::thread::available_parallelism().map_or(2, usize::from);
		start_tablebase_solve(shared.clone(), cores);
	}
	let research = Research::start(shared.clone());
	let timed = TimedMeasurer::start(shared.clone());
	let limits = config.limits;
	let progress = AbortOnDrop(tokio::spawn(progress::publish_every(
		shared.clone(),
		limits.forget_workers_after,
	)));
	let service = CoordinatorService::new(shared.clone(), training_inbox.clone(), research, limits);
	let server = CoordinatorServer::new(service)
		.max_decoding_message_size(MAX_MESSAGE_BYTES)
		.max_encoding_message_size(MAX_MESSAGE_BYTES);
	let service = InterceptedService::new(server, TokenCheck::new(config.token.clone()));

	// Pings find a worker whose host vanished without closing its connections; the session's
	// idle timeout finds one that is connected but silent.
	let mut builder = Server::builder()
		.http2_keepalive_interval(Some(limits.keepalive_interval))
		.http2_keepalive_timeout(Some(limits.keepalive_timeout))
		.tcp_keepalive(Some(limits.keepalive_interval));
	if let Some((cert, key)) = &config.tls {
		let read = |path: &std::path::PathBuf| {
			std::fs::read(path).map_err(|source| CoordinatorError::Io {
				path: path.display().to_string(),
				source,
			})
		};
		let identity = Identity::from_pem(read(cert)?, read(key)?);
		builder = builder.tls_config(ServerTlsConfig::new().identity(identity))?;
	}
	let address = listener
		.local_addr()
		.map_err(|source| CoordinatorError::Io {
			path: "listener".into(),
			source,
		})?;
	info!(%address, tls = config.tls.is_some(), "serving");

	// Local workers connect over loopback like any other worker.
	let (stop_workers, workers_stopped) = tokio::sync::watch::channel(false);
	let mut local = Vec::new();
	for index in 0..config.local_workers {
		let mut worker = tigers_worker::WorkerConfig::new(config.local_url(address));
		worker.name = format!("local-{index}");
		worker.threads = config.local_worker_threads;
		worker.token.clone_from(&config.token);
		worker.state_dir = shared
			.run_dir
			.path()
			.join("local-workers")
			.join(format!("local-{index}"));
		// The certificate must name the host of `local_url` for local workers to trust it.
		worker.tls_ca = config.tls.as_ref().map(|(cert, _)| cert.clone());
		// Local workers stop before the server, so a short grace is enough to flush.
		worker.shutdown_grace = std::time::Duration::from_secs(3);
		// They take the coordinator's own table (shared in the process), never a second copy.
		worker.tablebase.clone_from(&config.tablebase);
		worker.no_tablebase = config.no_tablebase;
		let mut stop = workers_stopped.clone();
		local.push(tokio::spawn(async move {
			let until = async move {
				let _ = stop.wait_for(|stopped| *stopped).await;
			};
			if let Err(e) = tigers_worker::run(worker, until).await {
				warn!(%e, "local worker stopped");
			}
		}));
	}

	// On shutdown, local workers stop first, flushing their last batches to the still-running
	// server; then the remaining sessions and progress streams are ended, since a graceful stop
	// waits for every open call; then the server stops.
	let incoming = TcpListenerStream::new(listener);
	let closing = shared.clone();
	let stopping = async move {
		shutdown.await;
		info!("stopping");
		let _ = stop_workers.send(true);
		for worker in local {
			let _ = worker.await;
		}
		closing.close_streams();
	};
	let served = builder
		.add_service(service)
		.serve_with_incoming_shutdown(incoming, stopping)
		.await;
	let _ = training_inbox.send(TrainingInput::Stop);
	let _ = tokio::task::spawn_blocking(move || {
		let _ = training_thread.join();
		if let Some(timed) = timed {
			timed.stop();
		}
	})
	.await;
	drop((publisher, progress));
	release(shared).await;
	info!("stopped");
	served.map_err(CoordinatorError::from)
}

/// Waits, briefly, for the tasks that still hold the run (sessions and progress streams ending,
/// the spot checks, aborted publishers) to let go of it, so that the run directory's lock is
/// released when `run` returns and a coordinator started next can open the run.
async fn release(shared: Arc<Shared>) {
	let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
	while Arc::strong_count(&shared) > 1 {
		if std::time::Instant::now() >= deadline {
			warn!("the run is still held by a task; its lock is released when that task ends");
			return;
		}
		tokio::time::sleep(std::time::Duration::from_millis(10)).await;
	}
	// The last holder lets go here: the ledger's writer finishes what is queued (a final
	// checkpoint's pruning among it), off the async threads.
	let _ = tokio::task::spawn_blocking(move || drop(shared)).await;
}
