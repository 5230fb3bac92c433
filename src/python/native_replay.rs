//! Benchmark support: the engine's own replay speed, measured inside the extension, so that
//! the Python benchmark can set `Go.play_many` against the Rust replay in the same process.

use std::time::Instant;

use pyo3::prelude::*;

use super::arguments::point;
use super::errors::to_py_err;
use crate::corpus::replay;
use crate::engine::Game;

/// Replays `games` (lists of kata coordinates, `None` for a pass) on fresh `size` x `size`
/// games `rounds` times in Rust, and returns the nanoseconds it took, without the reading of
/// the coordinates (done first). The GIL is released meanwhile. Every move must be legal.
#[pyfunction]
pub fn _replay_natively(
    py: Python<'_>,
    size: usize,
    games: Vec<Vec<Option<Bound<'_, PyAny>>>>,
    rounds: u32,
) -> PyResult<u64> {
    Game::new(size, size).map_err(to_py_err)?;
    let games = games
        .iter()
        .map(|moves| {
            moves
                .iter()
                .map(|m| m.as_ref().map(|coord| point((size, size), coord)).transpose())
                .collect::<PyResult<Vec<_>>>()
        })
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| {
        let start = Instant::now();
        for _ in 0..rounds {
            for game in &games {
                std::hint::black_box(replay(size, game)?);
            }
        }
        Ok(start.elapsed().as_nanos() as u64)
    })
    .map_err(to_py_err)
}
