//! Which stones are dead when a game ends, judged by playouts: a stone is dead when, in most
//! playouts from the position, its point ends up the opponent's; which are in seki, told from
//! the board; and the area score with the dead stones taken off.

use super::playout::{play_out, Policy, PASS};
use crate::{area_score, default_max_moves, Board, Color, Game, Point, Rng, Score};

/// Playouts that judge the stones' status.
const STATUS_PLAYOUTS: u32 = 400;

/// The stones of `game`'s board that are dead, row by row from the top. Stones in seki are
/// alive, whatever the playouts (which fill the shared liberties in the end) say.
pub fn dead_stones(game: &Game, seed: u64) -> Vec<Point> {
    let start = game.board();
    let seki = seki_stones(start);
    let stones: Vec<Point> = start
        .points()
        .filter(|&p| start.stone(p).is_some() && !seki.contains(&p))
        .collect();
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
            Policy::Status,
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

/// The stones in seki, row by row from the top: the chains of both colours around an empty
/// point that neither side can fill, a point next to stones of both colours where a stone of
/// either would be a self-atari (or suicide). Two chains that share their last two
/// liberties, or one liberty and an eye each, are in seki so; an ordinary dame between two
/// living groups is not (filling it leaves liberties), nor a chain the opponent can take.
pub fn seki_stones(board: &Board) -> Vec<Point> {
    let mut heads: Vec<Point> = Vec::new();
    for p in board.points().filter(|&p| board.is_empty(p)) {
        let around: Vec<Point> = board
            .neighbours(p)
            .into_iter()
            .filter(|&n| board.stone(n).is_some())
            .collect();
        let touches = |color| around.iter().any(|&n| board.stone(n) == Some(color));
        if !(touches(Color::Black) && touches(Color::White)) {
            continue;
        }
        let unfillable = |color| board.illegal_reason(p, color).is_some() || board.is_self_atari(p, color);
        if unfillable(Color::Black) && unfillable(Color::White) {
            heads.extend(around);
        }
    }
    let mut stones: Vec<Point> = Vec::new();
    for head in heads {
        if !stones.contains(&head) {
            stones.extend(board.chain(head));
        }
    }
    stones.sort_unstable();
    stones
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
    use crate::parse_board;

    fn board(rows: &str) -> Board {
        let rows: Vec<Vec<char>> = rows.lines().map(|r| r.chars().collect()).collect();
        parse_board(&rows).unwrap()
    }

    #[test]
    fn two_chains_sharing_their_last_two_liberties_are_in_seki_and_alive() {
        // Black's three stones at the top and white's seven share (0, 0) and (1, 1), their
        // only liberties: whoever fills one is taken.
        let b = board(".xxox\no.xox\noooox\nxxxxx\n.....");
        let seki = seki_stones(&b);
        let expected: Vec<Point> = b
            .points()
            .filter(|&p| b.stone(p).is_some() && b.row_col(p).0 <= 2 && b.row_col(p).1 <= 3)
            .collect();
        assert_eq!(seki, expected);
        assert_eq!(seki.len(), 10);
        let game = Game::from_board(b.clone(), Color::Black);
        assert!(dead_stones(&game, 1).is_empty());
        let score = score_without(&b, &[], 0.0);
        assert_eq!(
            (score.black, score.white),
            (16, 7),
            "the shared liberties are no one's"
        );
        // A black stone at (1, 1) instead: black's chain is left one liberty, which white
        // fills to take it; no seki.
        let b = board("..xox\noxxox\noooox\nxxxxx\n.....");
        assert!(seki_stones(&b).is_empty());
    }

    #[test]
    fn dame_between_living_groups_is_no_seki() {
        let b = board("..xo.\n..xo.\n..x.o\n..xo.\n..xo.");
        assert!(seki_stones(&b).is_empty());
    }

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
