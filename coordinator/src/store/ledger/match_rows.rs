//! The `gates` and `timed` tables: finished gate matches and measurements at equal time per
//! move, as rows, with their pair counts as text and the tablebase's role.

use rusqlite::{Row, params};
use tigers_core::gate::TableRole;
use tigers_core::tablebase::Accuracy;
use tigers_core::versus::{MatchResult, SideResult};

use super::connection::Ledger;
use super::records::real;
use super::stop_reason::{StopReason, UnknownStop};
use crate::store::storage_error::StorageError;

/// A finished gate match.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GateRow {
	/// The row's id; [`Ledger::record_gate`] ignores it and assigns a new one.
	pub id: i64,
	/// The generation the candidate would have (had) on promotion.
	pub candidate_generation: u64,
	/// Training steps the candidate had.
	pub training_steps: u64,
	/// Whether it was promoted.
	pub promoted: bool,
	/// Games the candidate won playing tigers.
	pub tigers_wins: u32,
	/// Games drawn with the candidate playing tigers.
	pub tigers_draws: u32,
	/// Games the candidate lost playing tigers.
	pub tigers_losses: u32,
	/// Games the candidate won playing sheep.
	pub sheep_wins: u32,
	/// Games drawn with the candidate playing sheep.
	pub sheep_draws: u32,
	/// Games the candidate lost playing sheep.
	pub sheep_losses: u32,
	/// The candidate's score, 0..=1.
	pub score: f64,
	/// The low end of the score's interval.
	pub score_low: f64,
	/// The high end of the score's interval.
	pub score_high: f64,
	/// The Elo difference the score means.
	pub elo: f64,
	/// Why the match stopped (the SPRT's decision or the cap), or that it was a measurement.
	pub stop: StopReason,
	/// Why the candidate was or was not promoted.
	pub reason: String,
	/// When the match finished, unix seconds.
	pub finished_at: f64,
	/// Worker CPU-seconds over the run when it finished.
	pub cpu_seconds: f64,
	/// The candidate's movement-phase moves that kept the exact result (none without a table).
	pub candidate_exact: Accuracy,
	/// ClaudePlayer's, in the same games.
	pub reference_exact: Accuracy,
	/// The candidate's placement-phase moves that kept the exact value, judged by the solved
	/// placement phase (none without its layers).
	pub candidate_placement: Accuracy,
	/// ClaudePlayer's, in the same games.
	pub reference_placement: Accuracy,
	/// Pairs of games by the candidate's points in the pair (0, ½, 1, 1½, 2), which the SPRT
	/// and the promotion rule need to compare a later candidate with this one. Stored as text,
	/// five numbers separated by commas.
	pub pairs: [u32; 5],
	/// Whom the candidate played: `None` for `ClaudePlayer` (every measurement, and every gate
	/// but `--gate incumbent`'s), or the generation of the incumbent net it played head to head.
	pub opponent_generation: Option<u64>,
}

/// A promoted net measured at equal time per move against ClaudePlayer, all pairs played.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedRow {
	/// The measured generation.
	pub generation: u64,
	/// Each player's time a move, in milliseconds.
	pub move_ms: u64,
	/// The net's games by side, from its point of view.
	pub result: MatchResult,
	/// The net's score, 0..=1.
	pub score: f64,
	/// The low end of the score's interval.
	pub score_low: f64,
	/// The high end of the score's interval.
	pub score_high: f64,
	/// The Elo difference the score means.
	pub elo: f64,
	/// Pairs of games by the net's points in the pair, as in [`GateRow::pairs`].
	pub pairs: [u32; 5],
	/// The net's movement-phase moves that kept the exact result (none without a table).
	pub candidate_exact: Accuracy,
	/// ClaudePlayer's, in the same games.
	pub reference_exact: Accuracy,
	/// The net's placement-phase moves that kept the exact value (none without the layers).
	pub candidate_placement: Accuracy,
	/// ClaudePlayer's, in the same games.
	pub reference_placement: Accuracy,
	/// When the measurement started and finished, unix seconds.
	pub started_at: f64,
	/// See `started_at`.
	pub finished_at: f64,
	/// Worker CPU-seconds over the run when it finished.
	pub cpu_seconds: f64,
	/// What the tablebase did in the games: `None` if there was none.
	pub tablebase: Option<TableRole>,
}

/// A measurement's tablebase role as the ledger's `timed.tablebase` column keeps it.
pub(crate) fn table_role_text(role: Option<TableRole>) -> &'static str {
	role.map_or("none", TableRole::name)
}

/// The role a `timed.tablebase` value records. `NULL` is a row measured before the column
/// existed, when the table only judged: judged if any move was judged, else no table.
fn table_role_from(text: Option<&str>, judged_moves: u32) -> Option<TableRole> {
	match text {
		Some(text) => text.parse().ok(),
		None => (judged_moves > 0).then_some(TableRole::Judge),
	}
}

fn pairs_text(pairs: &[u32; 5]) -> String {
	pairs.map(|p| p.to_string()).join(",")
}

fn pairs_from_text(text: &str) -> Option<[u32; 5]> {
	let numbers: Vec<u32> = text
		.split(',')
		.map(|p| p.parse().ok())
		.collect::<Option<_>>()?;
	numbers.try_into().ok()
}

impl Ledger {
	/// Records a finished gate match; returns its new id.
	pub(crate) fn record_gate(&mut self, gate: &GateRow) -> Result<i64, StorageError> {
		self.connection
			.execute(
				"INSERT INTO gates (candidate_generation, training_steps, promoted, tigers_wins,
					tigers_draws, tigers_losses, sheep_wins, sheep_draws, sheep_losses, score,
					score_low, score_high, elo, stop, reason, finished_at, pairs, cpu_seconds,
					candidate_exact_moves, candidate_exact_kept, reference_exact_moves,
					reference_exact_kept, candidate_placement_moves, candidate_placement_kept,
					reference_placement_moves, reference_placement_kept, opponent_generation)
				VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
					?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)",
				params![
					gate.candidate_generation,
					gate.training_steps,
					gate.promoted,
					gate.tigers_wins,
					gate.tigers_draws,
					gate.tigers_losses,
					gate.sheep_wins,
					gate.sheep_draws,
					gate.sheep_losses,
					gate.score,
					gate.score_low,
					gate.score_high,
					gate.elo,
					gate.stop.as_str(),
					gate.reason,
					gate.finished_at,
					pairs_text(&gate.pairs),
					gate.cpu_seconds,
					gate.candidate_exact.moves,
					gate.candidate_exact.kept,
					gate.reference_exact.moves,
					gate.reference_exact.kept,
					gate.candidate_placement.moves,
					gate.candidate_placement.kept,
					gate.reference_placement.moves,
					gate.reference_placement.kept,
					gate.opponent_generation,
				],
			)
			.map_err(StorageError::sqlite("recording a gate match"))?;
		Ok(self.connection.last_insert_rowid())
	}

	/// Every gate match, in the order they finished.
	pub(crate) fn gates(&self) -> Result<Vec<GateRow>, StorageError> {
		self.rows(
			&format!("SELECT {GATE_COLUMNS} FROM gates ORDER BY id"),
			"reading gate matches",
			gate_row,
		)
	}

	/// Records a measurement at equal time, replacing an earlier one of the same generation.
	pub(crate) fn record_timed(&mut self, timed: &TimedRow) -> Result<(), StorageError> {
		let (t, s) = (timed.result.as_tigers, timed.result.as_sheep);
		self.connection
			.execute(
				"INSERT OR REPLACE INTO timed (generation, move_ms, tigers_wins, tigers_draws,
					tigers_losses, sheep_wins, sheep_draws, sheep_losses, score, score_low,
					score_high, elo, pairs, candidate_exact_moves, candidate_exact_kept,
					reference_exact_moves, reference_exact_kept, started_at, finished_at,
					cpu_seconds, tablebase, candidate_placement_moves, candidate_placement_kept,
					reference_placement_moves, reference_placement_kept)
				VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
					?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
				params![
					timed.generation,
					timed.move_ms,
					t.wins,
					t.draws,
					t.losses,
					s.wins,
					s.draws,
					s.losses,
					timed.score,
					timed.score_low,
					timed.score_high,
					timed.elo,
					pairs_text(&timed.pairs),
					timed.candidate_exact.moves,
					timed.candidate_exact.kept,
					timed.reference_exact.moves,
					timed.reference_exact.kept,
					timed.started_at,
					timed.finished_at,
					timed.cpu_seconds,
					table_role_text(timed.tablebase),
					timed.candidate_placement.moves,
					timed.candidate_placement.kept,
					timed.reference_placement.moves,
					timed.reference_placement.kept,
				],
			)
			.map_err(StorageError::sqlite(
				"recording a measurement at equal time",
			))?;
		Ok(())
	}

	/// Every measurement at equal time, by generation.
	pub fn timed(&self) -> Result<Vec<TimedRow>, StorageError> {
		self.rows(
			&format!("SELECT {TIMED_COLUMNS} FROM timed ORDER BY generation"),
			"reading measurements at equal time",
			timed_row,
		)
	}
}

/// The columns [`gate_row`] reads, in its order, from `gates`.
pub(super) const GATE_COLUMNS: &str = "id, candidate_generation, training_steps, promoted, tigers_wins, tigers_draws, \
	tigers_losses, sheep_wins, sheep_draws, sheep_losses, score, score_low, score_high, elo, \
	stop, reason, finished_at, pairs, cpu_seconds, candidate_exact_moves, \
	candidate_exact_kept, reference_exact_moves, reference_exact_kept, \
	candidate_placement_moves, candidate_placement_kept, reference_placement_moves, \
	reference_placement_kept, opponent_generation";

/// A gate match from a row of [`GATE_COLUMNS`].
pub(super) fn gate_row(row: &Row<'_>) -> rusqlite::Result<GateRow> {
	Ok(GateRow {
		id: row.get(0)?,
		candidate_generation: row.get(1)?,
		training_steps: row.get(2)?,
		promoted: row.get(3)?,
		tigers_wins: row.get(4)?,
		tigers_draws: row.get(5)?,
		tigers_losses: row.get(6)?,
		sheep_wins: row.get(7)?,
		sheep_draws: row.get(8)?,
		sheep_losses: row.get(9)?,
		score: real(row, 10)?,
		score_low: real(row, 11)?,
		score_high: real(row, 12)?,
		elo: real(row, 13)?,
		stop: row
			.get::<_, String>(14)?
			.parse()
			.map_err(|e: UnknownStop| {
				rusqlite::Error::FromSqlConversionFailure(
					14,
					rusqlite::types::Type::Text,
					Box::new(e),
				)
			})?,
		reason: row.get(15)?,
		finished_at: real(row, 16)?,
		pairs: pairs_from_text(&row.get::<_, String>(17)?).ok_or_else(|| {
			rusqlite::Error::FromSqlConversionFailure(
				17,
				rusqlite::types::Type::Text,
				"the pairs column is not five numbers".into(),
			)
		})?,
		cpu_seconds: real(row, 18)?,
		candidate_exact: accuracy(row, 19)?,
		reference_exact: accuracy(row, 21)?,
		candidate_placement: accuracy(row, 23)?,
		reference_placement: accuracy(row, 25)?,
		opponent_generation: row.get(27)?,
	})
}

/// The columns [`timed_row`] reads, in its order, from `timed`.
pub(super) const TIMED_COLUMNS: &str = "generation, move_ms, tigers_wins, tigers_draws, tigers_losses, sheep_wins, sheep_draws, \
	sheep_losses, score, score_low, score_high, elo, pairs, candidate_exact_moves, \
	candidate_exact_kept, reference_exact_moves, reference_exact_kept, started_at, \
	finished_at, cpu_seconds, tablebase, candidate_placement_moves, \
	candidate_placement_kept, reference_placement_moves, reference_placement_kept";

/// A measurement at equal time from a row of [`TIMED_COLUMNS`].
pub(super) fn timed_row(row: &Row<'_>) -> rusqlite::Result<TimedRow> {
	let side = |first: usize| -> rusqlite::Result<SideResult> {
		Ok(SideResult {
			wins: row.get(first)?,
			draws: row.get(first + 1)?,
			losses: row.get(first + 2)?,
		})
	};
	Ok(TimedRow {
		generation: row.get(0)?,
		move_ms: row.get(1)?,
		result: MatchResult {
			as_tigers: side(2)?,
			as_sheep: side(5)?,
		},
		score: real(row, 8)?,
		score_low: real(row, 9)?,
		score_high: real(row, 10)?,
		elo: real(row, 11)?,
		pairs: pairs_from_text(&row.get::<_, String>(12)?).ok_or_else(|| {
			rusqlite::Error::FromSqlConversionFailure(
				12,
				rusqlite::types::Type::Text,
				"the pairs column is not five numbers".into(),
			)
		})?,
		candidate_exact: accuracy(row, 13)?,
		reference_exact: accuracy(row, 15)?,
		candidate_placement: accuracy(row, 21)?,
		reference_placement: accuracy(row, 23)?,
		started_at: real(row, 17)?,
		finished_at: real(row, 18)?,
		cpu_seconds: real(row, 19)?,
		tablebase: table_role_from(row.get::<_, Option<String>>(20)?.as_deref(), row.get(13)?),
	})
}

/// An accuracy from two columns, its moves at `first` and those kept after it.
fn accuracy(row: &Row<'_>, first: usize) -> rusqlite::Result<Accuracy> {
	Ok(Accuracy {
		moves: row.get(first)?,
		kept: row.get(first + 1)?,
	})
}

#[cfg(test)]
mod tests {
	use tigers_core::stats::GateStop;

	use super::*;
	use crate::test_support::TestDir;

	fn gate(candidate_generation: u64, promoted: bool, elo: f64) -> GateRow {
		GateRow {
			id: 0,
			candidate_generation,
			training_steps: 500,
			promoted,
			tigers_wins: 10,
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
			cpu_seconds: 3600.5,
			candidate_exact: Accuracy {
				moves: 120,
				kept: 117,
			},
			reference_exact: Accuracy {
				moves: 110,
				kept: 109,
			},
			candidate_placement: Accuracy {
				moves: 60,
				kept: 51,
			},
			reference_placement: Accuracy {
				moves: 61,
				kept: 49,
			},
			opponent_generation: Some(7),
		}
	}

	#[test]
	fn a_measurements_table_role_reads_back_and_older_rows_were_judged() {
		for role in [Some(TableRole::Play), Some(TableRole::Judge), None] {
			assert_eq!(table_role_from(Some(table_role_text(role)), 10), role);
		}
		// Rows from before the column: the table judged, if there was one.
		assert_eq!(table_role_from(None, 10), Some(TableRole::Judge));
		assert_eq!(table_role_from(None, 0), None);
	}

	#[test]
	fn a_gates_stop_is_kept_as_text_and_unknown_text_is_refused() {
		let dir = TestDir::new("records-gate-stop");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		let measured = GateRow {
			stop: StopReason::Measured,
			..gate(1, true, 10.0)
		};
		let id = ledger.record_gate(&measured).unwrap();
		let stored: String = ledger
			.connection
			.query_row("SELECT stop FROM gates WHERE id = ?1", [id], |row| {
				row.get(0)
			})
			.unwrap();
		assert_eq!(stored, "Measured", "the text older builds wrote and read");
		assert_eq!(ledger.gates().unwrap()[0].stop, StopReason::Measured);
		ledger
			.connection
			.execute("UPDATE gates SET stop = 'H1?' WHERE id = ?1", [id])
			.unwrap();
		let refused = ledger.gates().unwrap_err().to_string();
		assert!(
			refused.contains("\"H1?\" is not a gate's stop"),
			"{refused}"
		);
	}

	#[test]
	fn gates_and_measurements_read_back() {
		let dir = TestDir::new("records-gates");
		let path = dir.path().join("ledger.sqlite");
		let mut ledger = Ledger::open(&path).unwrap();
		let first = ledger.record_gate(&gate(2, true, 35.5)).unwrap();
		let second = ledger.record_gate(&gate(3, false, f64::INFINITY)).unwrap();
		assert!(second > first);
		let timed = |generation, score| TimedRow {
			generation,
			move_ms: 100,
			result: MatchResult {
				as_tigers: SideResult {
					wins: 3,
					draws: 2,
					losses: 1,
				},
				as_sheep: SideResult {
					wins: 1,
					draws: 4,
					losses: 1,
				},
			},
			score,
			score_low: score - 0.1,
			score_high: score + 0.1,
			elo: 35.0,
			pairs: [0, 1, 2, 2, 1],
			candidate_exact: Accuracy {
				moves: 40,
				kept: 39,
			},
			reference_exact: Accuracy {
				moves: 44,
				kept: 44,
			},
			candidate_placement: Accuracy {
				moves: 38,
				kept: 30,
			},
			reference_placement: Accuracy::default(),
			started_at: 60.0,
			finished_at: 90.5,
			cpu_seconds: 12.0,
			tablebase: Some(TableRole::Play),
		};
		ledger.record_timed(&timed(2, 0.5)).unwrap();
		ledger.record_timed(&timed(0, 0.25)).unwrap();
		ledger.record_timed(&timed(2, 0.625)).unwrap();
		drop(ledger);

		let ledger = Ledger::open(&path).unwrap();
		let gates = ledger.gates().unwrap();
		assert_eq!(gates.len(), 2);
		assert_eq!(
			gates[0],
			GateRow {
				id: first,
				..gate(2, true, 35.5)
			}
		);
		assert_eq!(gates[1].elo, f64::INFINITY);
		assert!(!gates[1].promoted);
		assert_eq!(
			ledger.timed().unwrap(),
			[timed(0, 0.25), timed(2, 0.625)],
			"by generation, a generation measured again replaced"
		);
	}
}
