//! `coordinator measure`: a net file measured at equal time per move against `ClaudePlayer`,
//! the way a run measures each promoted net, but outside a run: a run's best net given more
//! pairs after the run, or any net on a machine of its own.
//!
//! The match is the run's (`timed::settings_for`): the gate's openings and ply cap, both
//! players on the same clock, every pair played, the openings a run draws for that generation,
//! and by default the tablebase in play for both players, as in `tui`.
//! Several games may be played at once, one per thread; each game then needs a core of its
//! own, or both players get less time than they are told.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;
use tigers_core::Network;
use tigers_core::gate::{GateSettings, GateTally, TableRole, play_gate_match};
use tigers_core::network::file::NetFileError;
use tigers_core::tablebase::{Accuracy, Tablebase};

use crate::config::TimedSettings;
use crate::rundir::parse_net_file_name;
use crate::timed::settings_for;

/// What to measure and how.
#[derive(Clone, Debug)]
pub struct MeasureSettings {
	/// The net file (safetensors, as a run's `nets/` holds them).
	pub net: PathBuf,
	/// Time a move, pairs and the tablebase's role, as a run's measurement takes them.
	pub timed: TimedSettings,
	/// Games played at once.
	pub threads: usize,
	/// Whose openings to play: a run measuring generation `g` plays those of `g`. By default
	/// the generation the file's name gives, else 0.
	pub generation: Option<u64>,
	/// The gate whose openings and ply cap the match takes.
	pub gate: GateSettings,
}

impl MeasureSettings {
	/// The generation whose openings are played.
	pub fn generation(&self) -> u64 {
		self.generation.unwrap_or_else(|| {
			self.net
				.file_name()
				.and_then(|name| name.to_str())
				.and_then(parse_net_file_name)
				.unwrap_or(0)
		})
	}
}

/// Why a measurement could not be made.
#[derive(Debug, Error)]
pub enum MeasureError {
	/// The net file could not be read or is not a net.
	#[error("cannot use the net {path}: {source}")]
	Net {
		/// The file.
		path: String,
		/// Why.
		source: NetFileError,
	},
	/// Stopped before every pair was played.
	#[error("stopped before the measurement was finished")]
	Stopped,
}

/// A finished measurement.
#[derive(Clone, Debug)]
pub struct Measurement {
	/// The net file.
	pub net: PathBuf,
	/// Its sha256, as runs and workers name nets.
	pub sha256: String,
	/// Whose openings were played.
	pub generation: u64,
	/// As measured with.
	pub timed: TimedSettings,
	/// Games played at once.
	pub threads: usize,
	/// What the tablebase did: `None` if there was none.
	pub tablebase: Option<TableRole>,
	/// The results.
	pub tally: GateTally,
	/// Wall-clock time it took.
	pub seconds: f64,
}

/// Plays the measurement, with `table` (if any) in the role `settings.timed.tablebase` gives
/// it; `go_on` is asked before every move, `on_pair` told the pairs finished after each one.
pub fn measure(
	settings: &MeasureSettings,
	table: Option<&Arc<Tablebase>>,
	go_on: &(dyn Fn() -> bool + Sync),
	on_pair: &(dyn Fn(u32) + Sync),
) -> Result<Measurement, MeasureError> {
	let net = load(&settings.net)?;
	let generation = settings.generation();
	let gate = settings_for(&settings.gate, &settings.timed, generation);
	let started = Instant::now();
	let tally = play_gate_match(&net, &gate, table, settings.threads, go_on, on_pair)
		.ok_or(MeasureError::Stopped)?;
	Ok(Measurement {
		net: settings.net.clone(),
		sha256: net.sha256(),
		generation,
		timed: settings.timed,
		threads: settings.threads,
		tablebase: table.map(|_| settings.timed.tablebase),
		tally,
		seconds: started.elapsed().as_secs_f64(),
	})
}

fn load(path: &Path) -> Result<Arc<Network>, MeasureError> {
	Network::load(path)
		.map(Arc::new)
		.map_err(|source| MeasureError::Net {
			path: path.display().to_string(),
			source,
		})
}

impl fmt::Display for Measurement {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		let t = &self.tally;
		let pairs = t.pairs.pairs();
		writeln!(f, "net {} (sha256 {})", self.net.display(), self.sha256)?;
		writeln!(
			f,
			"{pairs} pairs against ClaudePlayer at {} ms a move, the openings of generation {}, \
			 {} at a time, {:.0} s",
			self.timed.move_time.as_millis(),
			self.generation,
			games(self.threads),
			self.seconds
		)?;
		let side =
			|s: tigers_core::versus::SideResult| format!("{}-{}-{}", s.wins, s.draws, s.losses);
		writeln!(
			f,
			"as sheep W-D-L {}, as tigers W-D-L {}",
			side(t.by_side.as_sheep),
			side(t.by_side.as_tigers)
		)?;
		let estimate = t.pairs.adjusted_estimate();
		let elo = estimate.elo();
		writeln!(
			f,
			"score {:.3} [{:.3}, {:.3}], Elo {:+.0} [{:+.0}, {:+.0}] (95%)",
			estimate.score, estimate.low, estimate.high, elo.elo, elo.low, elo.high
		)?;
		if t.pairs.has_few_pairs() {
			writeln!(
				f,
				"{pairs} pairs are too few for the score to mean much: play {} or more (--pairs)",
				tigers_core::stats::FEW_PAIRS
			)?;
		}
		writeln!(f, "{}", table_sentence(self.tablebase))?;
		if self.tablebase.is_some() {
			write!(
				f,
				"exact result kept: the net {}, ClaudePlayer {}",
				kept(t.candidate_accuracy),
				kept(t.reference_accuracy)
			)
		} else {
			write!(f, "exact result kept: not judged (no tablebase)")
		}
	}
}

/// What the tablebase did in the games, as a sentence.
fn table_sentence(tablebase: Option<TableRole>) -> &'static str {
	match tablebase {
		Some(TableRole::Play) => {
			"tablebase: in play for both players (as in tui), and judging their moves"
		}
		Some(TableRole::Judge) => {
			"tablebase: judging the moves only; neither player searched with it"
		}
		None => "tablebase: none",
	}
}

fn games(threads: usize) -> String {
	if threads == 1 {
		"one game".to_string()
	} else {
		format!("{threads} games")
	}
}

fn kept(accuracy: Accuracy) -> String {
	if accuracy.moves == 0 {
		return "no movement-phase moves".to_string();
	}
	format!(
		"{:.2}% of {} movement-phase moves",
		100.0 * f64::from(accuracy.kept) / f64::from(accuracy.moves),
		accuracy.moves
	)
}

#[cfg(test)]
mod tests {
	use std::time::Duration;

	use tigers_core::network::Shape;
	use tigers_core::search::SearchSettings;

	use super::*;
	use crate::test_support::TestDir;

	fn settings(net: PathBuf, threads: usize) -> MeasureSettings {
		MeasureSettings {
			net,
			timed: TimedSettings {
				move_time: Duration::from_millis(2),
				pairs: 3,
				tablebase: TableRole::Play,
			},
			threads,
			generation: None,
			gate: GateSettings {
				search: SearchSettings::fixed_depth(2),
				max_plies: 60,
				..GateSettings::default()
			},
		}
	}

	#[test]
	fn a_net_file_is_measured_on_every_pair_with_its_generations_openings() {
		let dir = TestDir::new("measure");
		let path = dir.path().join("gen-000007.safetensors");
		let net = Network::new(
			Shape {
				hidden1: 16,
				hidden2: 8,
			},
			5,
		);
		net.save(&path).unwrap();
		let measured = measure(&settings(path.clone(), 2), None, &|| true, &|_| {}).unwrap();
		assert_eq!(measured.generation, 7);
		assert_eq!(measured.sha256, net.sha256());
		assert_eq!(measured.tally.pairs.pairs(), 3);
		assert_eq!(measured.tally.by_side.as_sheep.games(), 3);
		let text = measured.to_string();
		assert!(
			text.contains("3 pairs against ClaudePlayer at 2 ms a move"),
			"{text}"
		);
		assert!(
			text.contains("the openings of generation 7, 2 games at a time"),
			"{text}"
		);
		assert!(text.contains("not judged (no tablebase)"), "{text}");
		assert!(text.contains("tablebase: none"), "{text}");
		assert_eq!(measured.tablebase, None);
		assert!(text.contains("3 pairs are too few"), "{text}");
		let other = MeasureSettings {
			generation: Some(3),
			..settings(path, 1)
		};
		assert_eq!(other.generation(), 3);
		assert_eq!(
			settings(dir.path().join("best.safetensors"), 1).generation(),
			0
		);
	}

	#[test]
	fn the_measurement_says_what_the_tablebase_did() {
		assert!(table_sentence(Some(TableRole::Play)).contains("in play for both players"));
		assert!(table_sentence(Some(TableRole::Judge)).contains("judging the moves only"));
	}

	#[test]
	fn a_file_that_is_not_a_net_is_refused_with_its_path() {
		let dir = TestDir::new("measure");
		let path = dir.path().join("gen-000001.safetensors");
		std::fs::write(&path, b"not a net").unwrap();
		let error = measure(&settings(path.clone(), 1), None, &|| true, &|_| {}).unwrap_err();
		assert!(
			error.to_string().contains(&path.display().to_string()),
			"{error}"
		);
		let error = measure(
			&settings(dir.path().join("missing"), 1),
			None,
			&|| true,
			&|_| {},
		)
		.unwrap_err();
		assert!(error.to_string().contains("missing"), "{error}");
	}

	#[test]
	fn a_stop_leaves_no_measurement() {
		let dir = TestDir::new("measure");
		let path = dir.path().join("net.safetensors");
		Network::new(Shape::default(), 1).save(&path).unwrap();
		let error = measure(&settings(path, 2), None, &|| false, &|_| {}).unwrap_err();
		assert!(matches!(error, MeasureError::Stopped), "{error}");
	}
}
