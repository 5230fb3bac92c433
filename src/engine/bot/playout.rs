//! The bot's playouts: the engine's light playouts (uniform among legal moves that fill no
//! own simple eye) behind the rules of MoGo and michi, first that applies: after the
//! opponent's move, capture a chain of theirs left in atari next to it, or save an own chain
//! it put in atari by extending to a point with two empty neighbours; else answer next to it
//! where a 3x3 pattern matches (no self-atari); else a light move, drawn again 9 times in 10
//! when it is a self-atari. Every move is recorded, for the search's AMAF statistics.

use super::patterns;
use crate::{Board, Color, Point, Rng};

/// The point a pass is recorded as (0 is a wall, never a move).
pub const PASS: Point = 0;

/// How a playout chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Captures and escapes, patterns, light moves drawn again when self-ataris: the search's.
    Search,
    /// Captures and escapes, then light moves: what judges dead stones at the end, where the
    /// search's playouts, shy of self-ataris, let a lone stone inside a living group's big
    /// eye kill it too often in small positions.
    Status,
}

/// Plays on from `board` (changed in place) with `to_move` first, until two passes in a row or
/// `max_moves`, pushing each turn onto `moves`. `last` is the previous move (`PASS` if none).
#[allow(clippy::too_many_arguments)]
pub fn play_out(
    policy: Policy,
    board: &mut Board,
    mut to_move: Color,
    mut previous_was_pass: bool,
    mut last: Point,
    max_moves: u32,
    rng: &mut Rng,
    moves: &mut Vec<(Point, Color)>,
) {
    for _ in 0..max_moves {
        let choice = match policy {
            Policy::Search => policy_move(board, to_move, last, rng),
            Policy::Status => {
                tactical_move(board, to_move, last, rng).or_else(|| board.random_light_move(to_move, rng))
            }
        };
        match choice {
            Some(p) => {
                board.play_legal(p, to_move);
                moves.push((p, to_move));
                previous_was_pass = false;
                last = p;
            }
            None if previous_was_pass => return,
            None => {
                board.pass(to_move);
                moves.push((PASS, to_move));
                previous_was_pass = true;
                last = PASS;
            }
        }
        to_move = to_move.opponent();
    }
}

/// Light moves drawn before a self-atari is played anyway.
const DRAWS: usize = 8;

/// The playout's move for `color` after `last`, `None` when it has none but to pass.
#[inline]
pub fn policy_move(board: &mut Board, color: Color, last: Point, rng: &mut Rng) -> Option<Point> {
    if let Some(p) = tactical_move(board, color, last, rng) {
        return Some(p);
    }
    if let Some(p) = pattern_move(board, color, last, rng) {
        return Some(p);
    }
    let mut choice = None;
    for _ in 0..DRAWS {
        let p = board.random_light_move(color, rng)?;
        if !board.is_self_atari(p, color) || rng.below(10) == 0 {
            return Some(p);
        }
        choice = Some(p);
    }
    choice
}

/// A move next to `last` (the eight points around it) where a 3x3 pattern matches, legal,
/// filling no own eye and no self-atari, chosen at random among them; `None` when there is none.
pub fn pattern_move(board: &Board, color: Color, last: Point, rng: &mut Rng) -> Option<Point> {
    if last == PASS || board.stone(last).is_none() {
        return None;
    }
    let [up, left, right, down] = board.neighbours(last);
    let mut found = [PASS; 8];
    let mut count = 0;
    for q in [up - 1, up, up + 1, left, right, down - 1, down, down + 1] {
        if board.is_empty(q)
            && patterns::matches(board, q)
            && board.illegal_reason(q, color).is_none()
            && !board.is_simple_eye(q, color)
            && !board.is_self_atari(q, color)
        {
            found[count] = q;
            count += 1;
        }
    }
    (count > 0).then(|| found[rng.below(count)])
}

/// A capture or an escape from atari around the opponent's last move, chosen at random among
/// those that are legal and fill no own eye; `None` when there is none.
pub fn tactical_move(board: &Board, color: Color, last: Point, rng: &mut Rng) -> Option<Point> {
    if last == PASS || board.stone(last).is_none() {
        return None;
    }
    let mut found = [PASS; 5];
    let mut count = 0;
    let around = board.neighbours(last);
    for q in std::iter::once(last).chain(around) {
        let Some(owner) = board.stone(q) else { continue };
        if board.liberties(q) != 1 {
            continue;
        }
        let Some(liberty) = board.a_liberty(q) else {
            continue;
        };
        let wanted = if owner == color {
            empty_neighbours(board, liberty) >= 2
        } else {
            true
        };
        if wanted
            && !found[..count].contains(&liberty)
            && board.illegal_reason(liberty, color).is_none()
            && !board.is_simple_eye(liberty, color)
        {
            found[count] = liberty;
            count += 1;
        }
    }
    (count > 0).then(|| found[rng.below(count)])
}

/// The number of empty points next to `p`.
pub fn empty_neighbours(board: &Board, p: Point) -> usize {
    board
        .neighbours(p)
        .into_iter()
        .filter(|&n| board.is_empty(n))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::board_from_text as board;

    #[test]
    fn the_stone_left_in_atari_by_the_last_move_is_captured() {
        // White's last move at the right of row 2 (from the top) leaves the white stone
        // between black's in atari on its one liberty.
        let b = board(".x...\nxo...\n.x...\n.....\n.....");
        let last = b.point(1, 1);
        let capture = b.point(1, 2);
        let mut rng = Rng::new(1);
        assert_eq!(tactical_move(&b, Color::Black, last, &mut rng), Some(capture));
    }

    #[test]
    fn an_own_chain_in_atari_extends_when_it_gains_liberties() {
        let b = board(".....\n.ox..\n..o..\n.....\n.....");
        // Black's stone at (1, 2) has liberties (0, 2) and (1, 3); say white just played (2, 2)
        // and black is not in atari: no tactical move.
        let mut rng = Rng::new(1);
        assert_eq!(tactical_move(&b, Color::Black, b.point(2, 2), &mut rng), None);
        let b = board("..o..\n.ox..\n..o..\n.....\n.....");
        assert_eq!(
            tactical_move(&b, Color::Black, b.point(0, 2), &mut rng),
            Some(b.point(1, 3))
        );
    }

    #[test]
    fn patterns_answer_next_to_the_last_move_and_never_in_self_atari() {
        // White's last move at (1, 2) makes hanes all around; every answer drawn must be one
        // of the eight points around it, match a pattern, and be no self-atari.
        let b = board(".....\n.xox.\n.....\n.....\n.....");
        let last = b.point(1, 2);
        let (row, col) = b.row_col(last);
        let mut rng = Rng::new(3);
        let mut seen = Vec::new();
        for _ in 0..200 {
            let p = pattern_move(&b, Color::Black, last, &mut rng).expect("a pattern answer");
            let (r, c) = b.row_col(p);
            assert!(r.abs_diff(row) <= 1 && c.abs_diff(col) <= 1 && p != last);
            assert!(patterns::matches(&b, p) && !b.is_self_atari(p, Color::Black));
            if !seen.contains(&p) {
                seen.push(p);
            }
        }
        assert!(seen.contains(&b.point(2, 2)) && seen.len() >= 2, "{seen:?}");
        // A lone stone played on an empty board matches no pattern.
        let lone = board(".....\n.....\n..o..\n.....\n.....");
        assert_eq!(
            pattern_move(&lone, Color::Black, lone.point(2, 2), &mut rng),
            None
        );
    }

    #[test]
    fn playouts_end_when_neither_side_has_a_move_and_record_their_moves() {
        let mut rng = Rng::new(7);
        for _ in 0..50 {
            let mut b = Board::new(9, 9).unwrap();
            let mut moves = Vec::new();
            let policy = [Policy::Search, Policy::Status][rng.below(2)];
            play_out(
                policy,
                &mut b,
                Color::Black,
                false,
                PASS,
                243,
                &mut rng,
                &mut moves,
            );
            for color in [Color::Black, Color::White] {
                assert_eq!(
                    b.clone().random_light_move(color, &mut rng),
                    None,
                    "{color} could still play"
                );
            }
            let stones = moves.iter().filter(|(p, _)| *p != PASS).count();
            assert!(stones >= b.stone_count(Color::Black) + b.stone_count(Color::White));
            assert!(moves.windows(2).all(|w| w[0].1 != w[1].1), "colours alternate");
        }
    }
}
