//! Playouts and area scores, checked against independent flood-fill code.

use std::time::Duration;

use gokata_engine::{
    area_score, default_max_moves, playout, playout_rng, Board, Color, Game, PlayoutPlan, PlayoutSummary, Rng,
};

/// Area score by flood fill over a plain grid: (black, white).
fn naive_area(board: &Board) -> (u32, u32) {
    let (h, w) = (board.height(), board.width());
    let cell = |r: usize, c: usize| board.stone(board.point(r, c)).map_or(0, |s| s as u8);
    let mut seen = vec![false; h * w];
    let mut area = [0u32; 3];
    for r in 0..h {
        for c in 0..w {
            let color = cell(r, c);
            if color != 0 {
                area[color as usize] += 1;
                continue;
            }
            if seen[r * w + c] {
                continue;
            }
            let (mut stack, mut size, mut touches) = (vec![(r, c)], 0, [false; 3]);
            seen[r * w + c] = true;
            while let Some((y, x)) = stack.pop() {
                size += 1;
                let mut next = vec![];
                if y > 0 {
                    next.push((y - 1, x));
                }
                if y + 1 < h {
                    next.push((y + 1, x));
                }
                if x > 0 {
                    next.push((y, x - 1));
                }
                if x + 1 < w {
                    next.push((y, x + 1));
                }
                for (ny, nx) in next {
                    match cell(ny, nx) {
                        0 if !seen[ny * w + nx] => {
                            seen[ny * w + nx] = true;
                            stack.push((ny, nx));
                        }
                        0 => {}
                        s => touches[s as usize] = true,
                    }
                }
            }
            match (touches[1], touches[2]) {
                (true, false) => area[1] += size,
                (false, true) => area[2] += size,
                _ => {}
            }
        }
    }
    (area[1], area[2])
}

/// Whether `color` has a legal move that does not fill its own simple eye.
fn has_light_move(board: &Board, color: Color) -> bool {
    board.points().any(|p| {
        board.is_empty(p) && !board.is_simple_eye(p, color) && board.illegal_reason(p, color).is_none()
    })
}

#[test]
fn finished_playouts_end_with_no_light_move_and_score_by_area() {
    for seed in 0..300 {
        let size = 2 + seed as usize % 8;
        let mut board = Board::new(size, size - seed as usize % 2).unwrap();
        let cap = default_max_moves(&board);
        let result = playout(&mut board, Color::Black, false, cap, 0.5, &mut Rng::new(seed));
        assert!(result.moves <= cap);
        if result.moves < cap {
            assert!(
                !has_light_move(&board, Color::Black),
                "seed {seed}: black could still move"
            );
            assert!(
                !has_light_move(&board, Color::White),
                "seed {seed}: white could still move"
            );
        }
        let (black, white) = naive_area(&board);
        assert_eq!(
            (result.score.black, result.score.white),
            (black, white),
            "seed {seed}"
        );
        assert_eq!(area_score(&board, 0.5), result.score);
    }
}

#[test]
fn playouts_are_reproducible_and_leave_the_game_alone() {
    let mut game = Game::new(9, 9).unwrap();
    game.play(game.board().point(4, 4)).unwrap();
    let before: Vec<_> = game.board().points().map(|p| game.board().stone(p)).collect();
    let a = game.playout(243, 0.5, &mut Rng::new(11));
    let b = game.playout(243, 0.5, &mut Rng::new(11));
    assert_eq!(a, b);
    let after: Vec<_> = game.board().points().map(|p| game.board().stone(p)).collect();
    assert_eq!(before, after);
    assert_eq!(game.turns_played(), 1);
}

#[test]
fn a_playout_after_a_pass_ends_at_the_next_pass() {
    // Black has only eyes; white only suicide points: both pass at once.
    let rows: Vec<Vec<char>> = [".x.", "xxx", ".x."]
        .iter()
        .map(|r| r.chars().collect())
        .collect();
    let mut game = gokata_engine::game_from_position(&rows, Color::White, None).unwrap();
    assert_eq!(game.playout(27, 0.5, &mut Rng::new(1)).moves, 2);
    game.pass();
    assert_eq!(game.playout(27, 0.5, &mut Rng::new(1)).moves, 1);
    let score = game.playout(27, 0.5, &mut Rng::new(1)).score;
    assert_eq!((score.black, score.white), (9, 0));
    assert_eq!(score.winner(), Some(Color::Black));
}

#[test]
fn komi_decides_close_games_and_equal_areas_draw() {
    let rows: Vec<Vec<char>> = ["x.o"].iter().map(|r| r.chars().collect()).collect();
    let game = gokata_engine::game_from_position(&rows, Color::Black, None).unwrap();
    let board = game.board();
    assert_eq!(area_score(board, 0.5).winner(), Some(Color::White));
    assert_eq!(area_score(board, 0.0).winner(), None);
    assert_eq!(area_score(board, -0.5).winner(), Some(Color::Black));
}

fn plan(count: u64, max_moves: u32, seed: u64, threads: usize) -> PlayoutPlan {
    PlayoutPlan {
        count,
        max_moves,
        komi: 0.5,
        seed,
        threads,
    }
}

/// `stop` is asked before each playout and every `STOP_CHECK_MOVES` moves within one, so a
/// caller can give up on any count and any move cap; a playout that is not stopped is the
/// same as without it.
#[test]
fn playouts_stop_when_asked() {
    let game = Game::new(19, 19).unwrap();
    let poll = Duration::from_millis(1);
    let mut asked = 0;
    let stopped = game.playouts_until(
        &plan(u64::MAX, u32::MAX, 3, 1),
        &mut || {
            asked += 1;
            asked > 50
        },
        poll,
    );
    assert!(stopped.is_none());
    assert_eq!(asked, 51);

    let mut asked = 0;
    let whole = game.playout_until(u32::MAX, 0.5, &mut Rng::new(5), &mut || {
        asked += 1;
        false
    });
    assert_eq!(whole, Some(game.playout(u32::MAX, 0.5, &mut Rng::new(5))));
    let moves = whole.unwrap().moves;
    assert_eq!(asked, moves.div_ceil(gokata_engine::STOP_CHECK_MOVES));

    let mut asked = 0;
    let summary = game.playouts_until(
        &plan(3, 10, 5, 1),
        &mut || {
            asked += 1;
            false
        },
        poll,
    );
    assert_eq!(summary, Some(game.playouts(&plan(3, 10, 5, 1))));
    assert_eq!(asked, 3);
}

/// Threads share the playouts out, and each playout's random stream depends only on the seed
/// and its number: any thread count gives the same summary, which is that of the playouts one
/// by one.
#[test]
fn playouts_are_the_same_whatever_the_thread_count() {
    let mut game = Game::new(9, 9).unwrap();
    for (row, col) in [(4, 4), (2, 6), (6, 2)] {
        game.play(game.board().point(row, col)).unwrap();
    }
    for seed in [0, 1, u64::MAX] {
        let one_by_one = (0..37).fold(PlayoutSummary::default(), |mut summary, number| {
            let mut rng = playout_rng(seed, number);
            summary.add(&game.playout(243, 0.5, &mut rng));
            summary
        });
        for threads in [1, 2, 3, 8, 37, 100] {
            assert_eq!(
                game.playouts(&plan(37, 243, seed, threads)),
                one_by_one,
                "seed {seed}, {threads} threads"
            );
        }
    }
    assert_ne!(
        game.playouts(&plan(37, 243, 0, 2)),
        game.playouts(&plan(37, 243, 1, 2))
    );
    assert_eq!(game.playouts(&plan(0, 243, 0, 4)), PlayoutSummary::default());
}

/// With several threads `stop` is asked on the calling thread while it waits, and the threads
/// give up too.
#[test]
fn threaded_playouts_stop_when_asked() {
    let game = Game::new(19, 19).unwrap();
    let mut asked = 0;
    let stopped = game.playouts_until(
        &plan(u64::MAX, u32::MAX, 3, 2),
        &mut || {
            asked += 1;
            asked > 3
        },
        Duration::from_millis(1),
    );
    assert!(stopped.is_none());
    assert_eq!(asked, 4);
}
