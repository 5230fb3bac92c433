//! A game rebuilt from its record is the same game: same record, same answers, same history.

use gokata_testkit::random_play::random_turns;

use gokata_engine::{game_from_position, Color, Game, IllegalReason, Rng};

fn same_answers(a: &Game, b: &Game) -> bool {
    let (x, y) = (a.board(), b.board());
    a.to_move() == b.to_move()
        && x.points().all(|p| {
            x.stone(p) == y.stone(p)
                && [Color::Black, Color::White]
                    .iter()
                    .all(|&c| x.illegal_reason(p, c) == y.illegal_reason(p, c))
        })
}

fn assert_rebuilds(game: &Game, context: &str) {
    let record = game.record();
    let mut rebuilt = record.replay().unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(rebuilt.record(), record, "{context}");
    let mut original = game.clone();
    loop {
        assert!(
            same_answers(&original, &rebuilt),
            "{context} at {} turns",
            original.turns_played()
        );
        if original.turns_played() == 0 {
            break;
        }
        original.rollback(1).unwrap();
        rebuilt.rollback(1).unwrap();
    }
    assert!(rebuilt.rollback(1).is_err());
}

#[test]
fn random_games_rebuild_exactly() {
    for seed in 0..200u64 {
        let size = 2 + seed as usize % 6;
        let mut rng = Rng::new(seed);
        let mut game = Game::new(size, size + seed as usize % 2).unwrap();
        random_turns(&mut game, &mut rng, 80);
        assert_rebuilds(&game, &format!("seed {seed}"));
    }
}

#[test]
fn handicap_and_set_up_positions_with_ko_rebuild_exactly() {
    let mut game = Game::new(9, 9).unwrap();
    game.place_handicap(3).unwrap();
    random_turns(&mut game, &mut Rng::new(5), 40);
    assert_rebuilds(&game, "handicap");
    assert!(game.record().replay().unwrap().place_handicap(1).is_err());

    let rows = [".xo.", "x.xo", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let previous = [".xo.", "xo.o", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let mut game = game_from_position(&rows, Color::White, Some(&previous)).unwrap();
    assert_rebuilds(&game, "set-up ko, no turns");
    random_turns(&mut game, &mut Rng::new(9), 30);
    assert_rebuilds(&game, "set-up ko");
}

#[test]
fn records_of_impossible_games_are_errors() {
    let mut record = Game::new(3, 3).unwrap().record();
    record.turns.push(gokata_engine::TurnRecord {
        color: Color::Black,
        point: Some((5, 0)),
        previous_to_move: Color::Black,
        forced: false,
    });
    assert!(record.replay().is_err());
    record.turns[0].point = Some((0, 0));
    record.turns.push(record.turns[0]);
    assert!(
        record.replay().is_err(),
        "the second stone on the same point is occupied"
    );
}

/// What a position answers: its stones, whose turn, and every point's legality for both.
fn answers(game: &Game) -> (Vec<Option<Color>>, Color, Vec<Option<IllegalReason>>) {
    let board = game.board();
    let stones = board.points().map(|p| board.stone(p)).collect();
    let legality = board
        .points()
        .flat_map(|p| [Color::Black, Color::White].map(|c| board.illegal_reason(p, c)))
        .collect();
    (stones, game.to_move(), legality)
}

/// Moves the rules forbid, carried out as a game record says (`play_regardless`), among
/// ordinary turns: each is a turn on record, the record rebuilds the game, and rolling back
/// goes through every earlier position to the start.
#[test]
fn rule_breaking_turns_are_on_record_and_roll_back() {
    let mut forced_seen = 0;
    for seed in 0..150u64 {
        let size = 2 + seed as usize % 4;
        let mut rng = Rng::new(seed);
        let mut game = Game::new(size, size).unwrap();
        let mut before = Vec::new();
        for _ in 0..60 {
            let p = game.board().point(rng.below(size), rng.below(size));
            let color = if rng.below(2) == 0 {
                Color::Black
            } else {
                Color::White
            };
            let position = answers(&game);
            let turns = game.turns_played();
            match rng.below(3) {
                0 => forced_seen += usize::from(game.play_regardless(color, p)),
                1 => game.pass(),
                _ => {
                    let _ = game.play(p);
                }
            }
            if game.turns_played() > turns {
                before.push(position);
            }
        }
        assert_rebuilds(&game, &format!("seed {seed}"));
        while let Some(position) = before.pop() {
            game.rollback(1).unwrap();
            assert_eq!(
                answers(&game),
                position,
                "seed {seed}, {} turns",
                game.turns_played()
            );
        }
        assert_eq!(game.turns_played(), 0);
    }
    assert!(forced_seen > 500, "{forced_seen} rule-breaking turns");
}

#[test]
fn a_turn_marked_as_breaking_the_rules_must_break_them() {
    let mut game = Game::new(3, 3).unwrap();
    let p = game.board().point(1, 1);
    game.play(p).unwrap();
    assert!(game.play_regardless(Color::White, p), "occupied");
    let mut record = game.record();
    assert!(record.turns[1].forced && !record.turns[0].forced);
    record.turns[0].forced = true;
    let Err(error) = record.replay() else {
        panic!("a legal turn marked as breaking the rules was taken");
    };
    let error = error.to_string();
    assert!(error.contains("turn 1: marked as breaking the rules"), "{error}");
}
