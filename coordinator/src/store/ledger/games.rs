//! The ledger's side of the game archive (`archive`): the batches whose games wait to be
//! written there, and what each generation's file holds.

use rusqlite::{OptionalExtension, params};

use super::connection::Ledger;
use crate::store::storage_error::StorageError;

/// A batch whose games wait for the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PendingGames {
	/// The batch's id.
	pub id: i64,
	/// The oldest generation among its samples, if it had any: where a game whose record
	/// names no generation goes.
	pub generation_min: Option<u64>,
	/// Its game records as one gzip member (`tigers_proto::games::compress`).
	pub games: Vec<u8>,
	/// How many games it holds.
	pub game_count: u64,
}

/// One generation's archive file as the ledger knows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GameFileRow {
	/// The generation that played its games.
	pub generation: u64,
	/// Its length after the last write the ledger holds.
	pub bytes: u64,
	/// The games in it.
	pub games: u64,
	/// When it was deleted by the keep setting (Unix seconds); `None` while it is kept.
	pub pruned_at: Option<f64>,
}

impl Ledger {
	/// At most `limit` batches from id `from_id` on whose games are not in the archive yet,
	/// oldest first. Batches are archived in id order, so the caller passes one above the last
	/// id it archived, and the scan starts there instead of at the table's first row.
	pub(crate) fn pending_games(
		&self,
		from_id: i64,
		limit: usize,
	) -> Result<Vec<PendingGames>, StorageError> {
		const DOING: &str = "reading games not yet archived";
		let mut statement = self
			.connection
			.prepare_cached(
				"SELECT batch_id, generation_min, games, game_count FROM batch_games
				WHERE batch_id >= ?1 ORDER BY batch_id LIMIT ?2",
			)
			.map_err(StorageError::sqlite(DOING))?;
		let rows = statement
			.query_map(params![from_id, limit as i64], |row| {
				Ok(PendingGames {
					id: row.get(0)?,
					generation_min: row.get(1)?,
					games: row.get(2)?,
					game_count: row.get(3)?,
				})
			})
			.map_err(StorageError::sqlite(DOING))?;
		rows.collect::<Result<_, _>>()
			.map_err(StorageError::sqlite(DOING))
	}

	/// The games of every batch not yet archived.
	pub(crate) fn pending_game_count(&self) -> Result<u64, StorageError> {
		self.connection
			.query_row(
				"SELECT coalesce(sum(game_count), 0) FROM batch_games",
				[],
				|row| row.get(0),
			)
			.map_err(StorageError::sqlite("counting games not yet archived"))
	}

	/// Every generation's archive file, kept or pruned, by generation.
	pub(crate) fn game_files(&self) -> Result<Vec<GameFileRow>, StorageError> {
		const DOING: &str = "reading the game archive's files";
		let mut statement = self
			.connection
			.prepare_cached(
				"SELECT generation, bytes, games, pruned_at FROM game_files ORDER BY generation",
			)
			.map_err(StorageError::sqlite(DOING))?;
		let rows = statement
			.query_map([], |row| {
				Ok(GameFileRow {
					generation: row.get(0)?,
					bytes: row.get(1)?,
					games: row.get(2)?,
					pruned_at: row.get(3)?,
				})
			})
			.map_err(StorageError::sqlite(DOING))?;
		rows.collect::<Result<_, _>>()
			.map_err(StorageError::sqlite(DOING))
	}

	/// Records, in one unit, that the games of batches `ids` are written to the archive and
	/// that the files are now as `files` say.
	pub(crate) fn record_archived(
		&mut self,
		ids: &[i64],
		files: &[GameFileRow],
	) -> Result<(), StorageError> {
		const DOING: &str = "recording games archived";
		self.write_unit(|ledger| {
			for &id in ids {
				ledger
					.connection
					.prepare_cached("DELETE FROM batch_games WHERE batch_id = ?1")
					.and_then(|mut statement| statement.execute([id]))
					.map_err(StorageError::sqlite(DOING))?;
			}
			for file in files {
				ledger.put_game_file(file)?;
			}
			Ok(())
		})
	}

	/// Writes `file`'s row, replacing the one of its generation.
	pub(crate) fn put_game_file(&mut self, file: &GameFileRow) -> Result<(), StorageError> {
		self.connection
			.prepare_cached(
				"INSERT OR REPLACE INTO game_files (generation, bytes, games, pruned_at)
				VALUES (?1, ?2, ?3, ?4)",
			)
			.and_then(|mut statement| {
				statement.execute(params![
					file.generation,
					file.bytes,
					file.games,
					file.pruned_at
				])
			})
			.map(drop)
			.map_err(StorageError::sqlite("recording a game archive's file"))
	}

	/// The newest generation promoted, if any.
	pub(crate) fn latest_generation(&self) -> Result<Option<u64>, StorageError> {
		self.connection
			.query_row("SELECT max(generation) FROM generations", [], |row| {
				row.get(0)
			})
			.optional()
			.map(Option::flatten)
			.map_err(StorageError::sqlite("reading the newest generation"))
	}
}

#[cfg(test)]
impl Ledger {
	/// Sets how long a write waits for another connection's lock, for tests that make one fail.
	pub(crate) fn set_busy_timeout(
		&self,
		timeout: std::time::Duration,
	) -> Result<(), StorageError> {
		self.connection
			.busy_timeout(timeout)
			.map_err(StorageError::sqlite("setting the busy timeout"))
	}
}
