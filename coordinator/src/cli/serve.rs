//! `coordinator` with no subcommand: serves a training run, with its dashboard on the
//! terminal if it has one. Its flags, by concern: the service's (`service`), self-play's and
//! training's (`training`), gating's and measuring's (`gating`), and the run's own here (the
//! tablebase, the seed, the game archive).

mod gating;
mod service;
mod training;

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

use clap::Args;
use tigers_coordinator::LocalDashboard;
use tigers_coordinator::config::{CoordinatorConfig, TablebaseUse};
use tigers_coordinator::error::CoordinatorError;
use tigers_process::console;
use tigers_process::logging::{init_file_logging, init_logging};
use tigers_process::signal::shutdown_signal;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use self::gating::GatingArgs;
use self::service::ServiceArgs;
use self::training::TrainingArgs;
use crate::cli::common::{Failure, one_of, run_defaults, share};

/// The command's name in its messages.
const NAME: &str = "coordinator";

/// The log's name in the run directory while the dashboard has the terminal.
const LOG_FILE: &str = "coordinator.log";

#[derive(Args)]
pub(crate) struct ServeArgs {
	#[command(flatten)]
	service: ServiceArgs,
	#[command(flatten)]
	training: TrainingArgs,
	#[command(flatten)]
	gating: GatingArgs,
	/// Keep the self-play games of only this many of the newest generations in the run's game
	/// archive (games/ in the run directory), deleting older ones; 0 keeps every game.
	#[arg(long, value_name = "N", default_value_t = run_defaults().keep_game_generations)]
	keep_game_generations: u64,
	/// Seed of a new run's first net.
	#[arg(long, default_value_t = run_defaults().seed)]
	seed: u64,
	/// The tablebase file, solved there at start if missing [default: movement-phase-f1-r1.tb
	/// in the platform's cache directory, e.g. ~/.cache/tigers-and-sheep/tablebase/].
	#[arg(long, value_name = "PATH")]
	tablebase: Option<PathBuf>,
	/// Run without a tablebase: none is loaded, solved or sent to workers.
	#[arg(long, conflicts_with = "tablebase")]
	no_tablebase: bool,
	/// The solved placement layers (`tui tablebase build --placement`), which judge the gates'
	/// and measurements' placement-phase moves; they must be there [default: placement-f1-r1
	/// beside the tablebase file, used if present]. Self-play and training never use them.
	#[arg(long, value_name = "DIR", conflicts_with = "no_tablebase")]
	placement: Option<PathBuf>,
	/// What self-play and training take from the tablebase: none; targets (self-play plays
	/// every game out with the net's own search, movement-phase samples train towards the
	/// table's exact result); rescore (as targets, but self-play searches with the table); or
	/// adjudicate, the default (rescore, and self-play stops at the first movement-phase
	/// position with the exact result).
	#[arg(long, value_name = "USE", default_value = run_defaults().tablebase_use.name(),
		value_parser = one_of::<TablebaseUse>(&TablebaseUse::NAMES))]
	tablebase_use: TablebaseUse,
	/// Under --tablebase-use adjudicate, the share of self-play games (0 to 1) played to their
	/// end by the net's own search without the tablebase, so that the net practises the
	/// movement phase (its samples train towards the table's exact values); the rest stop at
	/// their first movement-phase position. 0 adjudicates every game.
	#[arg(long, value_name = "SHARE", default_value_t = run_defaults().play_out_share,
		value_parser = share::<f32>)]
	play_out_share: f32,
}

impl ServeArgs {
	/// The configuration the command line asks for (clap has checked every range and name).
	fn into_config(self) -> CoordinatorConfig {
		let mut config = self.service.config();
		self.training.apply(&mut config.run);
		self.gating.apply(&mut config);
		config.run.seed = self.seed;
		config.run.keep_game_generations = self.keep_game_generations;
		config.run.tablebase_use = self.tablebase_use;
		config.run.play_out_share = self.play_out_share;
		config.tablebase = self.tablebase;
		config.no_tablebase = self.no_tablebase;
		config.placement = self.placement;
		config
	}
}

/// Serves a run until a stop signal (or, with the dashboard, until it is quit).
pub(crate) async fn run(args: ServeArgs) -> Result<(), Failure> {
	let service = &args.service;
	let dashboard = !service.headless && io::stdin().is_terminal() && io::stdout().is_terminal();
	let run_dir = service.run_dir.clone();
	let is_new_run = !run_dir.exists();
	let log_file = run_dir.join(LOG_FILE);
	if dashboard {
		std::fs::create_dir_all(&run_dir)
			.and_then(|()| init_file_logging(&log_file, service.log_json))
			.map_err(|e| {
				Failure::new(NAME, format!("cannot log to {}: {e}", log_file.display()))
			})?;
	} else {
		init_logging(service.log_json);
	}
	let config = args.into_config();
	config
		.check_exposure()
		.map_err(|e| Failure::usage(NAME, e))?;
	let listener = TcpListener::bind(config.listen)
		.await
		.map_err(|e| Failure::new(NAME, format!("cannot listen on {}: {e}", config.listen)))?;
	if !dashboard {
		return Ok(tigers_coordinator::server::run(config, listener, shutdown_signal()).await?);
	}
	let result = serve_on_the_dashboard(config, listener).await?;
	if result.is_err() && is_new_run && holds_only_the_log(&run_dir) {
		// The directory was made for the log of a run that never opened: it is no run.
		let _ = std::fs::remove_dir_all(&run_dir);
	} else {
		console::err(format_args!(
			"coordinator: stopped; the log is {}",
			log_file.display()
		));
	}
	Ok(result?)
}

/// Serves the run with the dashboard on the terminal; the run's own result once it stops.
async fn serve_on_the_dashboard(
	config: CoordinatorConfig,
	listener: TcpListener,
) -> Result<Result<(), CoordinatorError>, Failure> {
	let address = listener
		.local_addr()
		.map_err(|e| Failure::new(NAME, format!("the listener has no address: {e}")))?;
	let (quit, quitted) = oneshot::channel();
	let screen = LocalDashboard::start(address, &config, quit).map_err(|e| {
		Failure::new(
			NAME,
			format!("cannot start the dashboard ({e}); try --headless"),
		)
	})?;
	// Quitting the dashboard stops the coordinator; a dashboard that failed does not.
	let stop = async move {
		tokio::select! {
			() = shutdown_signal() => {}
			answer = quitted => {
				if answer.is_err() {
					std::future::pending::<()>().await;
				}
			}
		}
	};
	let result = tigers_coordinator::server::run(config, listener, stop).await;
	screen.close().await;
	Ok(result)
}

/// Whether `run_dir` holds the dashboard's log and nothing else.
fn holds_only_the_log(run_dir: &Path) -> bool {
	std::fs::read_dir(run_dir).is_ok_and(|entries| {
		entries
			.map(|entry| entry.map(|e| e.file_name()))
			.all(|name| name.is_ok_and(|name| name == LOG_FILE))
	})
}

#[cfg(test)]
mod tests;
