//! The `worker` binary: parses the command line, sets up logging, and runs a worker (or the
//! bench) from the library.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use tigers_core::network::{Encoding, Shape};
use tigers_process::console;
use tigers_process::logging::init_logging;
use tigers_process::signal::shutdown_signal;
use tigers_process::token::TOKEN_ENV;
use tigers_proto::client::error_chain;
use tigers_worker::commands::bench::{DEFAULT_ENCODING, DEFAULT_GAMES_PER_THREAD};
use tigers_worker::config::{DEFAULT_SPOOL_CAPACITY, default_threads};
use tigers_worker::{
	BenchSettings, EXIT_VERSION_REFUSED, LoadtestSettings, WorkerConfig, WorkerError,
};

/// Plays self-play games for a Tigers and Sheep coordinator and streams the samples to it.
#[derive(Debug, Parser)]
#[command(
	name = "worker",
	version,
	args_conflicts_with_subcommands = true,
	subcommand_negates_reqs = true
)]
struct Cli {
	/// The coordinator: http://host:port or https://host:port.
	#[arg(long, value_name = "URL", required = true)]
	connect: Option<String>,
	/// Self-play threads, 1 to 4096 [default: the machine's cores].
	#[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
	threads: Option<u32>,
	/// The name shown on the dashboard [default: the host name].
	#[arg(long, value_name = "NAME")]
	name: Option<String>,
	/// The run's token.
	#[arg(long, value_name = "T", env = TOKEN_ENV, hide_env_values = true)]
	token: Option<String>,
	/// Where the worker's identity and spool live [default: worker/<name> in the platform's
	/// state directory, e.g. ~/.local/state/tigers-and-sheep/worker/<name>].
	#[arg(long, value_name = "DIR")]
	state_dir: Option<PathBuf>,
	/// PEM certificate to trust for an https coordinator (its self-signed one, or its CA).
	#[arg(long, value_name = "FILE")]
	tls_ca: Option<PathBuf>,
	/// Seconds a stopping worker (SIGTERM, Ctrl-C) goes on sending its spooled batches and
	/// waiting for their acknowledgements before it exits; what is left stays in the spool for
	/// the next start. 0 to 3600.
	#[arg(long, value_name = "SECONDS", default_value_t = tigers_worker::config::DEFAULT_STOP_GRACE.as_secs(),
		value_parser = clap::value_parser!(u64).range(0..=3600))]
	stop_grace: u64,
	/// Unacknowledged batches kept on disk at most; self-play pauses when the spool is full.
	#[arg(long, value_name = "BATCHES", default_value_t = DEFAULT_SPOOL_CAPACITY)]
	spool_capacity: usize,
	/// Serve Prometheus metrics over plain HTTP at this address (path /metrics); no token.
	#[arg(long, value_name = "ADDR")]
	metrics_listen: Option<SocketAddr>,
	/// Where to keep the tablebase the coordinator names, fetched from it if missing
	/// [default: movement-phase-f1-r1.tb in the platform's cache directory, e.g.
	/// ~/.cache/tigers-and-sheep/tablebase/].
	#[arg(long, value_name = "PATH")]
	tablebase: Option<PathBuf>,
	/// Play without the tablebase even if the coordinator names one.
	#[arg(long, conflicts_with = "tablebase")]
	no_tablebase: bool,
	/// When the coordinator refuses this worker's version: exit with status 76, or wait for a
	/// stop signal first (for a supervisor that restarts whatever exits, such as Kubernetes).
	#[arg(long, value_enum, value_name = "WHAT", default_value_t = OnVersionRefused::Exit)]
	on_version_refused: OnVersionRefused,
	/// The protocol version to claim at Join, for tests of a worker older or newer than its
	/// coordinator.
	#[arg(long, value_name = "N", hide = true, default_value_t = tigers_proto::PROTOCOL_VERSION)]
	protocol_version: u32,
	/// Log as JSON lines (the default when stderr is not a terminal). Levels from RUST_LOG.
	#[arg(long, global = true)]
	log_json: bool,
	#[command(subcommand)]
	command: Option<Command>,
}

/// What the worker does once the coordinator has refused its version (a retry cannot help).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OnVersionRefused {
	/// Exit with status 76, which the systemd unit does not restart.
	Exit,
	/// Log the refusal, then wait for a stop signal and exit with status 76: for a supervisor
	/// that restarts whatever exits, such as a Kubernetes Deployment.
	Wait,
}

#[derive(Debug, Subcommand)]
enum Command {
	/// Measure this machine's self-play speed with the default settings, to size a fleet.
	Bench(BenchArgs),
	/// Compute slices of the placement phase for a coordinator that solves it
	/// (`coordinator solve`), until it says the solve is over.
	Solve(SolveArgs),
	/// Measure how fast a coordinator takes batches in: many simulated workers, each with its
	/// own identity and connection, send copies of one batch of real games.
	Loadtest(LoadtestArgs),
}

#[derive(Debug, Args)]
struct LoadtestArgs {
	/// The coordinator: http://host:port or https://host:port.
	#[arg(long, value_name = "URL")]
	connect: String,
	/// The run's token.
	#[arg(long, value_name = "T", env = TOKEN_ENV, hide_env_values = true)]
	token: Option<String>,
	/// PEM certificate to trust for an https coordinator (its self-signed one, or its CA).
	#[arg(long, value_name = "FILE")]
	tls_ca: Option<PathBuf>,
	/// Simulated workers.
	#[arg(long, value_name = "N")]
	sessions: usize,
	/// How long to send, in seconds (after every session is open).
	#[arg(long, value_name = "S")]
	seconds: u64,
	/// Batches each simulated worker may have unacknowledged at a time.
	#[arg(long, value_name = "K", default_value_t = 4)]
	in_flight: usize,
	/// Offer B batches a second in all, spread evenly over the sessions and their schedules,
	/// as a fleet of real workers does; without it every session sends as fast as its
	/// acknowledgements come (saturating). At a rate, an acknowledgement is timed from when
	/// its batch was due.
	#[arg(long, value_name = "B")]
	rate: Option<u32>,
	/// Print a table of the figures of each second after the summary line.
	#[arg(long)]
	per_second: bool,
}

#[derive(Debug, Args)]
struct SolveArgs {
	/// The coordinator: http://host:port or https://host:port.
	#[arg(long, value_name = "URL")]
	connect: String,
	/// Slices computed at once, 1 to 4096 [default: the machine's cores].
	#[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
	threads: Option<u32>,
	/// The name the coordinator counts this worker's work under [default: the host name and
	/// the process id].
	#[arg(long, value_name = "NAME")]
	name: Option<String>,
	/// The solve's token.
	#[arg(long, value_name = "T", env = TOKEN_ENV, hide_env_values = true)]
	token: Option<String>,
	/// PEM certificate to trust for an https coordinator.
	#[arg(long, value_name = "FILE")]
	tls_ca: Option<PathBuf>,
	/// Where the movement table is kept, fetched from the coordinator if missing [default:
	/// the platform's cache directory, as for the worker itself].
	#[arg(long, value_name = "PATH")]
	tablebase: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct BenchArgs {
	/// Games to play [default: 500 per thread].
	#[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
	games: Option<u64>,
	/// Threads, 1 to 4096 [default: the machine's cores].
	#[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
	threads: Option<u32>,
	/// Search depth in plies (1 to 64).
	#[arg(long, value_name = "D", default_value_t = 3,
		value_parser = clap::value_parser!(u32).range(1..=64))]
	depth: u32,
	/// Hidden widths of the net that plays, as H1xH2 (each 1 to 256), to compare the speed of
	/// net shapes.
	#[arg(long, value_name = "H1xH2", default_value_t = Shape::default())]
	net_shape: Shape,
	/// Input encoding of the net that plays: 2, a new run's, with the plane of sheep a tiger
	/// could capture, or 1 without it, to compare their cost per position.
	#[arg(long, value_name = "VERSION", default_value_t = DEFAULT_ENCODING)]
	input_version: Encoding,
}

fn main() -> ExitCode {
	let cli = Cli::parse();
	init_logging(cli.log_json);
	let result = match &cli.command {
		Some(Command::Bench(args)) => run_bench(args),
		Some(Command::Loadtest(args)) => run_loadtest(args),
		Some(Command::Solve(args)) => run_solve(args),
		None => run_worker(cli),
	};
	match result {
		Ok(()) => ExitCode::SUCCESS,
		Err(error) => {
			// One line, each cause once, and no backtrace even with RUST_BACKTRACE set: these
			// are a user's errors, not the program's.
			console::err(format_args!("worker: {}", error_chain(&*error)));
			match error.downcast_ref::<WorkerError>() {
				Some(WorkerError::Version(_)) => ExitCode::from(EXIT_VERSION_REFUSED),
				_ => ExitCode::FAILURE,
			}
		}
	}
}

/// How long the runtime may take to stop its tasks once the worker has stopped: time for the
/// last log lines, not for work.
const RUNTIME_STOP: Duration = Duration::from_secs(2);

fn run_worker(cli: Cli) -> anyhow::Result<()> {
	let wait_if_refused = cli.on_version_refused == OnVersionRefused::Wait;
	let config = worker_config(cli)?;
	let runtime = tokio::runtime::Builder::new_multi_thread()
		// The async side only moves bytes; the cores belong to self-play.
		.worker_threads(2)
		.enable_all()
		.build()
		.context("cannot start the async runtime")?;
	let result = runtime.block_on(tigers_worker::run(config, shutdown_signal()));
	if let Err(WorkerError::Version(reason)) = &result
		&& wait_if_refused
	{
		tracing::error!(
			%reason,
			"the coordinator refused this worker's version; waiting for a stop signal \
			 (--on-version-refused wait), then exiting with status {EXIT_VERSION_REFUSED}"
		);
		runtime.block_on(shutdown_signal());
	}
	// Not a plain drop, which waits for every blocking task however long it takes: the worker
	// has stopped, and nothing left may keep the process from ending.
	runtime.shutdown_timeout(RUNTIME_STOP);
	Ok(result?)
}

fn worker_config(cli: Cli) -> anyhow::Result<WorkerConfig> {
	let url = cli.connect.context("--connect URL is required")?;
	let mut config = WorkerConfig::new(url);
	if let Some(threads) = cli.threads {
		config.threads = threads as usize;
	}
	if let Some(name) = cli.name {
		config.name = name;
	}
	config.token = cli.token.filter(|token| !token.is_empty());
	config.state_dir = cli
		.state_dir
		.unwrap_or_else(|| WorkerConfig::default_state_dir(&config.name));
	config.tls_ca = cli.tls_ca;
	config.spool_capacity = cli.spool_capacity;
	config.metrics_listen = cli.metrics_listen;
	config.tablebase = cli.tablebase;
	config.no_tablebase = cli.no_tablebase;
	config.protocol_version = cli.protocol_version;
	config.shutdown_grace = Duration::from_secs(cli.stop_grace);
	Ok(config)
}

fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
	let threads = args.threads.map_or_else(default_threads, |n| n as usize);
	let settings = BenchSettings {
		games: args
			.games
			.unwrap_or(DEFAULT_GAMES_PER_THREAD * threads as u64),
		threads,
		depth: args.depth,
		shape: args.net_shape,
		encoding: args.input_version,
	};
	// Some 500 games a thread take seconds to minutes: show how far along it is, on stderr and
	// only on a terminal, so that the report on stdout stays clean for scripts.
	let bar = ProgressBar::new(settings.games);
	bar.set_style(
		ProgressStyle::with_template(
			"{msg} [{bar:30}] {pos}/{len} games, {elapsed} elapsed, ETA {eta}",
		)
		.context("the progress bar's template is wrong")?
		.progress_chars("=> "),
	);
	bar.set_message("playing");
	let report = tigers_worker::bench_with_progress(&settings, |done| bar.set_position(done));
	bar.finish_and_clear();
	console::out(format_args!("{}\n", report?))?;
	Ok(())
}

fn run_solve(args: &SolveArgs) -> anyhow::Result<()> {
	let mut config = WorkerConfig::new(args.connect.clone());
	config.token = args.token.clone().filter(|token| !token.is_empty());
	config.tls_ca = args.tls_ca.clone();
	config.threads = args.threads.map_or_else(default_threads, |n| n as usize);
	config.name = args.name.clone().unwrap_or_else(|| {
		format!(
			"{}-{}",
			tigers_worker::config::host_name(),
			std::process::id()
		)
	});
	let tablebase = tigers_process::locations::tablebase_path(args.tablebase.as_deref())?;
	// Hidden switches for the tests of the coordinator's checks (docs/tablebase.md): a worker
	// that returns wrong values, and one that takes a slice and never returns it.
	let test_switch = |name: &str| std::env::var_os(name).is_some_and(|v| v == "1");
	let settings = tigers_worker::commands::solve::SolveSettings {
		config,
		tablebase,
		lie: test_switch("TIGERS_TEST_SOLVE_LIE"),
		hold: test_switch("TIGERS_TEST_SOLVE_HOLD"),
	};
	let runtime = tokio::runtime::Builder::new_multi_thread()
		.worker_threads(2)
		.enable_all()
		.build()
		.context("cannot start the async runtime")?;
	let result = runtime.block_on(tigers_worker::commands::solve::solve(
		settings,
		shutdown_signal(),
	));
	runtime.shutdown_timeout(RUNTIME_STOP);
	let report = result?;
	let fetched: Vec<String> = report
		.fetched
		.iter()
		.map(|(file, bytes)| format!("{file} {bytes}"))
		.collect();
	console::out(format_args!(
		"slices {} positions {} fetched [{}]\n",
		report.slices,
		report.positions,
		fetched.join(", ")
	))?;
	Ok(())
}

fn run_loadtest(args: &LoadtestArgs) -> anyhow::Result<()> {
	let mut config = WorkerConfig::new(args.connect.clone());
	config.token = args.token.clone().filter(|token| !token.is_empty());
	config.tls_ca = args.tls_ca.clone();
	let settings = LoadtestSettings {
		in_flight: args.in_flight,
		rate: args.rate,
		..LoadtestSettings::new(args.sessions, Duration::from_secs(args.seconds))
	};
	let runtime = tokio::runtime::Builder::new_multi_thread()
		.enable_all()
		.build()
		.context("cannot start the async runtime")?;
	let report = runtime.block_on(tigers_worker::loadtest(&config, &settings))?;
	console::out(format_args!("{report}\n"))?;
	if args.per_second {
		console::out(report.table())?;
	}
	if let Some(error) = &report.first_error {
		anyhow::bail!("{} errors; the first: {error}", report.errors);
	}
	Ok(())
}

#[cfg(test)]
mod tests {
	use std::path::Path;

	use tigers_process::doc_commands;

	use super::*;

	/// Every command line of the README and docs/*.md that runs `worker` parses
	/// (which lines are command lines is `tigers_process::doc_commands`'s rule), and a misspelt
	/// flag would not.
	#[test]
	fn the_documented_command_lines_parse() {
		doc_commands::assert_documented_commands_parse(
			"worker",
			include_str!("../../README.md"),
			Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs")),
			2,
			"cargo run --release --bin worker -- --conect http://127.0.0.1:50051",
			|words| Cli::try_parse_from(words).map(drop),
		);
	}
}
