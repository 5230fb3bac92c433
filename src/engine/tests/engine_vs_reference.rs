//! Random games, with passes and rollbacks, played on the engine and on a naive board: every
//! point, stone, liberty count and legality answer must agree at every step.

use gokata_engine::{Color, Game, IllegalReason, Rng};
use gokata_testkit::reference::{NaiveBoard, NaiveGame};

fn color_code(color: Color) -> u8 {
    color as u8
}

fn assert_same(game: &Game, naive: &NaiveGame, context: &str) {
    let board = game.board();
    let model = naive.board();
    assert_eq!(
        color_code(game.to_move()),
        naive.color(),
        "{context}: side to move"
    );
    for row in 0..board.height() {
        for col in 0..board.width() {
            let i = row * board.width() + col;
            let p = board.point(row, col);
            let stone = board.stone(p).map_or(0, color_code);
            assert_eq!(stone, model.cells[i], "{context}: stone at ({row}, {col})");
            if stone != 0 {
                assert_eq!(
                    board.liberties(p),
                    model.chain_and_liberties(i).1.len(),
                    "{context}: liberties at ({row}, {col})"
                );
                continue;
            }
            for color in [Color::Black, Color::White] {
                let n = naive.positions.len();
                let two_back: Option<&NaiveBoard> =
                    (n >= 2 && naive.color() == color_code(color)).then(|| &naive.positions[n - 2]);
                let expected = model.after_move(i, color_code(color), two_back).err();
                let got = board.illegal_reason(p, color).map(IllegalReason::name);
                assert_eq!(got, expected, "{context}: legality of {color} at ({row}, {col})");
            }
        }
    }
    assert_eq!(
        board.empty_points().len(),
        model.cells.iter().filter(|&&c| c == 0).count()
    );
}

fn random_game(height: usize, width: usize, seed: u64, steps: usize) {
    let mut rng = Rng::new(seed);
    let mut game = Game::new(height, width).unwrap();
    let mut naive = NaiveGame::new(height, width);
    for step in 0..steps {
        let context = format!("{height}x{width} seed {seed} step {step}");
        match rng.below(20) {
            0 => {
                game.pass();
                naive.pass();
            }
            1 => {
                let turns = rng.below(4);
                let ok = game.rollback(turns as i64).is_ok();
                assert_eq!(ok, turns < naive.positions.len(), "{context}: rollback {turns}");
                if ok {
                    naive.rollback(turns);
                }
            }
            _ => {
                let (row, col) = (rng.below(height), rng.below(width));
                let p = game.board().point(row, col);
                let got = game.play(p).is_ok();
                let expected = naive.play(row * width + col).is_ok();
                assert_eq!(got, expected, "{context}: move at ({row}, {col})");
            }
        }
        assert_same(&game, &naive, &context);
    }
    // Unwinding the whole game brings back the empty board.
    let turns = game.turns_played();
    game.rollback(turns as i64).unwrap();
    naive.rollback(turns);
    assert_same(&game, &naive, "after rolling everything back");
}

#[test]
fn small_boards_where_captures_and_ko_are_frequent() {
    for seed in 0..60 {
        for (h, w) in [(1, 1), (1, 2), (1, 5), (2, 2), (2, 3), (3, 3), (4, 4), (5, 3)] {
            random_game(h, w, seed * 31 + h as u64 * 7 + w as u64, 150);
        }
    }
}

#[test]
fn full_size_boards() {
    for seed in 0..4 {
        for (h, w) in [(9, 9), (13, 7), (19, 19), (25, 25), (25, 1)] {
            random_game(h, w, 1000 + seed, 900);
        }
    }
}
