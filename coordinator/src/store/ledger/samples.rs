//! The stored batches read back: the samples a training window lacks, the run's totals, the
//! recent batches' counts and the last game.

use rusqlite::OptionalExtension;
use tigers_core::selfplay::Sample;

use super::connection::Ledger;
use super::records::BatchSummary;
use crate::store::samples_codec::decode_samples;
use crate::store::storage_error::StorageError;

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

impl Ledger {
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
