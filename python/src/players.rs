//! `Net`, a net from its file, and `Player`: `ClaudePlayer`, a net's search, or the perfect
//! player, asked for a move at a depth or a time.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use numpy::PyArray1;
use pyo3::prelude::*;
use tigers_core::neural::SELF_PLAY_TABLE_BITS;
use tigers_core::search::{MAX_DEPTH, MinimaxPlayer, score_to_value};
use tigers_core::{ClaudePlayer, Network, NeuralPlayer, SearchReport, SearchSettings};

use crate::args;
use crate::codes;
use crate::errors::{self, TableMissingError};
use crate::game::PyGame;
use crate::tables::{PyTables, position_of};

/// A value net read from its safetensors file (as a run's `nets/gen-*.safetensors`).
#[pyclass(module = "tigers_and_sheep", name = "Net")]
pub struct PyNet {
	net: Arc<Network>,
	path: PathBuf,
}

#[pymethods]
impl PyNet {
	/// Reads the net at `path`; a file that is not a net of this program raises
	/// `CorruptFileError` saying why.
	#[new]
	pub fn new(py: Python<'_>, path: PathBuf) -> PyResult<PyNet> {
		let at = path.clone();
		let net = py.detach(move || Network::load(&at));
		let net = net.map_err(|e| match e {
			tigers_core::network::file::NetFileError::Io { .. } => errors::os(&e),
			other => errors::corrupt(other),
		})?;
		Ok(PyNet {
			net: Arc::new(net),
			path,
		})
	}

	/// The generation the file records (0 for a net of unknown origin).
	#[getter]
	fn generation(&self) -> u64 {
		self.net.generation
	}

	/// The widths of the two hidden layers.
	#[getter]
	fn shape(&self) -> (usize, usize) {
		let shape = self.net.shape();
		(shape.hidden1, shape.hidden2)
	}

	/// The input encoding's version (see `encode`).
	#[getter]
	fn input_version(&self) -> u32 {
		self.net.encoding().version()
	}

	/// The sha256 of the net's file bytes, as a run names its nets.
	#[getter]
	fn sha256(&self) -> String {
		self.net.sha256()
	}

	/// The file it was read from.
	#[getter]
	fn path(&self) -> PathBuf {
		self.path.clone()
	}

	/// The net's own value of `position` (a `Game` or notation) for the side to move, -1
	/// (lost) to 1 (won), without search.
	fn evaluate(&self, position: &Bound<'_, PyAny>) -> PyResult<f32> {
		let position = position_of(position)?;
		Ok(self.net.forward(position.board, position.turn) * position.turn.sign())
	}

	/// The net's own values of many positions (codes), each for its side to move, float32.
	fn evaluate_codes<'py>(
		&self,
		py: Python<'py>,
		codes: &Bound<'_, PyAny>,
	) -> PyResult<Bound<'py, PyArray1<f32>>> {
		let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
		let net = &self.net;
		let out = py.detach(|| {
			positions
				.iter()
				.map(|p| net.forward(p.board, p.turn) * p.turn.sign())
				.collect()
		});
		Ok(PyArray1::from_vec(py, out))
	}

	fn __repr__(&self) -> String {
		let (h1, h2) = self.shape();
		format!(
			"Net({:?}, generation {}, {h1}x{h2}, encoding {})",
			self.path.display().to_string(),
			self.net.generation,
			self.input_version()
		)
	}
}

/// Whose search a player runs.
enum Searcher {
	Claude(Box<ClaudePlayer>),
	Net(Box<NeuralPlayer>),
}

/// A computer player: a search that picks a move for the side to move.
#[pyclass(module = "tigers_and_sheep", name = "Player")]
pub struct PyPlayer {
	searcher: Searcher,
	name: String,
	settings: SearchSettings,
}

/// Search settings from a depth or a time in milliseconds (100 ms if neither is given).
fn settings(depth: Option<u32>, ms: Option<u64>) -> PyResult<SearchSettings> {
	match (depth, ms) {
		(Some(_), Some(_)) => Err(errors::value("give a depth or a time (ms), not both")),
		(Some(depth), None) if (1..=MAX_DEPTH).contains(&depth) => {
			Ok(SearchSettings::fixed_depth(depth))
		}
		(Some(depth), None) => Err(errors::value(format!(
			"a depth is 1 to {MAX_DEPTH} plies, not {depth}"
		))),
		(None, Some(ms)) if (1..=3_600_000).contains(&ms) => Ok(SearchSettings {
			max_depth: MAX_DEPTH,
			time_limit: Some(Duration::from_millis(ms)),
		}),
		(None, Some(ms)) => Err(errors::value(format!(
			"a time is 1 to 3600000 ms, not {ms}"
		))),
		(None, None) => settings(None, Some(100)),
	}
}

impl PyPlayer {
	fn search(
		&mut self,
		py: Python<'_>,
		game: &PyGame,
		settings: SearchSettings,
	) -> PyResult<Option<SearchReport>> {
		let position = game.game.position();
		let previous = game.game.previous();
		if game.game.is_over() {
			return Err(errors::illegal(format!(
				"the game is over ({}): there is no move to choose",
				game.game.outcome().expect("a game over has an outcome")
			)));
		}
		let searcher = &mut self.searcher;
		Ok(py.detach(|| match searcher {
			Searcher::Claude(player) => {
				(player.time_limit, player.max_depth) = (settings.time_limit, settings.max_depth);
				player.pick_move(position.board, position.turn, &previous)
			}
			Searcher::Net(player) => {
				(player.time_limit, player.max_depth) = (settings.time_limit, settings.max_depth);
				player.pick_move(position.board, position.turn, &previous)
			}
		}))
	}
}

#[pymethods]
impl PyPlayer {
	/// `ClaudePlayer`, the hand-written evaluation, searching to `depth` plies or for `ms`
	/// milliseconds a move (100 ms if neither is given).
	#[staticmethod]
	#[pyo3(signature = (depth = None, ms = None))]
	fn claude(depth: Option<u32>, ms: Option<u64>) -> PyResult<PyPlayer> {
		let settings = settings(depth, ms)?;
		Ok(PyPlayer {
			searcher: Searcher::Claude(Box::new(ClaudePlayer::with_settings(settings))),
			name: "claude".to_string(),
			settings,
		})
	}

	/// A net's own search with the net as its evaluation and no table, to `depth` plies or
	/// for `ms` milliseconds a move (100 ms if neither is given). `net` is a `Net` or a path.
	#[staticmethod]
	#[pyo3(signature = (net, depth = None, ms = None))]
	fn net(
		py: Python<'_>,
		net: &Bound<'_, PyAny>,
		depth: Option<u32>,
		ms: Option<u64>,
	) -> PyResult<PyPlayer> {
		let settings = settings(depth, ms)?;
		let net = match net.extract::<PyRef<'_, PyNet>>() {
			Ok(net) => net.net.clone(),
			Err(_) => PyNet::new(py, net.extract::<PathBuf>()?)?.net,
		};
		let name = format!("net {}", net.generation);
		Ok(PyPlayer {
			searcher: Searcher::Net(Box::new(NeuralPlayer::with_net(
				net,
				settings,
				SELF_PLAY_TABLE_BITS,
			))),
			name,
			settings,
		})
	}

	/// The perfect player: never gives a value away, from the movement table and every
	/// placement layer (`tables.complete` must be true). It searches one ply by default.
	#[staticmethod]
	#[pyo3(signature = (tables, depth = 1))]
	fn perfect(tables: &PyTables, depth: u32) -> PyResult<PyPlayer> {
		if !tables.tables.can_play_perfectly() {
			return Err(TableMissingError::new_err(
				"the perfect player needs the movement table and all 39 placement layers \
				 (`tui tablebase build`, then `tui tablebase build --placement`)",
			));
		}
		let settings = settings(Some(depth), None)?;
		let mut player = ClaudePlayer::with_settings(settings);
		player.set_tablebase(tables.tables.movement.clone());
		player.set_placement(tables.tables.placement.clone());
		Ok(PyPlayer {
			searcher: Searcher::Claude(Box::new(player)),
			name: "perfect".to_string(),
			settings,
		})
	}

	/// "claude", "perfect", or "net N" for a net of generation N.
	#[getter]
	fn name(&self) -> String {
		self.name.clone()
	}

	/// The player's move in `game` (a `Game`), in notation, searching as the player was made
	/// to unless `depth` or `ms` is given here. A game that is over raises `IllegalMoveError`.
	#[pyo3(signature = (game, depth = None, ms = None))]
	fn choose(
		&mut self,
		py: Python<'_>,
		game: PyRef<'_, PyGame>,
		depth: Option<u32>,
		ms: Option<u64>,
	) -> PyResult<String> {
		let settings = match (depth, ms) {
			(None, None) => self.settings,
			_ => settings(depth, ms)?,
		};
		let report = self.search(py, &game, settings)?;
		Ok(report
			.expect("a game that goes on has a move")
			.mv
			.to_string())
	}

	/// The player's move with what its search found: a dict of `move`, `depth` (the deepest
	/// finished iteration), `score` (-1 to 1 for the side to move; ±1 a forced result),
	/// `nodes`, and `forced` ("tigers" or "sheep" and the plies, where the search proved it).
	#[pyo3(signature = (game, depth = None, ms = None))]
	fn search_report<'py>(
		&mut self,
		py: Python<'py>,
		game: PyRef<'_, PyGame>,
		depth: Option<u32>,
		ms: Option<u64>,
	) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
		let settings = match (depth, ms) {
			(None, None) => self.settings,
			_ => settings(depth, ms)?,
		};
		let turn = game.game.turn();
		let report = self
			.search(py, &game, settings)?
			.expect("a game that goes on has a move");
		let out = pyo3::types::PyDict::new(py);
		out.set_item("move", report.mv.to_string())?;
		out.set_item("depth", report.depth)?;
		out.set_item("score", score_to_value(report.score) * turn.sign())?;
		out.set_item("nodes", report.nodes)?;
		let forced = report
			.forced_result()
			.map(|(winner, plies)| (crate::game::side_name(winner), plies));
		out.set_item("forced", forced)?;
		Ok(out)
	}

	fn __repr__(&self) -> String {
		format!("Player({})", self.name)
	}
}
