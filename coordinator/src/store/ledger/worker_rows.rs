//! The `workers` table: a worker as the ledger knows it (its sessions, samples and flags), and
//! the secret its identity is bound to.

use rusqlite::{OptionalExtension, Row, params};

use super::connection::Ledger;
use super::records::real;
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

/// The secret an identity is bound to, as the ledger keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredSecret {
	/// The lowercase hex sha256 of the secret.
	pub sha256: String,
	/// Whether a session has presented it since it was handed out.
	pub confirmed: bool,
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

#[cfg(test)]
mod tests {
	use super::*;
	use crate::test_support::TestDir;

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
}
