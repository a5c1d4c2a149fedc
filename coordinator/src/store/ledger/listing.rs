//! The ledger read a page at a time, for the web pages: promoted generations newest first,
//! with the gate that promoted each and its measurement at equal time, so that a page of a
//! run with thousands of nets reads a page's rows, not the run's.

use rusqlite::params;

use super::connection::Ledger;
use super::match_rows::{GATE_COLUMNS, GateRow, TIMED_COLUMNS, TimedRow, gate_row, timed_row};
use super::records::GenerationRow;
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

#[cfg(test)]
mod tests {
	use tigers_core::stats::GateStop;
	use tigers_core::tablebase::Accuracy;

	use super::*;
	use crate::test_support::TestDir;

	/// A gate match of a candidate for `candidate_generation`, its Elo telling it apart.
	fn gate(candidate_generation: u64, promoted: bool, elo: f64) -> GateRow {
		let accuracy = Accuracy { moves: 10, kept: 9 };
		GateRow {
			id: 0,
			candidate_generation,
			training_steps: 500,
			promoted,
			tigers_wins: 1,
			tigers_draws: 2,
			tigers_losses: 3,
			sheep_wins: 4,
			sheep_draws: 5,
			sheep_losses: 6,
			score: 0.6,
			score_low: 0.5,
			score_high: 0.7,
			elo,
			stop: StopReason::Candidate(GateStop::AcceptH1),
			reason: "stronger".to_string(),
			finished_at: 1234.5,
			pairs: [1, 2, 3, 4, 5],
			cpu_seconds: 3600.0,
			candidate_exact: accuracy,
			reference_exact: accuracy,
			candidate_placement: accuracy,
			reference_placement: accuracy,
			opponent_generation: None,
		}
	}

	fn promoted(generation: u64) -> GenerationRow {
		GenerationRow {
			generation,
			sha256: format!("{generation:064x}"),
			training_steps: generation * 100,
			promoted_at: 1000.0 + generation as f64,
			samples_at_promotion: generation * 1000,
		}
	}

	#[test]
	fn nets_come_newest_first_a_page_at_a_time_with_their_gate_and_measurement() {
		let dir = TestDir::new("listing-nets");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		for generation in 0..7 {
			ledger.record_generation(&promoted(generation)).unwrap();
		}
		// Generation 3: a candidate refused, then the one promoted, then its measurement.
		ledger.record_gate(&gate(3, false, 1.0)).unwrap();
		ledger.record_gate(&gate(3, true, 2.0)).unwrap();
		let measured = GateRow {
			stop: StopReason::Measured,
			..gate(3, true, 3.0)
		};
		ledger.record_gate(&measured).unwrap();
		ledger.record_gate(&gate(5, true, 5.0)).unwrap();
		assert_eq!(ledger.generation_count().unwrap(), 7);

		let first = ledger.nets_page(0, 3).unwrap();
		let numbers: Vec<u64> = first.iter().map(|n| n.generation.generation).collect();
		assert_eq!(numbers, [6, 5, 4]);
		assert_eq!(first[1].gate.as_ref().map(|g| g.elo), Some(5.0));
		assert!(first[0].gate.is_none() && first[1].measured.is_none());

		let second = ledger.nets_page(3, 3).unwrap();
		assert_eq!(second[0].generation, promoted(3));
		assert_eq!(second[0].gate.as_ref().map(|g| g.elo), Some(2.0));
		assert_eq!(second[0].measured.as_ref().map(|g| g.elo), Some(3.0));
		assert_eq!(ledger.nets_page(6, 3).unwrap().len(), 1);
		assert!(ledger.nets_page(9, 3).unwrap().is_empty());
		assert_eq!(ledger.generation(4).unwrap(), Some(promoted(4)));
		assert_eq!(ledger.generation(9).unwrap(), None);
		let (gates, timed) = ledger.strength().unwrap();
		assert_eq!(gates.len(), 3, "the promoted rows only");
		assert!(timed.is_empty());
	}
}
