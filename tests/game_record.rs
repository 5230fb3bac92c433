//! A game rebuilt from its record is the same game: same record, same answers, same history.

mod random_play;

use random_play::random_turns;

use gokata::engine::{game_from_position, Color, Game, Rng};

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
    record.turns.push(gokata::engine::TurnRecord {
        color: Color::Black,
        point: Some((5, 0)),
        previous_to_move: Color::Black,
    });
    assert!(record.replay().is_err());
    record.turns[0].point = Some((0, 0));
    record.turns.push(record.turns[0]);
    assert!(
        record.replay().is_err(),
        "the second stone on the same point is occupied"
    );
}
