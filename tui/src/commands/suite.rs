//! `tui tablebase suite`: the grading suite drawn from the solved game (`tigers_core::grade`),
//! written as text for `coordinator grade` and for the repository's copy.

use std::path::Path;

use thiserror::Error;
use tigers_core::Tablebase;
use tigers_core::grade::{self, ExactTables, SuiteShape};
use tigers_core::tablebase::placement::{PlacementError, PlacementTable};

/// Why the suite was not drawn.
#[derive(Debug, Error)]
pub enum SuiteCommandError {
	/// The layers could not be opened.
	#[error(transparent)]
	Layers(#[from] PlacementError),
	/// Some layers are missing: the suite is drawn over the whole game.
	#[error(
		"the placement layers in {0} are not all there; the suite is drawn over the whole game: \
		 `tui tablebase build --placement` solves them"
	)]
	Incomplete(String),
	/// The file could not be written.
	#[error("cannot write the suite to {path}: {source}")]
	Write {
		/// The file.
		path: String,
		/// What the system said.
		source: std::io::Error,
	},
}

/// Draws the suite of `shape` from `movement` and the layers in `dir`, writes it to `out`, and
/// says what it holds.
pub fn suite(
	dir: &Path,
	movement: &Tablebase,
	shape: SuiteShape,
	out: &Path,
) -> Result<String, SuiteCommandError> {
	let placement = PlacementTable::open(dir)?;
	if !placement.is_complete() {
		return Err(SuiteCommandError::Incomplete(dir.display().to_string()));
	}
	let tables = ExactTables {
		movement,
		placement: &placement,
	};
	let entries = grade::draw_suite(&tables, shape);
	let notes = [
		format!(
			"Tigers and Sheep grading suite: `tui tablebase suite --seed {} --per-phase {}`",
			shape.seed, shape.placement
		),
		format!("movement table {}", movement.identity()),
	];
	let text = grade::write_suite(&entries, &notes);
	std::fs::write(out, &text).map_err(|source| SuiteCommandError::Write {
		path: out.display().to_string(),
		source,
	})?;
	let in_hand = entries
		.iter()
		.filter(|e| e.position.board.sheep_in_hand() > 0)
		.count();
	Ok(format!(
		"{} positions ({in_hand} in the placement phase, {} in the movement phase) written to {}\n",
		entries.len(),
		entries.len() - in_hand,
		out.display()
	))
}
