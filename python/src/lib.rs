//! Tigers and Sheep for Python: the native part of the `tigers_and_sheep` package
//! (docs/python.md). The package's Python side (`python/tigers_and_sheep/`) adds the
//! environments for PettingZoo, Gymnasium and OpenSpiel on top of it.
//!
//! Modules:
//!
//! - `errors`: the package's exceptions, each a subclass of the built-in one to catch;
//! - `args`: arrays taken from Python, with a sentence for the wrong kind;
//! - `codes`: positions as 64-bit codes, for arrays of them;
//! - `actions`: the one fixed action space of both sides;
//! - `observe`: board planes;
//! - `game`: `Game`, and the conversions of moves, positions and symmetries from Python;
//! - `batch`: calls on arrays of position codes;
//! - `vector`: `GameBatch`, many games stepped by one call a ply, and Rust's own playouts;
//! - `tables`: `Tables`, the solved values;
//! - `players`: `Net` and `Player` (`ClaudePlayer`, a net's search, the perfect player);
//! - `runs`: `Run`, a run directory's ledger, nets, games and samples.
//!
//! No panic crosses into Python: every refusal is an exception with a sentence, and pyo3 turns
//! a panic (a bug) into `PanicException` rather than aborting the interpreter.

// pyo3 hands every argument over by value (numpy's read-only views hold a borrow of the
// array that ends when they drop), so the lint's advice cannot be taken in the bound functions.
#![allow(clippy::needless_pass_by_value)]

mod actions;
mod args;
mod batch;
mod codes;
mod errors;
mod game;
mod observe;
mod players;
mod runs;
mod tables;
mod vector;

use pyo3::prelude::*;

/// The native part of `tigers_and_sheep`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
	m.add("__version__", env!("CARGO_PKG_VERSION"))?;
	m.add("ACTIONS", actions::Actions::get().count())?;
	m.add("PLANES", observe::PLANES)?;
	m.add("START", tigers_core::position::START_TEXT)?;
	m.add("OUTCOMES", vector::OUTCOMES.map(|o| o.code()).to_vec())?;
	m.add(
		"INPUTS",
		tigers_core::network::Encoding::ALL
			.iter()
			.map(|e| (e.version(), e.inputs()))
			.collect::<std::collections::BTreeMap<u32, usize>>(),
	)?;
	errors::register(m)?;
	m.add_class::<game::PyGame>()?;
	m.add_class::<vector::GameBatch>()?;
	m.add_class::<tables::PyTables>()?;
	m.add_class::<players::PyNet>()?;
	m.add_class::<players::PyPlayer>()?;
	m.add_class::<runs::PyRun>()?;
	for function in [
		wrap_pyfunction!(batch::codes_from_notations, m)?,
		wrap_pyfunction!(batch::notations_from_codes, m)?,
		wrap_pyfunction!(batch::encode, m)?,
		wrap_pyfunction!(batch::planes, m)?,
		wrap_pyfunction!(batch::legal_masks, m)?,
		wrap_pyfunction!(batch::play_actions, m)?,
		wrap_pyfunction!(batch::terminal, m)?,
		wrap_pyfunction!(batch::transform_codes, m)?,
		wrap_pyfunction!(batch::action_permutation, m)?,
		wrap_pyfunction!(batch::transform_move, m)?,
		wrap_pyfunction!(batch::move_to_action, m)?,
		wrap_pyfunction!(batch::action_to_move, m)?,
		wrap_pyfunction!(batch::points, m)?,
		wrap_pyfunction!(vector::random_playouts, m)?,
	] {
		m.add_function(function)?;
	}
	Ok(())
}
