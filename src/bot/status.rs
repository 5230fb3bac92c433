//! Which stones are dead when a game ends, judged by playouts: a stone is dead when, in most
//! playouts from the position, its point ends up the opponent's. And the area score with the
//! dead stones taken off.

use super::playout::{play_out, PASS};
use crate::engine::{area_score, default_max_moves, Board, Color, Game, Point, Rng, Score};

/// Playouts that judge the stones' status.
const STATUS_PLAYOUTS: u32 = 400;

/// The stones of `game`'s board that are dead, row by row from the top.
pub fn dead_stones(game: &Game, seed: u64) -> Vec<Point> {
    let start = game.board();
    let stones: Vec<Point> = start.points().filter(|&p| start.stone(p).is_some()).collect();
    let mut kept = vec![0u32; stones.len()];
    let mut rng = Rng::new(seed);
    let mut board = start.clone();
    let mut moves = Vec::new();
    for _ in 0..STATUS_PLAYOUTS {
        board.clone_from(start);
        moves.clear();
        let max_moves = default_max_moves(&board);
        let last = PASS;
        play_out(
            &mut board,
            game.to_move(),
            game.last_turn_was_pass(),
            last,
            max_moves,
            &mut rng,
            &mut moves,
        );
        for (count, &p) in kept.iter_mut().zip(&stones) {
            let color = start.stone(p).expect("a stone");
            *count += u32::from(owner(&board, p) == Some(color));
        }
    }
    stones
        .into_iter()
        .zip(kept)
        .filter(|&(_, count)| count * 2 < STATUS_PLAYOUTS)
        .map(|(p, _)| p)
        .collect()
}

/// Who owns `p` at the end of a playout: its stone, or the colour around an empty point.
fn owner(board: &Board, p: Point) -> Option<Color> {
    if let Some(color) = board.stone(p) {
        return Some(color);
    }
    let mut around = board.neighbours(p).into_iter().filter_map(|n| board.stone(n));
    let first = around.next()?;
    around.all(|c| c == first).then_some(first)
}

/// The area score of `board` with the stones at `dead` taken off.
pub fn score_without(board: &Board, dead: &[Point], komi: f64) -> Score {
    let stones: Vec<Vec<Option<Color>>> = (0..board.height())
        .map(|row| {
            (0..board.width())
                .map(|col| {
                    let p = board.point(row, col);
                    board.stone(p).filter(|_| !dead.contains(&p))
                })
                .collect()
        })
        .collect();
    let cleaned = Board::with_stones(&stones).expect("a board's own size");
    area_score(&cleaned, komi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::parse_board;

    #[test]
    fn a_lone_stone_in_the_opponents_area_is_dead_and_scored_so() {
        let mut rows = vec!["...xo....".to_string(); 9];
        rows[4] = "...xo..x.".to_string();
        let rows: Vec<Vec<char>> = rows.iter().map(|r| r.chars().collect()).collect();
        let board = parse_board(&rows).unwrap();
        let invader = board.point(4, 7);
        let game = Game::from_board(board.clone(), Color::Black);
        assert_eq!(dead_stones(&game, 1), [invader]);
        let score = score_without(&board, &[invader], 7.5);
        assert_eq!((score.black, score.white), (36, 45));
        let on_board = area_score(&board, 7.5);
        assert_eq!((on_board.black, on_board.white), (37, 9));
    }
}
