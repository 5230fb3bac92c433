//! What happens in a game besides its turns: undo, scoring by agreement, chat.

use super::fixtures::*;
use super::{contract_tests, TestDb};
use crate::game::{EndReason, ScoringPhase, UndoRequest, UndoState, CHAT_KEPT, MAX_UNDO_REQUESTS};
use crate::store::UndoStep;
use crate::store::{Outcome, Write};
use gokata_engine::{Color, Score};

contract_tests! {
    both: [
        undo_requests_refusals_and_acceptances_round_trip,
        a_scoring_change_applies_only_to_the_phase_its_writer_saw,
        chat_keeps_a_game_s_last_messages_in_order,
    ],
    postgres_only: [],
}

fn undo(plies: usize, step: UndoStep) -> Write {
    Write::Undo {
        game: "g1".into(),
        plies,
        step,
    }
}

fn accept(clocks_of_ply: usize) -> UndoStep {
    UndoStep::Accept {
        clocks: clocks_after(clocks_of_ply),
        turn_ms: 300_000,
    }
}

async fn undo_requests_refusals_and_acceptances_round_trip(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(&mut db.store, &[new_game("g1", "Alice", "bob")]).await;
    commit(
        &mut db.store,
        &[turn("g1", 0, Some("5E")), turn("g1", 1, Some("3C"))],
    )
    .await;
    let undo_state = |pending: Option<(Color, usize)>, asked: [u32; 2]| UndoState {
        pending: pending.map(|(by, ply)| UndoRequest { by, ply }),
        asked,
    };
    let ask = |by: Color, plies: usize| undo(plies, UndoStep::Ask(by));

    assert_eq!(
        commit(&mut db.store, &[ask(Color::White, 2)]).await,
        [Outcome::Done]
    );
    assert_eq!(
        game(&mut db.store, "g1").await.undo,
        undo_state(Some((Color::White, 2)), [0, 1])
    );
    let outcomes = commit(&mut db.store, &[ask(Color::Black, 2), undo(2, UndoStep::Decline)]).await;
    assert_eq!(
        outcomes,
        vec![Outcome::Rejected; 2],
        "one request at a time, and the game's writes after a rejected one"
    );
    let outcomes = commit(
        &mut db.store,
        &[undo(2, UndoStep::Decline), undo(2, UndoStep::Decline)],
    )
    .await;
    assert_eq!(outcomes, [Outcome::Done, Outcome::Rejected], "declined already");
    assert_eq!(
        commit(&mut db.store, &[ask(Color::White, 1)]).await,
        [Outcome::Rejected]
    );
    assert_eq!(game(&mut db.store, "g1").await.undo, undo_state(None, [0, 1]));

    // Asked and accepted in one batch: the last turn is taken back, the clocks as given.
    let outcomes = commit(&mut db.store, &[ask(Color::White, 2), undo(2, accept(0))]).await;
    assert_eq!(outcomes, [Outcome::Done, Outcome::Done]);
    let g1 = game(&mut db.store, "g1").await;
    assert_eq!(
        (g1.moves, g1.turn_clocks),
        (vec![Some("5E".to_string())], vec![Some(clocks_after(0))])
    );
    assert_eq!((g1.clocks, g1.undo), (clocks_after(0), undo_state(None, [0, 2])));

    // Played again; a turn declines a request still waiting.
    commit(&mut db.store, &[turn("g1", 1, Some("4D"))]).await;
    assert_eq!(
        commit(&mut db.store, &[ask(Color::White, 2)]).await,
        [Outcome::Done]
    );
    commit(&mut db.store, &[turn("g1", 2, None)]).await;
    assert_eq!(game(&mut db.store, "g1").await.undo, undo_state(None, [0, 3]));
    assert_eq!(
        commit(&mut db.store, &[undo(3, accept(2))]).await,
        [Outcome::Rejected],
        "nothing to accept"
    );
    assert_eq!(MAX_UNDO_REQUESTS, 3);
    assert_eq!(
        commit(&mut db.store, &[ask(Color::White, 3)]).await,
        [Outcome::Rejected],
        "asked the most times"
    );
    assert_eq!(
        commit(&mut db.store, &[ask(Color::Black, 3)]).await,
        [Outcome::Done]
    );
    assert_eq!(
        commit(&mut db.store, &[undo(2, accept(1))]).await,
        [Outcome::Rejected],
        "accepting a request at another turn count"
    );
    let g1 = game(&mut db.store, "g1").await;
    assert_eq!(
        (g1.moves.len(), g1.undo),
        (3, undo_state(Some((Color::Black, 3)), [1, 3]))
    );
}

async fn a_scoring_change_applies_only_to_the_phase_its_writer_saw(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(&mut db.store, &[new_game("g1", "Alice", "bob")]).await;
    commit(
        &mut db.store,
        &[
            turn("g1", 0, Some("5E")),
            turn("g1", 1, None),
            turn("g1", 2, None),
        ],
    )
    .await;
    let phase = |dead: &[&str], accepted: [bool; 2]| ScoringPhase {
        dead: dead.iter().map(|point| point.to_string()).collect(),
        accepted,
    };
    let change = |plies: usize, seen: Option<&ScoringPhase>, now: Option<&ScoringPhase>| Write::Scoring {
        game: "g1".into(),
        plies,
        scoring: now.cloned(),
        turn_ms: 300_000,
        seen: seen.cloned(),
    };
    let proposed = phase(&["5E"], [false, false]);
    let marked = phase(&[], [false, false]);
    let other_marks = phase(&["5E", "3C"], [false, false]);

    assert_eq!(
        commit(&mut db.store, &[change(3, None, Some(&proposed))]).await,
        [Outcome::Done]
    );
    assert_eq!(game(&mut db.store, "g1").await.scoring, Some(proposed.clone()));
    let outcomes = commit(
        &mut db.store,
        &[
            change(3, None, Some(&proposed)),
            // Stale: the writer's phase is not the one stored.
            change(3, Some(&marked), Some(&other_marks)),
            change(2, Some(&proposed), Some(&marked)),
        ],
    )
    .await;
    assert_eq!(outcomes, vec![Outcome::Rejected; 3]);
    assert_eq!(
        commit(&mut db.store, &[change(3, Some(&proposed), Some(&marked))]).await,
        [Outcome::Done]
    );
    assert_eq!(game(&mut db.store, "g1").await.scoring, Some(marked.clone()));

    // Resumed, played on, scored again: both accept, and the result is stored with it.
    assert_eq!(
        commit(&mut db.store, &[change(3, Some(&marked), None)]).await,
        [Outcome::Done]
    );
    assert_eq!(game(&mut db.store, "g1").await.scoring, None);
    commit(
        &mut db.store,
        &[
            turn("g1", 3, Some("3C")),
            turn("g1", 4, None),
            turn("g1", 5, None),
        ],
    )
    .await;
    let black_accepted = phase(&[], [true, false]);
    let both_accepted = phase(&[], [true, true]);
    let score = Score {
        black: 50,
        white: 31,
        komi: 0.5,
    };
    let outcomes = commit(
        &mut db.store,
        &[
            change(6, None, Some(&marked)),
            change(6, Some(&marked), Some(&black_accepted)),
            change(6, Some(&black_accepted), Some(&both_accepted)),
            scored("g1", 6, EndReason::Score, score),
        ],
    )
    .await;
    assert_eq!(outcomes[..3], vec![Outcome::Done; 3]);
    assert_eq!(finished(&outcomes[3]).0.black.wins, 1);
    let g1 = game(&mut db.store, "g1").await;
    assert_eq!(g1.scoring, None, "no phase once over");
    let result = g1.result.expect("over");
    assert_eq!(
        (result.winner, result.reason, result.score),
        (Some(Color::Black), EndReason::Score, Some(score))
    );
}

async fn chat_keeps_a_game_s_last_messages_in_order(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    commit(
        &mut db.store,
        &[new_game("g1", "Alice", "bob"), new_game("g2", "bob", "Alice")],
    )
    .await;
    let said: Vec<Write> = (0..CHAT_KEPT + 20)
        .map(|n| {
            let from = ["Alice", "bob", "watcher-7"][n % 3];
            chat(
                if n % 10 == 4 { "g2" } else { "g1" },
                from,
                &format!("message {n}"),
                n,
            )
        })
        .collect();
    let outcomes = commit(&mut db.store, &said).await;
    let ids: Vec<i64> = outcomes
        .iter()
        .map(|outcome| match outcome {
            Outcome::Chatted(id) => *id,
            other => panic!("{other:?}"),
        })
        .collect();
    // A game's messages in the order said (the store keeps no order between games).
    for id in ["g1", "g2"] {
        let of_game: Vec<i64> = said
            .iter()
            .zip(&ids)
            .filter(|(write, _)| write.game() == id)
            .map(|(_, chat_id)| *chat_id)
            .collect();
        assert!(
            of_game.windows(2).all(|pair| pair[0] < pair[1]),
            "{id}: {of_game:?}"
        );
    }

    let of_g1: Vec<_> = said
        .iter()
        .filter_map(|write| match write {
            Write::Chat { game, message } if game == "g1" => Some(message.clone()),
            _ => None,
        })
        .collect();
    let g1 = game(&mut db.store, "g1").await;
    assert!(of_g1.len() > CHAT_KEPT);
    assert_eq!(
        g1.chat,
        of_g1[of_g1.len() - CHAT_KEPT..],
        "the last ones, oldest first"
    );
    assert_eq!(
        game(&mut db.store, "g2").await.chat.len(),
        said.len() - of_g1.len()
    );

    // Another process reads a message it was told of by its id; SQLite has no other process.
    let told = db.store.chat_message(ids[4]).await.unwrap();
    let expected = db
        .store
        .is_shared()
        .then(|| ("g2".to_string(), message("bob", "message 4", 4)));
    assert_eq!(told, expected);
}
