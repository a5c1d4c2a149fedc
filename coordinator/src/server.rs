//! Opening a run (new or resumed) and serving it: `run(config, listener, shutdown)` behind the
//! binary's thin `main`, so tests can start a coordinator on `127.0.0.1:0`.
//!
//! The folder holds the server's plumbing: the gRPC handlers (`service`), bearer tokens
//! (`auth`), worker identities (`identity`), the paths served and the answer to any other
//! (`routes`), the run's opening and the local workers. It may call every other part of the
//! crate but `solve`, which calls into it to check tokens, serve tablebase transfers and answer
//! unserved calls the same way.

pub(crate) mod auth;
pub mod certificates;
pub(crate) mod identity;
mod limits;
mod local_workers;
mod open;
pub(crate) mod routes;
pub(crate) mod service;

use std::future::Future;
use std::sync::Arc;
use std::thread::JoinHandle;

use tigers_proto::MAX_MESSAGE_BYTES;
use tigers_proto::services::Service;
use tigers_proto::v1::coordinator_server::CoordinatorServer;
use tigers_proto::v1::observe_server::ObserveServer;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::Routes;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tracing::{info, warn};

use self::local_workers::LocalWorkers;
pub(crate) use self::open::open_run;
use crate::config::CoordinatorConfig;
use crate::error::CoordinatorError;
use crate::ingest::research::Research;
use crate::live::Shared;
use crate::observe::metrics;
use crate::observe::progress;
use crate::server::auth::TokenCheck;
use crate::server::service::CoordinatorService;
use crate::training::grades::Grader;
use crate::training::inbox::Inbox;
use crate::training::timed::TimedMeasurer;
use crate::training::{self, TrainingStart};

/// Serves the run on `listener` until `shutdown` resolves, with local workers and Prometheus
/// metrics if configured; then stops the workers, checkpoints the training state and returns.
pub async fn run(
	config: CoordinatorConfig,
	listener: TcpListener,
	shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), CoordinatorError> {
	config.check_exposure().map_err(CoordinatorError::Config)?;
	// The metrics and web addresses are bound before the run is opened, so a busy one fails
	// fast.
	let _endpoint = serve_metrics(&config)?;
	let web_listener = match config.http_listen {
		Some(address) => Some((crate::web::bind(address).await?, web_tls(&config)?)),
		None => None,
	};
	let opening = config.clone();
	let (shared, start) = tokio::task::spawn_blocking(move || open_run(&opening))
		.await
		.map_err(|e| CoordinatorError::Config(format!("opening the run failed: {e}")))??;
	let background = Background::start(&config, &shared, start)?;
	let pages = web_listener.map(|(listener, tls)| serve_web(listener, tls, &config, &shared));
	let routes = service_routes(&config, &shared, background.training.clone());
	let transport = transport(&config)?;
	let address = listener
		.local_addr()
		.map_err(|source| CoordinatorError::Io {
			path: "listener".into(),
			source,
		})?;
	info!(%address, tls = config.tls.is_some(), "serving");
	let workers = LocalWorkers::start(&config, address, shared.run_dir.path());
	let stopping = stop_sequence(shutdown, workers, shared.clone());
	let served = serve(transport, routes, listener, stopping).await;
	background.stop().await;
	if let Some(pages) = pages {
		stop_web(pages).await;
	}
	release(shared).await;
	info!("stopped");
	served.map_err(CoordinatorError::from)
}

/// The Prometheus endpoint, if one is configured; it stops when the handle is dropped.
fn serve_metrics(config: &CoordinatorConfig) -> Result<Option<AbortOnDrop>, CoordinatorError> {
	let Some(address) = config.metrics_listen else {
		return Ok(None);
	};
	let serving = metrics::serve(address)?;
	info!(%address, "serving metrics");
	Ok(Some(AbortOnDrop(tokio::spawn(serving))))
}

/// The web pages' TLS settings, from the run's certificate and key, if it has them: read
/// before the run opens, so a bad file fails fast.
fn web_tls(
	config: &CoordinatorConfig,
) -> Result<Option<Arc<tigers_play::listen::ServerConfig>>, CoordinatorError> {
	config
		.tls
		.as_ref()
		.map(|(cert, key)| tigers_play::listen::tls_config(cert, key))
		.transpose()
		.map_err(CoordinatorError::Config)
}

/// The web pages on `listener`, until the run closes its streams (at shutdown).
fn serve_web(
	listener: TcpListener,
	tls: Option<Arc<tigers_play::listen::ServerConfig>>,
	config: &CoordinatorConfig,
	shared: &Arc<Shared>,
) -> tokio::task::JoinHandle<()> {
	if let Ok(address) = listener.local_addr() {
		info!(%address, tls = tls.is_some(), "serving web pages");
	}
	let settings = crate::web::WebSettings {
		token: config.token.clone(),
		session: config.web_session,
		tls,
		play: config.play,
	};
	let serving = crate::web::serve(listener, shared.clone(), settings);
	tokio::spawn(async move {
		if let Err(e) = serving.await {
			warn!(%e, "the web pages stopped");
		}
	})
}

/// Waits a few seconds for the web pages' connections to finish, then ends them.
async fn stop_web(pages: tokio::task::JoinHandle<()>) {
	let abort = pages.abort_handle();
	if tokio::time::timeout(std::time::Duration::from_secs(5), pages)
		.await
		.is_err()
	{
		abort.abort();
	}
}

/// What runs beside the server: the training thread (with gating on its pool), the
/// measurement at equal time, a tablebase solve, and the publishers of progress and metrics.
struct Background {
	training: Arc<Inbox>,
	training_thread: JoinHandle<()>,
	timed: Option<TimedMeasurer>,
	grader: Option<Grader>,
	/// The metrics publisher (if metrics are served) and the progress publisher.
	publishers: (Option<AbortOnDrop>, AbortOnDrop),
}

impl Background {
	/// Starts it all for the run opened as `shared`, training from `start`.
	fn start(
		config: &CoordinatorConfig,
		shared: &Arc<Shared>,
		start: TrainingStart,
	) -> Result<Background, CoordinatorError> {
		let pool = gating_pool(config.gate_threads())?;
		let metrics = config
			.metrics_listen
			.is_some()
			.then(|| AbortOnDrop(tokio::spawn(metrics::publish_every(shared.clone()))));
		let (training, training_thread) = training::start(shared.clone(), start, pool);
		if shared.tablebase.table().is_none() && shared.tablebase.path().is_some() {
			let cores = std::thread::available_parallelism().map_or(2, usize::from);
			start_tablebase_solve(shared.clone(), cores);
		}
		let timed = TimedMeasurer::start(shared.clone());
		let grader = Grader::start(shared.clone());
		let progress = AbortOnDrop(tokio::spawn(progress::publish_every(
			shared.clone(),
			config.limits.forget_workers_after,
		)));
		Ok(Background {
			training,
			training_thread,
			timed,
			grader,
			publishers: (metrics, progress),
		})
	}

	/// Stops training (which checkpoints), the measurement at equal time and the grading,
	/// waiting for them
	/// off the async threads; then the publishers.
	async fn stop(self) {
		self.training.stop();
		let (training, timed, grader) = (self.training_thread, self.timed, self.grader);
		let _ = tokio::task::spawn_blocking(move || {
			let _ = training.join();
			if let Some(timed) = timed {
				timed.stop();
			}
			if let Some(grader) = grader {
				grader.stop();
			}
		})
		.await;
		drop(self.publishers);
	}
}

/// The rayon pool gate matches play on, `threads` wide, at the lower priority.
fn gating_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, CoordinatorError> {
	let pool = rayon::ThreadPoolBuilder::new()
		.num_threads(threads)
		.thread_name(|i| format!("gate-{i}"))
		.start_handler(|_| crate::priority::lower_this_thread())
		.build()
		.map_err(|e| CoordinatorError::Config(format!("cannot start the gating pool: {e}")))?;
	Ok(Arc::new(pool))
}

/// Solves the tablebase on a thread of its own while the run goes on; once it is ready, local
/// workers share it and every session is told the assignment that names it. (The training
/// thread and the gate pick it up from `Shared` themselves.)
fn start_tablebase_solve(shared: Arc<Shared>, threads: usize) {
	let spawned = std::thread::Builder::new()
		.name("tablebase".into())
		.spawn(move || {
			shared.tablebase.build(threads, |table| {
				local_workers::share_tablebase(&table);
				shared.reassign_with_tablebase();
			});
		});
	if let Err(e) = spawned {
		warn!(%e, "cannot start the tablebase solve; training goes on without it");
	}
}

/// The handlers over `shared`, with the spot checks, sending batches to `training`: the
/// training service and the progress, each behind the bearer-token check, and the solve's
/// calls (or any other path) answered as unserved.
fn service_routes(
	config: &CoordinatorConfig,
	shared: &Arc<Shared>,
	training: Arc<Inbox>,
) -> Routes {
	let research = Research::start(shared.clone());
	let handlers = Arc::new(CoordinatorService::new(
		shared.clone(),
		training,
		research,
		config.limits,
	));
	let check = TokenCheck::new(config.token.clone());
	let training = CoordinatorServer::from_arc(handlers.clone())
		.max_decoding_message_size(MAX_MESSAGE_BYTES)
		.max_encoding_message_size(MAX_MESSAGE_BYTES);
	let observe = ObserveServer::from_arc(handlers)
		.max_decoding_message_size(MAX_MESSAGE_BYTES)
		.max_encoding_message_size(MAX_MESSAGE_BYTES);
	let served = Routes::new(InterceptedService::new(training, check.clone()))
		.add_service(InterceptedService::new(observe, check));
	routes::answering_unserved(served, Service::Training)
}

/// The server's transport: keep-alive pings, and TLS with the configured certificate.
fn transport(config: &CoordinatorConfig) -> Result<Server, CoordinatorError> {
	// Pings find a worker whose host vanished without closing its connections; the session's
	// idle timeout finds one that is connected but silent.
	let limits = config.limits;
	let builder = Server::builder()
		.http2_keepalive_interval(Some(limits.keepalive_interval))
		.http2_keepalive_timeout(Some(limits.keepalive_timeout))
		.tcp_keepalive(Some(limits.keepalive_interval));
	let Some((cert, key)) = &config.tls else {
		return Ok(builder);
	};
	let read = |path: &std::path::PathBuf| {
		std::fs::read(path).map_err(|source| CoordinatorError::Io {
			path: path.display().to_string(),
			source,
		})
	};
	let pem = read(cert)?;
	certificates::check_served_certificate(cert, &pem).map_err(CoordinatorError::Config)?;
	let identity = Identity::from_pem(pem, read(key)?);
	Ok(builder.tls_config(ServerTlsConfig::new().identity(identity))?)
}

/// What happens once `shutdown` resolves, before the server stops: local workers stop first,
/// flushing their last batches to the still-running server; then the remaining sessions and
/// progress streams are ended, since a graceful stop waits for every open call.
async fn stop_sequence(
	shutdown: impl Future<Output = ()>,
	workers: LocalWorkers,
	shared: Arc<Shared>,
) {
	shutdown.await;
	info!("stopping");
	workers.stop().await;
	shared.close_streams();
}

/// Serves `routes` on `listener` until `stopping` has run.
async fn serve(
	mut transport: Server,
	routes: Routes,
	listener: TcpListener,
	stopping: impl Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
	transport
		.add_routes(routes)
		.serve_with_incoming_shutdown(TcpListenerStream::new(listener), stopping)
		.await
}

/// Stops a background task when `run` returns, whichever way it returns.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
	fn drop(&mut self) {
		self.0.abort();
	}
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
