//! The ledger's small tables: workers, generations, gates, measurements at equal time, losses
//! and throughput, as rows; and `BatchSummary`, a batch without its samples.

use rusqlite::{OptionalExtension, Row, params};
use tigers_core::gate::TableRole;
use tigers_core::tablebase::Accuracy;
use tigers_core::versus::{MatchResult, SideResult};

use super::connection::Ledger;
use super::stop_reason::{StopReason, UnknownStop};
use crate::store::storage_error::StorageError;

/// A worker as the ledger knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerRow {
	/// The worker's stable id.
	pub worker_id: String,
	/// The name it gave.
	pub name: String,
	/// The host it runs on.
	pub host: String,
	/// Self-play threads it runs.
	pub threads: u32,
	/// Its build's version.
	pub build_version: String,
	/// First seen, unix seconds.
	pub first_seen: f64,
	/// Last session start or batch, unix seconds.
	pub last_seen: f64,
	/// Samples received from it.
	pub samples: u64,
	/// Sessions it opened.
	pub sessions: u64,
	/// Times it was flagged (e.g. for bad batches); 0 if never.
	pub flagged: u64,
	/// The newest generation in its last stored batch that had samples; `None` if it never
	/// sent one. What it played last, as far as the ledger knows.
	pub last_generation: Option<u64>,
}

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

/// The secret an identity is bound to, as the ledger keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredSecret {
	/// The lowercase hex sha256 of the secret.
	pub sha256: String,
	/// Whether a session has presented it since it was handed out.
	pub confirmed: bool,
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
	/// Records a session of `worker_id` starting at `now`: adds the worker or updates what it
	/// says about itself, and counts the session.
	pub(crate) fn record_worker_seen(
		&mut self,
		worker_id: &str,
		name: &str,
		host: &str,
		threads: u32,
		build_version: &str,
		now: f64,
	) -> Result<(), StorageError> {
		self.connection
			.execute(
				"INSERT INTO workers (worker_id, name, host, threads, build_version, first_seen,
					last_seen, sessions)
				VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 1)
				ON CONFLICT (worker_id) DO UPDATE SET name = excluded.name,
					host = excluded.host, threads = excluded.threads,
					build_version = excluded.build_version,
					last_seen = max(last_seen, excluded.last_seen), sessions = sessions + 1",
				params![worker_id, name, host, threads, build_version, now],
			)
			.map(drop)
			.map_err(StorageError::sqlite("recording a worker's session"))
	}

	/// The secret `worker_id` is bound to; `None` for an unknown worker or one never given a
	/// secret (every worker of a ledger older than schema version 3).
	pub(crate) fn secret(&self, worker_id: &str) -> Result<Option<StoredSecret>, StorageError> {
		self.connection
			.query_row(
				"SELECT secret_sha256, secret_confirmed FROM workers WHERE worker_id = ?1",
				[worker_id],
				|row| {
					let sha256: Option<String> = row.get(0)?;
					let confirmed: bool = row.get(1)?;
					Ok(sha256.map(|sha256| StoredSecret { sha256, confirmed }))
				},
			)
			.optional()
			.map(Option::flatten)
			.map_err(StorageError::sqlite("reading a worker's secret"))
	}

	/// Binds `worker_id`, which must be known, to the secret whose sha256 is `sha256`, not yet
	/// confirmed by a session, replacing any earlier binding.
	pub(crate) fn bind_secret(
		&mut self,
		worker_id: &str,
		sha256: &str,
	) -> Result<(), StorageError> {
		self.update_worker(
			"UPDATE workers SET secret_sha256 = ?2, secret_confirmed = 0 WHERE worker_id = ?1",
			params![worker_id, sha256],
			worker_id,
			"binding a worker's secret",
		)
	}

	/// Records that a session of `worker_id`, which must be known, presented its secret.
	pub(crate) fn confirm_secret(&mut self, worker_id: &str) -> Result<(), StorageError> {
		self.update_worker(
			"UPDATE workers SET secret_confirmed = 1 WHERE worker_id = ?1",
			params![worker_id],
			worker_id,
			"confirming a worker's secret",
		)
	}

	/// Runs an update of one worker's row; an unknown worker is an error.
	fn update_worker(
		&mut self,
		sql: &str,
		params: &[&dyn rusqlite::ToSql],
		worker_id: &str,
		doing: &'static str,
	) -> Result<(), StorageError> {
		let changed = self
			.connection
			.execute(sql, params)
			.map_err(StorageError::sqlite(doing))?;
		if changed == 0 {
			return Err(StorageError::UnknownWorker(worker_id.to_string()));
		}
		Ok(())
	}

	/// Counts a flag against `worker_id`, which must be known.
	pub(crate) fn record_flag(&mut self, worker_id: &str) -> Result<(), StorageError> {
		let changed = self
			.connection
			.execute(
				"UPDATE workers SET flagged = flagged + 1 WHERE worker_id = ?1",
				[worker_id],
			)
			.map_err(StorageError::sqlite("flagging a worker"))?;
		if changed == 0 {
			return Err(StorageError::UnknownWorker(worker_id.to_string()));
		}
		Ok(())
	}

	/// Every worker, by id.
	pub fn workers(&self) -> Result<Vec<WorkerRow>, StorageError> {
		self.rows(
			&format!("SELECT {WORKER_COLUMNS} FROM workers ORDER BY worker_id"),
			"reading workers",
			worker_row,
		)
	}

	/// One worker, if the ledger knows it.
	pub(crate) fn worker(&self, worker_id: &str) -> Result<Option<WorkerRow>, StorageError> {
		self.connection
			.query_row(
				&format!("SELECT {WORKER_COLUMNS} FROM workers WHERE worker_id = ?1"),
				[worker_id],
				worker_row,
			)
			.optional()
			.map_err(StorageError::sqlite("reading a worker"))
	}

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

/// The columns [`worker_row`] reads, in its order, from `workers`. The last generation comes
/// from the worker's latest batch, found through the `(worker_id, sequence)` index.
const WORKER_COLUMNS: &str = "worker_id, name, host, threads, build_version, first_seen, \
	last_seen, samples, sessions, flagged, \
	(SELECT generation_max FROM batches WHERE batches.worker_id = workers.worker_id \
		AND generation_max IS NOT NULL ORDER BY sequence DESC LIMIT 1)";

fn worker_row(row: &Row<'_>) -> rusqlite::Result<WorkerRow> {
	Ok(WorkerRow {
		worker_id: row.get(0)?,
		name: row.get(1)?,
		host: row.get(2)?,
		threads: row.get(3)?,
		build_version: row.get(4)?,
		first_seen: real(row, 5)?,
		last_seen: real(row, 6)?,
		samples: row.get(7)?,
		sessions: row.get(8)?,
		flagged: row.get(9)?,
		last_generation: row.get(10)?,
	})
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

/// A `REAL` column, with `NULL` read as NaN: SQLite stores NaN as `NULL`.
fn real(row: &Row<'_>, index: usize) -> rusqlite::Result<f64> {
	Ok(row.get::<_, Option<f64>>(index)?.unwrap_or(f64::NAN))
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
	fn workers_count_sessions_batches_and_flags() {
		let dir = TestDir::new("records-workers");
		let mut ledger = Ledger::open(&dir.path().join("ledger.sqlite")).unwrap();
		ledger
			.record_worker_seen("w", "alpha", "h1", 2, "0.1.0", 100.0)
			.unwrap();
		ledger
			.record_worker_seen("w", "alpha", "h2", 8, "0.2.0", 200.0)
			.unwrap();
		ledger.insert_batch("w", 1, &[], &[]).unwrap();
		assert!(matches!(
			ledger.record_flag("nobody"),
			Err(StorageError::UnknownWorker(id)) if id == "nobody"
		));
		ledger.record_flag("w").unwrap();
		ledger.record_flag("w").unwrap();
		let workers = ledger.workers().unwrap();
		assert_eq!(workers.len(), 1);
		assert_eq!(ledger.worker("w").unwrap().as_ref(), Some(&workers[0]));
		assert_eq!(ledger.worker("nobody").unwrap(), None);
		let w = &workers[0];
		assert_eq!(
			(w.host.as_str(), w.threads, w.build_version.as_str()),
			("h2", 8, "0.2.0")
		);
		assert_eq!(
			(w.first_seen, w.sessions, w.flagged, w.samples),
			(100.0, 2, 2, 0)
		);
		assert!(
			w.last_seen > 200.0,
			"the batch counts as seen: {}",
			w.last_seen
		);
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
	fn generations_gates_losses_and_throughput_read_back() {
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
		let first = ledger.record_gate(&gate(2, true, 35.5)).unwrap();
		let second = ledger.record_gate(&gate(3, false, f64::INFINITY)).unwrap();
		assert!(second > first);
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
		assert_eq!(
			ledger.generations().unwrap(),
			[generation(1, "aa"), generation(2, "cc")]
		);
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
		assert_eq!(
			ledger.timed().unwrap(),
			[timed(0, 0.25), timed(2, 0.625)],
			"by generation, a generation measured again replaced"
		);
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
