//! The `coordinator` binary: parses the command line and calls the library.

use std::io::{self, IsTerminal};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::builder::{PossibleValuesParser, RangedU64ValueParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use tigers_coordinator::LocalDashboard;
use tigers_coordinator::config::{
	CoordinatorConfig, GateMode, RunSettings, ServiceLimits, TablebaseUse, TimedSettings,
};
use tigers_coordinator::error::CoordinatorError;
use tigers_coordinator::server::certificates::make_certificates;
use tigers_coordinator::{
	GradeError, GradeSettings, MeasureSettings, Measured, Opponent, grade_net, load_suite, measure,
};
use tigers_coordinator::{TableError, TableSource, fetch_status, progress_json};
use tigers_core::gate::{GateSettings, TableRole, Tables};
use tigers_core::network::{Encoding, Shape};
use tigers_core::tablebase::Tablebase;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::trainer::schedule::{LearningRateSchedule, ScheduleShape, WindowGrowth};
use tigers_process::logging::{init_file_logging, init_logging};
use tigers_process::signal::shutdown_signal;
use tigers_proto::client::ClientSettings;
use tigers_proto::client::error_chain;
use tigers_proto::console;
use tigers_proto::locations;
use tigers_widgets::progress_bar;
use tokio::sync::oneshot;

/// A line for the user on stderr, like `eprintln!` but without its panic when stderr is closed
/// (`coordinator ... 2>&1 | head`): a message nobody can read is no reason to stop.
macro_rules! say {
	($($arg:tt)*) => {
		console::err(format_args!($($arg)*))
	};
}

/// Trains a Tigers and Sheep network with self-play workers.
#[derive(Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
	#[command(subcommand)]
	command: Option<Command>,
	#[command(flatten)]
	serve: ServeArgs,
}

#[derive(Subcommand)]
enum Command {
	/// Prints a running coordinator's state as one JSON object.
	Status {
		/// The coordinator's URL.
		#[arg(long, default_value = "http://127.0.0.1:50051")]
		connect: String,
		/// The run's token.
		#[arg(long, env = "TIGERS_TOKEN", hide_env_values = true)]
		token: Option<String>,
		/// PEM certificate to trust for an https coordinator (its self-signed one, or its CA).
		#[arg(long, value_name = "FILE")]
		tls_ca: Option<PathBuf>,
	},
	/// Solves the placement phase's layers over the workers that connect (`worker solve`), into
	/// the same files as `tui tablebase build --placement`; stops once they are written.
	Solve(SolveArgs),
	/// Measures a net file (or the perfect player) at equal time per move against ClaudePlayer
	/// (or the perfect player), as a run measures its promoted nets, and prints the result.
	Measure(MeasureArgs),
	/// Grades nets by the exact values on the grading suite: how often a net's own evaluation
	/// puts a position in the right class (won, drawn, lost), and how often its search's move
	/// keeps the exact value, at a fixed depth and on the clock, by phase (no table needed).
	Grade(GradeArgs),
	/// Makes the files to serve TLS: a CA (ca.pem, which workers trust with --tls-ca, and
	/// ca.key) and a coordinator certificate signed by it (coordinator.pem and coordinator.key,
	/// for --tls-cert and --tls-key).
	Tls(TlsArgs),
}

#[derive(Args)]
struct TlsArgs {
	/// The directory to write the four files to (created if needed).
	#[arg(long, value_name = "DIR")]
	out: PathBuf,
	/// A host name or IP address workers will connect to, as in their --connect URL; as often
	/// as needed.
	#[arg(long = "host", value_name = "NAME", required = true)]
	hosts: Vec<String>,
	/// Replace files already in DIR (a CA the workers trust would no longer be the one in use).
	#[arg(long)]
	force: bool,
}

#[derive(Args)]
struct GradeArgs {
	/// The nets (safetensors files, such as a run's nets/gen-000024.safetensors).
	#[arg(required = true)]
	nets: Vec<PathBuf>,
	/// The suite's file (`tui tablebase suite` draws one) [default: the repository's,
	/// core/data/grade-suite.txt, built in].
	#[arg(long, value_name = "FILE")]
	suite: Option<PathBuf>,
	/// The search's depth for the fixed-depth move grade, 1 to 12 [default: the gate's].
	#[arg(long, default_value_t = run_defaults().gate.search.max_depth,
		value_parser = clap::value_parser!(u32).range(1..=12))]
	depth: u32,
	/// The search's time a move for the move grade on the clock, 0 to 60000 (0 leaves it out).
	#[arg(long, value_name = "MS", default_value_t = 100,
		value_parser = clap::value_parser!(u64).range(0..=60_000))]
	move_ms: u64,
	/// Positions searched at once, each on a thread of its own, 1 to 64 [default: every core].
	#[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
	threads: Option<u32>,
}

#[derive(Args)]
struct MeasureArgs {
	/// The net (a safetensors file, such as a run's nets/gen-000024.safetensors).
	#[arg(required_unless_present = "perfect", conflicts_with = "perfect")]
	net: Option<PathBuf>,
	/// Measure the perfect player instead of a net: ClaudePlayer's search choosing only among
	/// the moves that keep the exact value (needs the placement phase solved).
	#[arg(long)]
	perfect: bool,
	/// The opponent: claude, or perfect (which gives no value away, so every value the net
	/// gives away can cost it the game).
	#[arg(long, value_name = "PLAYER", default_value = "claude",
		value_parser = one_of::<Opponent>(&Opponent::NAMES))]
	against: Opponent,
	/// The opponent: another net file instead, searching on the same time with its own
	/// evaluation (two nets of a run head to head).
	#[arg(long, value_name = "FILE", conflicts_with = "perfect")]
	against_net: Option<PathBuf>,
	/// Random plies opening each pair (0 to 30): more give unbalanced positions, where keeping a
	/// won value is harder than holding a draw.
	#[arg(long, value_name = "PLIES", default_value_t = run_defaults().gate.opening_plies,
		value_parser = RangedU64ValueParser::<usize>::new().range(0..=30))]
	opening_plies: usize,
	/// The placement layers, which judge the placement-phase moves and play for the perfect
	/// player [default: placement-f1-r1 beside the tablebase in the platform's cache].
	#[arg(long, value_name = "DIR")]
	placement: Option<PathBuf>,
	/// Each player's time a move (1 to 60000).
	#[arg(long, value_name = "MS",
		default_value_t = run_defaults().timed.move_time.as_millis() as u64,
		value_parser = clap::value_parser!(u64).range(1..=60_000))]
	move_ms: u64,
	/// Pairs of games, all played (1 to 10000).
	#[arg(long, default_value_t = run_defaults().timed.pairs,
		value_parser = clap::value_parser!(u32).range(1..=10_000))]
	pairs: u32,
	/// Games played at once, each on a core of its own (1 to 64).
	#[arg(long, default_value_t = 1,
		value_parser = RangedU64ValueParser::<usize>::new().range(1..=64))]
	threads: usize,
	/// Play the openings a run draws to measure this generation [default: the one the file's
	/// name gives, else 0].
	#[arg(long)]
	generation: Option<u64>,
	/// The tablebase that judges the moves [default: the platform's cache, as for a run].
	#[arg(long, value_name = "PATH")]
	tablebase: Option<PathBuf>,
	/// Do not judge the moves with a tablebase.
	#[arg(long, conflicts_with = "tablebase")]
	no_tablebase: bool,
	/// What the tablebase does in the games: play (both players search with it, as in tui, and
	/// it judges their moves) or judge (it judges the moves only, so the net plays the movement
	/// phase by itself).
	#[arg(long, value_name = "ROLE", default_value = run_defaults().timed.tablebase.name(),
		value_parser = one_of::<TableRole>(&TableRole::NAMES))]
	measure_tablebase: TableRole,
}

impl MeasureArgs {
	fn settings(&self) -> Result<MeasureSettings, String> {
		let measured = match &self.net {
			Some(path) => Measured::Net(path.clone()),
			None => Measured::Perfect,
		};
		Ok(MeasureSettings {
			measured,
			against: match &self.against_net {
				Some(path) => {
					if self.against != Opponent::Claude {
						return Err(
							"--against and --against-net name two opponents: give one".to_string()
						);
					}
					Opponent::Net(path.clone())
				}
				None => self.against.clone(),
			},
			timed: TimedSettings {
				move_time: Duration::from_millis(self.move_ms),
				pairs: self.pairs,
				tablebase: self.measure_tablebase,
			},
			threads: self.threads,
			generation: self.generation,
			gate: GateSettings {
				opening_plies: self.opening_plies,
				..run_defaults().gate
			},
		})
	}

	/// The table to judge with: none if told so; the one at the default path if it is there
	/// (said on stderr if not); the one named, which must be there.
	fn tablebase(&self) -> Result<Option<Arc<Tablebase>>, TableError> {
		let source = TableSource::movement(self.tablebase.as_deref(), self.no_tablebase)?;
		let table = source.read_movement()?;
		if let (None, TableSource::Default(path)) = (&table, &source) {
			say!(
				"coordinator measure: no tablebase at {} (solve it with `tui tablebase build`); \
				 the moves are not judged",
				path.display()
			);
		}
		Ok(table.map(Arc::new))
	}

	/// The placement layers: those in the directory named, which must open; those in the
	/// default directory if it is there; none otherwise.
	fn placement(&self) -> Result<Option<Arc<PlacementTable>>, TableError> {
		let source = TableSource::placement(self.placement.as_deref())?;
		Ok(source.open_placement()?.map(Arc::new))
	}
}

/// `coordinator grade`: grades each net on the suite and prints its grades.
async fn grade_command(args: GradeArgs) -> Result<(), Failure> {
	const NAME: &str = "coordinator grade";
	let threads = args.threads.map_or_else(
		|| std::thread::available_parallelism().map_or(1, |n| n.get()),
		|n| n as usize,
	);
	let settings = GradeSettings {
		suite: args.suite,
		depth: args.depth,
		move_ms: args.move_ms,
		threads,
	};
	let graded = tokio::task::spawn_blocking(move || {
		let (name, suite) = load_suite(&settings)?;
		let mut out = format!("suite: {name}\n");
		for net in &args.nets {
			out.push_str(&grade_net(net, &suite, &settings)?);
		}
		Ok::<String, GradeError>(out)
	})
	.await;
	match graded {
		Ok(Ok(out)) => console::out(out).map_err(|e| Failure::new(NAME, e)),
		Ok(Err(error)) => Err(Failure::new(NAME, error)),
		Err(error) => Err(Failure::new(NAME, format!("the grading failed: {error}"))),
	}
}

/// `coordinator measure`: measures a net file and prints the result.
async fn measure_command(args: MeasureArgs) -> Result<(), Failure> {
	const NAME: &str = "coordinator measure";
	let settings = args.settings().map_err(|e| Failure::usage(NAME, e))?;
	// A table that is not there or not good is a failure, not a usage error: status 1.
	let table = args.tablebase().map_err(|e| Failure::new(NAME, e))?;
	let placement = args.placement().map_err(|e| Failure::new(NAME, e))?;
	let stop = Arc::new(AtomicBool::new(false));
	let stopping = stop.clone();
	tokio::spawn(async move {
		shutdown_signal().await;
		stopping.store(true, Ordering::Relaxed);
	});
	let played = tokio::task::spawn_blocking(move || {
		let bar = progress_bar(u64::from(settings.timed.pairs), "measuring");
		let go_on = || !stop.load(Ordering::Relaxed);
		let on_pair = |done: u32| bar.set_position(u64::from(done));
		let tables = Tables {
			movement: table.as_ref(),
			placement: placement.as_ref(),
		};
		let measured = measure(&settings, tables, &go_on, &on_pair);
		bar.finish_and_clear();
		measured
	})
	.await;
	match played {
		Ok(Ok(measurement)) => print_out(measurement),
		Ok(Err(error)) => Err(Failure::new(NAME, error)),
		Err(error) => Err(Failure::new(
			NAME,
			format!("the measurement failed: {error}"),
		)),
	}
}

/// The library's defaults, which the command line's are taken from: one source for both.
fn run_defaults() -> &'static RunSettings {
	static DEFAULTS: std::sync::LazyLock<RunSettings> =
		std::sync::LazyLock::new(RunSettings::default);
	&DEFAULTS
}

#[derive(Args)]
struct SolveArgs {
	/// Where workers connect.
	#[arg(long, default_value = "127.0.0.1:50051")]
	listen: SocketAddr,
	/// Where the layers go [default: placement-f1-r1/ beside the movement table in the
	/// platform's cache directory, as for `tui tablebase build --placement`].
	#[arg(long, value_name = "DIR")]
	dir: Option<PathBuf>,
	/// The movement table to solve from [default: the platform's cache directory].
	#[arg(long, value_name = "PATH")]
	movement: Option<PathBuf>,
	/// Solve only the layers with at least this many sheep placed, 0 to 19 (19: the last two
	/// layers, the sheep and the tigers to move with 19 placed), keeping any already solved.
	#[arg(long, value_name = "N", default_value_t = 0,
		value_parser = clap::value_parser!(u32).range(0..=19))]
	from_placed: u32,
	/// The token workers must present.
	#[arg(long, env = "TIGERS_TOKEN", hide_env_values = true)]
	token: Option<String>,
	/// Listen beyond this machine without a token.
	#[arg(long)]
	insecure: bool,
	/// Seconds a worker has to return a slice before it goes to another.
	#[arg(long, value_name = "SECONDS", default_value_t = 600)]
	slice_timeout: u64,
	/// Serve Prometheus metrics over plain HTTP at this address (path /metrics); no token.
	#[arg(long, value_name = "ADDR")]
	metrics_listen: Option<SocketAddr>,
	/// Log as JSON lines.
	#[arg(long)]
	log_json: bool,
}

/// `coordinator solve`: serves a placement solve until its layers are written.
async fn solve_command(args: SolveArgs) -> Result<(), Failure> {
	const NAME: &str = "coordinator solve";
	init_logging(args.log_json);
	let token = args.token.filter(|t| !t.is_empty());
	let exposed = std::iter::once(args.listen)
		.chain(args.metrics_listen)
		.find(|address| !address.ip().is_loopback());
	if let (None, false, Some(address)) = (&token, args.insecure, exposed) {
		return Err(Failure::usage(
			NAME,
			format!(
				"refusing to serve on {address} without a token; pass --token (or set \
				 TIGERS_TOKEN), use 127.0.0.1, or pass --insecure"
			),
		));
	}
	let places = locations::tablebase_path(args.movement.as_deref()).and_then(|movement| {
		let dir = locations::placement_dir(args.dir.as_deref())?;
		Ok((movement, dir))
	});
	let (movement, dir) = places.map_err(|e| Failure::usage(NAME, e))?;
	let mut config = tigers_coordinator::solve::SolveConfig::new(dir, movement);
	config.from_placed = args.from_placed;
	config.token = token;
	config.slice_timeout = Duration::from_secs(args.slice_timeout.max(1));
	config.metrics_listen = args.metrics_listen;
	let listener = tokio::net::TcpListener::bind(args.listen)
		.await
		.map_err(|e| Failure::new(NAME, format!("cannot listen on {}: {e}", args.listen)))?;
	Ok(tigers_coordinator::solve::run(config, listener, shutdown_signal()).await?)
}

#[derive(Args)]
struct ServeArgs {
	/// Address to listen on.
	#[arg(long, default_value = "127.0.0.1:50051")]
	listen: SocketAddr,
	/// The run directory: nets, checkpoint, ledger.
	#[arg(long, default_value = "runs/default")]
	run_dir: PathBuf,
	/// The token workers and dashboards must present.
	#[arg(long, env = "TIGERS_TOKEN", hide_env_values = true)]
	token: Option<String>,
	/// Listen on a non-loopback address without a token.
	#[arg(long)]
	insecure: bool,
	/// Take `worker loadtest`'s simulated workers, whose copies of one batch the run stores,
	/// trains on and archives as real games: only for a run directory made for the test.
	#[arg(long)]
	accept_loadtest: bool,
	/// Joins under worker identities the run has not seen, a minute at most (a minute's worth
	/// may come at once); past it a join is refused with RESOURCE_EXHAUSTED and the seconds to
	/// wait, and the worker retries. 0 for no limit.
	#[arg(long, value_name = "N", default_value_t = ServiceLimits::default().new_workers_per_minute)]
	max_new_workers_per_minute: u32,
	/// WatchProgress streams (dashboards) open at once, in all (at least 1).
	#[arg(long, value_name = "N", default_value_t = ServiceLimits::default().max_watchers,
		value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
	max_watchers: usize,
	/// WatchProgress streams open at once on one connection (at least 1).
	#[arg(long, value_name = "N", default_value_t = ServiceLimits::default().max_watchers_per_connection,
		value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
	max_watchers_per_connection: usize,
	/// TLS certificate (PEM); needs --tls-key.
	#[arg(long, requires = "tls_key")]
	tls_cert: Option<PathBuf>,
	/// TLS private key (PEM); needs --tls-cert.
	#[arg(long, requires = "tls_cert")]
	tls_key: Option<PathBuf>,
	/// Workers to run in this process, connecting over loopback.
	#[arg(long, default_value_t = 0)]
	local_workers: u32,
	/// Self-play threads per local worker (1 to 4096).
	#[arg(long, default_value_t = 1,
		value_parser = RangedU64ValueParser::<usize>::new().range(1..=4096))]
	local_worker_threads: usize,
	/// Serve Prometheus metrics over plain HTTP at this address (path /metrics). The endpoint
	/// takes no token; a non-loopback address needs the run to have one (or --insecure).
	#[arg(long, value_name = "ADDR")]
	metrics_listen: Option<SocketAddr>,
	/// Serve the run's read-only web pages over plain HTTP at this address (docs/web.md): a
	/// listener of its own, apart from gRPC and metrics. With a token, every page asks for it;
	/// a non-loopback address needs the run to have one (or --insecure).
	#[arg(long, value_name = "ADDR")]
	http_listen: Option<SocketAddr>,
	/// No dashboard: logs on stderr instead. The default when stdin or stdout is not a
	/// terminal; with the dashboard, logs go to coordinator.log in the run directory.
	#[arg(long)]
	headless: bool,
	/// Logs as JSON lines (the default when stderr is not a terminal).
	#[arg(long)]
	log_json: bool,
	/// Search depth of the gate, and of self-play at the start and at the least (1 to 16).
	#[arg(long, default_value_t = run_defaults().depth,
		value_parser = clap::value_parser!(u32).range(1..=16))]
	depth: u32,
	/// The deepest self-play search asked of workers while they send samples faster than the
	/// trainer can use them (up to 16); at most --depth keeps self-play at --depth.
	#[arg(long, value_name = "DEPTH", default_value_t = run_defaults().adapt.max_depth,
		value_parser = clap::value_parser!(u32).range(0..=16))]
	self_play_depth_max: u32,
	/// Seconds of sample and training rates behind each decision on the self-play depth: the
	/// least time between two changes.
	#[arg(long, value_name = "SECONDS",
		default_value_t = run_defaults().adapt.period.as_secs())]
	self_play_depth_seconds: u64,
	/// Games per sample batch.
	#[arg(long, default_value_t = run_defaults().games_per_batch)]
	games_per_batch: u32,
	/// Examples per training step.
	#[arg(long, default_value_t = run_defaults().training.batch_size)]
	batch_size: usize,
	/// Samples in the replay window: its size, or its base size c if it grows (--window-beta).
	#[arg(long, default_value_t = run_defaults().training.window)]
	window: usize,
	/// The window's growth with the samples seen n, by KataGo's rule c * (1 + beta * ((n / c)
	/// ^ alpha - 1) / alpha) once n passes c: its beta, at least 0; 0 keeps the window fixed.
	#[arg(long, default_value_t = run_defaults().training.window_growth.beta,
		value_parser = growth_beta)]
	window_beta: f64,
	/// The growing window's alpha, above 0 and at most 1 (KataGo's 0.75 by default).
	#[arg(long, default_value_t = run_defaults().training.window_growth.alpha,
		value_parser = growth_alpha)]
	window_alpha: f64,
	/// The most samples a growing window may hold (each costs about 40 bytes of memory and 35
	/// in every checkpoint); 0 for no bound.
	#[arg(long, value_name = "SAMPLES", default_value_t = run_defaults().training.window_growth.max)]
	window_max: usize,
	/// Times each sample may be trained on.
	#[arg(long, default_value_t = run_defaults().training.max_uses)]
	max_uses: u32,
	/// Hidden layer widths of the net, as H1xH2: a new run's generation 0 has them (64x32 when
	/// left out); a resumed run keeps the shape it started with and refuses another.
	#[arg(long, value_name = "H1xH2")]
	net_shape: Option<Shape>,
	/// The net's input encoding: 1, pieces and counts, or 2 (when left out), those and a plane
	/// of the sheep a tiger could capture now. A new run's generation 0 reads it; a resumed run
	/// keeps the encoding it started with and refuses another. Workers older than encoding 2
	/// can serve only a run of encoding 1.
	#[arg(long, value_name = "VERSION")]
	input_version: Option<Encoding>,
	/// Weight of the game result in the target (the rest is the search score).
	#[arg(long, default_value_t = run_defaults().training.targets.result_weight,
		value_parser = share)]
	result_weight: f32,
	/// Adam's learning rate: the base rate of the schedule.
	#[arg(long, default_value_t = run_defaults().training.adam.learning_rate)]
	learning_rate: f32,
	/// How the learning rate falls with the training step: constant; step:EVERY:FACTOR (times
	/// FACTOR every EVERY steps); cosine:PERIOD:FLOOR (half a cosine down to FLOOR times the
	/// rate over PERIOD steps); inverse:HALF_LIFE (the rate / (1 + step / HALF_LIFE)).
	#[arg(long, value_name = "SHAPE", default_value_t = run_defaults().training.schedule.shape)]
	lr_schedule: ScheduleShape,
	/// The decay (0 to below 1) of a running average of the weights, which is then the
	/// candidate instead of the weights themselves; 0 keeps no average.
	#[arg(long, value_name = "DECAY", default_value_t = run_defaults().training.weight_average,
		value_parser = decay)]
	weight_average: f32,
	/// Steps over which the learning rate rises linearly to the schedule's; 0 for none.
	#[arg(long, value_name = "STEPS",
		default_value_t = run_defaults().training.schedule.warmup_steps)]
	lr_warmup_steps: u64,
	/// Training steps between candidates (and between checkpoints).
	#[arg(long, default_value_t = run_defaults().steps_per_candidate)]
	steps_per_candidate: u64,
	/// Longest time between checkpoints while training, in seconds: the most training a crash
	/// can cost, unless checkpoints are slow to write (a large window), when they are held to a
	/// tenth of the training thread's time.
	#[arg(long, value_name = "SECONDS", default_value_t = run_defaults().checkpoint_every.as_secs())]
	checkpoint_seconds: u64,
	/// Forget workers without a session after this many hours unheard: they leave the count
	/// of workers known (`status`'s workers_known) and are not loaded again at a restart; the
	/// ledger keeps them. The dashboards and `status` list a worker without a session only for
	/// an hour after it was last heard, whatever this is.
	#[arg(long, value_name = "HOURS",
		default_value_t = ServiceLimits::default().forget_workers_after.as_secs() / 3600)]
	forget_workers_hours: u64,
	/// Most pairs of games in a gate match.
	#[arg(long, default_value_t = run_defaults().gate.policy.max_pairs)]
	gate_max_pairs: u32,
	/// Pairs before the gate's SPRT may stop it.
	#[arg(long, default_value_t = run_defaults().gate.policy.min_pairs)]
	gate_min_pairs: u32,
	/// How a candidate becomes a generation: sprt (a gate match against ClaudePlayer, promoted
	/// if the SPRT finds it better than the incumbent), incumbent (a gate match against the
	/// incumbent net itself, promoted if it scores above 0.5 and the SPRT does not find it no
	/// better) or none (every candidate promoted without a match). Every promoted net is then
	/// measured against ClaudePlayer on fresh openings.
	#[arg(long, value_name = "MODE", default_value = run_defaults().gate_mode.name(),
		value_parser = one_of::<GateMode>(&GateMode::NAMES))]
	gate: GateMode,
	/// Promote only a candidate whose gate match ended with the SPRT accepting H1, not one that
	/// reached --gate-max-pairs undecided with a better score: a stricter gate, for
	/// experiments (under --gate incumbent most promotions come at the cap, within the noise).
	#[arg(long)]
	gate_require_h1: bool,
	/// What the tablebase does in gate matches: judge (it only judges the moves, so a candidate
	/// plays the movement phase with its own evaluation) or play (both players search with it,
	/// so only the placement phase, which self-play trains on, decides a game).
	#[arg(long, value_name = "ROLE", default_value = run_defaults().gate.table.name(),
		value_parser = one_of::<TableRole>(&TableRole::NAMES))]
	gate_tablebase: TableRole,
	/// Minutes without a stronger net (a promotion by the gate, or a measurement better than
	/// every earlier one) before the dashboards raise an alarm; 0 for never.
	#[arg(long, value_name = "MINUTES",
		default_value_t = run_defaults().stall_alarm.as_secs() / 60)]
	stall_alarm_minutes: u64,
	/// Threads each training step computes its gradient on (1 to 64); the result does not
	/// depend on it. More pays only where cores are left over from self-play and gating.
	#[arg(long, default_value_t = run_defaults().training.threads,
		value_parser = RangedU64ValueParser::<usize>::new().range(1..=64))]
	train_threads: usize,
	/// Threads that play gate matches (1 to 256): the share of the machine gating may take
	/// [default: one per core].
	#[arg(long, value_name = "N",
		value_parser = RangedU64ValueParser::<usize>::new().range(1..=256))]
	gate_threads: Option<usize>,
	/// Each player's time a move when promoted nets are measured at equal time against
	/// ClaudePlayer (1 to 60000).
	#[arg(long, value_name = "MS",
		default_value_t = run_defaults().timed.move_time.as_millis() as u64,
		value_parser = clap::value_parser!(u64).range(1..=60_000))]
	timed_ms: u64,
	/// Pairs of games in each measurement at equal time; 0 measures none.
	#[arg(long, default_value_t = run_defaults().timed.pairs)]
	timed_pairs: u32,
	/// Do not grade the promoted nets on the grading suite (by default each is graded at the
	/// gate's depth, a few seconds of one core; docs/training.md, "Grades from the exact
	/// values").
	#[arg(long)]
	no_grades: bool,
	/// What the tablebase does in the measurements at equal time: play (both players search
	/// with it, as in tui, and it judges their moves) or judge (it judges the moves only).
	#[arg(long, value_name = "ROLE", default_value = run_defaults().timed.tablebase.name(),
		value_parser = one_of::<TableRole>(&TableRole::NAMES))]
	measure_tablebase: TableRole,
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
	/// What self-play and training take from the tablebase: none; rescore (self-play searches
	/// with it, movement-phase samples train towards its exact result); or adjudicate, the
	/// default (rescore, and self-play stops at the first movement-phase position with the exact
	/// result).
	#[arg(long, value_name = "USE", default_value = run_defaults().tablebase_use.name(),
		value_parser = one_of::<TablebaseUse>(&TablebaseUse::NAMES))]
	tablebase_use: TablebaseUse,
}

impl ServeArgs {
	/// The configuration the command line asks for (clap has checked every range and name).
	fn into_config(self) -> CoordinatorConfig {
		let mut config = CoordinatorConfig::new(self.listen, self.run_dir.clone());
		self.set_service(&mut config);
		self.set_self_play(&mut config.run);
		self.set_training(&mut config.run);
		self.set_gating(&mut config);
		config.run.seed = self.seed;
		config.run.keep_game_generations = self.keep_game_generations;
		config.run.tablebase_use = self.tablebase_use;
		config.token = self.token.filter(|t| !t.is_empty());
		config.tls = self.tls_cert.zip(self.tls_key);
		config.tablebase = self.tablebase;
		config.no_tablebase = self.no_tablebase;
		config.placement = self.placement;
		config
	}

	/// The service's own settings: local workers, metrics and the limits on peers.
	fn set_service(&self, config: &mut CoordinatorConfig) {
		config.insecure = self.insecure;
		config.local_workers = self.local_workers;
		config.local_worker_threads = self.local_worker_threads;
		config.metrics_listen = self.metrics_listen;
		config.http_listen = self.http_listen;
		let limits = &mut config.limits;
		limits.forget_workers_after =
			Duration::from_secs(self.forget_workers_hours.saturating_mul(3600));
		limits.accept_loadtest = self.accept_loadtest;
		limits.new_workers_per_minute = self.max_new_workers_per_minute;
		limits.max_watchers = self.max_watchers;
		limits.max_watchers_per_connection = self.max_watchers_per_connection;
	}

	/// The search depths of the gate and of self-play, and the games in a batch.
	fn set_self_play(&self, run: &mut RunSettings) {
		run.depth = self.depth;
		run.gate.search.max_depth = self.depth;
		run.adapt.max_depth = self.self_play_depth_max.max(self.depth);
		run.adapt.period = Duration::from_secs(self.self_play_depth_seconds.max(1));
		run.games_per_batch = self.games_per_batch.clamp(1, 1000);
	}

	/// The trainer's settings: window, targets, learning rate, threads, and the steps between
	/// candidates and checkpoints.
	fn set_training(&self, run: &mut RunSettings) {
		let training = &mut run.training;
		training.batch_size = self.batch_size.max(1);
		training.window = self.window.max(self.batch_size);
		training.window_growth = WindowGrowth {
			alpha: self.window_alpha,
			beta: self.window_beta,
			max: self.window_max,
		};
		training.max_uses = self.max_uses.max(1);
		training.targets.result_weight = self.result_weight;
		training.adam.learning_rate = self.learning_rate;
		training.weight_average = self.weight_average;
		run.shape = self.net_shape;
		run.encoding = self.input_version;
		training.schedule = LearningRateSchedule {
			shape: self.lr_schedule,
			warmup_steps: self.lr_warmup_steps,
		};
		training.threads = self.train_threads;
		run.steps_per_candidate = self.steps_per_candidate.max(1);
		run.steps_per_checkpoint = run.steps_per_candidate;
		run.checkpoint_every = Duration::from_secs(self.checkpoint_seconds.max(1));
	}

	/// How candidates are gated and promoted nets measured at equal time, and the threads the
	/// gate matches take.
	fn set_gating(&self, config: &mut CoordinatorConfig) {
		let run = &mut config.run;
		run.gate.policy.max_pairs = self.gate_max_pairs.max(1);
		run.gate.policy.min_pairs = self.gate_min_pairs;
		run.gate_mode = self.gate;
		run.promotion.require_h1 = self.gate_require_h1;
		run.gate.table = self.gate_tablebase;
		run.stall_alarm = Duration::from_secs(self.stall_alarm_minutes.saturating_mul(60));
		config.gate_threads = self.gate_threads;
		let timed = &mut config.run.timed;
		timed.move_time = Duration::from_millis(self.timed_ms);
		timed.pairs = self.timed_pairs.min(10_000);
		timed.tablebase = self.measure_tablebase;
		config.run.grade = !self.no_grades;
	}
}

/// A parser of one of `names`, which clap lists in the help and checks, into a `T` by its
/// `FromStr`.
fn one_of<T>(names: &'static [&'static str]) -> impl TypedValueParser<Value = T>
where
	T: FromStr + Clone + Send + Sync + 'static,
	T::Err: Into<Box<dyn std::error::Error + Send + Sync>>,
{
	PossibleValuesParser::new(names.iter().copied()).try_map(|name| name.parse::<T>())
}

/// `text` as a number that `holds`, else a sentence for clap to show after the flag and value.
fn number_where<T: FromStr<Err: std::fmt::Display>>(
	text: &str,
	holds: impl Fn(&T) -> bool,
	must_be: &str,
) -> Result<T, String> {
	match text.parse::<T>() {
		Ok(value) if holds(&value) => Ok(value),
		Ok(_) => Err(format!("must be {must_be}")),
		Err(error) => Err(error.to_string()),
	}
}

/// A share, 0 to 1 (`--result-weight`).
fn share(text: &str) -> Result<f32, String> {
	number_where(text, |value| (0.0..=1.0).contains(value), "0 to 1")
}

/// A running average's decay, 0 to below 1 (`--weight-average`).
fn decay(text: &str) -> Result<f32, String> {
	number_where(text, |value| (0.0..1.0).contains(value), "0 to below 1")
}

/// The window's growth beta, 0 or more (`--window-beta`).
fn growth_beta(text: &str) -> Result<f64, String> {
	number_where(
		text,
		|value: &f64| *value >= 0.0 && value.is_finite(),
		"0 or more",
	)
}

/// The window's growth alpha, above 0 and at most 1 (`--window-alpha`).
fn growth_alpha(text: &str) -> Result<f64, String> {
	number_where(
		text,
		|value| *value > 0.0 && *value <= 1.0,
		"above 0 and at most 1",
	)
}

#[tokio::main]
async fn main() -> ExitCode {
	let cli = Cli::parse();
	let done = match cli.command {
		Some(Command::Measure(args)) => measure_command(args).await,
		Some(Command::Grade(args)) => grade_command(args).await,
		Some(Command::Solve(args)) => solve_command(args).await,
		Some(Command::Tls(args)) => tls_command(&args),
		Some(Command::Status {
			connect,
			token,
			tls_ca,
		}) => status_command(&connect, token, tls_ca).await,
		None => serve_command(cli.serve).await,
	};
	match done {
		Ok(()) => ExitCode::SUCCESS,
		Err(failure) => failure.report(),
	}
}

/// `coordinator tls`: writes a CA and a coordinator certificate, and says how to use them.
fn tls_command(args: &TlsArgs) -> Result<(), Failure> {
	let made = make_certificates(&args.out, &args.hosts, args.force)
		.map_err(|e| Failure::new("coordinator tls", e))?;
	print_out(format_args!(
		"wrote a CA and a coordinator certificate for {hosts}, valid two years:\n\
		 \x20 coordinator: --tls-cert {cert} --tls-key {key}\n\
		 \x20 workers, dashboards and status: --tls-ca {ca} and https://{host}:PORT\n\
		 \x20 {ca_key} signs new coordinator certificates: keep it private, off the workers",
		hosts = args.hosts.join(", "),
		cert = made.certificate.display(),
		key = made.key.display(),
		ca = made.ca_certificate.display(),
		host = args.hosts[0],
		ca_key = made.ca_key.display(),
	))
}

/// `coordinator status`: prints a running coordinator's state as one JSON object.
async fn status_command(
	connect: &str,
	token: Option<String>,
	tls_ca: Option<PathBuf>,
) -> Result<(), Failure> {
	let client = ClientSettings {
		token: token.filter(|t| !t.is_empty()),
		tls_ca,
	};
	match fetch_status(connect, &client).await {
		Ok(progress) => print_out(progress_json(&progress)),
		// The whole chain: the transport's own words ("transport error") say nothing of why,
		// its sources do ("Connection refused", "invalid peer certificate").
		Err(error) => Err(Failure::new("coordinator status", error_chain(&error))),
	}
}

/// `coordinator` with no subcommand: serves a run, with its dashboard on the terminal if it
/// has one.
async fn serve_command(args: ServeArgs) -> Result<(), Failure> {
	const NAME: &str = "coordinator";
	let dashboard = !args.headless && io::stdin().is_terminal() && io::stdout().is_terminal();
	let log_file = args.run_dir.join(LOG_FILE);
	let run_dir = args.run_dir.clone();
	let is_new_run = !run_dir.exists();
	if dashboard {
		std::fs::create_dir_all(&args.run_dir)
			.and_then(|()| init_file_logging(&log_file, args.log_json))
			.map_err(|e| {
				Failure::new(NAME, format!("cannot log to {}: {e}", log_file.display()))
			})?;
	} else {
		init_logging(args.log_json);
	}
	let config = args.into_config();
	config
		.check_exposure()
		.map_err(|e| Failure::usage(NAME, e))?;
	let listener = tokio::net::TcpListener::bind(config.listen)
		.await
		.map_err(|e| Failure::new(NAME, format!("cannot listen on {}: {e}", config.listen)))?;
	if !dashboard {
		return Ok(tigers_coordinator::server::run(config, listener, shutdown_signal()).await?);
	}
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
	if result.is_err() && is_new_run && holds_only_the_log(&run_dir) {
		// The directory was made for the log of a run that never opened: it is no run.
		let _ = std::fs::remove_dir_all(&run_dir);
	} else {
		say!("coordinator: stopped; the log is {}", log_file.display());
	}
	Ok(result?)
}

/// Whether `run_dir` holds the dashboard's log and nothing else.
fn holds_only_the_log(run_dir: &std::path::Path) -> bool {
	std::fs::read_dir(run_dir).is_ok_and(|entries| {
		entries
			.map(|entry| entry.map(|e| e.file_name()))
			.all(|name| name.is_ok_and(|name| name == LOG_FILE))
	})
}

/// Prints a command's result and a newline on stdout: success, also when the reader of a pipe
/// has gone; failure if stdout cannot be written otherwise.
fn print_out(result: impl std::fmt::Display) -> Result<(), Failure> {
	console::out(format_args!("{result}\n"))
		.map_err(|e| Failure::new("coordinator", format!("cannot write the result: {e}")))
}

/// The log's name in the run directory while the dashboard has the terminal.
const LOG_FILE: &str = "coordinator.log";

/// Why a subcommand stopped short: one line for the user, and the exit status.
struct Failure {
	/// The line, which starts with the command's name.
	line: String,
	/// 2 for a usage error (the command line asks for something that cannot be), else 1.
	status: u8,
}

impl Failure {
	/// A failure of `command` with exit status 1.
	fn new(command: &str, error: impl std::fmt::Display) -> Failure {
		Failure {
			line: format!("{command}: {error}"),
			status: 1,
		}
	}

	/// A usage error of `command`: exit status 2.
	fn usage(command: &str, error: impl std::fmt::Display) -> Failure {
		Failure {
			status: 2,
			..Failure::new(command, error)
		}
	}

	/// Prints the line on stderr, once, and gives the exit status.
	fn report(self) -> ExitCode {
		say!("{}", self.line);
		ExitCode::from(self.status)
	}
}

/// A run or a solve that failed once serving: its error, as the library words it.
impl From<CoordinatorError> for Failure {
	fn from(error: CoordinatorError) -> Failure {
		Failure::new("coordinator", error)
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use tigers_core::network::{Encoding, Shape};

	#[test]
	fn the_command_lines_defaults_are_the_librarys() {
		let cli = Cli::try_parse_from(["coordinator"]).expect("no arguments parse");
		let config = cli.serve.into_config();
		let library = CoordinatorConfig::new(
			"127.0.0.1:50051".parse().unwrap(),
			PathBuf::from("runs/default"),
		);
		assert_eq!(config.run, RunSettings::default());
		// Every promoted net is graded unless told otherwise.
		assert!(config.run.grade);
		let cli = Cli::try_parse_from(["coordinator", "--no-grades"]).expect("--no-grades parses");
		assert!(!cli.serve.into_config().run.grade);
		assert_eq!(config.limits, library.limits);
		assert_eq!(config.local_workers, library.local_workers);
		assert_eq!(config.local_worker_threads, library.local_worker_threads);
		assert_eq!(config.tablebase, None);
		assert!(!config.no_tablebase);
		assert_eq!(config.gate_threads, library.gate_threads);
		assert_eq!(
			config.gate_threads(),
			std::thread::available_parallelism().unwrap().get()
		);
	}

	#[test]
	fn grade_searches_at_the_gates_depth_and_100_ms_by_default() {
		let cli = Cli::try_parse_from(["coordinator", "grade", "a.safetensors", "b.safetensors"]);
		let Some(Command::Grade(args)) = cli.expect("grade parses").command else {
			panic!("the grade command");
		};
		assert_eq!(args.nets.len(), 2);
		assert_eq!(
			(args.depth, args.move_ms),
			(RunSettings::default().gate.search.max_depth, 100)
		);
		assert_eq!((args.suite, args.threads), (None, None));
		for bad in [["--depth", "0"], ["--depth", "13"], ["--move-ms", "60001"]] {
			let parsed =
				Cli::try_parse_from(["coordinator", "grade", "a.safetensors", bad[0], bad[1]]);
			assert!(parsed.is_err(), "{bad:?}");
		}
	}

	#[test]
	fn measure_plays_a_runs_measurement_by_default() {
		let cli = Cli::try_parse_from(["coordinator", "measure", "net.safetensors"]).unwrap();
		let Some(Command::Measure(args)) = cli.command else {
			panic!("the measure command");
		};
		let settings = args.settings().expect("the defaults are valid");
		assert_eq!(settings.timed, RunSettings::default().timed);
		assert_eq!(settings.gate, RunSettings::default().gate);
		assert_eq!((settings.threads, settings.generation), (1, None));
		assert_eq!(settings.timed.tablebase, TableRole::Play);
		assert_eq!(settings.measured, Measured::Net("net.safetensors".into()));
		assert_eq!(settings.against, Opponent::Claude);
		let cli = Cli::try_parse_from(["coordinator", "measure", "--perfect"]).unwrap();
		let Some(Command::Measure(args)) = cli.command else {
			panic!("the measure command");
		};
		let settings = args.settings().unwrap();
		assert_eq!(settings.measured, Measured::Perfect);
		assert!(settings.needs_placement());
		let cli = Cli::try_parse_from([
			"coordinator",
			"measure",
			"n",
			"--measure-tablebase",
			"judge",
		])
		.unwrap();
		let Some(Command::Measure(args)) = cli.command else {
			panic!("the measure command");
		};
		assert_eq!(args.settings().unwrap().timed.tablebase, TableRole::Judge);
		let measure_args = |extra: &[&str]| {
			let cli =
				Cli::try_parse_from(["coordinator", "measure", "n"].iter().chain(extra)).unwrap();
			let Some(Command::Measure(args)) = cli.command else {
				panic!("the measure command");
			};
			args.settings()
		};
		assert_eq!(
			measure_args(&["--against-net", "old.safetensors"])
				.unwrap()
				.against,
			Opponent::Net("old.safetensors".into())
		);
		let both = measure_args(&["--against", "perfect", "--against-net", "old"]).unwrap_err();
		assert!(both.contains("two opponents"), "{both}");
		for (flag, value) in [
			("--move-ms", "0"),
			("--pairs", "0"),
			("--threads", "65"),
			("--opening-plies", "31"),
			("--against", "nobody"),
			("--measure-tablebase", "help"),
		] {
			assert_refused(&["coordinator", "measure", "n", flag, value], flag);
		}
	}

	#[test]
	fn a_self_play_depth_bound_below_the_depth_keeps_self_play_at_the_depth() {
		let cli = Cli::try_parse_from(["coordinator", "--depth", "6"]).expect("parses");
		let config = cli.serve.into_config();
		assert_eq!((config.run.depth, config.run.adapt.max_depth), (6, 6));
		let cli = Cli::try_parse_from([
			"coordinator",
			"--self-play-depth-max",
			"7",
			"--self-play-depth-seconds",
			"20",
		])
		.expect("parses");
		let config = cli.serve.into_config();
		assert_eq!((config.run.depth, config.run.adapt.max_depth), (3, 7));
		assert_eq!(config.run.adapt.period, Duration::from_secs(20));
	}

	#[test]
	fn the_levers_of_issue_24_reach_the_run_settings() {
		let cli = Cli::try_parse_from([
			"coordinator",
			"--window",
			"250000",
			"--window-beta",
			"0.4",
			"--window-max",
			"3000000",
			"--lr-schedule",
			"cosine:1000000:0.1",
			"--lr-warmup-steps",
			"1000",
			"--weight-average",
			"0.999",
			"--gate",
			"none",
			"--gate-require-h1",
			"--stall-alarm-minutes",
			"45",
			"--measure-tablebase",
			"judge",
			"--gate-tablebase",
			"play",
			"--net-shape",
			"128x64",
			"--input-version",
			"2",
		])
		.expect("parses");
		let run = cli.serve.into_config().run;
		assert_eq!(run.training.window, 250_000);
		assert_eq!(
			run.training.window_growth,
			WindowGrowth {
				alpha: 0.75,
				beta: 0.4,
				max: 3_000_000
			}
		);
		assert_eq!(
			run.training.schedule.shape.to_string(),
			"cosine:1000000:0.1"
		);
		assert_eq!(run.training.schedule.warmup_steps, 1000);
		assert_eq!(run.training.weight_average, 0.999);
		assert_eq!(run.gate_mode, GateMode::None);
		assert!(run.promotion.require_h1);
		assert_eq!(run.stall_alarm, Duration::from_secs(45 * 60));
		assert_eq!(run.timed.tablebase, TableRole::Judge);
		assert_eq!(run.gate.table, TableRole::Play);
		assert_eq!(
			run.shape,
			Some(Shape {
				hidden1: 128,
				hidden2: 64
			})
		);
		assert_eq!(run.encoding, Some(Encoding::V2));
	}

	#[test]
	fn a_run_without_an_input_version_starts_at_version_2_and_resumes_as_it_was() {
		let cli = Cli::try_parse_from(["coordinator"]).expect("parses");
		let run = cli.serve.into_config().run;
		assert_eq!(run.encoding, None);
		assert_eq!(run.new_run_encoding(), Encoding::V2);
		assert_eq!(run.new_run_encoding().version(), 2);
		let cli = Cli::try_parse_from(["coordinator", "--input-version", "1"]).expect("parses");
		let run = cli.serve.into_config().run;
		assert_eq!(run.new_run_encoding(), Encoding::V1);
	}

	#[test]
	fn a_run_without_a_net_shape_starts_at_64x32_and_resumes_as_it_was() {
		let cli = Cli::try_parse_from(["coordinator"]).expect("parses");
		let run = cli.serve.into_config().run;
		assert_eq!(run.shape, None);
		assert_eq!(run.shape.unwrap_or_default().to_string(), "64x32");
	}

	#[test]
	fn out_of_range_settings_are_refused_with_the_flag_named() {
		for (flag, value) in [
			("--depth", "0"),
			("--result-weight", "1.5"),
			("--train-threads", "0"),
			("--timed-ms", "0"),
			("--self-play-depth-max", "17"),
			("--gate-threads", "0"),
			("--window-beta", "inf"),
			("--window-alpha", "1.5"),
			("--window-alpha", "0"),
			("--lr-schedule", "step:0:0.5"),
			("--weight-average", "1"),
			("--net-shape", "64x0"),
			("--net-shape", "wide"),
			("--input-version", "3"),
			("--input-version", "0"),
			("--local-worker-threads", "0"),
			("--gate", "sometimes"),
			("--gate-tablebase", "both"),
			("--measure-tablebase", "both"),
			("--tablebase-use", "all"),
			("--timed-ms", "60001"),
			("--gate-threads", "257"),
		] {
			assert_refused(&["coordinator", flag, value], flag);
		}
	}

	/// Checks that clap refuses `args` as a usage error (exit status 2) naming `flag`.
	fn assert_refused(args: &[&str], flag: &str) {
		let error = Cli::try_parse_from(args)
			.err()
			.unwrap_or_else(|| panic!("{args:?}"));
		assert_eq!(error.exit_code(), 2, "{error}");
		let words = error.to_string();
		assert!(words.contains(flag), "{args:?}: {words}");
	}
}
