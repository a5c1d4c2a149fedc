//! The ledger's small tables: promoted generations, training losses and throughput, as rows;
//! `BatchSummary`, a batch without its samples; and the helpers every table's reader shares.
//! The workers are in `worker_rows`, the gate matches and measurements in `match_rows`.

use rusqlite::{Row, params};

use super::connection::Ledger;
use crate::store::storage_error::StorageError;

/// A stored batch, counted but not read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BatchSummary {
	/// When it was received, unix seconds.
	pub received_at: f64,
	/// Samples in it.
	pub samples: u64,
	/// The oldest and newest generation of its samples; `None` if it had none.
	pub generation_min: Option<u64>,
	/// See `generation_min`.
	pub generation_max: Option<u64>,
}

/// A promoted generation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GenerationRow {
	/// The generation number.
	pub generation: u64,
	/// The sha256 of its net file, in hex.
	pub sha256: String,
	/// Training steps taken when it was promoted.
	pub training_steps: u64,
	/// When it was promoted, unix seconds.
	pub promoted_at: f64,
	/// Samples received in the run when it was promoted.
	pub samples_at_promotion: u64,
}

/// A snapshot of the run's throughput.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ThroughputRow {
	/// When, unix seconds.
	pub at: f64,
	/// Samples received so far.
	pub samples_total: u64,
	/// Games received so far.
	pub games_total: u64,
	/// Training steps so far.
	pub training_steps: u64,
	/// Workers connected at that moment.
	pub workers_connected: u32,
	/// Worker CPU-seconds over the run so far.
	pub cpu_seconds: f64,
}

impl Ledger {
	/// Records a promotion. Recording a generation again replaces its row, as saving its net
	/// again replaces its file (a coordinator that crashed during a promotion redoes it).
	pub(crate) fn record_generation(&mut self, row: &GenerationRow) -> Result<(), StorageError> {
		self.connection
			.execute(
				"INSERT OR REPLACE INTO generations (generation, sha256, training_steps,
					promoted_at, samples_at_promotion)
				VALUES (?1, ?2, ?3, ?4, ?5)",
				params![
					row.generation,
					row.sha256,
					row.training_steps,
					row.promoted_at,
					row.samples_at_promotion
				],
			)
			.map(drop)
			.map_err(StorageError::sqlite("recording a generation"))
	}

	/// Every promoted generation, oldest first.
	pub(crate) fn generations(&self) -> Result<Vec<GenerationRow>, StorageError> {
		self.rows(
			"SELECT generation, sha256, training_steps, promoted_at, samples_at_promotion
			FROM generations ORDER BY generation",
			"reading generations",
			|row| {
				Ok(GenerationRow {
					generation: row.get(0)?,
					sha256: row.get(1)?,
					training_steps: row.get(2)?,
					promoted_at: real(row, 3)?,
					samples_at_promotion: row.get(4)?,
				})
			},
		)
	}

	/// Records the loss of training step `step`. After a restart from a checkpoint the steps
	/// since it are trained again; their new losses replace the old.
	pub(crate) fn record_loss(
		&mut self,
		step: u64,
		loss: f32,
		now: f64,
	) -> Result<(), StorageError> {
		self.connection
			.execute(
				"INSERT OR REPLACE INTO losses (step, loss, recorded_at) VALUES (?1, ?2, ?3)",
				params![step, f64::from(loss), now],
			)
			.map(drop)
			.map_err(StorageError::sqlite("recording a loss"))
	}

	/// The losses of steps `since_step` and later, by step; `losses(0)` gives them all.
	pub(crate) fn losses(&self, since_step: u64) -> Result<Vec<(u64, f32)>, StorageError> {
		let since = i64::try_from(since_step).unwrap_or(i64::MAX);
		let mut statement = self
			.connection
			.prepare("SELECT step, loss FROM losses WHERE step >= ?1 ORDER BY step")
			.map_err(StorageError::sqlite("reading losses"))?;
		statement
			.query_map([since], |row| Ok((row.get(0)?, real(row, 1)? as f32)))
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite("reading losses"))
	}

	/// Records a throughput snapshot (replacing one taken at the very same time).
	pub(crate) fn record_throughput(&mut self, row: ThroughputRow) -> Result<(), StorageError> {
		self.connection
			.execute(
				"INSERT OR REPLACE INTO throughput (at, samples_total, games_total,
					training_steps, workers_connected, cpu_seconds)
				VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
				params![
					row.at,
					row.samples_total,
					row.games_total,
					row.training_steps,
					row.workers_connected,
					row.cpu_seconds
				],
			)
			.map(drop)
			.map_err(StorageError::sqlite("recording throughput"))
	}

	/// Every throughput snapshot, oldest first.
	pub(crate) fn throughput(&self) -> Result<Vec<ThroughputRow>, StorageError> {
		self.rows(
			"SELECT at, samples_total, games_total, training_steps, workers_connected,
				cpu_seconds
			FROM throughput ORDER BY at",
			"reading throughput",
			|row| {
				Ok(ThroughputRow {
					at: real(row, 0)?,
					samples_total: row.get(1)?,
					games_total: row.get(2)?,
					training_steps: row.get(3)?,
					workers_connected: row.get(4)?,
					cpu_seconds: real(row, 5)?,
				})
			},
		)
	}

	/// All rows of a query without parameters, each read by `read`.
	pub(super) fn rows<T>(
		&self,
		sql: &str,
		doing: &'static str,
		read: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
	) -> Result<Vec<T>, StorageError> {
		let mut statement = self
			.connection
			.prepare(sql)
			.map_err(StorageError::sqlite(doing))?;
		statement
			.query_map([], read)
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite(doing))
	}
}

/// A `REAL` column, with `NULL` read as NaN: SQLite stores NaN as `NULL`.
pub(super) fn real(row: &Row<'_>, index: usize) -> rusqlite::Result<f64> {
	Ok(row.get::<_, Option<f64>>(index)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::test_support::TestDir;

	#[test]
	fn generations_losses_and_throughput_read_back() {
		let dir = TestDir::new("records-rows");
		let path = dir.path().join("ledger.sqlite");
		let mut ledger = Ledger::open(&path).unwrap();
		let generation = |generation, sha: &str| GenerationRow {
			generation,
			sha256: sha.to_string(),
			training_steps: generation * 100,
			promoted_at: 10.0 * generation as f64,
			samples_at_promotion: generation * 1000,
		};
		ledger.record_generation(&generation(2, "bb")).unwrap();
		ledger.record_generation(&generation(1, "aa")).unwrap();
		ledger.record_generation(&generation(2, "cc")).unwrap();
		ledger.record_loss(1, 0.5, 1.0).unwrap();
		ledger.record_loss(2, f32::NAN, 2.0).unwrap();
		ledger.record_loss(3, 0.25, 3.0).unwrap();
		ledger.record_loss(3, 0.125, 4.0).unwrap();
		let snapshot = ThroughputRow {
			at: 50.25,
			samples_total: 10,
			games_total: 2,
			training_steps: 3,
			workers_connected: 1,
			cpu_seconds: 7.25,
		};
		ledger.record_throughput(snapshot).unwrap();
		ledger
			.record_throughput(ThroughputRow {
				at: 40.0,
				..snapshot
			})
			.unwrap();
		drop(ledger);

		let ledger = Ledger::open(&path).unwrap();
		assert_eq!(
			ledger.generations().unwrap(),
			[generation(1, "aa"), generation(2, "cc")]
		);
		let losses = ledger.losses(0).unwrap();
		assert_eq!(losses.len(), 3);
		assert!(losses[1].1.is_nan(), "a NaN loss reads back as NaN");
		assert_eq!(
			losses[2],
			(3, 0.125),
			"a step trained again replaces its loss"
		);
		assert_eq!(ledger.losses(2).unwrap().len(), 2);
		assert!(ledger.losses(4).unwrap().is_empty());
		let throughput = ledger.throughput().unwrap();
		assert_eq!(
			throughput,
			[
				ThroughputRow {
					at: 40.0,
					..snapshot
				},
				snapshot
			]
		);
	}
}
