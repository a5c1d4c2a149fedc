//! The ledger's schema, as migrations from version 0 (an empty file) upwards.
//!
//! The version lives in SQLite's `PRAGMA user_version`, which is part of the database header
//! and so changes in the same transaction as the tables: a crash mid-migration leaves the old
//! version with the old tables.

use rusqlite::{Connection, TransactionBehavior};

use crate::store::storage_error::StorageError;

/// `MIGRATIONS[v]` takes the schema from version `v` to `v + 1`.
const MIGRATIONS: [&str; 12] = [
	VERSION_1, VERSION_2, VERSION_3, VERSION_4, VERSION_5, VERSION_6, VERSION_7, VERSION_8,
	VERSION_9, VERSION_10, VERSION_11, VERSION_12,
];

/// The schema version this program writes.
pub(crate) const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

/// Version 1. `batches.id` is AUTOINCREMENT because checkpoints refer to batches by id: an id
/// must never be given twice, even if rows were deleted by hand. Samples and the last game
/// come last in `batches` so that scans of the counts need not read past them.
const VERSION_1: &str = "
CREATE TABLE workers (
	worker_id TEXT PRIMARY KEY,
	name TEXT NOT NULL DEFAULT '',
	host TEXT NOT NULL DEFAULT '',
	threads INTEGER NOT NULL DEFAULT 0,
	build_version TEXT NOT NULL DEFAULT '',
	first_seen REAL NOT NULL,
	last_seen REAL NOT NULL,
	samples INTEGER NOT NULL DEFAULT 0,
	sessions INTEGER NOT NULL DEFAULT 0,
	flagged INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE batches (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	worker_id TEXT NOT NULL REFERENCES workers (worker_id),
	sequence INTEGER NOT NULL,
	received_at REAL NOT NULL,
	sample_count INTEGER NOT NULL,
	game_count INTEGER NOT NULL,
	generation_min INTEGER,
	generation_max INTEGER,
	samples BLOB,
	last_game TEXT,
	UNIQUE (worker_id, sequence)
);
CREATE TABLE generations (
	generation INTEGER PRIMARY KEY,
	sha256 TEXT NOT NULL,
	training_steps INTEGER NOT NULL,
	promoted_at REAL NOT NULL,
	samples_at_promotion INTEGER NOT NULL
);
CREATE TABLE gates (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	candidate_generation INTEGER NOT NULL,
	training_steps INTEGER NOT NULL,
	promoted INTEGER NOT NULL,
	tigers_wins INTEGER NOT NULL,
	tigers_draws INTEGER NOT NULL,
	tigers_losses INTEGER NOT NULL,
	sheep_wins INTEGER NOT NULL,
	sheep_draws INTEGER NOT NULL,
	sheep_losses INTEGER NOT NULL,
	score REAL,
	score_low REAL,
	score_high REAL,
	elo REAL,
	stop TEXT NOT NULL,
	reason TEXT NOT NULL,
	finished_at REAL NOT NULL,
	pairs TEXT NOT NULL
);
CREATE TABLE losses (
	step INTEGER PRIMARY KEY,
	loss REAL,
	recorded_at REAL NOT NULL
);
CREATE TABLE throughput (
	at REAL PRIMARY KEY,
	samples_total INTEGER NOT NULL,
	games_total INTEGER NOT NULL,
	training_steps INTEGER NOT NULL,
	workers_connected INTEGER NOT NULL
);
";

/// Version 2: worker CPU-hours (as seconds) in the throughput snapshots and at each gate, for
/// the dashboard's chart of strength against compute. Rows from version 1 read as 0.
const VERSION_2: &str = "
ALTER TABLE throughput ADD COLUMN cpu_seconds REAL NOT NULL DEFAULT 0;
ALTER TABLE gates ADD COLUMN cpu_seconds REAL NOT NULL DEFAULT 0;
";

/// Version 3: identities bound to secrets, and the sequence each worker is at.
///
/// `secret_sha256` is the lowercase hex sha256 of the secret the worker was given (`NULL` until
/// it is given one: every worker of an older ledger starts so, and is given one at its next
/// join); `secret_confirmed` turns 1 once a session presented it. `last_sequence` is the highest
/// sequence dealt with (stored, or refused as malformed): the next batch must be one above it.
/// Older ledgers start at their highest stored sequence.
const VERSION_3: &str = "
ALTER TABLE workers ADD COLUMN secret_sha256 TEXT;
ALTER TABLE workers ADD COLUMN secret_confirmed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN last_sequence INTEGER NOT NULL DEFAULT 0;
UPDATE workers SET last_sequence = coalesce(
	(SELECT max(sequence) FROM batches WHERE batches.worker_id = workers.worker_id), 0);
";

/// Version 4: each gate's exact accuracy, judged by the tablebase: the candidate's and the
/// reference's moves in movement-phase positions, and how many kept the exact result. Rows from
/// before (or from gates played without a table) hold 0 moves.
const VERSION_4: &str = "
ALTER TABLE gates ADD COLUMN candidate_exact_moves INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gates ADD COLUMN candidate_exact_kept INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gates ADD COLUMN reference_exact_moves INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gates ADD COLUMN reference_exact_kept INTEGER NOT NULL DEFAULT 0;
";

/// Version 5: promoted nets measured at equal time per move against ClaudePlayer, one row per
/// measured generation.
const VERSION_5: &str = "
CREATE TABLE timed (
	generation INTEGER PRIMARY KEY,
	move_ms INTEGER NOT NULL,
	tigers_wins INTEGER NOT NULL,
	tigers_draws INTEGER NOT NULL,
	tigers_losses INTEGER NOT NULL,
	sheep_wins INTEGER NOT NULL,
	sheep_draws INTEGER NOT NULL,
	sheep_losses INTEGER NOT NULL,
	score REAL,
	score_low REAL,
	score_high REAL,
	elo REAL,
	pairs TEXT NOT NULL,
	candidate_exact_moves INTEGER NOT NULL,
	candidate_exact_kept INTEGER NOT NULL,
	reference_exact_moves INTEGER NOT NULL,
	reference_exact_kept INTEGER NOT NULL,
	started_at REAL NOT NULL,
	finished_at REAL NOT NULL,
	cpu_seconds REAL NOT NULL
);
";

/// Version 6: compaction (see `ledger::compaction`). Each worker's compacted batches are
/// counted in its row, up to `compacted_through`, the highest sequence compacted; `refused`
/// holds the ranges of sequence numbers dealt with but never stored, so that compaction never
/// mistakes one of them for a stored batch. Those an older ledger has (numbers refused as
/// malformed, and gaps left by programs from before version 3) are its sequences up to
/// `last_sequence` without a row, found here.
const VERSION_6: &str = "
ALTER TABLE workers ADD COLUMN compacted_through INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN compacted_batches INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN compacted_samples INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN compacted_games INTEGER NOT NULL DEFAULT 0;
CREATE TABLE refused (
	worker_id TEXT NOT NULL REFERENCES workers (worker_id),
	first_sequence INTEGER NOT NULL,
	last_sequence INTEGER NOT NULL,
	PRIMARY KEY (worker_id, first_sequence)
) WITHOUT ROWID;
INSERT INTO refused (worker_id, first_sequence, last_sequence)
	SELECT worker_id, previous + 1, sequence - 1 FROM (
		SELECT worker_id, sequence,
			coalesce(lag(sequence) OVER (PARTITION BY worker_id ORDER BY sequence), 0)
				AS previous
		FROM batches)
	WHERE sequence - 1 > previous;
INSERT INTO refused (worker_id, first_sequence, last_sequence)
	SELECT worker_id, stored + 1, last_sequence FROM (
		SELECT worker_id, last_sequence, coalesce(
			(SELECT max(sequence) FROM batches WHERE batches.worker_id = workers.worker_id), 0)
				AS stored
		FROM workers)
	WHERE last_sequence > stored;
";

/// Version 7: every game kept (see `archive`). `batch_games` holds a stored batch's game
/// records, compressed, until they are written to the run's game archive (then the row goes;
/// batches from before have none); `game_files` counts what each generation's archive file holds, as of the
/// last write the ledger knows of: a file longer than its row (written, then a crash before
/// the commit) is cut back to it. `pruned_at` is set when the file is deleted by the keep
/// setting.
const VERSION_7: &str = "
CREATE TABLE batch_games (
	batch_id INTEGER PRIMARY KEY,
	generation_min INTEGER,
	game_count INTEGER NOT NULL,
	games BLOB NOT NULL
);
CREATE TABLE game_files (
	generation INTEGER PRIMARY KEY,
	bytes INTEGER NOT NULL,
	games INTEGER NOT NULL,
	pruned_at REAL
);
";

/// Version 8: what the tablebase did in a measurement at equal time: `play` (both players
/// searched with it, and it judged their moves), `judge` (it judged the moves only) or `none`.
/// Rows measured before have `NULL`: the table only judged then, when there was one.
const VERSION_8: &str = "
ALTER TABLE timed ADD COLUMN tablebase TEXT;
";

/// Version 9: placement-phase exact accuracy, judged by the solved placement phase: in each
/// gate and each measurement at equal time, the candidate's and the reference's moves in
/// placement positions that the layers value, and how many kept the exact value. Rows from
/// before (or played without the layers) hold 0 moves.
const VERSION_9: &str = "
ALTER TABLE gates ADD COLUMN candidate_placement_moves INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gates ADD COLUMN candidate_placement_kept INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gates ADD COLUMN reference_placement_moves INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gates ADD COLUMN reference_placement_kept INTEGER NOT NULL DEFAULT 0;
ALTER TABLE timed ADD COLUMN candidate_placement_moves INTEGER NOT NULL DEFAULT 0;
ALTER TABLE timed ADD COLUMN candidate_placement_kept INTEGER NOT NULL DEFAULT 0;
ALTER TABLE timed ADD COLUMN reference_placement_moves INTEGER NOT NULL DEFAULT 0;
ALTER TABLE timed ADD COLUMN reference_placement_kept INTEGER NOT NULL DEFAULT 0;
";

/// Version 10: a batch's samples in a table of their own, and the last game record in a
/// one-row table. Pruning used to set `batches.samples` to `NULL`, which leaves the space
/// the blob took inside its page, and that space is never used again: new rows are appended
/// at the table's end, never put back among old ones. So the ledger's file grew by a whole
/// batch (about 2.4 kB) for every batch of the last [`super::COMPACT_AFTER`], not by its
/// counts alone. Deleting rows of `batch_samples`, whose ids come in order, frees whole
/// pages, which SQLite reuses for the next batches. The last game record was kept in the
/// newest row only; its own table says so.
const VERSION_10: &str = "
CREATE TABLE batch_samples (
	batch_id INTEGER PRIMARY KEY,
	samples BLOB NOT NULL
);
INSERT INTO batch_samples (batch_id, samples)
	SELECT id, samples FROM batches WHERE samples IS NOT NULL;
CREATE TABLE last_game (
	only INTEGER PRIMARY KEY CHECK (only = 1),
	batch_id INTEGER NOT NULL,
	record TEXT NOT NULL
);
INSERT INTO last_game (only, batch_id, record)
	SELECT 1, id, last_game FROM batches WHERE last_game IS NOT NULL ORDER BY id DESC LIMIT 1;
ALTER TABLE batches DROP COLUMN samples;
ALTER TABLE batches DROP COLUMN last_game;
";

/// Version 11: whom a gate match was played against. `NULL` is `ClaudePlayer`, every gate's
/// opponent before `--gate incumbent`; a generation is the incumbent net a candidate played
/// head to head. Older rows read as `ClaudePlayer`, which they were.
const VERSION_11: &str = "
ALTER TABLE gates ADD COLUMN opponent_generation INTEGER;
";

/// Version 12: each promoted net's grades on the grading suite (`tigers_core::grade`), at the
/// gate's depth, by phase: positions, those whose class its evaluation got right, and those in
/// which its search's move kept the exact value; the suite by the sha256 of its text.
const VERSION_12: &str = "
CREATE TABLE grades (
	generation INTEGER PRIMARY KEY,
	depth INTEGER NOT NULL,
	suite_sha256 TEXT NOT NULL,
	placement_positions INTEGER NOT NULL,
	placement_class_right INTEGER NOT NULL,
	placement_moves_kept INTEGER NOT NULL,
	movement_positions INTEGER NOT NULL,
	movement_class_right INTEGER NOT NULL,
	movement_moves_kept INTEGER NOT NULL,
	graded_at REAL NOT NULL,
	cpu_seconds REAL NOT NULL
);
";

/// Brings the schema to [`LATEST_VERSION`], one migration per transaction. The version is
/// read again inside each write transaction, so two processes opening a new ledger at once
/// cannot both apply a migration.
pub(super) fn migrate(connection: &mut Connection) -> Result<(), StorageError> {
	loop {
		let transaction = connection
			.transaction_with_behavior(TransactionBehavior::Immediate)
			.map_err(StorageError::sqlite("starting a migration"))?;
		let version: i64 = transaction
			.pragma_query_value(None, "user_version", |row| row.get(0))
			.map_err(StorageError::sqlite("reading the schema version"))?;
		if version > LATEST_VERSION {
			return Err(StorageError::SchemaVersion {
				found: version,
				known: LATEST_VERSION,
			});
		}
		if version == LATEST_VERSION {
			return Ok(());
		}
		let migration = MIGRATIONS[usize::try_from(version).map_err(|_| {
			StorageError::corrupt(
				"the ledger",
				format!("schema version {version} is negative"),
			)
		})?];
		transaction
			.execute_batch(migration)
			.map_err(StorageError::sqlite("migrating the schema"))?;
		transaction
			.pragma_update(None, "user_version", version + 1)
			.map_err(StorageError::sqlite("recording the schema version"))?;
		transaction
			.commit()
			.map_err(StorageError::sqlite("committing a migration"))?;
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::store::ledger::Ledger;
	use crate::test_support::TestDir;

	#[test]
	fn the_architecture_page_names_the_latest_schema_version() {
		let page = include_str!("../../../../docs/architecture.md");
		let named = format!("migrations to version {LATEST_VERSION};");
		assert!(
			page.contains(&named),
			"docs/architecture.md should say {named:?}"
		);
	}

	#[test]
	fn a_version_1_ledger_gains_cpu_seconds_as_zero() {
		let dir = TestDir::new("schema-v1-to-v2");
		let path = dir.path().join("ledger.sqlite");
		let raw = Connection::open(&path).unwrap();
		raw.execute_batch(VERSION_1).unwrap();
		raw.execute("INSERT INTO throughput VALUES (10.0, 100, 4, 7, 2)", [])
			.unwrap();
		raw.pragma_update(None, "user_version", 1).unwrap();
		drop(raw);
		let ledger = Ledger::open(&path).unwrap();
		let rows = ledger.throughput().unwrap();
		assert_eq!(rows.len(), 1);
		assert_eq!((rows[0].samples_total, rows[0].cpu_seconds), (100, 0.0));
	}

	#[test]
	fn a_version_10_ledgers_gates_read_as_played_against_claude() {
		let dir = TestDir::new("schema-v10-to-v11");
		let path = dir.path().join("ledger.sqlite");
		let raw = Connection::open(&path).unwrap();
		for migration in &MIGRATIONS[..10] {
			raw.execute_batch(migration).unwrap();
		}
		raw.execute(
			"INSERT INTO gates (candidate_generation, training_steps, promoted, tigers_wins,
				tigers_draws, tigers_losses, sheep_wins, sheep_draws, sheep_losses, score,
				score_low, score_high, elo, stop, reason, finished_at, pairs)
			VALUES (3, 100, 1, 1, 0, 0, 1, 0, 0, 1.0, 0.8, 1.0, 300.0, 'Measured', 'measured',
				5.0, '0,0,0,0,1')",
			[],
		)
		.unwrap();
		raw.pragma_update(None, "user_version", 10).unwrap();
		drop(raw);
		let ledger = Ledger::open(&path).unwrap();
		let gates = ledger.gates().unwrap();
		assert_eq!(gates.len(), 1);
		assert_eq!(gates[0].candidate_generation, 3);
		assert_eq!(gates[0].opponent_generation, None);
	}

	#[test]
	fn a_version_2_ledger_keeps_its_workers_at_their_last_sequence_without_secrets() {
		let dir = TestDir::new("schema-v2-to-v3");
		let path = dir.path().join("ledger.sqlite");
		let raw = Connection::open(&path).unwrap();
		raw.execute_batch(VERSION_1).unwrap();
		raw.execute_batch(VERSION_2).unwrap();
		raw.execute_batch(
			"INSERT INTO workers (worker_id, first_seen, last_seen) VALUES ('old', 1, 1), ('idle', 1, 1);
			INSERT INTO batches (worker_id, sequence, received_at, sample_count, game_count)
				VALUES ('old', 1, 1, 0, 0), ('old', 2, 1, 0, 0), ('old', 7, 1, 0, 0);",
		)
		.unwrap();
		raw.pragma_update(None, "user_version", 2).unwrap();
		drop(raw);
		let ledger = Ledger::open(&path).unwrap();
		assert_eq!(ledger.last_sequence("old").unwrap(), 7);
		assert_eq!(ledger.last_sequence("idle").unwrap(), 0);
		assert_eq!(ledger.secret("old").unwrap(), None);
	}

	#[test]
	fn a_version_5_ledger_keeps_its_unstored_numbers_refused() {
		let dir = TestDir::new("schema-v5-to-v6");
		let path = dir.path().join("ledger.sqlite");
		let raw = Connection::open(&path).unwrap();
		for migration in &MIGRATIONS[..5] {
			raw.execute_batch(migration).unwrap();
		}
		raw.execute_batch(
			"INSERT INTO workers (worker_id, first_seen, last_seen, last_sequence)
				VALUES ('w', 1, 1, 9), ('idle', 1, 1, 2), ('new', 1, 1, 0);
			INSERT INTO batches (worker_id, sequence, received_at, sample_count, game_count)
				VALUES ('w', 1, 1, 0, 0), ('w', 2, 1, 0, 0), ('w', 5, 1, 0, 0),
					('w', 7, 1, 0, 0);",
		)
		.unwrap();
		raw.pragma_update(None, "user_version", 5).unwrap();
		drop(raw);
		let ledger = Ledger::open(&path).unwrap();
		let ranges = ledger.refused_ranges().unwrap();
		assert_eq!(
			ranges,
			[
				("idle".to_string(), 1, 2),
				("w".to_string(), 3, 4),
				("w".to_string(), 6, 6),
				("w".to_string(), 8, 9)
			]
		);
	}

	#[test]
	fn a_version_9_ledger_keeps_its_unpruned_samples_and_its_last_game() {
		use tigers_core::selfplay::Sample;
		use tigers_core::{GameBoard, Turn};

		use crate::store::samples_codec::encode_samples;
		use crate::store::storage_error::StorageError;

		let dir = TestDir::new("schema-v9-to-v10");
		let path = dir.path().join("ledger.sqlite");
		let raw = Connection::open(&path).unwrap();
		for migration in &MIGRATIONS[..9] {
			raw.execute_batch(migration).unwrap();
		}
		let batch = |generation: u64| {
			encode_samples(&[Sample {
				board: GameBoard::default(),
				turn: Turn::Sheep,
				score: 0.5,
				result: 1.0,
				ply: 3,
				generation,
			}])
		};
		raw.execute(
			"INSERT INTO workers (worker_id, first_seen, last_seen, last_sequence)
			VALUES ('w', 1, 1, 4)",
			[],
		)
		.unwrap();
		// Batches 1 and 2 pruned (the second kept its record as the newest of its day), 3 and
		// 4 not; 4 had no game.
		for (sequence, samples, record) in [
			(1, None, None),
			(2, None, Some("older")),
			(3, Some(batch(3)), Some("newest")),
			(4, Some(batch(4)), None),
		] {
			raw.execute(
				"INSERT INTO batches (worker_id, sequence, received_at, sample_count, game_count,
					generation_min, generation_max, samples, last_game)
				VALUES ('w', ?1, 1, 1, 1, 0, 0, ?2, ?3)",
				rusqlite::params![sequence, samples, record],
			)
			.unwrap();
		}
		raw.pragma_update(None, "user_version", 9).unwrap();
		drop(raw);

		let ledger = Ledger::open(&path).unwrap();
		let kept = ledger.batches_after(2).unwrap();
		assert_eq!(
			kept.iter()
				.map(|(id, samples)| (*id, samples[0].generation))
				.collect::<Vec<_>>(),
			[(3, 3), (4, 4)]
		);
		assert!(matches!(
			ledger.batches_after(0),
			Err(StorageError::Pruned { id: 1 })
		));
		assert_eq!(ledger.last_game().unwrap().as_deref(), Some("newest"));
		assert_eq!(ledger.totals().unwrap().batches, 4);
	}
}
