//! The Python extension module `gokata._gokata`: a thin layer over [`crate::engine`].

mod arguments;
mod batch;
mod errors;
mod go;
mod names;
mod pickling;
#[cfg(feature = "server")]
mod server;

use pyo3::prelude::*;

/// Solves the puzzle "A Game of Go": the size, the move count, the board lines (`.`, `B`, `W`)
/// and the moves `COLOR ROW COL` in; the final board lines, or `NOT_VALID`, out. Malformed
/// input raises `ValueError`.
#[pyfunction]
fn solve(text: &str) -> PyResult<String> {
    crate::puzzle::solve(text).map_err(errors::to_py_err)
}

#[pymodule]
fn _gokata(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<go::Go>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(batch::playouts, m)?)?;
    #[cfg(feature = "server")]
    m.add_class::<server::Server>()?;
    m.add("IllegalMoveError", m.py().get_type::<errors::IllegalMoveError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
