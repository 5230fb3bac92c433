//! MoGo's 3x3 patterns (Gelly et al. 2006, as michi lists them): hane, cut, and edge shapes
//! around an empty point, in every rotation, reflection and colour swap. A move of the tree
//! that matches one gets a prior of wins. (Played in the playouts too, next to the last move,
//! they made a playout twice as slow and did not win more at equal time: docs/benchmarks.md.)
//!
//! A point's neighbourhood is coded in 16 bits, two for each of its eight surrounding points
//! (empty, black, white, off the board), and a table of all 65,536 codes says which match.

use std::sync::OnceLock;

use crate::{Board, Point};

/// The patterns, the move at the centre. `X` and `O` are stones of the two colours, `x` and
/// `o` anything but them, `.` empty, `#` off the board, `?` anything.
const SOURCES: [[&str; 3]; 13] = [
    ["XOX", "...", "???"], // hane: enclosing hane
    ["XO.", "...", "?.?"], // hane: non-cutting hane
    ["XO?", "X..", "x.?"], // hane: magari
    [".O.", "X..", "..."], // diagonal attachment
    ["XO?", "O.o", "?o?"], // cut 1: unprotected cut
    ["XO?", "O.X", "???"], // cut 1: peeped cut
    ["?X?", "O.O", "ooo"], // cut 2
    ["OX?", "o.O", "???"], // cut keima
    ["X.?", "O.?", "##?"], // side: chase
    ["OX?", "X.O", "###"], // side: block side cut
    ["?X?", "x.O", "###"], // side: block side connection
    ["?XO", "x.x", "###"], // side: sagari
    ["?OX", "X.O", "###"], // side: cut
];

const EMPTY: u16 = 0;
const BLACK: u16 = 1;
const WHITE: u16 = 2;
const EDGE: u16 = 3;

/// Whether the empty point `p` is at the centre of a pattern.
#[inline]
pub fn matches(board: &Board, p: Point) -> bool {
    let code = board.neighbourhood(p);
    table()[usize::from(code >> 6)] & (1 << (code & 63)) != 0
}

/// The matching codes, as bits.
fn table() -> &'static [u64; 1024] {
    static TABLE: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([0u64; 1024]);
        for source in SOURCES {
            let grid: Vec<Vec<u8>> = source.iter().map(|row| row.bytes().collect()).collect();
            for variant in variants(grid) {
                // The eight cells around the centre, in the code's order.
                let cells: Vec<u8> = (0..9)
                    .filter(|&i| i != 4)
                    .map(|i| variant[i / 3][i % 3])
                    .collect();
                add_matches(&cells, 0, &mut table);
            }
        }
        table
    })
}

/// Every rotation and reflection of a pattern, each also with the colours swapped.
fn variants(grid: Vec<Vec<u8>>) -> Vec<Vec<Vec<u8>>> {
    let rotate = |g: &Vec<Vec<u8>>| {
        (0..3)
            .map(|r| (0..3).map(|c| g[2 - c][r]).collect())
            .collect::<Vec<Vec<u8>>>()
    };
    let mirror = |g: &Vec<Vec<u8>>| {
        g.iter()
            .map(|row| row.iter().rev().copied().collect())
            .collect::<Vec<Vec<u8>>>()
    };
    let swap = |g: &Vec<Vec<u8>>| {
        g.iter()
            .map(|row| {
                row.iter()
                    .map(|&c| match c {
                        b'X' => b'O',
                        b'O' => b'X',
                        b'x' => b'o',
                        b'o' => b'x',
                        c => c,
                    })
                    .collect()
            })
            .collect::<Vec<Vec<u8>>>()
    };
    let mut all = Vec::new();
    let mut g = grid;
    for _ in 0..4 {
        for shape in [g.clone(), mirror(&g)] {
            all.push(swap(&shape));
            all.push(shape);
        }
        g = rotate(&g);
    }
    all
}

/// Sets the bits of every code that `cells[at..]` matches, after `prefix`.
fn add_matches(cells: &[u8], prefix: u16, table: &mut [u64; 1024]) {
    let Some((&cell, rest)) = cells.split_first() else {
        table[usize::from(prefix >> 6)] |= 1 << (prefix & 63);
        return;
    };
    let states: &[u16] = match cell {
        b'X' => &[BLACK],
        b'O' => &[WHITE],
        b'x' => &[EMPTY, WHITE, EDGE],
        b'o' => &[EMPTY, BLACK, EDGE],
        b'.' => &[EMPTY],
        b'#' => &[EDGE],
        _ => &[EMPTY, BLACK, WHITE, EDGE],
    };
    for &state in states {
        add_matches(rest, (prefix << 2) | state, table);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::board_from_text as board;

    #[test]
    fn hane_and_cut_shapes_match_in_any_orientation_and_colour() {
        // An enclosing hane at the centre (1, 2): X O X above it, empty row below.
        let b = board(".....\n.xox.\n.....\n.....\n.....");
        assert!(matches(&b, b.point(2, 2)));
        // The same turned a quarter and with the colours swapped.
        let b = board(".....\n.o...\n.x...\n.o...\n.....");
        assert!(matches(&b, b.point(2, 2)));
        assert!(!matches(&b, b.point(2, 3)));
        // An empty board matches nothing; nor does a lone stone's neighbour.
        let empty = Board::new(9, 9).unwrap();
        assert!(empty.points().all(|p| !matches(&empty, p)));
        let lone = board(".....\n.....\n..x..\n.....\n.....");
        assert!(lone
            .points()
            .filter(|&p| lone.is_empty(p))
            .all(|p| !matches(&lone, p)));
    }

    #[test]
    fn the_table_is_symmetric_under_colour_swap() {
        let table = table();
        let swap = |code: u16| {
            (0..8).fold(0, |c, i| {
                let state = (code >> (2 * (7 - i))) & 3;
                let swapped = match state {
                    BLACK => WHITE,
                    WHITE => BLACK,
                    s => s,
                };
                (c << 2) | swapped
            })
        };
        let is_set = |code: u16| table[usize::from(code >> 6)] & (1 << (code & 63)) != 0;
        let set: Vec<u16> = (0..=u16::MAX).filter(|&c| is_set(c)).collect();
        assert!(set.len() > 100, "{}", set.len());
        assert!(set.iter().all(|&c| is_set(swap(c))));
    }
}
