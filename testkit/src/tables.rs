//! The solved tables the workspace's integration tests share, solved once into the target's
//! temporary directory (`CARGO_TARGET_TMPDIR`, which each test binary passes in) by whichever
//! test needs them first and found there by the rest, across test binaries and runs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tigers_core::Tablebase;

/// Where the shared movement table is kept under `target_tmp`.
pub fn movement_path(target_tmp: &Path) -> PathBuf {
	target_tmp.join("tablebase/tigers-and-sheep.tb")
}

/// The shared movement table, loaded from under `target_tmp` or solved there first.
///
/// # Panics
///
/// If the table can be neither read nor solved: a test cannot go on without it.
pub fn movement(target_tmp: &Path) -> &'static Arc<Tablebase> {
	static TABLE: OnceLock<Arc<Tablebase>> = OnceLock::new();
	TABLE.get_or_init(|| {
		let (table, _) = Tablebase::load_or_build(&movement_path(target_tmp), 2, &|_| {})
			.expect("the test tablebase loads or builds");
		Arc::new(table)
	})
}

/// The placement layers from 19 placed (the last two), solved once under `target_tmp` and
/// kept there. Test binaries may run at once: they take turns under a file lock, the first
/// solves, the others find the layers solved.
///
/// # Panics
///
/// If the layers cannot be solved or the lock taken.
pub fn last_layers(target_tmp: &Path) -> &'static PathBuf {
	static DIR: OnceLock<PathBuf> = OnceLock::new();
	DIR.get_or_init(|| {
		std::fs::create_dir_all(target_tmp).expect("the target's temporary directory");
		let lock = std::fs::File::create(target_tmp.join("placement-from-19.lock"))
			.expect("the lock file is writable");
		lock.lock().expect("the lock");
		let dir = target_tmp.join("placement-from-19");
		tigers_core::tablebase::placement::build(&dir, movement(target_tmp), 19, 2, &|_| {})
			.expect("the last placement layers solve");
		dir
	})
}
