//! Handicap stones where GTP (section 4.1.1 of the version 2 draft) puts them: on the 3-3
//! points below 13x13, the 4-4 points from 13x13, the side and centre points only on odd
//! sizes; 2 to 4 stones on 7x7 and on even sizes, 2 to 9 on odd sizes from 9x9, none below 7x7.

use crate::{Board, Point};

/// The points of `stones` fixed handicap stones on `board` (square), or why there are none.
pub fn fixed_points(board: &Board, stones: usize) -> Result<Vec<Point>, String> {
    let size = board.height();
    if board.width() != size || size < 7 {
        return Err(format!(
            "no fixed handicap on a {size}x{} board (square boards from 7x7 only)",
            board.width()
        ));
    }
    let most = if size % 2 == 0 || size == 7 { 4 } else { 9 };
    if !(2..=most).contains(&stones) {
        return Err(format!("{size}x{size} takes 2 to {most} stones"));
    }
    let edge = if size < 13 { 2 } else { 3 };
    let (low, middle, high) = (edge, size / 2, size - 1 - edge);
    // (row from the top, column): the corners, the sides, the centre.
    let (bottom_left, top_right, top_left, bottom_right) =
        ((high, low), (low, high), (low, low), (high, high));
    let (left, right, bottom, top, centre) = (
        (middle, low),
        (middle, high),
        (high, middle),
        (low, middle),
        (middle, middle),
    );
    // GTP's order: the corners, then the sides; an odd number of stones from five puts the
    // last one on the centre.
    let on_centre = stones >= 5 && stones % 2 == 1;
    let around = [
        bottom_left,
        top_right,
        top_left,
        bottom_right,
        left,
        right,
        bottom,
        top,
    ];
    let mut order = around[..stones - usize::from(on_centre)].to_vec();
    if on_centre {
        order.push(centre);
    }
    Ok(order
        .into_iter()
        .map(|(row, col)| board.point(row, col))
        .collect())
}

/// Points for `stones` free handicap stones: the fixed ones as far as they go, then the
/// empty points farthest from the stones already chosen (the first of equals in row order).
pub fn free_points(board: &Board, stones: usize) -> Result<Vec<Point>, String> {
    let points = board.height() * board.width();
    if stones < 2 || stones >= points {
        return Err(format!(
            "{}x{} takes 2 to {} stones",
            board.height(),
            board.width(),
            points - 1
        ));
    }
    let most_fixed = (2..=stones.min(9))
        .rev()
        .find_map(|n| fixed_points(board, n).ok());
    let mut chosen = most_fixed.unwrap_or_default();
    while chosen.len() < stones {
        let distance = |p: Point| {
            let (r, c) = board.row_col(p);
            chosen
                .iter()
                .map(|&q| {
                    let (qr, qc) = board.row_col(q);
                    r.abs_diff(qr) + c.abs_diff(qc)
                })
                .min()
                .unwrap_or(usize::MAX)
        };
        let next = board
            .points()
            .filter(|p| !chosen.contains(p))
            .fold(None, |best: Option<(usize, Point)>, p| match best {
                Some((d, _)) if d >= distance(p) => best,
                _ => Some((distance(p), p)),
            })
            .expect("fewer stones than points");
        chosen.push(next.1);
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gtp::vertex::name;

    fn names(board: &Board, points: &[Point]) -> Vec<String> {
        points.iter().map(|&p| name(p, board)).collect()
    }

    #[test]
    fn fixed_handicap_points_follow_the_protocol() {
        let b19 = Board::new(19, 19).unwrap();
        assert_eq!(
            names(&b19, &fixed_points(&b19, 9).unwrap()),
            ["D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10"]
        );
        assert_eq!(
            names(&b19, &fixed_points(&b19, 5).unwrap()),
            ["D4", "Q16", "D16", "Q4", "K10"]
        );
        let b9 = Board::new(9, 9).unwrap();
        assert_eq!(names(&b9, &fixed_points(&b9, 2).unwrap()), ["C3", "G7"]);
        let b10 = Board::new(10, 10).unwrap();
        assert!(fixed_points(&b10, 5).is_err());
        assert!(fixed_points(&b9, 1).is_err());
        assert!(fixed_points(&Board::new(5, 5).unwrap(), 2).is_err());
    }

    #[test]
    fn free_handicap_points_are_distinct_and_start_with_the_fixed_ones() {
        let b9 = Board::new(9, 9).unwrap();
        let points = free_points(&b9, 12).unwrap();
        assert_eq!(points[..9], fixed_points(&b9, 9).unwrap()[..]);
        let mut unique = points.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 12);
        let b3 = Board::new(3, 3).unwrap();
        assert_eq!(free_points(&b3, 8).unwrap().len(), 8);
        assert!(free_points(&b3, 9).is_err());
    }
}
