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
	std::fs::write(path, record.to_text()).map_err(|source| RecordIoError::Write {
		path: path.to_path_buf(),
		source,
	})
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
