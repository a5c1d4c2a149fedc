//! `coordinator measure`: a net file measured at equal time per move against `ClaudePlayer`,
//! the way a run measures each promoted net, but outside a run: a run's best net given more
//! pairs after the run, or any net on a machine of its own. With the placement phase solved, the
//! perfect player can take either side: measured against `ClaudePlayer` it gives the ceiling a
//! net's score can reach, and as the opponent it finds every value a net gives away; the layers
//! also judge both players' placement-phase moves.
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
use tigers_core::gate::{
	Contender, GateSettings, GateTally, Reference, TableRole, Tables, play_match,
};
use tigers_core::network::file::NetFileError;
use tigers_core::tablebase::Accuracy;
use tigers_core::tablebase::placement::PlacementTable;

use crate::config::TimedSettings;
use crate::store::rundir::parse_net_file_name;
use crate::training::timed::settings_for;

/// Who is measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measured {
	/// A net file (safetensors, as a run's `nets/` holds them).
	Net(PathBuf),
	/// The perfect player (the solved placement phase and the movement table).
	Perfect,
}

/// Who the measured player meets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Opponent {
	/// `ClaudePlayer`, as a run measures its nets.
	#[default]
	Claude,
	/// The perfect player.
	Perfect,
	/// Another net file, searching on the same time with its own evaluation: two nets of a
	/// run head to head, to see whether the later one is stronger where `ClaudePlayer` cannot
	/// tell them apart.
	Net(PathBuf),
}

impl Opponent {
	/// The names `--against` takes (a net is `--against-net FILE`).
	pub const NAMES: [&'static str; 2] = ["claude", "perfect"];
}

impl std::str::FromStr for Opponent {
	type Err = String;

	fn from_str(text: &str) -> Result<Opponent, String> {
		match text {
			"claude" => Ok(Opponent::Claude),
			"perfect" => Ok(Opponent::Perfect),
			_ => Err(format!("{text:?} is not one of claude, perfect")),
		}
	}
}

/// What to measure and how.
#[derive(Clone, Debug)]
pub struct MeasureSettings {
	/// Who is measured.
	pub measured: Measured,
	/// Who it meets.
	pub against: Opponent,
	/// Time a move, pairs and the tablebase's role, as a run's measurement takes them.
	pub timed: TimedSettings,
	/// Games played at once.
	pub threads: usize,
	/// Whose openings to play: a run measuring generation `g` plays those of `g`. By default
	/// the generation a net file's name gives, else 0.
	pub generation: Option<u64>,
	/// The gate whose openings and ply cap the match takes.
	pub gate: GateSettings,
}

impl MeasureSettings {
	/// The generation whose openings are played.
	pub fn generation(&self) -> u64 {
		self.generation.unwrap_or_else(|| match &self.measured {
			Measured::Net(path) => path
				.file_name()
				.and_then(|name| name.to_str())
				.and_then(parse_net_file_name)
				.unwrap_or(0),
			Measured::Perfect => 0,
		})
	}

	/// Whether the match needs the whole placement phase solved.
	pub fn needs_placement(&self) -> bool {
		self.measured == Measured::Perfect || self.against == Opponent::Perfect
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
	/// The perfect player was asked for without both solved phases.
	#[error(
		"the perfect player needs the movement table and every placement layer: \
		 `tui tablebase build` and `tui tablebase build --placement` solve them"
	)]
	NoPerfectPlay,
}

/// A finished measurement.
#[derive(Clone, Debug)]
pub struct Measurement {
	/// Who was measured.
	pub measured: Measured,
	/// Who it met.
	pub against: Opponent,
	/// The net's sha256, as runs and workers name nets; `None` for the perfect player.
	pub sha256: Option<String>,
	/// Whose openings were played.
	pub generation: u64,
	/// As measured with.
	pub timed: TimedSettings,
	/// Games played at once.
	pub threads: usize,
	/// What the tablebase did: `None` if there was none.
	pub tablebase: Option<TableRole>,
	/// Whether placement layers judged the placement-phase moves (those in a layer present).
	pub placement_judged: bool,
	/// The results.
	pub tally: GateTally,
	/// Wall-clock time it took.
	pub seconds: f64,
}

/// Plays the measurement, with `tables.movement` (if any) in the role
/// `settings.timed.tablebase` gives it and `tables.placement` judging the placement-phase moves
/// in the layers it has (a perfect player needs them all); `go_on` is asked before every move, `on_pair` told the pairs finished
/// after each one.
pub fn measure(
	settings: &MeasureSettings,
	tables: Tables<'_>,
	go_on: &(dyn Fn() -> bool + Sync),
	on_pair: &(dyn Fn(u32) + Sync),
) -> Result<Measurement, MeasureError> {
	// The layers judge where they are present; the perfect player needs all of them.
	let layers = tables.placement.filter(|_| tables.movement.is_some());
	let perfect = || -> Result<Arc<PlacementTable>, MeasureError> {
		layers
			.filter(|placement| placement.is_complete())
			.cloned()
			.ok_or(MeasureError::NoPerfectPlay)
	};
	let (contender, sha256) = match &settings.measured {
		Measured::Net(path) => {
			let net = load(path)?;
			let sha256 = net.sha256();
			(Contender::Net(net), Some(sha256))
		}
		Measured::Perfect => (Contender::Perfect(perfect()?), None),
	};
	let reference = match &settings.against {
		Opponent::Claude => Reference::Claude,
		Opponent::Perfect => Reference::Perfect(perfect()?),
		Opponent::Net(path) => Reference::Net(load(path)?),
	};
	let generation = settings.generation();
	let gate = settings_for(&settings.gate, &settings.timed, generation);
	let judging = Tables {
		movement: tables.movement,
		placement: layers,
	};
	let started = Instant::now();
	let tally = play_match(
		&contender,
		&reference,
		&gate,
		judging,
		settings.threads,
		go_on,
		on_pair,
	)
	.ok_or(MeasureError::Stopped)?;
	Ok(Measurement {
		measured: settings.measured.clone(),
		against: settings.against.clone(),
		sha256,
		generation,
		timed: settings.timed,
		threads: settings.threads,
		tablebase: tables.movement.map(|_| settings.timed.tablebase),
		placement_judged: layers.is_some(),
		tally,
		seconds: started.elapsed().as_secs_f64(),
	})
}

impl Measurement {
	/// What the lines call the measured player.
	fn player(&self) -> &'static str {
		match self.measured {
			Measured::Net(_) => "the net",
			Measured::Perfect => "the perfect player",
		}
	}

	/// What the lines call its opponent.
	fn opponent(&self) -> String {
		match &self.against {
			Opponent::Claude => "ClaudePlayer".to_string(),
			Opponent::Perfect => "the perfect player".to_string(),
			Opponent::Net(path) => format!("the net {}", path.display()),
		}
	}
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
		self.write_match(f)?;
		self.write_score(f)?;
		self.write_exact(f)?;
		self.write_placement(f)
	}
}

impl Measurement {
	/// Who played whom, how, and for how long.
	fn write_match(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		match (&self.measured, &self.sha256) {
			(Measured::Net(path), Some(sha256)) => {
				writeln!(f, "net {} (sha256 {sha256})", path.display())?;
			}
			_ => writeln!(
				f,
				"the perfect player (ClaudePlayer's search among the value-keeping moves)"
			)?,
		}
		writeln!(
			f,
			"{} pairs against {} at {} ms a move, the openings of generation {}, \
			 {} at a time, {:.0} s",
			self.tally.pairs.pairs(),
			self.opponent(),
			self.timed.move_time.as_millis(),
			self.generation,
			games(self.threads),
			self.seconds
		)
	}

	/// The games by side, and the score and Elo with their intervals.
	fn write_score(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		let t = &self.tally;
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
				"{} pairs are too few for the score to mean much: play {} or more (--pairs)",
				t.pairs.pairs(),
				tigers_core::stats::FEW_PAIRS
			)?;
		}
		Ok(())
	}

	/// What the tablebase did, and the movement-phase moves that kept the exact result.
	fn write_exact(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		writeln!(f, "{}", table_sentence(self.tablebase))?;
		if self.tablebase.is_none() {
			return writeln!(f, "exact result kept: not judged (no tablebase)");
		}
		let t = &self.tally;
		writeln!(
			f,
			"exact result kept: {} {}, {} {}",
			self.player(),
			kept(t.candidate_accuracy, "movement"),
			self.opponent(),
			kept(t.reference_accuracy, "movement")
		)?;
		let games = 2 * t.pairs.pairs();
		writeln!(
			f,
			"movement moves that gave value away, per game: {} {}, {} {}",
			self.player(),
			lost_per_game(t.candidate_accuracy, games),
			self.opponent(),
			lost_per_game(t.reference_accuracy, games)
		)
	}

	/// The placement-phase moves that kept the value, and those that gave it away; the last
	/// line, with no newline.
	fn write_placement(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		if !self.placement_judged {
			return write!(f, "placement value kept: not judged (no placement layers)");
		}
		let t = &self.tally;
		writeln!(
			f,
			"placement value kept: {} {}, {} {}",
			self.player(),
			kept(t.candidate_placement, "placement"),
			self.opponent(),
			kept(t.reference_placement, "placement")
		)?;
		let games = 2 * t.pairs.pairs();
		writeln!(
			f,
			"placement moves that gave value away, per game: {} {}, {} {}",
			self.player(),
			lost_per_game(t.candidate_placement, games),
			self.opponent(),
			lost_per_game(t.reference_placement, games)
		)?;
		// Both phases together, where both were judged: the grade against the perfect player.
		let whole = |placement: Accuracy, movement: Accuracy| {
			let judged = if self.tablebase.is_some() {
				placement.plus(movement)
			} else {
				placement
			};
			lost_per_game(judged, games)
		};
		write!(
			f,
			"values given away per game, {}: {} {}, {} {}",
			if self.tablebase.is_some() {
				"both phases"
			} else {
				"the placement phase only (no tablebase)"
			},
			self.player(),
			whole(t.candidate_placement, t.candidate_accuracy),
			self.opponent(),
			whole(t.reference_placement, t.reference_accuracy)
		)
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

/// The moves of `accuracy` that lost value, over `games` games, to two places.
fn lost_per_game(accuracy: Accuracy, games: u32) -> String {
	let lost = accuracy.moves.saturating_sub(accuracy.kept);
	format!("{:.2}", f64::from(lost) / f64::from(games.max(1)))
}

fn kept(accuracy: Accuracy, phase: &str) -> String {
	if accuracy.moves == 0 {
		return format!("no {phase}-phase moves");
	}
	format!(
		"{:.2}% of {} {phase}-phase moves",
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
			measured: Measured::Net(net),
			against: Opponent::Claude,
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
		let measured = measure(
			&settings(path.clone(), 2),
			Tables::default(),
			&|| true,
			&|_| {},
		)
		.unwrap();
		assert_eq!(measured.generation, 7);
		assert_eq!(measured.sha256, Some(net.sha256()));
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
		assert!(
			text.contains("placement value kept: not judged (no placement layers)"),
			"{text}"
		);
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
		let error = measure(
			&settings(path.clone(), 1),
			Tables::default(),
			&|| true,
			&|_| {},
		)
		.unwrap_err();
		assert!(
			error.to_string().contains(&path.display().to_string()),
			"{error}"
		);
		let error = measure(
			&settings(dir.path().join("missing"), 1),
			Tables::default(),
			&|| true,
			&|_| {},
		)
		.unwrap_err();
		assert!(error.to_string().contains("missing"), "{error}");
	}

	#[test]
	fn the_perfect_player_needs_both_solved_phases() {
		let dir = TestDir::new("measure");
		let path = dir.path().join("net.safetensors");
		Network::new(Shape::default(), 1).save(&path).unwrap();
		let mut perfect = settings(path.clone(), 1);
		perfect.measured = Measured::Perfect;
		let mut against = settings(path, 1);
		against.against = Opponent::Perfect;
		for wanted in [perfect, against] {
			assert!(wanted.needs_placement());
			let error = measure(&wanted, Tables::default(), &|| true, &|_| {}).unwrap_err();
			assert!(matches!(error, MeasureError::NoPerfectPlay), "{error}");
			assert!(error.to_string().contains("--placement"), "{error}");
		}
		assert_eq!("perfect".parse(), Ok(Opponent::Perfect));
		assert!("gnubg".parse::<Opponent>().unwrap_err().contains("claude"));
	}

	#[test]
	fn a_net_can_be_measured_against_another_net_file() {
		let dir = TestDir::new("measure");
		let shape = Shape {
			hidden1: 16,
			hidden2: 8,
		};
		let (first, second) = (
			dir.path().join("gen-000003.safetensors"),
			dir.path().join("gen-000009.safetensors"),
		);
		Network::new(shape, 3).save(&first).unwrap();
		Network::new(shape, 9).save(&second).unwrap();
		let mut other = settings(second.clone(), 1);
		other.against = Opponent::Net(first.clone());
		let measured = measure(&other, Tables::default(), &|| true, &|_| {}).unwrap();
		assert_eq!(measured.tally.pairs.pairs(), 3);
		assert_eq!(measured.against, Opponent::Net(first.clone()));
		let text = measured.to_string();
		assert!(
			text.contains(&format!("3 pairs against the net {}", first.display())),
			"{text}"
		);
		// A file that is not a net is refused with its path, as the measured one is.
		other.against = Opponent::Net(dir.path().join("missing"));
		let error = measure(&other, Tables::default(), &|| true, &|_| {}).unwrap_err();
		assert!(error.to_string().contains("missing"), "{error}");
	}

	#[test]
	fn a_stop_leaves_no_measurement() {
		let dir = TestDir::new("measure");
		let path = dir.path().join("net.safetensors");
		Network::new(Shape::default(), 1).save(&path).unwrap();
		let error = measure(&settings(path, 2), Tables::default(), &|| false, &|_| {}).unwrap_err();
		assert!(matches!(error, MeasureError::Stopped), "{error}");
	}
}
