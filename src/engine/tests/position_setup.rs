//! A position set up from text, with the position before the last move, must answer every
//! legality question exactly as the game that reached it by play.

use gokata_engine::{
    coord, game_from_position, parse_board, Board, Color, Game, GoError, IllegalReason, Rng,
};

fn rows(board: &Board) -> Vec<Vec<char>> {
    (0..board.height())
        .map(|r| {
            (0..board.width())
                .map(|c| board.stone(board.point(r, c)).map_or('.', Color::symbol))
                .collect()
        })
        .collect()
}

fn assert_same_answers(played: &Game, set_up: &Game, context: &str) {
    let (a, b) = (played.board(), set_up.board());
    assert_eq!(rows(a), rows(b), "{context}");
    for p in a.points() {
        for color in [Color::Black, Color::White] {
            assert_eq!(
                a.illegal_reason(p, color),
                b.illegal_reason(p, color),
                "{context}: {color} at {p}"
            );
        }
    }
}

#[test]
fn set_up_positions_know_the_ko_that_play_created() {
    let mut kos_seen = 0;
    for seed in 1..400u64 {
        let size = 2 + (seed as usize % 5);
        let mut rng = Rng::new(seed);
        let mut game = Game::new(size, size).unwrap();
        for step in 0..120 {
            let before_last = rows(game.board());
            let p = game.board().point(rng.below(size), rng.below(size));
            if rng.below(10) == 0 {
                game.pass();
            } else if game.play(p).is_err() {
                continue;
            }
            let to_move = game.to_move();
            let set_up = game_from_position(&rows(game.board()), to_move, Some(&before_last)).unwrap();
            kos_seen += usize::from(game.board().ko_point(to_move).is_some());
            assert_same_answers(&game, &set_up, &format!("seed {seed} step {step}"));
        }
    }
    assert!(
        kos_seen > 50,
        "the random games should reach ko often, saw {kos_seen}"
    );
}

#[test]
fn previous_position_not_one_move_away_bans_nothing_it_cannot_repeat() {
    // Black just took the white stone at 3B: white's retake repeats `ko_previous`...
    let current = [".xo.", "x.xo", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let ko_previous = [".xo.", "xo.o", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let game = game_from_position(&current, Color::White, Some(&ko_previous)).unwrap();
    assert_eq!(
        game.board().ko_point(Color::White),
        Some(game.board().point(1, 1))
    );
    // ...but not a previous position that also differs elsewhere.
    let other_previous = [".xo.", "xo.o", ".xo.", "...x"].map(|r| r.chars().collect::<Vec<_>>());
    let game = game_from_position(&current, Color::White, Some(&other_previous)).unwrap();
    assert_eq!(game.board().ko_point(Color::White), None);
}

#[test]
fn the_ko_from_previous_binds_whichever_colour_could_repeat_it() {
    let current = [".xo.", "x.xo", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let previous = [".xo.", "xo.o", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let game = game_from_position(&current, Color::Black, Some(&previous)).unwrap();
    assert_eq!(
        game.board().ko_point(Color::White),
        Some(game.board().point(1, 1))
    );
    assert_eq!(game.board().ko_point(Color::Black), None);
}

#[test]
fn a_previous_position_of_another_size_is_an_error() {
    let current = ["...", "...", "..."].map(|r| r.chars().collect::<Vec<_>>());
    let previous = ["..", ".."].map(|r| r.chars().collect::<Vec<_>>());
    assert!(game_from_position(&current, Color::Black, Some(&previous)).is_err());
}

/// Rows of every width near the limits (the first row's and the others'), with an unknown
/// character at each place of each row, past the 25th column too: all are refused with a
/// position error, never a panic, and where the shape is a board's the error names the
/// character and its point. (A character past the 25th column had its column letter looked up
/// and panicked.)
#[test]
fn an_unknown_character_anywhere_in_any_shape_is_an_error_not_a_panic() {
    let widths = [0, 1, 2, 24, 25, 26, 27, 31];
    for height in [1, 2, 3, 25, 26] {
        for first in widths {
            for others in widths {
                let width = |r: usize| if r == 0 { first } else { others };
                for r in 0..height {
                    for c in 0..width(r) {
                        let mut rows: Vec<Vec<char>> = (0..height).map(|i| vec!['.'; width(i)]).collect();
                        rows[r][c] = '?';
                        let Err(GoError::Position(problem)) = parse_board(&rows) else {
                            panic!("{height} rows of {first} then {others}, '?' at ({r}, {c}): not refused");
                        };
                        let board_shaped =
                            height <= 25 && (1..=25).contains(&first) && (height == 1 || others == first);
                        if board_shaped {
                            let place = format!("'?' at {} (row {}", coord::format(r, c, height), r + 1);
                            assert!(problem.contains(&place), "{problem}");
                        }
                    }
                }
            }
        }
    }
}

/// Handicap stones on a set-up position could leave a chain without liberties (a black stone
/// surrounded by white, or a white chain whose last liberties are handicap points), a board
/// no game can reach and no record can replay: they go only on an empty board.
#[test]
fn handicap_stones_go_only_on_an_empty_board() {
    let surrounded: Vec<Vec<char>> = [
        ".........",
        ".........",
        ".........",
        "....o....",
        "...o.o...",
        "....o....",
        ".........",
        ".........",
        ".........",
    ]
    .iter()
    .map(|r| r.chars().collect())
    .collect();
    let mut game = game_from_position(&surrounded, Color::Black, None).unwrap();
    let error = game.place_handicap(5).unwrap_err().to_string();
    assert!(error.contains("handicap stones go on an empty board"), "{error}");
    assert_eq!(game.board().stone_count(Color::Black), 0);
    assert!(game.board().chain_without_liberty().is_none());
    game.record().replay().unwrap();

    // An empty set-up position takes them as a new game does, and stays replayable.
    let empty = vec![vec!['.'; 9]; 9];
    let mut game = game_from_position(&empty, Color::Black, None).unwrap();
    game.place_handicap(5).unwrap();
    assert_eq!(game.board().stone_count(Color::Black), 5);
    assert!(game.board().chain_without_liberty().is_none());
    game.record().replay().unwrap();
}

/// A `previous` that no single move led from is still honoured: the move that would recreate
/// it is banned as ko, even where the point has an empty neighbour (which a ko point reached by
/// play never has), and light playouts do not play it either.
#[test]
fn ko_from_an_arbitrary_previous_bans_the_repeating_move_even_next_to_an_empty_point() {
    let chars = |rows: &[&str]| -> Vec<Vec<char>> { rows.iter().map(|r| r.chars().collect()).collect() };
    // Black at the second point takes the white stone and recreates `previous`.
    let game = game_from_position(&chars(&["o..."]), Color::Black, Some(&chars(&[".x.."]))).unwrap();
    let board = game.board();
    let repeating = board.point(0, 1);
    assert_eq!(board.ko_point(Color::Black), Some(repeating));
    assert_eq!(
        board.illegal_reason(repeating, Color::Black),
        Some(IllegalReason::Ko)
    );
    assert_eq!(board.illegal_reason(repeating, Color::White), None);
    let mut scratch = board.clone();
    for seed in 0..200 {
        let first = scratch.random_light_move(Color::Black, &mut Rng::new(seed));
        assert_ne!(first, Some(repeating), "seed {seed}");
        scratch.clone_from(board);
    }
}
