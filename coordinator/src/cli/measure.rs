//! `coordinator measure`: a net file (or the perfect player) measured at equal time per move
//! against ClaudePlayer, the perfect player or another net, as a run measures its promoted
//! nets, with the tables found as `TableSource` says.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;
use clap::builder::RangedU64ValueParser;
use tigers_coordinator::config::TimedSettings;
use tigers_coordinator::{MeasureSettings, Measured, Opponent, TableError, TableSource, measure};
use tigers_core::gate::{GateSettings, TableRole, Tables};
use tigers_core::tablebase::Tablebase;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_process::console;
use tigers_process::signal::shutdown_signal;
use tigers_widgets::progress_bar;

use crate::cli::common::{Failure, one_of, print_out, run_defaults};

#[derive(Args)]
pub(crate) struct MeasureArgs {
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
	/// What to measure and how; an error if the command line names two opponents.
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
			console::err(format_args!(
				"coordinator measure: no tablebase at {} (solve it with `tui tablebase build`); \
				 the moves are not judged",
				path.display()
			));
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

/// Measures a net file (or the perfect player) and prints the result.
pub(crate) async fn run(args: MeasureArgs) -> Result<(), Failure> {
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

#[cfg(test)]
mod tests {
	use tigers_coordinator::config::RunSettings;
	use tigers_core::gate::TableRole;

	use super::*;
	use crate::Command;
	use crate::tests::{assert_refused, parse};

	/// The settings `coordinator measure` takes from `args`, or why not.
	fn settings_of(args: &[&str]) -> Result<MeasureSettings, String> {
		let words: Vec<&str> = ["coordinator", "measure"]
			.iter()
			.chain(args)
			.copied()
			.collect();
		let Some(Command::Measure(args)) = parse(&words).command else {
			panic!("the measure command");
		};
		args.settings()
	}

	#[test]
	fn measure_plays_a_runs_measurement_by_default() {
		let settings = settings_of(&["net.safetensors"]).expect("the defaults are valid");
		assert_eq!(settings.timed, RunSettings::default().timed);
		assert_eq!(settings.gate, RunSettings::default().gate);
		assert_eq!((settings.threads, settings.generation), (1, None));
		assert_eq!(settings.timed.tablebase, TableRole::Play);
		assert_eq!(settings.measured, Measured::Net("net.safetensors".into()));
		assert_eq!(settings.against, Opponent::Claude);
		let settings = settings_of(&["--perfect"]).unwrap();
		assert_eq!(settings.measured, Measured::Perfect);
		assert!(settings.needs_placement());
		let settings = settings_of(&["n", "--measure-tablebase", "judge"]).unwrap();
		assert_eq!(settings.timed.tablebase, TableRole::Judge);
		assert_eq!(
			settings_of(&["n", "--against-net", "old.safetensors"])
				.unwrap()
				.against,
			Opponent::Net("old.safetensors".into())
		);
		let both = settings_of(&["n", "--against", "perfect", "--against-net", "old"]).unwrap_err();
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
}
