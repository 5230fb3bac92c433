//! Seeks and pairing: both stores pair by the lobby's one rule, and a shared database pairs
//! seeks made through different processes.

use futures_util::future::join;

use super::fixtures::*;
use super::{contract_tests, TestDb};
use crate::auth;
use crate::game::ServerGame;
use crate::lobby::{Lobby, Pairing, Seek};
use crate::protocol::{Opponent, SeekColor};
use crate::rating::Rating;
use crate::store::{PairedGame, Store, StoredGame, Write};
use crate::terms::{HandicapAsk, SeekTerms};

contract_tests! {
    both: [
        seeks_pair_by_the_lobby_rule,
    ],
    // SQLite's seeks live in its one process.
    postgres_only: [
        a_seek_through_one_process_pairs_with_one_through_another,
        two_fitting_seeks_arriving_together_make_one_game,
    ],
}

fn seek(name: &str, sizes: &[usize], color: SeekColor, terms: SeekTerms) -> Seek {
    Seek {
        name: name.into(),
        sizes: sizes.to_vec(),
        color,
        opponent: Opponent::Human,
        bot: false,
        terms,
        rating: Rating::NEW,
    }
}

/// The game of a pairing, made as the hub makes it.
fn new_game(pairing: Pairing) -> StoredGame {
    ServerGame::new(
        auth::new_game_id(),
        pairing.size,
        pairing.black,
        pairing.white,
        pairing.terms,
    )
    .with_bots(pairing.bots)
    .stored()
}

/// Pairs `seek` through `store`; the pairing the store made, if any, and its game. The store
/// says it is alive first, as the hub does every second (a shared database pairs only the seeks
/// of live processes).
async fn pair(store: &mut Store, seek: Seek) -> Option<(Pairing, PairedGame)> {
    store.heartbeat().await.unwrap();
    let mut made = None;
    let paired = store
        .pair(seek, |pairing| {
            made = Some(pairing.clone());
            new_game(pairing)
        })
        .await
        .unwrap();
    made.zip(paired)
}

async fn seeks_pair_by_the_lobby_rule(mut db: TestDb) {
    let even = SeekTerms::even(TIME);
    let unrated = SeekTerms { rated: false, ..even };
    let automatic = SeekTerms {
        handicap: HandicapAsk::Auto,
        ..even
    };
    register(&mut db.store, &["ann", "ben", "cy", "dee", "eve", "fay", "gus"]).await;
    assert!(db
        .store
        .add_player("HAL", &auth::token_hash("hal"), true)
        .await
        .unwrap());
    let program = Seek {
        opponent: Opponent::Any,
        bot: true,
        ..seek("HAL", &[13], SeekColor::Any, even)
    };
    let wants_a_program = Seek {
        opponent: Opponent::Computer,
        ..seek("eve", &[13], SeekColor::Any, even)
    };
    let stronger = Seek {
        rating: Rating {
            rating: 1900.0,
            deviation: 90.0,
            volatility: 0.06,
        },
        ..seek("gus", &[19], SeekColor::Any, automatic)
    };
    let seeks = [
        seek("ann", &[9], SeekColor::Black, even),
        seek("ben", &[13], SeekColor::Any, even),
        // Fits both; ann's is the older.
        seek("cy", &[13, 9], SeekColor::White, even),
        seek("dee", &[13], SeekColor::Any, unrated),
        program,
        wants_a_program,
        // Again, for another size: the earlier seek goes.
        seek("ben", &[19], SeekColor::White, even),
        seek("fay", &[19], SeekColor::Any, automatic),
        // The weaker, fay, is black, with the handicap her rank gives.
        stronger,
    ];
    let mut lobby = Lobby::default();
    let mut games = 0;
    for seek in seeks {
        let made = pair(&mut db.store, seek.clone()).await;
        // The lobby draws the colours the store drew where both said any.
        let new_is_black = made
            .as_ref()
            .is_some_and(|(pairing, _)| pairing.black == seek.name);
        let expected = lobby.seek(seek.clone(), || new_is_black);
        assert_eq!(
            made.as_ref().map(|(pairing, _)| pairing),
            expected.as_ref(),
            "{seek:?}"
        );
        assert_eq!(
            db.store.waiting_seeks().await.unwrap(),
            lobby.waiting(),
            "after {seek:?}"
        );
        let Some((_, paired)) = made else {
            continue;
        };
        games += 1;
        assert_eq!(
            paired.stored,
            db.store.is_shared(),
            "stored with the pairing where shared"
        );
        if !paired.stored {
            commit(&mut db.store, &[Write::NewGame(Box::new(paired.game.clone()))]).await;
        }
        assert_eq!(game(&mut db.store, &paired.game.id).await, paired.game);
    }
    assert_eq!(games, 3);
    assert_eq!(db.store.live_game_ids().await.unwrap().len(), 3);

    db.store.cancel_seek("dee").await.unwrap();
    lobby.cancel("dee");
    assert_eq!(db.store.waiting_seeks().await.unwrap(), lobby.waiting());
    db.store.withdraw_seek("ben").await.unwrap();
    assert!(db.store.waiting_seeks().await.unwrap().is_empty());
}

async fn a_seek_through_one_process_pairs_with_one_through_another(mut db: TestDb) {
    register(&mut db.store, &["ann", "ben", "cy"]).await;
    let mut other = db.another().await;
    let even = SeekTerms::even(TIME);
    let ann = seek("ann", &[9], SeekColor::Black, even);
    assert!(pair(&mut db.store, ann.clone()).await.is_none());
    assert_eq!(other.waiting_seeks().await.unwrap(), [ann]);

    let (pairing, paired) = pair(&mut other, seek("ben", &[9, 13], SeekColor::Any, even))
        .await
        .expect("paired with ann's seek");
    assert_eq!(
        (pairing.black.as_str(), pairing.white.as_str(), pairing.size),
        ("ann", "ben", 9)
    );
    assert!(paired.stored);
    assert_eq!(game(&mut db.store, &paired.game.id).await, paired.game);
    assert!(db.store.waiting_seeks().await.unwrap().is_empty());

    // Withdrawn where it was made (its player's last connection there closed), or cancelled
    // anywhere.
    let cy = seek("cy", &[19], SeekColor::Any, even);
    assert!(pair(&mut db.store, cy.clone()).await.is_none());
    other.withdraw_seek("cy").await.unwrap();
    assert_eq!(db.store.waiting_seeks().await.unwrap(), [cy]);
    other.cancel_seek("cy").await.unwrap();
    assert!(db.store.waiting_seeks().await.unwrap().is_empty());
}

async fn two_fitting_seeks_arriving_together_make_one_game(mut db: TestDb) {
    let names: Vec<String> = (0..10).map(|n| format!("p{n}")).collect();
    let names_ref: Vec<&str> = names.iter().map(String::as_str).collect();
    register(&mut db.store, &names_ref).await;
    let mut other = db.another().await;
    let even = SeekTerms::even(TIME);
    for couple in names_ref.chunks(2) {
        let first = seek(couple[0], &[9, 13], SeekColor::Any, even);
        let second = seek(couple[1], &[13, 9], SeekColor::Any, even);
        let (first, second) = join(pair(&mut db.store, first), pair(&mut other, second)).await;
        let paired = match (first, second) {
            (Some(paired), None) | (None, Some(paired)) => paired,
            both => panic!("{couple:?}: not one game: {both:?}"),
        };
        let mut players = [paired.0.black.clone(), paired.0.white.clone()];
        players.sort();
        assert_eq!(players, [couple[0], couple[1]]);
        assert!(
            db.store.waiting_seeks().await.unwrap().is_empty(),
            "{couple:?}: a seek left waiting"
        );
    }
    assert_eq!(db.store.live_game_ids().await.unwrap().len(), names.len() / 2);
}
