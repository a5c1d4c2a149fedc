//! Free space on a filesystem, as an unprivileged process may use it: for the checks made
//! before a large file is written, and the coordinator's watch on its run directory's disk.

use std::path::Path;

/// The bytes an unprivileged process may still write on the filesystem that holds `path`, or
/// would hold it: the nearest existing directory on the way up is asked. `None` where the
/// system cannot say (or on a platform where this is not measured).
pub fn free_bytes(path: &Path) -> Option<u64> {
	let existing = path.ancestors().find(|p| p.is_dir())?;
	measured(existing)
}

#[cfg(target_os = "linux")]
fn measured(dir: &Path) -> Option<u64> {
	let stat = rustix::fs::statvfs(dir).ok()?;
	Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(not(target_os = "linux"))]
fn measured(_dir: &Path) -> Option<u64> {
	None
}

/// Rounds a size in bytes up to whole MiB, for sentences.
pub fn mib(bytes: u64) -> u64 {
	bytes.div_ceil(1 << 20)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_path_not_yet_made_is_measured_where_it_would_be() {
		let dir = tempfile::tempdir().unwrap();
		let here = free_bytes(dir.path()).expect("Linux measures free space");
		let below = free_bytes(&dir.path().join("not/yet/made.tb")).unwrap();
		// The same filesystem, asked twice: other writers may change it a little between.
		assert!(here.abs_diff(below) < 64 << 20, "{here} {below}");
		assert_eq!(mib(1), 1);
		assert_eq!(mib(3 << 20), 3);
	}
}
