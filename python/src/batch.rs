//! Calls on many positions at once: numpy arrays of position codes in, numpy arrays out, with no
//! Python object per position. The work runs without the interpreter's lock.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use tigers_core::network::encode_as;
use tigers_core::pos::POINTS;
use tigers_core::{Game, Position};

use crate::actions::Actions;
use crate::args;
use crate::codes;
use crate::errors;
use crate::game::{self, parse_position};
use crate::observe;

/// The codes of positions given in notation, as a uint64 array.
#[pyfunction]
pub fn codes_from_notations<'py>(
	py: Python<'py>,
	notations: Vec<String>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
	let codes = notations
		.iter()
		.enumerate()
		.map(|(index, text)| {
			parse_position(text)
				.map(codes::encode)
				.map_err(|e| errors::notation(format!("position {index}: {e}")))
		})
		.collect::<PyResult<Vec<u64>>>()?;
	Ok(PyArray1::from_vec(py, codes))
}

/// The notation of each position code.
#[pyfunction]
pub fn notations_from_codes(codes: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
	Ok(
		codes::decode_all(&args::codes(codes, "codes", "position codes")?)?
			.iter()
			.map(Position::to_string)
			.collect(),
	)
}

/// The net's inputs for each position, float32 of shape (n, 54) in encoding 1 or (n, 79) in
/// encoding 2.
#[pyfunction]
#[pyo3(signature = (codes, version = 2))]
pub fn encode<'py>(
	py: Python<'py>,
	codes: &Bound<'_, PyAny>,
	version: u32,
) -> PyResult<Bound<'py, PyAny>> {
	let encoding = game::encoding(version)?;
	let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
	let width = encoding.inputs();
	let out = py.detach(|| {
		let mut out = vec![0.0f32; positions.len() * width];
		for (row, position) in out.chunks_exact_mut(width).zip(&positions) {
			let inputs = encode_as(encoding, position.board, position.turn);
			row.copy_from_slice(&inputs[..width]);
		}
		out
	});
	Ok(PyArray1::from_vec(py, out)
		.reshape([positions.len(), width])?
		.into_any())
}

/// Each position's board planes, float32 of shape (n, PLANES, 5, 5).
#[pyfunction]
pub fn planes<'py>(py: Python<'py>, codes: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyAny>> {
	let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
	let out = py.detach(|| {
		let mut out = vec![0.0f32; positions.len() * observe::PLANE_VALUES];
		for (row, &position) in out.chunks_exact_mut(observe::PLANE_VALUES).zip(&positions) {
			observe::planes_into(position, row);
		}
		out
	});
	Ok(PyArray1::from_vec(py, out)
		.reshape([positions.len(), observe::PLANES, 5, 5])?
		.into_any())
}

/// Each position's legal actions as a boolean array of shape (n, ACTIONS); a position where the
/// game is over by the board (five sheep taken, or the side to move has no move) has none.
#[pyfunction]
pub fn legal_masks<'py>(py: Python<'py>, codes: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyAny>> {
	let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
	let actions = Actions::get();
	let width = actions.count();
	let out = py.detach(|| {
		let mut out = vec![false; positions.len() * width];
		for (row, position) in out.chunks_exact_mut(width).zip(&positions) {
			for &mv in Game::new(*position).legal_moves().iter() {
				row[actions.index(mv)] = true;
			}
		}
		out
	});
	Ok(PyArray1::from_vec(py, out)
		.reshape([positions.len(), width])?
		.into_any())
}

/// The position after each action, as codes: `codes[i]` with `actions[i]` played. An illegal
/// action raises `IllegalMoveError` naming its index, and nothing is returned.
#[pyfunction]
pub fn play_actions<'py>(
	py: Python<'py>,
	codes: &Bound<'_, PyAny>,
	actions: &Bound<'_, PyAny>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
	let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
	let chosen = &args::integers(actions, "actions", "action numbers")?;
	if chosen.len() != positions.len() {
		return Err(errors::value(format!(
			"{} codes but {} actions: give one action a position",
			positions.len(),
			chosen.len()
		)));
	}
	let table = Actions::get();
	let mut out = Vec::with_capacity(positions.len());
	for (index, (position, &action)) in positions.iter().zip(chosen).enumerate() {
		let mv = usize::try_from(action)
			.ok()
			.and_then(|a| table.to_move(a, position.turn))
			.ok_or_else(|| {
				errors::illegal(format!(
					"position {index}: action {action} is no move of the {}",
					game::side_name(position.turn)
				))
			})?;
		let mut game = Game::new(*position);
		game.play(mv)
			.map_err(|e| errors::illegal(format!("position {index}: {mv}: {e}")))?;
		out.push(codes::encode(game.position()));
	}
	Ok(PyArray1::from_vec(py, out))
}

/// How each position stands by the board alone: 1 the tigers have won (five sheep taken or the
/// sheep cannot move), -1 the sheep have won (the tigers cannot move), 0 the game goes on.
/// (A draw by repetition needs the game's history: see `GameBatch`.)
#[pyfunction]
pub fn terminal<'py>(
	py: Python<'py>,
	codes: &Bound<'_, PyAny>,
) -> PyResult<Bound<'py, PyArray1<i8>>> {
	let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
	let out = positions
		.iter()
		.map(|p| p.board.outcome(p.turn).map_or(0, |o| o.value() as i8))
		.collect();
	Ok(PyArray1::from_vec(py, out))
}

/// Each position turned by symmetry `k` (0 to 7), as codes.
#[pyfunction]
pub fn transform_codes<'py>(
	py: Python<'py>,
	codes: &Bound<'_, PyAny>,
	k: i64,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
	let symmetry = game::symmetry(k)?;
	let positions = codes::decode_all(&args::codes(codes, "codes", "position codes")?)?;
	let out = positions
		.iter()
		.map(|p| {
			codes::encode(Position {
				board: symmetry.apply_board(p.board),
				turn: p.turn,
			})
		})
		.collect();
	Ok(PyArray1::from_vec(py, out))
}

/// Where symmetry `k` sends each action: `perm[a]` is the number of action `a` turned, so a
/// policy `p` over a position is `q` over the turned one with `q[perm] = p`.
#[pyfunction]
pub fn action_permutation<'py>(py: Python<'py>, k: i64) -> PyResult<Bound<'py, PyArray1<i64>>> {
	use crate::actions::Action;
	let symmetry = game::symmetry(k)?;
	let table = Actions::get();
	let turn = |p| symmetry.apply_pos(p);
	let out = (0..table.count())
		.map(|index| {
			let turned = match table.action(index).expect("index is below the count") {
				Action::Place(to) => Action::Place(turn(to)),
				Action::Step(from, to) => Action::Step(turn(from), turn(to)),
				Action::Jump(from, to) => Action::Jump(turn(from), turn(to)),
			};
			table.number(turned) as i64
		})
		.collect();
	Ok(PyArray1::from_vec(py, out))
}

/// A move in notation turned by symmetry `k`.
#[pyfunction]
pub fn transform_move(text: &str, k: i64) -> PyResult<String> {
	let symmetry = game::symmetry(k)?;
	let mv: tigers_core::Move = text.trim().parse().map_err(errors::notation)?;
	Ok(symmetry.apply_move(mv).to_string())
}

/// The action number of a move in notation.
#[pyfunction]
pub fn move_to_action(text: &str) -> PyResult<usize> {
	let mv: tigers_core::Move = text.trim().parse().map_err(errors::notation)?;
	Ok(Actions::get().index(mv))
}

/// The move action `action` is for `side` ("sheep" or "tigers"), in notation.
#[pyfunction]
pub fn action_to_move(action: i64, side: &str) -> PyResult<String> {
	let turn = game::side(side)?;
	Ok(game::action_move(action, turn)?.to_string())
}

/// The point names in index order (a1, b1, ..., e5).
#[pyfunction]
pub fn points() -> Vec<String> {
	(0..POINTS)
		.map(|i| {
			tigers_core::Pos::from_index(i)
				.expect("below 25")
				.to_string()
		})
		.collect()
}
