//! `tui tablebase build | verify | stats`, and finding the table the other commands use.
//!
//! The table lives at `--tablebase PATH` or, by default, in the platform's cache directory
//! (see `tigers_process::locations`), shared with the coordinator and workers on the machine.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;
use tigers_core::Tablebase;
use tigers_core::tablebase::file::table_file_bytes;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::tablebase::{
	Census, SolveError, SolveProgress, TablebaseFileError, VerifyError, VerifyProgress,
};
use tigers_process::disk;
use tigers_process::locations::{self, NoHomeDir};
use tigers_widgets::progress_bar;

/// Why a tablebase command failed.
#[derive(Debug, Error)]
pub enum TablebaseCommandError {
	/// There is no default location and none was given.
	#[error(transparent)]
	Location(#[from] NoHomeDir),
	/// The file is unreadable or not a good table.
	#[error(
		"the tablebase at {} cannot be used: {source}; `tui tablebase build --force --out {}` \
		 solves it again",
		path.display(),
		path.display()
	)]
	Unusable {
		/// The file.
		path: PathBuf,
		/// What is wrong with it.
		source: TablebaseFileError,
	},
	/// The solved table could not be written.
	#[error("cannot write the tablebase to {}: {source}", path.display())]
	Write {
		/// The file.
		path: PathBuf,
		/// What went wrong.
		source: TablebaseFileError,
	},
	/// The solve failed.
	#[error(transparent)]
	Solve(#[from] SolveError),
	/// The table is wrong.
	#[error("the tablebase failed verification: {0}")]
	Verify(#[from] VerifyError),
	/// `build` found a file already there.
	#[error(
		"{0} already holds a tablebase; `tui tablebase verify` checks it, and --force solves it again"
	)]
	Exists(PathBuf),
	/// The disk has no room for the table: refused before the solve, which takes minutes.
	#[error(
		"no room for the tablebase in {}: it needs {needs_mib} MiB and {free_mib} MiB are free; \
		 free some space there or give --out another path",
		dir.display()
	)]
	NoRoom {
		/// The directory it would go in.
		dir: PathBuf,
		/// The file's size, in MiB.
		needs_mib: u64,
		/// The space free there, in MiB.
		free_mib: u64,
	},
	/// A file named explicitly is not there.
	#[error("there is no tablebase at {0}; `tui tablebase build --out {0}` makes one")]
	Missing(PathBuf),
}

/// The table for play and the engine, if there is one, and what to say if there is not.
pub struct Found {
	/// The table.
	pub table: Option<Arc<Tablebase>>,
	/// Where it is (or would be).
	pub path: Option<PathBuf>,
	/// Why there is none, to say once.
	pub note: Option<String>,
}

/// Loads the table at `explicit`, or at the default location; without one, says so (an
/// explicit path that is missing is an error). `disabled` skips it.
pub fn find(explicit: Option<&Path>, disabled: bool) -> Result<Found, TablebaseCommandError> {
	if disabled {
		return Ok(Found {
			table: None,
			path: None,
			note: Some("the tablebase is off (--no-tablebase)".to_string()),
		});
	}
	let path = locations::tablebase_path(explicit)?;
	match read_if_present(&path)? {
		Some(table) => Ok(Found {
			table: Some(Arc::new(table)),
			path: Some(path),
			note: None,
		}),
		None if explicit.is_some() => Err(TablebaseCommandError::Missing(path)),
		None => Ok(Found {
			note: Some(format!(
				"no tablebase at {}; `tui tablebase build` makes one (about half a minute)",
				path.display()
			)),
			table: None,
			path: Some(path),
		}),
	}
}

/// The placement layers in the default directory, if any are there and the tables are on; a
/// directory that does not open (a damaged header) counts as none.
pub fn find_placement(disabled: bool) -> Option<Arc<PlacementTable>> {
	if disabled {
		return None;
	}
	let dir = locations::placement_dir(None).ok()?;
	let table = PlacementTable::open(&dir).ok()?;
	(table.layers().count() > 0).then(|| Arc::new(table))
}

/// `tui tablebase build`: solves the movement phase and writes the table to `path`.
pub fn build(path: &Path, threads: usize, force: bool) -> Result<String, TablebaseCommandError> {
	if path.exists() && !force {
		return Err(TablebaseCommandError::Exists(path.to_path_buf()));
	}
	check_room(path)?;
	let started = Instant::now();
	let bar = progress_bar(1, "solving");
	let table = Tablebase::solve(threads, &|p: SolveProgress| {
		bar.set_length(p.total);
		bar.set_position(p.done);
		bar.set_message(format!("solving, {} dead", p.dead));
	})?;
	bar.finish_and_clear();
	let solved = started.elapsed();
	table
		.write(path)
		.map_err(|source| TablebaseCommandError::Write {
			path: path.to_path_buf(),
			source,
		})?;
	let census = table.census();
	let mut out = format!(
		"solved in {:.1} s on {threads} thread{}; wrote {} ({} bytes)\n",
		solved.as_secs_f64(),
		if threads == 1 { "" } else { "s" },
		path.display(),
		std::fs::metadata(path).map_or(0, |m| m.len())
	);
	out.push_str(&describe(&table, &census));
	Ok(out)
}

/// Refuses a build whose file would not fit where it goes (its temporary copy is written
/// beside it before the rename).
fn check_room(path: &Path) -> Result<(), TablebaseCommandError> {
	let needs = table_file_bytes();
	let dir = path
		.parent()
		.filter(|d| !d.as_os_str().is_empty())
		.unwrap_or(Path::new("."));
	match disk::free_bytes(dir) {
		Some(free) if free < needs => Err(TablebaseCommandError::NoRoom {
			dir: dir.to_path_buf(),
			needs_mib: disk::mib(needs),
			free_mib: free >> 20,
		}),
		_ => Ok(()),
	}
}

/// `tui tablebase verify`: recomputes every value from its moves.
pub fn verify(path: &Path, threads: usize) -> Result<String, TablebaseCommandError> {
	let table = read(path)?;
	let started = Instant::now();
	let bar = progress_bar(u64::from(table.len()), "verifying");
	let report = table.verify(threads, &|p: VerifyProgress| bar.set_position(p.done));
	bar.finish_and_clear();
	let report = report?;
	Ok(format!(
		"verified {}: {} positions up to symmetry each hold the best value over their moves, \
		 and {} symmetric copies match them ({:.1} s)\n",
		path.display(),
		report.positions,
		report.copies,
		started.elapsed().as_secs_f64()
	))
}

/// `tui tablebase stats`: the table's counts.
pub fn stats(path: &Path) -> Result<String, TablebaseCommandError> {
	let table = read(path)?;
	let mut out = format!("tablebase: {}\n", path.display());
	out.push_str(&describe(&table, &table.census()));
	Ok(out)
}

fn read(path: &Path) -> Result<Tablebase, TablebaseCommandError> {
	read_if_present(path)?.ok_or_else(|| TablebaseCommandError::Missing(path.into()))
}

fn read_if_present(path: &Path) -> Result<Option<Tablebase>, TablebaseCommandError> {
	Tablebase::read_if_present(path).map_err(|source| TablebaseCommandError::Unusable {
		path: path.to_path_buf(),
		source,
	})
}

/// The identity, the counts, wins, draws and losses by layer, and the longest win.
pub fn describe(table: &Tablebase, census: &Census) -> String {
	let mut out = String::new();
	let _ = writeln!(out, "identity: {}", table.identity());
	let _ = writeln!(
		out,
		"positions up to symmetry: {}",
		census.positions_up_to_symmetry
	);
	let _ = writeln!(out, "positions: {}", census.positions);
	let _ = writeln!(
		out,
		"\nvalues for the side to move, positions counted up to symmetry:"
	);
	let _ = writeln!(
		out,
		"{:>4}  {:<7} {:>11} {:>11} {:>11}",
		"dead", "to move", "wins", "draws", "losses"
	);
	for (dead, layer) in census.layers.iter().enumerate() {
		for (side, wdl) in [
			("sheep", layer.sheep_to_move),
			("tigers", layer.tigers_to_move),
		] {
			let _ = writeln!(
				out,
				"{dead:>4}  {side:<7} {:>11} {:>11} {:>11}",
				wdl.wins, wdl.draws, wdl.losses
			);
		}
	}
	if let Some((plies, position)) = census.longest_win {
		let _ = writeln!(out, "\nlongest win: {plies} plies, from {position}");
	}
	out
}
