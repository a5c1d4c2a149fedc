//! The ledger's tests: batches stored once and in order, read back bit-exactly, pruned, and
//! everything kept across a reopening.

use rusqlite::Connection;
use tigers_core::selfplay::Sample;
use tigers_core::{GameBoard, Turn};

use super::schema::LATEST_VERSION;
use super::*;
use crate::store::storage_error::StorageError;
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
	let ids_of = |batches: Vec<(i64, Vec<Sample>)>| batches.iter().map(|b| b.0).collect::<Vec<_>>();
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
