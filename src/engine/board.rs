//! The board: stones, chains and liberties, kept incrementally.
//!
//! Layout (as in KataGo's `board.cpp`): a padded one-dimensional array with one wall column
//! shared between the right edge of a row and the left edge of the next, and a wall row above
//! and below, so the four neighbours of any point are `p - 1`, `p + 1`, `p - stride` and
//! `p + stride`, and its diagonals `p ± stride ± 1`, with no bounds test.
//!
//! Each chain is a circular linked list of its stones; its head holds the stone count and the
//! exact number of distinct liberties, which is all that captures, suicide and ko need.
//!
//! A board's arrays are sized to it: one of four capacities (128, 256, 512 or 1024 points,
//! the smallest that holds the padded board), each a separate monomorphized `SizedBoard`, so
//! that a 9x9 position is 1.8 KB, copied with one `memcpy`, and indexing needs no bounds
//! check. [`Board`] picks the capacity and forwards to it.
//!
//! Undo records are a few bytes: captured chains are refilled by flood fill from the recorded
//! directions, since a captured chain leaves an empty region bounded by the capturer's stones.

use std::sync::OnceLock;

use super::color::Color;
use super::error::{GoError, IllegalReason};
use super::playout::LightBoard;
use super::rng::Rng;
use sized::SizedBoard;

/// `for_each_neighbour!(board, p, |n| { ... })` runs the block for each of the four neighbours
/// of `p` (up, left, right, down), unrolled: array iterators over the neighbours were not, and
/// cost a quarter of a replayed move's instructions. `|n, i|` also names the neighbour's index.
macro_rules! for_each_neighbour {
    ($board:expr, $p:expr, |$n:ident| $body:block) => {
        for_each_neighbour!($board, $p, |$n, _i| $body)
    };
    ($board:expr, $p:expr, |$n:ident, $i:tt| $body:block) => {{
        let (p, s): (Point, Point) = ($p, $board.stride);
        {
            let ($n, $i) = (p - s, 0);
            $body
        }
        {
            let ($n, $i) = (p - 1, 1);
            $body
        }
        {
            let ($n, $i) = (p + 1, 2);
            $body
        }
        {
            let ($n, $i) = (p + s, 3);
            $body
        }
    }};
}

mod sized;
mod update;

/// The largest height or width of a board.
pub const MAX_SIDE: usize = 25;
const _: () = assert!(SizedBoard::<1024>::padded_len(MAX_SIDE, MAX_SIDE) <= 1024);

/// An index into the padded array. `0` is a wall, never a playable point, and stands for "no point".
pub type Point = u16;
const NO_POINT: Point = 0;

const EMPTY: u8 = 0;
const WALL: u8 = 3;

/// What `undo` needs to take back one move or pass: 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    point: Point,
    previous_ko_point: Point,
    color: Color,
    previous_ko_color: Color,
    /// Bit `i` set: the chain on the `i`th neighbour of `point` (up, left, right, down) was
    /// captured.
    captured_directions: u8,
}

impl MoveRecord {
    pub fn color(&self) -> Color {
        self.color
    }

    pub fn is_pass(&self) -> bool {
        self.point == NO_POINT
    }

    /// The point played (meaningless for a pass).
    pub fn point(&self) -> Point {
        self.point
    }

    /// The record of a move carried out against the rules ([`super::Game::play_regardless`]):
    /// it names the move, and cannot undo it (the game keeps the board as it was instead).
    pub(super) fn forced(point: Point, color: Color) -> MoveRecord {
        MoveRecord {
            point,
            previous_ko_point: NO_POINT,
            color,
            previous_ko_color: color,
            captured_directions: 0,
        }
    }
}

/// A board of any size from 1x1 to 25x25.
pub struct Board(Storage);

impl Clone for Board {
    fn clone(&self) -> Board {
        Board(self.0.clone())
    }

    /// Copies `source` into this board's memory when both have the same capacity (a scratch
    /// board for playouts, say): one `memcpy`, no allocation.
    fn clone_from(&mut self, source: &Board) {
        match (&mut self.0, &source.0) {
            (Storage::Up128(to), Storage::Up128(from)) => **to = **from,
            (Storage::Up256(to), Storage::Up256(from)) => **to = **from,
            (Storage::Up512(to), Storage::Up512(from)) => **to = **from,
            (Storage::Up1024(to), Storage::Up1024(from)) => **to = **from,
            _ => *self = source.clone(),
        }
    }
}

/// The board in the smallest capacity that holds it.
#[derive(Clone)]
enum Storage {
    Up128(Box<SizedBoard<128>>),
    Up256(Box<SizedBoard<256>>),
    Up512(Box<SizedBoard<512>>),
    Up1024(Box<SizedBoard<1024>>),
}

/// `each!(board, b => expression)`: the expression for whichever capacity `board` has.
macro_rules! each {
    ($sized:expr, $b:ident => $e:expr) => {
        match $sized {
            Storage::Up128($b) => $e,
            Storage::Up256($b) => $e,
            Storage::Up512($b) => $e,
            Storage::Up1024($b) => $e,
        }
    };
}

impl Board {
    /// An empty board of `height` rows and `width` columns, each 1 to 25.
    pub fn new(height: usize, width: usize) -> Result<Board, GoError> {
        if !(1..=MAX_SIDE).contains(&height) || !(1..=MAX_SIDE).contains(&width) {
            return Err(GoError::BoardSize {
                height: height as i64,
                width: width as i64,
            });
        }
        // Copying a ready empty board is half the work of laying one out (callgrind), and a
        // search makes games by the million.
        static EMPTY_BOARDS: [OnceLock<Board>; MAX_SIDE * MAX_SIDE] =
            [const { OnceLock::new() }; MAX_SIDE * MAX_SIDE];
        let empty =
            EMPTY_BOARDS[(height - 1) * MAX_SIDE + (width - 1)].get_or_init(|| Board::lay_out(height, width));
        Ok(empty.clone())
    }

    /// An empty board of a valid size, laid out point by point.
    fn lay_out(height: usize, width: usize) -> Board {
        let len = SizedBoard::<128>::padded_len(height, width);
        Board(if len <= 128 {
            Storage::Up128(SizedBoard::new_boxed(height, width))
        } else if len <= 256 {
            Storage::Up256(SizedBoard::new_boxed(height, width))
        } else if len <= 512 {
            Storage::Up512(SizedBoard::new_boxed(height, width))
        } else {
            Storage::Up1024(SizedBoard::new_boxed(height, width))
        })
    }

    /// Bytes of memory the board takes, its heap block included.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Board>() + each!(&self.0, b => std::mem::size_of_val(&**b))
    }

    pub fn height(&self) -> usize {
        each!(&self.0, b => b.height())
    }

    pub fn width(&self) -> usize {
        each!(&self.0, b => b.width())
    }

    /// The point at `row` (0 is the top row) and `col` (0 is the left column).
    #[inline]
    pub fn point(&self, row: usize, col: usize) -> Point {
        debug_assert!(row < self.height() && col < self.width());
        each!(&self.0, b => b.point(row, col))
    }

    /// The `(row, col)` of a point, inverse of [`Board::point`].
    #[inline]
    pub fn row_col(&self, p: Point) -> (usize, usize) {
        let (p, stride) = (p as usize, self.stride());
        (p / stride - 1, p % stride - 1)
    }

    fn stride(&self) -> usize {
        each!(&self.0, b => b.stride as usize)
    }

    /// Every point of the board, row by row from the top.
    pub fn points(&self) -> impl Iterator<Item = Point> + use<> {
        let (height, width, stride) = (self.height(), self.width(), self.stride());
        (0..height).flat_map(move |row| (0..width).map(move |col| ((row + 1) * stride + col + 1) as Point))
    }

    /// The stone on a point, `None` if it is empty.
    #[inline]
    pub fn stone(&self, p: Point) -> Option<Color> {
        match each!(&self.0, b => b.cell(p)) {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    #[inline]
    pub fn is_empty(&self, p: Point) -> bool {
        each!(&self.0, b => b.cell(p)) == EMPTY
    }

    pub fn stone_count(&self, color: Color) -> usize {
        each!(&self.0, b => b.stone_counts[color as usize]) as usize
    }

    /// The empty points, in no particular order.
    pub fn empty_points(&self) -> &[Point] {
        each!(&self.0, b => b.empty_points())
    }

    /// The number of distinct liberties of the chain through `p` (which must hold a stone).
    pub fn liberties(&self, p: Point) -> usize {
        each!(&self.0, b => b.liberties(p)) as usize
    }

    /// The stones of the chain through `p` (which must hold a stone).
    pub fn chain(&self, p: Point) -> Vec<Point> {
        each!(&self.0, b => b.chain(p))
    }

    /// The point where ko forbids `color` to play now, if any.
    pub fn ko_point(&self, color: Color) -> Option<Point> {
        let (point, ko_color) = each!(&self.0, b => (b.ko_point, b.ko_color));
        (point != NO_POINT && ko_color == color).then_some(point)
    }

    /// Why `color` may not play at `p`, or `None` when the move is legal. `p` must be on the board.
    #[inline]
    pub fn illegal_reason(&self, p: Point, color: Color) -> Option<IllegalReason> {
        each!(&self.0, b => b.illegal_reason(p, color))
    }

    /// Writes each point's state, row by row from the top, into `out` (one byte a point: 0
    /// empty, 1 black, 2 white). `out` must hold `height * width` bytes.
    pub fn write_cells(&self, out: &mut [u8]) {
        each!(&self.0, b => b.write_cells(out))
    }

    /// Writes 1 where `color` may play and 0 elsewhere, row by row from the top, into `out`,
    /// which must hold `height * width` bytes.
    pub fn write_legal_mask(&self, color: Color, out: &mut [u8]) {
        each!(&self.0, b => b.write_legal_mask(color, out))
    }

    /// The points where `color` may play, row by row from the top.
    pub fn legal_moves(&self, color: Color) -> impl Iterator<Item = Point> + '_ {
        self.points()
            .filter(move |&p| self.illegal_reason(p, color).is_none())
    }

    /// A uniformly random legal move of `color` that does not fill its own simple eye, or
    /// `None` if there is none. Candidates are drawn without replacement from the empty-point
    /// list, which only reorders it.
    #[inline]
    pub fn random_light_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        each!(&mut self.0, b => b.random_light_move(color, rng))
    }

    /// Whether the empty point `p` is a simple eye of `color`, as light playouts define it
    /// (libego, Pachi): every neighbour is a `color` stone or the edge, and it is not a false
    /// eye: at most one diagonal is an opponent stone, none if `p` is on the edge.
    #[inline]
    pub fn is_simple_eye(&self, p: Point, color: Color) -> bool {
        each!(&self.0, b => b.is_simple_eye(p, color))
    }

    /// Whether a legal stone of `color` on the empty point `p` would be in atari without
    /// capturing anything (a self-atari), told without playing it.
    #[inline]
    pub fn is_self_atari(&self, p: Point, color: Color) -> bool {
        each!(&self.0, b => b.is_self_atari(p, color))
    }

    /// The eight points around `p` (which must be on the board) in 16 bits, two a point
    /// (0 empty, 1 black, 2 white, 3 off the board), row by row from the top left: the key of
    /// a 3x3 pattern.
    #[inline]
    pub fn neighbourhood(&self, p: Point) -> u16 {
        each!(&self.0, b => b.neighbourhood(p))
    }

    /// The neighbours of `p` that are on the board.
    pub fn on_board_neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        each!(&self.0, b => b.neighbours(p))
            .into_iter()
            .filter(|&n| each!(&self.0, b => b.cell(n)) != WALL)
    }

    /// The four neighbours of `p` (up, left, right, down), walls included: a wall holds no
    /// stone and is not empty. For searches that look around a point without allocating.
    #[inline]
    pub fn neighbours(&self, p: Point) -> [Point; 4] {
        each!(&self.0, b => b.neighbours(p))
    }

    /// A liberty of the chain through `p` (which must hold a stone), `None` if it has none:
    /// with [`Board::liberties`] at 1, the point that captures the chain or saves it.
    pub fn a_liberty(&self, p: Point) -> Option<Point> {
        each!(&self.0, b => b.a_liberty(p))
    }

    /// The opponent stones a legal move of `color` at `p` would capture.
    pub fn captures(&self, p: Point, color: Color) -> Vec<Point> {
        each!(&self.0, b => b.captures(p, color))
    }

    /// Black's and white's area (indexed by colour): stones, and the empty regions that
    /// border only that colour.
    pub fn area(&self) -> [u32; 3] {
        each!(&self.0, b => b.area())
    }

    /// Plays a legal move of `color` at `p`, or returns why it is illegal and changes nothing.
    #[inline]
    pub fn play(&mut self, p: Point, color: Color) -> Result<MoveRecord, IllegalReason> {
        each!(&mut self.0, b => match b.illegal_reason(p, color) {
            Some(reason) => Err(reason),
            None => Ok(b.play_legal(p, color)),
        })
    }

    /// A pass by `color`: it only lifts any ko ban.
    pub fn pass(&mut self, color: Color) -> MoveRecord {
        each!(&mut self.0, b => b.pass(color))
    }

    /// Plays a move already known to be legal.
    #[inline]
    pub fn play_legal(&mut self, p: Point, color: Color) -> MoveRecord {
        debug_assert_eq!(self.illegal_reason(p, color), None);
        each!(&mut self.0, b => b.play_legal(p, color))
    }

    /// Takes back the move or pass that `record` describes; records must be undone newest first.
    pub fn undo(&mut self, record: MoveRecord) {
        each!(&mut self.0, b => b.undo(record))
    }

    /// Puts a stone on an empty point without any capture, for handicap stones and set-up
    /// positions. The caller must check the result has no chain without liberties.
    pub fn place_stone(&mut self, p: Point, color: Color) {
        debug_assert!(self.is_empty(p));
        each!(&mut self.0, b => b.place_stone(p, color))
    }

    /// Sets the ko ban: `color` may not play at `p` next.
    pub fn set_ko(&mut self, p: Point, color: Color) {
        each!(&mut self.0, b => b.set_ko(p, color))
    }

    /// A board holding `stones` (rows top first, `None` for empty), placed without captures.
    /// Fails if the size is out of range or the rows differ in length. A set-up position may
    /// hold a chain without liberties: callers report it with [`Board::chain_without_liberty`].
    pub fn with_stones(stones: &[Vec<Option<Color>>]) -> Result<Board, GoError> {
        let width = stones.first().map_or(0, Vec::len);
        let mut board = Board::new(stones.len(), width)?;
        for (row, cells) in stones.iter().enumerate() {
            if cells.len() != width {
                return Err(GoError::Position(format!(
                    "row {} (from the top) has {} points but the first row has {width}",
                    row + 1,
                    cells.len()
                )));
            }
            for (col, cell) in cells.iter().enumerate() {
                if let Some(color) = *cell {
                    board.place_stone(board.point(row, col), color);
                }
            }
        }
        Ok(board)
    }

    /// `(row, col)` of a stone whose chain has no liberty, if any (only a set-up position can
    /// have one).
    pub fn chain_without_liberty(&self) -> Option<(usize, usize)> {
        each!(&self.0, b => b.chain_without_liberty()).map(|p| self.row_col(p))
    }

    /// Runs light-playout moves on this board: [`super::playout::light_moves`], compiled for
    /// this board's capacity so that the loop pays for no dispatch.
    pub(super) fn light_moves(
        &mut self,
        to_move: Color,
        previous_was_pass: bool,
        max_moves: u32,
        rng: &mut Rng,
        stop: &mut (impl FnMut() -> bool + ?Sized),
    ) -> Option<u32> {
        each!(&mut self.0, b => super::playout::light_moves(
            &mut **b,
            to_move,
            previous_was_pass,
            max_moves,
            rng,
            stop
        ))
    }
}

impl<const N: usize> LightBoard for SizedBoard<N> {
    #[inline(always)]
    fn random_light_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        SizedBoard::random_light_move(self, color, rng)
    }

    #[inline(always)]
    fn play_legal(&mut self, p: Point, color: Color) {
        SizedBoard::play_legal(self, p, color);
    }

    #[inline(always)]
    fn pass(&mut self, color: Color) {
        SizedBoard::pass(self, color);
    }
}

#[cfg(test)]
mod tests;
