//! The board: stones, chains and liberties, kept incrementally.
//!
//! Layout (as in KataGo's `board.cpp`): a padded one-dimensional array with one wall column
//! shared between the right edge of a row and the left edge of the next, and a wall row above
//! and below, so the four neighbours of any point are `p - 1`, `p + 1`, `p - stride` and
//! `p + stride`, and its diagonals `p ± stride ± 1`, with no bounds test.
//!
//! Each chain is a circular linked list of its stones with a head. The head holds the stone
//! count and the chain's pseudo-liberties (libego's scheme): an empty point next to `k` of the
//! chain's stones counts `k` times, in a count `L`, a sum `S` of the points and a sum `Q` of
//! their squares. The chain has no liberty iff `L == 0`, and exactly one distinct liberty iff
//! `L * Q == S * S` (equality in Cauchy-Schwarz: all the counted points are the same), which is
//! all that captures, suicide and ko need. Playing a stone or merging chains is then a few
//! additions, with no search for shared liberties.
//!
//! Undo records are a few bytes: captured chains are refilled by flood fill from the recorded
//! directions, since a captured chain leaves an empty region bounded by the capturer's stones.

use super::color::Color;
use super::error::{GoError, IllegalReason};
use super::rng::Rng;

/// The largest height or width of a board.
pub const MAX_SIDE: usize = 25;
const MAX_STRIDE: usize = MAX_SIDE + 1;
/// Arrays are a power of two longer than the padded board needs, (25 + 2) * 26 + 1 = 703, so
/// that indexing with `p & (ARRAY_LEN - 1)` needs no bounds check: see [`ix`].
const ARRAY_LEN: usize = 1024;
const _: () = assert!((MAX_SIDE + 2) * MAX_STRIDE < ARRAY_LEN);
const MAX_POINTS: usize = MAX_SIDE * MAX_SIDE;

/// An index into the padded array. `0` is a wall, never a playable point, and stands for "no point".
pub type Point = u16;
const NO_POINT: Point = 0;

const EMPTY: u8 = 0;
const WALL: u8 = 3;

/// The array index of a point. Masking is the identity for every real point and lets the
/// compiler drop bounds checks on the hot path.
#[inline(always)]
fn ix(p: Point) -> usize {
    p as usize & (ARRAY_LEN - 1)
}

/// Where ko forbids a move, and for whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ko {
    point: Point,
    color: Color,
}

/// What `undo` needs to take back one move or pass: 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    point: Point,
    previous_ko_point: Point,
    color: Color,
    previous_ko_color: Color,
    /// Bit `i` set: the chain at `point + neighbour_offsets()[i]` was captured.
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
}

pub struct Board {
    height: usize,
    width: usize,
    stride: usize,
    cells: [u8; ARRAY_LEN],
    chain_head: [Point; ARRAY_LEN],
    next_stone: [Point; ARRAY_LEN],
    /// Stones in the chain, valid at chain heads.
    chain_stones: [u16; ARRAY_LEN],
    /// Pseudo-liberties of the chain, valid at chain heads: count, sum and sum of squares.
    /// The sums fit in u32: at most 2500 pseudo-liberties, each below 1024.
    liberty_count: [u16; ARRAY_LEN],
    liberty_sum: [u32; ARRAY_LEN],
    liberty_sum_of_squares: [u32; ARRAY_LEN],
    empty_points: [Point; MAX_POINTS],
    empty_count: usize,
    /// Position of each empty point in `empty_points`.
    empty_slot: [u16; ARRAY_LEN],
    ko: Option<Ko>,
    stone_counts: [u16; 3],
}

impl Clone for Board {
    fn clone(&self) -> Board {
        let mut board = Board::new(self.height, self.width).expect("a valid size");
        board.clone_from(self);
        board
    }

    /// Copies only the part of each array that boards of `source`'s size use: a 9x9 board
    /// is about a tenth of the arrays, so playouts can reuse one scratch board cheaply.
    fn clone_from(&mut self, source: &Board) {
        let used = (source.height + 2) * source.stride + 1;
        let points = source.height * source.width;
        self.height = source.height;
        self.width = source.width;
        self.stride = source.stride;
        self.cells[..used].copy_from_slice(&source.cells[..used]);
        self.chain_head[..used].copy_from_slice(&source.chain_head[..used]);
        self.next_stone[..used].copy_from_slice(&source.next_stone[..used]);
        self.chain_stones[..used].copy_from_slice(&source.chain_stones[..used]);
        self.liberty_count[..used].copy_from_slice(&source.liberty_count[..used]);
        self.liberty_sum[..used].copy_from_slice(&source.liberty_sum[..used]);
        self.liberty_sum_of_squares[..used].copy_from_slice(&source.liberty_sum_of_squares[..used]);
        self.empty_points[..points].copy_from_slice(&source.empty_points[..points]);
        self.empty_slot[..used].copy_from_slice(&source.empty_slot[..used]);
        self.empty_count = source.empty_count;
        self.ko = source.ko;
        self.stone_counts = source.stone_counts;
    }
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
        let mut board = Board {
            height,
            width,
            stride: width + 1,
            cells: [WALL; ARRAY_LEN],
            chain_head: [NO_POINT; ARRAY_LEN],
            next_stone: [NO_POINT; ARRAY_LEN],
            chain_stones: [0; ARRAY_LEN],
            liberty_count: [0; ARRAY_LEN],
            liberty_sum: [0; ARRAY_LEN],
            liberty_sum_of_squares: [0; ARRAY_LEN],
            empty_points: [NO_POINT; MAX_POINTS],
            empty_count: 0,
            empty_slot: [0; ARRAY_LEN],
            ko: None,
            stone_counts: [0; 3],
        };
        for row in 0..height {
            for col in 0..width {
                let p = board.point(row, col);
                board.cells[ix(p)] = EMPTY;
                board.add_empty(p);
            }
        }
        Ok(board)
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// The point at `row` (0 is the top row) and `col` (0 is the left column).
    #[inline]
    pub fn point(&self, row: usize, col: usize) -> Point {
        debug_assert!(row < self.height && col < self.width);
        ((row + 1) * self.stride + col + 1) as Point
    }

    /// The `(row, col)` of a point, inverse of [`Board::point`].
    #[inline]
    pub fn row_col(&self, p: Point) -> (usize, usize) {
        let p = p as usize;
        (p / self.stride - 1, p % self.stride - 1)
    }

    /// Every point of the board, row by row from the top.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        (0..self.height).flat_map(move |row| (0..self.width).map(move |col| self.point(row, col)))
    }

    /// The stone on a point, `None` if it is empty.
    #[inline]
    pub fn stone(&self, p: Point) -> Option<Color> {
        match self.cells[ix(p)] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    #[inline]
    pub fn is_empty(&self, p: Point) -> bool {
        self.cells[ix(p)] == EMPTY
    }

    pub fn stone_count(&self, color: Color) -> usize {
        self.stone_counts[color as usize] as usize
    }

    /// The empty points, in no particular order.
    pub fn empty_points(&self) -> &[Point] {
        &self.empty_points[..self.empty_count]
    }

    /// The number of distinct liberties of the chain through `p` (which must hold a stone).
    /// Counted afresh: the hot path needs only "none" and "exactly one".
    pub fn liberties(&self, p: Point) -> usize {
        let mut counted = [false; ARRAY_LEN];
        let mut liberties = 0;
        for s in self.chain(p) {
            for n in self.neighbours(s) {
                if self.is_empty(n) && !counted[ix(n)] {
                    counted[ix(n)] = true;
                    liberties += 1;
                }
            }
        }
        liberties
    }

    /// The stones of the chain through `p` (which must hold a stone).
    pub fn chain(&self, p: Point) -> Vec<Point> {
        let mut stones = Vec::new();
        let mut s = p;
        loop {
            stones.push(s);
            s = self.next_stone[ix(s)];
            if s == p {
                return stones;
            }
        }
    }

    /// The point where ko forbids `color` to play now, if any.
    pub fn ko_point(&self, color: Color) -> Option<Point> {
        self.ko.filter(|ko| ko.color == color).map(|ko| ko.point)
    }

    #[inline(always)]
    fn neighbours(&self, p: Point) -> [Point; 4] {
        let s = self.stride as Point;
        [p - s, p - 1, p + 1, p + s]
    }

    #[inline(always)]
    fn head(&self, p: Point) -> Point {
        self.chain_head[ix(p)]
    }

    #[inline(always)]
    fn same_chain(&self, a: Point, b: Point) -> bool {
        self.head(a) == self.head(b)
    }

    /// Whether the chain with head `head` has exactly one distinct liberty (or none).
    #[inline(always)]
    fn in_atari(&self, head: Point) -> bool {
        let h = ix(head);
        let count = u64::from(self.liberty_count[h]);
        let sum = u64::from(self.liberty_sum[h]);
        count * u64::from(self.liberty_sum_of_squares[h]) == sum * sum
    }

    #[inline(always)]
    fn has_no_liberty(&self, head: Point) -> bool {
        self.liberty_count[ix(head)] == 0
    }

    /// Counts `liberty` once more as a pseudo-liberty of the chain with head `head`.
    #[inline(always)]
    fn add_pseudo_liberty(&mut self, head: Point, liberty: Point) {
        let (h, l) = (ix(head), u32::from(liberty));
        self.liberty_count[h] += 1;
        self.liberty_sum[h] += l;
        self.liberty_sum_of_squares[h] += l * l;
    }

    #[inline(always)]
    fn remove_pseudo_liberty(&mut self, head: Point, liberty: Point) {
        let (h, l) = (ix(head), u32::from(liberty));
        self.liberty_count[h] -= 1;
        self.liberty_sum[h] -= l;
        self.liberty_sum_of_squares[h] -= l * l;
    }

    /// Why `color` may not play at `p`, or `None` when the move is legal. `p` must be on the board.
    #[inline]
    pub fn illegal_reason(&self, p: Point, color: Color) -> Option<IllegalReason> {
        if !self.is_empty(p) {
            Some(IllegalReason::Occupied)
        } else if self.ko == Some(Ko { point: p, color }) {
            Some(IllegalReason::Ko)
        } else if self.is_suicide(p, color) {
            Some(IllegalReason::Suicide)
        } else {
            None
        }
    }

    /// Whether a stone of `color` on the empty point `p` would be left without a liberty.
    #[inline]
    fn is_suicide(&self, p: Point, color: Color) -> bool {
        let own = color as u8;
        for n in self.neighbours(p) {
            let cell = self.cells[ix(n)];
            if cell == EMPTY {
                return false;
            }
            if cell == WALL {
                continue;
            }
            // `p` is a liberty of every neighbouring chain, so "in atari" means `p` is its last
            // one: an own chain not in atari keeps a liberty, an opponent chain in atari is taken.
            if (cell == own) != self.in_atari(self.head(n)) {
                return false;
            }
        }
        true
    }

    /// The points where `color` may play, row by row from the top.
    pub fn legal_moves(&self, color: Color) -> impl Iterator<Item = Point> + '_ {
        self.points()
            .filter(move |&p| self.is_empty(p) && self.illegal_reason(p, color).is_none())
    }

    /// A uniformly random legal move of `color` that does not fill its own simple eye, or
    /// `None` if there is none. Candidates are drawn without replacement from the empty-point
    /// list, which only reorders it.
    #[inline]
    pub fn random_light_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        let mut candidates = self.empty_count;
        while candidates > 0 {
            let i = rng.below(candidates);
            let p = self.empty_points[i];
            if !self.is_simple_eye(p, color) && self.illegal_reason(p, color).is_none() {
                return Some(p);
            }
            candidates -= 1;
            self.swap_empty_slots(i, candidates);
        }
        None
    }

    /// Whether the empty point `p` is a simple eye of `color`, as light playouts define it
    /// (libego, Pachi): every neighbour is a `color` stone or the edge, and it is not a false
    /// eye: at most one diagonal is an opponent stone, none if `p` is on the edge.
    #[inline]
    pub fn is_simple_eye(&self, p: Point, color: Color) -> bool {
        let own = color as u8;
        if !self
            .neighbours(p)
            .iter()
            .all(|&n| self.cells[ix(n)] == own || self.cells[ix(n)] == WALL)
        {
            return false;
        }
        let s = self.stride as Point;
        let opponent = color.opponent() as u8;
        let (mut opponents, mut on_edge) = (0, 0);
        for d in [p - s - 1, p - s + 1, p + s - 1, p + s + 1] {
            let cell = self.cells[ix(d)];
            opponents += u8::from(cell == opponent);
            on_edge |= u8::from(cell == WALL);
        }
        opponents + on_edge < 2
    }

    /// The neighbours of `p` that are on the board.
    pub fn on_board_neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        self.neighbours(p)
            .into_iter()
            .filter(|&n| self.cells[ix(n)] != WALL)
    }

    /// The opponent stones a legal move of `color` at `p` would capture.
    pub fn captures(&self, p: Point, color: Color) -> Vec<Point> {
        let opponent = color.opponent() as u8;
        let mut captured = Vec::new();
        let neighbours = self.neighbours(p);
        for (i, &n) in neighbours.iter().enumerate() {
            if self.cells[ix(n)] == opponent
                && self.in_atari(self.head(n))
                && !neighbours[..i]
                    .iter()
                    .any(|&m| self.cells[ix(m)] == opponent && self.same_chain(m, n))
            {
                captured.extend(self.chain(n));
            }
        }
        captured
    }

    /// Plays a legal move of `color` at `p`, or returns why it is illegal and changes nothing.
    #[inline]
    pub fn play(&mut self, p: Point, color: Color) -> Result<MoveRecord, IllegalReason> {
        match self.illegal_reason(p, color) {
            Some(reason) => Err(reason),
            None => Ok(self.play_legal(p, color)),
        }
    }

    /// A pass by `color`: it only lifts any ko ban.
    pub fn pass(&mut self, color: Color) -> MoveRecord {
        let record = self.record(NO_POINT, color);
        self.ko = None;
        record
    }

    fn record(&self, point: Point, color: Color) -> MoveRecord {
        let (previous_ko_point, previous_ko_color) = match self.ko {
            Some(ko) => (ko.point, ko.color),
            None => (NO_POINT, Color::Black),
        };
        MoveRecord {
            point,
            previous_ko_point,
            color,
            previous_ko_color,
            captured_directions: 0,
        }
    }

    /// Plays a move already known to be legal.
    pub fn play_legal(&mut self, p: Point, color: Color) -> MoveRecord {
        debug_assert_eq!(self.illegal_reason(p, color), None);
        let mut record = self.record(p, color);
        let own = color as u8;
        let opponent = color.opponent() as u8;

        self.put_stone(p, color);
        let neighbours = self.neighbours(p);
        let mut captured_stones = 0;
        let mut captured_at = NO_POINT;
        for (i, &n) in neighbours.iter().enumerate() {
            let cell = self.cells[ix(n)];
            if cell == own {
                if !self.same_chain(n, p) {
                    self.merge_chains(n, p);
                }
            } else if cell == opponent && self.has_no_liberty(self.head(n)) {
                captured_stones += self.remove_chain(n);
                captured_at = n;
                record.captured_directions |= 1 << i;
            }
        }

        // A single stone that took a single stone and has one liberty left can be retaken
        // at once, which would repeat the position: that retake is the ko.
        let head = self.head(p);
        self.ko =
            (captured_stones == 1 && self.chain_stones[ix(head)] == 1 && self.liberty_count[ix(head)] == 1)
                .then_some(Ko {
                    point: captured_at,
                    color: color.opponent(),
                });
        record
    }

    /// Takes back the move or pass that `record` describes; records must be undone newest first.
    pub fn undo(&mut self, record: MoveRecord) {
        self.ko = (record.previous_ko_point != NO_POINT).then_some(Ko {
            point: record.previous_ko_point,
            color: record.previous_ko_color,
        });
        let p = record.point;
        if p == NO_POINT {
            return;
        }
        let color = record.color;
        let neighbours = self.neighbours(p);
        for (i, &n) in neighbours.iter().enumerate() {
            if record.captured_directions & (1 << i) != 0 && self.is_empty(n) {
                self.refill_captured_chain(n, color.opponent());
            }
        }

        let old_head = self.head(p);
        let was_alone = self.chain_stones[ix(old_head)] == 1;
        self.remove_stone(p);
        for n in neighbours {
            if self.cells[ix(n)] == color.opponent() as u8 {
                self.add_pseudo_liberty(self.head(n), p);
            }
        }
        if was_alone {
            return;
        }
        // The stone joined chains together: rebuild what is left of them from scratch.
        for n in neighbours {
            if self.cells[ix(n)] == color as u8 && self.head(n) == old_head {
                self.rebuild_chain(n, old_head);
            }
        }
    }

    /// Puts a stone on an empty point without any capture, for handicap stones and set-up
    /// positions. The caller must check the result has no chain without liberties.
    pub fn place_stone(&mut self, p: Point, color: Color) {
        debug_assert!(self.is_empty(p));
        self.put_stone(p, color);
        for n in self.neighbours(p) {
            if self.cells[ix(n)] == color as u8 && !self.same_chain(n, p) {
                self.merge_chains(n, p);
            }
        }
    }

    /// Sets the ko ban: `color` may not play at `p` next.
    pub fn set_ko(&mut self, p: Point, color: Color) {
        self.ko = Some(Ko { point: p, color });
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
        self.points()
            .find(|&p| !self.is_empty(p) && self.has_no_liberty(self.head(p)))
            .map(|p| self.row_col(p))
    }

    /// Puts a lone stone of `color` on the empty point `p`: its own chain with its empty
    /// neighbours as pseudo-liberties, and `p` no longer a pseudo-liberty of the chains around.
    #[inline]
    fn put_stone(&mut self, p: Point, color: Color) {
        let i = ix(p);
        self.cells[i] = color as u8;
        self.stone_counts[color as usize] += 1;
        self.remove_empty(p);
        self.chain_head[i] = p;
        self.next_stone[i] = p;
        self.chain_stones[i] = 1;
        self.liberty_count[i] = 0;
        self.liberty_sum[i] = 0;
        self.liberty_sum_of_squares[i] = 0;
        for n in self.neighbours(p) {
            match self.cells[ix(n)] {
                EMPTY => self.add_pseudo_liberty(p, n),
                WALL => {}
                _ => self.remove_pseudo_liberty(self.head(n), p),
            }
        }
    }

    fn remove_stone(&mut self, p: Point) {
        let color = self.cells[ix(p)];
        self.stone_counts[color as usize] -= 1;
        self.cells[ix(p)] = EMPTY;
        self.add_empty(p);
    }

    /// Joins the chain through `a` with the chain through `b`, the smaller into the larger.
    fn merge_chains(&mut self, a: Point, b: Point) {
        let mut big = self.head(a);
        let mut small = self.head(b);
        if self.chain_stones[ix(big)] < self.chain_stones[ix(small)] {
            std::mem::swap(&mut big, &mut small);
        }
        let mut s = small;
        loop {
            self.chain_head[ix(s)] = big;
            let next = self.next_stone[ix(s)];
            if next == small {
                break;
            }
            s = next;
        }
        // Splice the small ring after the big head: s is the small ring's last stone.
        self.next_stone[ix(s)] = self.next_stone[ix(big)];
        self.next_stone[ix(big)] = small;
        let (b, s) = (ix(big), ix(small));
        self.chain_stones[b] += self.chain_stones[s];
        self.liberty_count[b] += self.liberty_count[s];
        self.liberty_sum[b] += self.liberty_sum[s];
        self.liberty_sum_of_squares[b] += self.liberty_sum_of_squares[s];
    }

    /// Removes a captured chain; returns the number of stones removed.
    fn remove_chain(&mut self, p: Point) -> u16 {
        let capturer = self.cells[ix(p)] ^ 3;
        let mut removed = 0;
        let mut s = p;
        loop {
            self.remove_stone(s);
            for n in self.neighbours(s) {
                if self.cells[ix(n)] == capturer {
                    self.add_pseudo_liberty(self.head(n), s);
                }
            }
            removed += 1;
            s = self.next_stone[ix(s)];
            if s == p {
                return removed;
            }
        }
    }

    /// Puts back a captured chain of `color` in the empty region through `p`. The region is
    /// exactly the captured chain: every point around it holds a capturing stone.
    fn refill_captured_chain(&mut self, p: Point, color: Color) {
        let mut stack = vec![p];
        self.place_in_chain(p, color, p);
        while let Some(s) = stack.pop() {
            for n in self.neighbours(s) {
                if self.is_empty(n) {
                    self.place_in_chain(n, color, p);
                    stack.push(n);
                }
            }
        }
    }

    /// Adds a stone of `color` at `p` to the chain headed by `head` (or starts it), taking the
    /// pseudo-liberty `p` from the opponent chains around. Used only to refill a captured chain,
    /// which has no liberty until the capturing stone is taken back.
    fn place_in_chain(&mut self, p: Point, color: Color, head: Point) {
        let i = ix(p);
        self.cells[i] = color as u8;
        self.stone_counts[color as usize] += 1;
        self.remove_empty(p);
        for n in self.neighbours(p) {
            if self.cells[ix(n)] == color.opponent() as u8 {
                self.remove_pseudo_liberty(self.head(n), p);
            }
        }
        self.chain_head[i] = head;
        if p == head {
            self.next_stone[i] = p;
            self.chain_stones[i] = 1;
            self.liberty_count[i] = 0;
            self.liberty_sum[i] = 0;
            self.liberty_sum_of_squares[i] = 0;
        } else {
            self.next_stone[i] = self.next_stone[ix(head)];
            self.next_stone[ix(head)] = p;
            self.chain_stones[ix(head)] += 1;
        }
    }

    /// Rebuilds, from `start`, the chain of stones still marked with `old_head`, counting its
    /// pseudo-liberties afresh.
    fn rebuild_chain(&mut self, start: Point, old_head: Point) {
        let color = self.cells[ix(start)];
        let mut members = vec![start];
        // Mark visited stones with NO_POINT, then relabel them with the new head.
        self.chain_head[ix(start)] = NO_POINT;
        let mut i = 0;
        while i < members.len() {
            let s = members[i];
            i += 1;
            for n in self.neighbours(s) {
                if self.cells[ix(n)] == color && self.head(n) == old_head {
                    self.chain_head[ix(n)] = NO_POINT;
                    members.push(n);
                }
            }
        }
        let head = start;
        let h = ix(head);
        self.chain_stones[h] = members.len() as u16;
        self.liberty_count[h] = 0;
        self.liberty_sum[h] = 0;
        self.liberty_sum_of_squares[h] = 0;
        for (k, &s) in members.iter().enumerate() {
            self.chain_head[ix(s)] = head;
            self.next_stone[ix(s)] = members[(k + 1) % members.len()];
            for n in self.neighbours(s) {
                if self.is_empty(n) {
                    self.add_pseudo_liberty(head, n);
                }
            }
        }
    }

    fn swap_empty_slots(&mut self, i: usize, j: usize) {
        self.empty_points.swap(i, j);
        self.empty_slot[ix(self.empty_points[i])] = i as u16;
        self.empty_slot[ix(self.empty_points[j])] = j as u16;
    }

    #[inline]
    fn add_empty(&mut self, p: Point) {
        self.empty_slot[ix(p)] = self.empty_count as u16;
        self.empty_points[self.empty_count] = p;
        self.empty_count += 1;
    }

    #[inline]
    fn remove_empty(&mut self, p: Point) {
        let slot = self.empty_slot[ix(p)] as usize;
        self.empty_count -= 1;
        let last = self.empty_points[self.empty_count];
        self.empty_points[slot] = last;
        self.empty_slot[ix(last)] = slot as u16;
    }
}

#[cfg(test)]
mod tests;
