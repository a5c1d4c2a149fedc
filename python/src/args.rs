//! Arrays taken from Python: a one-dimensional numpy array of the right type (or a list of
//! numbers), else a `TypeError` that says what was given and what is wanted, never a bare
//! conversion failure.

use numpy::{PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// Defines a function taking a one-dimensional array of one element type.
macro_rules! taker {
	($name:ident, $element:ty, $dtype:literal) => {
		/// The values of `value`, a one-dimensional numpy array of this type or a list of
		/// numbers; `name` and `what` say in an error which argument it was and what it holds.
		pub fn $name(value: &Bound<'_, PyAny>, name: &str, what: &str) -> PyResult<Vec<$element>> {
			if let Ok(array) = value.extract::<PyReadonlyArray1<'_, $element>>() {
				return Ok(array.as_array().iter().copied().collect());
			}
			if let Ok(untyped) = value.cast::<PyUntypedArray>() {
				return Err(PyTypeError::new_err(format!(
					"{name} is a one-dimensional numpy array of {what} ({}), not an array of {} \
					 with shape {:?}",
					$dtype,
					untyped.dtype(),
					untyped.shape()
				)));
			}
			if let Ok(list) = value.extract::<Vec<$element>>() {
				return Ok(list);
			}
			Err(PyTypeError::new_err(format!(
				"{name} is a one-dimensional numpy array of {what} ({}), not a {}",
				$dtype,
				value.get_type().name()?
			)))
		}
	};
}

taker!(codes, u64, "uint64");
taker!(integers, i64, "int64");
taker!(flags, bool, "bool");
