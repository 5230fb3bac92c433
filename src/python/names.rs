//! Interned kata-form names of points ("7A"), made once per board size and shared by every
//! game, so listing coordinates costs no string allocation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyList, PyString};

use super::arguments::Size;
use gokata_engine::coord;

type Names = Arc<Vec<Py<PyString>>>;

/// The names of every point of boards of `(height, width)`, row by row from the top.
fn names(py: Python<'_>, (height, width): Size) -> Names {
    static CACHE: Mutex<Option<HashMap<Size, Names>>> = Mutex::new(None);
    // Waiting for the lock detaches from Python, so a thread holding it can always finish.
    let mut cache = CACHE
        .lock_py_attached(py)
        .unwrap_or_else(|poisoned| poisoned.into_inner());
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

/// A list of the names of `points`, each a `(row, col)` on a board of `size`.
pub fn point_names<'py>(
    py: Python<'py>,
    size: Size,
    points: impl IntoIterator<Item = (usize, usize)>,
) -> PyResult<Bound<'py, PyList>> {
    let names = names(py, size);
    PyList::new(
        py,
        points
            .into_iter()
            .map(|(row, col)| names[row * size.1 + col].bind(py)),
    )
}
