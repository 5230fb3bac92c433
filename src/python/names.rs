//! Interned kata-form names of points ("7A"), made once per board size and shared by every
//! game, so listing coordinates costs no string allocation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::engine::{coord, Board, Point};

type Names = Arc<Vec<Py<PyString>>>;

/// The names of every point of boards of `board`'s size, row by row from the top.
fn names(py: Python<'_>, board: &Board) -> Names {
    static CACHE: Mutex<Option<HashMap<(usize, usize), Names>>> = Mutex::new(None);
    let (height, width) = (board.height(), board.width());
    let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let names = cache
        .get_or_insert_with(HashMap::new)
        .entry((height, width))
        .or_insert_with(|| {
            let names = (0..height)
                .flat_map(|row| (0..width).map(move |col| (row, col)))
                .map(|(row, col)| PyString::intern(py, &coord::format(row, col, height)).unbind());
            Arc::new(names.collect())
        });
    Arc::clone(names)
}

/// A list of the names of `points`.
pub fn point_names<'py>(
    py: Python<'py>,
    board: &Board,
    points: impl Iterator<Item = Point>,
) -> PyResult<Bound<'py, PyList>> {
    let names = names(py, board);
    PyList::new(
        py,
        points.map(|p| {
            let (row, col) = board.row_col(p);
            names[row * board.width() + col].bind(py)
        }),
    )
}
