//! What the contract's tests build their games and batches from.

use crate::auth;
use crate::game::{ChatMessage, EndReason, GameResult};
use crate::store::{Outcome, Standing, Store, StoredGame, Write};
use crate::terms::GameTerms;
use crate::time_control::{Clock, TimeControl};
use gokata_engine::{Color, Score};

/// The time of the tests' games: long enough never to run out in a test.
pub const TIME: TimeControl = TimeControl::PerMove { move_ms: 300_000 };

/// Registers each name as a person, its token the name itself.
pub async fn register(store: &mut Store, names: &[&str]) {
    for name in names {
        assert!(
            store
                .add_player(name, &auth::token_hash(name), false)
                .await
                .unwrap(),
            "{name} registered"
        );
    }
}

/// A new game under `terms`, as the hub makes it (no turns, nobody asked anything).
pub fn game_with(id: &str, size: usize, players: [&str; 2], terms: GameTerms) -> StoredGame {
    StoredGame {
        id: id.into(),
        size,
        black: players[0].into(),
        white: players[1].into(),
        bots: [false, false],
        clocks: [terms.time.new_clock(); 2],
        terms,
        turn_clocks: Vec::new(),
        undo: Default::default(),
        chat: Vec::new(),
        scoring: None,
        ratings: None,
        moves: Vec::new(),
        result: None,
    }
}

/// An unrated 9×9 game between the two under [`TIME`].
pub fn new_game(id: &str, black: &str, white: &str) -> Write {
    Write::NewGame(Box::new(game_with(id, 9, [black, white], GameTerms::plain(TIME))))
}

/// Both clocks after the turn at `ply`: different at each ply, so that the turn each came
/// with is told by them.
pub fn clocks_after(ply: usize) -> [Clock; 2] {
    let clock = |main_ms: u64| Clock {
        main_ms,
        periods: 0,
        period_ms: 0,
        stones: 0,
    };
    let ply = ply as u64;
    [clock(300_000 - 1_000 * ply), clock(300_000 - 700 * ply)]
}

/// The turn at `ply` (a pass for `None`), with [`clocks_after`] it.
pub fn turn(game: &str, ply: usize, point: Option<&str>) -> Write {
    Write::Turn {
        game: game.into(),
        ply,
        point: point.map(String::from),
        clocks: clocks_after(ply),
        turn_ms: 300_000,
    }
}

/// `loser` resigns at `plies` turns.
pub fn resign(game: &str, loser: Color, plies: usize) -> Write {
    Write::Finish {
        game: game.into(),
        result: GameResult {
            winner: Some(loser.opponent()),
            reason: EndReason::Resign,
            score: None,
        },
        plies,
        marks: None,
    }
}

/// The game ends after two passes with this score.
pub fn scored(game: &str, plies: usize, reason: EndReason, score: Score) -> Write {
    Write::Finish {
        game: game.into(),
        result: GameResult {
            winner: score.winner(),
            reason,
            score: Some(score),
        },
        plies,
        marks: None,
    }
}

pub fn chat(game: &str, from: &str, text: &str, ply: usize) -> Write {
    Write::Chat {
        game: game.into(),
        message: message(from, text, ply),
    }
}

pub fn message(from: &str, text: &str, ply: usize) -> ChatMessage {
    ChatMessage {
        from: from.into(),
        text: text.into(),
        ply,
        at_ms: 1_700_000_000_000 + ply as u64,
        watchers: from.starts_with("watcher"),
    }
}

pub async fn commit(store: &mut Store, writes: &[Write]) -> Vec<Outcome> {
    let outcomes = store.commit(writes).await.unwrap();
    assert_eq!(outcomes.len(), writes.len(), "an outcome for each write");
    outcomes
}

pub async fn game(store: &mut Store, id: &str) -> StoredGame {
    store
        .game(id)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("no game {id}"))
}

pub async fn standing(store: &mut Store, name: &str) -> Standing {
    store
        .player(name)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("no player {name}"))
        .standing()
}

/// The records a [`Outcome::Finished`] carries; panics on any other outcome.
pub fn finished(outcome: &Outcome) -> (&crate::store::Records, usize, Option<&serde_json::Value>) {
    match outcome {
        Outcome::Finished {
            records,
            plies,
            ratings,
        } => (records, *plies, ratings.as_ref()),
        other => panic!("not finished: {other:?}"),
    }
}
