//! The `tui` binary: parses the command line, then plays a game on the terminal, runs the
//! engine protocol on stdin and stdout, or shows a coordinator's training dashboard.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use tigers_tui::dashboard::FeedSettings;
use tigers_tui::net_source::{ClientSettings, DEFAULT_COORDINATOR, DEFAULT_RUN_DIR, NetSource};
use tigers_tui::setup::{PlayConfig, PlayerKind};

/// Play Tigers and Sheep in the terminal, against the latest net by default.
#[derive(Debug, Parser)]
#[command(name = "tui", version, args_conflicts_with_subcommands = true)]
struct Cli {
	#[command(flatten)]
	play: PlayArgs,
	/// The run's token, for talking to a coordinator (fetching a net, the dashboard).
	#[arg(
		long,
		value_name = "T",
		env = "TIGERS_TOKEN",
		hide_env_values = true,
		global = true
	)]
	token: Option<String>,
	/// PEM certificate to trust for an https coordinator.
	#[arg(long, value_name = "FILE", global = true)]
	tls_ca: Option<PathBuf>,
	#[command(subcommand)]
	command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
	/// Read commands on stdin and answer on stdout (see docs/engine-protocol.md).
	Engine,
	/// Watch a coordinator's training run live.
	Dashboard {
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
	},
}

#[derive(Debug, Args)]
struct PlayArgs {
	/// Who plays the sheep: human, claude or net.
	#[arg(long, value_name = "KIND", default_value = "human")]
	sheep: PlayerKind,
	/// Who plays the tigers: human, claude or net.
	#[arg(long, value_name = "KIND", default_value = "net")]
	tiger: PlayerKind,
	/// Seconds a computer player may think about a move.
	#[arg(long, value_name = "SECS", default_value_t = 2.0, value_parser = parse_seconds)]
	time: f64,
	/// The net: a safetensors file, or a coordinator's URL to fetch its latest promoted net
	/// [default: the newest in --run-dir, else the coordinator at http://127.0.0.1:50051].
	#[arg(long, value_name = "PATH|URL")]
	net: Option<String>,
	/// The run directory to take the newest net from.
	#[arg(long, value_name = "DIR", default_value = DEFAULT_RUN_DIR)]
	run_dir: PathBuf,
	/// A game record to continue (or step through with the arrow keys).
	#[arg(long, value_name = "FILE")]
	load: Option<PathBuf>,
	/// Where `w` writes the game's record.
	#[arg(long, value_name = "FILE", default_value = tigers_tui::app::DEFAULT_SAVE_PATH)]
	save: PathBuf,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
	match text.parse::<f64>() {
		Ok(secs) if secs > 0.0 && secs <= 3600.0 => Ok(secs),
		_ => Err(format!(
			"{text:?} is not a number of seconds from 0 to 3600"
		)),
	}
}

fn main() -> anyhow::Result<()> {
	let cli = Cli::parse();
	let client = ClientSettings {
		token: cli.token,
		tls_ca: cli.tls_ca,
	};
	match cli.command {
		Some(Command::Engine) => {
			return tigers_tui::engine::run(io::stdin().lock(), io::stdout().lock(), client)
				.context("the engine's input or output failed");
		}
		Some(Command::Dashboard {
			connect,
			interval_ms,
			record,
			replay,
		}) => {
			let interval = Duration::from_millis(u64::from(interval_ms));
			if let Some(path) = replay {
				return tigers_tui::dashboard::remote::replay(&path, interval);
			}
			let settings = FeedSettings {
				url: connect,
				client,
				interval,
			};
			return tigers_tui::dashboard::remote::watch(settings, record.as_deref());
		}
		None => {}
	}
	let args = cli.play;
	let config = PlayConfig {
		sheep: args.sheep,
		tigers: args.tiger,
		time_limit: Duration::from_secs_f64(args.time),
		net: args.net.as_deref().map(NetSource::parse),
		run_dir: args.run_dir,
		coordinator: DEFAULT_COORDINATOR.to_string(),
		client,
		load: args.load,
		save: args.save,
	};
	let mut setup = tigers_tui::setup::build(&config)?;
	tigers_tui::terminal::play(&mut setup.app).context("the terminal failed")?;
	let game = setup.app.game();
	match game.outcome() {
		Some(outcome) => println!("{outcome}, after {} moves", game.history().len()),
		None => println!("unfinished after {} moves", game.history().len()),
	}
	if let Some(why) = setup.no_net_because {
		eprintln!("played Claude instead of a net: {why}");
	}
	Ok(())
}
