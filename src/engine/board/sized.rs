//! A board whose arrays hold `N` entries: `N` is a power of two at least as long as the padded
//! board, so that indexing with `p & (N - 1)` is the identity on every point and needs no
//! bounds check. The whole board is one `Copy` block of about `14 * N` bytes (1.8 KB for 9x9,
//! 7.2 KB for 19x19): copying a position is a single `memcpy`.

use super::super::color::Color;
use super::super::error::IllegalReason;
use super::super::rng::Rng;
use super::{MoveRecord, Point, EMPTY, NO_POINT, WALL};

#[derive(Clone, Copy)]
pub(crate) struct SizedBoard<const N: usize> {
    height: u8,
    width: u8,
    /// `width + 1`: the distance between vertically adjacent points.
    pub(super) stride: Point,
    /// Where ko forbids `ko_color` to play next; `NO_POINT` for none.
    pub(super) ko_point: Point,
    pub(super) ko_color: Color,
    pub(super) empty_count: u16,
    pub(super) stone_counts: [u16; 3],
    /// Every padded point's state and its neighbours: see [`Cell`].
    pub(super) cells: [Cell; N],
    /// The head of the chain of each stone (stale on empty points: check the cell first).
    pub(super) chain_head: [Point; N],
    /// The next stone of the chain, a circular list.
    pub(super) next_stone: [Point; N],
    /// Valid at chain heads: the number of stones, and of distinct liberties.
    pub(super) chain_stones: [u16; N],
    pub(super) chain_liberties: [u16; N],
    /// The empty points in no particular order, and each empty point's slot in that list.
    pub(super) empty_points: [Point; N],
    pub(super) empty_slot: [u16; N],
}

/// A point's state, `EMPTY`, a colour (1 black, 2 white) or `WALL`, in the low two bits, and
/// counts of its neighbours above them (libego's neighbour counter): empty ones, and black
/// or white ones with the edge counting as both colours. A legality check or a playout
/// candidate reads one cell to learn whether a point has an empty neighbour (then it is legal
/// and no eye) or is surrounded by one colour (an eye candidate).
pub(super) type Cell = u16;
pub(super) const STATE: Cell = 0b11;
const EMPTY_NEIGHBOUR: Cell = 1 << 4;
/// Indexed by colour: one more black (or white) neighbour.
const COLOR_NEIGHBOUR: [Cell; 3] = [0, 1 << 8, 1 << 12];
const COUNT: Cell = 0b111;

/// What to add to the cells around a point whose state goes from `old` to `new`.
#[inline(always)]
pub(super) fn neighbour_change(old: u8, new: u8) -> Cell {
    let count = |state: u8| match state {
        EMPTY => EMPTY_NEIGHBOUR,
        color => COLOR_NEIGHBOUR[color as usize & 3],
    };
    count(new).wrapping_sub(count(old))
}

/// The number of empty neighbours in a cell.
#[inline(always)]
pub(super) const fn empty_neighbours(cell: Cell) -> Cell {
    (cell >> 4) & COUNT
}

/// Whether every neighbour in a cell is a `color` stone or the edge.
#[inline(always)]
const fn surrounded_by(cell: Cell, color: u8) -> bool {
    (cell >> (4 * color as u32 + 4)) & COUNT == 4
}

/// The array index of a point in a board of capacity `N`.
#[inline(always)]
pub(super) const fn ix<const N: usize>(p: Point) -> usize {
    p as usize & (N - 1)
}

/// Marks for a set of points (any capacity up to 1024), kept on the stack.
pub(super) struct PointSet([u64; 16]);

impl PointSet {
    #[inline(always)]
    pub(super) fn new() -> PointSet {
        PointSet([0; 16])
    }

    /// Adds `p`; whether it was new.
    #[inline(always)]
    pub(super) fn insert(&mut self, p: Point) -> bool {
        let (word, bit) = ((p as usize >> 6) & 15, 1u64 << (p & 63));
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }
}

impl<const N: usize> SizedBoard<N> {
    /// The padded length of a `height` x `width` board: a wall row above and below, one wall
    /// column shared by the right and left edges, and one more point for the last diagonal.
    pub(super) const fn padded_len(height: usize, width: usize) -> usize {
        (height + 2) * (width + 1) + 1
    }

    /// All walls: what a new board starts from, copied straight into its heap block.
    const WALLS: SizedBoard<N> = SizedBoard {
        height: 0,
        width: 0,
        stride: 0,
        ko_point: NO_POINT,
        ko_color: Color::Black,
        empty_count: 0,
        stone_counts: [0; 3],
        cells: [WALL as Cell; N],
        chain_head: [NO_POINT; N],
        next_stone: [NO_POINT; N],
        chain_stones: [0; N],
        chain_liberties: [0; N],
        empty_points: [NO_POINT; N],
        empty_slot: [0; N],
    };

    /// An empty board; the caller has checked that it fits in `N` entries.
    pub(super) fn new_boxed(height: usize, width: usize) -> Box<SizedBoard<N>> {
        const { assert!(N.is_power_of_two() && N <= 1024) };
        debug_assert!(Self::padded_len(height, width) <= N);
        let mut board = Box::new(Self::WALLS);
        board.height = height as u8;
        board.width = width as u8;
        board.stride = (width + 1) as Point;
        let mut slot = 0;
        for row in 0..height {
            let edge_rows = u16::from(row == 0) + u16::from(row == height - 1);
            let row_start = board.point(row, 0);
            for col in 0..width as Point {
                let walls = edge_rows + u16::from(col == 0) + u16::from(col as usize == width - 1);
                let p = row_start + col;
                board.cells[ix::<N>(p)] = EMPTY as Cell
                    + (4 - walls) * EMPTY_NEIGHBOUR
                    + walls * (COLOR_NEIGHBOUR[1] + COLOR_NEIGHBOUR[2]);
                board.empty_points[slot & (N - 1)] = p;
                board.empty_slot[ix::<N>(p)] = slot as u16;
                slot += 1;
            }
        }
        board.empty_count = slot as u16;
        board
    }

    #[inline(always)]
    pub(super) fn height(&self) -> usize {
        self.height as usize
    }

    #[inline(always)]
    pub(super) fn width(&self) -> usize {
        self.width as usize
    }

    #[inline(always)]
    pub(super) fn point(&self, row: usize, col: usize) -> Point {
        ((row + 1) * self.stride as usize + col + 1) as Point
    }

    #[inline(always)]
    pub(super) fn neighbours(&self, p: Point) -> [Point; 4] {
        let s = self.stride;
        [p - s, p - 1, p + 1, p + s]
    }

    /// The state of `p`: `EMPTY`, 1 (black), 2 (white) or `WALL`.
    #[inline(always)]
    pub(super) fn cell(&self, p: Point) -> u8 {
        (self.cells[ix::<N>(p)] & STATE) as u8
    }

    /// Puts `state` (a colour or `EMPTY`) on `p`, which held `old`, and counts the change in
    /// each neighbour's cell.
    #[inline(always)]
    pub(super) fn set_state(&mut self, p: Point, old: u8, state: u8) {
        let i = ix::<N>(p);
        self.cells[i] = (self.cells[i] & !STATE) | Cell::from(state);
        let change = neighbour_change(old, state);
        for_each_neighbour!(self, p, |n| {
            let cell = &mut self.cells[ix::<N>(n)];
            *cell = cell.wrapping_add(change);
        });
    }

    #[inline(always)]
    pub(super) fn head(&self, p: Point) -> Point {
        self.chain_head[ix::<N>(p)]
    }

    /// Distinct liberties of the chain through the stone at `p`.
    #[inline(always)]
    pub(super) fn liberties(&self, p: Point) -> u16 {
        self.chain_liberties[ix::<N>(self.head(p))]
    }

    pub(super) fn empty_points(&self) -> &[Point] {
        &self.empty_points[..self.empty_count as usize]
    }

    /// The stones of the chain through `p`.
    pub(super) fn chain(&self, p: Point) -> Vec<Point> {
        let mut stones = Vec::new();
        let mut s = p;
        loop {
            stones.push(s);
            s = self.next_stone[ix::<N>(s)];
            if s == p {
                return stones;
            }
        }
    }

    /// A liberty of the chain through the stone at `p`, if it has one.
    pub(super) fn a_liberty(&self, p: Point) -> Option<Point> {
        let mut s = p;
        loop {
            if let Some(n) = self.neighbours(s).into_iter().find(|&n| self.cell(n) == EMPTY) {
                return Some(n);
            }
            s = self.next_stone[ix::<N>(s)];
            if s == p {
                return None;
            }
        }
    }

    /// See [`super::Board::write_cells`].
    pub(super) fn write_cells(&self, out: &mut [u8]) {
        let width = self.width();
        for (row, cells) in out.chunks_exact_mut(width).take(self.height()).enumerate() {
            let start = self.point(row, 0);
            for (col, cell) in cells.iter_mut().enumerate() {
                *cell = self.cell(start + col as Point);
            }
        }
    }

    /// See [`super::Board::write_legal_mask`]. One cell read decides most points without a
    /// branch on the answer (which is random to the branch predictor): an empty point with an
    /// empty neighbour is legal, an occupied one is not; only an empty point without empty
    /// neighbours is looked at further. Then the ko point, if `color` is banned from it.
    pub(super) fn write_legal_mask(&self, color: Color, out: &mut [u8]) {
        let width = self.width();
        for (row, legal) in out.chunks_exact_mut(width).take(self.height()).enumerate() {
            let start = self.point(row, 0);
            for (col, legal) in legal.iter_mut().enumerate() {
                let p = start + col as Point;
                let cell = self.cells[ix::<N>(p)];
                let empty = cell & STATE == EMPTY as Cell;
                let enclosed = empty_neighbours(cell) == 0;
                *legal = u8::from(if empty & enclosed {
                    !self.is_suicide(p, color)
                } else {
                    empty
                });
            }
        }
        if self.ko_point != NO_POINT && self.ko_color == color {
            let stride = self.stride as usize;
            let (row, col) = (
                self.ko_point as usize / stride - 1,
                self.ko_point as usize % stride - 1,
            );
            out[row * width + col] = 0;
        }
    }

    /// Why `color` may not play at `p` (on the board), or `None` when the move is legal.
    #[inline(always)]
    pub(super) fn illegal_reason(&self, p: Point, color: Color) -> Option<IllegalReason> {
        let cell = self.cells[ix::<N>(p)];
        if cell & STATE != EMPTY as Cell {
            Some(IllegalReason::Occupied)
        } else if self.is_banned_by_ko(p, color) {
            Some(IllegalReason::Ko)
        } else if empty_neighbours(cell) > 0 {
            None
        } else if self.is_suicide(p, color) {
            Some(IllegalReason::Suicide)
        } else {
            None
        }
    }

    /// Whether a stone of `color` on the empty point `p` would be left without a liberty:
    /// no empty neighbour, every own chain around has `p` as its last liberty, and no
    /// opponent chain around is taken (has `p` as its last liberty).
    #[inline(always)]
    fn is_suicide(&self, p: Point, color: Color) -> bool {
        let own = color as u8;
        for_each_neighbour!(self, p, |n| {
            let cell = self.cell(n);
            if cell == EMPTY || (cell != WALL && (cell == own) == (self.liberties(n) > 1)) {
                return false;
            }
        });
        true
    }

    /// The opponent stones a legal move of `color` at `p` would capture.
    pub(super) fn captures(&self, p: Point, color: Color) -> Vec<Point> {
        let opponent = color.opponent() as u8;
        let mut captured = Vec::new();
        let mut taken = [NO_POINT; 4];
        for (k, n) in self.neighbours(p).into_iter().enumerate() {
            if self.cell(n) == opponent && self.liberties(n) == 1 {
                let head = self.head(n);
                if !taken.contains(&head) {
                    taken[k] = head;
                    captured.extend(self.chain(n));
                }
            }
        }
        captured
    }

    /// A uniformly random legal move of `color` that does not fill its own simple eye, or
    /// `None` if there is none. Candidates are drawn without replacement from the empty-point
    /// list, which only reorders it.
    #[inline(always)]
    pub(super) fn random_light_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        let mut candidates = self.empty_count as usize;
        while candidates > 0 {
            let i = rng.below(candidates) & (N - 1);
            let p = self.empty_points[i];
            if self.is_light_candidate(p, color) {
                return Some(p);
            }
            candidates -= 1;
            self.swap_empty_slots(i, candidates & (N - 1));
        }
        None
    }

    /// Whether ko forbids `color` to play at `p` now. Checked before the neighbour counts: a
    /// ko set from an arbitrary previous position (`set_ko`) may sit next to an empty point.
    #[inline(always)]
    fn is_banned_by_ko(&self, p: Point, color: Color) -> bool {
        p == self.ko_point && color == self.ko_color
    }

    /// `!is_simple_eye(p, color) && illegal_reason(p, color).is_none()` for an empty `p`, from
    /// one cell in the common case: a point with an empty neighbour is no eye, and legal unless
    /// ko bans it.
    #[inline(always)]
    fn is_light_candidate(&self, p: Point, color: Color) -> bool {
        let cell = self.cells[ix::<N>(p)];
        if empty_neighbours(cell) > 0 {
            // Legal unless a ko set from an arbitrary previous position bans it.
            return !self.is_banned_by_ko(p, color);
        }
        if surrounded_by(cell, color as u8) && !self.is_false_eye(p, color as u8) {
            return false;
        }
        if surrounded_by(cell, color as u8 ^ 3) {
            // The opponent's eye, most often: legal only by capturing.
            return self.would_capture(p, color) && !self.is_banned_by_ko(p, color);
        }
        !(self.is_banned_by_ko(p, color) || self.is_suicide(p, color))
    }

    /// Whether a stone of `color` on `p` would capture: an opponent chain around has `p` as
    /// its last liberty. Without branches (see `new_liberty`): in a playout this is asked of
    /// the opponent's eyes over and over, and the answer is random to the branch predictor.
    #[inline(always)]
    fn would_capture(&self, p: Point, color: Color) -> bool {
        let opponent = color as u8 ^ 3;
        let mut capture = false;
        for_each_neighbour!(self, p, |n| {
            capture |= (self.cell(n) == opponent) & (self.liberties(n) == 1);
        });
        capture
    }

    /// Whether the empty point `p` is a simple eye of `color`, as light playouts define it
    /// (libego, Pachi): every neighbour is a `color` stone or the edge, and it is not a false
    /// eye: at most one diagonal is an opponent stone, none if `p` is on the edge.
    #[inline(always)]
    pub(super) fn is_simple_eye(&self, p: Point, color: Color) -> bool {
        surrounded_by(self.cells[ix::<N>(p)], color as u8) && !self.is_false_eye(p, color as u8)
    }

    /// Whether `p`, all of whose neighbours are `own` stones or the edge, is a false eye: two
    /// diagonals hold opponent stones, or one does and `p` is on the edge.
    #[inline(always)]
    fn is_false_eye(&self, p: Point, own: u8) -> bool {
        let s = self.stride;
        let opponent = own ^ 3;
        let (mut opponents, mut on_edge) = (0, 0);
        for d in [p - s - 1, p - s + 1, p + s - 1, p + s + 1] {
            let cell = self.cell(d);
            opponents += u8::from(cell == opponent);
            on_edge |= u8::from(cell == WALL);
        }
        opponents + on_edge >= 2
    }

    /// Whether a legal stone of `color` on the empty point `p` would be in atari (its chain
    /// left with one liberty) without capturing anything: a self-atari. Reads cells and the
    /// liberty counts; walks the stones of a neighbouring own chain only when that chain has
    /// two liberties or fewer, and stops at the second liberty found.
    #[inline]
    pub(super) fn is_self_atari(&self, p: Point, color: Color) -> bool {
        let cell = self.cells[ix::<N>(p)];
        if empty_neighbours(cell) >= 2 {
            return false;
        }
        let (own, opponent) = (color as u8, color as u8 ^ 3);
        let mut found = [NO_POINT; 2];
        let mut count = 0usize;
        let mut add = |q: Point, found: &mut [Point; 2]| {
            if q != p && !found[..count].contains(&q) {
                found[count & 1] = q;
                count += 1;
            }
            count >= 2
        };
        for_each_neighbour!(self, p, |n| {
            let state = self.cell(n);
            if state == EMPTY {
                if add(n, &mut found) {
                    return false;
                }
            } else if state == opponent {
                if self.liberties(n) == 1 {
                    return false;
                }
            } else if state == own {
                if self.liberties(n) >= 3 {
                    return false;
                }
                let mut s = n;
                loop {
                    for_each_neighbour!(self, s, |m| {
                        if self.cell(m) == EMPTY && add(m, &mut found) {
                            return false;
                        }
                    });
                    s = self.next_stone[ix::<N>(s)];
                    if s == n {
                        break;
                    }
                }
            }
        });
        true
    }

    /// The eight points around `p` coded in 16 bits, two a point (`EMPTY`, black, white,
    /// `WALL`), row by row from the top left: the key of a 3x3 pattern.
    #[inline(always)]
    pub(super) fn neighbourhood(&self, p: Point) -> u16 {
        let s = self.stride;
        let around = [
            p - s - 1,
            p - s,
            p - s + 1,
            p - 1,
            p + 1,
            p + s - 1,
            p + s,
            p + s + 1,
        ];
        around
            .iter()
            .fold(0, |code, &q| (code << 2) | u16::from(self.cell(q)))
    }

    /// Black's and white's area: stones, and empty regions that border only one colour.
    pub(super) fn area(&self) -> [u32; 3] {
        let mut area = [
            0,
            u32::from(self.stone_counts[1]),
            u32::from(self.stone_counts[2]),
        ];
        let mut seen = PointSet::new();
        let mut region = [NO_POINT; N];
        for &start in self.empty_points() {
            if !seen.insert(start) {
                continue;
            }
            // Flood the empty region, noting which colours border it.
            let mut borders = 0u8;
            region[0] = start;
            let (mut done, mut len) = (0, 1);
            while done < len {
                for_each_neighbour!(self, region[done & (N - 1)], |n| {
                    match self.cell(n) {
                        EMPTY if seen.insert(n) => {
                            region[len & (N - 1)] = n;
                            len += 1;
                        }
                        EMPTY | WALL => {}
                        color => borders |= color,
                    }
                });
                done += 1;
            }
            if borders == 1 || borders == 2 {
                area[borders as usize] += len as u32;
            }
        }
        area
    }

    /// `(row, col)` of a stone whose chain has no liberty, if any (only a set-up position can
    /// have one).
    pub(super) fn chain_without_liberty(&self) -> Option<Point> {
        (0..self.height())
            .flat_map(|row| (0..self.width()).map(move |col| (row, col)))
            .map(|(row, col)| self.point(row, col))
            .find(|&p| matches!(self.cell(p), 1 | 2) && self.liberties(p) == 0)
    }

    pub(super) fn record(&self, point: Point, color: Color) -> MoveRecord {
        MoveRecord {
            point,
            previous_ko_point: self.ko_point,
            color,
            previous_ko_color: self.ko_color,
            captured_directions: 0,
        }
    }

    fn swap_empty_slots(&mut self, i: usize, j: usize) {
        self.empty_points.swap(i, j);
        self.empty_slot[ix::<N>(self.empty_points[i])] = i as u16;
        self.empty_slot[ix::<N>(self.empty_points[j])] = j as u16;
    }

    #[inline(always)]
    pub(super) fn add_empty(&mut self, p: Point) {
        let slot = self.empty_count as usize & (N - 1);
        self.empty_slot[ix::<N>(p)] = slot as u16;
        self.empty_points[slot] = p;
        self.empty_count += 1;
    }

    #[inline(always)]
    pub(super) fn remove_empty(&mut self, p: Point) {
        let slot = self.empty_slot[ix::<N>(p)] as usize & (N - 1);
        self.empty_count -= 1;
        let last = self.empty_points[self.empty_count as usize & (N - 1)];
        self.empty_points[slot] = last;
        self.empty_slot[ix::<N>(last)] = slot as u16;
    }
}
