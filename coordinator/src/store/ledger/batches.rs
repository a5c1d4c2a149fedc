//! Storing a batch: its samples checked and encoded (`NewBatch`), stored only if its sequence
//! is the next one its worker owes, and the numbers of refused batches used up.

use rusqlite::{OptionalExtension, params};
use tigers_core::selfplay::Sample;

use super::connection::Ledger;
use crate::clock::unix_now;
use crate::store::samples_codec::{check_samples, encode_samples};
use crate::store::storage_error::StorageError;

/// What a failure while storing a batch says it was doing.
const INSERTING_BATCH: &str = "inserting a batch";

/// What became of a batch given to [`Ledger::insert_batch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BatchInsert {
	/// Stored durably under this id.
	Inserted {
		/// The batch's id, which orders batches.
		id: i64,
	},
	/// The worker had already sent a batch with this sequence number; nothing changed.
	Duplicate,
	/// The sequence is not the next one expected (a gap, one refused earlier, or one beyond the
	/// store's range); nothing changed.
	OutOfOrder {
		/// The sequence the worker's next batch must have.
		expected: u64,
	},
}

/// A batch made ready for the ledger: its samples checked and encoded, which is CPU work best
/// done before the write lock is taken.
#[derive(Clone, Debug)]
pub(crate) struct NewBatch {
	worker_id: String,
	sequence: u64,
	sample_count: usize,
	game_count: usize,
	generation_min: Option<u64>,
	generation_max: Option<u64>,
	samples: Vec<u8>,
	last_game: Option<String>,
	games: Vec<u8>,
}

impl NewBatch {
	/// Batch `sequence` of `worker_id`; samples that could not be read back are refused
	/// ([`StorageError::InvalidSample`]). `last_game` is the last of `game_records`, and all of
	/// them are compressed for the game archive. (The coordinator's own batches come checked:
	/// [`NewBatch::checked`].)
	#[cfg(test)]
	pub(crate) fn new(
		worker_id: &str,
		sequence: u64,
		samples: &[Sample],
		game_records: &[String],
	) -> Result<NewBatch, StorageError> {
		check_samples(samples)?;
		Ok(NewBatch::checked(
			worker_id,
			sequence,
			samples,
			game_records,
		))
	}

	/// As [`NewBatch::new`], for samples that have each passed `Sample::check` already (a
	/// validated batch's); they are checked again only in debug builds.
	pub(crate) fn checked(
		worker_id: &str,
		sequence: u64,
		samples: &[Sample],
		game_records: &[String],
	) -> NewBatch {
		debug_assert!(check_samples(samples).is_ok(), "unchecked samples");
		let generations = samples.iter().map(|s| s.generation);
		NewBatch {
			worker_id: worker_id.to_string(),
			sequence,
			sample_count: samples.len(),
			game_count: game_records.len(),
			generation_min: generations.clone().min(),
			generation_max: generations.max(),
			samples: encode_samples(samples),
			last_game: game_records.last().cloned(),
			games: tigers_proto::games::compress(game_records.iter().map(String::as_str)),
		}
	}

	/// How many games it holds.
	pub(crate) fn game_count(&self) -> usize {
		self.game_count
	}
}

impl Ledger {
	/// Stores a batch from `worker_id` and adds its samples to the worker's count, in one
	/// transaction that is on disk when this returns, if `sequence` is the next one expected
	/// (one above the worker's `last_sequence`). A batch whose `(worker_id, sequence)` is already
	/// stored (a worker resending after a lost acknowledgement) changes nothing, and so does any
	/// other sequence (`BatchInsert::OutOfOrder`). `last_game` is the last of `game_records`.
	/// A worker not yet in `workers` is added. Samples that could not be read back are refused
	/// (`StorageError::InvalidSample`) and nothing is stored: an acknowledged batch must stay
	/// readable. The coordinator itself stores batches in groups (see `committer`); this is
	/// the same for one batch, for the tests.
	#[cfg(test)]
	pub(crate) fn insert_batch(
		&mut self,
		worker_id: &str,
		sequence: u64,
		samples: &[Sample],
		game_records: &[String],
	) -> Result<BatchInsert, StorageError> {
		let batch = NewBatch::new(worker_id, sequence, samples, game_records)?;
		self.begin()?;
		match self.store_batch(&batch) {
			Ok(inserted @ BatchInsert::Inserted { .. }) => {
				self.commit()?;
				Ok(inserted)
			}
			other => {
				self.rollback();
				other
			}
		}
	}

	/// Stores `batch` in the open transaction if its sequence is the next one expected, as
	/// [`Ledger::insert_batch`] does; nothing is on disk before the transaction commits. A
	/// refusal (`BatchInsert::Duplicate`, `BatchInsert::OutOfOrder`) writes nothing but
	/// the worker's row, if it was missing.
	pub(crate) fn store_batch(&mut self, batch: &NewBatch) -> Result<BatchInsert, StorageError> {
		let now = unix_now();
		// First, so that the batch's foreign key finds its worker.
		self.add_worker_if_new(&batch.worker_id, now)?;
		if let Some(refusal) = self.out_of_order(&batch.worker_id, batch.sequence)? {
			return Ok(refusal);
		}
		let Some(id) = self.insert_batch_row(batch, now)? else {
			return Ok(BatchInsert::Duplicate);
		};
		if batch.game_count > 0 {
			self.insert_batch_games(id, batch)?;
		}
		self.count_stored_batch(batch, now)?;
		Ok(BatchInsert::Inserted { id })
	}

	/// Adds `worker_id` to `workers`, first seen `now`, unless it is there.
	fn add_worker_if_new(&mut self, worker_id: &str, now: f64) -> Result<(), StorageError> {
		self.connection
			.prepare_cached(
				"INSERT INTO workers (worker_id, first_seen, last_seen) VALUES (?1, ?2, ?2)
				ON CONFLICT (worker_id) DO NOTHING",
			)
			.and_then(|mut statement| statement.execute(params![worker_id, now]))
			.map_err(StorageError::sqlite(INSERTING_BATCH))?;
		Ok(())
	}

	/// Why batch `sequence` of `worker_id` is not stored, if it is not the next one expected:
	/// stored before (a duplicate), or out of order.
	fn out_of_order(
		&self,
		worker_id: &str,
		sequence: u64,
	) -> Result<Option<BatchInsert>, StorageError> {
		let last: i64 = self
			.connection
			.prepare_cached("SELECT last_sequence FROM workers WHERE worker_id = ?1")
			.and_then(|mut statement| statement.query_row([worker_id], |row| row.get(0)))
			.map_err(StorageError::sqlite(INSERTING_BATCH))?;
		// `last` is at most i64::MAX, so one above it always fits a u64.
		let expected = last as u64 + 1;
		if sequence == expected && i64::try_from(sequence).is_ok() {
			return Ok(None);
		}
		let stored = sequence < expected && self.was_stored(worker_id, sequence)?;
		Ok(Some(if stored {
			BatchInsert::Duplicate
		} else {
			BatchInsert::OutOfOrder { expected }
		}))
	}

	/// Inserts the batch's row, received `now`, with its samples, and makes its last game the
	/// run's last: its id, or `None` if the row was there.
	fn insert_batch_row(
		&mut self,
		batch: &NewBatch,
		now: f64,
	) -> Result<Option<i64>, StorageError> {
		let inserted = self
			.connection
			.prepare_cached(
				"INSERT INTO batches (worker_id, sequence, received_at, sample_count, game_count,
					generation_min, generation_max)
				VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
				ON CONFLICT (worker_id, sequence) DO NOTHING",
			)
			.and_then(|mut statement| {
				statement.execute(params![
					batch.worker_id,
					batch.sequence,
					now,
					batch.sample_count,
					batch.game_count,
					batch.generation_min,
					batch.generation_max,
				])
			})
			.map_err(StorageError::sqlite(INSERTING_BATCH))?;
		if inserted == 0 {
			return Ok(None);
		}
		let id = self.connection.last_insert_rowid();
		self.connection
			.prepare_cached("INSERT INTO batch_samples (batch_id, samples) VALUES (?1, ?2)")
			.and_then(|mut statement| statement.execute(params![id, batch.samples]))
			.map_err(StorageError::sqlite(INSERTING_BATCH))?;
		if let Some(record) = &batch.last_game {
			self.connection
				.prepare_cached(
					"INSERT INTO last_game (only, batch_id, record) VALUES (1, ?1, ?2)
					ON CONFLICT (only) DO UPDATE SET batch_id = excluded.batch_id,
						record = excluded.record",
				)
				.and_then(|mut statement| statement.execute(params![id, record]))
				.map_err(StorageError::sqlite(INSERTING_BATCH))?;
		}
		Ok(Some(id))
	}

	/// Keeps the games of batch `id` until the archive takes them.
	fn insert_batch_games(&mut self, id: i64, batch: &NewBatch) -> Result<(), StorageError> {
		self.connection
			.prepare_cached(
				"INSERT INTO batch_games (batch_id, generation_min, game_count, games)
				VALUES (?1, ?2, ?3, ?4)",
			)
			.and_then(|mut statement| {
				statement.execute(params![
					id,
					batch.generation_min,
					batch.game_count,
					batch.games
				])
			})
			.map_err(StorageError::sqlite(INSERTING_BATCH))?;
		Ok(())
	}

	/// Adds a stored batch's samples to its worker's count and makes its sequence the last.
	fn count_stored_batch(&mut self, batch: &NewBatch, now: f64) -> Result<(), StorageError> {
		self.connection
			.prepare_cached(
				"UPDATE workers SET samples = samples + ?2, last_seen = max(last_seen, ?3),
					last_sequence = ?4
				WHERE worker_id = ?1",
			)
			.and_then(|mut statement| {
				statement.execute(params![
					batch.worker_id,
					batch.sample_count,
					now,
					batch.sequence
				])
			})
			.map_err(StorageError::sqlite(INSERTING_BATCH))?;
		Ok(())
	}

	/// Whether batch `sequence` of `worker_id`, at or below its last sequence, was stored: its
	/// row is there, or compaction folded it into the worker's totals (it is at or below the
	/// worker's `compacted_through` and not a refused one).
	fn was_stored(&self, worker_id: &str, sequence: u64) -> Result<bool, StorageError> {
		const DOING: &str = "looking for a stored batch";
		let sequence = sequence as i64;
		let row = self
			.connection
			.prepare_cached("SELECT 1 FROM batches WHERE worker_id = ?1 AND sequence = ?2")
			.and_then(|mut statement| statement.exists(params![worker_id, sequence]))
			.map_err(StorageError::sqlite(DOING))?;
		if row {
			return Ok(true);
		}
		self.connection
			.prepare_cached(
				"SELECT 1 FROM workers WHERE worker_id = ?1 AND compacted_through >= ?2
				AND NOT EXISTS (SELECT 1 FROM refused WHERE refused.worker_id = ?1
					AND first_sequence <= ?2 AND last_sequence >= ?2)",
			)
			.and_then(|mut statement| statement.exists(params![worker_id, sequence]))
			.map_err(StorageError::sqlite(DOING))
	}

	/// The highest sequence number dealt with for `worker_id` (stored, or refused as
	/// malformed), 0 if none: where the worker resumes.
	pub(crate) fn last_sequence(&self, worker_id: &str) -> Result<u64, StorageError> {
		self.connection
			.query_row(
				"SELECT last_sequence FROM workers WHERE worker_id = ?1",
				[worker_id],
				|row| row.get::<_, u64>(0),
			)
			.optional()
			.map(Option::unwrap_or_default)
			.map_err(StorageError::sqlite("reading a worker's last sequence"))
	}

	/// Records that batch `sequence` of `worker_id` was refused as malformed, durably: if it was
	/// the next one expected, its number is used up, so the worker (which drops the batch) goes
	/// on with the next, and the number is kept among the refused ones, so that compaction
	/// never takes it for a stored batch. Whether it was the next one expected. Inside a
	/// transaction it is durable once the transaction commits.
	pub(crate) fn record_refusal(
		&mut self,
		worker_id: &str,
		sequence: u64,
	) -> Result<bool, StorageError> {
		const DOING: &str = "recording a refused batch";
		let Ok(sequence) = i64::try_from(sequence) else {
			return Ok(false);
		};
		self.write_unit(|ledger| {
			let used = ledger
				.connection
				.execute(
					"UPDATE workers SET last_sequence = ?2
					WHERE worker_id = ?1 AND last_sequence = ?2 - 1",
					params![worker_id, sequence],
				)
				.map_err(StorageError::sqlite(DOING))?
				== 1;
			if used {
				ledger
					.connection
					.execute(
						"INSERT INTO refused (worker_id, first_sequence, last_sequence)
						VALUES (?1, ?2, ?2) ON CONFLICT DO NOTHING",
						params![worker_id, sequence],
					)
					.map_err(StorageError::sqlite(DOING))?;
			}
			Ok(used)
		})
	}
}
