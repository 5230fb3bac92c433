//! Reading Python arguments: whole numbers, colours, coordinates and positions.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PySequence, PyString, PyTuple};

use super::errors::to_py_err;
use crate::engine::{coord, Board, Color, GoError, Point};

/// Fails with `TypeError` unless `value` is an `int` (a `bool` is not taken for one).
pub fn require_int(value: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, not {}",
            type_name(value)
        )));
    }
    Ok(())
}

/// An `int` argument (not a `bool`, not a float), as `i64`.
pub fn whole_number(value: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
    require_int(value, name)?;
    value
        .extract::<i64>()
        .map_err(|_| PyValueError::new_err(format!("{name} is out of range: {value}")))
}

/// A colour: `"black"`/`"white"`, `"b"`/`"w"` or `"x"`/`"o"`, in any case.
pub fn color(value: &Bound<'_, PyAny>) -> PyResult<Color> {
    let text = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "a colour must be a str such as 'black' or 'white', not {}",
            type_name(value)
        ))
    })?;
    text.to_str()?.parse().map_err(to_py_err)
}

/// The given colour, or the side to move when it is `None`.
pub fn color_or(value: Option<&Bound<'_, PyAny>>, default: Color) -> PyResult<Color> {
    value.map_or(Ok(default), color)
}

/// A coordinate: the kata form `"7A"`, the GTP form `"A7"`, or a 0-based `(row, col)` tuple.
pub fn point(board: &Board, value: &Bound<'_, PyAny>) -> PyResult<Point> {
    point_or_error(board, value)?.map_err(to_py_err)
}

/// Like [`point`], but a well-formed coordinate off the board is an engine error to inspect
/// (`Ok(Err(GoError::OffBoard))`) rather than a raised exception.
pub fn point_or_error(board: &Board, value: &Bound<'_, PyAny>) -> PyResult<Result<Point, GoError>> {
    let (height, width) = (board.height(), board.width());
    let row_col = if let Ok(text) = value.cast::<PyString>() {
        coord::parse(text.to_str()?, height, width)
    } else if let Ok(pair) = value.cast::<PyTuple>() {
        if pair.len() != 2 {
            return Err(PyValueError::new_err(format!(
                "a coordinate tuple is (row, col), not {value}"
            )));
        }
        let row = whole_number(&pair.get_item(0)?, "row")?;
        let col = whole_number(&pair.get_item(1)?, "col")?;
        coord::check_indices(row, col, height, width)
    } else {
        return Err(PyTypeError::new_err(format!(
            "a coordinate must be a str like '7A' or 'A7', or a (row, col) tuple, not {}",
            type_name(value)
        )));
    };
    match row_col {
        Ok((row, col)) => Ok(Ok(board.point(row, col))),
        Err(off_board @ GoError::OffBoard { .. }) => Ok(Err(off_board)),
        Err(malformed) => Err(to_py_err(malformed)),
    }
}

/// A position: a sequence of rows, each a str or a sequence of one-character strs, top row
/// first; or one str of lines. Sets, dicts and iterators are refused: their order is not the
/// board's.
pub fn position_rows(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Vec<char>>> {
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_str()?;
        return Ok(text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(|line| line.chars().collect())
            .collect());
    }
    let rows = value.cast::<PySequence>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a sequence of rows (strs or lists of one-character strs), not {}",
            type_name(value)
        ))
    })?;
    let mut parsed = Vec::new();
    for (r, row) in rows.try_iter()?.enumerate() {
        let row = row?;
        if let Ok(text) = row.cast::<PyString>() {
            parsed.push(text.to_str()?.chars().collect());
            continue;
        }
        let cells = row.cast::<PySequence>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{name}: row {} must be a str or a sequence of one-character strs, not {}",
                r + 1,
                type_name(&row)
            ))
        })?;
        let mut parsed_row = Vec::new();
        for (c, cell) in cells.try_iter()?.enumerate() {
            parsed_row.push(one_character(&cell?, name, r, c)?);
        }
        parsed.push(parsed_row);
    }
    Ok(parsed)
}

/// A cell of a position: a str of exactly one character.
fn one_character(cell: &Bound<'_, PyAny>, name: &str, r: usize, c: usize) -> PyResult<char> {
    let place = format!("{name}: row {} column {}", r + 1, c + 1);
    let text = cell.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{place} must be a one-character str, not {}",
            type_name(cell)
        ))
    })?;
    let mut chars = text.to_str()?.chars();
    match (chars.next(), chars.next()) {
        (Some(ch), None) => Ok(ch),
        _ => Err(PyValueError::new_err(format!(
            "{place} must be one character, not {}",
            cell.repr().map_or_else(|_| "?".to_string(), |s| s.to_string())
        ))),
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}
