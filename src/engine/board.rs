//! The board: stones, chains and liberties, kept incrementally.
//!
//! Layout (as in KataGo's `board.cpp`): a padded one-dimensional array with one wall column
//! shared between the right edge of a row and the left edge of the next, and a wall row above
//! and below, so the four neighbours of any point are `p - 1`, `p + 1`, `p - stride` and
//! `p + stride`, and its diagonals `p ± stride ± 1`, with no bounds test. Each chain is a circular linked list of its stones with a
//! head; the head holds the chain's stone count and its exact number of liberties. Undo records
//! are a few bytes: captured chains are refilled by flood fill from the recorded directions,
//! since a captured chain leaves an empty region bounded by the capturer's stones.

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
}

#[derive(Clone)]
pub struct Board {
    height: usize,
    width: usize,
    stride: usize,
    cells: [u8; ARRAY_LEN],
    chain_head: [Point; ARRAY_LEN],
    next_stone: [Point; ARRAY_LEN],
    /// Stones in the chain, valid at chain heads.
    chain_stones: [u16; ARRAY_LEN],
    /// Distinct liberties of the chain, valid at chain heads.
    chain_liberties: [u16; ARRAY_LEN],
    empty_points: [Point; MAX_POINTS],
    empty_count: usize,
    /// Position of each empty point in `empty_points`.
    empty_slot: [u16; ARRAY_LEN],
    ko: Option<Ko>,
    stone_counts: [u16; 3],
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
            chain_liberties: [0; ARRAY_LEN],
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

    /// Liberties of the chain through `p` (which must hold a stone).
    #[inline]
    pub fn liberties(&self, p: Point) -> usize {
        self.chain_liberties[ix(self.chain_head[ix(p)])] as usize
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
    fn same_chain(&self, a: Point, b: Point) -> bool {
        self.chain_head[ix(a)] == self.chain_head[ix(b)]
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
            // An own chain with a liberty besides `p`, or an opponent chain whose last one is `p`.
            let liberties = self.liberties(n);
            if (cell == own) == (liberties > 1) {
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
                && self.liberties(n) == 1
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

        self.put_single_stone(p, color);
        let neighbours = self.neighbours(p);
        self.chain_liberties[ix(p)] =
            neighbours.iter().filter(|&&n| self.cells[ix(n)] == EMPTY).count() as u16;

        let mut captured_stones = 0;
        let mut captured_at = NO_POINT;
        for (i, &n) in neighbours.iter().enumerate() {
            let cell = self.cells[ix(n)];
            if cell == own {
                if !self.same_chain(n, p) {
                    self.chain_liberties[ix(self.chain_head[ix(n)])] -= 1;
                    self.merge_chains(n, p);
                }
            } else if cell == opponent {
                let seen_before = neighbours[..i]
                    .iter()
                    .any(|&m| self.cells[ix(m)] == opponent && self.same_chain(m, n));
                if seen_before {
                    continue;
                }
                let head = ix(self.chain_head[ix(n)]);
                self.chain_liberties[head] -= 1;
                if self.chain_liberties[head] == 0 {
                    captured_stones += self.remove_chain(n);
                    captured_at = n;
                    record.captured_directions |= 1 << i;
                }
            }
        }

        // A single stone that took a single stone and has one liberty left can be retaken
        // at once, which would repeat the position: that retake is the ko.
        let head = ix(self.chain_head[ix(p)]);
        self.ko = (captured_stones == 1 && self.chain_stones[head] == 1 && self.chain_liberties[head] == 1)
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

        let old_head = self.chain_head[ix(p)];
        let was_alone = self.chain_stones[ix(old_head)] == 1;
        self.remove_stone(p);
        self.add_liberty_to_adjacent_chains(p, color.opponent());
        if was_alone {
            return;
        }
        // The stone joined chains together: rebuild what is left of them from scratch.
        for n in neighbours {
            if self.cells[ix(n)] == color as u8 && self.chain_head[ix(n)] == old_head {
                self.rebuild_chain(n, old_head);
            }
        }
    }

    /// Puts a stone on an empty point without any capture, for handicap stones and set-up
    /// positions. The caller must check the result has no chain without liberties.
    pub fn place_stone(&mut self, p: Point, color: Color) {
        debug_assert!(self.is_empty(p));
        self.put_single_stone(p, color);
        self.chain_liberties[ix(p)] = self
            .neighbours(p)
            .iter()
            .filter(|&&n| self.cells[ix(n)] == EMPTY)
            .count() as u16;
        self.remove_liberty_from_adjacent_chains(p, color.opponent());
        for n in self.neighbours(p) {
            if self.cells[ix(n)] == color as u8 && !self.same_chain(n, p) {
                self.chain_liberties[ix(self.chain_head[ix(n)])] -= 1;
                self.merge_chains(n, p);
            }
        }
    }

    /// Sets the ko ban: `color` may not play at `p` next.
    pub fn set_ko(&mut self, p: Point, color: Color) {
        self.ko = Some(Ko { point: p, color });
    }

    /// Whether any chain has no liberty (possible only in a position set up by hand).
    pub fn has_chain_without_liberties(&self) -> Option<Point> {
        self.points()
            .find(|&p| !self.is_empty(p) && self.liberties(p) == 0)
    }

    fn put_single_stone(&mut self, p: Point, color: Color) {
        let i = ix(p);
        self.cells[i] = color as u8;
        self.stone_counts[color as usize] += 1;
        self.remove_empty(p);
        self.chain_head[i] = p;
        self.next_stone[i] = p;
        self.chain_stones[i] = 1;
    }

    fn remove_stone(&mut self, p: Point) {
        let color = self.cells[ix(p)];
        self.stone_counts[color as usize] -= 1;
        self.cells[ix(p)] = EMPTY;
        self.add_empty(p);
    }

    /// Joins the chain through `a` with the chain through `b`, the smaller into the larger.
    fn merge_chains(&mut self, a: Point, b: Point) {
        let mut big = self.chain_head[ix(a)];
        let mut small = self.chain_head[ix(b)];
        if self.chain_stones[ix(big)] < self.chain_stones[ix(small)] {
            std::mem::swap(&mut big, &mut small);
        }
        // A liberty of the small chain is new to the big one unless it touches the big one.
        // Stones move to the big chain as they are visited, so a liberty shared by two small
        // stones is counted once.
        let mut new_liberties = 0;
        let mut s = small;
        loop {
            for n in self.neighbours(s) {
                if self.cells[ix(n)] == EMPTY && !self.touches_chain(n, big) {
                    new_liberties += 1;
                }
            }
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
        self.chain_stones[ix(big)] += self.chain_stones[ix(small)];
        self.chain_liberties[ix(big)] += new_liberties;
    }

    /// Whether the point `p` is next to a stone of the chain headed by `head`.
    #[inline(always)]
    fn touches_chain(&self, p: Point, head: Point) -> bool {
        let color = self.cells[ix(head)];
        self.neighbours(p)
            .iter()
            .any(|&n| self.cells[ix(n)] == color && self.chain_head[ix(n)] == head)
    }

    /// Removes a captured chain; returns the number of stones removed.
    fn remove_chain(&mut self, p: Point) -> u16 {
        let capturer = self.stone(p).expect("a chain to remove").opponent();
        let mut removed = 0;
        let mut s = p;
        loop {
            self.remove_stone(s);
            self.add_liberty_to_adjacent_chains(s, capturer);
            removed += 1;
            s = self.next_stone[ix(s)];
            if s == p {
                return removed;
            }
        }
    }

    fn add_liberty_to_adjacent_chains(&mut self, p: Point, color: Color) {
        self.change_adjacent_liberties(p, color, true);
    }

    fn remove_liberty_from_adjacent_chains(&mut self, p: Point, color: Color) {
        self.change_adjacent_liberties(p, color, false);
    }

    /// Each distinct chain of `color` next to `p` gains (or loses) the liberty `p`.
    #[inline]
    fn change_adjacent_liberties(&mut self, p: Point, color: Color, gain: bool) {
        let neighbours = self.neighbours(p);
        for (i, &n) in neighbours.iter().enumerate() {
            if self.cells[ix(n)] != color as u8 {
                continue;
            }
            let seen_before = neighbours[..i]
                .iter()
                .any(|&m| self.cells[ix(m)] == color as u8 && self.same_chain(m, n));
            if !seen_before {
                let head = ix(self.chain_head[ix(n)]);
                if gain {
                    self.chain_liberties[head] += 1;
                } else {
                    self.chain_liberties[head] -= 1;
                }
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
        // Captured chains had no liberty; the capturing stone at the centre of the undo is
        // still there, and the undo gives it back to the chain afterwards.
        self.chain_liberties[ix(p)] = 0;
    }

    /// Adds a stone of `color` at `p` to the chain headed by `head` (or starts it).
    fn place_in_chain(&mut self, p: Point, color: Color, head: Point) {
        let i = ix(p);
        self.cells[i] = color as u8;
        self.stone_counts[color as usize] += 1;
        self.remove_empty(p);
        self.remove_liberty_from_adjacent_chains(p, color.opponent());
        self.chain_head[i] = head;
        if p == head {
            self.next_stone[i] = p;
            self.chain_stones[i] = 1;
        } else {
            self.next_stone[i] = self.next_stone[ix(head)];
            self.next_stone[ix(head)] = p;
            self.chain_stones[ix(head)] += 1;
        }
    }

    /// Rebuilds, from `start`, the chain of stones still marked with `old_head`, counting its
    /// liberties afresh.
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
                if self.cells[ix(n)] == color && self.chain_head[ix(n)] == old_head {
                    self.chain_head[ix(n)] = NO_POINT;
                    members.push(n);
                }
            }
        }
        let head = start;
        let mut is_liberty = [false; ARRAY_LEN];
        let mut liberties = 0;
        for (k, &s) in members.iter().enumerate() {
            self.chain_head[ix(s)] = head;
            self.next_stone[ix(s)] = members[(k + 1) % members.len()];
            for n in self.neighbours(s) {
                if self.is_empty(n) && !is_liberty[ix(n)] {
                    is_liberty[ix(n)] = true;
                    liberties += 1;
                }
            }
        }
        self.chain_stones[ix(head)] = members.len() as u16;
        self.chain_liberties[ix(head)] = liberties;
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
