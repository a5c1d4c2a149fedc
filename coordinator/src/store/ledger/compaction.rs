//! Keeping the ledger bounded over a run of months: samples pruned once a checkpoint holds
//! them, a little at a time (their rows of `batch_samples` deleted), and old batch rows folded
//! into their worker's totals.
//!
//! **What compaction keeps.** A batch row is compacted (deleted, its counts added to its
//! worker's `compacted_batches`, `compacted_samples` and `compacted_games`) once it is *old*:
//! its samples are pruned (a checkpoint holds them), its games are in the game archive, it
//! was received more than [`COMPACT_AFTER`] ago, and its worker has a newer batch. So the ledger holds the batches of
//! the last [`COMPACT_AFTER`] and of any checkpoint not yet taken, one row per worker, and the
//! totals; its size follows the ingest rate times [`COMPACT_AFTER`], not the run's length.
//!
//! **Exactly once after compaction.** A worker's `last_sequence` is still the next batch's
//! bound, and `compacted_through` is the highest sequence compacted. A batch sent again at or
//! below it, whose row is gone, was stored unless its number is in `refused` (the numbers used
//! up by refusals, and those an older program left unstored): it is answered as a duplicate,
//! exactly as when its row was there, and a refused number is still refused.
//!
//! **Identities that never sent anything.** A worker row with no batch, no refused number and
//! nothing counted, not seen for [`FORGET_SILENT_AFTER`], is deleted: a flood of joins under
//! new identities leaves nothing behind for long. Such a worker that comes back joins as a new
//! identity would (its secret is adopted), having lost nothing.
//!
//! All three run in chunks of at most a given number of rows, so that the ledger's writer never
//! holds the database for long while batches wait.

use std::time::Duration;

use rusqlite::params;

use super::connection::Ledger;
use crate::store::storage_error::StorageError;

/// How long a batch row is kept at least: the restart's count of the last five minutes'
/// samples (`recent`) reads the rows of that span, and twice that leaves a margin for a clock
/// that stepped.
pub(crate) const COMPACT_AFTER: Duration = Duration::from_secs(600);

/// How long a worker that joined but never had a batch stored is kept in the ledger after it
/// was last seen joining: a day.
pub(crate) const FORGET_SILENT_AFTER: Duration = Duration::from_secs(24 * 3600);

impl Ledger {
	/// Asks for the samples of the batches before `id` to be pruned (a checkpoint holds them
	/// now); [`Ledger::prune_some`] does it.
	pub(crate) fn request_prune(&mut self, id: i64) {
		self.prune_before = self.prune_before.max(id);
	}

	/// Prunes the samples of at most `limit` batches before the id [`Ledger::request_prune`]
	/// asked for, oldest first; how many it pruned. Fewer than `limit` means it is done.
	///
	/// The samples are rows of `batch_samples` (schema version 10), deleted in id order, so
	/// their pages are freed whole and taken again by the next batches: the file holds the
	/// samples not yet in a checkpoint and the small rows of the batches not yet compacted.
	pub(crate) fn prune_some(&mut self, limit: usize) -> Result<u64, StorageError> {
		const DOING: &str = "pruning samples";
		if self.pruned_below >= self.prune_before {
			return Ok(0);
		}
		let last: Option<i64> = self
			.connection
			.query_row(
				"SELECT max(batch_id) FROM (SELECT batch_id FROM batch_samples
					WHERE batch_id >= ?1 AND batch_id < ?2 ORDER BY batch_id LIMIT ?3)",
				params![self.pruned_below, self.prune_before, limit as i64],
				|row| row.get(0),
			)
			.map_err(StorageError::sqlite(DOING))?;
		let Some(last) = last else {
			self.pruned_below = self.prune_before;
			return Ok(0);
		};
		let pruned = self
			.connection
			.execute(
				"DELETE FROM batch_samples WHERE batch_id >= ?1 AND batch_id <= ?2",
				params![self.pruned_below, last],
			)
			.map_err(StorageError::sqlite(DOING))?;
		self.pruned_below = last + 1;
		Ok(pruned as u64)
	}

	/// The newest batch's id, 0 if none.
	pub(crate) fn newest_batch_id(&self) -> Result<i64, StorageError> {
		self.connection
			.query_row("SELECT coalesce(max(id), 0) FROM batches", [], |row| {
				row.get(0)
			})
			.map_err(StorageError::sqlite("reading the newest batch's id"))
	}

	/// The id of the newest batch received before `received_before` (Unix seconds), 0 if none:
	/// where compaction may scan up to from the start, for the rows a previous process left.
	pub(crate) fn newest_batch_id_before(&self, received_before: f64) -> Result<i64, StorageError> {
		self.connection
			.query_row(
				"SELECT coalesce(max(id), 0) FROM batches WHERE received_at < ?1",
				[received_before],
				|row| row.get(0),
			)
			.map_err(StorageError::sqlite("reading the newest old batch's id"))
	}

	/// Deletes at most `limit` workers that never had a batch stored or refused and were last
	/// seen before `seen_before` (Unix seconds), in one unit; how many.
	pub(crate) fn forget_silent_workers(
		&mut self,
		seen_before: f64,
		limit: usize,
	) -> Result<u64, StorageError> {
		self.write_unit(|ledger| {
			let deleted = ledger
				.connection
				.execute(
					"DELETE FROM workers WHERE worker_id IN (
						SELECT worker_id FROM workers AS w
						WHERE last_seen < ?1 AND last_sequence = 0 AND samples = 0
							AND compacted_batches = 0
							AND NOT EXISTS (SELECT 1 FROM batches WHERE worker_id = w.worker_id)
							AND NOT EXISTS (SELECT 1 FROM refused WHERE worker_id = w.worker_id)
						LIMIT ?2)",
					params![seen_before, limit as i64],
				)
				.map_err(StorageError::sqlite("forgetting silent workers"))?;
			Ok(deleted as u64)
		})
	}

	/// Folds at most `limit` old batch rows (see the module's documentation) with ids up to
	/// `through_id`, received before `received_before` (Unix seconds), into their workers'
	/// totals, oldest first, in one unit; how many. Fewer than `limit` means none is left.
	/// `through_id` bounds the scan: the caller passes the newest id it saw long enough ago,
	/// so that the rows too young to go are not read every time.
	pub(crate) fn compact(
		&mut self,
		through_id: i64,
		received_before: f64,
		limit: usize,
	) -> Result<u64, StorageError> {
		const DOING: &str = "compacting batches";
		self.write_unit(|ledger| {
			let connection = &ledger.connection;
			connection
				.execute_batch(
					"CREATE TEMP TABLE IF NOT EXISTS compacting (id INTEGER PRIMARY KEY);
					DELETE FROM temp.compacting;",
				)
				.map_err(StorageError::sqlite(DOING))?;
			let chosen = connection
				.execute(
					"INSERT INTO temp.compacting (id)
					SELECT id FROM batches AS old
					WHERE id <= ?3 AND received_at < ?1
						AND NOT EXISTS (SELECT 1 FROM batch_samples WHERE batch_id = old.id)
						AND NOT EXISTS (SELECT 1 FROM batch_games WHERE batch_id = old.id)
						AND EXISTS (SELECT 1 FROM batches AS newer
							WHERE newer.worker_id = old.worker_id
							AND newer.sequence > old.sequence)
					ORDER BY id LIMIT ?2",
					params![received_before, limit as i64, through_id],
				)
				.map_err(StorageError::sqlite(DOING))?;
			if chosen == 0 {
				return Ok(0);
			}
			connection
				.execute_batch(
					"UPDATE workers SET
						compacted_through = max(compacted_through, folded.through),
						compacted_batches = compacted_batches + folded.batches,
						compacted_samples = compacted_samples + folded.samples,
						compacted_games = compacted_games + folded.games
					FROM (SELECT worker_id, max(sequence) AS through, count(*) AS batches,
							sum(sample_count) AS samples, sum(game_count) AS games
						FROM batches WHERE id IN (SELECT id FROM temp.compacting)
						GROUP BY worker_id) AS folded
					WHERE workers.worker_id = folded.worker_id;
					DELETE FROM batches WHERE id IN (SELECT id FROM temp.compacting);
					DELETE FROM temp.compacting;",
				)
				.map_err(StorageError::sqlite(DOING))?;
			Ok(chosen as u64)
		})
	}
}

#[cfg(test)]
impl Ledger {
	/// Every range of refused numbers, by worker and first sequence.
	pub(crate) fn refused_ranges(&self) -> Result<Vec<(String, u64, u64)>, StorageError> {
		const DOING: &str = "reading refused numbers";
		let mut statement = self
			.connection
			.prepare(
				"SELECT worker_id, first_sequence, last_sequence FROM refused
				ORDER BY worker_id, first_sequence",
			)
			.map_err(StorageError::sqlite(DOING))?;
		statement
			.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite(DOING))
	}
}

#[cfg(test)]
mod tests {
	use tigers_core::selfplay::Sample;
	use tigers_core::{GameBoard, Turn};

	use super::*;
	use crate::clock::unix_now;
	use crate::store::ledger::{BatchInsert, Totals};
	use crate::test_support::TestDir;

	fn samples(count: usize) -> Vec<Sample> {
		(0..count)
			.map(|ply| Sample {
				board: GameBoard::default(),
				turn: Turn::Sheep,
				score: 0.25,
				result: -1.0,
				ply: ply as u32,
				generation: 0,
			})
			.collect()
	}

	fn store(ledger: &mut Ledger, worker: &str, sequence: u64) -> BatchInsert {
		ledger
			.insert_batch(worker, sequence, &samples(2), &["g".to_string()])
			.unwrap()
	}

	fn rows(ledger: &Ledger) -> i64 {
		ledger
			.connection
			.query_row("SELECT count(*) FROM batches", [], |row| row.get(0))
			.unwrap()
	}

	/// The future, as far as compaction's age test is concerned: every row is old enough.
	fn later() -> f64 {
		unix_now() + 2.0 * COMPACT_AFTER.as_secs_f64()
	}

	#[test]
	fn pruning_goes_in_chunks_up_to_the_requested_id() {
		let dir = TestDir::new("compaction-prune");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		for sequence in 1..=5 {
			assert!(matches!(
				store(&mut ledger, "w", sequence),
				BatchInsert::Inserted { .. }
			));
		}
		assert_eq!(ledger.prune_some(10).unwrap(), 0, "nothing asked yet");
		ledger.request_prune(5);
		assert_eq!(ledger.prune_some(3).unwrap(), 3);
		assert_eq!(ledger.prune_some(3).unwrap(), 1);
		assert_eq!(ledger.prune_some(3).unwrap(), 0);
		// Batches 1 to 4 pruned, 5 kept: the window after a checkpoint at 4 still reads.
		assert_eq!(ledger.batches_after(4).unwrap().len(), 1);
		assert!(ledger.batches_after(3).is_err());
	}

	#[test]
	fn compaction_keeps_the_counts_and_exactly_once() {
		let dir = TestDir::new("compaction-exactly-once");
		let path = dir.path().join("ledger.sqlite");
		let mut ledger = Ledger::open(&path).unwrap();
		for sequence in 1..=3 {
			store(&mut ledger, "w", sequence);
		}
		// Batch 4 is refused as malformed: its number is used up, never stored.
		assert!(ledger.record_refusal("w", 4).unwrap());
		for sequence in 5..=6 {
			store(&mut ledger, "w", sequence);
		}
		store(&mut ledger, "other", 1);
		let before = ledger.totals().unwrap();
		assert_eq!(
			before,
			Totals {
				samples: 12,
				games: 6,
				batches: 6
			}
		);

		// Nothing is compacted while its samples are still needed, or while it is recent.
		assert_eq!(ledger.compact(i64::MAX, later(), 100).unwrap(), 0);
		ledger.request_prune(i64::MAX);
		while ledger.prune_some(2).unwrap() > 0 {}
		assert_eq!(ledger.compact(i64::MAX, unix_now() - 1.0, 100).unwrap(), 0);
		// Nor while its games wait for the game archive.
		assert_eq!(ledger.compact(i64::MAX, later(), 100).unwrap(), 0);
		let waiting: Vec<i64> = ledger
			.pending_games(0, 100)
			.unwrap()
			.iter()
			.map(|batch| batch.id)
			.collect();
		assert_eq!(waiting.len(), 6);
		ledger.record_archived(&waiting, &[]).unwrap();

		// Only up to the id given.
		assert_eq!(ledger.compact(1, later(), 100).unwrap(), 1);
		// Old enough: everything but each worker's newest row goes, two at a time.
		assert_eq!(ledger.compact(i64::MAX, later(), 2).unwrap(), 2);
		assert_eq!(ledger.compact(i64::MAX, later(), 2).unwrap(), 1);
		assert_eq!(ledger.compact(i64::MAX, later(), 2).unwrap(), 0);
		assert_eq!(rows(&ledger), 2);
		assert_eq!(ledger.totals().unwrap(), before);
		drop(ledger);

		// After a restart: a compacted batch sent again is a duplicate, the refused number
		// is still refused, the kept one a duplicate, and the next one is stored.
		let mut ledger = Ledger::open(&path).unwrap();
		for old in [1, 2, 3, 5, 6] {
			assert_eq!(
				store(&mut ledger, "w", old),
				BatchInsert::Duplicate,
				"{old}"
			);
		}
		assert_eq!(
			store(&mut ledger, "w", 4),
			BatchInsert::OutOfOrder { expected: 7 }
		);
		assert_eq!(ledger.totals().unwrap(), before);
		assert!(matches!(
			store(&mut ledger, "w", 7),
			BatchInsert::Inserted { .. }
		));
		assert_eq!(ledger.totals().unwrap().batches, 7);
		assert_eq!(
			ledger.samples_by_worker().unwrap()[1],
			("w".to_string(), 12)
		);
		assert_eq!(ledger.last_game().unwrap().as_deref(), Some("g"));
	}

	#[test]
	fn workers_that_never_sent_a_batch_are_forgotten_once_silent_long_enough() {
		let dir = TestDir::new("compaction-silent");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let now = unix_now();
		for worker in ["silent", "stored", "refused"] {
			ledger
				.record_worker_seen(worker, "n", "h", 1, "0.1.0", now)
				.unwrap();
		}
		store(&mut ledger, "stored", 1);
		assert!(ledger.record_refusal("refused", 1).unwrap());
		// Seen too recently: kept.
		assert_eq!(ledger.forget_silent_workers(now - 1.0, 100).unwrap(), 0);
		// Past the horizon, only the one with nothing to its name goes, a chunk at a time.
		for n in 0..3 {
			ledger
				.record_worker_seen(&format!("flood-{n}"), "n", "h", 1, "", now)
				.unwrap();
		}
		assert_eq!(ledger.forget_silent_workers(now + 1.0, 2).unwrap(), 2);
		assert_eq!(ledger.forget_silent_workers(now + 1.0, 100).unwrap(), 2);
		assert_eq!(ledger.forget_silent_workers(now + 1.0, 100).unwrap(), 0);
		assert!(ledger.worker("silent").unwrap().is_none());
		assert!(ledger.worker("stored").unwrap().is_some());
		assert!(ledger.worker("refused").unwrap().is_some());
		// Old batch rows are found for compaction from the start.
		assert_eq!(ledger.newest_batch_id_before(now - 60.0).unwrap(), 0);
		assert!(ledger.newest_batch_id_before(later()).unwrap() > 0);
	}

	#[test]
	fn pruned_samples_leave_room_for_the_next_batches() {
		// A batch's samples are most of its bytes; once pruned, their pages must serve the
		// batches that follow, or the file grows by every batch of the last ten minutes.
		let dir = TestDir::new("compaction-bounded");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let batch = samples(60);
		let per_round = 200;
		let round_bytes = crate::store::samples_codec::encode_samples(&batch).len() * per_round;
		let pages = |ledger: &Ledger| -> usize {
			let count: i64 = ledger
				.connection
				.query_row("PRAGMA page_count", [], |row| row.get(0))
				.unwrap();
			let size: i64 = ledger
				.connection
				.query_row("PRAGMA page_size", [], |row| row.get(0))
				.unwrap();
			(count * size) as usize
		};
		let mut sequence = 0;
		let mut sizes = Vec::new();
		for _ in 0..10 {
			for _ in 0..per_round {
				sequence += 1;
				assert!(matches!(
					ledger.insert_batch("w", sequence, &batch, &[]).unwrap(),
					BatchInsert::Inserted { .. }
				));
			}
			// A checkpoint took all of them: prune, but keep every row (nothing is compacted,
			// as in the ten minutes before a batch row is old).
			ledger.request_prune(ledger.newest_batch_id().unwrap() + 1);
			while ledger.prune_some(64).unwrap() > 0 {}
			sizes.push(pages(&ledger));
		}
		assert_eq!(rows(&ledger), 10 * per_round as i64);
		let growth = sizes[9] - sizes[1];
		assert!(
			growth < round_bytes / 4,
			"the file grew by {growth} bytes over eight rounds of {round_bytes} bytes of samples \
			 each: {sizes:?}"
		);
	}
}
