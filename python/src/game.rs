//! `Game`: a game from a start position with its history, as the core plays it (the repetition
//! rule included), and the conversions every other module shares: a move or position given as
//! text, an action number or a `Game`.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tigers_core::network::{Encoding, encode_as};
use tigers_core::record::PlayerName;
use tigers_core::{GameRecord, Move, Position, Symmetry, Turn};

use crate::actions::Actions;
use crate::codes;
use crate::errors;
use crate::observe;

/// A game of Tigers and Sheep: a start position, the moves played from it, and the result once
/// the rules end it (five sheep taken, a side with no legal move, or a position come up a third
/// time).
#[pyclass(module = "tigers_and_sheep", name = "Game", from_py_object)]
#[derive(Clone, Default)]
pub struct PyGame {
	pub game: tigers_core::Game,
}

/// The side's name in the package: "sheep" or "tigers".
pub fn side_name(turn: Turn) -> &'static str {
	match turn {
		Turn::Sheep => "sheep",
		Turn::Tiger => "tigers",
	}
}

/// A position from its notation.
pub fn parse_position(text: &str) -> PyResult<Position> {
	text.trim().parse().map_err(errors::notation)
}

/// A move from text (the notation) or an int (an action number, read for `turn`).
pub fn move_from(value: &Bound<'_, PyAny>, turn: Turn) -> PyResult<Move> {
	if let Ok(text) = value.extract::<String>() {
		return text.trim().parse().map_err(errors::notation);
	}
	if let Ok(index) = value.extract::<i64>() {
		return action_move(index, turn);
	}
	Err(errors::value(format!(
		"a move is its notation (a str such as \"sc3\") or an action number (an int), not {}",
		value.get_type().name()?
	)))
}

/// The move action `index` stands for when `turn` is to move.
pub fn action_move(index: i64, turn: Turn) -> PyResult<Move> {
	let actions = Actions::get();
	let found = usize::try_from(index)
		.ok()
		.and_then(|index| actions.to_move(index, turn));
	found.ok_or_else(|| {
		errors::illegal(format!(
			"action {index} is no move of the {} (actions are 0 to {}; placements and steps are \
			 the sheep's, steps and jumps the tigers')",
			side_name(turn),
			actions.count() - 1
		))
	})
}

/// A side by its name: "sheep" or "tigers".
pub fn side(name: &str) -> PyResult<Turn> {
	match name {
		"sheep" => Ok(Turn::Sheep),
		"tigers" => Ok(Turn::Tiger),
		other => Err(errors::value(format!(
			"a side is \"sheep\" or \"tigers\", not {other:?}"
		))),
	}
}

/// A symmetry by its number, 0 (the identity) to 7.
pub fn symmetry(index: i64) -> PyResult<Symmetry> {
	usize::try_from(index)
		.ok()
		.and_then(Symmetry::from_index)
		.ok_or_else(|| errors::value(format!("symmetries are numbered 0 to 7, not {index}")))
}

/// An input encoding by its version.
pub fn encoding(version: u32) -> PyResult<Encoding> {
	Encoding::from_version(version).ok_or_else(|| {
		errors::value(format!(
			"input encodings are versions 1 and 2, not {version}"
		))
	})
}

#[pymethods]
impl PyGame {
	/// A game from the usual start, or from `start` (a position's notation).
	#[new]
	#[pyo3(signature = (start = None))]
	fn new(start: Option<&str>) -> PyResult<PyGame> {
		let start = match start {
			Some(text) => parse_position(text)?,
			None => Position::default(),
		};
		Ok(PyGame {
			game: tigers_core::Game::new(start),
		})
	}

	/// A game starting from the position `text` in the project's notation.
	#[staticmethod]
	fn from_notation(text: &str) -> PyResult<PyGame> {
		PyGame::new(Some(text))
	}

	/// A game from a text game record; its moves are replayed and its result checked.
	#[staticmethod]
	fn from_record(text: &str) -> PyResult<PyGame> {
		let record = GameRecord::from_text(text).map_err(errors::notation)?;
		let (game, refused) = record.replay();
		debug_assert!(refused.is_none(), "a record that reads replays");
		Ok(PyGame { game })
	}

	/// The current position in the project's notation.
	fn to_notation(&self) -> String {
		self.game.position().to_string()
	}

	/// The game as a text record, with the players' names if given.
	#[pyo3(signature = (sheep = None, tigers = None))]
	fn to_record(&self, sheep: Option<&str>, tigers: Option<&str>) -> PyResult<String> {
		let name = |name: Option<&str>| {
			name.map(|n| PlayerName::new(n).map_err(errors::value))
				.transpose()
		};
		let record = GameRecord {
			sheep_player: name(sheep)?,
			tigers_player: name(tigers)?,
			..GameRecord::from_game(&self.game)
		};
		Ok(record.to_text())
	}

	/// The start position's notation.
	#[getter]
	fn start(&self) -> String {
		self.game.start().to_string()
	}

	/// The side to move: "sheep" or "tigers".
	#[getter]
	fn turn(&self) -> &'static str {
		side_name(self.game.turn())
	}

	/// Plies played from the start.
	#[getter]
	fn ply(&self) -> usize {
		self.game.history().len()
	}

	/// The moves played, in notation.
	#[getter]
	fn moves(&self) -> Vec<String> {
		self.game.moves().iter().map(Move::to_string).collect()
	}

	/// Sheep not yet placed.
	#[getter]
	fn sheep_in_hand(&self) -> u8 {
		self.game.board().sheep_in_hand()
	}

	/// Sheep the tigers have taken.
	#[getter]
	fn dead_sheep(&self) -> u32 {
		self.game.board().dead_sheep()
	}

	/// How many times the current position came up before (a third time ends the game drawn).
	#[getter]
	fn repetitions(&self) -> usize {
		self.game.repetitions()
	}

	/// The current position's code (see `codes_from_notations`).
	#[getter]
	fn code(&self) -> u64 {
		codes::encode(self.game.position())
	}

	/// The legal moves in notation, in the core's order; none once the game is over.
	fn legal_moves(&self) -> Vec<String> {
		self.legal().iter().map(Move::to_string).collect()
	}

	/// The legal moves' action numbers, in the same order as `legal_moves`.
	fn legal_actions(&self) -> Vec<usize> {
		let actions = Actions::get();
		self.legal().iter().map(|&mv| actions.index(mv)).collect()
	}

	/// A boolean array over the action space, true where the action is legal.
	fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
		let actions = Actions::get();
		let mut mask = vec![false; actions.count()];
		for &mv in self.legal().iter() {
			mask[actions.index(mv)] = true;
		}
		PyArray1::from_vec(py, mask)
	}

	/// Plays `move` (its notation, or an action number); refuses an illegal move with an
	/// `IllegalMoveError` saying why, leaving the game as it was.
	#[pyo3(name = "play")]
	fn play_move(&mut self, r#move: &Bound<'_, PyAny>) -> PyResult<String> {
		let mv = move_from(r#move, self.game.turn())?;
		self.game.play(mv).map_err(errors::illegal)?;
		Ok(mv.to_string())
	}

	/// Takes back the last `count` moves (1 by default).
	#[pyo3(signature = (count = 1))]
	fn undo(&mut self, count: usize) -> PyResult<()> {
		let played = self.game.history().len();
		if count > played {
			return Err(errors::value(format!(
				"cannot take back {count} moves of a game with {played}"
			)));
		}
		self.game.revert(played - count);
		Ok(())
	}

	/// Whether the game is over.
	fn is_over(&self) -> bool {
		self.game.is_over()
	}

	/// How the game ended ("tigers-by-captures", "tigers-by-sheep-blocked",
	/// "sheep-by-trapping", "draw-by-repetition"), or None while it goes on.
	#[getter]
	fn outcome(&self) -> Option<&'static str> {
		self.game.outcome().map(|o| o.code())
	}

	/// The winner ("sheep" or "tigers"), or None for a draw or a game not over.
	#[getter]
	fn winner(&self) -> Option<&'static str> {
		self.game.outcome().and_then(|o| o.winner()).map(side_name)
	}

	/// The result from the tigers' side (1.0 won, 0.0 drawn, -1.0 lost), or None while the game
	/// goes on.
	fn result(&self) -> Option<f32> {
		self.game.outcome().map(|o| o.value())
	}

	/// The net's inputs for the current position, float32, in encoding `version` (1: 54
	/// inputs, 2: 79).
	#[pyo3(signature = (version = 2))]
	fn encode<'py>(&self, py: Python<'py>, version: u32) -> PyResult<Bound<'py, PyArray1<f32>>> {
		let encoding = encoding(version)?;
		let position = self.game.position();
		let inputs = encode_as(encoding, position.board, position.turn);
		Ok(PyArray1::from_slice(py, &inputs[..encoding.inputs()]))
	}

	/// The board planes of the current position, float32, shape (PLANES, 5, 5).
	fn planes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
		let mut out = vec![0.0; observe::PLANE_VALUES];
		observe::planes_into(self.game.position(), &mut out);
		Ok(PyArray1::from_vec(py, out)
			.reshape([observe::PLANES, 5, 5])?
			.into_any())
	}

	/// A new game from the current position turned by symmetry `k` (0 to 7), without history.
	fn transformed(&self, k: i64) -> PyResult<PyGame> {
		let symmetry = symmetry(k)?;
		let position = self.game.position();
		let board = symmetry.apply_board(position.board);
		let position = Position::new(board, position.turn).map_err(errors::position)?;
		Ok(PyGame {
			game: tigers_core::Game::new(position),
		})
	}

	/// A copy with its own history.
	fn copy(&self) -> PyGame {
		self.clone()
	}

	fn __copy__(&self) -> PyGame {
		self.clone()
	}

	fn __deepcopy__(&self, _memo: &Bound<'_, PyDict>) -> PyGame {
		self.clone()
	}

	/// Pickles as its record, which replays to the same game.
	fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
		let from_record = py.get_type::<PyGame>().getattr("from_record")?;
		Ok((from_record, (self.to_record(None, None)?,)))
	}

	fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
		other
			.extract::<PyRef<'_, PyGame>>()
			.is_ok_and(|other| other.game == self.game)
	}

	fn __repr__(&self) -> String {
		format!(
			"Game({:?}, ply {})",
			self.game.position().to_string(),
			self.game.history().len()
		)
	}

	fn __str__(&self) -> String {
		self.game.board().to_string()
	}
}

impl PyGame {
	/// The legal moves, none once the game is over.
	fn legal(&self) -> tigers_core::MoveList {
		self.game.legal_moves()
	}
}
