//! On PostgreSQL a process holds only the games its connections need, and a game nobody holds
//! still ends on time, once; watchers of a game a process does not hold see its every turn
//! once. Two hubs on one throwaway database, in real time (the database's clock decides).

use crate::snapshot::Snapshot;
use crate::store::contract::cluster::fresh_database;
use crate::store::PostgresStore;

use super::*;

const SHORT_MOVE: Duration = Duration::from_secs(3);

/// A hub ("process") on `address`, told what the other processes store, and what it
/// publishes.
async fn process(address: &str) -> (mpsc::Sender<Event>, Snapshot) {
    let (events, snapshot, _) = answering_process(address).await;
    (events, snapshot)
}

/// [`process`], and its connections' answers.
async fn answering_process(address: &str) -> (mpsc::Sender<Event>, Snapshot, Arc<Answers>) {
    let store = PostgresStore::open(address).await.unwrap();
    let listener = store.listener();
    let hub = Hub::new(Store::Postgres(Box::new(store)), SHORT_MOVE, 1000)
        .await
        .unwrap();
    let snapshot = hub.snapshot();
    let reads = Reads::new(snapshot.clone(), Reader::open(address).unwrap());
    let answers = Arc::new(Answers::new(Arc::new(reads), hub.rooms()));
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
    (events, snapshot, answers)
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

#[tokio::test(flavor = "multi_thread")]
async fn watchers_joining_a_process_that_does_not_hold_the_game_see_each_turn_once() {
    let address = fresh_database().await;
    let (a, held_by_a, answers) = answering_process(&address).await;
    let (b, _) = process(&address).await;
    let (mut alice, mut bob, _, game) = start_game(&b).await;
    held(&held_by_a, 0, "A holds nothing").await;
    // Black fills the second row and white the eighth: no capture; then white resigns.
    let script: Vec<String> = (0..18)
        .map(|ply| {
            format!(
                "{}{}",
                if ply % 2 == 0 { 2 } else { 8 },
                "ABCDEFGHJ".as_bytes()[ply / 2] as char
            )
        })
        .collect();
    let played = script.clone();
    let id = game.clone();
    let players = tokio::spawn(async move {
        for (ply, point) in played.iter().enumerate() {
            let mover = if ply % 2 == 0 { &alice } else { &bob };
            mover
                .send(json!({"type": "move", "game": id, "ply": ply, "point": point}))
                .await;
            for player in [&mut alice, &mut bob] {
                assert_eq!(player.recv().await["ply"], ply);
            }
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
        bob.send(json!({"type": "resign", "game": id})).await;
        (alice, bob)
    });
    // Watchers join A while the turns are played through B: the first find the game not held
    // there, and are sent it as stored.
    let mut watchers = Vec::new();
    while !players.is_finished() && watchers.len() < 40 {
        let watcher = Client::connect(&a, 100 + watchers.len() as u64).await;
        let watched = watcher.watch(&answers, &game).await.unwrap();
        if watchers.is_empty() {
            assert_eq!(watched, Watched::FromStore, "A held nothing");
        }
        watchers.push(watcher);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let (_alice, _bob) = players.await.unwrap();
    assert!(watchers.len() > 2, "watchers joined while the game was played");
    for watcher in &mut watchers {
        let (mut moves, mut over) = (Vec::new(), false);
        while !over {
            let message = tokio::time::timeout(Duration::from_secs(10), watcher.recv())
                .await
                .expect("the game's news, to its end");
            match message["type"].as_str().unwrap() {
                "state" => {
                    moves = message["game"]["moves"].as_array().unwrap().clone();
                    over = message["game"]["status"] == "over";
                }
                "played" => {
                    assert_eq!(message["ply"], moves.len(), "{message} after {moves:?}");
                    moves.push(message["point"].clone());
                }
                "over" => over = true,
                _ => {}
            }
        }
        assert_eq!(moves, script.iter().map(|point| json!(point)).collect::<Vec<_>>());
    }
}
