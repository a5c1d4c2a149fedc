//! The `grades` table: each promoted net's grades on the grading suite, one row a generation.

use rusqlite::{Row, params};
use tigers_core::grade::{Grades, PhaseGrades};

use super::connection::Ledger;
use crate::store::storage_error::StorageError;

/// A promoted net's grades on the suite at a fixed depth.
#[derive(Clone, Debug, PartialEq)]
pub struct GradeRow {
	/// The graded generation.
	pub generation: u64,
	/// The search's depth for the move grade.
	pub depth: u32,
	/// The sha256 of the suite's text, so that grades on different suites are not compared.
	pub suite_sha256: String,
	/// The counts, by phase.
	pub grades: Grades,
	/// Unix seconds when the grading finished.
	pub graded_at: f64,
	/// Worker CPU-seconds over the run then.
	pub cpu_seconds: f64,
}

const GRADE_COLUMNS: &str = "generation, depth, suite_sha256, placement_positions, \
	placement_class_right, placement_moves_kept, movement_positions, movement_class_right, \
	movement_moves_kept, graded_at, cpu_seconds";

impl Ledger {
	/// Records (or replaces) a generation's grades.
	pub(crate) fn record_grade(&mut self, row: &GradeRow) -> Result<(), StorageError> {
		let (p, m) = (row.grades.placement, row.grades.movement);
		self.connection
			.execute(
				&format!(
					"INSERT OR REPLACE INTO grades ({GRADE_COLUMNS}) \
					 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
				),
				params![
					row.generation,
					row.depth,
					row.suite_sha256,
					p.positions,
					p.class_right,
					p.moves_kept,
					m.positions,
					m.class_right,
					m.moves_kept,
					row.graded_at,
					row.cpu_seconds,
				],
			)
			.map(drop)
			.map_err(StorageError::sqlite("recording a net's grades"))
	}

	/// Every graded generation's grades, by generation.
	pub fn grades(&self) -> Result<Vec<GradeRow>, StorageError> {
		self.rows(
			&format!("SELECT {GRADE_COLUMNS} FROM grades ORDER BY generation"),
			"reading the nets' grades",
			grade_row,
		)
	}
}

fn grade_row(row: &Row<'_>) -> rusqlite::Result<GradeRow> {
	let phase = |first: usize| -> rusqlite::Result<PhaseGrades> {
		Ok(PhaseGrades {
			positions: row.get(first)?,
			class_right: row.get(first + 1)?,
			moves_kept: row.get(first + 2)?,
		})
	};
	Ok(GradeRow {
		generation: row.get(0)?,
		depth: row.get(1)?,
		suite_sha256: row.get(2)?,
		grades: Grades {
			placement: phase(3)?,
			movement: phase(6)?,
		},
		graded_at: row.get(9)?,
		cpu_seconds: row.get(10)?,
	})
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::test_support::TestDir;

	#[test]
	fn grades_are_kept_by_generation_and_replaced_when_graded_again() {
		let dir = TestDir::new("ledger-grades");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let row = |generation, kept| GradeRow {
			generation,
			depth: 3,
			suite_sha256: "ab".repeat(32),
			grades: Grades {
				placement: PhaseGrades {
					positions: 500,
					class_right: 400,
					moves_kept: kept,
				},
				movement: PhaseGrades {
					positions: 500,
					class_right: 300,
					moves_kept: 490,
				},
			},
			graded_at: 1000.5,
			cpu_seconds: 36.0,
		};
		ledger.record_grade(&row(2, 480)).unwrap();
		ledger.record_grade(&row(1, 470)).unwrap();
		ledger.record_grade(&row(2, 481)).unwrap();
		assert_eq!(ledger.grades().unwrap(), [row(1, 470), row(2, 481)]);
	}
}
