//! Batch calls for Python users: scores, playouts and legal-move masks in one call into Rust.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyModule};

use super::arguments::{require_int, whole_number};
use super::go::Go;
use crate::engine::{default_max_moves, Color, Rng, Score};

/// `{"black": area, "white": area, "komi": komi, "winner": "black" | "white" | "draw"}`.
pub fn score_dict<'py>(py: Python<'py>, score: &Score) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "black"), score.black)?;
    dict.set_item(intern!(py, "white"), score.white)?;
    dict.set_item(intern!(py, "komi"), score.komi)?;
    let winner = match score.winner() {
        Some(Color::Black) => intern!(py, "black"),
        Some(Color::White) => intern!(py, "white"),
        None => intern!(py, "draw"),
    };
    dict.set_item(intern!(py, "winner"), winner)?;
    Ok(dict)
}

/// A seed argument: any int (its low 64 bits are used), or `None` for a fresh random seed.
pub fn rng(seed: Option<&Bound<'_, PyAny>>) -> PyResult<Rng> {
    let Some(seed) = seed else {
        return Ok(Rng::from_entropy());
    };
    require_int(seed, "seed")?;
    let low: u64 = seed
        .call_method1(intern!(seed.py(), "__and__"), (u64::MAX,))?
        .extract()?;
    Ok(Rng::new(low))
}

/// A move cap: a positive int (caps past 2^32 - 1 are that), or `None` for three moves per point.
pub fn max_moves(game: &Go, value: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
    let Some(value) = value else {
        return Ok(default_max_moves(game.game().board()));
    };
    require_int(value, "max_moves")?;
    if !value.gt(0)? {
        return Err(PyValueError::new_err(format!(
            "max_moves must be a positive int, not {value}"
        )));
    }
    Ok(value.extract::<u32>().unwrap_or(u32::MAX))
}

/// Komi: a finite number.
pub fn komi(value: f64) -> PyResult<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(PyValueError::new_err(format!(
            "komi must be a finite number, not {value}"
        )))
    }
}

/// `count` light random playouts from `game`'s position, aggregated. The game is not changed,
/// and other Python threads run meanwhile.
#[pyfunction]
#[pyo3(signature = (game, n, seed = None, max_moves = None, komi = 0.5))]
pub fn playouts<'py>(
    py: Python<'py>,
    game: PyRef<'py, Go>,
    n: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    max_moves: Option<&Bound<'py, PyAny>>,
    komi: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let count = whole_number(n, "n")?;
    let count = u64::try_from(count)
        .map_err(|_| PyValueError::new_err(format!("n must not be negative, not {count}")))?;
    let cap = self::max_moves(&game, max_moves)?;
    let komi = self::komi(komi)?;
    let mut rng = rng(seed)?;
    let position = game.game().clone();
    drop(game);
    let summary = py.detach(move || position.playouts(count, cap, komi, &mut rng));
    let dict = PyDict::new(py);
    let mean = |total: f64| if count == 0 { 0.0 } else { total / count as f64 };
    dict.set_item(intern!(py, "playouts"), summary.playouts)?;
    dict.set_item(intern!(py, "black_wins"), summary.black_wins)?;
    dict.set_item(intern!(py, "white_wins"), summary.white_wins)?;
    dict.set_item(intern!(py, "draws"), summary.draws)?;
    dict.set_item(intern!(py, "mean_margin"), mean(summary.total_margin))?;
    dict.set_item(intern!(py, "mean_moves"), mean(summary.total_moves as f64))?;
    Ok(dict)
}

/// The numpy module, or `None` if it is not installed (or blocked with
/// `sys.modules["numpy"] = None`). A failed import is tried only once: retrying it on every
/// call searches the file system each time.
pub fn numpy(py: Python<'_>) -> PyResult<Option<Bound<'_, PyModule>>> {
    static IMPORT_FAILED: AtomicBool = AtomicBool::new(false);
    let modules = py.import(intern!(py, "sys"))?.getattr(intern!(py, "modules"))?;
    if let Ok(loaded) = modules.get_item(intern!(py, "numpy")) {
        return Ok(loaded.cast_into::<PyModule>().ok());
    }
    if IMPORT_FAILED.load(Ordering::Relaxed) {
        return Ok(None);
    }
    match py.import(intern!(py, "numpy")) {
        Ok(numpy) => Ok(Some(numpy)),
        Err(_) => {
            IMPORT_FAILED.store(true, Ordering::Relaxed);
            Ok(None)
        }
    }
}

/// One byte per point, row by row from the top: 1 where `color` may play, else 0.
pub fn legal_mask_bytes<'py>(py: Python<'py>, game: &Go, color: Color) -> Bound<'py, PyBytes> {
    let board = game.game().board();
    let flags: Vec<u8> = board
        .points()
        .map(|p| u8::from(board.is_empty(p) && board.illegal_reason(p, color).is_none()))
        .collect();
    PyBytes::new(py, &flags)
}
