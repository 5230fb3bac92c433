//! Reading Python arguments: whole numbers and coordinates.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString, PyTuple};

use super::errors::to_py_err;
use crate::engine::{coord, Board, Point};

/// An `int` argument (not a `bool`, not a float), as `i64`.
pub fn whole_number(value: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, not {}",
            value.get_type().name()?
        )));
    }
    value
        .extract::<i64>()
        .map_err(|_| PyValueError::new_err(format!("{name} is out of range: {value}")))
}

/// A coordinate: the kata form `"7A"`, the GTP form `"A7"`, or a 0-based `(row, col)` tuple.
pub fn point(board: &Board, value: &Bound<'_, PyAny>) -> PyResult<Point> {
    let (height, width) = (board.height(), board.width());
    let (row, col) = if let Ok(text) = value.cast::<PyString>() {
        coord::parse(text.to_str()?, height, width).map_err(to_py_err)?
    } else if let Ok(pair) = value.cast::<PyTuple>() {
        if pair.len() != 2 {
            return Err(PyValueError::new_err(format!(
                "a coordinate tuple must be (row, col), not {value}"
            )));
        }
        let row = whole_number(&pair.get_item(0)?, "row")?;
        let col = whole_number(&pair.get_item(1)?, "col")?;
        coord::check_indices(row, col, height, width).map_err(to_py_err)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "a coordinate must be a str like '7A' or 'A7', or a (row, col) tuple, not {}",
            value.get_type().name()?
        )));
    };
    Ok(board.point(row, col))
}
