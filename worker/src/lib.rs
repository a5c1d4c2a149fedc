//! Tigers and Sheep: the self-play worker. It joins a coordinator, plays the assigned net against
//! itself on a pool of threads, and streams the games' samples back in numbered batches that are
//! spooled to disk first, so that nothing is lost and nothing counted twice when the
//! coordinator, the network or the worker itself goes down.
//!
//! ```text
//! rayon pool (selfplay) --games--> batcher thread --fsync--> spool <--read/delete-- session (tokio)
//!        ^                                                                            |
//!        +------------------------ Control (assignment + net) <-----------------------+
//! ```
//!
//! Modules, from the inputs to the network:
//!
//! - [`config`]: the settings, [`WorkerConfig`], and their defaults;
//! - [`error`]: what can stop a worker, [`WorkerError`];
//! - `state`: the state directory: lock, stable worker id and its secret;
//! - [`spool`]: [`Spool`], the on-disk queue of unacknowledged batches;
//! - `selfplay`: the rayon pool and the assignment it plays;
//! - `batcher`: finished games into batches into the spool;
//! - `stats`: games, samples and the sample rate, for heartbeats;
//! - `client`, `fetch`: the gRPC client with its token and TLS; fetching and checking nets;
//! - [`backoff`]: reconnection delays;
//! - `session`: join, stream, reconnect;
//! - [`commands`], the worker's other commands: [`commands::bench`], this machine's self-play
//!   speed; [`commands::loadtest`], many simulated workers against a coordinator, its ingest
//!   rate and acknowledgement times; [`commands::solve`], `worker solve`, slices of the
//!   placement phase computed for `coordinator solve`;
//! - [`metrics`]: the worker's figures for the Prometheus endpoint (`tigers_process::metrics`,
//!   which serves them).
//!
//! The state directory ([`WorkerConfig::state_dir`]) holds `worker_id` (the identity, made once),
//! `worker_secret` (the secret the coordinator bound it to), `lock`, `spool/` with one
//! `<sequence>.batch` file per unacknowledged batch, `next_sequence` and `run` (the run they
//! were played for), and `spool-aside/` with the batches of earlier runs, kept for a week.

pub mod backoff;
mod batcher;
mod client;
pub mod commands;
pub mod config;
pub mod error;
mod fetch;
pub mod metrics;
mod seed;
mod selfplay;
mod session;
pub mod spool;
mod state;
mod stats;
mod tablebase;
#[cfg(test)]
mod testing;

use std::future::Future;
use std::sync::Arc;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use metrics_exporter_prometheus::PrometheusBuilder;
use tigers_core::network::Encoding;
use tigers_proto::v1::JoinRequest;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::Instrument;

/// The exit status of a worker whose version the coordinator refused (`EX_PROTOCOL` in
/// sysexits.h): a restart cannot help, only another build. The systemd unit does not restart on
/// it.
pub const EXIT_VERSION_REFUSED: u8 = 76;

pub use crate::backoff::BackoffSettings;
pub use crate::commands::bench::{BenchReport, BenchSettings, bench, bench_with_progress};
pub use crate::commands::loadtest::{LoadtestReport, LoadtestSettings, loadtest};
pub use crate::config::WorkerConfig;
pub use crate::error::WorkerError;
pub use crate::tablebase::{FetchError, fetch_tablebase, share_tablebase};

use crate::batcher::Batcher;
use crate::client::{Connector, connector};
use crate::config::host_name;
use crate::metrics::figures::Sources;
use crate::selfplay::{Control, SelfPlayPool};
use crate::session::{Shared, run_sessions};
use crate::spool::Spool;
use crate::state::{Secret, StateDir};
use crate::stats::Stats;
use crate::tablebase::TablebaseStore;

/// Runs a worker until `shutdown` completes or the coordinator refuses it for good.
///
/// On shutdown, self-play stops starting games, the finished games not yet in a batch are
/// spooled as a last batch, and the worker goes on sending spooled batches for up to
/// `config.shutdown_grace`; whatever is still unacknowledged stays in the spool for next time.
/// A game in progress at the stop is abandoned: its thread finishes it in the background (a
/// fraction of a second at the usual depths) and exits without sending it.
///
/// Errors: bad settings, an unusable state directory, or the coordinator's refusal
/// ([`WorkerError::Refused`], [`WorkerError::Unauthenticated`]). Everything else is retried.
pub async fn run(
	config: WorkerConfig,
	shutdown: impl Future<Output = ()> + Send,
) -> Result<(), WorkerError> {
	config.validate()?;
	let connector = connector(&config)?;
	// Before the state directory is locked, so a busy address fails without side effects.
	let _endpoint = match config.metrics_listen {
		Some(address) => {
			let serving = tigers_process::metrics::serve(PrometheusBuilder::new(), address)?;
			metrics::describe();
			tracing::info!(%address, "serving metrics");
			Some(AbortOnDrop(tokio::spawn(serving)))
		}
		None => None,
	};
	let (state_path, name, capacity) = (
		config.state_dir.clone(),
		config.name.clone(),
		config.spool_capacity,
	);
	let (state, secret, spool) = tokio::task::spawn_blocking(move || {
		let state = StateDir::open(&state_path, &name)?;
		let secret = state.secret()?;
		let spool = Spool::open(&state.spool_dir(), capacity)?;
		Ok::<_, WorkerError>((state, Arc::new(secret), Arc::new(spool)))
	})
	.await
	.map_err(|e| WorkerError::Internal(e.to_string()))??;
	let span = tracing::info_span!("worker", id = %state.worker_id());
	// The whole path, so that a user can find (or back up, or delete) what the worker keeps.
	let state_dir = std::path::absolute(&config.state_dir).unwrap_or(config.state_dir.clone());
	tracing::info!(
		parent: &span,
		url = %config.url,
		threads = config.threads,
		state_dir = %state_dir.display(),
		unacked_batches = spool.len(),
		next_sequence = spool.next_sequence(),
		"worker starting"
	);
	let join = join_request(&config, state.worker_id());
	let mut worker = Worker::start(&config, connector, (join, secret), spool, &span)?;
	let _publisher = config.metrics_listen.map(|_| {
		let sources = Sources {
			stats: worker.shared.stats.clone(),
			spool: worker.shared.spool.clone(),
			control: worker.shared.control.clone(),
		};
		AbortOnDrop(tokio::spawn(sources.publish_every()))
	});
	let result = worker.run(shutdown, &config).instrument(span.clone()).await;
	stop_self_play(&worker.shared.control, &mut worker.batcher)
		.instrument(span.clone())
		.await;
	tracing::info!(parent: &span, unacked_batches = worker.shared.spool.len(), "worker stopped");
	drop(state);
	result
}

/// Stops a background task when `run` returns, whichever way it returns.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
	fn drop(&mut self) {
		self.0.abort();
	}
}

/// Where this worker keeps the tablebase, as its configuration says; none with
/// `--no-tablebase`, or when the system has no default place and none was given.
fn tablebase_store(config: &WorkerConfig) -> TablebaseStore {
	if config.no_tablebase {
		tracing::info!("playing without a tablebase (--no-tablebase)");
		return TablebaseStore::new(None, false);
	}
	match tigers_process::locations::tablebase_path(config.tablebase.as_deref()) {
		Ok(path) => TablebaseStore::new(Some(path), config.tablebase.is_some()),
		Err(error) => {
			tracing::warn!(%error, "playing without a tablebase");
			TablebaseStore::new(None, false)
		}
	}
}

/// What `Join` says about this worker.
fn join_request(config: &WorkerConfig, worker_id: &str) -> JoinRequest {
	JoinRequest {
		worker_id: worker_id.to_string(),
		name: config.name.clone(),
		host: host_name(),
		threads: u32::try_from(config.threads).unwrap_or(u32::MAX),
		build_version: env!("CARGO_PKG_VERSION").to_string(),
		// The newest encoding this build reads: the coordinator refuses a worker that cannot
		// read its run's nets, and the worker reads whatever encoding a net's file names.
		input_version: Encoding::NEWEST.version(),
		// Filled in by each session from the state directory.
		worker_secret: String::new(),
		loadtest: false,
		protocol_version: config.protocol_version,
		// This process, as opposed to another machine running with a copy of its identity.
		instance: format!("{:016x}", seed::random_u64()),
	}
}

/// A running worker's parts.
struct Worker {
	shared: Shared,
	draining: watch::Sender<bool>,
	batcher: Option<JoinHandle<()>>,
	/// Kept so the threads live as long as the worker.
	_pool: SelfPlayPool,
}

impl Worker {
	/// Starts self-play and the batcher; the sessions start in [`Worker::run`].
	fn start(
		config: &WorkerConfig,
		connector: Connector,
		(join, secret): (JoinRequest, Arc<Secret>),
		spool: Arc<Spool>,
		span: &tracing::Span,
	) -> Result<Worker, WorkerError> {
		let control = Arc::new(Control::default());
		let stats = Arc::new(Stats::new(Instant::now()));
		let spooled = Arc::new(Notify::new());
		// Room for one finished game per thread: when the batcher waits for the spool, the
		// threads stop at the end of their next game.
		let (games_sender, games) = sync_channel(config.threads);
		let pool = SelfPlayPool::start(config.threads, &control, &games_sender)?;
		let batcher = Batcher {
			games,
			spool: spool.clone(),
			control: control.clone(),
			stats: stats.clone(),
			spooled: spooled.clone(),
		};
		let span = span.clone();
		let batcher = tokio::task::spawn_blocking(move || span.in_scope(|| batcher.run()));
		let (draining, draining_receiver) = watch::channel(false);
		let shared = Shared {
			connector,
			join,
			secret,
			spool,
			control,
			stats,
			spooled,
			heartbeat_interval: config.heartbeat_interval,
			draining: draining_receiver,
			tablebases: Arc::new(tablebase_store(config)),
		};
		Ok(Worker {
			shared,
			draining,
			batcher: Some(batcher),
			_pool: pool,
		})
	}

	/// Runs sessions until `shutdown`, then drains for the grace period.
	async fn run(
		&mut self,
		shutdown: impl Future<Output = ()> + Send,
		config: &WorkerConfig,
	) -> Result<(), WorkerError> {
		let sessions = run_sessions(&self.shared, config.backoff);
		tokio::pin!(sessions);
		tokio::select! {
			result = &mut sessions => return result,
			() = shutdown => {}
		}
		tracing::info!(
			grace = ?config.shutdown_grace,
			"stopping: sending what is spooled before exiting"
		);
		// The batcher spools the last games before the sessions are told to finish, so that
		// those are sent too.
		stop_self_play(&self.shared.control, &mut self.batcher).await;
		// With a session open the drain below ends it in good order, even with nothing to send.
		let connected = self.shared.stats.snapshot(Instant::now()).connected;
		if self.shared.spool.is_empty() && !connected {
			return Ok(());
		}
		let _ = self.draining.send(true);
		match tokio::time::timeout(config.shutdown_grace, &mut sessions).await {
			Ok(result) => result,
			Err(_) => {
				tracing::warn!(
					unacked_batches = self.shared.spool.len(),
					"grace period over; the spool keeps the rest for the next start"
				);
				Ok(())
			}
		}
	}
}

impl Drop for Worker {
	/// Stops self-play however `run` ends, so that the batcher (a blocking task, which the
	/// runtime waits for when it shuts down) and the self-play threads never outlive the worker.
	fn drop(&mut self) {
		self.shared.control.stop();
	}
}

/// Stops self-play and waits for the batcher to spool what it holds.
async fn stop_self_play(control: &Control, batcher: &mut Option<JoinHandle<()>>) {
	control.stop();
	if let Some(batcher) = batcher.take()
		&& let Err(error) = batcher.await
	{
		tracing::error!(%error, "the batcher failed");
	}
}
