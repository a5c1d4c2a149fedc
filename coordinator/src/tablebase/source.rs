//! Where a command looks for its tables, and whether they must be there: the movement table
//! and the placement layers a user named (which must then be there and good), or those in
//! their default places (used if there); and the tables read from wherever that is.
//!
//! The defaults: the movement table in the platform's cache (`process::locations`); the
//! placement layers in `placement-f1-r1` beside the default movement table for a command that
//! only reads tables (`coordinator measure`), or beside a run's own movement table, wherever
//! that is. What a run does without a table (solves it) is `tablebase`'s.

use std::path::{Path, PathBuf};

use thiserror::Error;
use tigers_core::Tablebase;
use tigers_core::tablebase::TablebaseFileError;
use tigers_core::tablebase::placement::{PlacementError, PlacementTable};
use tigers_process::locations::{self, NoHomeDir};

/// Where a table is looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableSource {
	/// Nowhere: the user asked for no table (`--no-tablebase`).
	Off,
	/// Where the user said: the table must be there, and good.
	Named(PathBuf),
	/// The default place: the table is used if it is there; a table there that is not good is
	/// an error all the same, so that a damaged file is seen rather than silently skipped.
	Default(PathBuf),
}

/// Why a table that was looked for cannot be used: each names its path and what to do.
#[derive(Debug, Error)]
pub enum TableError {
	/// There is no default place to look: the system tells no home directory.
	#[error(transparent)]
	NoHome(#[from] NoHomeDir),
	/// The movement table is missing where named, or is not a good table.
	#[error(
		"the tablebase at {} cannot be used: {source}. Delete it and `tui tablebase build` \
		 solves it again, or pass --no-tablebase",
		path.display()
	)]
	Movement {
		/// Its file.
		path: PathBuf,
		/// What is wrong with it.
		source: TablebaseFileError,
	},
	/// The placement layers' directory named is not there.
	#[error("no placement layers in {}", dir.display())]
	NoPlacement {
		/// The directory.
		dir: PathBuf,
	},
	/// A placement layer file is there but cannot be read.
	#[error("the placement layers in {} cannot be used: {source}", dir.display())]
	Placement {
		/// The directory.
		dir: PathBuf,
		/// What is wrong with it.
		source: PlacementError,
	},
}

impl TableSource {
	/// The movement table: none if `off`, else the file `named`, else the default file in the
	/// platform's cache (`movement-phase-f1-r1.tb`).
	pub fn movement(named: Option<&Path>, off: bool) -> Result<TableSource, NoHomeDir> {
		if off {
			return Ok(TableSource::Off);
		}
		Ok(match named {
			Some(path) => TableSource::Named(path.to_path_buf()),
			None => TableSource::Default(locations::tablebase_path(None)?),
		})
	}

	/// The placement layers of a command that only reads tables: the directory `named`, else
	/// `placement-f1-r1` in the platform's cache, beside the default movement table.
	pub fn placement(named: Option<&Path>) -> Result<TableSource, NoHomeDir> {
		Ok(match named {
			Some(dir) => TableSource::Named(dir.to_path_buf()),
			None => TableSource::Default(locations::placement_dir(None)?),
		})
	}

	/// The placement layers of a run: none if `off`, else the directory `named`, else
	/// `placement-f1-r1` beside the run's movement table (the file `movement`, else the
	/// default one), wherever that is.
	pub fn run_placement(
		named: Option<&Path>,
		movement: Option<&Path>,
		off: bool,
	) -> Result<TableSource, NoHomeDir> {
		if off {
			return Ok(TableSource::Off);
		}
		if let Some(dir) = named {
			return Ok(TableSource::Named(dir.to_path_buf()));
		}
		let movement = locations::tablebase_path(movement)?;
		Ok(TableSource::Default(
			movement.with_file_name(locations::placement_dir_name()),
		))
	}

	/// The file or directory looked at, if any.
	pub fn path(&self) -> Option<&Path> {
		match self {
			TableSource::Off => None,
			TableSource::Named(path) | TableSource::Default(path) => Some(path),
		}
	}

	/// Whether the user named the place, so that the table must be there.
	pub fn is_named(&self) -> bool {
		matches!(self, TableSource::Named(_))
	}

	/// The movement table from here, for a command that reads it only: none if off, or if the
	/// default file is not there; an error if a named file is not there, or if a file there is
	/// not a good table.
	pub fn read_movement(&self) -> Result<Option<Tablebase>, TableError> {
		let cannot = |path: &Path| {
			let path = path.to_path_buf();
			move |source| TableError::Movement { path, source }
		};
		match self {
			TableSource::Off => Ok(None),
			TableSource::Named(path) => Tablebase::read(path).map(Some).map_err(cannot(path)),
			TableSource::Default(path) => Tablebase::read_if_present(path).map_err(cannot(path)),
		}
	}

	/// The placement layers from here: none if off, or if the default directory is not there;
	/// an error if a named directory is not there, or if a layer file there cannot be read.
	/// A directory without layers opens as a table without layers.
	pub fn open_placement(&self) -> Result<Option<PlacementTable>, TableError> {
		let dir = match self {
			TableSource::Off => return Ok(None),
			TableSource::Named(dir) | TableSource::Default(dir) => dir,
		};
		if !dir.is_dir() {
			if self.is_named() {
				return Err(TableError::NoPlacement { dir: dir.clone() });
			}
			return Ok(None);
		}
		PlacementTable::open(dir)
			.map(Some)
			.map_err(|source| TableError::Placement {
				dir: dir.clone(),
				source,
			})
	}
}

#[cfg(test)]
mod tests {
	use tigers_core::tablebase::placement::LayerId;

	use super::*;
	use crate::test_support::TestDir;

	#[test]
	fn a_named_place_wins_and_the_defaults_lie_in_the_cache() {
		let named = Path::new("/data/movement.tb");
		assert_eq!(
			TableSource::movement(Some(named), false).unwrap(),
			TableSource::Named(named.to_path_buf())
		);
		assert_eq!(
			TableSource::movement(Some(named), true).unwrap(),
			TableSource::Off
		);
		let movement = TableSource::movement(None, false).expect("a home directory");
		assert!(!movement.is_named());
		let file = movement.path().expect("a default file");
		assert!(
			file.ends_with("tablebase/movement-phase-f1-r1.tb"),
			"{file:?}"
		);
		let placement = TableSource::placement(None).expect("a home directory");
		assert_eq!(
			placement.path(),
			Some(file.with_file_name("placement-f1-r1").as_path())
		);
		let dir = Path::new("/data/layers");
		assert_eq!(
			TableSource::placement(Some(dir)).unwrap(),
			TableSource::Named(dir.to_path_buf())
		);
	}

	#[test]
	fn a_runs_placement_layers_sit_beside_its_movement_table_wherever_it_is() {
		let movement = Path::new("/data/movement.tb");
		assert_eq!(
			TableSource::run_placement(None, Some(movement), false).unwrap(),
			TableSource::Default("/data/placement-f1-r1".into())
		);
		let dir = Path::new("/x");
		assert_eq!(
			TableSource::run_placement(Some(dir), Some(movement), false).unwrap(),
			TableSource::Named(dir.to_path_buf())
		);
		assert_eq!(
			TableSource::run_placement(Some(dir), None, true).unwrap(),
			TableSource::Off
		);
		assert_eq!(
			TableSource::run_placement(None, None, false).unwrap(),
			TableSource::placement(None).unwrap()
		);
	}

	#[test]
	fn a_missing_default_table_is_none_and_a_missing_named_one_an_error() {
		let dir = TestDir::new("table-source");
		let missing = dir.path().join("missing.tb");
		let layers = dir.path().join("no-layers-here");
		assert!(TableSource::Off.read_movement().unwrap().is_none());
		assert!(TableSource::Off.open_placement().unwrap().is_none());
		let default = TableSource::Default(missing.clone());
		assert!(default.read_movement().expect("absent is fine").is_none());
		let default = TableSource::Default(layers.clone());
		assert!(default.open_placement().expect("absent is fine").is_none());
		let error = TableSource::Named(missing).read_movement().unwrap_err();
		assert!(matches!(error, TableError::Movement { .. }), "{error:?}");
		let words = error.to_string();
		assert!(
			words.contains("missing.tb") && words.contains("--no-tablebase"),
			"{words}"
		);
		let error = TableSource::Named(layers).open_placement().unwrap_err();
		assert!(matches!(error, TableError::NoPlacement { .. }), "{error:?}");
		assert!(error.to_string().contains("no-layers-here"), "{error}");
	}

	#[test]
	fn a_bad_table_is_an_error_even_in_the_default_place() {
		let dir = TestDir::new("table-source-bad");
		let junk = dir.path().join("junk.tb");
		std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
		let error = TableSource::Default(junk).read_movement().unwrap_err();
		assert!(matches!(error, TableError::Movement { .. }), "{error:?}");
		let layer = dir.path().join(LayerId::solve_order(0)[0].file_name());
		std::fs::write(layer, vec![b'x'; 4096]).unwrap();
		let error = TableSource::Default(dir.path().to_path_buf())
			.open_placement()
			.unwrap_err();
		assert!(matches!(error, TableError::Placement { .. }), "{error:?}");
	}

	#[test]
	fn a_directory_without_layers_opens_empty() {
		let dir = TestDir::new("table-source-empty");
		let table = TableSource::Named(dir.path().to_path_buf())
			.open_placement()
			.expect("an empty directory opens")
			.expect("a named directory is read");
		assert_eq!(table.layers().count(), 0);
	}
}
