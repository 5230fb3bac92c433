//! Players: registration and tokens, the records a result leaves, ratings, the leaderboard.

use super::fixtures::*;
use super::{contract_tests, TestDb};
use crate::auth;
use crate::game::EndReason;
use crate::rating::Rating;
use crate::store::{settle, Write, LEADERBOARD};
use crate::terms::GameTerms;
use gokata_engine::{Color, Score};

contract_tests! {
    both: [
        names_are_unique_regardless_of_case_and_keep_their_token,
        a_result_counts_a_win_and_a_loss_and_a_draw_neither,
        a_rated_result_moves_both_ratings_as_settle_counts_them,
        the_leaderboard_lists_certain_ranks_highest_first,
    ],
    postgres_only: [],
}

async fn names_are_unique_regardless_of_case_and_keep_their_token(mut db: TestDb) {
    let token = auth::new_token();
    let store = &mut db.store;
    assert!(store
        .add_player("Alice", &auth::token_hash(&token), false)
        .await
        .unwrap());
    assert!(!store
        .add_player("alice", &auth::token_hash("another"), true)
        .await
        .unwrap());
    assert!(store
        .add_player("HAL-9000", &auth::token_hash("hal"), true)
        .await
        .unwrap());

    let alice = store
        .player("ALICE")
        .await
        .unwrap()
        .expect("found regardless of case");
    assert_eq!(alice.name, "Alice", "as registered");
    assert!(auth::token_matches(&token, &alice.token_hash));
    assert!(!auth::token_matches("another", &alice.token_hash));
    let new = crate::store::Standing {
        name: "Alice".into(),
        wins: 0,
        losses: 0,
        bot: false,
        rating: Rating::NEW,
        rated_games: 0,
    };
    assert_eq!(alice.standing(), new);
    assert!(
        store.player("hal-9000").await.unwrap().unwrap().bot,
        "a program from its hello"
    );

    store.mark_bot("Alice").await.unwrap();
    assert!(
        store.player("alice").await.unwrap().unwrap().bot,
        "marked for good"
    );
    assert_eq!(store.player("carol").await.unwrap(), None);
    db.reopen().await;
    let alice = db.store.player("Alice").await.unwrap().unwrap();
    assert!(alice.bot && auth::token_matches(&token, &alice.token_hash));
}

async fn a_result_counts_a_win_and_a_loss_and_a_draw_neither(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    let even = GameTerms {
        komi: 0.0,
        ..GameTerms::plain(TIME)
    };
    let drawn = Score {
        black: 41,
        white: 41,
        komi: 0.0,
    };
    let outcomes = commit(
        &mut db.store,
        &[
            new_game("g1", "Alice", "bob"),
            new_game("g2", "bob", "Alice"),
            Write::NewGame(Box::new(game_with("g3", 9, ["Alice", "bob"], even))),
            resign("g1", Color::White, 0),
            resign("g2", Color::Black, 0),
            scored("g3", 0, EndReason::Passes, drawn),
        ],
    )
    .await;
    // Alice won g1 as black, then g2 as white; g3 was drawn.
    let (after_g1, _, _) = finished(&outcomes[3]);
    assert_eq!((after_g1.black.wins, after_g1.white.losses), (1, 1));
    let (after_g2, _, _) = finished(&outcomes[4]);
    assert_eq!((after_g2.white.wins, after_g2.black.losses), (2, 2));
    let (after_g3, _, ratings) = finished(&outcomes[5]);
    assert_eq!(ratings, None, "unrated");
    assert_eq!(
        after_g3.black.wins + after_g3.black.losses,
        2,
        "a draw counts neither"
    );
    let (alice, bob) = (
        standing(&mut db.store, "Alice").await,
        standing(&mut db.store, "bob").await,
    );
    assert_eq!(
        (&alice, &bob),
        (&after_g3.black, &after_g3.white),
        "as the outcome said"
    );
    assert_eq!((alice.wins, alice.losses, bob.wins, bob.losses), (2, 0, 0, 2));
    assert_eq!(
        (alice.rating, alice.rated_games),
        (Rating::NEW, 0),
        "unrated games"
    );
    let g3 = game(&mut db.store, "g3").await.result.expect("over");
    assert_eq!((g3.winner, g3.score), (None, Some(drawn)));
}

async fn a_rated_result_moves_both_ratings_as_settle_counts_them(mut db: TestDb) {
    register(&mut db.store, &["Alice", "bob"]).await;
    let rated = GameTerms {
        rated: true,
        ranks: ["6k?".into(), "6k?".into()],
        ..GameTerms::plain(TIME)
    };
    for (n, (black, white, loser)) in [("Alice", "bob", Color::White), ("bob", "Alice", Color::White)]
        .into_iter()
        .enumerate()
    {
        let id = format!("g{n}");
        let before = [
            standing(&mut db.store, black).await,
            standing(&mut db.store, white).await,
        ];
        let write = Write::NewGame(Box::new(game_with(&id, 13, [black, white], rated.clone())));
        commit(&mut db.store, &[write, turn(&id, 0, Some("7G"))]).await;
        let finish = resign(&id, loser, 1);
        let Write::Finish { result, .. } = &finish else {
            unreachable!("a result")
        };
        let (expected, expected_ratings) = settle(result, &rated, 13, before[0].clone(), before[1].clone());
        let outcomes = commit(&mut db.store, std::slice::from_ref(&finish)).await;
        let (records, plies, ratings) = finished(&outcomes[0]);
        assert_eq!(
            (records, plies, ratings),
            (&expected, 1, expected_ratings.as_ref())
        );
        assert_eq!(standing(&mut db.store, black).await, expected.black);
        assert_eq!(standing(&mut db.store, white).await, expected.white);
        assert!(
            expected.black.rating.rating > before[0].rating.rating,
            "the winner goes up"
        );
        assert!(
            expected.white.rating.rating < before[1].rating.rating,
            "the loser goes down"
        );
        assert_eq!(expected.black.rated_games, before[0].rated_games + 1);

        let stored = game(&mut db.store, &id).await;
        assert_eq!(
            stored.ratings, expected_ratings,
            "the game keeps its rating changes"
        );
        let now = db.store.games_now(&[(id.clone(), 1)]).await.unwrap();
        assert_eq!(now[0].ratings, expected_ratings);
        assert_eq!(now[0].records.as_ref(), Some(&expected));
        let listed = db.store.finished_games(black, None).await.unwrap();
        assert_eq!(listed[0].ratings, expected_ratings);
    }
}

async fn the_leaderboard_lists_certain_ranks_highest_first(mut db: TestDb) {
    let names = ["ann", "Ben", "cy", "Dee"];
    register(&mut db.store, &names).await;
    register(&mut db.store, &["newcomer"]).await;
    let rated = GameTerms {
        rated: true,
        ..GameTerms::plain(TIME)
    };
    // Rated games enough for the ranks to be certain, the better player of each pair (the
    // earlier name) winning three games in four.
    let mut writes = Vec::new();
    for round in 0..10 {
        for (a, b) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
            let id = format!("r{round}-{a}{b}");
            let game = game_with(&id, 19, [names[a], names[b]], rated.clone());
            writes.push(Write::NewGame(Box::new(game)));
            let loser = if round % 4 == 3 {
                Color::Black
            } else {
                Color::White
            };
            writes.push(resign(&id, loser, 0));
        }
    }
    commit(&mut db.store, &writes).await;
    // An unrated game leaves the newcomer off.
    commit(
        &mut db.store,
        &[new_game("u1", "newcomer", "ann"), resign("u1", Color::White, 0)],
    )
    .await;

    let mut expected = Vec::new();
    for name in names.iter().chain(&["newcomer"]) {
        let player = standing(&mut db.store, name).await;
        if player.rating.deviation < 160.0 && player.rated_games > 0 {
            expected.push(player);
        }
    }
    expected.sort_by(|a, b| {
        b.rating
            .rating
            .total_cmp(&a.rating.rating)
            .then(a.name.cmp(&b.name))
    });
    assert!(expected.len() >= 3, "certain enough: {expected:?}");
    assert!(expected.len() <= LEADERBOARD);
    let board = db.store.leaderboard().await.unwrap();
    assert_eq!(board, expected);
    assert_eq!(board[0].name, "ann", "the one who won most");
}
