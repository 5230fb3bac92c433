//! A game: the board, whose turn it is, and the turns played, which can be rolled back.

use super::board::{Board, MoveRecord, Point};
use super::color::Color;
use super::coord;
use super::error::{GoError, IllegalReason};
use super::grid::{grid_of, place_regardless};
use super::handicap::handicap_points;
use super::playout::{playout_until, PlayoutResult};
use super::record::{GameRecord, TurnRecord};
use super::rng::Rng;

/// One turn on record: the board's undo record and who was to move before it.
#[derive(Clone, Copy, Debug)]
struct Turn {
    record: MoveRecord,
    previous_to_move: Color,
}

/// A turn the rules forbade, carried out as a game record said
/// ([`Game::play_regardless`]): its undo record cannot take it back, so the board as it was
/// before is kept.
#[derive(Clone)]
struct ForcedTurn {
    /// Its index in the history.
    turn: usize,
    before: Board,
}

/// A game under the kata's rules: black moves first, colours alternate (unless a move names its
/// colour), no suicide, simple ko, and handicap stones only at the start. Only a game read
/// from a record can hold turns that broke them ([`Game::play_regardless`]).
#[derive(Clone)]
pub struct Game {
    board: Board,
    to_move: Color,
    history: Vec<Turn>,
    handicap_placed: bool,
    /// The turns of `history` that broke the rules, in order.
    forced: Vec<ForcedTurn>,
}

impl Game {
    pub fn new(height: usize, width: usize) -> Result<Game, GoError> {
        Ok(Game::from_board(Board::new(height, width)?, Color::Black))
    }

    /// A game that starts from a set-up board, with `to_move` to play.
    pub fn from_board(board: Board, to_move: Color) -> Game {
        Game {
            board,
            to_move,
            history: Vec::new(),
            handicap_placed: false,
            forced: Vec::new(),
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// The number of turns (moves and passes) on record.
    pub fn turns_played(&self) -> usize {
        self.history.len()
    }

    /// Bytes of memory each recorded turn takes.
    pub const BYTES_PER_TURN: usize = std::mem::size_of::<Turn>();

    /// Bytes of memory the game takes outside its own struct: the board's block and the
    /// turns on record (as allocated).
    pub fn heap_bytes(&self) -> usize {
        self.board.memory_bytes() - std::mem::size_of::<Board>()
            + self.history.capacity() * Self::BYTES_PER_TURN
            + self.forced.capacity() * std::mem::size_of::<ForcedTurn>()
            + self
                .forced
                .iter()
                .map(|forced| forced.before.memory_bytes() - std::mem::size_of::<Board>())
                .sum::<usize>()
    }

    /// Bytes of memory the game takes in all.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Game>() + self.heap_bytes()
    }

    /// The side to move plays at `p`.
    #[inline]
    pub fn play(&mut self, p: Point) -> Result<(), GoError> {
        self.play_as(self.to_move, p)
    }

    /// `color` plays at `p`; afterwards the other colour is to move.
    #[inline]
    pub fn play_as(&mut self, color: Color, p: Point) -> Result<(), GoError> {
        match self.board.play(p, color) {
            Ok(record) => {
                self.push_turn(record);
                Ok(())
            }
            Err(reason) => Err(self.illegal_move(color, p, reason)),
        }
    }

    /// `color` plays at `p` even where the rules forbid it, as a game record may say; then the
    /// other colour is to move. Without the ko ban the move may be legal (a ko retaken): it is
    /// then played as usual. Else it is carried out as the SGF specification says: the stone
    /// placed (replacing one already there), the opponent's chains left without a liberty
    /// removed, then the mover's own chain if it has none. The turn is on record like any
    /// other, and rollback undoes it. Returns whether the rules forbade it.
    pub fn play_regardless(&mut self, color: Color, p: Point) -> bool {
        if self.board.illegal_reason(p, color).is_none() {
            self.play_as(color, p).expect("a legal move");
            return false;
        }
        let mut grid = grid_of(&self.board);
        let mut after = Board::with_stones(&grid).expect("a board's own stones");
        let record = after.play(p, color).unwrap_or_else(|_| {
            let (row, col) = self.board.row_col(p);
            place_regardless(&mut grid, row, col, color);
            after = Board::with_stones(&grid).expect("a board's own size");
            MoveRecord::forced(p, color)
        });
        let before = std::mem::replace(&mut self.board, after);
        self.forced.push(ForcedTurn {
            turn: self.history.len(),
            before,
        });
        self.push_turn(record);
        true
    }

    /// Whether turn `index` (from 0) of the history broke the rules.
    pub fn is_forced(&self, index: usize) -> bool {
        self.forced.iter().any(|forced| forced.turn == index)
    }

    /// Whether `color` may play at `p`, with the error `play_as` would give.
    pub fn check_move(&self, color: Color, p: Point) -> Result<(), GoError> {
        match self.board.illegal_reason(p, color) {
            None => Ok(()),
            Some(reason) => Err(self.illegal_move(color, p, reason)),
        }
    }

    fn illegal_move(&self, color: Color, p: Point, reason: IllegalReason) -> GoError {
        let (row, col) = self.board.row_col(p);
        GoError::IllegalMove {
            coord: coord::format(row, col, self.board.height()),
            color: color.name(),
            reason,
        }
    }

    /// Whether the last turn on record was a pass.
    pub fn last_turn_was_pass(&self) -> bool {
        self.history.last().is_some_and(|turn| turn.record.is_pass())
    }

    /// A light random playout from this position, on a copy: the game is not changed.
    pub fn playout(&self, max_moves: u32, komi: f64, rng: &mut Rng) -> PlayoutResult {
        self.playout_until(max_moves, komi, rng, &mut || false)
            .expect("never asked to stop")
    }

    /// [`Game::playout`], asking `stop` now and then whether to give up (see
    /// [`super::playout_until`]); `None` if it gave up.
    pub fn playout_until(
        &self,
        max_moves: u32,
        komi: f64,
        rng: &mut Rng,
        stop: &mut (impl FnMut() -> bool + ?Sized),
    ) -> Option<PlayoutResult> {
        self.playout_on(&mut self.board.clone(), max_moves, komi, rng, stop)
    }

    /// A playout on `scratch`, which is first made a copy of this position.
    pub(super) fn playout_on(
        &self,
        scratch: &mut Board,
        max_moves: u32,
        komi: f64,
        rng: &mut Rng,
        stop: &mut (impl FnMut() -> bool + ?Sized),
    ) -> Option<PlayoutResult> {
        scratch.clone_from(&self.board);
        playout_until(
            scratch,
            self.to_move,
            self.last_turn_was_pass(),
            max_moves,
            komi,
            rng,
            stop,
        )
    }

    /// The side to move passes.
    pub fn pass(&mut self) {
        self.pass_as(self.to_move);
    }

    /// `color` passes, in turn or not (GTP's `play white pass` after a white move); then the
    /// other colour is to move.
    pub fn pass_as(&mut self, color: Color) {
        let record = self.board.pass(color);
        self.push_turn(record);
    }

    fn push_turn(&mut self, record: MoveRecord) {
        self.history.push(Turn {
            record,
            previous_to_move: self.to_move,
        });
        self.to_move = record.color().opponent();
    }

    /// Places `stones` black handicap stones at the kata's points. Only on square 9x9, 13x13 and
    /// 19x19 boards, once, on an empty board before any turn is on record (so never on a
    /// set-up position with stones, where they could leave a chain without liberties). Not a
    /// turn: black is still to move.
    pub fn place_handicap(&mut self, stones: i64) -> Result<(), GoError> {
        let fail = |problem: String| GoError::Handicap { stones, problem };
        let (height, width) = (self.board.height(), self.board.width());
        let points = match handicap_points(height) {
            Some(points) if height == width => points,
            _ => {
                return Err(fail(format!(
                    "handicap is only for 9x9, 13x13 and 19x19 boards, not {height}x{width}"
                )))
            }
        };
        if stones < 1 || stones > points.len() as i64 {
            return Err(fail(format!(
                "a {height}x{width} board takes 1 to {} handicap stones",
                points.len()
            )));
        }
        if self.handicap_placed {
            return Err(fail("handicap stones were already placed".into()));
        }
        if !self.history.is_empty() {
            return Err(fail("the game has already started".into()));
        }
        if self.board.empty_points().len() != height * width {
            return Err(fail(
                "handicap stones go on an empty board, and this one has stones".into(),
            ));
        }
        // On an empty board, stones on distinct points that are never neighbours: each keeps
        // its four (or edge) liberties and the board stays valid.
        for text in &points[..stones as usize] {
            let (row, col) = coord::parse(text, height, width).expect("handicap points are on the board");
            let p = self.board.point(row, col);
            self.board.place_stone(p, Color::Black);
        }
        self.handicap_placed = true;
        Ok(())
    }

    /// Undoes the last `turns` turns. Fails, changing nothing, if fewer were played.
    pub fn rollback(&mut self, turns: i64) -> Result<(), GoError> {
        let played = self.history.len();
        if turns < 0 || turns as u64 > played as u64 {
            return Err(GoError::Rollback {
                requested: turns,
                problem: if turns < 0 {
                    "the number of turns must not be negative".into()
                } else {
                    format!(
                        "{played} turn{} on record",
                        if played == 1 { " is" } else { "s are" }
                    )
                },
            });
        }
        for _ in 0..turns {
            let turn = self.history.pop().expect("checked above");
            match self.forced.last() {
                Some(forced) if forced.turn == self.history.len() => {
                    self.board = self.forced.pop().expect("just seen").before;
                }
                _ => self.board.undo(turn.record),
            }
            self.to_move = turn.previous_to_move;
        }
        Ok(())
    }

    /// The game as plain values; [`GameRecord::replay`] rebuilds it exactly.
    pub fn record(&self) -> GameRecord {
        let mut start = self.clone();
        start
            .rollback(self.history.len() as i64)
            .expect("every turn can be undone");
        let board = &start.board;
        let cells = (0..board.height())
            .map(|row| {
                (0..board.width())
                    .map(|col| board.stone(board.point(row, col)))
                    .collect()
            })
            .collect();
        let start_ko = [Color::Black, Color::White].into_iter().find_map(|color| {
            let (row, col) = board.row_col(board.ko_point(color)?);
            Some((row, col, color))
        });
        let turns = self
            .history
            .iter()
            .enumerate()
            .map(|(index, turn)| TurnRecord {
                color: turn.record.color(),
                point: (!turn.record.is_pass()).then(|| self.board.row_col(turn.record.point())),
                previous_to_move: turn.previous_to_move,
                forced: self.is_forced(index),
            })
            .collect();
        GameRecord {
            start: cells,
            start_to_move: start.to_move,
            start_ko,
            handicap_placed: self.handicap_placed,
            turns,
        }
    }

    /// Makes `color` the side to move, without a turn on record (to ask a bot for a move of
    /// the side not to move).
    pub fn set_to_move(&mut self, color: Color) {
        self.to_move = color;
    }

    pub(super) fn set_handicap_placed(&mut self, placed: bool) {
        self.handicap_placed = placed;
    }

    /// Back to the empty board of the same size, black to move, no history.
    pub fn reset(&mut self) {
        let board = Board::new(self.board.height(), self.board.width()).expect("the size was valid");
        *self = Game::from_board(board, Color::Black);
    }
}
