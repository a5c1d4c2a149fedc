//! The `tui` binary: parses the command line, then hands it to one function per subcommand:
//! a game on the terminal, the engine protocol on stdin and stdout, a coordinator's training
//! dashboard, the tablebase commands, or the list of a record file's games.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use tigers_core::grade::SuiteShape;
use tigers_dashboard::FeedSettings;
use tigers_play::limits::Limits;
use tigers_process::console;
use tigers_process::locations;
use tigers_process::token::TOKEN_ENV;
use tigers_proto::client::{ClientSettings, error_chain};
use tigers_tui::commands::{
	placement as placement_command, serve as serve_command, suite as suite_command,
	tablebase as tablebase_command,
};
use tigers_tui::engine::Engine;
use tigers_tui::net_source::{DEFAULT_COORDINATOR, DEFAULT_RUN_DIR, NetSource};
use tigers_tui::screen::setup::{PlayConfig, PlayerKind, Setup};

/// Play Tigers and Sheep in the terminal, against the latest net by default.
#[derive(Debug, Parser)]
#[command(name = "tui", version, args_conflicts_with_subcommands = true)]
struct Cli {
	#[command(flatten)]
	play: PlayArgs,
	#[command(flatten)]
	client: ClientArgs,
	#[command(flatten)]
	table: TableArgs,
	#[command(subcommand)]
	command: Option<Command>,
}

/// How to talk to a coordinator: for the game (fetching a net) and the dashboard.
#[derive(Debug, Args)]
struct ClientArgs {
	/// The run's token, for talking to a coordinator.
	#[arg(long, value_name = "T", env = TOKEN_ENV, hide_env_values = true)]
	token: Option<String>,
	/// PEM certificate to trust for an https coordinator.
	#[arg(long, value_name = "FILE")]
	tls_ca: Option<PathBuf>,
}

impl ClientArgs {
	fn settings(self) -> ClientSettings {
		ClientSettings {
			token: self.token,
			tls_ca: self.tls_ca,
		}
	}
}

/// Which tablebase to play and search with: for the game and the engine.
#[derive(Debug, Args)]
struct TableArgs {
	/// The tablebase file [default: movement-phase-f1-r1.tb in the platform's cache directory,
	/// e.g. ~/.cache/tigers-and-sheep/tablebase/].
	#[arg(long, value_name = "PATH")]
	tablebase: Option<PathBuf>,
	/// Play and search without the tablebase even if there is one.
	#[arg(long, conflicts_with = "tablebase")]
	no_tablebase: bool,
}

impl TableArgs {
	fn find(&self) -> Result<tablebase_command::Found, tablebase_command::TablebaseCommandError> {
		tablebase_command::find(self.tablebase.as_deref(), self.no_tablebase)
	}
}

#[derive(Debug, Subcommand)]
enum Command {
	/// Read commands on stdin and answer on stdout (see docs/engine-protocol.md).
	Engine {
		#[command(flatten)]
		table: TableArgs,
		#[command(flatten)]
		client: ClientArgs,
	},
	/// Solve the movement phase into a file, check a file, or count one.
	Tablebase {
		#[command(subcommand)]
		action: TablebaseAction,
	},
	/// List the games in a record file or a run's game archive (games/gen-*.records.gz in
	/// its run directory), to choose one for --load FILE --game N.
	Games {
		/// The file.
		path: PathBuf,
	},
	/// Watch a coordinator's training run live.
	Dashboard(DashboardArgs),
	/// Serve the play and analysis pages and their JSON API in a browser (docs/web.md).
	Serve(ServeArgs),
}

/// What `tui serve` serves, where, and within what bounds.
#[derive(Debug, Args)]
struct ServeArgs {
	/// The address to serve on, such as 127.0.0.1:8080.
	#[arg(long, value_name = "ADDR")]
	listen: std::net::SocketAddr,
	/// Serve a non-loopback address to the public: play, analysis and the API, with the
	/// per-client bounds.
	#[arg(long)]
	public: bool,
	/// The token every visitor must show: the login form in a browser, `Authorization: Bearer
	/// TOKEN` from a script (not the coordinator's --token, which fetches the net).
	#[arg(long, value_name = "T", env = serve_command::PAGES_TOKEN_ENV,
		hide_env_values = true)]
	pages_token: Option<String>,
	/// How long a login lasts, in hours (1 to 8760).
	#[arg(long, value_name = "HOURS",
		default_value_t = tigers_play::access::DEFAULT_SESSION.as_secs() / 3600,
		value_parser = clap::value_parser!(u64).range(1..=8760))]
	session_hours: u64,
	/// Serve HTTPS with this certificate (PEM, such as `coordinator tls` writes); needs
	/// --tls-key.
	#[arg(long, value_name = "FILE", requires = "tls_key")]
	tls_cert: Option<PathBuf>,
	/// The certificate's private key (PEM); needs --tls-cert.
	#[arg(long, value_name = "FILE", requires = "tls_cert")]
	tls_key: Option<PathBuf>,
	/// The net: a safetensors file, or a coordinator's URL to fetch its best net by the rating
	/// ladder (its latest with `#latest` after the URL) [default: the best in --run-dir, else
	/// the newest there, else the coordinator at http://127.0.0.1:50051, else no net].
	#[arg(long, value_name = "PATH|URL")]
	net: Option<String>,
	/// The run directory to take the best net from.
	#[arg(long, value_name = "DIR", default_value = DEFAULT_RUN_DIR)]
	run_dir: PathBuf,
	/// Look for the net again every this many seconds, the way it was first found (the
	/// coordinator's, the run directory's best, the file), and serve a newer one at once; 0
	/// never looks again (0 to 86400).
	#[arg(long, value_name = "S", default_value_t = 60,
		value_parser = clap::value_parser!(u64).range(0..=86_400))]
	net_refresh_s: u64,
	/// Searches at once over all visitors: the cores the pages may take (1 to 64).
	#[arg(long, value_name = "N", default_value_t = Limits::default().searches as u64,
		value_parser = clap::value_parser!(u64).range(1..=64))]
	searches: u64,
	/// The longest search a request may ask for, in milliseconds (1 to 60000).
	#[arg(long, value_name = "MS", default_value_t = Limits::default().max_ms,
		value_parser = clap::value_parser!(u32).range(1..=60_000))]
	max_ms: u32,
	/// Milliseconds of search each client may spend a second, on average, after a first
	/// 20 seconds' worth (1 to 60000).
	#[arg(long, value_name = "MS", default_value_t = Limits::default().refill_ms_per_s,
		value_parser = clap::value_parser!(u32).range(1..=60_000))]
	client_ms: u32,
	/// Requests that cost no search (a position's values, an evaluation, a game's analysis)
	/// each client may make a second (1 to 100000).
	#[arg(long, value_name = "N", default_value_t = Limits::default().lookups_per_s,
		value_parser = clap::value_parser!(u32).range(1..=100_000))]
	client_lookups: u32,
	/// The placement layers' directory [default: placement-f1-r1 in the platform's cache
	/// directory, used if present].
	#[arg(long, value_name = "DIR")]
	placement: Option<PathBuf>,
	#[command(flatten)]
	table: TableArgs,
	#[command(flatten)]
	client: ClientArgs,
}

/// Where `tui dashboard` takes its snapshots from, and how often.
#[derive(Debug, Args)]
struct DashboardArgs {
	/// The coordinator's URL.
	#[arg(long, value_name = "URL", default_value = DEFAULT_COORDINATOR)]
	connect: String,
	/// How often the coordinator sends a snapshot, in milliseconds (100 to 60000).
	#[arg(long, value_name = "MS", default_value_t = 1000,
		value_parser = clap::value_parser!(u32).range(100..=60_000))]
	interval_ms: u32,
	/// Also save every snapshot received to this file.
	#[arg(long, value_name = "FILE")]
	record: Option<PathBuf>,
	/// Play a recording back instead, one snapshot per interval.
	#[arg(long, value_name = "FILE", conflicts_with_all = ["connect", "record"])]
	replay: Option<PathBuf>,
	#[command(flatten)]
	client: ClientArgs,
}

#[derive(Debug, Subcommand)]
enum TablebaseAction {
	/// Solve the movement phase and write the table (about half a minute on two cores, 89 MiB).
	Build {
		/// Where to write it [default: the platform's cache directory].
		#[arg(long, value_name = "PATH")]
		out: Option<PathBuf>,
		/// Threads to solve on [default: every core].
		#[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
		threads: Option<u32>,
		/// Solve again even if the file exists.
		#[arg(long)]
		force: bool,
		#[command(flatten)]
		placement: PlacementArgs,
		/// With --placement: solve only the layers with at least this many sheep placed, 0 to 19
		/// (19: the last two layers, the sheep and the tigers to move with 19 placed; 17 takes a
		/// few minutes), keeping any already solved.
		#[arg(long, value_name = "N", requires = "placement", default_value_t = 0,
			value_parser = clap::value_parser!(u32).range(0..=19))]
		from_placed: u32,
	},
	/// Check every value of a table against its moves.
	Verify {
		/// The table [default: the platform's cache directory].
		path: Option<PathBuf>,
		/// Threads to check on [default: every core].
		#[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
		threads: Option<u32>,
		#[command(flatten)]
		placement: PlacementArgs,
		/// With --placement: check every layer anew, also those that verified.txt records as
		/// checked before (a stopped verify otherwise goes on where it was).
		#[arg(long, requires = "placement")]
		again: bool,
	},
	/// Draw the grading suite (docs/training.md, "Grades from the exact values"): positions of
	/// both phases from seeded games, each with its exact value and the moves that keep it.
	/// Needs the movement table and every placement layer.
	Suite {
		/// Where to write it (the repository's copy is core/data/grade-suite.txt).
		#[arg(long, value_name = "FILE")]
		out: PathBuf,
		/// The seed of the games the positions are drawn from.
		#[arg(long, value_name = "N", default_value_t = 1)]
		seed: u64,
		/// Positions of each phase, 1 to 100000.
		#[arg(long, value_name = "N", default_value_t = 500,
			value_parser = clap::value_parser!(u32).range(1..=100_000))]
		per_phase: u32,
		/// The placement layers' directory [default: placement-f1-r1 beside the movement table
		/// in the cache directory].
		#[arg(long, value_name = "DIR")]
		dir: Option<PathBuf>,
		/// The movement table [default: the cache directory's].
		#[arg(long, value_name = "PATH")]
		movement: Option<PathBuf>,
	},
	/// Print a table's counts: positions, wins, draws and losses, the longest win.
	Stats {
		/// The table [default: the platform's cache directory].
		path: Option<PathBuf>,
		#[command(flatten)]
		placement: PlacementArgs,
	},
}

/// The placement phase instead of the movement table.
#[derive(Debug, Args)]
struct PlacementArgs {
	/// The placement phase, solved layer by layer from the movement table (which must be
	/// there: --movement, else the cache directory's).
	#[arg(long)]
	placement: bool,
	/// The placement layers' directory [default: placement-f1-r1 beside the movement table in
	/// the cache directory].
	#[arg(long, value_name = "DIR", requires = "placement")]
	dir: Option<PathBuf>,
	/// With --placement: the movement table the layers start from [default: the cache
	/// directory's].
	#[arg(long, value_name = "PATH", requires = "placement")]
	movement: Option<PathBuf>,
}

impl PlacementArgs {
	/// The placement layers' directory.
	fn layers_dir(&self) -> anyhow::Result<PathBuf> {
		Ok(locations::placement_dir(self.dir.as_deref())?)
	}

	/// The movement table the placement layers start from, which must be there.
	fn movement_table(&self) -> anyhow::Result<std::sync::Arc<tigers_core::Tablebase>> {
		let found = tablebase_command::find(self.movement.as_deref(), false)?;
		found.table.ok_or_else(|| {
			anyhow::anyhow!(
				"the placement solve starts from the movement table, and there is none at {}; \
				 `tui tablebase build` makes it",
				found
					.path
					.map_or_else(String::new, |p| p.display().to_string())
			)
		})
	}
}

#[derive(Debug, Args)]
struct PlayArgs {
	/// Who plays the sheep: human, claude, net or perfect (both solved phases needed).
	#[arg(long, value_name = "KIND", default_value = "human")]
	sheep: PlayerKind,
	/// Who plays the tigers: human, claude, net or perfect (both solved phases needed).
	#[arg(long, value_name = "KIND", default_value = "net")]
	tiger: PlayerKind,
	/// Seconds a computer player may think about a move.
	#[arg(long, value_name = "SECS", default_value_t = 2.0, value_parser = parse_seconds,
		allow_negative_numbers = true)]
	time: f64,
	/// The net: a safetensors file, or a coordinator's URL to fetch its best net by the rating
	/// ladder (its latest with `#latest` after the URL) [default: the best in --run-dir, else
	/// the newest there, else the coordinator at http://127.0.0.1:50051].
	#[arg(long, value_name = "PATH|URL")]
	net: Option<String>,
	/// The run directory to take the best net from (`nets/best`, else the newest).
	#[arg(long, value_name = "DIR", default_value = DEFAULT_RUN_DIR)]
	run_dir: PathBuf,
	/// A game record to continue (or step through with the arrow keys): a record file, or a
	/// file of many, such as a run's game archive, with --game.
	#[arg(long, value_name = "FILE")]
	load: Option<PathBuf>,
	/// Which game of --load's file, from 1, if it holds many (`tui games FILE` lists them).
	#[arg(long, value_name = "N", requires = "load",
		value_parser = clap::value_parser!(u64).range(1..))]
	game: Option<u64>,
	/// Where `w` writes the game's record [default: a new file per game,
	/// game-DATE-TIME.txt, in the platform's data directory, e.g.
	/// ~/.local/share/tigers-and-sheep/games/].
	#[arg(long, value_name = "FILE")]
	save: Option<PathBuf>,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
	match text.parse::<f64>() {
		Ok(secs) if secs > 0.0 && secs <= 3600.0 => Ok(secs),
		_ => Err(format!(
			"{text:?} is not a thinking time: give seconds above 0 and at most 3600, such as 0.5"
		)),
	}
}

/// A line for the user on stderr, like `eprintln!` but without its panic when stderr is closed.
macro_rules! say {
	($($arg:tt)*) => {
		console::err(format_args!($($arg)*))
	};
}

fn main() -> ExitCode {
	match run(Cli::parse()) {
		Ok(()) => ExitCode::SUCCESS,
		Err(error) => {
			// One line, each cause once, and no backtrace even with RUST_BACKTRACE set: these
			// are a user's errors, not the program's.
			say!("tui: {}", error_chain(&*error));
			ExitCode::FAILURE
		}
	}
}

fn run(cli: Cli) -> anyhow::Result<()> {
	match cli.command {
		Some(Command::Tablebase { action }) => tablebase(action),
		Some(Command::Games { path }) => games(&path),
		Some(Command::Engine { table, client }) => engine(&table, client),
		Some(Command::Dashboard(args)) => dashboard(args),
		Some(Command::Serve(args)) => serve(args),
		None => play(cli.play, &cli.table, cli.client),
	}
}

/// `tui games FILE`: lists the file's games; an error if some do not read.
fn games(path: &Path) -> anyhow::Result<()> {
	let (listing, all_read) = tigers_tui::record_io::list_games(path)?;
	console::out(listing)?;
	if !all_read {
		anyhow::bail!(
			"some games in {} do not read (listed above)",
			path.display()
		);
	}
	Ok(())
}

/// `tui serve`: the pages in a browser until Ctrl-C.
fn serve(args: ServeArgs) -> anyhow::Result<()> {
	let token = args.pages_token.clone().filter(|token| !token.is_empty());
	serve_command::check_address(args.listen, args.public, token.is_some())?;
	let found = args.table.find()?;
	if let Some(note) = &found.note {
		say!("tui serve: {note}; positions of the movement phase are served without values");
	}
	let placement = match &args.placement {
		Some(dir) => Some(std::sync::Arc::new(
			tigers_core::tablebase::placement::PlacementTable::open(dir)
				.with_context(|| format!("the placement layers in {}", dir.display()))?,
		)),
		None => tablebase_command::find_placement(args.table.no_tablebase),
	};
	let client = args.client.settings();
	let source = args.net.as_deref().map(NetSource::parse);
	let explicit = source.is_some();
	let mut reload = serve_command::net_finder(source, args.run_dir.clone(), client);
	let net = serve_command::first_net(&mut reload, explicit)?;
	let follow = (args.net_refresh_s > 0).then(|| serve_command::Follow {
		every: Duration::from_secs(args.net_refresh_s),
		reload,
	});
	let limits = Limits {
		searches: usize::try_from(args.searches).unwrap_or(1),
		max_ms: args.max_ms,
		refill_ms_per_s: args.client_ms,
		lookups_per_s: args.client_lookups,
		..Limits::default()
	};
	let config = serve_command::ServeConfig {
		listen: args.listen,
		public: args.public,
		token,
		session: Duration::from_secs(args.session_hours * 3600),
		tls: args.tls_cert.zip(args.tls_key),
		net,
		tablebase: found.table,
		placement,
		limits,
		follow,
	};
	let scheme = if config.tls.is_some() {
		"https"
	} else {
		"http"
	};
	serve_command::run(config, |address| {
		say!("tui serve: {scheme}://{address}/play and {scheme}://{address}/analysis");
	})
}

/// `tui engine`: the engine protocol on stdin and stdout.
fn engine(table: &TableArgs, client: ClientArgs) -> anyhow::Result<()> {
	let found = table.find()?;
	let engine = Engine::new(client.settings())
		.with_tablebase(found.table, found.note)
		.with_placement(tablebase_command::find_placement(table.no_tablebase));
	match tigers_tui::engine::run(io::stdin().lock(), io::stdout().lock(), engine) {
		// The program reading the answers has gone: nothing is left to answer.
		Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
		other => other.context("the engine's input or output failed"),
	}
}

/// `tui dashboard`: a coordinator's run live, or a recording played back.
fn dashboard(args: DashboardArgs) -> anyhow::Result<()> {
	let interval = Duration::from_millis(u64::from(args.interval_ms));
	if let Some(path) = args.replay {
		return Ok(tigers_dashboard::remote::replay(&path, interval)?);
	}
	let settings = FeedSettings {
		url: args.connect,
		client: args.client.settings(),
		interval,
	};
	Ok(tigers_dashboard::remote::watch(
		settings,
		args.record.as_deref(),
	)?)
}

/// `tui` without a subcommand: a game on the terminal, then a word on how it went.
fn play(args: PlayArgs, table: &TableArgs, client: ClientArgs) -> anyhow::Result<()> {
	let found = table.find()?;
	let config = PlayConfig {
		sheep: args.sheep,
		tigers: args.tiger,
		time_limit: Duration::from_secs_f64(args.time),
		net: args.net.as_deref().map(NetSource::parse),
		run_dir: args.run_dir,
		coordinator: DEFAULT_COORDINATOR.to_string(),
		client: client.settings(),
		load: args.load,
		game: args.game.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
		save: args.save,
		tablebase: found.table,
		placement: tablebase_command::find_placement(table.no_tablebase),
	};
	let mut setup = tigers_tui::screen::setup::build(&config)?;
	if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
		anyhow::bail!(
			"tui plays on a terminal, and this is not one; scripts and other programs can drive \
			 the search with `tui engine` instead (see docs/engine-protocol.md)"
		);
	}
	tigers_tui::screen::terminal::play(&mut setup.app).context("the terminal failed")?;
	after_the_game(&setup, found.note)
}

/// How the game ended, what it was played without (`no_table`: why there was no tablebase),
/// and where it is saved.
fn after_the_game(setup: &Setup, no_table: Option<String>) -> anyhow::Result<()> {
	let game = setup.app.game();
	match game.outcome() {
		Some(outcome) => console::out(format_args!(
			"{outcome}, after {} moves\n",
			game.history().len()
		))?,
		None => console::out(format_args!(
			"unfinished after {} moves\n",
			game.history().len()
		))?,
	}
	if let Some(why) = &setup.no_net_because {
		say!("played Claude instead of a net: {why}");
	}
	if let Some(note) = no_table {
		say!("played without exact values: {note}");
	}
	match setup.app.last_saved() {
		Some(path) if setup.app.has_unsaved_moves() => console::out(format_args!(
			"the moves after the last save were not saved; {} holds the game as it was then\n",
			path.display()
		))?,
		Some(path) => console::out(format_args!("the game is saved in {}\n", path.display()))?,
		None => {}
	}
	Ok(())
}

/// `tui tablebase ...`: prints what the command found; errors end the program with status 1.
fn tablebase(action: TablebaseAction) -> anyhow::Result<()> {
	let out = match action {
		TablebaseAction::Build {
			threads,
			placement,
			from_placed,
			..
		} if placement.placement => placement_command::build(
			&placement.layers_dir()?,
			&*placement.movement_table()?,
			from_placed,
			thread_count(threads),
		)?,
		TablebaseAction::Build {
			out,
			threads,
			force,
			..
		} => tablebase_command::build(&table_path(out.as_deref())?, thread_count(threads), force)?,
		TablebaseAction::Verify {
			threads,
			placement,
			again,
			..
		} if placement.placement => placement_command::verify(
			&placement.layers_dir()?,
			&*placement.movement_table()?,
			thread_count(threads),
			again,
		)?,
		TablebaseAction::Verify { path, threads, .. } => {
			tablebase_command::verify(&table_path(path.as_deref())?, thread_count(threads))?
		}
		TablebaseAction::Suite {
			out,
			seed,
			per_phase,
			dir,
			movement,
		} => {
			let layers = PlacementArgs {
				placement: true,
				dir,
				movement,
			};
			let per_phase = per_phase as usize;
			let shape = SuiteShape {
				seed,
				placement: per_phase,
				movement: per_phase,
			};
			suite_command::suite(
				&layers.layers_dir()?,
				&*layers.movement_table()?,
				shape,
				&out,
			)?
		}
		TablebaseAction::Stats { placement, .. } if placement.placement => {
			placement_command::stats(&placement.layers_dir()?)?
		}
		TablebaseAction::Stats { path, .. } => {
			tablebase_command::stats(&table_path(path.as_deref())?)?
		}
	};
	console::out(out)?;
	Ok(())
}

/// The movement table's path: the one given, or the cache directory's.
fn table_path(given: Option<&Path>) -> anyhow::Result<PathBuf> {
	Ok(locations::tablebase_path(given)?)
}

/// The threads to use: the number given, or one per core.
fn thread_count(given: Option<u32>) -> usize {
	given.map_or_else(
		|| std::thread::available_parallelism().map_or(1, usize::from),
		|n| n as usize,
	)
}

#[cfg(test)]
mod tests {
	use clap::CommandFactory;
	use tigers_process::doc_commands;

	use super::*;

	/// The help of `tui` and of its subcommand `path`, as `--help` prints it.
	fn help(path: &[&str]) -> String {
		let mut command = Cli::command();
		let mut current = &mut command;
		for name in path {
			current = current
				.find_subcommand_mut(name)
				.unwrap_or_else(|| panic!("no subcommand {name}"));
		}
		current.render_long_help().to_string()
	}

	#[test]
	fn each_command_lists_the_options_it_takes_and_no_others() {
		let play = help(&[]);
		for option in [
			"--token",
			"--tls-ca",
			"--tablebase",
			"--no-tablebase",
			"--time",
		] {
			assert!(play.contains(option), "{option} in\n{play}");
		}
		let dashboard = help(&["dashboard"]);
		assert!(dashboard.contains("--token") && dashboard.contains("--tls-ca"));
		assert!(!dashboard.contains("tablebase"), "{dashboard}");
		let engine = help(&["engine"]);
		assert!(engine.contains("--tablebase") && engine.contains("--no-tablebase"));
		assert!(engine.contains("--token"), "{engine}");
		let games = help(&["games"]);
		assert!(
			!games.contains("--token") && !games.contains("tablebase"),
			"{games}"
		);
		for action in ["build", "verify", "stats"] {
			let text = help(&["tablebase", action]);
			assert!(!text.contains("--token"), "{text}");
			assert!(!text.contains("--tablebase"), "{text}");
			assert!(!text.contains("--no-tablebase"), "{text}");
		}
	}

	#[test]
	fn the_build_help_gives_the_figures_of_the_readme() {
		let build = help(&["tablebase", "build"]);
		assert!(
			build.contains("about half a minute on two cores, 89 MiB"),
			"{build}"
		);
		let readme = include_str!("../../README.md");
		assert!(
			readme.contains("about half a minute on two cores, 89 MiB"),
			"the README's figures changed: change the help too"
		);
	}

	#[test]
	fn a_negative_time_is_refused_as_a_time() {
		let error = Cli::try_parse_from(["tui", "--time", "-1"]).expect_err("refused");
		let text = error.to_string();
		assert!(text.contains("is not a thinking time"), "{text}");
		assert!(Cli::try_parse_from(["tui", "--time", "0.5"]).is_ok());
	}

	/// Every command line of the README and docs/*.md that runs `tui` parses
	/// (which lines are command lines is `tigers_process::doc_commands`'s rule), and a misspelt
	/// flag would not.
	#[test]
	fn the_documented_command_lines_parse() {
		doc_commands::assert_documented_commands_parse(
			"tui",
			include_str!("../../README.md"),
			Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs")),
			8,
			"cargo run --release --bin tui -- tablebase biuld",
			|words| Cli::try_parse_from(words).map(drop),
		);
	}
}
