//! The Python extension module `gokata._gokata`: a thin layer over the engine
//! ([`gokata_engine`]) and the game server ([`gokata_server`]).

mod arguments;
mod batch;
mod bot;
mod env;
mod errors;
mod go;
mod info;
mod names;
mod pickling;
mod server;
mod sgf;
mod svg;

use pyo3::prelude::*;

/// Solves the puzzle "A Game of Go": the size, the move count, the board lines (`.`, `B`, `W`)
/// and the moves `COLOR ROW COL` in; the final board lines, or `NOT_VALID`, out. Malformed
/// input raises `ValueError`.
#[pyfunction]
fn solve(text: &str) -> PyResult<String> {
    gokata_engine::puzzle::solve(text).map_err(errors::to_py_err)
}

/// `gil_used = true`: on a free-threaded Python the GIL stays on while gokata is imported.
/// `Go` is built to be shared between threads (each call holds the game's lock), but gokata
/// is tested only on Pythons with the GIL (PyO3 0.30 would otherwise declare the module
/// free-threading safe by default).
#[pymodule(gil_used = true)]
fn _gokata(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<go::Go>()?;
    m.add_class::<env::PyVecGo>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(batch::playouts, m)?)?;
    m.add_function(wrap_pyfunction!(bot::genmove, m)?)?;
    m.add_function(wrap_pyfunction!(bot::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(bot::_gtp, m)?)?;
    m.add_class::<server::Server>()?;
    errors::add_to_module(m)?;
    errors::add_sgf_error(m)?;
    m.add_class::<sgf::SgfGame>()?;
    m.add_class::<sgf::SgfNode>()?;
    m.add_function(wrap_pyfunction!(sgf::read_sgf_collection, m)?)?;
    m.add_function(wrap_pyfunction!(sgf::write_sgf_collection, m)?)?;
    m.add_function(wrap_pyfunction!(svg::svg, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
