//! Batch calls for Python users: scores, playouts and legal-move masks in one call into Rust.

use std::time::{Duration, Instant};

use pyo3::exceptions::{PyImportError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyModule};

use super::arguments::{integer, whole_number, Komi};
use super::go::Go;
use gokata_engine::{default_max_moves, Color, Game, PlayoutPlan, Rng, Score};

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

/// A seed argument: any int or anything with `__index__` (its low 64 bits are used), or
/// `None` for a fresh random seed.
pub fn seed(seed: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    let Some(seed) = seed else {
        return Ok(Rng::from_entropy().next_u64());
    };
    integer(seed, "seed")?.bitand(u64::MAX)?.extract()
}

/// A random number generator seeded by a seed argument (see [`seed`]).
pub fn rng(seed: Option<&Bound<'_, PyAny>>) -> PyResult<Rng> {
    Ok(Rng::new(self::seed(seed)?))
}

/// A move cap: a positive int (caps past 2^32 - 1 are that), or `None` for the default, three
/// moves per point of the board ([`default_max_moves`], once the board is copied).
pub fn max_moves(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u32>> {
    value
        .map(|value| {
            Ok(positive_int(value, "max_moves")?
                .extract::<u32>()
                .unwrap_or(u32::MAX))
        })
        .transpose()
}

/// How often long work checks for signals (Ctrl-C).
pub const SIGNAL_CHECK: Duration = Duration::from_millis(5);

/// Whether this is Python's main thread, the one that runs signal handlers.
pub fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import(intern!(py, "threading"))?;
    let main = threading
        .call_method0(intern!(py, "main_thread"))?
        .getattr(intern!(py, "ident"))?;
    let current = threading.call_method0(intern!(py, "get_ident"))?;
    main.eq(current)
}

/// Runs `work`, handing it a `stop` function to call often (between playouts, and every few
/// hundred moves within one). With `signals` (on the main thread: elsewhere Python runs no
/// signal handler), every [`SIGNAL_CHECK`] it runs Python's signal handlers, attaching to
/// Python for a moment if detached, and answers `true`, so that `work` gives up and returns
/// `None`, if one raised (Ctrl-C's `KeyboardInterrupt`), which is then raised here.
pub fn until_interrupted<T>(
    signals: bool,
    work: impl FnOnce(&mut dyn FnMut() -> bool) -> Option<T>,
) -> PyResult<T> {
    let mut interrupted = None;
    let mut next_check = Instant::now() + SIGNAL_CHECK;
    let mut stop = || {
        if !signals {
            return false;
        }
        let now = Instant::now();
        if now < next_check {
            return false;
        }
        next_check = now + SIGNAL_CHECK;
        // Attaching is cheap when attached already; detached, it waits for the GIL.
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(error) => {
                interrupted = Some(error);
                true
            }
        }
    };
    let done = work(&mut stop);
    match (done, interrupted) {
        (Some(done), _) => Ok(done),
        (None, Some(error)) => Err(error),
        (None, None) => unreachable!("work stops only when told to"),
    }
}

/// `n` light random playouts from `game`'s position, aggregated. The game is not changed.
/// They are spread over `threads` threads (default: one per core the machine has); playout
/// number `i` draws from a random stream derived from `seed` and `i`, so a seed gives the same
/// summary whatever the number of threads. The GIL is released meanwhile, so other Python
/// threads run, and signals are checked every few milliseconds: Ctrl-C raises
/// `KeyboardInterrupt` promptly, whatever `n`.
#[pyfunction]
#[pyo3(
    signature = (game, n, seed = None, max_moves = None, komi = Komi(0.5), threads = None),
    text_signature = "(game, n, seed=None, max_moves=None, komi=0.5, threads=None)"
)]
pub fn playouts<'py>(
    py: Python<'py>,
    game: &Bound<'py, Go>,
    n: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    max_moves: Option<&Bound<'py, PyAny>>,
    komi: Komi,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let count = whole_number(n, "n")?;
    let count = u64::try_from(count)
        .map_err(|_| PyValueError::new_err(format!("n must not be negative, not {count}")))?;
    let max_moves = self::max_moves(max_moves)?;
    let (seed, threads) = (self::seed(seed)?, thread_count(threads)?);
    let position = game.get().position(py)?;
    let plan = PlayoutPlan {
        count,
        max_moves: max_moves.unwrap_or_else(|| default_max_moves(position.board())),
        komi: komi.0,
        seed,
        threads,
    };
    let signals = on_main_thread(py)?;
    let summary =
        py.detach(|| until_interrupted(signals, |stop| position.playouts_until(&plan, stop, SIGNAL_CHECK)))?;
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "playouts"), summary.playouts)?;
    dict.set_item(intern!(py, "black_wins"), summary.black_wins)?;
    dict.set_item(intern!(py, "white_wins"), summary.white_wins)?;
    dict.set_item(intern!(py, "draws"), summary.draws)?;
    dict.set_item(intern!(py, "mean_margin"), summary.mean_margin(plan.komi))?;
    dict.set_item(intern!(py, "mean_moves"), summary.mean_moves())?;
    Ok(dict)
}

/// A `threads` argument: a positive int, or `None` for one thread per core.
pub fn thread_count(value: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(value) = value else {
        return Ok(std::thread::available_parallelism().map_or(1, |n| n.get()));
    };
    // More threads than a machine could run are capped, not refused: they would only wait.
    Ok(positive_int(value, "threads")?
        .extract::<usize>()
        .unwrap_or(usize::MAX)
        .min(MAX_THREADS))
}

/// An int argument that must be at least 1: TypeError if it is no int, ValueError naming it
/// and its value if it is below 1.
pub fn positive_int<'py>(value: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyInt>> {
    let number = integer(value, name)?;
    if !number.gt(0)? {
        return Err(PyValueError::new_err(format!(
            "{name} must be a positive int, not {number}"
        )));
    }
    Ok(number)
}

/// The most threads `playouts` starts, whatever it is asked for.
const MAX_THREADS: usize = 1024;

/// The numpy module, or `None` if it is not installed (or blocked with
/// `sys.modules["numpy"] = None`). Imported once, through the import machinery (so threads
/// asking at once wait for one complete import); only an `ImportError` means "no numpy", and
/// that answer is kept, since retrying would search the file system on every call. Any other
/// error, such as `KeyboardInterrupt` during the import, is raised and nothing is kept.
pub fn numpy(py: Python<'_>) -> PyResult<Option<&Bound<'_, PyModule>>> {
    static NUMPY: PyOnceLock<Option<Py<PyModule>>> = PyOnceLock::new();
    let numpy = NUMPY.get_or_try_init(py, || match py.import(intern!(py, "numpy")) {
        Ok(numpy) => Ok(Some(numpy.unbind())),
        Err(error) if error.is_instance_of::<PyImportError>(py) => Ok(None),
        Err(error) => Err(error),
    })?;
    Ok(numpy.as_ref().map(|numpy| numpy.bind(py)))
}

/// One byte per point, row by row from the top: 1 where `color` may play, else 0.
pub fn legal_mask_bytes(game: &Game, color: Color) -> Vec<u8> {
    let board = game.board();
    board
        .points()
        .map(|p| u8::from(board.is_empty(p) && board.illegal_reason(p, color).is_none()))
        .collect()
}
