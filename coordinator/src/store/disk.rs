//! The run directory's free space, and the one state the coordinator enters when it runs short:
//! below the margin kept free (`--min-free-mb`), or after a write failed for lack of space.
//!
//! While short, the ledger's writer takes no batch (sessions stay open, their batches wait
//! unacknowledged, and each session stops reading once its batches in flight are full, so the
//! workers keep theirs in their spools), the training thread pauses (no steps, checkpoints,
//! gates or promotions), and the archive's thread waits; `status`, the dashboards, the web Run
//! page and the metrics say so. It ends by itself once a measurement finds the margin free
//! again (and, after a failed write, at least [`AFTER_FAILURE`] later): everything waiting is
//! then written, once.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tigers_proto::v1;
use tracing::{info, warn};

use crate::clock::unix_now;
use crate::store::storage_error::StorageError;

/// How old a measurement may be before a question measures again.
const MEASURE_EVERY: Duration = Duration::from_millis(500);

/// The least time between a write that failed for lack of space and the next try.
pub(crate) const AFTER_FAILURE: Duration = Duration::from_secs(2);

/// The free space after a failed write must be at least this, margin or not, to try again.
const LEAST_FREE_AFTER_FAILURE: u64 = 1 << 20;

/// The run directory's filesystem, watched.
#[derive(Debug)]
pub(crate) struct Disk {
	dir: PathBuf,
	margin: u64,
	/// The last measurement, or `u64::MAX` where free space cannot be measured.
	free: AtomicU64,
	low: AtomicBool,
	low_since: Mutex<Option<f64>>,
	measured: Mutex<Option<Instant>>,
	/// When a write last failed for lack of space, if the state has not ended since.
	failed: Mutex<Option<Instant>>,
}

impl Disk {
	/// The filesystem holding `dir`, keeping `margin` bytes free.
	pub(crate) fn new(dir: &Path, margin: u64) -> Disk {
		let disk = Disk {
			dir: dir.to_path_buf(),
			margin,
			free: AtomicU64::new(u64::MAX),
			low: AtomicBool::new(false),
			low_since: Mutex::new(None),
			measured: Mutex::new(None),
			failed: Mutex::new(None),
		};
		disk.measure();
		disk
	}

	/// Whether the state is on, measuring again if the last measurement is old.
	pub(crate) fn is_low(&self) -> bool {
		let stale = lock(&self.measured).is_none_or(|at| at.elapsed() >= MEASURE_EVERY);
		if stale {
			self.measure();
		}
		self.low.load(Ordering::Acquire)
	}

	/// A write failed for lack of space: the state begins now, whatever the margin says.
	pub(crate) fn write_failed(&self, what: &str) {
		*lock(&self.failed) = Some(Instant::now());
		self.enter(&format!("{what} failed for lack of space"));
	}

	/// Measures the free space and moves the state on.
	fn measure(&self) {
		let free = tigers_process::disk::free_bytes(&self.dir).unwrap_or(u64::MAX);
		*lock(&self.measured) = Some(Instant::now());
		self.free.store(free, Ordering::Release);
		let failed = *lock(&self.failed);
		let short = free < self.margin
			|| failed
				.is_some_and(|at| at.elapsed() < AFTER_FAILURE || free < LEAST_FREE_AFTER_FAILURE);
		if short {
			self.enter(&format!(
				"{} MiB free, below the margin of {} MiB (--min-free-mb)",
				free / (1 << 20),
				self.margin / (1 << 20)
			));
		} else if self.low.swap(false, Ordering::AcqRel) {
			*lock(&self.failed) = None;
			*lock(&self.low_since) = None;
			info!(
				dir = %self.dir.display(),
				free_mib = free / (1 << 20),
				"space has returned to the run directory's disk: batches, training and the \
				 archive go on"
			);
		}
	}

	/// Turns the state on, saying so once.
	fn enter(&self, why: &str) {
		if !self.low.swap(true, Ordering::AcqRel) {
			*lock(&self.low_since) = Some(unix_now());
			warn!(
				dir = %self.dir.display(),
				why,
				"the run directory's disk is short of space: batches wait unacknowledged \
				 (workers keep them), and training, checkpoints and the game archive pause, \
				 until space returns"
			);
		}
	}

	/// The state as `status` shows it.
	pub(crate) fn to_wire(&self) -> v1::DiskSpace {
		let free = self.free.load(Ordering::Acquire);
		v1::DiskSpace {
			dir: self.dir.display().to_string(),
			free_bytes: (free != u64::MAX).then_some(free),
			margin_bytes: self.margin,
			low: self.low.load(Ordering::Acquire),
			low_since: lock(&self.low_since).unwrap_or(0.0),
		}
	}
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
	mutex
		.lock()
		.unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether `error` is a write that failed for lack of space: the filesystem or a quota full,
/// or SQLite's own "database or disk is full".
pub(crate) fn is_out_of_space(error: &StorageError) -> bool {
	match error {
		StorageError::Io { source, .. } => io_out_of_space(source),
		StorageError::Sqlite { source, .. } | StorageError::OpenLedger { source, .. } => {
			sqlite_out_of_space(source)
		}
		_ => false,
	}
}

fn io_out_of_space(error: &std::io::Error) -> bool {
	matches!(
		error.kind(),
		std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
	)
}

fn sqlite_out_of_space(error: &rusqlite::Error) -> bool {
	match error {
		rusqlite::Error::SqliteFailure(failure, _) => failure.code == rusqlite::ErrorCode::DiskFull,
		_ => false,
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_margin_above_the_free_space_is_the_state_and_a_failed_write_starts_it_too() {
		let dir = std::env::temp_dir();
		let free = tigers_process::disk::free_bytes(&dir).expect("free space is measured on Linux");
		assert!(free > 0);
		let short = Disk::new(&dir, u64::MAX - 1);
		assert!(short.is_low());
		let wire = short.to_wire();
		assert!(
			wire.low && wire.low_since > 0.0 && wire.free_bytes.is_some(),
			"{wire:?}"
		);
		let roomy = Disk::new(&dir, 0);
		assert!(!roomy.is_low());
		roomy.write_failed("a test write");
		assert!(roomy.is_low());
		// It ends by itself once space is measured again after the pause.
		std::thread::sleep(AFTER_FAILURE + MEASURE_EVERY);
		assert!(!roomy.is_low());
		assert_eq!(roomy.to_wire().low_since, 0.0);
	}

	#[test]
	fn out_of_space_is_told_from_other_failures() {
		let full = StorageError::Io {
			path: "x".into(),
			doing: "writing",
			source: std::io::Error::from(std::io::ErrorKind::StorageFull),
		};
		assert!(is_out_of_space(&full));
		let other = StorageError::Io {
			path: "x".into(),
			doing: "writing",
			source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
		};
		assert!(!is_out_of_space(&other));
		let sqlite = StorageError::Sqlite {
			doing: "inserting",
			source: rusqlite::Error::SqliteFailure(
				rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
				None,
			),
		};
		assert!(is_out_of_space(&sqlite));
	}
}
