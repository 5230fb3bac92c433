//! Benchmark support: the engine's own replay speed, measured inside the extension, so that
//! the Python benchmark can set `Go.play_many` against the Rust replay in the same process.

use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::arguments::point;
use super::errors::to_py_err;
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
    let size = (size, size);
    let games = games
        .iter()
        .map(|moves| {
            moves
                .iter()
                .map(|m| m.as_ref().map(|coord| point(size, coord)).transpose())
                .collect::<PyResult<Vec<_>>>()
        })
        .collect::<PyResult<Vec<_>>>()?;
    let replay = |game: &[Option<(usize, usize)>]| -> Result<(), String> {
        let mut go = Game::new(size.0, size.1).map_err(|e| e.to_string())?;
        for m in game {
            match *m {
                Some((row, col)) => go.play(go.board().point(row, col)).map_err(|e| e.to_string())?,
                None => go.pass(),
            }
        }
        std::hint::black_box(&go);
        Ok(())
    };
    py.detach(|| {
        let start = Instant::now();
        for _ in 0..rounds {
            for game in &games {
                replay(game)?;
            }
        }
        Ok(start.elapsed().as_nanos() as u64)
    })
    .map_err(|e: String| PyValueError::new_err(e))
}
