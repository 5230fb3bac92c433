//! Games read back: as written, from a ply on, the live ones, and a player's finished games in
//! pages.

use super::fixtures::*;
use super::{contract_tests, TestDb};
use crate::auth;
use crate::game::{EndReason, GameResult, UndoRequest, UndoState};
use crate::store::{FinishedGame, Outcome, StoredGame, UndoStep, Write, GAMES_PAGE};
use crate::terms::{GameTerms, Scoring};
use crate::time_control::{Clock, TimeControl};
use gokata_engine::Color;

contract_tests! {
    both: [
        a_game_reads_back_as_written,
        games_now_reads_each_game_from_a_ply_and_leaves_unknown_ones_out,
        live_game_ids_list_the_games_on_in_the_order_made,
        finished_games_come_newest_first_in_pages,
    ],
    postgres_only: [],
}

async fn a_game_reads_back_as_written(mut db: TestDb) {
    register(&mut db.store, &["Alice"]).await;
    assert!(db
        .store
        .add_player("HAL", &auth::token_hash("hal"), true)
        .await
        .unwrap());
    let time = TimeControl::Byoyomi {
        main_ms: 600_000,
        period_ms: 30_000,
        periods: 5,
    };
    let terms = GameTerms {
        rated: true,
        handicap: 2,
        komi: 0.5,
        time,
        ranks: ["3k".into(), "1d".into()],
        scoring: Scoring::Agreement,
    };
    let mut written = game_with("g1", 19, ["Alice", "HAL"], terms);
    written.clocks[1] = Clock {
        main_ms: 0,
        periods: 4,
        ..time.new_clock()
    };
    commit(&mut db.store, &[Write::NewGame(Box::new(written.clone()))]).await;
    let mut expected = StoredGame {
        bots: [false, true],
        ..written
    };
    assert_eq!(game(&mut db.store, "g1").await, expected);

    let outcomes = commit(
        &mut db.store,
        &[
            turn("g1", 0, Some("16D")),
            turn("g1", 1, None),
            chat("g1", "Alice", "hm", 2),
            turn("g1", 2, Some("10K")),
            chat("g1", "watcher-1", "nice", 3),
            Write::Undo {
                game: "g1".into(),
                plies: 3,
                step: UndoStep::Ask(Color::White),
            },
        ],
    )
    .await;
    assert_eq!(outcomes[5], Outcome::Done);
    expected.moves = vec![Some("16D".into()), None, Some("10K".into())];
    expected.turn_clocks = (0..3).map(|ply| Some(clocks_after(ply))).collect();
    expected.clocks = clocks_after(2);
    expected.chat = vec![message("Alice", "hm", 2), message("watcher-1", "nice", 3)];
    expected.undo = UndoState {
        pending: Some(UndoRequest {
            by: Color::White,
            ply: 3,
        }),
        asked: [0, 1],
    };
    assert_eq!(game(&mut db.store, "g1").await, expected);
    db.reopen().await;
    assert_eq!(
        game(&mut db.store, "g1").await,
        expected,
        "as a restarted server reads it"
    );
    assert_eq!(db.store.game("nothing").await.unwrap(), None);

    let finish = resign("g1", Color::White, 3);
    let ratings = finished(&commit(&mut db.store, &[finish]).await[0]).2.cloned();
    assert!(ratings.is_some(), "a rated game");
    expected.result = Some(GameResult {
        winner: Some(Color::Black),
        reason: EndReason::Resign,
        score: None,
    });
    expected.ratings = ratings;
    assert_eq!(game(&mut db.store, "g1").await, expected, "over");
}

async fn games_now_reads_each_game_from_a_ply_and_leaves_unknown_ones_out(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(&mut db.store, &[new_game("g1", "Alice", "bob")]).await;
    commit(&mut db.store, &[new_game("g2", "bob", "Alice")]).await;
    commit(
        &mut db.store,
        &[
            turn("g1", 0, Some("5E")),
            turn("g1", 1, Some("3C")),
            turn("g1", 2, None),
            turn("g2", 0, Some("7G")),
            resign("g2", Color::White, 1),
        ],
    )
    .await;
    let mut now = db
        .store
        .games_now(&[("g1".into(), 1), ("nothing".into(), 0), ("g2".into(), 0)])
        .await
        .unwrap();
    now.sort_by(|a, b| a.game.id.cmp(&b.game.id));
    assert_eq!(now.len(), 2, "the unknown game left out");

    let (g1, g2) = (&now[0], &now[1]);
    let whole = game(&mut db.store, "g1").await;
    assert_eq!(g1.first_ply, 1);
    assert_eq!(g1.game.moves, whole.moves[1..]);
    assert_eq!(g1.game.turn_clocks, whole.turn_clocks[1..]);
    assert_eq!(
        StoredGame {
            moves: whole.moves.clone(),
            turn_clocks: whole.turn_clocks.clone(),
            ..g1.game.clone()
        },
        whole,
        "the rest as the game reads"
    );
    assert_eq!((&g1.records, &g1.ratings), (&None, &None), "still played");
    // A shared database keeps the clock and the turn count; SQLite's process does itself.
    assert_eq!(g1.remaining_ms.is_some(), db.store.is_shared());
    assert_eq!(g1.stored_plies, db.store.is_shared().then_some(3));

    assert_eq!((g2.first_ply, &g2.game.moves), (0, &vec![Some("7G".to_string())]));
    let records = g2.records.as_ref().expect("over: the records read with it");
    assert_eq!(records.black, standing(&mut db.store, "bob").await);
    assert_eq!(records.white, standing(&mut db.store, "Alice").await);
    assert_eq!(g2.game.result.and_then(|r| r.winner), Some(Color::Black));

    let beyond = db.store.games_now(&[("g1".into(), 7)]).await.unwrap();
    assert_eq!((beyond[0].first_ply, beyond[0].game.moves.len()), (7, 0));
}

async fn live_game_ids_list_the_games_on_in_the_order_made(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    assert!(db.store.live_game_ids().await.unwrap().is_empty());
    // One game a batch, as pairings make them.
    for id in ["m", "c", "x", "a"] {
        commit(&mut db.store, &[new_game(id, "Alice", "bob")]).await;
    }
    commit(&mut db.store, &[resign("c", Color::Black, 0)]).await;
    assert_eq!(db.store.live_game_ids().await.unwrap(), ["m", "x", "a"]);
}

async fn finished_games_come_newest_first_in_pages(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob", "carol"]).await;
    let count = GAMES_PAGE + 5;
    // Ids in no order of their own, one game a batch, as pairings make them.
    let ids: Vec<String> = (0..count).map(|n| format!("f{:03}", (n * 37) % 101)).collect();
    let mut expected = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        let (black, white) = if n % 2 == 0 {
            ("Alice", "bob")
        } else {
            ("bob", "Alice")
        };
        commit(&mut db.store, &[new_game(id, black, white)]).await;
        if n == 10 {
            commit(&mut db.store, &[new_game("other", "bob", "carol")]).await;
            commit(&mut db.store, &[new_game("live", "Alice", "carol")]).await;
        }
        let plies = n % 3;
        let mut writes: Vec<Write> = (0..plies).map(|ply| turn(id, ply, Some("5E"))).collect();
        let loser = if n % 5 == 0 { Color::Black } else { Color::White };
        writes.push(resign(id, loser, plies));
        commit(&mut db.store, &writes).await;
        expected.push(FinishedGame {
            id: id.clone(),
            size: 9,
            black: black.into(),
            white: white.into(),
            result: GameResult {
                winner: Some(loser.opponent()),
                reason: EndReason::Resign,
                score: None,
            },
            terms: GameTerms::plain(TIME),
            plies,
            ratings: None,
        });
    }
    commit(&mut db.store, &[resign("other", Color::White, 0)]).await;
    expected.reverse();

    let first = db.store.finished_games("Alice", None).await.unwrap();
    assert_eq!(first, expected[..GAMES_PAGE]);
    let last_id = first.last().map(|game| game.id.clone());
    let second = db
        .store
        .finished_games("Alice", last_id.as_deref())
        .await
        .unwrap();
    assert_eq!(second, expected[GAMES_PAGE..]);
    let after_all = db
        .store
        .finished_games("Alice", Some(&second[4].id))
        .await
        .unwrap();
    assert!(after_all.is_empty());
    assert!(db
        .store
        .finished_games("Alice", Some("nothing"))
        .await
        .unwrap()
        .is_empty());
    let carol = db.store.finished_games("carol", None).await.unwrap();
    assert_eq!(
        carol.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(),
        ["other"],
        "not the live one"
    );
    // A page may start before another player's game: the order is the order made.
    let before_other = db.store.finished_games("Alice", Some("other")).await.unwrap();
    assert_eq!(before_other, expected[count - 11..]);
}
