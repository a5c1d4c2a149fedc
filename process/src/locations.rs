//! Where the binaries keep files by default, in the platform's directories and never inside a
//! checkout or the working directory:
//!
//! - the **cache** (`$XDG_CACHE_HOME/tigers-and-sheep`, else `~/.cache/tigers-and-sheep` on
//!   Linux; `~/Library/Caches/tigers-and-sheep` on macOS) holds the tablebase, which `tui`,
//!   `coordinator` and `worker` share, solve or download once per machine, and could remake;
//! - the **data** directory (`$XDG_DATA_HOME/tigers-and-sheep`, else
//!   `~/.local/share/tigers-and-sheep`; `~/Library/Application Support/tigers-and-sheep`) holds
//!   what a person made: the games `tui` saves;
//! - the **state** directory (`$XDG_STATE_HOME/tigers-and-sheep`, else
//!   `~/.local/state/tigers-and-sheep` on Linux; the local data directory on platforms without
//!   one, such as macOS and Windows) holds what a program keeps between runs and would lose
//!   its place without: each worker's identity and spool, under `worker/<name>`.

use std::path::{Path, PathBuf};

use thiserror::Error;
use tigers_core::tablebase::{RULES_VERSION, TABLEBASE_FORMAT_VERSION};

/// No default location can be found: the system tells no home directory.
#[derive(Debug, Error)]
#[error("this system has no home directory for default file locations; give a path explicitly")]
pub struct NoHomeDir;

fn project_dirs() -> Result<directories::ProjectDirs, NoHomeDir> {
	directories::ProjectDirs::from("", "", "tigers-and-sheep").ok_or(NoHomeDir)
}

/// The platform's cache directory for this project.
pub fn cache_dir() -> Result<PathBuf, NoHomeDir> {
	Ok(project_dirs()?.cache_dir().to_path_buf())
}

/// Where `tui` saves games unless told otherwise.
pub fn games_dir() -> Result<PathBuf, NoHomeDir> {
	Ok(project_dirs()?.data_dir().join("games"))
}

/// The platform's state directory for this project, or its local data directory where the
/// platform has no state directory.
pub fn state_dir() -> Result<PathBuf, NoHomeDir> {
	let dirs = project_dirs()?;
	Ok(dirs
		.state_dir()
		.unwrap_or_else(|| dirs.data_local_dir())
		.to_path_buf())
}

/// Where the worker named `name` keeps its state unless told otherwise: `worker/<name>` in the
/// state directory. `name` must already be one path component.
pub fn worker_state_dir(name: &str) -> Result<PathBuf, NoHomeDir> {
	Ok(state_dir()?.join("worker").join(name))
}

/// The tablebase file's name: its format and rules versions are part of it, so that a program
/// of another version looks for (and makes) its own file.
pub fn tablebase_file_name() -> String {
	format!("movement-phase-f{TABLEBASE_FORMAT_VERSION}-r{RULES_VERSION}.tb")
}

/// Where the tablebase is: `explicit` if given, else the default in the cache directory.
pub fn tablebase_path(explicit: Option<&Path>) -> Result<PathBuf, NoHomeDir> {
	match explicit {
		Some(path) => Ok(path.to_path_buf()),
		None => Ok(cache_dir()?.join("tablebase").join(tablebase_file_name())),
	}
}

/// Where the placement layers are: `explicit` if given, else a directory in the cache directory
/// beside the movement table, named for the layers' format and rules versions.
pub fn placement_dir(explicit: Option<&Path>) -> Result<PathBuf, NoHomeDir> {
	match explicit {
		Some(path) => Ok(path.to_path_buf()),
		None => Ok(cache_dir()?.join("tablebase").join(placement_dir_name())),
	}
}

/// The placement layers' directory name, which names the index's and the rules' versions
/// (`placement-f1-r1`): files of every format of the same index share it.
pub fn placement_dir_name() -> String {
	use tigers_core::tablebase::placement::PLACEMENT_INDEX_VERSION;
	format!("placement-f{PLACEMENT_INDEX_VERSION}-r{RULES_VERSION}")
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

	#[test]
	fn the_placement_layers_sit_beside_the_movement_table() {
		let dir = placement_dir(None).expect("a test machine has a home directory");
		assert!(dir.ends_with("tablebase/placement-f1-r1"), "{dir:?}");
		assert_eq!(
			placement_dir(Some(Path::new("/x"))).unwrap(),
			Path::new("/x")
		);
	}

	#[cfg(target_os = "linux")]
	#[test]
	fn worker_state_lives_in_the_state_directory() {
		let path = worker_state_dir("lab-box-1").expect("a test machine has a home directory");
		assert!(path.is_absolute(), "{path:?}");
		assert!(
			path.ends_with("tigers-and-sheep/worker/lab-box-1"),
			"{path:?}"
		);
		// $XDG_STATE_HOME if set, else ~/.local/state: never the working directory or the
		// data directory.
		let base = std::env::var_os("XDG_STATE_HOME")
			.map(PathBuf::from)
			.filter(|p| p.is_absolute());
		match base {
			Some(base) => assert!(path.starts_with(base), "{path:?}"),
			None => assert!(
				path.to_string_lossy().contains("/.local/state/"),
				"{path:?}"
			),
		}
	}
}
