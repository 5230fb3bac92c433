use super::*;

fn game() -> ServerGame {
    let time = TimeControl::PerMove { move_ms: 1000 };
    ServerGame::new(
        "g".into(),
        9,
        "alice".into(),
        "bob".into(),
        GameTerms::plain(time),
    )
}

#[test]
fn turns_alternate_and_stale_plies_are_refused() {
    let mut g = game();
    assert_eq!(g.play(Color::White, 0, Some("5E")), Err(Refusal::NotYourTurn));
    let turn = g.play(Color::Black, 0, Some("E5")).unwrap();
    assert_eq!(turn.point.as_deref(), Some("5E"));
    assert_eq!(g.play(Color::White, 0, Some("4D")), Err(Refusal::Stale));
    assert_eq!(g.play(Color::White, 2, Some("4D")), Err(Refusal::Stale));
    assert_eq!(g.play(Color::Black, 1, Some("4D")), Err(Refusal::NotYourTurn));
    assert!(same_moves(g.moves(), &[Some("5E".to_string())]));
}

#[test]
fn captures_are_reported_in_board_order_and_illegal_moves_change_nothing() {
    let mut g = game();
    // White 1A is captured by black 2A and 1B.
    for (ply, (color, point)) in [(Color::Black, "2A"), (Color::White, "1A")]
        .into_iter()
        .enumerate()
    {
        g.play(color, ply, Some(point)).unwrap();
    }
    let turn = g.play(Color::Black, 2, Some("1B")).unwrap();
    assert_eq!(turn.captured, vec!["1A".to_string()]);
    let before = g.board_rows();
    match g.play(Color::White, 3, Some("2A")) {
        Err(Refusal::Illegal { reason, .. }) => assert_eq!(reason, "occupied"),
        other => panic!("{other:?}"),
    }
    match g.play(Color::White, 3, Some("1A")) {
        Err(Refusal::Illegal { reason, .. }) => assert_eq!(reason, "suicide"),
        other => panic!("{other:?}"),
    }
    match g.play(Color::White, 3, Some("10A")) {
        Err(Refusal::Illegal { reason, .. }) => assert_eq!(reason, "off-board"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        g.play(Color::White, 3, Some("5I")),
        Err(Refusal::Malformed(_))
    ));
    assert_eq!(g.board_rows(), before);
    assert_eq!(g.moves().len(), 3);
}

#[test]
fn two_passes_end_the_game_with_the_area_score() {
    let mut g = game();
    g.play(Color::Black, 0, Some("5E")).unwrap();
    assert_eq!(g.play(Color::White, 1, None).unwrap().result, None);
    let turn = g.play(Color::Black, 2, None).unwrap();
    let result = turn.result.unwrap();
    assert_eq!(result.winner, Some(Color::Black));
    assert_eq!(result.reason, EndReason::Passes);
    assert_eq!(result.score.map(|s| (s.black, s.white)), Some((81, 0)));
    assert_eq!(g.play(Color::White, 3, None), Err(Refusal::Stale));
    assert_eq!(
        g.end(Color::White, EndReason::Timeout),
        None,
        "a result is decided once"
    );
}

#[test]
fn the_sgf_record_reads_back_to_the_same_game() {
    let mut g = game();
    for (ply, point) in [Some("5E"), Some("4D"), None, Some("3C"), None, None]
        .into_iter()
        .enumerate()
    {
        let color = g.to_move();
        g.play(color, ply, point).unwrap();
    }
    let text = g.sgf();
    for property in [
        "PB[alice]",
        "PW[bob]",
        "KM[0.5]",
        "SZ[9]",
        ";B[ee]",
        ";W[df]",
        ";B[]",
        "RE[W+1.5]",
    ] {
        assert!(text.contains(property), "{property} in {text}");
    }
    let score = g.result().unwrap().score.unwrap();
    assert_eq!(
        (score.black, score.white),
        (1, 2),
        "5E against 4D and 3C, no territory"
    );
    let read = gokata_engine::sgf::read_collection(text.as_bytes(), true).unwrap();
    let tree = &read[0].tree;
    let last = *tree.main_line().last().unwrap();
    let replayed = gokata_engine::sgf::replay(tree, last, true).unwrap().game;
    assert_eq!(
        replayed.record(),
        g.game.record(),
        "the same turns from the same start"
    );
}

#[test]
fn an_undo_takes_back_the_last_turn_its_captures_and_its_clock() {
    let time = TimeControl::Absolute { total_ms: 10_000 };
    let mut g = ServerGame::new("g".into(), 9, "a".into(), "b".into(), GameTerms::plain(time));
    for (ply, (point, elapsed)) in [("2A", 1_000), ("1A", 2_000), ("1B", 3_000)]
        .into_iter()
        .enumerate()
    {
        let color = g.to_move();
        let clock = g.clock_after(color, elapsed).unwrap();
        g.play(color, ply, Some(point)).unwrap();
        g.set_clock(color, clock);
    }
    assert_eq!(g.clock(Color::Black).main_ms, 6_000);
    let before = g.board_rows();
    assert_eq!(g.undo_last_turn(), Some(Color::Black));
    assert_eq!(g.moves().len(), 2);
    assert_eq!(g.board_rows()[8], "o........", "the captured stone is back");
    assert_ne!(g.board_rows(), before);
    assert_eq!(
        g.clock(Color::Black).main_ms,
        9_000,
        "black's clock before its turn"
    );
    assert_eq!(g.clock(Color::White).main_ms, 8_000);
    let again = ServerGame::from_stored(&g.stored()).unwrap();
    assert_eq!(again.clocks(), g.clocks());
    assert_eq!(again.board_rows(), g.board_rows());
}

#[test]
fn a_stored_game_replays_to_the_same_state() {
    let mut g = game();
    for (ply, point) in [Some("5E"), Some("4D"), None, Some("3C")].into_iter().enumerate() {
        let color = g.to_move();
        g.play(color, ply, point).unwrap();
    }
    g.end(Color::White, EndReason::Resign);
    let again = ServerGame::from_stored(&g.stored()).unwrap();
    assert_eq!(again.board_rows(), g.board_rows());
    assert_eq!(again.to_move(), g.to_move());
    assert_eq!(again.result(), g.result());
}
