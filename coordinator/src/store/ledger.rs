//! `Ledger`: the run's SQLite database, the record of everything that must outlive the
//! coordinator process: every sample batch acknowledged to a worker, the workers, the promoted
//! generations, the gate matches, the training loss and throughput.
//!
//! The database is in WAL mode with `synchronous = FULL`, so a transaction is on disk when its
//! commit returns: a batch is acknowledged to its worker only after the transaction that stores
//! it has committed ([`Ledger::insert_batch`] for one batch; the coordinator's `committer`
//! stores batches in groups with [`Ledger::begin`], [`Ledger::store_batch`] and
//! [`Ledger::commit`]). (WAL's usual `synchronous = NORMAL` may lose the last commits on power
//! loss.)
//! Foreign keys are on. The schema version is `PRAGMA user_version`, migrated from 0 (a new
//! file) by `ledger::schema`. Times are unix seconds as `REAL`; generations, steps and counts
//! are `INTEGER`; a `NULL` `REAL` reads back as NaN (SQLite stores NaN as `NULL`).
//!
//! Schema, version 12:
//!
//! - `batches`: one row per sample batch received, compacted into its worker's totals once it
//!   is old (see `ledger::compaction`: its samples pruned, ten minutes old, and not the
//!   worker's newest). `id INTEGER PRIMARY KEY AUTOINCREMENT` (never reused, orders batches,
//!   checkpoints refer to it), `worker_id TEXT NOT NULL REFERENCES workers`, `sequence INTEGER
//!   NOT NULL` (the worker's batch number, from 1), `received_at REAL`, `sample_count
//!   INTEGER`, `game_count INTEGER`, `generation_min INTEGER`, `generation_max INTEGER` (of the
//!   samples, `NULL` if none), `UNIQUE (worker_id, sequence)`.
//! - `batch_samples`: a stored batch's samples until a checkpoint holds them (version 10),
//!   then the row is deleted ("pruned"). `batch_id INTEGER PRIMARY KEY` (the batch's `id`),
//!   `samples BLOB` (see `samples_codec`). A table of its own so that pruning frees whole
//!   pages, which the next batches reuse (see version 10 in `ledger::schema`).
//! - `last_game`: the newest game record received, for the dashboard after a restart
//!   (version 10). One row: `only INTEGER PRIMARY KEY` (always 1), `batch_id INTEGER` (the
//!   batch it came in), `record TEXT`.
//! - `batch_games`: the games of stored batches not yet in the game archive (version 7, see
//!   `archive`), a row per batch with games, deleted once they are archived.
//!   `batch_id INTEGER PRIMARY KEY` (the batch's `id`), `generation_min INTEGER` (as in
//!   `batches`), `game_count INTEGER`, `games BLOB` (all its game records as one gzip member,
//!   `tigers_proto::games`). A table of its own, so that archiving deletes a small row rather
//!   than rewriting the batch's row with its samples.
//! - `workers`: `worker_id TEXT PRIMARY KEY`, `name TEXT`, `host TEXT`, `threads INTEGER`,
//!   `build_version TEXT`, `first_seen REAL`, `last_seen REAL` (the last session or batch),
//!   `samples INTEGER` (all the worker's samples), `sessions INTEGER`, `flagged INTEGER` (times
//!   flagged, 0 if never), `secret_sha256 TEXT` (hex sha256 of the identity's secret, `NULL`
//!   until it is given one), `secret_confirmed INTEGER` (1 once a session presented it),
//!   `last_sequence INTEGER` (the highest sequence dealt with, stored or refused; the next batch
//!   must be one above it), `compacted_through INTEGER` (the highest sequence compacted, 0 if
//!   none), `compacted_batches`, `compacted_samples`, `compacted_games` (`INTEGER`, the counts
//!   of its compacted batches).
//! - `refused`: the worker's sequence numbers dealt with but never stored (refused as
//!   malformed, or left unstored by a program older than version 3), as ranges.
//!   `worker_id TEXT REFERENCES workers`, `first_sequence INTEGER`, `last_sequence INTEGER`,
//!   primary key `(worker_id, first_sequence)`.
//! - `generations`: one row per promoted net. `generation INTEGER PRIMARY KEY`, `sha256 TEXT`
//!   (of the net file), `training_steps INTEGER`, `promoted_at REAL`,
//!   `samples_at_promotion INTEGER` (samples received in the run until then).
//! - `gates`: one row per finished gate match. `id INTEGER PRIMARY KEY AUTOINCREMENT`,
//!   `candidate_generation INTEGER` (the generation it would get), `training_steps INTEGER`,
//!   `promoted INTEGER` (0 or 1), `tigers_wins`, `tigers_draws`, `tigers_losses`,
//!   `sheep_wins`, `sheep_draws`, `sheep_losses` (`INTEGER`, games by the candidate's side),
//!   `score REAL` (0..1), `score_low REAL`, `score_high REAL` (its interval), `elo REAL`,
//!   `stop TEXT` (why the match stopped), `reason TEXT` (why it was or was not promoted),
//!   `finished_at REAL`, `pairs TEXT` (the pair counts), `cpu_seconds REAL` (worker
//!   CPU-seconds over the run when it finished; 0 in rows from version 1),
//!   `candidate_exact_moves`, `candidate_exact_kept`, `reference_exact_moves`,
//!   `reference_exact_kept` (`INTEGER`: the candidate's and ClaudePlayer's movement-phase moves,
//!   and those that kept the exact result, judged by the tablebase; 0 without one, or in rows
//!   from before version 4).
//! - `timed`: one row per promoted net measured at equal time per move against ClaudePlayer
//!   (version 5). `generation INTEGER PRIMARY KEY`, `move_ms INTEGER` (each player's time a
//!   move), the six game counts, `score`, `score_low`, `score_high`, `elo`, `pairs` and the four
//!   exact-accuracy counts as in `gates`, `started_at REAL`, `finished_at REAL`, `cpu_seconds
//!   REAL` (worker CPU-seconds over the run when it finished), `tablebase TEXT` (version 8:
//!   `play`, `judge` or `none`, what the tablebase did in the games; `NULL` in older rows,
//!   measured when it only judged).
//! - `grades`: one row per promoted net graded on the grading suite (version 12).
//!   `generation INTEGER PRIMARY KEY`, `depth INTEGER`, `suite_sha256 TEXT`, and by phase
//!   (`placement_`, `movement_`) `positions`, `class_right` and `moves_kept`, `graded_at REAL`,
//!   `cpu_seconds REAL`.
//! - `game_files`: one row per generation with games in the run's game archive (version 7,
//!   see `archive`). `generation INTEGER PRIMARY KEY`, `bytes INTEGER` (the file's length as
//!   of the last archiving committed), `games INTEGER` (the games in it), `pruned_at REAL`
//!   (when the file was deleted by the keep setting, `NULL` while it is kept).
//! - `losses`: `step INTEGER PRIMARY KEY`, `loss REAL`, `recorded_at REAL`.
//! - `throughput`: periodic snapshots. `at REAL PRIMARY KEY`, `samples_total INTEGER`,
//!   `games_total INTEGER`, `training_steps INTEGER`, `workers_connected INTEGER`,
//!   `cpu_seconds REAL` (self-play threads times seconds connected, over the run).

mod compaction;
mod connection;
mod games;
mod grade_rows;
mod listing;
mod records;
mod schema;
mod stop_reason;

use rusqlite::{OptionalExtension, params};
use tigers_core::selfplay::Sample;

pub(crate) use self::compaction::{COMPACT_AFTER, FORGET_SILENT_AFTER};
pub use self::connection::Ledger;
pub(crate) use self::games::{GameFileRow, PendingGames};
pub(crate) use self::grade_rows::GradeRow;
pub(crate) use self::listing::NetListing;
pub(crate) use self::records::{
	BatchSummary, GateRow, GenerationRow, StoredSecret, ThroughputRow, TimedRow, table_role_text,
};
pub(crate) use self::stop_reason::StopReason;
use crate::clock::unix_now;
use crate::store::samples_codec::{check_samples, decode_samples, encode_samples};
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

/// Counts over all batches ever received, pruned or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Totals {
	/// Samples.
	pub samples: u64,
	/// Games.
	pub games: u64,
	/// Batches.
	pub batches: u64,
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

	/// The samples of every batch after `id`, in id order: what a checkpoint whose newest
	/// batch is `id` lacks. A pruned batch among them is an error (`StorageError::Pruned`),
	/// never skipped, since skipping it would lose acknowledged samples.
	pub(crate) fn batches_after(&self, id: i64) -> Result<Vec<(i64, Vec<Sample>)>, StorageError> {
		const DOING: &str = "reading batches after a checkpoint";
		let mut statement = self
			.connection
			.prepare(
				"SELECT id, samples FROM batches LEFT JOIN batch_samples ON batch_id = id
				WHERE id > ?1 ORDER BY id",
			)
			.map_err(StorageError::sqlite(DOING))?;
		let rows = statement
			.query_map([id], |row| {
				Ok((row.get(0)?, row.get::<_, Option<Vec<u8>>>(1)?))
			})
			.map_err(StorageError::sqlite(DOING))?;
		let mut batches = Vec::new();
		for row in rows {
			let (id, blob) = row.map_err(StorageError::sqlite(DOING))?;
			let blob = blob.ok_or(StorageError::Pruned { id })?;
			batches.push((id, decode_batch(id, &blob)?));
		}
		Ok(batches)
	}

	/// The newest batches whose samples add up to at least `limit`, in id order: a window for a
	/// run without a checkpoint. Fewer samples come back if the ledger holds fewer, or if an
	/// older batch is pruned (the batches before it are older still, so the window would not
	/// be contiguous).
	pub(crate) fn recent_samples(
		&self,
		limit: usize,
	) -> Result<Vec<(i64, Vec<Sample>)>, StorageError> {
		const DOING: &str = "reading the most recent batches";
		let mut batches = Vec::new();
		if limit == 0 {
			return Ok(batches);
		}
		let mut statement = self
			.connection
			.prepare(
				"SELECT id, samples FROM batches LEFT JOIN batch_samples ON batch_id = id
				ORDER BY id DESC",
			)
			.map_err(StorageError::sqlite(DOING))?;
		let mut rows = statement.query([]).map_err(StorageError::sqlite(DOING))?;
		let mut count = 0;
		while let Some(row) = rows.next().map_err(StorageError::sqlite(DOING))? {
			let id: i64 = row.get(0).map_err(StorageError::sqlite(DOING))?;
			let Some(blob) = row
				.get::<_, Option<Vec<u8>>>(1)
				.map_err(StorageError::sqlite(DOING))?
			else {
				break;
			};
			let samples = decode_batch(id, &blob)?;
			count += samples.len();
			batches.push((id, samples));
			if count >= limit {
				break;
			}
		}
		batches.reverse();
		Ok(batches)
	}

	/// Drops the samples of the batches before `id` (a checkpoint holds them now), keeping the
	/// batches' rows for deduplication and the counts; returns how many batches were pruned.
	/// What [`Ledger::prune_some`] does a chunk at a time, all at once: for the tests.
	#[cfg(test)]
	pub(crate) fn prune_samples_before(&mut self, id: i64) -> Result<u64, StorageError> {
		self.connection
			.execute("DELETE FROM batch_samples WHERE batch_id < ?1", [id])
			.map(|n| n as u64)
			.map_err(StorageError::sqlite("pruning samples"))
	}

	/// Samples, games and batches over the whole run, compacted ones included.
	pub(crate) fn totals(&self) -> Result<Totals, StorageError> {
		self.connection
			.query_row(
				"SELECT
					(SELECT coalesce(sum(sample_count), 0) FROM batches)
						+ (SELECT coalesce(sum(compacted_samples), 0) FROM workers),
					(SELECT coalesce(sum(game_count), 0) FROM batches)
						+ (SELECT coalesce(sum(compacted_games), 0) FROM workers),
					(SELECT count(*) FROM batches)
						+ (SELECT coalesce(sum(compacted_batches), 0) FROM workers)",
				[],
				|row| {
					Ok(Totals {
						samples: row.get(0)?,
						games: row.get(1)?,
						batches: row.get(2)?,
					})
				},
			)
			.map_err(StorageError::sqlite("counting batches"))
	}

	/// Samples received from each worker, by worker id.
	#[cfg(test)]
	pub(crate) fn samples_by_worker(&self) -> Result<Vec<(String, u64)>, StorageError> {
		const DOING: &str = "counting samples by worker";
		let mut statement = self
			.connection
			.prepare("SELECT worker_id, samples FROM workers ORDER BY worker_id")
			.map_err(StorageError::sqlite(DOING))?;
		statement
			.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite(DOING))
	}

	/// The batches received at `since` (Unix seconds) or later, newest first, without their
	/// samples: for the counts of recent samples a restarted coordinator starts from. Reads
	/// back from the newest batch and stops at the first older one, so its cost is the batches
	/// returned, not the run's.
	pub(crate) fn batches_since(&self, since: f64) -> Result<Vec<BatchSummary>, StorageError> {
		const DOING: &str = "reading recent batches";
		let mut statement = self
			.connection
			.prepare(
				"SELECT received_at, sample_count, generation_min, generation_max FROM batches
				ORDER BY id DESC",
			)
			.map_err(StorageError::sqlite(DOING))?;
		let rows = statement
			.query_map([], |row| {
				Ok(BatchSummary {
					received_at: row.get(0)?,
					samples: row.get(1)?,
					generation_min: row.get(2)?,
					generation_max: row.get(3)?,
				})
			})
			.map_err(StorageError::sqlite(DOING))?;
		let mut batches = Vec::new();
		for row in rows {
			let batch = row.map_err(StorageError::sqlite(DOING))?;
			if batch.received_at < since {
				break;
			}
			batches.push(batch);
		}
		Ok(batches)
	}

	/// The last game record received, if any.
	pub(crate) fn last_game(&self) -> Result<Option<String>, StorageError> {
		self.connection
			.query_row("SELECT record FROM last_game", [], |row| row.get(0))
			.optional()
			.map_err(StorageError::sqlite("reading the last game"))
	}
}

/// A batch's blob, decoded, with the batch named in errors.
fn decode_batch(id: i64, blob: &[u8]) -> Result<Vec<Sample>, StorageError> {
	decode_samples(blob).map_err(|error| match error {
		StorageError::Corrupt { why, .. } => {
			StorageError::corrupt(format!("the samples of batch {id}"), why)
		}
		other => other,
	})
}

#[cfg(test)]
mod tests {
	use rusqlite::Connection;
	use tigers_core::{GameBoard, Turn};

	use super::schema::LATEST_VERSION;
	use super::*;
	use crate::test_support::{TestDir, varied_samples};

	fn samples(count: usize, generation: u64) -> Vec<Sample> {
		(0..count)
			.map(|ply| Sample {
				board: GameBoard::default(),
				turn: Turn::Sheep,
				score: 0.25,
				result: -1.0,
				ply: ply as u32,
				generation,
			})
			.collect()
	}

	fn games(names: &[&str]) -> Vec<String> {
		names.iter().map(|n| n.to_string()).collect()
	}

	fn inserted(insert: BatchInsert) -> i64 {
		match insert {
			BatchInsert::Inserted { id } => id,
			other => panic!("expected a new batch, got {other:?}"),
		}
	}

	#[test]
	fn the_connection_is_durable_wal_with_foreign_keys() {
		let dir = TestDir::new("ledger-pragmas");
		let ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let pragma = |name: &str| -> String {
			ledger
				.connection
				.pragma_query_value(None, name, |row| row.get::<_, rusqlite::types::Value>(0))
				.map(|value| format!("{value:?}"))
				.unwrap()
		};
		assert_eq!(pragma("journal_mode"), "Text(\"wal\")");
		// 2 is FULL: a commit syncs the WAL before returning.
		assert_eq!(pragma("synchronous"), "Integer(2)");
		assert_eq!(pragma("foreign_keys"), "Integer(1)");
		assert_eq!(pragma("user_version"), format!("Integer({LATEST_VERSION})"));
	}

	#[test]
	fn a_duplicate_batch_changes_nothing() {
		let dir = TestDir::new("ledger-duplicate");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		assert_eq!(ledger.last_sequence("w1").unwrap(), 0);
		let first = inserted(
			ledger
				.insert_batch("w1", 1, &samples(3, 0), &games(&["g1", "g2"]))
				.unwrap(),
		);
		let before = ledger.totals().unwrap();
		assert_eq!(
			before,
			Totals {
				samples: 3,
				games: 2,
				batches: 1
			}
		);
		let again = ledger
			.insert_batch("w1", 1, &samples(5, 0), &games(&["g3"]))
			.unwrap();
		assert_eq!(again, BatchInsert::Duplicate);
		assert_eq!(ledger.totals().unwrap(), before);
		assert_eq!(ledger.samples_by_worker().unwrap(), [("w1".to_string(), 3)]);
		assert_eq!(ledger.last_game().unwrap().as_deref(), Some("g2"));
		assert_eq!(ledger.batches_after(0).unwrap()[0].1.len(), 3);

		let second = inserted(ledger.insert_batch("w1", 2, &samples(4, 1), &[]).unwrap());
		assert!(second > first);
		inserted(
			ledger
				.insert_batch("w2", 1, &samples(1, 1), &games(&["h1"]))
				.unwrap(),
		);
		assert_eq!(ledger.last_sequence("w1").unwrap(), 2);
		assert_eq!(ledger.last_sequence("w2").unwrap(), 1);
		assert_eq!(ledger.last_sequence("w3").unwrap(), 0);
		assert_eq!(
			ledger.totals().unwrap(),
			Totals {
				samples: 8,
				games: 3,
				batches: 3
			}
		);
		assert_eq!(
			ledger.samples_by_worker().unwrap(),
			[("w1".to_string(), 7), ("w2".to_string(), 1)]
		);
		assert_eq!(ledger.last_game().unwrap().as_deref(), Some("h1"));
	}

	#[test]
	fn only_the_next_sequence_is_stored() {
		let dir = TestDir::new("ledger-order");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let out_of_order = |expected| BatchInsert::OutOfOrder { expected };
		// A first batch must be 1; a gap changes nothing.
		assert_eq!(
			ledger.insert_batch("w", 2, &samples(1, 0), &[]).unwrap(),
			out_of_order(1)
		);
		inserted(ledger.insert_batch("w", 1, &samples(1, 0), &[]).unwrap());
		for gap in [3, 1_000_000, i64::MAX as u64, u64::MAX] {
			assert_eq!(
				ledger.insert_batch("w", gap, &samples(1, 0), &[]).unwrap(),
				out_of_order(2),
				"{gap}"
			);
		}
		// A refused batch uses its number up, durably; one refused out of order does not.
		assert!(!ledger.record_refusal("w", 5).unwrap());
		assert!(ledger.record_refusal("w", 2).unwrap());
		assert_eq!(ledger.last_sequence("w").unwrap(), 2);
		// Going back to the refused number is out of order, to a stored one a duplicate.
		assert_eq!(
			ledger.insert_batch("w", 2, &samples(1, 0), &[]).unwrap(),
			out_of_order(3)
		);
		assert_eq!(
			ledger.insert_batch("w", 1, &samples(1, 0), &[]).unwrap(),
			BatchInsert::Duplicate
		);
		inserted(ledger.insert_batch("w", 3, &samples(2, 0), &[]).unwrap());
		assert_eq!(ledger.totals().unwrap().batches, 2);
		assert_eq!(ledger.totals().unwrap().samples, 3);
		assert_eq!(ledger.last_sequence("w").unwrap(), 3);

		// A worker at the end of the range can store nothing more, and nothing breaks.
		ledger
			.connection
			.execute(
				"UPDATE workers SET last_sequence = ?1 WHERE worker_id = 'w'",
				[i64::MAX],
			)
			.unwrap();
		assert_eq!(
			ledger
				.insert_batch("w", 1 << 63, &samples(1, 0), &[])
				.unwrap(),
			out_of_order(1 << 63)
		);
		assert!(!ledger.record_refusal("w", 1 << 63).unwrap());
	}

	#[test]
	fn secrets_are_bound_replaced_and_confirmed() {
		let dir = TestDir::new("ledger-secrets");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		assert_eq!(ledger.secret("w").unwrap(), None);
		assert!(matches!(
			ledger.bind_secret("w", "aa"),
			Err(StorageError::UnknownWorker(_))
		));
		ledger
			.record_worker_seen("w", "n", "h", 1, "0.1.0", 1.0)
			.unwrap();
		assert_eq!(ledger.secret("w").unwrap(), None);
		ledger.bind_secret("w", "aa").unwrap();
		let stored = |sha256: &str, confirmed| {
			Some(StoredSecret {
				sha256: sha256.to_string(),
				confirmed,
			})
		};
		assert_eq!(ledger.secret("w").unwrap(), stored("aa", false));
		ledger.confirm_secret("w").unwrap();
		assert_eq!(ledger.secret("w").unwrap(), stored("aa", true));
		ledger.bind_secret("w", "bb").unwrap();
		assert_eq!(ledger.secret("w").unwrap(), stored("bb", false));
	}

	#[test]
	fn unreadable_samples_are_refused_before_anything_is_stored() {
		let dir = TestDir::new("ledger-invalid");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let mut bad = samples(3, 0);
		bad[1].score = f32::NAN;
		let error = ledger.insert_batch("w", 1, &bad, &[]).unwrap_err();
		assert!(
			matches!(error, StorageError::InvalidSample { index: 1, .. }),
			"{error}"
		);
		assert_eq!(ledger.totals().unwrap(), Totals::default());
		assert_eq!(
			ledger.last_sequence("w").unwrap(),
			0,
			"the worker can send it again"
		);
	}

	#[test]
	fn opening_where_no_file_can_be_names_the_path() {
		let dir = TestDir::new("ledger-open-error");
		let path = dir.path().join("missing-folder/ledger.sqlite");
		let error = Ledger::open(&path).unwrap_err();
		assert!(matches!(error, StorageError::OpenLedger { .. }), "{error}");
		assert!(error.to_string().contains("missing-folder"), "{error}");
	}

	#[test]
	fn samples_round_trip_bit_exactly() {
		let dir = TestDir::new("ledger-round-trip");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let stored = varied_samples();
		let id = inserted(ledger.insert_batch("w", 1, &stored, &[]).unwrap());
		let batches = ledger.batches_after(id - 1).unwrap();
		assert_eq!(batches.len(), 1);
		assert_eq!(batches[0].0, id);
		let bits = |s: &Sample| (s.board.to_bits(), s.score.to_bits(), s.result.to_bits());
		let read: Vec<_> = batches[0].1.iter().map(bits).collect();
		assert_eq!(read, stored.iter().map(bits).collect::<Vec<_>>());
		assert_eq!(batches[0].1, stored);
		assert!(ledger.batches_after(id).unwrap().is_empty());
	}

	#[test]
	fn batches_after_refuses_to_skip_pruned_batches() {
		let dir = TestDir::new("ledger-prune");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let ids: Vec<i64> = (1..=4)
			.map(|sequence| {
				let record = format!("g{sequence}");
				inserted(
					ledger
						.insert_batch("w", sequence, &samples(2, 0), &[record])
						.unwrap(),
				)
			})
			.collect();
		assert_eq!(ledger.prune_samples_before(ids[2]).unwrap(), 2);
		assert_eq!(
			ledger.prune_samples_before(ids[2]).unwrap(),
			0,
			"already pruned"
		);
		match ledger.batches_after(0) {
			Err(StorageError::Pruned { id }) => assert_eq!(id, ids[0]),
			other => panic!("expected a pruned batch, got {other:?}"),
		}
		let rest = ledger.batches_after(ids[1]).unwrap();
		assert_eq!(rest.iter().map(|b| b.0).collect::<Vec<_>>(), &ids[2..]);
		// Pruned batches still count, and still deduplicate.
		assert_eq!(ledger.totals().unwrap().samples, 8);
		assert_eq!(
			ledger.insert_batch("w", 1, &samples(2, 0), &[]).unwrap(),
			BatchInsert::Duplicate
		);
		// The samples' rows are gone, the batches' rows stay; the last game is the newest.
		let count = |ledger: &Ledger, table: &str| -> i64 {
			ledger
				.connection
				.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
					row.get(0)
				})
				.unwrap()
		};
		assert_eq!(
			(count(&ledger, "batches"), count(&ledger, "batch_samples")),
			(4, 2)
		);
		assert_eq!(ledger.prune_samples_before(ids[3] + 1).unwrap(), 2);
		assert_eq!(
			(count(&ledger, "batches"), count(&ledger, "batch_samples")),
			(4, 0)
		);
		assert_eq!(ledger.last_game().unwrap().as_deref(), Some("g4"));
	}

	#[test]
	fn recent_samples_cover_the_limit_in_id_order() {
		let dir = TestDir::new("ledger-recent");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let ids: Vec<i64> = (1..=3)
			.map(|sequence| {
				inserted(
					ledger
						.insert_batch("w", sequence, &samples(3, sequence), &[])
						.unwrap(),
				)
			})
			.collect();
		let ids_of =
			|batches: Vec<(i64, Vec<Sample>)>| batches.iter().map(|b| b.0).collect::<Vec<_>>();
		assert!(ledger.recent_samples(0).unwrap().is_empty());
		assert_eq!(ids_of(ledger.recent_samples(3).unwrap()), &ids[2..]);
		assert_eq!(ids_of(ledger.recent_samples(4).unwrap()), &ids[1..]);
		let all = ledger.recent_samples(100).unwrap();
		assert_eq!(
			all.iter().map(|b| b.1[0].generation).collect::<Vec<_>>(),
			[1, 2, 3]
		);
		ledger.prune_samples_before(ids[1]).unwrap();
		assert_eq!(ids_of(ledger.recent_samples(100).unwrap()), &ids[1..]);
	}

	#[test]
	fn everything_is_there_after_reopening() {
		let dir = TestDir::new("ledger-reopen");
		let path = dir.path().join("ledger.sqlite");
		let mut ledger = Ledger::open(&path).unwrap();
		for sequence in 1..7 {
			inserted(
				ledger
					.insert_batch("w", sequence, &samples(1, 0), &[])
					.unwrap(),
			);
		}
		let id = inserted(
			ledger
				.insert_batch("w", 7, &varied_samples(), &games(&["last"]))
				.unwrap(),
		);
		ledger
			.record_worker_seen("w", "alpha", "host-a", 4, "0.1.0", 1000.5)
			.unwrap();
		ledger.prune_samples_before(0).unwrap();
		let before = (
			ledger.totals().unwrap(),
			ledger.workers().unwrap(),
			ledger.batches_after(0).unwrap(),
		);
		drop(ledger);

		let mut ledger = Ledger::open(&path).unwrap();
		assert_eq!(ledger.totals().unwrap(), before.0);
		assert_eq!(ledger.workers().unwrap(), before.1);
		assert_eq!(ledger.batches_after(0).unwrap(), before.2);
		assert_eq!(ledger.batches_after(0).unwrap().last().unwrap().0, id);
		assert_eq!(ledger.last_sequence("w").unwrap(), 7);
		assert_eq!(ledger.last_game().unwrap().as_deref(), Some("last"));
		assert_eq!(
			ledger.insert_batch("w", 7, &samples(1, 0), &[]).unwrap(),
			BatchInsert::Duplicate,
			"deduplication survives a restart"
		);
	}

	#[test]
	fn a_ledger_from_a_newer_program_is_refused() {
		let dir = TestDir::new("ledger-too-new");
		let path = dir.path().join("ledger.sqlite");
		drop(Ledger::open(&path).unwrap());
		let raw = Connection::open(&path).unwrap();
		raw.pragma_update(None, "user_version", LATEST_VERSION + 1)
			.unwrap();
		drop(raw);
		match Ledger::open(&path) {
			Err(StorageError::SchemaVersion { found, known }) => {
				assert_eq!((found, known), (LATEST_VERSION + 1, LATEST_VERSION));
			}
			other => panic!("expected a schema version error, got {other:?}"),
		}
	}

	#[test]
	fn a_corrupt_blob_names_its_batch() {
		let dir = TestDir::new("ledger-corrupt-blob");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let id = inserted(ledger.insert_batch("w", 1, &samples(2, 0), &[]).unwrap());
		ledger
			.connection
			.execute(
				"UPDATE batch_samples SET samples = x'00' WHERE batch_id = ?1",
				[id],
			)
			.unwrap();
		let error = ledger.batches_after(0).unwrap_err().to_string();
		assert!(
			error.starts_with(&format!("the samples of batch {id} is corrupt")),
			"{error}"
		);
	}
}
