//! On PostgreSQL a process holds only the games its connections need, and a game nobody holds
//! still ends on time, once. Two hubs on one throwaway database, in real time (the database's
//! clock decides).

use crate::snapshot::Snapshot;
use crate::store::contract::cluster::fresh_database;
use crate::store::PostgresStore;

use super::*;

const SHORT_MOVE: Duration = Duration::from_secs(3);

/// A hub ("process") on `address`, told what the other processes store, and what it
/// publishes.
async fn process(address: &str) -> (mpsc::Sender<Event>, Snapshot) {
    let store = PostgresStore::open(address).await.unwrap();
    let listener = store.listener();
    let hub = Hub::new(Store::Postgres(Box::new(store)), SHORT_MOVE, 1000)
        .await
        .unwrap();
    let snapshot = hub.snapshot();
    let (events, receiver) = mpsc::channel(64);
    let (remote, mut received) = mpsc::channel(64);
    tokio::spawn(listener.run(remote));
    let told = events.clone();
    tokio::spawn(async move {
        while let Some(remote) = received.recv().await {
            if told.send(Event::Remote(remote)).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move { hub.run(receiver).await.unwrap() });
    (events, snapshot)
}

async fn held(snapshot: &Snapshot, expected: usize, what: &str) {
    until(|| snapshot.games_held() == expected, what).await;
}

async fn listed(snapshot: &Snapshot, expected: usize, what: &str) {
    until(|| snapshot.live_games().1 == expected, what).await;
}

async fn until(done: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_process_holds_what_its_connections_need_and_a_game_held_by_none_ends_once() {
    let address = fresh_database().await;
    let (a, held_by_a) = process(&address).await;
    let (b, held_by_b) = process(&address).await;
    let (alice, bob, tokens, game) = start_game(&a).await;
    held(&held_by_a, 1, "the players' process holds their game").await;
    held(&held_by_b, 0, "the other holds nothing").await;
    listed(&held_by_b, 1, "yet lists it").await;

    // Gone from A, the game is dropped there; Alice back through B, B reads it.
    alice.disconnect().await;
    bob.disconnect().await;
    held(&held_by_a, 0, "nobody on A needs it").await;
    let (alice, welcome) = Client::hello(&b, 11, "alice", Some(&tokens[0])).await;
    assert_eq!(welcome["games"][0]["id"], game.as_str(), "{welcome}");
    held(&held_by_b, 1, "B holds the game of its player").await;
    alice.disconnect().await;
    held(&held_by_b, 0, "and drops it when she leaves").await;

    // Held by nobody, it is ended on time all the same: once, by one of them.
    tokio::time::sleep(SHORT_MOVE + Duration::from_secs(2)).await;
    listed(&held_by_a, 0, "ended, it is listed by neither").await;
    listed(&held_by_b, 0, "ended, it is listed by neither").await;
    let mut store = PostgresStore::open(&address).await.unwrap();
    let stored = store.game(&game).await.unwrap().unwrap();
    let result = stored.result.expect("ended on time");
    assert_eq!(
        (result.reason, result.winner),
        (crate::game::EndReason::Timeout, Some(gokata_engine::Color::White)),
        "black was to move"
    );
    for (name, wins, losses) in [("alice", 0, 1), ("bob", 1, 0)] {
        let record = store.player(name).await.unwrap().unwrap();
        assert_eq!(
            (record.wins, record.losses),
            (wins, losses),
            "{name}: counted once"
        );
    }
}
