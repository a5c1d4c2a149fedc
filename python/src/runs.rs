//! `Run`: a run directory read from Python: the ledger's rows (promoted nets, gates, grades and
//! any other table) as dicts, the promoted nets, the archive's games, and the self-play samples
//! as numpy arrays. The ledger is opened read-only, so a run can be read while it goes on.

use std::path::{Path, PathBuf};
use std::sync::MutexGuard;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use tigers_core::network::encode_as;
use tigers_core::selfplay::Sample;
use tigers_core::{GameRecord, Position};
use tigers_proto::{games, stored};

use crate::codes;
use crate::errors;
use crate::game;
use crate::players::PyNet;

/// The ledger's file in a run directory.
const LEDGER: &str = "ledger.sqlite";
/// The promoted nets' folder, and the file there naming the best by the rating ladder.
const NETS: &str = "nets";
const BEST: &str = "best";

/// A coordinator's run directory (`--run-dir`), read-only.
#[pyclass(module = "tigers_and_sheep", name = "Run")]
pub struct PyRun {
	root: PathBuf,
	ledger: std::sync::Mutex<Connection>,
}

/// A net file's name: `gen-000012.safetensors`.
fn net_file_name(generation: u64) -> String {
	format!("gen-{generation:06}.safetensors")
}

/// The generation a net file's name gives.
fn net_generation(name: &str) -> Option<u64> {
	let digits = name.strip_prefix("gen-")?.strip_suffix(".safetensors")?;
	digits
		.bytes()
		.all(|b| b.is_ascii_digit())
		.then(|| digits.parse().ok())
		.flatten()
}

fn sql_error(path: &Path) -> impl Fn(rusqlite::Error) -> PyErr + '_ {
	move |e| errors::corrupt(format!("{}: {e}", path.display()))
}

/// A column's value as a Python object.
fn cell<'py>(py: Python<'py>, value: ValueRef<'_>) -> PyResult<Bound<'py, PyAny>> {
	Ok(match value {
		ValueRef::Null => py.None().into_bound(py),
		ValueRef::Integer(n) => n.into_pyobject(py)?.into_any(),
		ValueRef::Real(x) => x.into_pyobject(py)?.into_any(),
		ValueRef::Text(text) => String::from_utf8_lossy(text).into_pyobject(py)?.into_any(),
		ValueRef::Blob(bytes) => PyBytes::new(py, bytes).into_any(),
	})
}

/// Samples as numpy arrays.
fn sample_arrays<'py>(
	py: Python<'py>,
	samples: &[Sample],
	uses: Option<&[u32]>,
	version: u32,
) -> PyResult<Bound<'py, PyDict>> {
	let encoding = game::encoding(version)?;
	let width = encoding.inputs();
	let mut inputs = vec![0.0f32; samples.len() * width];
	py.detach(|| {
		for (row, sample) in inputs.chunks_exact_mut(width).zip(samples) {
			let all = encode_as(encoding, sample.board, sample.turn);
			row.copy_from_slice(&all[..width]);
		}
	});
	let out = PyDict::new(py);
	let column = |f: &dyn Fn(&Sample) -> f32| samples.iter().map(f).collect::<Vec<f32>>();
	out.set_item(
		"codes",
		PyArray1::from_vec(
			py,
			samples
				.iter()
				.map(|s| {
					codes::encode(Position {
						board: s.board,
						turn: s.turn,
					})
				})
				.collect(),
		),
	)?;
	out.set_item(
		"inputs",
		PyArray1::from_vec(py, inputs).reshape([samples.len(), width])?,
	)?;
	out.set_item("score", PyArray1::from_vec(py, column(&|s| s.score)))?;
	out.set_item("result", PyArray1::from_vec(py, column(&|s| s.result)))?;
	out.set_item(
		"ply",
		PyArray1::from_vec(py, samples.iter().map(|s| s.ply).collect()),
	)?;
	out.set_item(
		"generation",
		PyArray1::from_vec(py, samples.iter().map(|s| s.generation).collect()),
	)?;
	if let Some(uses) = uses {
		out.set_item("uses", PyArray1::from_slice(py, uses))?;
	}
	Ok(out)
}

impl PyRun {
	/// The ledger's connection, held for one query, and the file's path for its errors.
	fn ledger(&self) -> (MutexGuard<'_, Connection>, PathBuf) {
		let ledger = self
			.ledger
			.lock()
			.expect("no query panics while it holds the ledger");
		(ledger, self.root.join(LEDGER))
	}

	fn query<'py>(
		&self,
		py: Python<'py>,
		sql: &str,
		params: &[&dyn rusqlite::ToSql],
	) -> PyResult<Bound<'py, PyList>> {
		let (ledger, path) = self.ledger();
		let mut statement = ledger.prepare(sql).map_err(sql_error(&path))?;
		let names: Vec<String> = statement.column_names().map(|s| s.to_string()).collect();
		let mut rows = statement.query(params).map_err(sql_error(&path))?;
		let out = PyList::empty(py);
		while let Some(row) = rows.next().map_err(sql_error(&path))? {
			let dict = PyDict::new(py);
			for (index, name) in names.iter().enumerate() {
				let value = row.get_ref(index).map_err(sql_error(&path))?;
				dict.set_item(name, cell(py, value)?)?;
			}
			out.append(dict)?;
		}
		Ok(out)
	}

	fn tables(&self) -> PyResult<Vec<String>> {
		let (ledger, path) = self.ledger();
		let mut statement = ledger
			.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
			.map_err(sql_error(&path))?;
		let names = statement
			.query_map([], |row| row.get::<_, String>(0))
			.map_err(sql_error(&path))?
			.collect::<Result<Vec<String>, _>>()
			.map_err(sql_error(&path))?;
		Ok(names)
	}

	fn ledger_samples(&self) -> PyResult<Vec<Sample>> {
		let (ledger, path) = self.ledger();
		let mut statement = ledger
			.prepare("SELECT batch_id, samples FROM batch_samples ORDER BY batch_id")
			.map_err(sql_error(&path))?;
		let mut rows = statement.query([]).map_err(sql_error(&path))?;
		let mut samples = Vec::new();
		while let Some(row) = rows.next().map_err(sql_error(&path))? {
			let id: i64 = row.get(0).map_err(sql_error(&path))?;
			let blob = row.get_ref(1).map_err(sql_error(&path))?;
			let bytes = blob.as_blob().map_err(|e| sql_error(&path)(e.into()))?;
			let decoded = stored::decode_samples(bytes).map_err(|e| {
				errors::corrupt(format!(
					"{}: the samples of batch {id}: {e} (a batch stored by a build older than \
					 the current sample encoding is read by the coordinator only)",
					path.display()
				))
			})?;
			samples.extend(decoded);
		}
		Ok(samples)
	}
}

#[pymethods]
impl PyRun {
	/// Opens the run directory `path` (one with a `ledger.sqlite`) for reading.
	#[new]
	fn new(path: PathBuf) -> PyResult<PyRun> {
		let ledger_path = path.join(LEDGER);
		if !ledger_path.is_file() {
			return Err(PyFileNotFoundError::new_err(format!(
				"{} is not a run directory: it has no {LEDGER} (a coordinator's --run-dir has one)",
				path.display()
			)));
		}
		let ledger = Connection::open_with_flags(
			&ledger_path,
			OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
		)
		.map_err(sql_error(&ledger_path))?;
		ledger
			.busy_timeout(std::time::Duration::from_secs(5))
			.map_err(sql_error(&ledger_path))?;
		let run = PyRun {
			root: path,
			ledger: std::sync::Mutex::new(ledger),
		};
		run.tables()?;
		Ok(run)
	}

	/// The run directory.
	#[getter]
	fn path(&self) -> PathBuf {
		self.root.clone()
	}

	/// The ledger's tables by name.
	fn ledger_tables(&self) -> PyResult<Vec<String>> {
		self.tables()
	}

	/// Every row of the ledger's table `table`, as dicts of column to value, in the table's
	/// order (docs/training.md, "The ledger", gives the columns).
	fn rows<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyList>> {
		let known = self.tables()?;
		if !known.iter().any(|name| name == table) {
			return Err(errors::value(format!(
				"the ledger has no table {table:?}; it has {}",
				known.join(", ")
			)));
		}
		self.query(
			py,
			&format!("SELECT * FROM \"{table}\" ORDER BY rowid"),
			&[],
		)
	}

	/// The promoted nets, oldest first: generation, sha256, training steps, when (Unix
	/// seconds), the samples stored by then, and `net`, the file's path.
	fn generations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
		let rows = self.query(py, "SELECT * FROM generations ORDER BY generation", &[])?;
		for row in rows.iter() {
			let row = row.cast_into::<PyDict>()?;
			if let Some(generation) = row.get_item("generation")? {
				let generation: u64 = generation.extract()?;
				let path = self.root.join(NETS).join(net_file_name(generation));
				row.set_item("net", path)?;
			}
		}
		Ok(rows)
	}

	/// Every gate and measurement match, oldest first.
	fn gates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
		self.query(py, "SELECT * FROM gates ORDER BY id", &[])
	}

	/// Every promoted net's grades on the suite, by generation (empty for a run that graded
	/// none).
	fn grades<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
		if !self.tables()?.iter().any(|t| t == "grades") {
			return Ok(PyList::empty(py));
		}
		self.query(py, "SELECT * FROM grades ORDER BY generation", &[])
	}

	/// The generations with a net file in `nets/`, lowest first.
	fn net_generations(&self) -> PyResult<Vec<u64>> {
		let dir = self.root.join(NETS);
		let entries =
			std::fs::read_dir(&dir).map_err(|e| errors::os(format!("{}: {e}", dir.display())))?;
		let mut found: Vec<u64> = entries
			.filter_map(Result::ok)
			.filter_map(|e| net_generation(&e.file_name().to_string_lossy()))
			.collect();
		found.sort_unstable();
		Ok(found)
	}

	/// The generation `nets/best` names (the best by the rating ladder), if the run wrote one.
	fn best_generation(&self) -> PyResult<Option<u64>> {
		let path = self.root.join(NETS).join(BEST);
		match std::fs::read_to_string(&path) {
			Ok(text) => net_generation(text.trim()).map(Some).ok_or_else(|| {
				errors::corrupt(format!(
					"{} names {:?}, not a net file",
					path.display(),
					text.trim()
				))
			}),
			Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
			Err(e) => Err(errors::os(format!("{}: {e}", path.display()))),
		}
	}

	/// The net of `generation`, or the best by the ladder, else the newest, if not given.
	#[pyo3(signature = (generation = None))]
	fn net(&self, py: Python<'_>, generation: Option<u64>) -> PyResult<PyNet> {
		let generation = match generation {
			Some(g) => g,
			None => match self.best_generation()? {
				Some(g) => g,
				None => *self.net_generations()?.last().ok_or_else(|| {
					PyFileNotFoundError::new_err(format!(
						"{} has no promoted net yet",
						self.root.join(NETS).display()
					))
				})?,
			},
		};
		let path = self.root.join(NETS).join(net_file_name(generation));
		if !path.is_file() {
			return Err(PyFileNotFoundError::new_err(format!(
				"the run has no net of generation {generation}: {} is not there",
				path.display()
			)));
		}
		PyNet::new(py, path)
	}

	/// The generations with games in the archive (`games/`), lowest first.
	fn game_generations(&self) -> PyResult<Vec<u64>> {
		let dir = self.root.join(games::ARCHIVE_DIR);
		let Ok(entries) = std::fs::read_dir(&dir) else {
			return Ok(Vec::new());
		};
		let mut found: Vec<u64> = entries
			.filter_map(Result::ok)
			.filter_map(|e| games::generation_of(&e.file_name().to_string_lossy()))
			.collect();
		found.sort_unstable();
		Ok(found)
	}

	/// The archive's self-play games of `generation` (all generations if not given), as dicts:
	/// `generation`, `seed`, `start`, `moves` (notation), `outcome` (None for a game cut off),
	/// `result` (tigers' view), `plies`, and `record`, the game's text record.
	#[pyo3(signature = (generation = None))]
	fn games<'py>(&self, py: Python<'py>, generation: Option<u64>) -> PyResult<Bound<'py, PyList>> {
		let generations = match generation {
			Some(g) => vec![g],
			None => self.game_generations()?,
		};
		let out = PyList::empty(py);
		for generation in generations {
			let path = self
				.root
				.join(games::ARCHIVE_DIR)
				.join(games::file_name(generation));
			if !path.is_file() {
				return Err(PyFileNotFoundError::new_err(format!(
					"the archive has no games of generation {generation}: {} is not there (or \
					 was pruned)",
					path.display()
				)));
			}
			let at = path.clone();
			let records = py
				.detach(move || games::read_games(&at))
				.map_err(|e| errors::corrupt(format!("{}: {e}", path.display())))?;
			for record in &records {
				out.append(record_dict(py, record)?)?;
			}
		}
		Ok(out)
	}

	/// Self-play samples as numpy arrays: `codes` (uint64 positions), `inputs` (float32, in
	/// encoding `version`), `score` and `result` (float32, tigers' view), `ply` (uint32) and
	/// `generation` (uint64). `source` is "window" (the checkpoint's replay window, with `uses`,
	/// how often each was trained on), "ledger" (the stored batches the ledger still holds:
	/// those received since the last checkpoint) or "both" (the window, then the ledger's).
	#[pyo3(signature = (source = "both", version = 2))]
	fn samples<'py>(
		&self,
		py: Python<'py>,
		source: &str,
		version: u32,
	) -> PyResult<Bound<'py, PyDict>> {
		let window = || -> PyResult<Vec<(Sample, u32)>> {
			let path = self.root.join("checkpoint").join("window.bin");
			match std::fs::read(&path) {
				Ok(bytes) => stored::decode_window(&bytes).map_err(|e| {
					errors::corrupt(format!(
						"{}: {e} (a window saved by a build older than the current sample \
						 encoding is read by the coordinator only)",
						path.display()
					))
				}),
				Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
				Err(e) => Err(errors::os(format!("{}: {e}", path.display()))),
			}
		};
		match source {
			"window" => {
				let (samples, uses): (Vec<Sample>, Vec<u32>) = window()?.into_iter().unzip();
				sample_arrays(py, &samples, Some(&uses), version)
			}
			"ledger" => sample_arrays(py, &self.ledger_samples()?, None, version),
			"both" => {
				let mut samples: Vec<Sample> = window()?.into_iter().map(|(s, _)| s).collect();
				samples.extend(self.ledger_samples()?);
				sample_arrays(py, &samples, None, version)
			}
			other => Err(errors::value(format!(
				"source is \"window\", \"ledger\" or \"both\", not {other:?}"
			))),
		}
	}

	fn __repr__(&self) -> String {
		format!("Run({:?})", self.root.display().to_string())
	}
}

/// A game record as a dict.
pub fn record_dict<'py>(py: Python<'py>, record: &GameRecord) -> PyResult<Bound<'py, PyDict>> {
	let dict = PyDict::new(py);
	dict.set_item("generation", record.generation)?;
	dict.set_item("seed", record.seed)?;
	dict.set_item(
		"sheep",
		record.sheep_player.as_ref().map(|n| n.as_str().to_string()),
	)?;
	dict.set_item(
		"tigers",
		record
			.tigers_player
			.as_ref()
			.map(|n| n.as_str().to_string()),
	)?;
	dict.set_item("start", record.start.to_string())?;
	dict.set_item(
		"moves",
		record
			.moves
			.iter()
			.map(|m| m.to_string())
			.collect::<Vec<_>>(),
	)?;
	dict.set_item("outcome", record.result.map(|o| o.code()))?;
	dict.set_item("result", record.result.map(|o| o.value()))?;
	dict.set_item("plies", record.moves.len())?;
	dict.set_item("record", record.to_text())?;
	Ok(dict)
}
