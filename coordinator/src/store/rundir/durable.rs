//! Writes that are on the disk when they return: a file synced, and a directory synced so that
//! what was created, renamed or removed in it stays so after a crash.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::store::storage_error::StorageError;

/// Creates (or truncates) `path`, writes `bytes` and syncs them to the disk. The caller syncs
/// the directory once it has written all its files.
pub(super) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), StorageError> {
	let mut file = File::create(path).map_err(StorageError::io(path, "creating"))?;
	file.write_all(bytes)
		.map_err(StorageError::io(path, "writing"))?;
	file.sync_all().map_err(StorageError::io(path, "syncing"))
}

/// Syncs a directory, so that files created, renamed or removed in it stay so after a crash.
pub(super) fn sync_dir(dir: &Path) -> Result<(), StorageError> {
	File::open(dir)
		.and_then(|d| d.sync_all())
		.map_err(StorageError::io(dir, "syncing the directory"))
}
