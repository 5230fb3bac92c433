//! `gokata.svg` and `Go._repr_svg_`: pictures from [`gokata_engine::picture`].

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyMapping, PyString};

use super::arguments::{point, type_name, whole_number, Size};
use super::go::Go;
use gokata_engine::picture::{self, Picture, Style};
use gokata_engine::Game;

/// The picture `Go._repr_svg_` shows in Jupyter: every default.
pub fn default_svg(game: &Game) -> PyResult<String> {
    picture::svg(game, &Picture::default()).map_err(PyValueError::new_err)
}

/// An SVG picture of `game`: a wooden (`style="plain"`: white) board with its lines and star
/// points, column letters and row numbers (`coordinates`), the stones, the last move ringed
/// (`last_move`), the ko point marked, and a caption with the side to move and captures
/// (`caption`). `size` is the width in pixels (default: none, the picture scales). `marks`:
/// points to mark with a cross; `fill`: a mapping from points to CSS colours to shade them.
/// The board as text is in the SVG's `<desc>`. The picture's size depends on the board's and
/// the options, never on the position.
#[pyfunction]
#[pyo3(signature = (game, size = None, coordinates = true, *, last_move = true, marks = None, fill = None, style = "wood", caption = true))]
#[allow(clippy::too_many_arguments)]
pub fn svg(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    size: Option<&Bound<'_, PyAny>>,
    coordinates: bool,
    last_move: bool,
    marks: Option<&Bound<'_, PyAny>>,
    fill: Option<&Bound<'_, PyAny>>,
    style: &str,
    caption: bool,
) -> PyResult<String> {
    let game = game
        .cast::<Go>()
        .map_err(|_| PyTypeError::new_err(format!("svg draws a gokata.Go, not {}", type_name(game))))?;
    let size = match size {
        None => None,
        Some(value) => {
            let pixels = whole_number(value, "size")?;
            if !(1..=100_000).contains(&pixels) {
                return Err(PyValueError::new_err(format!(
                    "size is the width in pixels, 1 to 100000, not {pixels}"
                )));
            }
            Some(pixels as u32)
        }
    };
    let style = match style {
        "wood" => Style::Wood,
        "plain" => Style::Plain,
        other => {
            return Err(PyValueError::new_err(format!(
                "style must be 'wood' or 'plain', not {other:?}"
            )))
        }
    };
    // The marks and fills are read against the board's size, then the game copied.
    let (held, (marks, fill)) = game.get().lock_with(py, |board| {
        Ok((read_marks(board, marks)?, read_fill(board, fill)?))
    })?;
    let position = held.clone();
    drop(held);
    let options = Picture {
        size,
        coordinates,
        last_move,
        marks,
        fill,
        style,
        caption,
    };
    picture::svg(&position, &options).map_err(PyValueError::new_err)
}

/// `marks`: a collection of coordinates on a board of `size`.
fn read_marks(size: Size, marks: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(usize, usize)>> {
    let Some(marks) = marks else {
        return Ok(Vec::new());
    };
    if marks.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "marks is a collection of coordinates, not one str: use ['7A'], not '7A'",
        ));
    }
    marks.try_iter()?.map(|coord| point(size, &coord?)).collect()
}

/// `fill`: a mapping from coordinates on a board of `size` to colours.
fn read_fill(size: Size, fill: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<((usize, usize), String)>> {
    let Some(fill) = fill else {
        return Ok(Vec::new());
    };
    let fill = fill.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "fill is a mapping from coordinates to colours, not {}",
            type_name(fill)
        ))
    })?;
    let mut shaded = Vec::new();
    for item in fill.items()?.iter() {
        let (coord, color): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let color = color.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a fill colour is a str such as 'red', not {}",
                type_name(&color)
            ))
        })?;
        shaded.push((point(size, &coord)?, color.to_str()?.to_owned()));
    }
    Ok(shaded)
}
