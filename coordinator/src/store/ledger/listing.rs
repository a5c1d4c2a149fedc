//! The ledger read a page at a time, for the web pages: promoted generations newest first,
//! with the gate that promoted each and its measurement at equal time, so that a page of a
//! run with thousands of nets reads a page's rows, not the run's.

use rusqlite::params;

use super::connection::Ledger;
use super::records::{
	GATE_COLUMNS, GateRow, GenerationRow, TIMED_COLUMNS, TimedRow, gate_row, timed_row,
};
use super::stop_reason::StopReason;
use crate::store::storage_error::StorageError;

/// A promoted net with what the ledger knows of its strength.
#[derive(Clone, Debug)]
pub(crate) struct NetListing {
	/// The promotion.
	pub generation: GenerationRow,
	/// The gate match that promoted it (none for generation 0, or a net promoted without one).
	pub gate: Option<GateRow>,
	/// Its measurement at fixed depth on fresh openings, if it has been measured.
	pub measured: Option<GateRow>,
	/// Its measurement at equal time, if it has been measured.
	pub timed: Option<TimedRow>,
}

impl Ledger {
	/// How many generations were promoted.
	pub(crate) fn generation_count(&self) -> Result<u64, StorageError> {
		self.connection
			.query_row("SELECT count(*) FROM generations", [], |row| row.get(0))
			.map_err(StorageError::sqlite("counting generations"))
	}

	/// One generation's promotion, if it was promoted.
	pub(crate) fn generation(
		&self,
		generation: u64,
	) -> Result<Option<GenerationRow>, StorageError> {
		Ok(self.generations_between(generation, generation)?.pop())
	}

	/// The promoted nets from `skip` newest on, at most `limit`, newest first, each with its
	/// promoting gate and measurement.
	pub(crate) fn nets_page(&self, skip: u64, limit: u64) -> Result<Vec<NetListing>, StorageError> {
		const DOING: &str = "reading a page of generations";
		let mut statement = self
			.connection
			.prepare_cached(
				"SELECT generation FROM generations ORDER BY generation DESC LIMIT ?1 OFFSET ?2",
			)
			.map_err(StorageError::sqlite(DOING))?;
		let numbers: Vec<u64> = statement
			.query_map(params![limit, skip], |row| row.get(0))
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite(DOING))?;
		let (Some(&high), Some(&low)) = (numbers.first(), numbers.last()) else {
			return Ok(Vec::new());
		};
		let gates = self.promoting_gates_between(low, high)?;
		let timed = self.timed_between(low, high)?;
		let mut nets: Vec<NetListing> = self
			.generations_between(low, high)?
			.into_iter()
			.rev()
			.map(|generation| NetListing {
				gate: latest(&gates, generation.generation, false),
				measured: latest(&gates, generation.generation, true),
				timed: timed
					.iter()
					.find(|t| t.generation == generation.generation)
					.cloned(),
				generation,
			})
			.collect();
		nets.truncate(limit as usize);
		Ok(nets)
	}

	/// Every gate row of a promoted net (its promoting match and its measurements at fixed
	/// depth) and every measurement at equal time, oldest first: the strength chart's points.
	pub(crate) fn strength(&self) -> Result<(Vec<GateRow>, Vec<TimedRow>), StorageError> {
		Ok((
			self.promoting_gates_between(0, u64::MAX >> 1)?,
			self.timed()?,
		))
	}

	/// The promotions of generations `low..=high`, oldest first.
	fn generations_between(&self, low: u64, high: u64) -> Result<Vec<GenerationRow>, StorageError> {
		const DOING: &str = "reading generations";
		let mut statement = self
			.connection
			.prepare_cached(
				"SELECT generation, sha256, training_steps, promoted_at, samples_at_promotion
				FROM generations WHERE generation BETWEEN ?1 AND ?2 ORDER BY generation",
			)
			.map_err(StorageError::sqlite(DOING))?;
		statement
			.query_map(params![low, high], |row| {
				Ok(GenerationRow {
					generation: row.get(0)?,
					sha256: row.get(1)?,
					training_steps: row.get(2)?,
					promoted_at: row.get::<_, Option<f64>>(3)?.unwrap_or(f64::NAN),
					samples_at_promotion: row.get(4)?,
				})
			})
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite(DOING))
	}

	/// The gate matches that promoted a candidate to a generation in `low..=high`, in the
	/// order they finished.
	fn promoting_gates_between(&self, low: u64, high: u64) -> Result<Vec<GateRow>, StorageError> {
		const DOING: &str = "reading the gates of generations";
		let sql = format!(
			"SELECT {GATE_COLUMNS} FROM gates WHERE promoted = 1 \
			 AND candidate_generation BETWEEN ?1 AND ?2 ORDER BY id"
		);
		let mut statement = self
			.connection
			.prepare_cached(&sql)
			.map_err(StorageError::sqlite(DOING))?;
		statement
			.query_map(params![low, high], gate_row)
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite(DOING))
	}

	/// The measurements at equal time of generations `low..=high`, by generation.
	fn timed_between(&self, low: u64, high: u64) -> Result<Vec<TimedRow>, StorageError> {
		const DOING: &str = "reading measurements of generations";
		let sql = format!(
			"SELECT {TIMED_COLUMNS} FROM timed WHERE generation BETWEEN ?1 AND ?2 ORDER BY generation"
		);
		let mut statement = self
			.connection
			.prepare_cached(&sql)
			.map_err(StorageError::sqlite(DOING))?;
		statement
			.query_map(params![low, high], timed_row)
			.and_then(Iterator::collect)
			.map_err(StorageError::sqlite(DOING))
	}
}

/// The latest of `gates` of `generation` that is a measurement (or is not, as `measured`).
fn latest(gates: &[GateRow], generation: u64, measured: bool) -> Option<GateRow> {
	gates
		.iter()
		.rev()
		.find(|g| {
			g.candidate_generation == generation && (g.stop == StopReason::Measured) == measured
		})
		.cloned()
}
