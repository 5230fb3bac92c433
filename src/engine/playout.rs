//! Light random playouts: each move uniformly random among the legal moves that do not fill
//! the mover's own simple eye; a pass when none is left; the end at two passes in a row or at
//! a move cap.

use super::board::{Board, Point};
use super::color::Color;
use super::rng::Rng;
use super::score::{area_score, Score};

/// How a playout ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutResult {
    /// Moves and passes played.
    pub moves: u32,
    pub score: Score,
}

/// The default cap on a playout's length: three moves per point.
pub fn default_max_moves(board: &Board) -> u32 {
    3 * (board.height() * board.width()) as u32
}

/// How often, in moves, a playout asks whether to stop (see [`playout_until`]).
pub const STOP_CHECK_MOVES: u32 = 1024;

/// Plays a light playout on `board` (changed in place: pass a copy) with `to_move` first,
/// `previous_was_pass` saying whether the turn before it was a pass.
pub fn playout(
    board: &mut Board,
    to_move: Color,
    previous_was_pass: bool,
    max_moves: u32,
    komi: f64,
    rng: &mut Rng,
) -> PlayoutResult {
    playout_until(
        board,
        to_move,
        previous_was_pass,
        max_moves,
        komi,
        rng,
        &mut || false,
    )
    .expect("never asked to stop")
}

/// [`playout`], asking `stop` before the first move and every [`STOP_CHECK_MOVES`] moves
/// whether to give up (for a caller that must notice Ctrl-C however long the move cap):
/// `None` if it gave up, `board` then being part way through.
pub fn playout_until(
    board: &mut Board,
    to_move: Color,
    previous_was_pass: bool,
    max_moves: u32,
    komi: f64,
    rng: &mut Rng,
    stop: &mut (impl FnMut() -> bool + ?Sized),
) -> Option<PlayoutResult> {
    let moves = board.light_moves(to_move, previous_was_pass, max_moves, rng, stop)?;
    Some(PlayoutResult {
        moves,
        score: area_score(board, komi),
    })
}

/// What the playout loop needs of a board; implemented by each board capacity, so the loop
/// is compiled once per capacity with every call inlined.
pub(super) trait LightBoard {
    fn random_light_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point>;
    fn play_legal(&mut self, p: Point, color: Color);
    fn pass(&mut self, color: Color);
}

/// The moves of a playout (see [`playout_until`]): how many were played, or `None` if `stop`
/// said to give up.
#[inline(always)]
pub(super) fn light_moves(
    board: &mut impl LightBoard,
    mut to_move: Color,
    mut previous_was_pass: bool,
    max_moves: u32,
    rng: &mut Rng,
    stop: &mut (impl FnMut() -> bool + ?Sized),
) -> Option<u32> {
    let mut moves = 0;
    while moves < max_moves {
        if moves % STOP_CHECK_MOVES == 0 && stop() {
            return None;
        }
        moves += 1;
        match board.random_light_move(to_move, rng) {
            Some(p) => {
                board.play_legal(p, to_move);
                previous_was_pass = false;
            }
            None if previous_was_pass => break,
            None => {
                board.pass(to_move);
                previous_was_pass = true;
            }
        }
        to_move = to_move.opponent();
    }
    Some(moves)
}

/// What many playouts from one position came to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayoutSummary {
    pub playouts: u64,
    pub black_wins: u64,
    pub white_wins: u64,
    pub draws: u64,
    /// Sum over playouts of black's area minus white's, komi left out: an integer, so that
    /// sums of parts add up exactly, in any order.
    pub total_area_difference: i64,
    pub total_moves: u64,
}

impl PlayoutSummary {
    pub fn add(&mut self, result: &PlayoutResult) {
        self.playouts += 1;
        match result.score.winner() {
            Some(Color::Black) => self.black_wins += 1,
            Some(Color::White) => self.white_wins += 1,
            None => self.draws += 1,
        }
        self.total_area_difference += i64::from(result.score.black) - i64::from(result.score.white);
        self.total_moves += u64::from(result.moves);
    }

    /// Adds the playouts `other` summarises.
    pub fn merge(&mut self, other: &PlayoutSummary) {
        self.playouts += other.playouts;
        self.black_wins += other.black_wins;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.total_area_difference += other.total_area_difference;
        self.total_moves += other.total_moves;
    }

    /// Mean of black's area minus white's area and `komi` (0 without playouts).
    pub fn mean_margin(&self, komi: f64) -> f64 {
        if self.playouts == 0 {
            return 0.0;
        }
        self.total_area_difference as f64 / self.playouts as f64 - komi
    }

    /// Mean number of moves and passes per playout (0 without playouts).
    pub fn mean_moves(&self) -> f64 {
        if self.playouts == 0 {
            return 0.0;
        }
        self.total_moves as f64 / self.playouts as f64
    }
}
