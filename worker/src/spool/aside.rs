//! Batches set aside: what a spool held for a run the coordinator no longer serves, and single
//! batches the coordinator refused as another run's. They are never sent again, but kept for
//! [`KEEP_SET_ASIDE`] in the state directory, beside the spool, for whoever wants them back:
//!
//! ```text
//! <state dir>/spool-aside/
//!   1796304000-<old run id>/     a whole spool, as it was: its batches, counter and run file
//!   1796304100-refused/          single batches the coordinator refused
//! ```
//!
//! A folder's name starts with the Unix time it was made; folders older than
//! [`KEEP_SET_ASIDE`] are deleted when a spool is opened and whenever something is set aside.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long batches set aside are kept: a week, time enough to notice a coordinator started on
/// the wrong run directory and put it right.
pub const KEEP_SET_ASIDE: Duration = Duration::from_secs(7 * 24 * 3600);

/// The folder of set-aside batches for the spool in `spool_dir`: a sibling named `spool-aside`.
pub(super) fn aside_root(spool_dir: &Path) -> PathBuf {
	let name = spool_dir
		.file_name()
		.map_or_else(|| "spool".into(), |n| n.to_string_lossy().into_owned());
	spool_dir.with_file_name(format!("{name}-aside"))
}

/// Seconds since the Unix epoch now (0 if the clock is before it).
pub(super) fn unix_now() -> u64 {
	SystemTime::now()
		.duration_since(UNIX_EPOCH)
		.map_or(0, |elapsed| elapsed.as_secs())
}

/// A folder name under `root` for something set aside at `now` with `label`, not yet taken.
pub(super) fn new_folder(root: &Path, now: u64, label: &str) -> PathBuf {
	let first = root.join(format!("{now}-{label}"));
	if !first.exists() {
		return first;
	}
	(2..)
		.map(|n| root.join(format!("{now}-{label}-{n}")))
		.find(|path| !path.exists())
		.expect("some suffix is free")
}

/// Deletes the folders under `root` made more than `keep` before `now`; returns how many.
/// Names that do not start with a time are left alone, and failures are only logged: keeping
/// an old folder too long harms nothing.
pub(super) fn prune(root: &Path, now: u64, keep: Duration) -> usize {
	let Ok(entries) = fs::read_dir(root) else {
		return 0;
	};
	let mut removed = 0;
	for entry in entries.flatten() {
		let name = entry.file_name();
		let made = name
			.to_str()
			.and_then(|name| name.split('-').next())
			.and_then(|time| time.parse::<u64>().ok());
		let Some(made) = made else {
			continue;
		};
		if made.saturating_add(keep.as_secs()) >= now {
			continue;
		}
		match fs::remove_dir_all(entry.path()) {
			Ok(()) => removed += 1,
			Err(error) => {
				tracing::warn!(path = %entry.path().display(), %error, "cannot delete batches set aside");
			}
		}
	}
	removed
}
