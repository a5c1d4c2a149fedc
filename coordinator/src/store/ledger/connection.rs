//! `Ledger` itself: the connection, opened in WAL mode with `synchronous = FULL` and its schema
//! migrated, and its transactions. What it stores is written and read by the sibling modules.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

use super::schema;
use crate::store::storage_error::StorageError;

/// How long a write waits for another connection (the `sqlite3` shell, a dashboard) to let go
/// of the database before failing: long enough to ride out a checkpoint of the WAL.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The run's ledger: one SQLite connection. Writes take `&mut self`: the coordinator has one
/// writer, which owns the `Ledger`.
#[derive(Debug)]
pub struct Ledger {
	pub(super) connection: Connection,
	/// Batches before this id may have their samples pruned (see `compaction`).
	pub(super) prune_before: i64,
	/// Every batch before this id has been pruned already, as far as this process knows.
	pub(super) pruned_below: i64,
}

impl Ledger {
	/// Opens the ledger at `path`, creating it if missing and migrating its schema.
	pub fn open(path: &Path) -> Result<Ledger, StorageError> {
		let mut connection = Connection::open(path).map_err(|source| StorageError::OpenLedger {
			path: path.to_path_buf(),
			source,
		})?;
		connection
			.busy_timeout(BUSY_TIMEOUT)
			.map_err(StorageError::sqlite("setting the busy timeout"))?;
		let mode: String = connection
			.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
			.map_err(StorageError::sqlite("switching to WAL mode"))?;
		if !mode.eq_ignore_ascii_case("wal") {
			return Err(StorageError::corrupt(
				path.display().to_string(),
				format!("SQLite kept journal mode {mode:?} instead of WAL"),
			));
		}
		connection
			.pragma_update(None, "synchronous", "FULL")
			.map_err(StorageError::sqlite("setting synchronous = FULL"))?;
		connection
			.pragma_update(None, "foreign_keys", true)
			.map_err(StorageError::sqlite("turning foreign keys on"))?;
		schema::migrate(&mut connection)?;
		Ok(Ledger {
			connection,
			prune_before: 0,
			pruned_below: 0,
		})
	}

	/// Starts a transaction that takes the database's write lock at once (`BEGIN IMMEDIATE`):
	/// the writes until [`Ledger::commit`] reach the disk together, with one sync.
	pub(crate) fn begin(&mut self) -> Result<(), StorageError> {
		self.connection
			.execute_batch("BEGIN IMMEDIATE")
			.map_err(StorageError::sqlite("starting a transaction"))
	}

	/// Commits the transaction [`Ledger::begin`] started: on disk when this returns. If the
	/// commit fails, everything since `begin` is rolled back.
	pub(crate) fn commit(&mut self) -> Result<(), StorageError> {
		let committed = self
			.connection
			.execute_batch("COMMIT")
			.map_err(StorageError::sqlite("committing"));
		if committed.is_err() {
			self.rollback();
		}
		committed
	}

	/// Rolls back the open transaction, if any.
	pub(crate) fn rollback(&mut self) {
		if !self.connection.is_autocommit() {
			// A rollback fails only without a transaction, which was just ruled out.
			let _ = self.connection.execute_batch("ROLLBACK");
		}
	}

	/// Runs `write` as one unit, in a savepoint: if it fails, what it wrote is undone and
	/// whatever the enclosing transaction wrote before it stands. Outside a transaction the
	/// savepoint is a transaction of its own, committed when `write` succeeds.
	pub(crate) fn write_unit<T>(
		&mut self,
		write: impl FnOnce(&mut Ledger) -> Result<T, StorageError>,
	) -> Result<T, StorageError> {
		self.connection
			.execute_batch("SAVEPOINT unit")
			.map_err(StorageError::sqlite("starting a savepoint"))?;
		let result = write(self);
		let end = if result.is_ok() {
			"RELEASE unit"
		} else {
			"ROLLBACK TO unit; RELEASE unit"
		};
		// A failed statement may have rolled back the whole transaction already (SQLite does
		// so for a full disk); then there is no savepoint left to end, and the commit fails.
		let ended = self
			.connection
			.execute_batch(end)
			.map_err(StorageError::sqlite("ending a savepoint"));
		let value = result?;
		ended?;
		Ok(value)
	}
}
