//! Positions set up from text: rows of characters, top row first.

use super::board::{Board, Point, MAX_SIDE};
use super::color::Color;
use super::coord;
use super::error::GoError;
use super::game::Game;

/// The characters a position may use.
pub const ALPHABET_HELP: &str =
    "'.', '-' or '+' for empty, 'x', 'X', 'B', 'b' or '#' for black, 'o', 'O', 'W' or 'w' for white";

fn read_cell(ch: char) -> Option<Option<Color>> {
    match ch {
        '.' | '-' | '+' => Some(None),
        'x' | 'X' | 'B' | 'b' | '#' => Some(Some(Color::Black)),
        'o' | 'O' | 'W' | 'w' => Some(Some(Color::White)),
        _ => None,
    }
}

/// A board from rows of characters. Rejects sizes out of range, ragged rows, unknown
/// characters and chains without liberties, saying what and where.
pub fn parse_board(rows: &[Vec<char>]) -> Result<Board, GoError> {
    let height = check_shape(rows)?;
    let stones = rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(|(c, &ch)| read_cell(ch).ok_or_else(|| unknown_character(ch, r, c, height)))
                .collect()
        })
        .collect::<Result<Vec<Vec<_>>, _>>()?;
    let board = Board::with_stones(&stones)?;
    if let Some((r, c)) = board.chain_without_liberty() {
        let color = board.stone(board.point(r, c)).expect("a stone");
        return Err(GoError::Position(format!(
            "the {color} chain at {} has no liberty",
            coord::format(r, c, height)
        )));
    }
    Ok(board)
}

/// The height of rows that make a board: 1 to 25 rows, all of the first row's 1 to 25 points.
/// Checked before any character is read, so that every character is at a point of the board,
/// which has a name.
fn check_shape(rows: &[Vec<char>]) -> Result<usize, GoError> {
    let height = rows.len();
    let width = rows.first().map_or(0, Vec::len);
    if !(1..=MAX_SIDE).contains(&height) || !(1..=MAX_SIDE).contains(&width) {
        return Err(GoError::Position(format!(
            "a position has 1 to 25 rows of 1 to 25 points, not {height} rows of {width}"
        )));
    }
    match rows.iter().position(|row| row.len() != width) {
        Some(r) => Err(GoError::Position(format!(
            "row {} (from the top) has {} points but the first row has {width}",
            r + 1,
            rows[r].len()
        ))),
        None => Ok(height),
    }
}

/// The error for a character that is no point's, at `(r, c)` of a board of `height` rows.
fn unknown_character(ch: char, r: usize, c: usize, height: usize) -> GoError {
    GoError::Position(format!(
        "unknown character {ch:?} at {} (row {} from the top, column {}); use {ALPHABET_HELP}",
        coord::format(r, c, height),
        r + 1,
        c + 1
    ))
}

/// A game from a position with `to_move` to play. `previous`, the position before the last
/// move, makes ko checkable from the first move.
pub fn game_from_position(
    rows: &[Vec<char>],
    to_move: Color,
    previous: Option<&[Vec<char>]>,
) -> Result<Game, GoError> {
    let mut board = parse_board(rows)?;
    if let Some(previous) = previous {
        let previous = parse_board(previous).map_err(|e| match e {
            GoError::Position(problem) => GoError::Position(format!("previous position: {problem}")),
            other => other,
        })?;
        if (previous.height(), previous.width()) != (board.height(), board.width()) {
            return Err(GoError::Position(format!(
                "the previous position is {}x{} but the position is {}x{}",
                previous.height(),
                previous.width(),
                board.height(),
                board.width()
            )));
        }
        // At most one colour can recreate `previous` (it has one more stone of that colour
        // than the position, where the position is empty); usually the side to move.
        for color in [to_move, to_move.opponent()] {
            if let Some(p) = move_repeating(&board, &previous, color) {
                board.set_ko(p, color);
                break;
            }
        }
    }
    Ok(Game::from_board(board, to_move))
}

/// The one move of `color`, if any, whose result would equal `previous`: the point where
/// `previous` has a `color` stone and `board` is empty, such that playing it captures exactly
/// the stones `board` has and `previous` lacks.
fn move_repeating(board: &Board, previous: &Board, color: Color) -> Option<Point> {
    let mut candidate = None;
    for p in board.points() {
        match (previous.stone(p), board.stone(p)) {
            (before, now) if before == now => {}
            (Some(before), None) if before == color && candidate.is_none() => candidate = Some(p),
            (None, Some(now)) if now == color.opponent() => {}
            _ => return None,
        }
    }
    let p = candidate?;
    let mut trial = board.clone();
    trial.play(p, color).ok()?;
    let repeats = trial.points().all(|q| trial.stone(q) == previous.stone(q));
    repeats.then_some(p)
}
