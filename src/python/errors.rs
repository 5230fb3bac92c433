//! Engine errors as Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

use crate::engine::GoError;

create_exception!(
    gokata,
    IllegalMoveError,
    PyValueError,
    "A move that breaks the rules: occupied point, suicide or ko. A subclass of ValueError."
);

/// Illegal moves raise `IllegalMoveError`; every other engine error is a `ValueError`.
pub fn to_py_err(error: GoError) -> PyErr {
    match error {
        GoError::IllegalMove { .. } => IllegalMoveError::new_err(error.to_string()),
        _ => PyValueError::new_err(error.to_string()),
    }
}
