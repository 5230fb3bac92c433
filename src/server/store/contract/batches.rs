//! A batch of writes: committed together, each write conditional on the game as its writer saw
//! it, a result counted once; and on a shared database, the same against another process.

use std::time::Duration;

use futures_util::future::join;

use super::fixtures::*;
use super::{contract_tests, TestDb};
use crate::game::{EndReason, ScoringPhase};
use crate::store::{Outcome, UndoStep, Write};
use gokata_engine::{Color, Score};

contract_tests! {
    both: [
        a_failed_batch_stores_nothing_and_the_store_carries_on,
        each_write_of_a_batch_has_its_outcome_in_order,
        a_rejected_write_rejects_its_game_s_later_writes_in_the_batch,
        a_chat_in_a_batch_leaves_the_game_s_other_writes_as_they_are,
        a_result_is_counted_once,
    ],
    // SQLite has one writer, which is never stale, and keeps the clocks itself.
    postgres_only: [
        a_stale_turn_from_another_process_is_rejected_and_changes_nothing,
        two_processes_finishing_the_same_games_count_each_once,
        a_timeout_applies_only_once_the_time_is_up_at_that_ply,
        a_game_scored_when_time_ran_out_needs_the_marks_still_stored,
    ],
}

async fn a_failed_batch_stores_nothing_and_the_store_carries_on(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    let writes = [
        new_game("g1", "Alice", "bob"),
        turn("g1", 0, Some("5E")),
        chat("g1", "Alice", "hello", 1),
        // Nobody is registered as carol: the batch fails.
        new_game("g2", "Alice", "carol"),
    ];
    assert!(db.store.commit(&writes).await.is_err(), "a game of nobody");
    assert_eq!(
        db.store.game("g1").await.unwrap(),
        None,
        "nothing of the batch stored"
    );
    assert!(db.store.live_game_ids().await.unwrap().is_empty());

    let outcomes = commit(&mut db.store, &writes[..3]).await;
    assert!(
        matches!(outcomes[..], [Outcome::Done, Outcome::Done, Outcome::Chatted(_)]),
        "{outcomes:?}"
    );
    // The same game again: its id is taken, and the game stays as it was.
    assert!(db.store.commit(&[new_game("g1", "bob", "Alice")]).await.is_err());
    let stored = game(&mut db.store, "g1").await;
    assert_eq!(
        (stored.black.as_str(), stored.moves.len(), stored.chat.len()),
        ("Alice", 1, 1)
    );
}

async fn each_write_of_a_batch_has_its_outcome_in_order(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob", "carol"]).await;
    let outcomes = commit(
        &mut db.store,
        &[
            new_game("g1", "Alice", "bob"),
            new_game("g2", "carol", "Alice"),
            turn("g1", 0, Some("5E")),
            turn("g2", 0, Some("3C")),
            turn("g1", 1, None),
            chat("g2", "carol", "hi", 1),
            turn("g2", 1, Some("7G")),
            resign("g1", Color::Black, 2),
        ],
    )
    .await;
    assert_eq!(outcomes[..5], vec![Outcome::Done; 5]);
    assert!(matches!(outcomes[5], Outcome::Chatted(_)), "{:?}", outcomes[5]);
    assert_eq!(outcomes[6], Outcome::Done);
    let (records, plies, ratings) = finished(&outcomes[7]);
    assert_eq!((plies, ratings), (2, None), "an unrated game of two turns");
    assert_eq!((records.black.losses, records.white.wins), (1, 1));

    let g1 = game(&mut db.store, "g1").await;
    assert_eq!(g1.moves, vec![Some("5E".to_string()), None]);
    assert_eq!(
        g1.result.map(|r| (r.winner, r.reason)),
        Some((Some(Color::White), EndReason::Resign))
    );
    let g2 = game(&mut db.store, "g2").await;
    assert_eq!(g2.moves, vec![Some("3C".to_string()), Some("7G".to_string())]);
    assert_eq!(g2.chat, vec![message("carol", "hi", 1)]);
    assert_eq!(db.store.live_game_ids().await.unwrap(), vec!["g2".to_string()]);
}

/// The hub stores both players' acceptance of the marks and the result in one batch: the result
/// must not apply if the acceptance did not.
async fn a_rejected_write_rejects_its_game_s_later_writes_in_the_batch(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(
        &mut db.store,
        &[
            new_game("g1", "Alice", "bob"),
            new_game("g2", "bob", "Alice"),
            turn("g1", 0, None),
            turn("g1", 1, None),
        ],
    )
    .await;
    let phase = ScoringPhase {
        dead: vec![],
        accepted: [false, false],
    };
    let both_accepted = ScoringPhase {
        dead: vec![],
        accepted: [true, true],
    };
    let scoring = |seen: Option<&ScoringPhase>, now: &ScoringPhase| Write::Scoring {
        game: "g1".into(),
        plies: 2,
        scoring: Some(now.clone()),
        turn_ms: 300_000,
        seen: seen.cloned(),
    };
    let score = Score {
        black: 0,
        white: 0,
        komi: 0.5,
    };
    let outcomes = commit(
        &mut db.store,
        &[
            // The game is not being scored: the writer saw a phase that is not stored.
            scoring(Some(&phase), &both_accepted),
            scored("g1", 2, EndReason::Score, score),
            turn("g2", 0, Some("5E")),
            chat("g1", "Alice", "gg", 2),
        ],
    )
    .await;
    assert_eq!(
        outcomes[..3],
        [Outcome::Rejected, Outcome::Rejected, Outcome::Done]
    );
    assert!(
        matches!(outcomes[3], Outcome::Chatted(_)),
        "a chat is stored whatever else"
    );
    let g1 = game(&mut db.store, "g1").await;
    assert_eq!((g1.result, g1.scoring), (None, None));
    assert_eq!(standing(&mut db.store, "Alice").await.wins, 0);

    // Entered as it is stored, the phase and the result apply together.
    let outcomes = commit(
        &mut db.store,
        &[
            scoring(None, &phase),
            scoring(Some(&phase), &both_accepted),
            scored("g1", 2, EndReason::Score, score),
        ],
    )
    .await;
    assert_eq!(outcomes[..2], [Outcome::Done, Outcome::Done]);
    let (records, plies, _) = finished(&outcomes[2]);
    assert_eq!((records.white.wins, plies), (1, 2));
}

/// A chat is no condition of anything: a player's message and move of one batch both apply.
async fn a_chat_in_a_batch_leaves_the_game_s_other_writes_as_they_are(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(&mut db.store, &[new_game("g1", "Alice", "bob")]).await;
    let outcomes = commit(
        &mut db.store,
        &[
            chat("g1", "Alice", "good luck", 0),
            turn("g1", 0, Some("5E")),
            chat("g1", "bob", "thanks", 1),
            turn("g1", 1, Some("3C")),
            chat("g1", "Alice", "oops, gg", 2),
            resign("g1", Color::Black, 2),
        ],
    )
    .await;
    for at in [0, 2, 4] {
        assert!(matches!(outcomes[at], Outcome::Chatted(_)), "{outcomes:?}");
    }
    assert_eq!([&outcomes[1], &outcomes[3]], [&Outcome::Done; 2], "{outcomes:?}");
    assert_eq!(finished(&outcomes[5]).1, 2, "{outcomes:?}");
    let g1 = game(&mut db.store, "g1").await;
    assert_eq!(g1.moves.len(), 2);
    assert_eq!(g1.chat.len(), 3);
    assert!(g1.result.is_some());
}

async fn a_result_is_counted_once(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(
        &mut db.store,
        &[new_game("g1", "Alice", "bob"), turn("g1", 0, Some("5E"))],
    )
    .await;
    let outcomes = commit(
        &mut db.store,
        &[resign("g1", Color::Black, 1), resign("g1", Color::White, 1)],
    )
    .await;
    let (records, _, _) = finished(&outcomes[0]);
    assert_eq!((records.black.losses, records.white.wins), (1, 1));
    assert_eq!(outcomes[1], Outcome::Rejected, "the game was over");

    // Later, nothing changes a finished game either.
    let outcomes = commit(
        &mut db.store,
        &[
            resign("g1", Color::White, 1),
            Write::Undo {
                game: "g1".into(),
                plies: 1,
                step: UndoStep::Ask(Color::Black),
            },
            Write::Scoring {
                game: "g1".into(),
                plies: 1,
                scoring: Some(ScoringPhase {
                    dead: vec![],
                    accepted: [false; 2],
                }),
                turn_ms: 1_000,
                seen: None,
            },
        ],
    )
    .await;
    assert_eq!(outcomes, vec![Outcome::Rejected; 3]);
    let (alice, bob) = (
        standing(&mut db.store, "Alice").await,
        standing(&mut db.store, "bob").await,
    );
    assert_eq!((alice.wins, alice.losses, bob.wins, bob.losses), (0, 1, 1, 0));
    let g1 = game(&mut db.store, "g1").await;
    assert_eq!(g1.result.and_then(|r| r.winner), Some(Color::White));
    assert_eq!((g1.undo, g1.scoring), (Default::default(), None));
}

async fn a_stale_turn_from_another_process_is_rejected_and_changes_nothing(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    let mut other = db.another().await;
    commit(
        &mut db.store,
        &[new_game("g1", "Alice", "bob"), new_game("g2", "bob", "Alice")],
    )
    .await;
    commit(&mut db.store, &[turn("g1", 0, Some("5E"))]).await;

    // The other process had not seen that turn: its own at ply 0, and the game's result
    // after it, are stale; its turn of another game is not.
    let outcomes = commit(
        &mut other,
        &[
            turn("g1", 0, Some("3C")),
            resign("g1", Color::White, 1),
            turn("g2", 0, Some("7G")),
        ],
    )
    .await;
    assert_eq!(
        outcomes,
        vec![Outcome::Rejected, Outcome::Rejected, Outcome::Done]
    );
    for store in [&mut db.store, &mut other] {
        let g1 = game(store, "g1").await;
        assert_eq!(
            (g1.moves, g1.turn_clocks, g1.result),
            (vec![Some("5E".to_string())], vec![Some(clocks_after(0))], None)
        );
        assert_eq!(game(store, "g2").await.moves.len(), 1);
        assert_eq!(
            standing(store, "Alice").await.wins + standing(store, "bob").await.wins,
            0
        );
    }

    // Caught up, the other process plays on; now the first one is behind.
    assert_eq!(
        commit(&mut other, &[turn("g1", 1, Some("3C"))]).await,
        vec![Outcome::Done]
    );
    assert_eq!(
        commit(&mut db.store, &[turn("g1", 1, Some("4D"))]).await,
        vec![Outcome::Rejected]
    );
    let moves = game(&mut db.store, "g1").await.moves;
    assert_eq!(moves, vec![Some("5E".to_string()), Some("3C".to_string())]);
}

async fn two_processes_finishing_the_same_games_count_each_once(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    let mut other = db.another().await;
    let ids: Vec<String> = (0..6).map(|n| format!("g{n}")).collect();
    let games: Vec<Write> = ids.iter().map(|id| new_game(id, "Alice", "bob")).collect();
    commit(&mut db.store, &games).await;

    // Each process ends every game, each for a different winner, and in another order.
    let black_wins: Vec<Write> = ids.iter().map(|id| resign(id, Color::White, 0)).collect();
    let white_wins: Vec<Write> = ids.iter().rev().map(|id| resign(id, Color::Black, 0)).collect();
    let (first, second) = join(db.store.commit(&black_wins), other.commit(&white_wins)).await;
    let (first, mut second) = (first.unwrap(), second.unwrap());
    second.reverse();
    let mut alice_wins = 0;
    for (at, id) in ids.iter().enumerate() {
        let winner = match (&first[at], &second[at]) {
            (Outcome::Finished { .. }, Outcome::Rejected) => Color::Black,
            (Outcome::Rejected, Outcome::Finished { .. }) => Color::White,
            outcomes => panic!("game {id}: {outcomes:?}"),
        };
        alice_wins += usize::from(winner == Color::Black);
        let stored = game(&mut db.store, id).await;
        assert_eq!(stored.result.and_then(|r| r.winner), Some(winner), "{id}");
    }
    let (alice, bob) = (
        standing(&mut other, "Alice").await,
        standing(&mut other, "bob").await,
    );
    assert_eq!(
        (alice.wins as usize, alice.losses as usize),
        (alice_wins, ids.len() - alice_wins)
    );
    assert_eq!((bob.wins, bob.losses), (alice.losses, alice.wins));
}

async fn a_timeout_applies_only_once_the_time_is_up_at_that_ply(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(&mut db.store, &[new_game("g1", "Alice", "bob")]).await;
    let timeout = |plies: usize| Write::Finish {
        game: "g1".into(),
        result: crate::game::GameResult {
            winner: Some(Color::Black),
            reason: EndReason::Timeout,
            score: None,
        },
        plies,
        marks: None,
    };
    assert_eq!(
        commit(&mut db.store, &[timeout(0)]).await,
        vec![Outcome::Rejected],
        "time left"
    );
    // White has 200 ms for its turn.
    let short_turn = Write::Turn {
        game: "g1".into(),
        ply: 0,
        point: Some("5E".into()),
        clocks: clocks_after(0),
        turn_ms: 200,
    };
    assert_eq!(commit(&mut db.store, &[short_turn]).await, vec![Outcome::Done]);
    let now = db.store.games_now(&[("g1".into(), 0)]).await.unwrap();
    assert!(
        now[0].remaining_ms.is_some_and(|ms| ms <= 200),
        "{:?}",
        now[0].remaining_ms
    );
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(
        commit(&mut db.store, &[turn("g1", 1, Some("3C")), timeout(0)]).await,
        vec![Outcome::Rejected; 2],
        "a turn too late, and a timeout of a turn no longer the last"
    );
    let outcomes = commit(&mut db.store, &[timeout(1)]).await;
    assert_eq!(finished(&outcomes[0]).0.black.wins, 1);
    assert_eq!(game(&mut db.store, "g1").await.moves.len(), 1);
}

async fn a_game_scored_when_time_ran_out_needs_the_marks_still_stored(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(
        &mut db.store,
        &[
            new_game("g1", "Alice", "bob"),
            turn("g1", 0, None),
            turn("g1", 1, None),
        ],
    )
    .await;
    let proposed = ScoringPhase {
        dead: vec!["5E".into()],
        accepted: [false, false],
    };
    let marked = ScoringPhase {
        dead: vec![],
        accepted: [false, false],
    };
    // The players have a second and a half to agree (time enough to be refused first, on a
    // busy machine).
    let enter = Write::Scoring {
        game: "g1".into(),
        plies: 2,
        scoring: Some(proposed.clone()),
        turn_ms: 1_500,
        seen: None,
    };
    assert_eq!(commit(&mut db.store, &[enter]).await, vec![Outcome::Done]);
    let score = Score {
        black: 0,
        white: 0,
        komi: 0.5,
    };
    let scored_with = |marks: &ScoringPhase| Write::Finish {
        game: "g1".into(),
        result: crate::game::GameResult {
            winner: score.winner(),
            reason: EndReason::Score,
            score: Some(score),
        },
        plies: 2,
        marks: Some(marks.clone()),
    };
    assert_eq!(
        commit(&mut db.store, &[scored_with(&proposed)]).await,
        vec![Outcome::Rejected],
        "time to agree left"
    );
    tokio::time::sleep(Duration::from_millis(1_600)).await;
    assert_eq!(
        commit(&mut db.store, &[scored_with(&marked)]).await,
        vec![Outcome::Rejected],
        "marks another process changed since"
    );
    let outcomes = commit(&mut db.store, &[scored_with(&proposed)]).await;
    assert_eq!(finished(&outcomes[0]).0.white.wins, 1);
    assert_eq!(
        game(&mut db.store, "g1").await.scoring,
        None,
        "no phase once over"
    );
}
