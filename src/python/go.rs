//! The `Go` class.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use super::arguments::{color, color_or, point, point_or_error, position_rows, whole_number};
use super::batch::{self, legal_mask_bytes, score_dict};
use super::errors::to_py_err;
use super::names::point_names;
use super::pickling;
use crate::engine::{area_score, game_from_position, render, Board, Color, Game, GoError};

/// A game of Go under the kata's rules. Coordinates are row number then column letter
/// (`"7A"`; row 1 is the bottom row, there is no column I), or `"A7"`, or a `(row, col)` tuple.
#[pyclass(module = "gokata")]
#[derive(Clone)]
pub struct Go {
    game: Game,
}

#[pymethods]
impl Go {
    #[new]
    #[pyo3(signature = (height, width = None))]
    fn new(height: &Bound<'_, PyAny>, width: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let height = whole_number(height, "height")?;
        let width = match width {
            Some(width) => whole_number(width, "width")?,
            None => height,
        };
        let size = |n: i64| usize::try_from(n).unwrap_or(usize::MAX);
        // The engine's error, but with the numbers as given (negative ones included).
        let game = Game::new(size(height), size(width))
            .map_err(|_| to_py_err(GoError::BoardSize { height, width }))?;
        Ok(Go { game })
    }

    /// The board as rows of `'.'`, `'x'` (black), `'o'` (white), top row first. A new list each time.
    #[getter]
    fn board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let symbols = [intern!(py, "."), intern!(py, "x"), intern!(py, "o")];
        let board = self.game.board();
        let rows = (0..board.height()).map(|row| {
            let cells = (0..board.width())
                .map(|col| symbols[board.stone(board.point(row, col)).map_or(0, |c| c as usize)]);
            PyList::new(py, cells)
        });
        PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)
    }

    /// `{"height": h, "width": w}`.
    #[getter]
    fn size<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item(intern!(py, "height"), self.game.board().height())?;
        dict.set_item(intern!(py, "width"), self.game.board().width())?;
        Ok(dict)
    }

    /// `"black"` or `"white"`: the side to move.
    #[getter]
    fn turn<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        match self.game.to_move() {
            Color::Black => intern!(py, "black"),
            Color::White => intern!(py, "white"),
        }
    }

    /// Plays each coordinate in turn for the side to move. If one is illegal it raises, and the
    /// moves before it stay played.
    #[pyo3(signature = (*coords))]
    fn r#move(&mut self, coords: &Bound<'_, PyTuple>) -> PyResult<()> {
        for coord in coords.iter() {
            let p = point(self.game.board(), &coord)?;
            self.game.play(p).map_err(to_py_err)?;
        }
        Ok(())
    }

    /// A game from a position: `rows` top row first, each a str or a list of one-character
    /// strs, with `.` `-` `+` for empty, `x` `X` `B` `b` `#` for black, `o` `O` `W` `w` for white.
    /// `previous`, the position before the last move, makes ko checkable from the first move.
    #[staticmethod]
    #[pyo3(signature = (rows, turn = None, previous = None))]
    fn from_board(
        rows: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
        previous: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let rows = position_rows(rows, "rows")?;
        let to_move = color_or(turn, Color::Black)?;
        let previous = previous.map(|p| position_rows(p, "previous")).transpose()?;
        let game = game_from_position(&rows, to_move, previous.as_deref()).map_err(to_py_err)?;
        Ok(Go { game })
    }

    /// `color` plays at `coord`, whoever's turn it is; then the other colour is to move.
    fn play(&mut self, color: &Bound<'_, PyAny>, coord: &Bound<'_, PyAny>) -> PyResult<()> {
        let color = self::color(color)?;
        let p = point(self.game.board(), coord)?;
        self.game.play_as(color, p).map_err(to_py_err)
    }

    /// Whether `color` (default: the side to move) may play at `coord`. Off the board is `False`.
    #[pyo3(signature = (coord, color = None))]
    fn is_legal(&self, coord: &Bound<'_, PyAny>, color: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        Ok(self.illegal_reason(coord, color)?.is_none())
    }

    /// Why `color` (default: the side to move) may not play at `coord`: `"occupied"`,
    /// `"suicide"`, `"ko"` or `"off-board"`; `None` when the move is legal.
    #[pyo3(signature = (coord, color = None))]
    fn illegal_reason(
        &self,
        coord: &Bound<'_, PyAny>,
        color: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<&'static str>> {
        let color = color_or(color, self.game.to_move())?;
        Ok(match point_or_error(self.game.board(), coord)? {
            Ok(p) => self.game.board().illegal_reason(p, color).map(|r| r.name()),
            Err(_) => Some("off-board"),
        })
    }

    /// Every point where `color` (default: the side to move) may play, in the kata form, row by
    /// row from the top.
    #[pyo3(signature = (color = None))]
    fn legal_moves<'py>(
        &self,
        py: Python<'py>,
        color: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let color = color_or(color, self.game.to_move())?;
        let board = self.game.board();
        point_names(py, board, board.legal_moves(color))
    }

    /// The stones, in the kata form, that a move of `color` (default: the side to move) at
    /// `coord` would capture. Raises `IllegalMoveError` if the move is illegal.
    #[pyo3(signature = (coord, color = None))]
    fn captures<'py>(
        &self,
        py: Python<'py>,
        coord: &Bound<'py, PyAny>,
        color: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let color = color_or(color, self.game.to_move())?;
        let board = self.game.board();
        let p = point(board, coord)?;
        self.game.check_move(color, p).map_err(to_py_err)?;
        let mut captured = board.captures(p, color);
        captured.sort_unstable();
        point_names(py, board, captured.into_iter())
    }

    /// Area score: stones plus empty regions touching only that colour (every stone counts as
    /// alive), `komi` added to white. `{"black", "white", "komi", "winner"}`.
    #[pyo3(signature = (komi = 0.5))]
    fn score<'py>(&self, py: Python<'py>, komi: f64) -> PyResult<Bound<'py, PyDict>> {
        score_dict(py, &area_score(self.game.board(), batch::komi(komi)?))
    }

    /// A light random playout from this position on a copy (the game is not changed): each
    /// move uniformly random among the legal moves that do not fill the mover's own simple eye,
    /// a pass when none is left, until two passes in a row or `max_moves` (default three per
    /// point). Returns the final position's score and `"moves"`, the turns played.
    #[pyo3(signature = (seed = None, max_moves = None, komi = 0.5))]
    fn playout<'py>(
        &self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
        max_moves: Option<&Bound<'py, PyAny>>,
        komi: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let cap = batch::max_moves(self, max_moves)?;
        let result = self.game.playout(cap, batch::komi(komi)?, &mut batch::rng(seed)?);
        let dict = score_dict(py, &result.score)?;
        dict.set_item(intern!(py, "moves"), result.moves)?;
        Ok(dict)
    }

    /// One flag per point, row by row from the top: may `color` (default: the side to move)
    /// play there? A `height` x `width` numpy array of bools when numpy is installed, else
    /// `bytes` of 0 and 1.
    #[pyo3(signature = (color = None))]
    fn legal_mask<'py>(
        &self,
        py: Python<'py>,
        color: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let color = color_or(color, self.game.to_move())?;
        let flags = legal_mask_bytes(py, self, color);
        let Some(numpy) = batch::numpy(py)? else {
            return Ok(flags.into_any());
        };
        let board = self.game.board();
        let array = numpy.call_method1(
            intern!(py, "frombuffer"),
            (flags, numpy.getattr(intern!(py, "bool_"))?),
        )?;
        array
            .call_method1(intern!(py, "reshape"), (board.height(), board.width()))?
            .call_method0(intern!(py, "copy"))
    }

    /// Plays a sequence of coordinates (`None` or `"pass"` for a pass), colours alternating,
    /// and returns how many were played: fewer than given when one is illegal, which is then
    /// left unplayed with the game as it was before it. A malformed coordinate raises
    /// `ValueError`, the moves before it staying played.
    fn play_many(&mut self, coords: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut played = 0;
        for coord in coords.try_iter()? {
            let coord = coord?;
            if coord.is_none()
                || coord
                    .extract::<&str>()
                    .is_ok_and(|s| s.eq_ignore_ascii_case("pass"))
            {
                self.game.pass();
            } else {
                let p = point(self.game.board(), &coord)?;
                if self.game.play(p).is_err() {
                    break;
                }
            }
            played += 1;
        }
        Ok(played)
    }

    /// The side to move passes.
    fn pass_turn(&mut self) {
        self.game.pass();
    }

    /// Places `n` black handicap stones (9x9: up to 5; 13x13 and 19x19: up to 9) before the first turn.
    fn handicap_stones(&mut self, n: &Bound<'_, PyAny>) -> PyResult<()> {
        let stones = whole_number(n, "n")?;
        self.game.place_handicap(stones).map_err(to_py_err)
    }

    /// `'x'`, `'o'` or `'.'` at a coordinate.
    fn get_position<'py>(
        &self,
        py: Python<'py>,
        coord: &Bound<'py, PyAny>,
    ) -> PyResult<&Bound<'py, PyString>> {
        let p = point(self.game.board(), coord)?;
        Ok(match self.game.board().stone(p) {
            None => intern!(py, "."),
            Some(Color::Black) => intern!(py, "x"),
            Some(Color::White) => intern!(py, "o"),
        })
    }

    /// Undoes the last `n` turns (moves and passes).
    fn rollback(&mut self, n: &Bound<'_, PyAny>) -> PyResult<()> {
        let turns = whole_number(n, "n")?;
        self.game.rollback(turns).map_err(to_py_err)
    }

    /// Back to an empty board of the same size, black to move, no history.
    fn reset(&mut self) {
        self.game.reset();
    }

    /// The number of turns (moves and passes) played and not rolled back.
    #[getter]
    fn move_number(&self) -> usize {
        self.game.turns_played()
    }

    fn __str__(&self) -> String {
        render(self.game.board())
    }

    fn __repr__(&self) -> String {
        let board: &Board = self.game.board();
        format!(
            "<Go {}x{}, {} to move, {} turns played>",
            board.height(),
            board.width(),
            self.game.to_move(),
            self.game.turns_played()
        )
    }

    fn __getnewargs__(&self) -> (usize, usize) {
        (self.game.board().height(), self.game.board().width())
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        pickling::state(py, &self.game)
    }

    fn __setstate__(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.game = pickling::game_from_state(state)?;
        Ok(())
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
}

impl Go {
    pub(crate) fn game(&self) -> &Game {
        &self.game
    }
}
