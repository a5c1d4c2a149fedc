//! Saving a game to a record file and loading one, in core's text format (`GameRecord`), from
//! a record file or from a file of many: a run's game archive (`tigers_proto::games`) or
//! records written one after another.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;
use tigers_core::record::{PlayerName, split_records};
use tigers_core::{Game, GameRecord, RecordError};
use tigers_process::dates::UtcTime;
use tigers_proto::games::{GamesError, records_text};

/// Why a record file could not be written or read.
#[derive(Debug, Error)]
pub enum RecordIoError {
	/// The file could not be read.
	#[error("cannot read the record {path}: {source}")]
	Read {
		/// The file.
		path: PathBuf,
		/// What the system said.
		source: io::Error,
	},
	/// The file is not a record, or its moves do not replay; the message names the line (and
	/// the game, in a file of many).
	#[error(
		"{} is not a game record this program can continue: {}{source}",
		path.display(),
		game_in_file(*number)
	)]
	Invalid {
		/// The file.
		path: PathBuf,
		/// The game's number in the file, from 1.
		number: usize,
		/// What is wrong, and on which line of the record.
		source: RecordError,
	},
	/// The file is a damaged archive, or not text at all.
	#[error("cannot read games from {}: {source}", path.display())]
	Archive {
		/// The file.
		path: PathBuf,
		/// What is wrong with it.
		source: GamesError,
	},
	/// The file holds no game.
	#[error("{} holds no game record", path.display())]
	NoGames {
		/// The file.
		path: PathBuf,
	},
	/// The file holds many games and none was chosen.
	#[error(
		"{} holds {count} games; choose one with --game N (1 to {count}), and see them listed \
		 with `tui games {}`",
		path.display(),
		path.display()
	)]
	WhichGame {
		/// The file.
		path: PathBuf,
		/// How many games it holds.
		count: usize,
	},
	/// The chosen game is not in the file.
	#[error("{} holds {count} games, so there is no game {number}", path.display())]
	NoSuchGame {
		/// The file.
		path: PathBuf,
		/// The number asked for.
		number: usize,
		/// How many games it holds.
		count: usize,
	},
	/// The file could not be written.
	#[error("cannot write the record {path}: {source}")]
	Write {
		/// The file.
		path: PathBuf,
		/// What the system said.
		source: io::Error,
	},
}

/// Writes `game` to `path` as a record naming its players (names that cannot go in a record,
/// such as empty ones, are left out).
pub fn save(path: &Path, game: &Game, sheep: &str, tigers: &str) -> Result<(), RecordIoError> {
	let record = GameRecord {
		sheep_player: PlayerName::new(sheep).ok(),
		tigers_player: PlayerName::new(tigers).ok(),
		..GameRecord::from_game(game)
	};
	let write_error = |source| RecordIoError::Write {
		path: path.to_path_buf(),
		source,
	};
	if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
		std::fs::create_dir_all(dir).map_err(write_error)?;
	}
	std::fs::write(path, record.to_text()).map_err(write_error)
}

/// The file name a game started at `now` is saved under by default:
/// `game-YYYY-MM-DD-HHMMSS.txt`, in UTC, so that games sort by when they were played.
pub fn default_file_name(now: std::time::SystemTime) -> String {
	let at = UtcTime::from_system_time(now);
	format!(
		"game-{}-{:02}{:02}{:02}.txt",
		at.date, at.hour, at.minute, at.second
	)
}

/// "game N: " for a game after the first, which only a file of many has.
fn game_in_file(number: usize) -> String {
	if number > 1 {
		format!("game {number}: ")
	} else {
		String::new()
	}
}

/// The records' texts in the file at `path` (an archive, records one after another, or one).
fn record_texts(path: &Path) -> Result<String, RecordIoError> {
	let bytes = std::fs::read(path).map_err(|source| RecordIoError::Read {
		path: path.to_path_buf(),
		source,
	})?;
	records_text(&bytes).map_err(|source| RecordIoError::Archive {
		path: path.to_path_buf(),
		source,
	})
}

/// Reads the only record in the file at `path` and replays it into a game.
pub fn load(path: &Path) -> Result<(GameRecord, Game), RecordIoError> {
	load_game(path, None)
}

/// Reads game `number` (from 1) of the file at `path`, or its only game if `None`, and replays
/// it into a game. Only the chosen record is read, so one damaged game does not hide the rest.
pub fn load_game(path: &Path, number: Option<usize>) -> Result<(GameRecord, Game), RecordIoError> {
	let text = record_texts(path)?;
	let records: Vec<&str> = split_records(&text).collect();
	let count = records.len();
	let number = match number {
		_ if count == 0 => {
			return Err(RecordIoError::NoGames {
				path: path.to_path_buf(),
			});
		}
		None if count == 1 => 1,
		None => {
			return Err(RecordIoError::WhichGame {
				path: path.to_path_buf(),
				count,
			});
		}
		Some(number) if (1..=count).contains(&number) => number,
		Some(number) => {
			return Err(RecordIoError::NoSuchGame {
				path: path.to_path_buf(),
				number,
				count,
			});
		}
	};
	let record =
		GameRecord::from_text(records[number - 1]).map_err(|source| RecordIoError::Invalid {
			path: path.to_path_buf(),
			number,
			source,
		})?;
	// `from_text` has replayed the moves already, so this replay refuses nothing.
	let (game, _) = record.replay();
	Ok((record, game))
}

/// The games of the file at `path`, a line each (number, generation, seed, moves, result),
/// then a count; and whether every game read. A game that does not read is listed with why.
pub fn list_games(path: &Path) -> Result<(String, bool), RecordIoError> {
	let text = record_texts(path)?;
	let mut listing = String::new();
	let mut all_read = true;
	let mut count = 0;
	for (index, record) in split_records(&text).enumerate() {
		count += 1;
		let number = index + 1;
		let line = match GameRecord::from_text(record) {
			Ok(record) => describe(&record),
			Err(e) => {
				all_read = false;
				format!("does not read: {e}")
			}
		};
		writeln!(listing, "{number:>6}  {line}").expect("writing to a String cannot fail");
	}
	let games = if count == 1 { "game" } else { "games" };
	writeln!(listing, "{count} {games} in {}", path.display())
		.expect("writing to a String cannot fail");
	Ok((listing, all_read))
}

/// One game's line in a listing.
fn describe(record: &GameRecord) -> String {
	let generation = record
		.generation
		.map_or_else(|| "-".to_string(), |g| g.to_string());
	let seed = record
		.seed
		.map_or_else(|| "-".repeat(16), |s| format!("{s:016x}"));
	let result = record.result.map_or("*", tigers_core::Outcome::code);
	format!(
		"generation {generation:>4}  seed {seed}  {:>3} moves  {result}",
		record.moves.len()
	)
}

#[cfg(test)]
mod tests {
	use super::*;
	use std::time::{Duration, UNIX_EPOCH};

	#[test]
	fn default_names_carry_the_utc_date_and_time() {
		let at = |seconds| UNIX_EPOCH + Duration::from_secs(seconds);
		assert_eq!(default_file_name(at(0)), "game-1970-01-01-000000.txt");
		// 2024-02-29 12:34:56 UTC, a leap day.
		assert_eq!(
			default_file_name(at(1_709_210_096)),
			"game-2024-02-29-123456.txt"
		);
		// 2026-12-01 00:00:00 UTC.
		assert_eq!(
			default_file_name(at(1_796_083_200)),
			"game-2026-12-01-000000.txt"
		);
	}
}
