//! The Python extension module `gokata._gokata`: a thin layer over [`crate::engine`].

mod arguments;
mod errors;
mod go;

use pyo3::prelude::*;

#[pymodule]
fn _gokata(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<go::Go>()?;
    m.add("IllegalMoveError", m.py().get_type::<errors::IllegalMoveError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
