//! The children of a new tree node and their prior knowledge (michi's priors, in visits and
//! wins added to both the real and the AMAF statistics): every move starts even, captures
//! and escapes from atari look good, self-ataris bad, moves near the last one and 3x3
//! patterns good, and in an empty area the first two lines bad and the third good.

use super::patterns;
use super::playout::PASS;
use super::tree::Node;
use crate::{Board, Color, Point};

const EVEN: f32 = 10.0;
const CAPTURE_ONE: f32 = 15.0;
const CAPTURE_MANY: f32 = 30.0;
const ESCAPE: f32 = 15.0;
const SELF_ATARI: f32 = 10.0;
/// Wins for a move at gridcular distance 2, 3 and 4 of the last move.
const NEAR_LAST: [f32; 3] = [24.0, 22.0, 8.0];
const EMPTY_AREA: f32 = 10.0;
const PATTERN: f32 = 10.0;

/// The moves the search considers for `color` on `board` (legal, filling no own simple eye;
/// a pass only when there is nothing else), each with its priors. `board` is changed while
/// moves are tried and left as it was.
pub fn children(board: &mut Board, color: Color, last: Point) -> Vec<Node> {
    let moves: Vec<Point> = board
        .legal_moves(color)
        .filter(|&p| !board.is_simple_eye(p, color))
        .collect();
    if moves.is_empty() {
        return vec![Node::new(PASS)];
    }
    let in_atari_before: Vec<Point> = own_chains_in_atari(board, color);
    moves
        .into_iter()
        .map(|p| {
            let (mut visits, mut wins) = (EVEN, EVEN / 2.0);
            let mut add = |v: f32, w: f32| {
                visits += v;
                wins += w;
            };
            let opponents_before = board.stone_count(color.opponent());
            let record = board.play_legal(p, color);
            let captured = opponents_before - board.stone_count(color.opponent());
            let liberties = board.liberties(p);
            let saved = liberties >= 2
                && in_atari_before
                    .iter()
                    .any(|&s| board.stone(s) == Some(color) && board.liberties(s) >= 2);
            board.undo(record);
            match captured {
                0 => {}
                1 => add(CAPTURE_ONE, CAPTURE_ONE),
                _ => add(CAPTURE_MANY, CAPTURE_MANY),
            }
            if saved {
                add(ESCAPE, ESCAPE);
            }
            if liberties == 1 && captured == 0 {
                add(SELF_ATARI, 0.0);
            }
            if last != PASS {
                let distance = gridcular_distance(board, p, last);
                if (2..=4).contains(&distance) {
                    let bonus = NEAR_LAST[distance - 2];
                    add(bonus, bonus);
                }
            }
            if patterns::matches(board, p) {
                add(PATTERN, PATTERN);
            }
            if is_in_empty_area(board, p) {
                match line(board, p) {
                    1 | 2 => add(EMPTY_AREA, 0.0),
                    3 => add(EMPTY_AREA, EMPTY_AREA),
                    _ => {}
                }
            }
            Node {
                visits,
                wins,
                rave_visits: visits,
                rave_wins: wins,
                prior_visits: visits,
                prior_rate: wins / visits,
                ..Node::new(p)
            }
        })
        .collect()
}

/// A stone of each own chain in atari.
fn own_chains_in_atari(board: &Board, color: Color) -> Vec<Point> {
    board
        .points()
        .filter(|&p| board.stone(p) == Some(color) && board.liberties(p) == 1)
        .collect()
}

/// `dx + dy + max(dx, dy)`: 2 for a neighbour, 3 for a diagonal, 4 two points away in a line.
fn gridcular_distance(board: &Board, a: Point, b: Point) -> usize {
    let ((ra, ca), (rb, cb)) = (board.row_col(a), board.row_col(b));
    let (dy, dx) = (ra.abs_diff(rb), ca.abs_diff(cb));
    dx + dy + dx.max(dy)
}

/// The line of `p` from the nearest edge (1 on the edge).
fn line(board: &Board, p: Point) -> usize {
    let (row, col) = board.row_col(p);
    let (height, width) = (board.height(), board.width());
    1 + row.min(col).min(height - 1 - row).min(width - 1 - col)
}

/// Whether no stone lies within a Manhattan distance of 3 of `p`.
fn is_in_empty_area(board: &Board, p: Point) -> bool {
    let (row, col) = board.row_col(p);
    let (height, width) = (board.height() as isize, board.width() as isize);
    for dr in -3isize..=3 {
        for dc in -3isize..=3 {
            let (r, c) = (row as isize + dr, col as isize + dc);
            if dr.abs() + dc.abs() > 3 || r < 0 || c < 0 || r >= height || c >= width {
                continue;
            }
            if board.stone(board.point(r as usize, c as usize)).is_some() {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::board_from_text as board;

    fn node_at(nodes: &[Node], p: Point) -> Node {
        *nodes.iter().find(|n| n.mv == p).expect("a child for the move")
    }

    #[test]
    fn captures_look_good_and_self_ataris_bad() {
        let mut b = board(".x...\nxo...\n.x...\n.....\n.....");
        let before = b.clone();
        let last = b.point(1, 1);
        let nodes = children(&mut b, Color::Black, last);
        assert_eq!(crate::render(&b), crate::render(&before), "the board is restored");
        let capture = node_at(&nodes, b.point(1, 2));
        assert!(capture.prior_rate > 0.7, "{capture:?}");
        // White at (2, 0) would have one liberty and capture nothing.
        let white = children(&mut b, Color::White, PASS);
        let self_atari = node_at(&white, b.point(2, 0));
        // It matches a pattern (worth as much as the self-atari costs): even at best.
        assert!(
            self_atari.prior_rate <= 0.5 && self_atari.prior_rate < capture.prior_rate,
            "{self_atari:?}"
        );
    }

    #[test]
    fn own_eyes_are_left_out_and_a_board_without_other_moves_offers_only_a_pass() {
        let mut b = board("x.x\nxxx\nx.x");
        let nodes = children(&mut b, Color::Black, PASS);
        assert_eq!(nodes.len(), 1);
        assert_eq!(nodes[0].mv, PASS);
    }
}
