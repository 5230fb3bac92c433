//! Pickling: a game's state as plain Python values, its [`GameRecord`].
//!
//! `(1, start_rows, start_to_move, start_ko, handicap_placed, turns)`: the version, the
//! position before the first turn as strs of `.`, `x`, `o`, the colour to move then, the ko
//! ban then (`(row, col, colour)` or `None`), and one `(colour, row, col, previous_to_move)`
//! per turn, `row` and `col` `None` for a pass.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::arguments::color;
use super::errors::to_py_err;
use crate::engine::{Color, Game, GameRecord, TurnRecord};

const VERSION: u8 = 1;

type TurnState<'py> = (Bound<'py, PyAny>, Option<usize>, Option<usize>, Bound<'py, PyAny>);
type KoState<'py> = Option<(usize, usize, Bound<'py, PyAny>)>;
type State<'py> = (
    u8,
    Vec<String>,
    Bound<'py, PyAny>,
    KoState<'py>,
    bool,
    Vec<TurnState<'py>>,
);

pub fn state<'py>(py: Python<'py>, game: &Game) -> PyResult<Bound<'py, PyTuple>> {
    let record = game.record();
    let start: Vec<String> = record
        .start
        .iter()
        .map(|row| row.iter().map(|cell| cell.map_or('.', Color::symbol)).collect())
        .collect();
    let start_ko = record.start_ko.map(|(row, col, color)| (row, col, color.name()));
    let turns: Vec<_> = record
        .turns
        .iter()
        .map(|turn| {
            let (row, col) = turn.point.unzip();
            (turn.color.name(), row, col, turn.previous_to_move.name())
        })
        .collect();
    (
        VERSION,
        start,
        record.start_to_move.name(),
        start_ko,
        record.handicap_placed,
        turns,
    )
        .into_pyobject(py)
}

pub fn game_from_state(state: &Bound<'_, PyAny>) -> PyResult<Game> {
    let bad = || PyValueError::new_err("not a gokata.Go state: unpickle only what gokata pickled");
    let (version, start, start_to_move, start_ko, handicap_placed, turns): State =
        state.extract().map_err(|_| bad())?;
    if version != VERSION {
        return Err(PyValueError::new_err(format!(
            "unknown gokata.Go state version {version}"
        )));
    }
    let start = start
        .iter()
        .map(|row| {
            row.chars()
                .map(|c| match c {
                    '.' => Ok(None),
                    'x' => Ok(Some(Color::Black)),
                    'o' => Ok(Some(Color::White)),
                    _ => Err(bad()),
                })
                .collect()
        })
        .collect::<PyResult<_>>()?;
    let start_ko = match start_ko {
        Some((row, col, banned)) => Some((row, col, color(&banned)?)),
        None => None,
    };
    let turns = turns
        .iter()
        .map(|(mover, row, col, previous)| {
            Ok(TurnRecord {
                color: color(mover)?,
                point: row.zip(*col),
                previous_to_move: color(previous)?,
            })
        })
        .collect::<PyResult<_>>()?;
    let record = GameRecord {
        start,
        start_to_move: color(&start_to_move)?,
        start_ko,
        handicap_placed,
        turns,
    };
    record.replay().map_err(to_py_err)
}
