//! Engine errors as Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use gokata_engine::GoError;

create_exception!(
    gokata,
    IllegalMoveError,
    PyValueError,
    "A move that breaks the rules; a subclass of ValueError. `coord` is the point in the kata \
     form (\"7A\"), `color` \"black\" or \"white\", `reason` \"occupied\", \"suicide\" or \"ko\" \
     (a move may not recreate the position as it was before the last turn). All three are None \
     on an error made as IllegalMoveError(message)."
);

create_exception!(
    gokata,
    SgfError,
    PyValueError,
    "An SGF file that cannot be read (strict mode: its first problem), with `line` and \
     `column` (counting from 1; columns in characters) where the problem is; a subclass of \
     ValueError. Both are 0 on an error made as SgfError(message)."
);

/// Adds `SgfError` to the module, `line` and `column` defaulting to 0.
pub fn add_sgf_error(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let class = m.py().get_type::<SgfError>();
    class.setattr("line", 0)?;
    class.setattr("column", 0)?;
    m.add("SgfError", class)
}

/// An SGF problem as `SgfError("line L, column C: what", line=L, column=C)`.
pub fn sgf_error(py: Python<'_>, problem: &gokata_engine::sgf::Problem) -> PyErr {
    let err = SgfError::new_err(problem.to_string());
    let value = err.value(py);
    for (name, number) in [("line", problem.line), ("column", problem.column)] {
        if let Err(failed) = value.setattr(name, number) {
            return failed;
        }
    }
    err
}

/// The attributes an `IllegalMoveError` carries, `None` on the class so that one made from a
/// message alone (or a subclass's) has them too.
const ATTRIBUTES: [&str; 3] = ["coord", "color", "reason"];

/// Adds `IllegalMoveError` to the module, its attributes defaulting to `None`.
pub fn add_to_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let class = py.get_type::<IllegalMoveError>();
    for name in ATTRIBUTES {
        class.setattr(name, py.None())?;
    }
    m.add("IllegalMoveError", class)
}

/// Illegal moves raise `IllegalMoveError` with its `coord`, `color` and `reason`; every other
/// engine error is a `ValueError`.
pub fn to_py_err(error: GoError) -> PyErr {
    match error {
        GoError::IllegalMove {
            ref coord,
            color,
            reason,
        } => Python::attach(|py| {
            let err = IllegalMoveError::new_err(error.to_string());
            let value = err.value(py);
            for (name, attribute) in ATTRIBUTES.into_iter().zip([coord.as_str(), color, reason.name()]) {
                if let Err(failed) = value.setattr(name, attribute) {
                    return failed;
                }
            }
            err
        }),
        _ => PyValueError::new_err(error.to_string()),
    }
}
