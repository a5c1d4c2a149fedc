//! The package's exceptions, and the one way a Rust error becomes one: its sentence.
//!
//! Every exception subclasses the built-in one a Python programmer would catch: notation, moves,
//! positions and arrays are `ValueError`s, a missing table is a `FileNotFoundError`, a file that
//! is there but cannot be used is a `ValueError`, and a file that cannot be read is an `OSError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;

create_exception!(
	tigers_and_sheep,
	NotationError,
	PyValueError,
	"Text that is not a position, a move or a game record in the project's notation."
);
create_exception!(
	tigers_and_sheep,
	IllegalMoveError,
	PyValueError,
	"A move the rules do not allow in the position, or any move once the game is over."
);
create_exception!(
	tigers_and_sheep,
	PositionError,
	PyValueError,
	"Pieces, sheep in hand or a side to move that no game can reach."
);
create_exception!(
	tigers_and_sheep,
	TableMissingError,
	PyFileNotFoundError,
	"A solved table that is not where it was looked for; the message names the file and the \
	 command that makes it."
);
create_exception!(
	tigers_and_sheep,
	CorruptFileError,
	PyValueError,
	"A table, net, ledger or archive file that is there but cannot be used as one."
);

/// A `NotationError` saying `error`.
pub fn notation(error: impl std::fmt::Display) -> PyErr {
	NotationError::new_err(error.to_string())
}

/// An `IllegalMoveError` saying `error`.
pub fn illegal(error: impl std::fmt::Display) -> PyErr {
	IllegalMoveError::new_err(error.to_string())
}

/// A `PositionError` saying `error`.
pub fn position(error: impl std::fmt::Display) -> PyErr {
	PositionError::new_err(error.to_string())
}

/// A `CorruptFileError` saying `error`.
pub fn corrupt(error: impl std::fmt::Display) -> PyErr {
	CorruptFileError::new_err(error.to_string())
}

/// A `ValueError` saying `error` (a wrong argument: an array's shape, a number out of range).
pub fn value(error: impl std::fmt::Display) -> PyErr {
	PyValueError::new_err(error.to_string())
}

/// An `OSError` saying `error`.
pub fn os(error: impl std::fmt::Display) -> PyErr {
	PyOSError::new_err(error.to_string())
}

/// Adds the exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
	let py = m.py();
	m.add("NotationError", py.get_type::<NotationError>())?;
	m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
	m.add("PositionError", py.get_type::<PositionError>())?;
	m.add("TableMissingError", py.get_type::<TableMissingError>())?;
	m.add("CorruptFileError", py.get_type::<CorruptFileError>())?;
	Ok(())
}
