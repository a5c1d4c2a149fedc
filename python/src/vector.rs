//! `GameBatch`: many games played side by side, one array call a ply for all of them, with the
//! whole rules (the repetition rule included), for random playouts and vectorised environments.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::{Game, Move, MoveList, Outcome, Position};

use crate::actions::Actions;
use crate::args;
use crate::codes;
use crate::errors;
use crate::game::{self, PyGame, parse_position};

/// The outcomes by their number in `GameBatch.outcomes`.
pub const OUTCOMES: [Outcome; 4] = Outcome::ALL;

/// One game of a batch, with its outcome and legal moves kept from its last move, so that
/// asking for them costs nothing and each ply generates the moves once.
#[derive(Clone)]
struct Slot {
	game: Game,
	outcome: Option<Outcome>,
	legal: MoveList,
}

impl Slot {
	fn new(start: Position) -> Slot {
		let mut slot = Slot {
			game: Game::new(start),
			outcome: None,
			legal: MoveList::new(),
		};
		slot.settle();
		slot
	}

	/// The outcome and legal moves of the current position.
	fn settle(&mut self) {
		self.outcome = self.game.outcome();
		self.legal = if self.outcome.is_some() {
			MoveList::new()
		} else {
			let position = self.game.position();
			position.board.get_moves(position.turn)
		};
	}

	/// The legal moves, none once the game is over or cut off.
	fn moves(&self, cut: bool) -> &[Move] {
		if cut { &[] } else { &self.legal }
	}

	fn play(&mut self, mv: Move) {
		self.game
			.play(mv)
			.expect("a batch plays only moves it has checked");
		self.settle();
	}
}

/// Games played side by side: `n` games from one start, each stepped by one entry of an array
/// a ply. A game that is over (or has reached `max_plies`, if given) takes no more moves; its
/// entry of the next call is ignored until `reset` starts it again.
#[pyclass(module = "tigers_and_sheep", name = "GameBatch")]
pub struct GameBatch {
	slots: Vec<Slot>,
	start: Position,
	max_plies: Option<usize>,
}

impl GameBatch {
	fn cut(&self, slot: &Slot) -> bool {
		self.max_plies
			.is_some_and(|limit| slot.outcome.is_none() && slot.game.history().len() >= limit)
	}

	/// Checks an array's length against the batch's.
	fn check_len(&self, what: &str, len: usize) -> PyResult<()> {
		if len == self.slots.len() {
			Ok(())
		} else {
			Err(errors::value(format!(
				"{len} {what} for a batch of {} games: give one a game",
				self.slots.len()
			)))
		}
	}
}

#[pymethods]
impl GameBatch {
	/// `n` games from the usual start or from `start` (a position's notation), each cut off
	/// after `max_plies` plies if given.
	#[new]
	#[pyo3(signature = (n, start = None, max_plies = None))]
	fn new(n: usize, start: Option<&str>, max_plies: Option<usize>) -> PyResult<GameBatch> {
		let start = match start {
			Some(text) => parse_position(text)?,
			None => Position::default(),
		};
		Ok(GameBatch {
			slots: vec![Slot::new(start); n],
			start,
			max_plies,
		})
	}

	fn __len__(&self) -> usize {
		self.slots.len()
	}

	/// Each game's current position, as codes.
	fn codes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
		let out = self
			.slots
			.iter()
			.map(|s| codes::encode(s.game.position()))
			.collect();
		PyArray1::from_vec(py, out)
	}

	/// How many legal moves each game has (0 once it is over or cut off).
	fn legal_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
		let out = self
			.slots
			.iter()
			.map(|s| s.moves(self.cut(s)).len() as u8)
			.collect();
		PyArray1::from_vec(py, out)
	}

	/// Each game's legal actions as a boolean array of shape (n, ACTIONS).
	fn legal_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
		let actions = Actions::get();
		let width = actions.count();
		let mut out = vec![false; self.slots.len() * width];
		for (row, slot) in out.chunks_exact_mut(width).zip(&self.slots) {
			for &mv in slot.moves(self.cut(slot)).iter() {
				row[actions.index(mv)] = true;
			}
		}
		Ok(PyArray1::from_vec(py, out)
			.reshape([self.slots.len(), width])?
			.into_any())
	}

	/// Plays in each game that goes on its `choices[i]`-th legal move (in `legal_counts`'s
	/// order, the core's); games that are over ignore their entry. A choice out of range raises
	/// `ValueError` naming the game, and no game moves.
	fn play_nth(&mut self, py: Python<'_>, choices: &Bound<'_, PyAny>) -> PyResult<()> {
		let choices = &args::integers(choices, "choices", "indices into each game's legal moves")?;
		self.check_len("choices", choices.len())?;
		let mut moves = Vec::with_capacity(self.slots.len());
		for (index, (slot, &choice)) in self.slots.iter().zip(choices).enumerate() {
			let legal = slot.moves(self.cut(slot));
			if legal.is_empty() {
				moves.push(None);
				continue;
			}
			let mv = usize::try_from(choice)
				.ok()
				.and_then(|c| legal.get(c).copied());
			let Some(mv) = mv else {
				return Err(errors::value(format!(
					"game {index}: choice {choice} of {} legal moves (0 to {})",
					legal.len(),
					legal.len() - 1
				)));
			};
			moves.push(Some(mv));
		}
		let slots = &mut self.slots;
		py.detach(|| {
			for (slot, mv) in slots.iter_mut().zip(moves) {
				if let Some(mv) = mv {
					slot.play(mv);
				}
			}
		});
		Ok(())
	}

	/// Plays in each game that goes on the move of action `actions[i]`; games that are over
	/// ignore their entry. An illegal action raises `IllegalMoveError` naming the game, and no
	/// game moves.
	fn play_actions(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
		let chosen = &args::integers(actions, "actions", "action numbers")?;
		self.check_len("actions", chosen.len())?;
		let mut moves = Vec::with_capacity(self.slots.len());
		for (index, (slot, &action)) in self.slots.iter().zip(chosen).enumerate() {
			if slot.outcome.is_some() || self.cut(slot) {
				moves.push(None);
				continue;
			}
			let position = slot.game.position();
			let mv = game::action_move(action, position.turn)
				.map_err(|e| errors::illegal(format!("game {index}: {e}")))?;
			position
				.board
				.check_move(mv, position.turn)
				.map_err(|e| errors::illegal(format!("game {index}: {mv}: {e}")))?;
			moves.push(Some(mv));
		}
		for (slot, mv) in self.slots.iter_mut().zip(moves) {
			if let Some(mv) = mv {
				slot.play(mv);
			}
		}
		Ok(())
	}

	/// Whether each game is over (by the rules) or cut off at `max_plies`.
	fn done<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
		let out = self
			.slots
			.iter()
			.map(|s| s.outcome.is_some() || self.cut(s))
			.collect();
		PyArray1::from_vec(py, out)
	}

	/// Whether each game was cut off at `max_plies` without a result.
	fn truncated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
		let out = self.slots.iter().map(|s| self.cut(s)).collect();
		PyArray1::from_vec(py, out)
	}

	/// Each game's outcome by its number in `OUTCOMES`, -1 while it goes on or when cut off.
	fn outcomes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
		let out = self
			.slots
			.iter()
			.map(|s| {
				s.outcome
					.and_then(|o| OUTCOMES.iter().position(|&x| x == o))
					.map_or(-1, |i| i as i8)
			})
			.collect();
		PyArray1::from_vec(py, out)
	}

	/// Each game's result from the tigers' side: 1 won, -1 lost, 0 drawn or not over.
	fn results<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
		let out = self
			.slots
			.iter()
			.map(|s| s.outcome.map_or(0.0, Outcome::value))
			.collect();
		PyArray1::from_vec(py, out)
	}

	/// Plies played in each game.
	fn plies<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
		let out = self
			.slots
			.iter()
			.map(|s| s.game.history().len() as u32)
			.collect();
		PyArray1::from_vec(py, out)
	}

	/// Starts games again from the start: those where `which` is true, or all of them.
	#[pyo3(signature = (which = None))]
	fn reset(&mut self, which: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
		match which {
			None => self.slots.fill(Slot::new(self.start)),
			Some(which) => {
				let which = &args::flags(which, "which", "flags, one a game")?;
				self.check_len("flags", which.len())?;
				for (slot, &again) in self.slots.iter_mut().zip(which) {
					if again {
						*slot = Slot::new(self.start);
					}
				}
			}
		}
		Ok(())
	}

	/// A copy of game `index`, as a `Game`.
	fn game(&self, index: usize) -> PyResult<PyGame> {
		let slot = self.slots.get(index).ok_or_else(|| {
			pyo3::exceptions::PyIndexError::new_err(format!(
				"game {index} of a batch of {}",
				self.slots.len()
			))
		})?;
		Ok(PyGame {
			game: slot.game.clone(),
		})
	}
}

/// Plays `games` random games in Rust alone, each move drawn uniformly from the legal ones, cut
/// off after `max_plies` plies if given: the engine's own rate, for comparison with playouts
/// driven from Python. Returns the counts of games, plies and each way a game ended.
#[pyfunction]
#[pyo3(signature = (games, seed = 0, max_plies = None))]
pub fn random_playouts<'py>(
	py: Python<'py>,
	games: usize,
	seed: u64,
	max_plies: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
	let (plies, ends) = py.detach(|| {
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
		let mut plies = 0u64;
		let mut ends = [0u64; 5];
		for _ in 0..games {
			let mut slot = Slot::new(Position::default());
			loop {
				if max_plies.is_some_and(|limit| slot.game.history().len() >= limit) {
					ends[4] += 1;
					break;
				}
				let legal = slot.moves(false);
				if legal.is_empty() {
					let outcome = slot.outcome.expect("a game with no move is over");
					let index = OUTCOMES.iter().position(|&o| o == outcome).unwrap_or(0);
					ends[index] += 1;
					break;
				}
				let mv = legal[rng.random_range(0..legal.len())];
				slot.play(mv);
				plies += 1;
			}
		}
		(plies, ends)
	});
	let out = PyDict::new(py);
	out.set_item("games", games)?;
	out.set_item("plies", plies)?;
	for (outcome, count) in OUTCOMES.iter().zip(ends) {
		out.set_item(outcome.code(), count)?;
	}
	out.set_item("cut-off", ends[4])?;
	Ok(out)
}
