//! Where the binaries keep files they share on one machine, by default: the platform's cache
//! directory (`$XDG_CACHE_HOME/tigers-and-sheep`, else `~/.cache/tigers-and-sheep` on Linux;
//! `~/Library/Caches/tigers-and-sheep` on macOS), so that `tui`, `coordinator` and `worker`
//! solve or download the tablebase once per machine and never inside a checkout.

use std::path::{Path, PathBuf};

use thiserror::Error;
use tigers_core::tablebase::{RULES_VERSION, TABLEBASE_FORMAT_VERSION};

/// No default location can be found.
#[derive(Debug, Error)]
#[error(
	"this system has no home or cache directory for the default tablebase location; give a path with --tablebase"
)]
pub struct NoCacheDir;

/// The platform's cache directory for this project.
pub fn cache_dir() -> Result<PathBuf, NoCacheDir> {
	directories::ProjectDirs::from("", "", "tigers-and-sheep")
		.map(|dirs| dirs.cache_dir().to_path_buf())
		.ok_or(NoCacheDir)
}

/// The tablebase file's name: its format and rules versions are part of it, so that a program
/// of another version looks for (and makes) its own file.
pub fn tablebase_file_name() -> String {
	format!("movement-phase-f{TABLEBASE_FORMAT_VERSION}-r{RULES_VERSION}.tb")
}

/// Where the tablebase is: `explicit` if given, else the default in the cache directory.
pub fn tablebase_path(explicit: Option<&Path>) -> Result<PathBuf, NoCacheDir> {
	match explicit {
		Some(path) => Ok(path.to_path_buf()),
		None => Ok(cache_dir()?.join("tablebase").join(tablebase_file_name())),
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn an_explicit_path_wins_and_the_default_names_the_versions() {
		let explicit = Path::new("/data/tb.bin");
		assert_eq!(tablebase_path(Some(explicit)).unwrap(), explicit);
		assert_eq!(tablebase_file_name(), "movement-phase-f1-r1.tb");
		let path = tablebase_path(None).expect("a test machine has a home directory");
		assert!(
			path.ends_with("tablebase/movement-phase-f1-r1.tb"),
			"{path:?}"
		);
	}
}
