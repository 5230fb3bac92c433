//! Watching games and the lobby, on the hub's paused clock with a real SQLite store.

use std::collections::HashMap;

use super::*;
use crate::hub::watching::MAX_WATCHED;

/// The hub driven by hand, a batch at a time, as its loop does: events handled, then the
/// commit and its deliveries.
struct Direct {
    hub: Hub,
    inboxes: HashMap<ConnId, mpsc::Receiver<Outgoing>>,
}

impl Direct {
    async fn new(db: &TestDb) -> Direct {
        let store = SqliteStore::open(&db.0).unwrap();
        let hub = Hub::new(Store::Sqlite(store), MOVE_TIME, 1000).await.unwrap();
        Direct {
            hub,
            inboxes: HashMap::new(),
        }
    }

    async fn connect(&mut self, conn: ConnId) {
        let (outbox, inbox) = mpsc::channel(256);
        self.inboxes.insert(conn, inbox);
        self.hub
            .handle(Event::Connected {
                conn,
                outbox,
                address: LOOPBACK,
            })
            .await;
    }

    async fn frame(&mut self, conn: ConnId, frame: Value) {
        let frame = ClientFrame::parse(&frame.to_string());
        self.hub
            .handle(Event::Frame {
                conn,
                frame,
                reference: None,
            })
            .await;
    }

    async fn commit(&mut self) {
        self.hub.commit_and_deliver().await.unwrap();
    }

    /// The messages sent to `conn` so far.
    fn taken(&mut self, conn: ConnId) -> Vec<Value> {
        let inbox = self.inboxes.get_mut(&conn).unwrap();
        let mut messages = Vec::new();
        while let Ok(message) = inbox.try_recv() {
            if let Outgoing::Text(text) = message {
                messages.push(serde_json::from_str(&text).unwrap());
            }
        }
        messages
    }

    /// Alice (1, black) and Bob (2, white) in a 9x9 game; its id.
    async fn start_game(&mut self) -> String {
        for (conn, name, color) in [(1, "alice", "black"), (2, "bob", "white")] {
            self.connect(conn).await;
            self.frame(conn, json!({"type": "hello", "name": name})).await;
            self.frame(conn, json!({"type": "seek", "size": 9, "color": color}))
                .await;
        }
        self.commit().await;
        let start = self.taken(2).pop().unwrap();
        assert_eq!(start["type"], "start", "{start}");
        self.taken(1);
        start["game"]["id"].as_str().unwrap().to_string()
    }

    /// A turn of black (even plies) or white, in a batch of its own; both players see it.
    async fn play(&mut self, game: &str, ply: usize, point: Option<&str>) {
        self.frame(1 + ply as u64 % 2, turn(game, ply, point)).await;
        self.commit().await;
        for conn in [1, 2] {
            let seen = self.taken(conn);
            assert_eq!(seen.len(), 1, "{seen:?}");
            assert_eq!(
                (seen[0]["type"].as_str(), seen[0]["ply"].as_u64()),
                (Some("played"), Some(ply as u64))
            );
        }
    }
}

fn turn(game: &str, ply: usize, point: Option<&str>) -> Value {
    match point {
        Some(point) => json!({"type": "move", "game": game, "ply": ply, "point": point}),
        None => json!({"type": "pass", "game": game, "ply": ply}),
    }
}

fn watch(game: &str) -> Value {
    json!({"type": "watch", "game": game})
}

fn kinds(messages: &[Value]) -> Vec<&str> {
    messages.iter().map(|m| m["type"].as_str().unwrap()).collect()
}

#[tokio::test(start_paused = true)]
async fn a_watch_in_the_batch_of_a_turn_neither_misses_nor_repeats_it() {
    for watch_first in [true, false] {
        let db = TestDb::new(&format!("watch-batch-{watch_first}"));
        let mut direct = Direct::new(&db).await;
        let game = direct.start_game().await;
        direct.connect(3).await;
        direct.play(&game, 0, Some("5E")).await;
        // One batch: white's turn and a watch, in either order; the turn is in the state,
        // whether its `played` was queued before the watch or after it.
        let mut batch = [(3, watch(&game)), (2, turn(&game, 1, Some("4D")))];
        if !watch_first {
            batch.reverse();
        }
        for (conn, frame) in batch.clone() {
            direct.frame(conn, frame).await;
        }
        direct.commit().await;
        let seen = direct.taken(3);
        assert_eq!(kinds(&seen), ["state"], "{seen:?}");
        assert_eq!(seen[0]["game"]["moves"], json!(["5E", "4D"]));
        assert_eq!(direct.hub.rooms[&game][&3], 2, "the watcher has seen two turns");
        direct.taken(1);
        direct.taken(2);
        // The next turn comes once.
        direct.play(&game, 2, Some("3C")).await;
        let seen = direct.taken(3);
        assert_eq!(kinds(&seen), ["played"], "{seen:?}");
        assert_eq!(
            (seen[0]["ply"].as_u64(), seen[0]["point"].as_str()),
            (Some(2), Some("3C"))
        );
        // Watching again, in the batch of a turn: the state again, with the turn; no second
        // subscription. The watcher has the turn's `played` too if it came first (as it would
        // have without the watch), never after the state.
        let mut batch = [(3, watch(&game)), (2, turn(&game, 3, Some("6F")))];
        if !watch_first {
            batch.reverse();
        }
        for (conn, frame) in batch {
            direct.frame(conn, frame).await;
        }
        direct.commit().await;
        let seen = direct.taken(3);
        let expected: &[&str] = if watch_first {
            &["state"]
        } else {
            &["played", "state"]
        };
        assert_eq!(kinds(&seen), expected, "{seen:?}");
        let state = seen.last().unwrap();
        assert_eq!(state["game"]["moves"], json!(["5E", "4D", "3C", "6F"]));
        assert_eq!(direct.hub.rooms[&game].len(), 1);
        direct.taken(1);
        direct.taken(2);
        direct.play(&game, 4, None).await;
        let seen = direct.taken(3);
        assert_eq!(kinds(&seen), ["played"], "{seen:?}");
        assert_eq!(seen[0]["ply"], 4);
        // The last pass and a second watcher in one batch: it gets the finished state only;
        // the first watcher gets the pass and the end, once.
        direct.connect(4).await;
        let mut batch = [(4, watch(&game)), (2, turn(&game, 5, None))];
        if !watch_first {
            batch.reverse();
        }
        for (conn, frame) in batch {
            direct.frame(conn, frame).await;
        }
        direct.commit().await;
        let late = direct.taken(4);
        assert_eq!(kinds(&late), ["state"], "{late:?}");
        assert_eq!(late[0]["game"]["status"], "over");
        assert_eq!(late[0]["game"]["moves"].as_array().unwrap().len(), 6);
        let seen = direct.taken(3);
        assert_eq!(kinds(&seen), ["played", "over"], "{seen:?}");
        assert_eq!(seen[0]["ply"], 5);
        assert!(direct.hub.rooms.is_empty(), "a finished game has no room");
        for conn in [3, 4] {
            assert!(direct.hub.connections[&conn].watching.is_empty());
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_watcher_without_a_name_follows_a_game_to_its_end() {
    let db = TestDb::new("watch-follow");
    let hub = db.hub().await;
    let (mut alice, mut bob, _, game) = start_game(&hub).await;
    let mut watcher = Client::connect(&hub, 3).await;
    watcher.send(watch(&game)).await;
    let state = watcher.recv().await;
    assert_eq!(
        (state["type"].as_str(), state["game"]["moves"].clone()),
        (Some("state"), json!([]))
    );
    assert_eq!(state["game"]["connected"], json!({"black": true, "white": true}));
    let script = [Some("5E"), Some("4D"), None, Some("3C"), None, None];
    for (ply, point) in script.into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &alice } else { &bob };
        mover.send(turn(&game, ply, point)).await;
        let played = alice.recv().await;
        assert_eq!(bob.recv().await, played);
        assert_eq!(watcher.recv().await, played, "the watcher's copy is the players'");
        assert_eq!(played["ply"], ply);
    }
    let over = watcher.recv().await;
    assert_eq!(over["type"], "over");
    assert_eq!(alice.recv().await, over);
    watcher.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(
        watcher.recv().await["type"],
        "pong",
        "nothing more of a finished game"
    );
    // A finished game: its state, and nothing more.
    watcher.send(watch(&game)).await;
    let finished = watcher.recv().await;
    assert_eq!(
        (finished["type"].as_str(), finished["game"]["status"].as_str()),
        (Some("state"), Some("over"))
    );
    watcher.send(json!({"type": "ping", "t": 2})).await;
    assert_eq!(watcher.recv().await["t"], 2);
    // An unknown game.
    watcher.send(watch("nosuchgame12")).await;
    let refused = watcher.recv().await;
    assert_eq!(
        (refused["code"].as_str(), refused["game"].as_str()),
        (Some("unknown_game"), Some("nosuchgame12"))
    );
}

#[tokio::test(start_paused = true)]
async fn unwatch_stops_the_flow_and_presence_reaches_watchers() {
    let db = TestDb::new("watch-unwatch");
    let hub = db.hub().await;
    let (mut alice, bob, tokens, game) = start_game(&hub).await;
    let mut watcher = Client::connect(&hub, 3).await;
    watcher.send(watch(&game)).await;
    assert_eq!(watcher.recv().await["type"], "state");
    bob.disconnect().await;
    let gone = watcher.recv().await;
    assert_eq!(
        gone,
        json!({"type": "presence", "game": game, "name": "bob", "color": "white", "connected": false})
    );
    assert_eq!(alice.recv().await, gone);
    let (mut bob, _) = Client::hello(&hub, 4, "bob", Some(&tokens[1])).await;
    let back = watcher.recv().await;
    assert_eq!(
        (back["type"].as_str(), back["connected"].as_bool()),
        (Some("presence"), Some(true))
    );
    watcher.send(json!({"type": "unwatch", "game": game})).await;
    assert_eq!(watcher.recv().await, json!({"type": "unwatched", "game": game}));
    alice.recv().await; // bob back
    alice.send(turn(&game, 0, Some("5E"))).await;
    assert_eq!(bob.recv().await["type"], "played");
    watcher.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(watcher.recv().await["type"], "pong", "no turn after unwatched");
    // Unwatching a game not watched is answered all the same.
    watcher.send(json!({"type": "unwatch", "game": game})).await;
    assert_eq!(watcher.recv().await["type"], "unwatched");
}

#[tokio::test(start_paused = true)]
async fn a_player_watching_its_own_game_gets_each_turn_once() {
    let db = TestDb::new("watch-own");
    let hub = db.hub().await;
    let (mut alice, bob, _, game) = start_game(&hub).await;
    alice.send(watch(&game)).await;
    assert_eq!(alice.recv().await["type"], "state");
    for (ply, point) in ["5E", "4D"].into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &alice } else { &bob };
        mover.send(turn(&game, ply, Some(point))).await;
        assert_eq!(alice.recv().await["ply"], ply);
    }
    alice.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(alice.recv().await["type"], "pong", "each turn came once");
}

#[tokio::test(start_paused = true)]
async fn a_connection_watches_at_most_64_games_and_rooms_go_with_their_watchers() {
    let db = TestDb::new("watch-limit");
    let mut direct = Direct::new(&db).await;
    let mut games = Vec::new();
    for n in 0..=MAX_WATCHED as u64 {
        let (black, white) = (10 + 2 * n, 11 + 2 * n);
        for (conn, color) in [(black, "black"), (white, "white")] {
            direct.connect(conn).await;
            direct
                .frame(conn, json!({"type": "hello", "name": format!("p{conn}")}))
                .await;
            direct
                .frame(conn, json!({"type": "seek", "size": 9, "color": color}))
                .await;
        }
        direct.commit().await;
        let start = direct.taken(black).pop().unwrap();
        games.push(start["game"]["id"].as_str().unwrap().to_string());
    }
    direct.connect(3).await;
    direct.connect(4).await;
    // All in one batch: the limit counts the watches not yet answered.
    for game in &games {
        direct.frame(3, watch(game)).await;
    }
    direct.frame(4, watch(&games[0])).await;
    direct.commit().await;
    let seen = direct.taken(3);
    assert_eq!(seen.len(), MAX_WATCHED + 1);
    assert!(seen[..MAX_WATCHED].iter().all(|m| m["type"] == "state"));
    let refused = &seen[MAX_WATCHED];
    assert_eq!(refused["code"], "bad_request");
    assert!(refused["message"].as_str().unwrap().contains("64"), "{refused}");
    assert_eq!(direct.hub.rooms.len(), MAX_WATCHED);
    // A finished game is only its state: no room, not counted, so answered at the limit too,
    // and no reason to keep a connection that has not said hello.
    let last = &games[MAX_WATCHED];
    direct
        .frame(
            10 + 2 * MAX_WATCHED as u64,
            json!({"type": "resign", "game": last}),
        )
        .await;
    direct.commit().await;
    direct.connect(5).await;
    for conn in [3, 5] {
        direct.frame(conn, watch(last)).await;
    }
    direct.commit().await;
    for conn in [3, 5] {
        let seen = direct.taken(conn);
        assert_eq!(kinds(&seen), ["state"], "{seen:?}");
        assert_eq!(seen[0]["game"]["status"], "over");
    }
    assert_eq!(direct.hub.connections[&3].watching.len(), MAX_WATCHED);
    assert!(!direct.hub.connections[&5].kept && direct.hub.connections[&5].watching.is_empty());
    // One already watched is answered again, not refused.
    direct.frame(3, watch(&games[5])).await;
    direct.commit().await;
    assert_eq!(kinds(&direct.taken(3)), ["state"]);
    // An unwatch makes room for another.
    direct
        .frame(3, json!({"type": "unwatch", "game": games[5]}))
        .await;
    direct.frame(3, watch(&games[MAX_WATCHED])).await;
    direct.commit().await;
    assert_eq!(kinds(&direct.taken(3)), ["unwatched", "state"]);
    assert!(!direct.hub.rooms.contains_key(&games[5]), "nobody watches it");
    // Gone, a watcher leaves its rooms, and rooms nobody is in go.
    direct.hub.handle(Event::Disconnected { conn: 3 }).await;
    direct.commit().await;
    assert_eq!(direct.hub.rooms.keys().collect::<Vec<_>>(), [&games[0]]);
    assert_eq!(direct.hub.rooms[&games[0]].keys().collect::<Vec<_>>(), [&4]);
}

#[tokio::test(start_paused = true)]
async fn a_watcher_is_not_closed_for_want_of_a_hello() {
    let db = TestDb::new("watch-kept");
    let hub = db.hub().await;
    let (_alice, _bob, _, game) = start_game(&hub).await;
    let mut watcher = Client::connect(&hub, 3).await;
    watcher.send(watch(&game)).await;
    assert!(matches!(watcher.inbox.recv().await, Some(Outgoing::Text(_))));
    assert_eq!(watcher.inbox.recv().await, Some(Outgoing::Watching));
    watcher.send(watch(&game)).await;
    watcher.send(json!({"type": "ping"})).await;
    for _ in 0..2 {
        assert!(
            matches!(watcher.inbox.recv().await, Some(Outgoing::Text(_))),
            "told once"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn turns_another_process_stored_reach_watchers_once() {
    let db = TestDb::new("watch-remote");
    let mut direct = Direct::new(&db).await;
    let game = direct.start_game().await;
    direct.connect(3).await;
    direct.frame(3, watch(&game)).await;
    direct.commit().await;
    assert_eq!(kinds(&direct.taken(3)), ["state"]);
    // As the loop does: what others stored first, then this batch's events (a new watch).
    direct.connect(4).await;
    let remote = |ply: usize, point: &str| {
        Event::Remote(Remote::Changes {
            from: "elsewhere".into(),
            changes: vec![Change::Turn {
                game: game.clone(),
                ply,
                point: Some(point.into()),
                clocks: None,
            }],
        })
    };
    direct.hub.handle(remote(0, "5E")).await;
    direct.hub.play_remote_turns();
    direct.frame(4, watch(&game)).await;
    direct.commit().await;
    let seen = direct.taken(3);
    assert_eq!(kinds(&seen), ["played"], "{seen:?}");
    assert_eq!(seen[0]["ply"], 0);
    let late = direct.taken(4);
    assert_eq!(kinds(&late), ["state"], "{late:?}");
    assert_eq!(late[0]["game"]["moves"], json!(["5E"]));
    // Told twice (a catch-up read it already): sent once.
    for _ in 0..2 {
        direct.hub.handle(remote(1, "4D")).await;
        direct.hub.play_remote_turns();
        direct.commit().await;
    }
    for conn in [3, 4] {
        let seen = direct.taken(conn);
        assert_eq!(kinds(&seen), ["played"], "{seen:?}");
        assert_eq!(seen[0]["ply"], 1);
    }
    assert_eq!(kinds(&direct.taken(1)), ["played", "played"]);
    // Bob is connected to another process too: leaving this one, he is still connected. When
    // the other process says he left it, the watchers hear it.
    direct
        .hub
        .handle(Event::Remote(Remote::Alive(vec!["elsewhere".into()])))
        .await;
    let told = |here| {
        Event::Remote(Remote::Changes {
            from: "elsewhere".into(),
            changes: vec![Change::Presence {
                player: "bob".into(),
                here,
            }],
        })
    };
    direct.hub.handle(told(true)).await;
    direct.hub.handle(Event::Disconnected { conn: 2 }).await;
    direct.commit().await;
    for conn in [1, 3, 4] {
        assert_eq!(
            direct.taken(conn),
            Vec::<Value>::new(),
            "bob is still connected elsewhere"
        );
    }
    direct.hub.handle(told(false)).await;
    direct.commit().await;
    for conn in [1, 3, 4] {
        let seen = direct.taken(conn);
        assert_eq!(kinds(&seen), ["presence"], "{seen:?}");
        assert_eq!(
            (seen[0]["name"].as_str(), seen[0]["connected"].as_bool()),
            (Some("bob"), Some(false))
        );
    }
}
