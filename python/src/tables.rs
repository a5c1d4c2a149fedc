//! `Tables`: the solved values, the movement table and the placement layers, from their usual
//! places in the cache or from given paths, probed one position at a time or by the array.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tigers_core::analysis::{self, Exact};
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::{Position, Tablebase};

use crate::args;
use crate::codes;
use crate::errors::{self, TableMissingError};
use crate::game::{PyGame, parse_position};

/// The command that solves the movement table.
const MOVEMENT_COMMAND: &str = "tui tablebase build";
/// The command that solves the placement layers.
const PLACEMENT_COMMAND: &str = "tui tablebase build --placement";

/// The solved tables: the movement table (values with the plies to the end) and the placement
/// layers (win, draw or loss), either or both.
#[pyclass(module = "tigers_and_sheep", name = "Tables")]
pub struct PyTables {
	pub tables: analysis::Tables,
	movement_path: PathBuf,
	placement_dir: PathBuf,
}

/// A position given as a `Game` (its current position) or as notation.
pub fn position_of(value: &Bound<'_, PyAny>) -> PyResult<Position> {
	if let Ok(game) = value.extract::<PyRef<'_, PyGame>>() {
		return Ok(game.game.position());
	}
	let text: String = value
		.extract()
		.map_err(|_| errors::value("a position is a Game or its notation (a str)"))?;
	parse_position(&text)
}

/// Probes' results and distances, as `probe_codes` returns them.
type Probes<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i16>>);

/// Where a table is looked for: a given path (which must be there), the default (used only if
/// there, unless required), or nowhere.
enum Wanted {
	Nowhere,
	Default { required: bool },
	At(PathBuf),
}

fn wanted(value: Option<&Bound<'_, PyAny>>) -> PyResult<Wanted> {
	let Some(value) = value else {
		return Ok(Wanted::Default { required: false });
	};
	if value.is_none() {
		return Ok(Wanted::Default { required: false });
	}
	if let Ok(flag) = value.extract::<bool>() {
		return Ok(if flag {
			Wanted::Default { required: true }
		} else {
			Wanted::Nowhere
		});
	}
	let path: PathBuf = value.extract().map_err(|_| {
		errors::value("a table is given as a path, True (the default place, required), False (none) or None (the default place, if there)")
	})?;
	Ok(Wanted::At(path))
}

fn missing(what: &str, path: &Path, command: &str) -> PyErr {
	TableMissingError::new_err(format!(
		"{what} is not at {}: `{command}` makes it (or give its path)",
		path.display()
	))
}

/// The word and distance of an exact value.
fn parts(value: Exact) -> Option<(&'static str, Option<u32>)> {
	value.wdl().map(|wdl| (wdl.word(), value.distance()))
}

impl PyTables {
	/// The value of `position`, or `TableMissingError` if no loaded table holds it.
	fn exact(&self, position: Position) -> PyResult<Exact> {
		let value = analysis::value_of(&self.tables, position.board, position.turn)
			.map_err(errors::corrupt)?;
		if value == Exact::Unknown {
			return Err(self.why_unknown(position));
		}
		Ok(value)
	}

	fn why_unknown(&self, position: Position) -> PyErr {
		if position.board.sheep_in_hand() == 0 {
			missing("the movement table", &self.movement_path, MOVEMENT_COMMAND)
		} else {
			TableMissingError::new_err(format!(
				"the placement layer of {position} is not in {}: `{PLACEMENT_COMMAND}` solves \
				 the layers (or give their directory)",
				self.placement_dir.display()
			))
		}
	}
}

#[pymethods]
impl PyTables {
	/// Opens the tables. Each of `movement` (the table's file) and `placement` (the layers'
	/// directory) is a path, which must be there; True, the usual place in the cache, which
	/// must be there; False, not loaded; or None (the default), the usual place if there.
	#[new]
	#[pyo3(signature = (movement = None, placement = None))]
	fn new(
		py: Python<'_>,
		movement: Option<&Bound<'_, PyAny>>,
		placement: Option<&Bound<'_, PyAny>>,
	) -> PyResult<PyTables> {
		let default_movement =
			|| tigers_process::locations::tablebase_path(None).map_err(errors::os);
		let default_placement =
			|| tigers_process::locations::placement_dir(None).map_err(errors::os);
		let (movement_path, movement_required) = match wanted(movement)? {
			Wanted::Nowhere => (default_movement()?, None),
			Wanted::Default { required } => (default_movement()?, Some(required)),
			Wanted::At(path) => (path, Some(true)),
		};
		let (placement_dir, placement_required) = match wanted(placement)? {
			Wanted::Nowhere => (default_placement()?, None),
			Wanted::Default { required } => (default_placement()?, Some(required)),
			Wanted::At(path) => (path, Some(true)),
		};
		let movement = match movement_required {
			None => None,
			Some(required) => {
				let path = movement_path.clone();
				let read = py.detach(move || Tablebase::read_if_present(&path));
				match read.map_err(errors::corrupt)? {
					Some(table) => Some(Arc::new(table)),
					None if required => {
						return Err(missing(
							"the movement table",
							&movement_path,
							MOVEMENT_COMMAND,
						));
					}
					None => None,
				}
			}
		};
		let placement = match placement_required {
			None => None,
			Some(required) => {
				let layers = PlacementTable::open(&placement_dir).map_err(errors::corrupt)?;
				if layers.layers().next().is_some() {
					Some(Arc::new(layers))
				} else if required {
					return Err(missing(
						"no placement layer",
						&placement_dir,
						PLACEMENT_COMMAND,
					));
				} else {
					None
				}
			}
		};
		Ok(PyTables {
			tables: analysis::Tables {
				movement,
				placement,
			},
			movement_path,
			placement_dir,
		})
	}

	/// Whether the movement table is loaded.
	#[getter]
	fn has_movement(&self) -> bool {
		self.tables.movement.is_some()
	}

	/// How many placement layers are loaded (39 make the whole placement phase).
	#[getter]
	fn placement_layers(&self) -> usize {
		self.tables
			.placement
			.as_ref()
			.map_or(0, |p| p.layers().count())
	}

	/// Whether every position of the game has a value here (and the perfect player can play).
	#[getter]
	fn complete(&self) -> bool {
		self.tables.can_play_perfectly()
	}

	/// Where the movement table was looked for.
	#[getter]
	fn movement_path(&self) -> PathBuf {
		self.movement_path.clone()
	}

	/// Where the placement layers were looked for.
	#[getter]
	fn placement_dir(&self) -> PathBuf {
		self.placement_dir.clone()
	}

	/// The exact value of `position` (a `Game` or notation) for the side to move: a tuple of
	/// "win", "draw" or "loss" and the plies to the end (the movement table gives them; None in
	/// the placement phase). A position whose table is not loaded raises `TableMissingError`.
	fn probe(&self, position: &Bound<'_, PyAny>) -> PyResult<(&'static str, Option<u32>)> {
		let position = position_of(position)?;
		let value = self.exact(position)?;
		Ok(parts(value).expect("a known value has a word"))
	}

	/// The exact values of many positions (codes) for their side to move: two arrays, the
	/// results (int8: 1 win, 0 draw, -1 loss, -2 no loaded table holds it) and the plies to the
	/// end (int16, -1 where there is none).
	fn probe_codes<'py>(&self, py: Python<'py>, codes: &Bound<'_, PyAny>) -> PyResult<Probes<'py>> {
		let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
		let tables = &self.tables;
		let values = py.detach(|| {
			positions
				.iter()
				.map(|p| analysis::value_of(tables, p.board, p.turn))
				.collect::<Result<Vec<Exact>, _>>()
		});
		let values = values.map_err(errors::corrupt)?;
		let wdl = values
			.iter()
			.map(|v| v.wdl().map_or(-2, |w| w.sign() as i8))
			.collect();
		let distance = values
			.iter()
			.map(|v| v.distance().map_or(-1, |d| d as i16))
			.collect();
		Ok((
			PyArray1::from_vec(py, wdl),
			PyArray1::from_vec(py, distance),
		))
	}

	/// `position`'s value and every legal move's, best first for the side to move: a dict
	/// with `value` (as `probe` gives it, or None where no table holds it), `over` and
	/// `moves`, a list of (move, "win"/"draw"/"loss" or None, plies or None). A move's value is
	/// the mover's after it.
	fn analyse<'py>(
		&self,
		py: Python<'py>,
		position: &Bound<'py, PyAny>,
	) -> PyResult<Bound<'py, PyDict>> {
		let position = position_of(position)?;
		let found = analysis::analyse(&self.tables, position).map_err(errors::corrupt)?;
		let out = PyDict::new(py);
		out.set_item("position", found.position.to_string())?;
		out.set_item("over", found.over)?;
		out.set_item("value", parts(found.value))?;
		let moves: Vec<(String, Option<&str>, Option<u32>)> = found
			.moves
			.iter()
			.map(|m| {
				let (word, distance) = parts(m.value).map_or((None, None), |(w, d)| (Some(w), d));
				(m.mv.to_string(), word, distance)
			})
			.collect();
		out.set_item("moves", moves)?;
		Ok(out)
	}

	fn __repr__(&self) -> String {
		format!(
			"Tables(movement={}, placement_layers={})",
			self.has_movement(),
			self.placement_layers()
		)
	}
}
