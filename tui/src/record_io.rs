//! Saving a game to a record file and loading one, in core's text format (`GameRecord`).

use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;
use tigers_core::record::PlayerName;
use tigers_core::{Game, GameRecord, RecordError};

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
	/// The file is not a record, or its moves do not replay; the message names the line.
	#[error("{path} is not a game record this program can continue: {source}")]
	Invalid {
		/// The file.
		path: PathBuf,
		/// What is wrong, and on which line.
		source: RecordError,
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
	let seconds = now
		.duration_since(std::time::UNIX_EPOCH)
		.map_or(0, |d| d.as_secs());
	let (days, of_day) = (seconds / 86_400, seconds % 86_400);
	let (year, month, day) = civil_date(days);
	format!(
		"game-{year:04}-{month:02}-{day:02}-{:02}{:02}{:02}.txt",
		of_day / 3600,
		of_day / 60 % 60,
		of_day % 60
	)
}

/// The proleptic Gregorian date of a day counted from 1970-01-01: shift the epoch to
/// 0000-03-01, so that a year's leap day falls at its end, then count 400-year eras.
fn civil_date(days: u64) -> (u64, u64, u64) {
	let shifted = days + 719_468;
	let era = shifted / 146_097;
	let day_of_era = shifted % 146_097;
	let year_of_era =
		(day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
	let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
	let month_index = (5 * day_of_year + 2) / 153;
	let day = day_of_year - (153 * month_index + 2) / 5 + 1;
	let month = if month_index < 10 {
		month_index + 3
	} else {
		month_index - 9
	};
	let year = year_of_era + era * 400 + u64::from(month <= 2);
	(year, month, day)
}

/// Reads the record at `path` and replays it into a game.
pub fn load(path: &Path) -> Result<(GameRecord, Game), RecordIoError> {
	let text = std::fs::read_to_string(path).map_err(|source| RecordIoError::Read {
		path: path.to_path_buf(),
		source,
	})?;
	let record = GameRecord::from_text(&text).map_err(|source| RecordIoError::Invalid {
		path: path.to_path_buf(),
		source,
	})?;
	// `from_text` has replayed the moves already, so this replay refuses nothing.
	let (game, _) = record.replay();
	Ok((record, game))
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
		assert_eq!(civil_date(365), (1971, 1, 1));
	}
}
