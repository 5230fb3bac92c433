use super::*;
use crate::game::{EndReason, GameResult};
use crate::terms::GameTerms;
use crate::time_control::TimeControl;

const TIME: TimeControl = TimeControl::PerMove { move_ms: 300_000 };

fn store() -> (SqliteStore, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!(
        "gokata-store-test-{}-{:?}.sqlite3",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_file(&path);
    (SqliteStore::open(&path).unwrap(), path)
}

fn new_game(id: &str) -> StoredGame {
    StoredGame {
        id: id.into(),
        size: 9,
        black: "Alice".into(),
        white: "bob".into(),
        bots: [false, true],
        terms: GameTerms::plain(TIME),
        clocks: [TIME.new_clock(); 2],
        turn_clocks: Vec::new(),
        undo: Default::default(),
        chat: Vec::new(),
        scoring: None,
        ratings: None,
        moves: vec![],
        result: None,
    }
}

#[test]
fn names_are_unique_regardless_of_case() {
    let (mut store, path) = store();
    assert!(store.add_player("Alice", &[1; 32], false).unwrap());
    assert!(!store.add_player("alice", &[2; 32], true).unwrap());
    let alice = store.player("ALICE").unwrap().unwrap();
    assert_eq!(
        (alice.name.as_str(), alice.token_hash, alice.bot),
        ("Alice", [1; 32], false)
    );
    store.mark_bot("Alice").unwrap();
    assert!(store.player("alice").unwrap().unwrap().bot, "marked for good");
    assert_eq!(store.player("carol").unwrap(), None);
    std::fs::remove_file(path).ok();
}

#[test]
fn a_result_is_counted_once_and_survives_reopening() {
    let (mut store, path) = store();
    store.add_player("Alice", &[1; 32], false).unwrap();
    store.add_player("bob", &[2; 32], true).unwrap();
    let turn = |ply, point: Option<&str>| Write::Turn {
        game: "g1".into(),
        ply,
        point: point.map(String::from),
        clocks: [TIME.new_clock(); 2],
        turn_ms: 300_000,
    };
    store
        .commit(&[
            Write::NewGame(Box::new(new_game("g1"))),
            turn(0, Some("5E")),
            turn(1, None),
        ])
        .unwrap();
    assert_eq!(store.live_game_ids().unwrap(), vec!["g1".to_string()]);
    let now = store
        .games_now(&[("g1".into(), 1), ("nothing".into(), 0)])
        .unwrap();
    assert_eq!(now.len(), 1, "unknown games are left out");
    assert_eq!((now[0].first_ply, &now[0].game.moves), (1, &vec![None]));
    assert_eq!(now[0].game.bots, [false, true], "read from the players");
    let finish = Write::Finish {
        marks: None,
        game: "g1".into(),
        result: GameResult {
            winner: Some(Color::White),
            reason: EndReason::Timeout,
            score: None,
        },
        plies: 2,
    };
    let outcomes = store.commit(&[finish.clone(), finish]).unwrap();
    let Outcome::Finished {
        records,
        plies,
        ratings: None,
    } = &outcomes[0]
    else {
        panic!("{outcomes:?}");
    };
    assert_eq!(*plies, 2);
    assert_eq!((records.white.wins, records.black.losses), (1, 1));
    assert_eq!((records.black.bot, records.white.bot), (false, true));
    assert_eq!(outcomes[1], Outcome::Rejected, "counted once");
    drop(store);
    let mut store = SqliteStore::open(&path).unwrap();
    assert!(store.live_game_ids().unwrap().is_empty());
    let game = store.game("g1").unwrap().unwrap();
    assert_eq!(game.result.map(|r| r.reason), Some(EndReason::Timeout));
    assert_eq!(store.player("bob").unwrap().unwrap().wins, 1);
    std::fs::remove_file(path).ok();
}

#[test]
fn a_database_of_the_first_schema_keeps_its_games_and_players() {
    let (store, path) = store();
    drop(store);
    std::fs::remove_file(&path).ok();
    let old = Connection::open(&path).unwrap();
    for migration in &super::migrations::SQLITE[..2] {
        old.execute_batch(migration).unwrap();
    }
    old.execute_batch(
        "PRAGMA user_version = 2;
         INSERT INTO players (name, token_hash, wins, bot) VALUES ('Alice', zeroblob(32), 1, 0), ('bob', zeroblob(32), 0, 1);
         INSERT INTO games (id, size, black, white, komi, move_time_ms, status)
             VALUES ('g1', 9, 'Alice', 'bob', 0.5, 60000, 'playing');
         INSERT INTO turns (game, ply, point) VALUES ('g1', 0, '5E'), ('g1', 1, NULL);
         INSERT INTO games (id, size, black, white, komi, move_time_ms, status, winner, reason)
             VALUES ('g0', 9, 'bob', 'Alice', 0.5, 60000, 'over', 'white', 'resign');",
    )
    .unwrap();
    drop(old);
    let mut store = SqliteStore::open(&path).unwrap();
    let live = store.game("g1").unwrap().unwrap();
    let per_move = TimeControl::PerMove { move_ms: 60_000 };
    assert_eq!(live.terms, GameTerms::plain(per_move));
    assert_eq!(live.clocks, [per_move.new_clock(); 2]);
    assert_eq!(live.moves, vec![Some("5E".to_string()), None]);
    assert_eq!(live.turn_clocks, vec![None, None]);
    let over = store.game("g0").unwrap().unwrap();
    assert_eq!(
        over.result.map(|r| (r.winner, r.reason)),
        Some((Some(Color::White), EndReason::Resign))
    );
    let alice = store.player("alice").unwrap().unwrap();
    assert_eq!((alice.wins, alice.rating, alice.rated_games), (1, Rating::NEW, 0));
    assert_eq!(store.finished_games("Alice", None).unwrap().len(), 1);
    assert_eq!(store.live_game_ids().unwrap(), vec!["g1".to_string()]);
    drop(store);
    std::fs::remove_file(path).ok();
}

#[test]
fn a_failed_batch_commits_nothing() {
    let (mut store, path) = store();
    store.add_player("Alice", &[1; 32], false).unwrap();
    store.add_player("bob", &[2; 32], true).unwrap();
    let duplicate = Write::Turn {
        game: "g1".into(),
        ply: 0,
        point: None,
        clocks: [TIME.new_clock(); 2],
        turn_ms: 300_000,
    };
    assert!(store
        .commit(&[
            Write::NewGame(Box::new(new_game("g1"))),
            duplicate.clone(),
            duplicate
        ])
        .is_err());
    assert_eq!(store.game("g1").unwrap(), None);
    std::fs::remove_file(path).ok();
}
