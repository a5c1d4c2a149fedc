//! Opening a run (new or resumed) and serving it: `run(config, listener, shutdown)` behind the
//! binary's thin `main`, so tests can start a coordinator on `127.0.0.1:0`.

use std::future::Future;
use std::sync::Arc;

use tigers_core::Network;
use tigers_core::network::file::sha256_hex;
use tigers_core::replay::ReplayWindow;
use tigers_core::stats::{GateRecord, PairCounts};
use tigers_core::trainer::Trainer;
use tigers_proto::MAX_MESSAGE_BYTES;
use tigers_proto::v1;
use tigers_proto::v1::coordinator_server::CoordinatorServer;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tracing::{info, warn};

use crate::auth::TokenCheck;
use crate::config::{CoordinatorConfig, TablebaseUse};
use crate::error::CoordinatorError;
use crate::ledger::{GenerationRow, Ledger};
use crate::metrics;
use crate::progress;
use crate::recent::RECENT_SAMPLES;
use crate::research::Research;
use crate::rundir::RunDir;
use crate::service::CoordinatorService;
use crate::state::{Current, Live, Shared, WorkerInfo, unix_now};
use crate::tablebase;
use crate::timed::{TimedMeasurer, timed_summary};
use crate::training::gating::{GatingStart, StopReason, gate_summary};
use crate::training::{self, TrainingInput, TrainingStart};

/// Opens the run directory, creating a new run or resuming the one there.
pub fn open_run(
	config: &CoordinatorConfig,
) -> Result<(Arc<Shared>, TrainingStart), CoordinatorError> {
	let settings = config.run.clone();
	let run_dir = RunDir::open(&config.run_dir)?;
	let mut ledger = Ledger::open(&run_dir.ledger_path())?;
	let generation = match run_dir.latest_generation()? {
		Some(generation) => generation,
		None => {
			let net = Network::new(settings.shape, settings.seed);
			let sha256 = run_dir.save_net(&net)?;
			ledger.record_generation(&GenerationRow {
				generation: 0,
				sha256,
				training_steps: 0,
				promoted_at: unix_now(),
				samples_at_promotion: 0,
			})?;
			info!(run = %run_dir.name(), "new run: generation 0 created");
			0
		}
	};
	let incumbent = run_dir.load_net(generation)?;
	let sha256 = sha256_hex(&incumbent.to_bytes());

	// The training state: the checkpoint, plus every batch stored after it.
	let checkpoint = run_dir.load_checkpoint()?;
	let mut training = settings.training;
	training.targets.rescore = settings.tablebase_use != TablebaseUse::None;
	let (mut trainer, steps, mut last_batch_id) = match checkpoint {
		Some(cp) => {
			let mut window = ReplayWindow::new(training.window, training.max_uses);
			for &(sample, uses) in &cp.window {
				window.push_with_uses(sample, uses);
			}
			let trainer = Trainer::resume(
				cp.net,
				cp.adam,
				window,
				training,
				settings.seed ^ cp.training_steps,
			);
			(trainer, cp.training_steps, cp.last_batch_id)
		}
		None => (
			Trainer::new(incumbent.clone(), training, settings.seed),
			0,
			0,
		),
	};
	let later = if last_batch_id > 0 || trainer.window.total_added() > 0 {
		ledger.batches_after(last_batch_id)?
	} else {
		ledger.recent_samples(training.window)?
	};
	for (id, samples) in later {
		trainer.add_samples(samples);
		last_batch_id = last_batch_id.max(id);
	}
	let samples_in_window = trainer.window.len();

	// The counters and lists, from the ledger.
	let totals = ledger.totals()?;
	let gates = ledger.gates()?;
	let incumbent_row = gates.iter().rev().find(|g| g.promoted);
	let incumbent_measured = incumbent_row.is_some_and(|g| g.stop == StopReason::Measured);
	let incumbent_record = incumbent_row.map(|g| GateRecord {
		pairs: PairCounts { counts: g.pairs },
		stop: g.stop.gate_stop(),
	});
	let generations = ledger.generations()?;
	let mut live = Live {
		generation,
		generation_since: generations
			.iter()
			.find(|g| g.generation == generation)
			.map_or(0.0, |g| g.promoted_at),
		samples_total: totals.samples,
		games_total: totals.games,
		training_steps: steps,
		window_samples: samples_in_window as u64,
		window_capacity: training.window as u64,
		last_game: ledger.last_game()?.unwrap_or_default(),
		// Every start begins at the shallowest depth; the rule raises it again within a few
		// periods if the fleet still outruns the trainer.
		work: v1::SelfPlayWork {
			depth: settings.depth,
			depth_min: settings.depth,
			depth_max: settings.adapt.max_depth.max(settings.depth),
			..v1::SelfPlayWork::default()
		},
		..Live::default()
	};
	for gate in &gates {
		live.gates.push(gate_summary(gate));
	}
	for timed in ledger.timed()? {
		live.timed.insert(timed.generation, timed_summary(&timed));
	}
	for (step, loss) in ledger.losses(0)? {
		live.loss_history.push(v1::LossPoint {
			training_steps: step,
			loss: f64::from(loss),
		});
	}
	// The loss as last recorded stands until training runs again, so that a resumed run shows
	// its loss (and no alarm) rather than none.
	if let Some(last) = live
		.loss_history
		.points()
		.last()
		.filter(|l| l.loss.is_finite())
	{
		live.push_loss(last.loss as f32);
	}
	for row in ledger.throughput()? {
		live.cpu_seconds = row.cpu_seconds;
		live.throughput.push(training::throughput_point(&row));
	}
	let now = std::time::Instant::now();
	live.cpu_counted_to = Some(now);
	let unix = unix_now();
	load_workers(&mut live, &ledger, config.limits.forget_workers_after, unix)?;
	// The share of stale samples covers the last five minutes, across the restart.
	let promotions: Vec<(f64, u64)> = generations
		.iter()
		.map(|g| (g.promoted_at, g.generation))
		.collect();
	let promoted_at = |t: f64| {
		promotions
			.iter()
			.filter(|(at, _)| *at <= t)
			.map(|(_, generation)| *generation)
			.max()
			.unwrap_or(0)
	};
	let recent = ledger.batches_since(unix - RECENT_SAMPLES.as_secs_f64())?;
	live.recent_samples.seed(&recent, promoted_at, unix, now);
	let tablebase = tablebase::open(config)?;
	if let Some(table) = tablebase.table() {
		// Local workers in this process take this one copy instead of reading the file again.
		tigers_worker::share_tablebase(&table);
		trainer.tablebase = Some(table);
	}
	// Every start begins at the shallowest depth (see `work` above).
	let assignment = settings.assignment(generation, sha256, tablebase.identity(), settings.depth);
	info!(
		run = %run_dir.name(),
		generation,
		samples = totals.samples,
		steps,
		window = samples_in_window,
		"run opened"
	);
	let current = Current {
		assignment,
		net: Arc::new(incumbent),
	};
	let shared =
		Shared::new(run_dir, ledger, settings, current, live, tablebase).map_err(|source| {
			CoordinatorError::Io {
				path: "the ledger's writer thread".into(),
				source,
			}
		})?;
	let start = TrainingStart {
		trainer,
		steps,
		last_batch_id,
		gating: GatingStart {
			incumbent: incumbent_record,
			incumbent_measured,
			gates_played: gates.len() as u64,
		},
	};
	Ok((shared, start))
}

/// Lists the workers of the ledger as they were last seen, unconnected: when (by the wall
/// clock, as the ledger keeps it), the generation of their last batch, their samples and flags.
/// Workers not seen within `horizon` of `now` (Unix seconds) stay in the ledger but out of the
/// snapshots; one that joins again is listed again.
fn load_workers(
	live: &mut Live,
	ledger: &Ledger,
	horizon: std::time::Duration,
	now: f64,
) -> Result<(), CoordinatorError> {
	for worker in ledger.workers()? {
		// A last_seen stored as NULL reads as NaN: kept, as if just seen.
		let last_heard = if worker.last_seen.is_finite() {
			worker.last_seen
		} else {
			now
		};
		if now - last_heard > horizon.as_secs_f64() {
			continue;
		}
		let info = WorkerInfo {
			samples: worker.samples,
			flagged: u32::try_from(worker.flagged).unwrap_or(u32::MAX),
			generation: worker.last_generation,
			..WorkerInfo::new(worker.name, worker.host, worker.threads, last_heard)
		};
		live.workers.insert(worker.worker_id, info);
	}
	Ok(())
}

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
