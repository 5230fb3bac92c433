//! The bot from Python: `genmove`, `analyze`, and `_gtp`, the loop behind `gokata gtp`.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::arguments::{finite_number, Komi};
use super::batch::{on_main_thread, positive_int, seed, thread_count, until_interrupted};
use super::go::Go;
use gokata_engine::bot::{Bot, Budget, Candidate, Decision, Settings, PASS};
use gokata_engine::{coord, Game, Point};

/// A search's settings from Python arguments.
fn settings(
    playouts: Option<&Bound<'_, PyAny>>,
    seed_value: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<Settings> {
    let playouts = match playouts {
        None => 10_000,
        Some(value) => positive_int(value, "playouts")?
            .extract::<u64>()
            .unwrap_or(u64::MAX),
    };
    Ok(Settings {
        budget: Budget::playouts(playouts),
        threads: thread_count(threads)?,
        seed: seed(seed_value)?,
        resign: false,
    })
}

/// Runs `work` detached from Python, raising `KeyboardInterrupt` if Ctrl-C stopped it.
fn detached<T: Send>(py: Python<'_>, work: impl FnOnce(&mut dyn FnMut() -> bool) -> T + Send) -> PyResult<T> {
    let signals = on_main_thread(py)?;
    py.detach(|| {
        until_interrupted(signals, |stop| {
            let mut stopped = false;
            let mut watch = || {
                stopped |= stop();
                stopped
            };
            let done = work(&mut watch);
            (!stopped).then_some(done)
        })
    })
}

/// The kata coordinate of a point (`None` for a pass).
fn kata(p: Point, game: &Game) -> Option<String> {
    let board = game.board();
    (p != PASS).then(|| {
        let (row, col) = board.row_col(p);
        coord::format(row, col, board.height())
    })
}

/// The bot's move for the side to move in `game`, a kata coordinate such as `"5E"`, or
/// `None` to pass (it passes after a pass when passing wins by area). The game is not changed.
#[pyfunction]
#[pyo3(
    signature = (game, playouts = None, seed = None, threads = None, komi = Komi(0.5)),
    text_signature = "(game, playouts=10000, seed=None, threads=None, komi=0.5)"
)]
pub fn genmove(
    py: Python<'_>,
    game: &Bound<'_, Go>,
    playouts: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    komi: Komi,
) -> PyResult<Option<String>> {
    let settings = settings(playouts, seed, threads)?;
    let position = game.get().position(py)?;
    let decision = detached(py, |stop| {
        Bot::new(settings)
            .genmove(&position, komi.0, settings.budget, false, stop)
            .0
    })?;
    Ok(match decision {
        Decision::Play(p) => kata(p, &position),
        Decision::Pass | Decision::Resign => None,
    })
}

/// The bot's candidate moves for the side to move in `game` after `playouts` simulations,
/// most visited first: dicts with `move` (kata coordinate, `None` for a pass), `visits`,
/// `win_rate` (for the side to move), `prior` (the win rate the priors alone give) and `pv`
/// (the expected line). The game is not changed.
#[pyfunction]
#[pyo3(
    signature = (game, playouts = None, seed = None, threads = None, komi = Komi(0.5)),
    text_signature = "(game, playouts=10000, seed=None, threads=None, komi=0.5)"
)]
pub fn analyze<'py>(
    py: Python<'py>,
    game: &Bound<'py, Go>,
    playouts: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    komi: Komi,
) -> PyResult<Bound<'py, PyList>> {
    let settings = settings(playouts, seed, threads)?;
    let position = game.get().position(py)?;
    let candidates: Vec<Candidate> = detached(py, |stop| {
        Bot::new(settings).analyze(&position, komi.0, settings.budget, stop)
    })?;
    let list = PyList::empty(py);
    for candidate in candidates {
        let dict = PyDict::new(py);
        dict.set_item(intern!(py, "move"), kata(candidate.mv, &position))?;
        dict.set_item(intern!(py, "visits"), candidate.visits)?;
        dict.set_item(intern!(py, "win_rate"), candidate.win_rate)?;
        dict.set_item(intern!(py, "prior"), candidate.prior)?;
        let pv: Vec<Option<String>> = candidate.pv.iter().map(|&p| kata(p, &position)).collect();
        dict.set_item(intern!(py, "pv"), pv)?;
        list.append(dict)?;
    }
    Ok(list)
}

/// Runs a GTP session on standard input and output (logs on standard error) until `quit` or
/// the end of the input: `gokata gtp`. Searches `playouts` simulations a move, or `time`
/// seconds (default: 10,000 playouts). The threads share one tree, or with `root_parallel`
/// each grows its own. Ctrl-C raises `KeyboardInterrupt`; an output that
/// cannot be written, `OSError`.
#[pyfunction]
#[pyo3(signature = (playouts = None, time = None, threads = None, seed = None, resign = true, root_parallel = false))]
pub fn _gtp(
    py: Python<'_>,
    playouts: Option<&Bound<'_, PyAny>>,
    time: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    resign: bool,
    root_parallel: bool,
) -> PyResult<()> {
    let mut settings = self::settings(playouts, seed, threads)?;
    settings.resign = resign;
    if let Some(time) = time {
        let seconds = finite_number(time, "time")?;
        if !(0.001..=7.0 * 24.0 * 3600.0).contains(&seconds) {
            return Err(PyValueError::new_err(format!(
                "time must be 0.001 to a week of seconds, not {seconds}"
            )));
        }
        let time = Duration::from_secs_f64(seconds);
        // With both, whichever ends first; with a time alone, no playout limit.
        settings.budget = match playouts {
            Some(_) => settings.budget.capped(time),
            None => Budget::time(time),
        };
    }
    let bot = if root_parallel {
        Bot::with_root_parallelism(settings)
    } else {
        Bot::new(settings)
    };
    let signals = on_main_thread(py)?;
    let ending = py.detach(|| {
        until_interrupted(signals, |stop| {
            let mut stdout = std::io::stdout().lock();
            let result = gokata_engine::gtp::run(
                std::io::stdin(),
                &mut stdout,
                Box::new(std::io::stderr()),
                bot,
                stop,
            );
            match result {
                Ok(gokata_engine::gtp::Ending::Interrupted) => None,
                other => Some(other),
            }
        })
    })?;
    ending.map(|_| ()).map_err(PyErr::from)
}
