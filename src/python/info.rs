//! The game information a `Go` keeps for SGF (players, ranks, komi, result...): new values
//! read from Python and checked.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::arguments::{finite_number, type_name};

/// A text attribute's new value: a str, or `None` to remove the property.
pub fn text(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<String>> {
    if value.is_none() {
        return Ok(None);
    }
    let text = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("{name} must be a str or None, not {}", type_name(value)))
    })?;
    Ok(Some(text.to_str()?.to_owned()))
}

/// Komi's new value: a finite number, or `None` to remove it.
pub fn komi(value: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    if value.is_none() {
        return Ok(None);
    }
    finite_number(value, "komi").map(Some)
}
