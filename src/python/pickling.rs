//! Pickling: a game's state as plain Python values, its [`GameRecord`].
//!
//! `(1, start_rows, start_to_move, start_ko, handicap_placed, turns)`: the version, the
//! position before the first turn as strs of `.`, `x`, `o`, the colour to move then, the ko
//! ban then (`(row, col, colour)` or `None`), whether handicap stones were placed (a `bool`),
//! and one `(colour, row, col, previous_to_move)` per turn, `row` and `col` both `None` for a
//! pass, and a fifth part, `True`, for a move that broke the rules (read leniently from a
//! record). A game that keeps an SGF record or game information has a seventh part, `(read,
//! text)`: whether the record was read from SGF, and it (or the information alone) as SGF.
//! Reading is strict: every part must have exactly the type written (an `int` that is not a
//! `bool`, a `bool` that is one), or the state is refused whole.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PySequence, PyString, PyTuple};

use super::errors::to_py_err;
use gokata_engine::sgf::SgfRecord;
use gokata_engine::{Color, GameRecord, TurnRecord};

const VERSION: u8 = 1;

pub fn state<'py>(py: Python<'py>, record: &GameRecord, sgf: &SgfRecord) -> PyResult<Bound<'py, PyTuple>> {
    let start: Vec<String> = record
        .start
        .iter()
        .map(|row| row.iter().map(|cell| cell.map_or('.', Color::symbol)).collect())
        .collect();
    let start_ko = record.start_ko.map(|(row, col, color)| (row, col, color.name()));
    let turns = record
        .turns
        .iter()
        .map(|turn| turn_state(py, turn))
        .collect::<PyResult<Vec<_>>>()?;
    let parts = (
        VERSION,
        start,
        record.start_to_move.name(),
        start_ko,
        record.handicap_placed,
        turns,
    )
        .into_pyobject(py)?;
    if sgf.is_empty() {
        return Ok(parts);
    }
    let mut items: Vec<Bound<'py, PyAny>> = parts.iter().collect();
    items.push(sgf.state().into_pyobject(py)?.into_any());
    PyTuple::new(py, items)
}

fn turn_state<'py>(py: Python<'py>, turn: &TurnRecord) -> PyResult<Bound<'py, PyTuple>> {
    let (row, col) = turn.point.unzip();
    let (color, previous) = (turn.color.name(), turn.previous_to_move.name());
    if turn.forced {
        (color, row, col, previous, true).into_pyobject(py)
    } else {
        (color, row, col, previous).into_pyobject(py)
    }
}

fn refused(problem: &str) -> PyErr {
    PyValueError::new_err(format!(
        "not a gokata.Go state ({problem}): unpickle only what gokata pickled"
    ))
}

/// The record a state describes, read strictly (it is not yet replayed), and what the game
/// keeps of SGF.
pub fn record_from_state(state: &Bound<'_, PyAny>) -> PyResult<(GameRecord, SgfRecord)> {
    let parts = state.cast::<PyTuple>().map_err(|_| refused("not a tuple"))?;
    let mut parts: Vec<_> = parts.iter().collect();
    let sgf = match parts.len() {
        7 => sgf_record(&parts.pop().expect("seven parts"))?,
        _ => SgfRecord::default(),
    };
    let [version, start, start_to_move, start_ko, handicap_placed, turns] =
        <[Bound<'_, PyAny>; 6]>::try_from(parts).map_err(|_| refused("not six or seven parts"))?;
    let version = index(&version, "the version")?;
    if version != usize::from(VERSION) {
        return Err(PyValueError::new_err(format!(
            "unknown gokata.Go state version {version}"
        )));
    }
    let start = sequence(&start, "the start position")?
        .into_iter()
        .map(|row| {
            let row = row
                .cast_into::<PyString>()
                .map_err(|_| refused("a start row is not a str"))?;
            row.to_str()?
                .chars()
                .map(|c| match c {
                    '.' => Ok(None),
                    'x' => Ok(Some(Color::Black)),
                    'o' => Ok(Some(Color::White)),
                    _ => Err(refused("a start row holds a character other than . x o")),
                })
                .collect()
        })
        .collect::<PyResult<_>>()?;
    let start_ko = if start_ko.is_none() {
        None
    } else {
        let [row, col, banned] = parts_of::<3>(&start_ko, "the ko ban")?;
        Some((index(&row, "a row")?, index(&col, "a column")?, color(&banned)?))
    };
    if !handicap_placed.is_exact_instance_of::<PyBool>() {
        return Err(refused("the handicap flag is not a bool"));
    }
    let turns = sequence(&turns, "the turns")?
        .into_iter()
        .map(|turn| {
            let ([mover, row, col, previous], forced) = turn_parts(&turn)?;
            let point = match (row.is_none(), col.is_none()) {
                (true, true) => None,
                (false, false) => Some((index(&row, "a row")?, index(&col, "a column")?)),
                _ => return Err(refused("a turn has a row or a column but not both")),
            };
            Ok(TurnRecord {
                color: color(&mover)?,
                point,
                previous_to_move: color(&previous)?,
                forced,
            })
        })
        .collect::<PyResult<_>>()?;
    let record = GameRecord {
        start,
        start_to_move: color(&start_to_move)?,
        start_ko,
        handicap_placed: handicap_placed.is_truthy()?,
        turns,
    };
    Ok((record, sgf))
}

/// The seventh part: `(read, text)`.
fn sgf_record(part: &Bound<'_, PyAny>) -> PyResult<SgfRecord> {
    let [read, text] = parts_of::<2>(part, "the SGF record")?;
    if !read.is_exact_instance_of::<PyBool>() {
        return Err(refused("the SGF record's flag is not a bool"));
    }
    let text = text
        .cast::<PyString>()
        .map_err(|_| refused("the SGF record is not a str"))?;
    SgfRecord::from_state(read.is_truthy()?, text.to_str()?)
        .map_err(|problem| refused(&format!("the SGF record: {problem}")))
}

/// The game of a record, replayed (an error if it describes no legal game).
pub fn replay(record: &GameRecord) -> PyResult<gokata_engine::Game> {
    record.replay().map_err(to_py_err)
}

/// A list or tuple's items (a str is not a sequence of rows here).
fn sequence<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if value.is_instance_of::<PyString>() {
        return Err(refused(&format!("{what} is a str")));
    }
    let items = value
        .cast::<PySequence>()
        .map_err(|_| refused(&format!("{what} is not a sequence")))?;
    items.try_iter()?.collect()
}

/// The `N` items of a tuple of exactly `N`.
fn parts_of<'py, const N: usize>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<[Bound<'py, PyAny>; N]> {
    let tuple = value
        .cast::<PyTuple>()
        .map_err(|_| refused(&format!("{what} is not a tuple")))?;
    <[Bound<'py, PyAny>; N]>::try_from(tuple.iter().collect::<Vec<_>>())
        .map_err(|_| refused(&format!("{what} is not a tuple of {N}")))
}

/// The four parts of a turn, and whether it broke the rules (a fifth part, a `bool`).
fn turn_parts<'py>(turn: &Bound<'py, PyAny>) -> PyResult<([Bound<'py, PyAny>; 4], bool)> {
    let with_fifth = turn.cast::<PyTuple>().is_ok_and(|parts| parts.len() == 5);
    if !with_fifth {
        return Ok((parts_of::<4>(turn, "a turn")?, false));
    }
    let [mover, row, col, previous, forced] = parts_of::<5>(turn, "a turn")?;
    if !forced.is_exact_instance_of::<PyBool>() {
        return Err(refused("a turn's fifth part is not a bool"));
    }
    Ok(([mover, row, col, previous], forced.is_truthy()?))
}

/// A colour, as `state` writes it (any form `Go` reads).
fn color(value: &Bound<'_, PyAny>) -> PyResult<Color> {
    super::arguments::color(value).map_err(|_| refused("a colour is not black or white"))
}

/// A non-negative `int` that is not a `bool`.
fn index(value: &Bound<'_, PyAny>, what: &str) -> PyResult<usize> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(refused(&format!("{what} is not an int")));
    }
    value
        .extract()
        .map_err(|_| refused(&format!("{what} is out of range")))
}
