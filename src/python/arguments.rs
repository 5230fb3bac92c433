//! Reading Python arguments: whole numbers, numbers, colours, coordinates and positions.
//!
//! Nothing here touches a game: coordinates are read against a board size alone, so that a
//! `Go` reads every argument (which may run Python code, such as an `__index__`) before it
//! takes its game's lock.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyInt, PySequence, PyString, PyTuple};

use super::errors::to_py_err;
use gokata_engine::{coord, Color, GoError};

/// A board's `(height, width)`.
pub type Size = (usize, usize);

/// An integer argument as a Python `int`: an `int`, or anything with `__index__` (numpy
/// integers), as Python itself takes integers for indices. A `bool` is not taken for one,
/// nor a float; `TypeError` naming the argument otherwise.
pub fn integer<'py>(value: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyInt>> {
    let not_an_int = || PyTypeError::new_err(format!("{name} must be an int, not {}", type_name(value)));
    if value.is_instance_of::<PyBool>() {
        return Err(not_an_int());
    }
    if let Ok(int) = value.cast::<PyInt>() {
        return Ok(int.clone());
    }
    static INDEX: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = value.py();
    let index = INDEX.get_or_try_init(py, || {
        py.import(intern!(py, "operator"))?
            .getattr(intern!(py, "index"))
            .map(Bound::unbind)
    })?;
    match index.bind(py).call1((value,)) {
        // numpy's bools refuse `__index__` themselves, as floats do.
        Ok(int) => Ok(int.cast_into::<PyInt>()?),
        Err(error) if error.is_instance_of::<PyTypeError>(py) => Err(not_an_int()),
        Err(error) => Err(error),
    }
}

/// An integer argument (see [`integer`]) as `i64`; `ValueError` if it does not fit.
pub fn whole_number(value: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
    integer(value, name)?
        .extract::<i64>()
        .map_err(|_| PyValueError::new_err(format!("{name} is out of range: {}", short(value))))
}

/// A real-number argument such as komi: an `int`, a `float`, or anything with `__float__` or
/// `__index__` (numpy numbers), but not a `bool` (Python's or numpy's); finite.
pub fn finite_number(value: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    let not_a_number = || PyTypeError::new_err(format!("{name} must be a number, not {}", type_name(value)));
    if value.is_instance_of::<PyBool>() || is_numpy_bool(value) {
        return Err(not_a_number());
    }
    let py = value.py();
    let number = match value.extract::<f64>() {
        Ok(number) => number,
        Err(error) if error.is_instance_of::<PyOverflowError>(py) => f64::INFINITY,
        Err(error) if error.is_instance_of::<PyTypeError>(py) => return Err(not_a_number()),
        Err(error) => return Err(error),
    };
    if number.is_finite() {
        Ok(number)
    } else {
        Err(PyValueError::new_err(format!(
            "{name} must be a finite number, not {}",
            short(value)
        )))
    }
}

/// Komi as a method argument: a finite number, not a bool (see [`finite_number`]).
#[derive(Clone, Copy)]
pub struct Komi(pub f64);

impl<'a, 'py> FromPyObject<'a, 'py> for Komi {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Komi> {
        finite_number(&value, "komi").map(Komi)
    }
}

fn is_numpy_bool(value: &Bound<'_, PyAny>) -> bool {
    let kind = value.get_type();
    let module = kind.module().map(|m| m.to_string()).unwrap_or_default();
    let name = kind.name().map(|n| n.to_string()).unwrap_or_default();
    module == "numpy" && (name == "bool" || name == "bool_")
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

/// An optional colour: `None` stands for the side to move, which only the game knows.
pub fn optional_color(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Color>> {
    value.map(color).transpose()
}

/// A coordinate on a board of `size`: the kata form `"7A"`, the GTP form `"A7"`, or a 0-based
/// `(row, col)` tuple (of ints or anything with `__index__`). `(row, col)`, row 0 the top.
pub fn point(size: Size, value: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    // The common case first, straight from the text: `Go.move`'s hot path.
    if let Ok(text) = value.cast::<PyString>() {
        return coord::parse(text.to_str()?, size.0, size.1).map_err(to_py_err);
    }
    point_or_error(size, value)?.map_err(to_py_err)
}

/// Like [`point`], but a well-formed coordinate off the board is an engine error to inspect
/// (`Ok(Err(GoError::OffBoard))`) rather than a raised exception.
pub fn point_or_error(
    (height, width): Size,
    value: &Bound<'_, PyAny>,
) -> PyResult<Result<(usize, usize), GoError>> {
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
        Ok(row_col) => Ok(Ok(row_col)),
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

pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// `str(value)`, shortened past 50 characters (a number of 400 digits is not a message).
fn short(value: &Bound<'_, PyAny>) -> String {
    let text = value.str().map_or_else(|_| "?".to_string(), |s| s.to_string());
    if text.chars().count() <= 50 {
        text
    } else {
        let head: String = text.chars().take(20).collect();
        format!("{head}... ({} characters)", text.chars().count())
    }
}
