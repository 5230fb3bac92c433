//! A game as plain values, enough to rebuild it exactly: the position before the first turn on
//! record (with its ko ban) and every turn since. For saving, pickling and sending games.

use super::board::Board;
use super::color::Color;
use super::error::GoError;
use super::game::Game;

/// One turn: who played, where (`None` for a pass), who was to move before it (the same
/// colour unless the turn was played out of order with an explicit colour), and whether it
/// broke the rules, carried out as a game record said ([`Game::play_regardless`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnRecord {
    pub color: Color,
    pub point: Option<(usize, usize)>,
    pub previous_to_move: Color,
    pub forced: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The position before the first turn, row by row from the top.
    pub start: Vec<Vec<Option<Color>>>,
    pub start_to_move: Color,
    /// A ko ban in force at the start: `(row, col, colour banned)`.
    pub start_ko: Option<(usize, usize, Color)>,
    pub handicap_placed: bool,
    pub turns: Vec<TurnRecord>,
}

impl GameRecord {
    /// The game this record describes; an error if it describes no legal game.
    pub fn replay(&self) -> Result<Game, GoError> {
        let bad = |problem: String| GoError::Position(format!("game record: {problem}"));
        let mut board = Board::with_stones(&self.start).map_err(|e| bad(e.to_string()))?;
        if board.chain_without_liberty().is_some() {
            return Err(bad("the start position has a chain without liberties".into()));
        }
        let (height, width) = (board.height(), board.width());
        let on_board = |(row, col): (usize, usize)| {
            (row < height && col < width)
                .then_some((row, col))
                .ok_or_else(|| bad(format!("({row}, {col}) is off the board")))
        };
        if let Some((row, col, color)) = self.start_ko {
            let (row, col) = on_board((row, col))?;
            board.set_ko(board.point(row, col), color);
        }
        let mut game = Game::from_board(board, self.start_to_move);
        game.set_handicap_placed(self.handicap_placed);
        for (number, turn) in self.turns.iter().enumerate() {
            let bad_turn = |problem: String| bad(format!("turn {}: {problem}", number + 1));
            game.set_to_move(turn.previous_to_move);
            match turn.point {
                Some(point) if turn.forced => {
                    let (row, col) = on_board(point)?;
                    let p = game.board().point(row, col);
                    if !game.play_regardless(turn.color, p) {
                        return Err(bad_turn("marked as breaking the rules, but it is legal".into()));
                    }
                }
                Some(point) => {
                    let (row, col) = on_board(point)?;
                    let p = game.board().point(row, col);
                    game.play_as(turn.color, p).map_err(|e| bad_turn(e.to_string()))?;
                }
                None if turn.forced => return Err(bad_turn("a pass marked as breaking the rules".into())),
                None if turn.color == turn.previous_to_move => game.pass(),
                None => return Err(bad_turn("a pass out of turn".into())),
            }
        }
        Ok(game)
    }
}
