//! The `Go` class.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::PyRuntimeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

use super::arguments::{
    color, optional_color, point, point_or_error, position_rows, whole_number, Komi, Size,
};
use super::batch::{self, legal_mask_bytes, score_dict};
use super::errors::to_py_err;
use super::info;
use super::names::point_names;
use super::pickling;
use gokata_engine::sgf::SgfRecord;
use gokata_engine::{
    area_score, coord, default_max_moves, game_from_position, playout_until, render, Color, Game, GoError,
    MAX_SIDE,
};

/// A game of Go under the kata's rules: black first, captures, no suicide, and ko: a move may
/// not recreate the position as it was before the last turn (a pass is a turn). Coordinates
/// are row number then column letter (`"7A"`; row 1 is the bottom row, there is no column I),
/// or `"A7"`, or a `(row, col)` tuple.
///
/// Threads: one `Go` may be shared. Every call reads its arguments first, then holds the
/// game's lock while it reads or changes the game (running no Python code meanwhile), so each
/// call is atomic: `move(*coords)` and `play_many` with a list or tuple play all their moves
/// under one hold; `play_many` with any other iterable holds it for one move at a time.
#[pyclass(module = "gokata", frozen)]
pub struct Go {
    /// The board size, kept outside the lock too, so that coordinates can be read without it.
    /// It changes only with the game, under the lock (`__setstate__`), and a call that read
    /// coordinates against it checks it again once it holds the lock ([`Go::lock_with`]).
    size: SharedSize,
    game: Mutex<Game>,
    /// What the game keeps of the SGF record it was read from, and the game information set on
    /// it. Locked after `game` when both are.
    sgf: Mutex<SgfRecord>,
}

/// A board size that can be read and changed through a shared reference: height and width
/// packed in one atomic, so that neither is ever read without the other.
struct SharedSize(AtomicU32);

impl SharedSize {
    fn new((height, width): Size) -> SharedSize {
        SharedSize(AtomicU32::new(Self::pack(height, width)))
    }

    fn pack(height: usize, width: usize) -> u32 {
        // Sides are at most MAX_SIDE (25): 16 bits each is plenty.
        ((height as u32) << 16) | width as u32
    }

    fn get(&self) -> Size {
        let packed = self.0.load(Ordering::Relaxed);
        ((packed >> 16) as usize, (packed & 0xFFFF) as usize)
    }

    fn set(&self, (height, width): Size) {
        self.0.store(Self::pack(height, width), Ordering::Relaxed);
    }
}

/// How many times a call reads its arguments again when the game changed size while it read
/// them, before it gives up (an argument that changes the game's size each time it is read
/// would have it try forever).
const READ_ATTEMPTS: usize = 16;

/// A positional argument that may be left out: unlike `Option`, an explicit `None` is
/// `Given(None)`, to be refused like any other bad value.
enum FirstArgument<'py> {
    Missing,
    Given(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for FirstArgument<'py> {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(FirstArgument::Given(value.to_owned()))
    }
}

/// A turn of `play_many`: a pass or a point `(row, col)`.
#[derive(Clone, Copy)]
enum Turn {
    Pass,
    Move(usize, usize),
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
        Ok(Go::with_game(game))
    }

    /// The board as rows of `'.'`, `'x'` (black), `'o'` (white), top row first. A new list each time.
    #[getter]
    fn board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        // Copied out first: building Python objects can run Python code, never under the lock.
        let mut cells = [0u8; MAX_SIDE * MAX_SIDE];
        let (height, width) = {
            let game = self.lock(py)?;
            let (height, width) = size_of(&game);
            let board = game.board();
            for row in 0..height {
                for col in 0..width {
                    cells[row * width + col] = board.stone(board.point(row, col)).map_or(0, |c| c as u8);
                }
            }
            (height, width)
        };
        let symbols = [intern!(py, "."), intern!(py, "x"), intern!(py, "o")];
        let rows = (0..height).map(|row| {
            PyList::new(
                py,
                cells[row * width..(row + 1) * width]
                    .iter()
                    .map(|&cell| symbols[cell as usize]),
            )
        });
        PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)
    }

    /// `{"height": h, "width": w}`.
    #[getter]
    fn size<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (height, width) = self.size.get();
        let dict = PyDict::new(py);
        dict.set_item(intern!(py, "height"), height)?;
        dict.set_item(intern!(py, "width"), width)?;
        Ok(dict)
    }

    /// `"black"` or `"white"`: the side to move.
    #[getter]
    fn turn<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyString>> {
        let to_move = self.lock(py)?.to_move();
        Ok(color_name(py, to_move))
    }

    /// Plays each coordinate in turn for the side to move. If one is illegal it raises, and the
    /// moves before it stay played.
    ///
    /// The first coordinate is a parameter of its own so that in the usual call, one
    /// coordinate, it is not packed into a new tuple (that was a tenth of the call's time): the
    /// extra arguments are then the shared empty tuple.
    #[pyo3(signature = (first = FirstArgument::Missing, /, *coords), text_signature = "($self, *coords)")]
    fn r#move(&self, py: Python<'_>, first: FirstArgument<'_>, coords: &Bound<'_, PyTuple>) -> PyResult<()> {
        let first = match first {
            FirstArgument::Missing => return Ok(()),
            FirstArgument::Given(first) => first,
        };
        if coords.is_empty() {
            let (mut game, (row, col)) = self.lock_with(py, |size| point(size, &first))?;
            let p = game.board().point(row, col);
            let played = game.play(p);
            drop(game);
            return played.map_err(to_py_err);
        }
        // Every coordinate is read first; they are played in order up to the first malformed
        // one, whose error is raised after the moves before it (as if read one by one).
        let read = |size| {
            let mut points = Vec::new();
            for coord in std::iter::once(first.clone()).chain(coords.iter()) {
                match point(size, &coord) {
                    Ok(row_col) => points.push(row_col),
                    Err(error) => return Ok((points, Some(error))),
                }
            }
            Ok((points, None))
        };
        let (mut game, (points, malformed)) = self.lock_with(py, read)?;
        for (row, col) in points {
            let p = game.board().point(row, col);
            if let Err(illegal) = game.play(p) {
                drop(game);
                return Err(to_py_err(illegal));
            }
        }
        drop(game);
        malformed.map_or(Ok(()), Err)
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
        let to_move = optional_color(turn)?.unwrap_or(Color::Black);
        let previous = previous.map(|p| position_rows(p, "previous")).transpose()?;
        let game = game_from_position(&rows, to_move, previous.as_deref()).map_err(to_py_err)?;
        Ok(Go::with_game(game))
    }

    /// `color` plays at `coord`, whoever's turn it is; then the other colour is to move.
    fn play(&self, py: Python<'_>, color: &Bound<'_, PyAny>, coord: &Bound<'_, PyAny>) -> PyResult<()> {
        let color = self::color(color)?;
        let (mut game, (row, col)) = self.lock_with(py, |size| point(size, coord))?;
        let p = game.board().point(row, col);
        let played = game.play_as(color, p);
        drop(game);
        played.map_err(to_py_err)
    }

    /// Whether `color` (default: the side to move) may play at `coord`. Off the board is `False`.
    #[pyo3(signature = (coord, color = None))]
    fn is_legal(
        &self,
        py: Python<'_>,
        coord: &Bound<'_, PyAny>,
        color: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        Ok(self.illegal_reason(py, coord, color)?.is_none())
    }

    /// Why `color` (default: the side to move) may not play at `coord`: `"occupied"`,
    /// `"suicide"`, `"ko"` or `"off-board"`; `None` when the move is legal.
    #[pyo3(signature = (coord, color = None))]
    fn illegal_reason(
        &self,
        py: Python<'_>,
        coord: &Bound<'_, PyAny>,
        color: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<&'static str>> {
        let color = optional_color(color)?;
        let (game, row_col) = self.lock_with(py, |size| point_or_error(size, coord))?;
        let Ok((row, col)) = row_col else {
            return Ok(Some("off-board"));
        };
        let color = color.unwrap_or(game.to_move());
        let board = game.board();
        Ok(board
            .illegal_reason(board.point(row, col), color)
            .map(|r| r.name()))
    }

    /// Every point where `color` (default: the side to move) may play, in the kata form, row by
    /// row from the top.
    #[pyo3(signature = (color = None))]
    fn legal_moves<'py>(
        &self,
        py: Python<'py>,
        color: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let color = optional_color(color)?;
        let (size, points): (Size, Vec<(usize, usize)>) = {
            let game = self.lock(py)?;
            let board = game.board();
            let color = color.unwrap_or(game.to_move());
            (
                size_of(&game),
                board.legal_moves(color).map(|p| board.row_col(p)).collect(),
            )
        };
        point_names(py, size, points)
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
        let color = optional_color(color)?;
        let (size, captured): (Size, Result<Vec<(usize, usize)>, GoError>) = {
            let (game, (row, col)) = self.lock_with(py, |size| point(size, coord))?;
            let board = game.board();
            let color = color.unwrap_or(game.to_move());
            let p = board.point(row, col);
            let captured = game.check_move(color, p).map(|()| {
                let mut captured: Vec<_> = board
                    .captures(p, color)
                    .into_iter()
                    .map(|q| board.row_col(q))
                    .collect();
                captured.sort_unstable();
                captured
            });
            (size_of(&game), captured)
        };
        point_names(py, size, captured.map_err(to_py_err)?)
    }

    /// Area score: stones plus empty regions touching only that colour (every stone counts as
    /// alive), `komi` added to white. `{"black", "white", "komi", "winner"}`.
    #[pyo3(signature = (komi = Komi(0.5)), text_signature = "($self, komi=0.5)")]
    fn score<'py>(&self, py: Python<'py>, komi: Komi) -> PyResult<Bound<'py, PyDict>> {
        let score = area_score(self.lock(py)?.board(), komi.0);
        score_dict(py, &score)
    }

    /// A light random playout from this position on a copy (the game is not changed): each
    /// move uniformly random among the legal moves that do not fill the mover's own simple eye,
    /// a pass when none is left, until two passes in a row or `max_moves` (default three per
    /// point). Returns the final position's score and `"moves"`, the turns played.
    #[pyo3(
        signature = (seed = None, max_moves = None, komi = Komi(0.5)),
        text_signature = "($self, seed=None, max_moves=None, komi=0.5)"
    )]
    fn playout<'py>(
        &self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
        max_moves: Option<&Bound<'py, PyAny>>,
        komi: Komi,
    ) -> PyResult<Bound<'py, PyDict>> {
        let komi = komi.0;
        let cap = batch::max_moves(max_moves)?;
        let mut rng = batch::rng(seed)?;
        // The board alone is copied (as the engine's playout would copy it anyway), then
        // played on without the lock.
        let (mut board, to_move, after_pass) = {
            let game = self.lock(py)?;
            (game.board().clone(), game.to_move(), game.last_turn_was_pass())
        };
        let cap = cap.unwrap_or_else(|| default_max_moves(&board));
        let result = batch::until_interrupted(true, |stop| {
            playout_until(&mut board, to_move, after_pass, cap, komi, &mut rng, stop)
        })?;
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
        let color = optional_color(color)?;
        let (size, flags) = {
            let game = self.lock(py)?;
            (
                size_of(&game),
                legal_mask_bytes(&game, color.unwrap_or(game.to_move())),
            )
        };
        let flags = pyo3::types::PyBytes::new(py, &flags);
        let Some(numpy) = batch::numpy(py)? else {
            return Ok(flags.into_any());
        };
        let array = numpy.call_method1(
            intern!(py, "frombuffer"),
            (flags, numpy.getattr(intern!(py, "bool_"))?),
        )?;
        array
            .call_method1(intern!(py, "reshape"), size)?
            .call_method0(intern!(py, "copy"))
    }

    /// Plays a sequence of coordinates (`None` or `"pass"` for a pass), colours alternating,
    /// and returns how many were played: fewer than given when one is illegal, which is then
    /// left unplayed with the game as it was before it. A malformed coordinate raises
    /// `ValueError`, the moves before it staying played.
    fn play_many(&self, py: Python<'_>, coords: &Bound<'_, PyAny>) -> PyResult<usize> {
        if coords.is_instance_of::<PyList>() || coords.is_instance_of::<PyTuple>() {
            // All read first, then played under one hold of the lock.
            let read = |size| {
                let mut turns = Vec::with_capacity(coords.len()?);
                for coord in coords.try_iter()? {
                    match turn_of(size, &coord?) {
                        Ok(turn) => turns.push(turn),
                        Err(error) => return Ok((turns, Some(error))),
                    }
                }
                Ok((turns, None))
            };
            let (mut game, (turns, malformed)) = self.lock_with(py, read)?;
            let played = play_turns(&mut game, &turns);
            drop(game);
            return match malformed {
                Some(error) if played == turns.len() => Err(error),
                _ => Ok(played),
            };
        }
        // Any other iterable may run Python code between items: one move at a time.
        let mut played = 0;
        for coord in coords.try_iter()? {
            let coord = coord?;
            let played_it = {
                let (mut game, turn) = self.lock_with(py, |size| turn_of(size, &coord))?;
                play_turns(&mut game, &[turn]) == 1
            };
            if !played_it {
                break;
            }
            played += 1;
        }
        Ok(played)
    }

    /// The side to move passes.
    fn pass_turn(&self, py: Python<'_>) -> PyResult<()> {
        self.lock(py)?.pass();
        Ok(())
    }

    /// Places `n` black handicap stones (9x9: up to 5; 13x13 and 19x19: up to 9) before the first turn.
    fn handicap_stones(&self, py: Python<'_>, n: &Bound<'_, PyAny>) -> PyResult<()> {
        let stones = whole_number(n, "n")?;
        let placed = self.lock(py)?.place_handicap(stones);
        placed.map_err(to_py_err)
    }

    /// `'x'`, `'o'` or `'.'` at a coordinate.
    fn get_position<'py>(
        &self,
        py: Python<'py>,
        coord: &Bound<'py, PyAny>,
    ) -> PyResult<&Bound<'py, PyString>> {
        let stone = {
            let (game, (row, col)) = self.lock_with(py, |size| point(size, coord))?;
            game.board().stone(game.board().point(row, col))
        };
        Ok(match stone {
            None => intern!(py, "."),
            Some(Color::Black) => intern!(py, "x"),
            Some(Color::White) => intern!(py, "o"),
        })
    }

    /// Undoes the last `n` turns (moves and passes).
    fn rollback(&self, py: Python<'_>, n: &Bound<'_, PyAny>) -> PyResult<()> {
        let turns = whole_number(n, "n")?;
        let rolled_back = self.lock(py)?.rollback(turns);
        rolled_back.map_err(to_py_err)
    }

    /// Back to an empty board of the same size, black to move, no history; the game
    /// information stays.
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        self.lock(py)?.reset();
        Ok(())
    }

    /// The number of turns (moves and passes) played and not rolled back.
    #[getter]
    fn move_number(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.lock(py)?.turns_played())
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(render(self.lock(py)?.board()))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let ((height, width), to_move, turns) = {
            let game = self.lock(py)?;
            (size_of(&game), game.to_move(), game.turns_played())
        };
        Ok(format!(
            "<Go {height}x{width}, {to_move} to move, {turns} turn{} played>",
            if turns == 1 { "" } else { "s" }
        ))
    }

    /// Pickling, for every protocol (0 and 1 included): `Go(height, width)`, then
    /// `__setstate__` with the game's record.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyType>, Size, Bound<'py, PyTuple>)> {
        let py = slf.py();
        // The size and the state under one hold, so that they are of the same game.
        let (game, sgf) = slf.get().snapshot(py)?;
        let state = pickling::state(py, &game.record(), &sgf)?;
        Ok((slf.get_type(), size_of(&game), state))
    }

    fn __getnewargs__(&self) -> Size {
        self.size.get()
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (game, sgf) = self.snapshot(py)?;
        pickling::state(py, &game.record(), &sgf)
    }

    /// Replaces the game with the one `state` describes, whatever its size: the board size,
    /// the position, the whole history and the game information become the state's. A
    /// malformed state raises `ValueError` and changes nothing.
    fn __setstate__(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let (record, sgf) = pickling::record_from_state(state)?;
        let game = pickling::replay(&record)?;
        let mut held = self.lock(py)?;
        *self.lock_sgf(py)? = sgf;
        self.size.set(size_of(&game));
        *held = game;
        Ok(())
    }

    /// A game from SGF (str or bytes): the main line of the file's first game, replayed with
    /// the engine's rules. `strict` raises `SgfError` (a `ValueError` with `line` and `column`)
    /// at the file's first problem; `strict=False` reads what can be read (see
    /// `read_sgf_collection` for the list of problems). The game keeps the record's root and
    /// main line properties (game information, comments, unknown ones) for `to_sgf`.
    #[staticmethod]
    #[pyo3(signature = (data, strict = true))]
    fn from_sgf(py: Python<'_>, data: &Bound<'_, PyAny>, strict: bool) -> PyResult<Self> {
        super::sgf::go_from_sgf(py, data, strict)
    }

    /// The game as SGF (FF[4]): its size, start position (handicap as `HA` and `AB`), whose
    /// turn, its game information, and every turn on record; `Go.from_sgf` reads it back to the
    /// same game (with `strict=False` if moves that broke the rules are on record). A game read
    /// from SGF writes the record's properties as read, its nodes as far as the game still
    /// follows them, then the turns played since.
    fn to_sgf(&self, py: Python<'_>) -> PyResult<String> {
        let (game, sgf) = self.snapshot(py)?;
        Ok(super::sgf::game_to_sgf(&game, &sgf))
    }

    /// `PB`: black's name. Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn black_player(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "PB")
    }

    #[setter]
    fn set_black_player(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "PB", "black_player", value)
    }

    /// `PW`: white's name. Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn white_player(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "PW")
    }

    #[setter]
    fn set_white_player(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "PW", "white_player", value)
    }

    /// `BR`: black's rank. Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn black_rank(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "BR")
    }

    #[setter]
    fn set_black_rank(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "BR", "black_rank", value)
    }

    /// `WR`: white's rank. Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn white_rank(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "WR")
    }

    #[setter]
    fn set_white_rank(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "WR", "white_rank", value)
    }

    /// `RE`: `"B+R"`, `"W+3.5"`, `"0"` (a draw)... Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn result(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "RE")
    }

    #[setter]
    fn set_result(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "RE", "result", value)
    }

    /// `DT`: `"YYYY-MM-DD"`... Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn date(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "DT")
    }

    #[setter]
    fn set_date(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "DT", "date", value)
    }

    /// `EV`: the event. Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn event(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "EV")
    }

    #[setter]
    fn set_event(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "EV", "event", value)
    }

    /// `GN`: the game's name. Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn game_name(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "GN")
    }

    #[setter]
    fn set_game_name(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "GN", "game_name", value)
    }

    /// `RU`: `"Japanese"`, `"Chinese"`... Set it (a str, or `None` to remove it) on any game: `to_sgf` writes it.
    #[getter]
    fn rules(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.info_text(py, "RU")
    }

    #[setter]
    fn set_rules(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_info_text(py, "RU", "rules", value)
    }

    /// `KM` as a number, `None` without one (or when the record's is not a number). Set it (a
    /// finite number, or `None` to remove it) on any game: `to_sgf` writes it. `score` and
    /// `playout` take their own `komi`.
    #[getter]
    fn komi(&self, py: Python<'_>) -> PyResult<Option<f64>> {
        Ok(self.lock_sgf(py)?.komi())
    }

    #[setter]
    fn set_komi(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let komi = info::komi(value)?;
        self.lock_sgf(py)?.set_komi(komi);
        Ok(())
    }

    /// The picture Jupyter shows: `gokata.svg(self)`.
    fn _repr_svg_(&self, py: Python<'_>) -> PyResult<String> {
        super::svg::default_svg(&self.position(py)?)
    }

    /// The object's bytes, the board's block and the turns on record included, so that
    /// `sys.getsizeof` tells what a game costs.
    fn __sizeof__(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let basic: usize = slf
            .get_type()
            .getattr(intern!(slf.py(), "__basicsize__"))?
            .extract()?;
        let heap = slf.get().lock(slf.py())?.heap_bytes();
        Ok(basic + heap)
    }

    fn __copy__(&self, py: Python<'_>) -> PyResult<Self> {
        let (game, sgf) = self.snapshot(py)?;
        Ok(Go::with_record(game, sgf))
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.__copy__(py)
    }
}

impl Go {
    pub(crate) fn with_game(game: Game) -> Go {
        Go::with_record(game, SgfRecord::default())
    }

    /// A game with what it keeps of an SGF record.
    pub(crate) fn with_record(game: Game, sgf: SgfRecord) -> Go {
        Go {
            size: SharedSize::new(size_of(&game)),
            game: Mutex::new(game),
            sgf: Mutex::new(sgf),
        }
    }

    /// The game, held until the guard is dropped. Waiting for it detaches from Python, so the
    /// thread holding it (which runs no Python code meanwhile) can always finish.
    pub(crate) fn lock(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, Game>> {
        self.game.lock_py_attached(py).map_err(|_| {
            PyRuntimeError::new_err(
                "this game is unusable: an internal error (a panic) interrupted a call on it",
            )
        })
    }

    /// The game under its lock, with arguments that `read` read against its size first (not
    /// under the lock: reading may run Python code). If the game changed size meanwhile
    /// (`__setstate__` in another thread, or in the arguments' own code), they are read again,
    /// against the new size, as if the call had come after the change.
    pub(crate) fn lock_with<A>(
        &self,
        py: Python<'_>,
        mut read: impl FnMut(Size) -> PyResult<A>,
    ) -> PyResult<(MutexGuard<'_, Game>, A)> {
        for _ in 0..READ_ATTEMPTS {
            let size = self.size.get();
            let arguments = read(size)?;
            let game = self.lock(py)?;
            if size_of(&game) == size {
                return Ok((game, arguments));
            }
        }
        Err(PyRuntimeError::new_err(
            "the game changed size each time this call read its arguments",
        ))
    }

    /// A copy of the game, to work on without the lock.
    pub(crate) fn position(&self, py: Python<'_>) -> PyResult<Game> {
        Ok(self.lock(py)?.clone())
    }

    /// What the game keeps of its SGF record, held until the guard is dropped (as [`Go::lock`]).
    fn lock_sgf(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, SgfRecord>> {
        self.sgf.lock_py_attached(py).map_err(|_| {
            PyRuntimeError::new_err(
                "this game is unusable: an internal error (a panic) interrupted a call on it",
            )
        })
    }

    /// Copies of the game and of its SGF record, taken together.
    pub(crate) fn snapshot(&self, py: Python<'_>) -> PyResult<(Game, SgfRecord)> {
        let game = self.lock(py)?;
        let sgf = self.lock_sgf(py)?.clone();
        Ok((game.clone(), sgf))
    }

    fn info_text(&self, py: Python<'_>, ident: &str) -> PyResult<Option<String>> {
        Ok(self.lock_sgf(py)?.text(ident))
    }

    fn set_info_text(
        &self,
        py: Python<'_>,
        ident: &str,
        name: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let text = info::text(value, name)?;
        self.lock_sgf(py)?.set_text(ident, text.as_deref());
        Ok(())
    }
}

/// A `play_many` item on a board of `size`: `None` or `"pass"` (any case) for a pass, else a
/// coordinate.
fn turn_of(size: Size, coord: &Bound<'_, PyAny>) -> PyResult<Turn> {
    if coord.is_none() {
        return Ok(Turn::Pass);
    }
    // A str is read once, for "pass" and the coordinate alike: this is play_many's loop.
    if let Ok(text) = coord.cast::<PyString>() {
        let text = text.to_str()?;
        if text.eq_ignore_ascii_case("pass") {
            return Ok(Turn::Pass);
        }
        let (row, col) = coord::parse(text, size.0, size.1).map_err(to_py_err)?;
        return Ok(Turn::Move(row, col));
    }
    let (row, col) = point(size, coord)?;
    Ok(Turn::Move(row, col))
}

/// `(height, width)` of a game's board.
fn size_of(game: &Game) -> Size {
    (game.board().height(), game.board().width())
}

/// Plays `turns` in order until one is illegal; how many were played.
fn play_turns(game: &mut Game, turns: &[Turn]) -> usize {
    for (played, &turn) in turns.iter().enumerate() {
        match turn {
            Turn::Pass => game.pass(),
            Turn::Move(row, col) => {
                let p = game.board().point(row, col);
                if game.play(p).is_err() {
                    return played;
                }
            }
        }
    }
    turns.len()
}

fn color_name(py: Python<'_>, color: Color) -> &Bound<'_, PyString> {
    match color {
        Color::Black => intern!(py, "black"),
        Color::White => intern!(py, "white"),
    }
}
