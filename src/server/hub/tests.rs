//! The hub on tokio's paused clock, with a real SQLite store and channels for connections.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::*;
use crate::answers::{Answers, Reply, Unanswered, Watched};
use crate::reads::Reads;
use crate::store::{Reader, SqliteStore};

const MOVE_TIME: Duration = Duration::from_secs(10);
const LOOPBACK: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

struct TestDb(PathBuf);

impl TestDb {
    fn new(name: &str) -> TestDb {
        let path = std::env::temp_dir().join(format!("gokata-hub-{name}-{}.sqlite3", std::process::id()));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        TestDb(path)
    }

    async fn hub(&self) -> mpsc::Sender<Event> {
        self.served().await.0
    }

    /// A hub running, and the connections' answers from what it publishes.
    async fn served(&self) -> (mpsc::Sender<Event>, Arc<Answers>) {
        let store = SqliteStore::open(&self.0).unwrap();
        let hub = Hub::new(Store::Sqlite(store), MOVE_TIME, 1000).await.unwrap();
        let answers = self.answers(&hub);
        let (events, receiver) = mpsc::channel(64);
        tokio::spawn(async move { hub.run(receiver).await.unwrap() });
        (events, answers)
    }

    /// The connections' answers: from what `hub` publishes, the store's reader, its rooms.
    fn answers(&self, hub: &Hub) -> Arc<Answers> {
        let reader = Reader::open(self.0.to_str().unwrap()).unwrap();
        Arc::new(Answers::new(
            Arc::new(Reads::new(hub.snapshot(), reader)),
            hub.rooms(),
        ))
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

/// A connection as the hub sees it: frames in, messages out (and `watch`, `unwatch` and
/// `sync` answered as the connection answers them, without the hub).
struct Client {
    conn: ConnId,
    hub: mpsc::Sender<Event>,
    inbox: mpsc::Receiver<Outgoing>,
    /// The connection's own way to its outbox.
    outbox: mpsc::WeakSender<Outgoing>,
}

impl Client {
    async fn connect(hub: &mpsc::Sender<Event>, conn: ConnId) -> Client {
        let (outbox, inbox) = mpsc::channel(64);
        let own = outbox.downgrade();
        hub.send(Event::Connected {
            conn,
            outbox,
            address: LOOPBACK,
        })
        .await
        .unwrap();
        Client {
            conn,
            hub: hub.clone(),
            inbox,
            outbox: own,
        }
    }

    fn reply(&self) -> Reply<'_> {
        Reply {
            outbox: &self.outbox,
            reference: None,
        }
    }

    /// `watch`, as the connection answers it (an error among its messages); what it did.
    async fn watch(&self, answers: &Answers, game: &str) -> Option<Watched> {
        let watched = answers.watch(self.conn, game, &self.reply()).await;
        if let Ok(Watched::FromStore) = watched {
            let told = Event::Watched {
                game: game.to_string(),
            };
            self.hub.send(told).await.unwrap();
        }
        self.answered(watched)
    }

    async fn unwatch(&self, answers: &Answers, game: &str) {
        self.answered(answers.unwatch(self.conn, game, &self.reply()));
    }

    fn answered<T>(&self, result: Result<T, Unanswered>) -> Option<T> {
        match result {
            Ok(answer) => Some(answer),
            Err(Unanswered::Refused(refused)) => {
                let text = ServerMessage::Error(refused).to_json();
                let outbox = self.outbox.upgrade().unwrap();
                outbox.try_send(Outgoing::Text(text.into())).unwrap();
                None
            }
            Err(Unanswered::TooSlow) => panic!("connection {} reads too slowly", self.conn),
        }
    }

    async fn send(&self, frame: Value) {
        let (reference, frame) = ClientFrame::parse_with_ref(&frame.to_string());
        self.hub
            .send(Event::Frame {
                conn: self.conn,
                frame,
                reference,
            })
            .await
            .unwrap();
    }

    /// The next message; time runs on while the test waits.
    async fn recv(&mut self) -> Value {
        loop {
            match self.inbox.recv().await {
                // The connection's note that its player signed in: not a message.
                Some(Outgoing::SignedIn) => continue,
                Some(close @ Outgoing::Close(..)) => panic!("expected a message, got {close:?}"),
                Some(message) => return serde_json::from_str(message.text().unwrap()).unwrap(),
                None => panic!("expected a message, the connection was closed"),
            }
        }
    }

    async fn hello(
        hub: &mpsc::Sender<Event>,
        conn: ConnId,
        name: &str,
        token: Option<&str>,
    ) -> (Client, Value) {
        let mut client = Client::connect(hub, conn).await;
        client
            .send(json!({"type": "hello", "name": name, "token": token}))
            .await;
        let welcome = client.recv().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        (client, welcome)
    }

    async fn disconnect(self) {
        self.hub
            .send(Event::Disconnected { conn: self.conn })
            .await
            .unwrap();
    }
}

/// Alice (black) and Bob (white) start a 9x9 game; returns their clients, tokens and the game id.
async fn start_game(hub: &mpsc::Sender<Event>) -> (Client, Client, [String; 2], String) {
    let (mut alice, welcome_a) = Client::hello(hub, 1, "alice", None).await;
    let (mut bob, welcome_b) = Client::hello(hub, 2, "bob", None).await;
    alice
        .send(json!({"type": "seek", "size": 9, "color": "black"}))
        .await;
    assert_eq!(alice.recv().await["type"], "seeking");
    bob.send(json!({"type": "seek", "size": 9, "color": "any"})).await;
    let start = alice.recv().await;
    assert_eq!(bob.recv().await, start);
    assert_eq!(
        (start["game"]["black"].as_str(), start["game"]["white"].as_str()),
        (Some("alice"), Some("bob"))
    );
    let tokens = [welcome_a, welcome_b].map(|w| w["token"].as_str().unwrap().to_string());
    (
        alice,
        bob,
        tokens,
        start["game"]["id"].as_str().unwrap().to_string(),
    )
}

#[tokio::test(start_paused = true)]
async fn the_player_to_move_loses_when_the_move_time_runs_out() {
    let db = TestDb::new("timeout");
    let hub = db.hub().await;
    let (mut alice, mut bob, _, game) = start_game(&hub).await;
    // Each turn gives the next player the full move time: 9 s a turn never runs out.
    for (ply, point) in ["5E", "4D", "3C"].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_secs(9)).await;
        let mover = if ply % 2 == 0 { &alice } else { &bob };
        mover
            .send(json!({"type": "move", "game": game, "ply": ply, "point": point}))
            .await;
        let played = alice.recv().await;
        assert_eq!(played["ply"], ply, "{played}");
        assert_eq!(played["remaining_ms"], 10_000);
        assert_eq!(bob.recv().await, played);
    }
    let last_turn = Instant::now();
    let over = alice.recv().await;
    assert_eq!(
        Instant::now() - last_turn,
        MOVE_TIME,
        "the timeout comes at the deadline"
    );
    assert_eq!(bob.recv().await, over);
    assert_eq!(over["reason"], "timeout");
    assert_eq!(over["winner"], "black", "white was to move");
    assert_eq!(over["score"], Value::Null);
    for (color, name, wins, losses) in [("black", "alice", 1, 0), ("white", "bob", 0, 1)] {
        let record = &over["records"][color];
        assert_eq!(
            (
                &record["name"],
                &record["wins"],
                &record["losses"],
                &record["bot"]
            ),
            (&json!(name), &json!(wins), &json!(losses), &json!(false)),
            "{record}"
        );
        assert_eq!(record["rated_games"], 1, "a timeout counts like any loss");
    }
    assert!(
        over["ratings"]["black"]["after"].as_f64().unwrap() > 1500.0,
        "{over}"
    );
    assert!(
        over["ratings"]["white"]["after"].as_f64().unwrap() < 1500.0,
        "{over}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_game_times_out_with_nobody_connected() {
    let db = TestDb::new("nobody");
    let hub = db.hub().await;
    let (alice, bob, tokens, game) = start_game(&hub).await;
    alice.disconnect().await;
    bob.disconnect().await;
    tokio::time::sleep(MOVE_TIME + Duration::from_millis(5)).await;
    let (mut alice, welcome) = Client::hello(&hub, 3, "ALICE", Some(&tokens[0])).await;
    assert_eq!(welcome["name"], "alice");
    assert_eq!(welcome["games"], json!([]), "the game is over");
    assert_eq!(
        (welcome["wins"].as_u64(), welcome["losses"].as_u64()),
        (Some(0), Some(1))
    );
    alice.send(json!({"type": "sync", "game": game})).await;
    let state = alice.recv().await;
    assert_eq!(
        (state["game"]["reason"].as_str(), state["game"]["winner"].as_str()),
        (Some("timeout"), Some("white"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_timeout_racing_the_last_pass_is_counted_once() {
    let db = TestDb::new("race");
    let hub = db.hub().await;
    let (mut alice, mut bob, _, game) = start_game(&hub).await;
    alice.send(json!({"type": "pass", "game": game, "ply": 0})).await;
    alice.recv().await;
    bob.recv().await;
    // The second pass and the deadline arrive together: whichever the hub takes first wins,
    // and the result is announced and counted exactly once.
    tokio::time::advance(MOVE_TIME).await;
    bob.send(json!({"type": "pass", "game": game, "ply": 1})).await;
    let mut overs = Vec::new();
    for _ in 0..2 {
        let message = bob.recv().await;
        if message["type"] == "over" {
            overs.push(message);
        }
    }
    assert_eq!(overs.len(), 1, "{overs:?}");
    let over = &overs[0];
    let (winner, loser) = if over["winner"] == "black" {
        ("black", "white")
    } else {
        ("white", "black")
    };
    assert_eq!(over["records"][winner]["wins"], 1);
    assert_eq!(over["records"][loser]["losses"], 1);
    assert_eq!(over["records"][loser]["wins"], 0);
    bob.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(bob.recv().await["type"], "pong", "nothing else was announced");
    let over_to_alice = loop {
        let message = alice.recv().await;
        if message["type"] == "over" {
            break message;
        }
    };
    assert_eq!(&over_to_alice, over);
}

#[tokio::test(start_paused = true)]
async fn after_a_restart_the_player_to_move_has_the_full_move_time_again() {
    let db = TestDb::new("restart");
    let (tokens, game) = {
        let hub = db.hub().await;
        let (mut alice, mut bob, tokens, game) = start_game(&hub).await;
        alice
            .send(json!({"type": "move", "game": game, "ply": 0, "point": "5E"}))
            .await;
        alice.recv().await;
        bob.recv().await;
        tokio::time::sleep(Duration::from_secs(8)).await;
        hub.send(Event::Shutdown).await.unwrap();
        assert_eq!(alice.recv().await["type"], "goodbye");
        (tokens, game)
    };
    // Downtime costs nobody the game: white has the full 10 s from the restart.
    tokio::time::sleep(Duration::from_secs(60)).await;
    let hub = db.hub().await;
    let restarted = Instant::now();
    let (mut bob, welcome) = Client::hello(&hub, 5, "bob", Some(&tokens[1])).await;
    let state = &welcome["games"][0];
    assert_eq!(state["id"], game.as_str());
    assert_eq!(state["moves"], json!(["5E"]));
    assert_eq!(state["remaining_ms"], 10_000);
    let over = bob.recv().await;
    assert_eq!(Instant::now() - restarted, MOVE_TIME);
    assert_eq!(
        (over["reason"].as_str(), over["winner"].as_str()),
        (Some("timeout"), Some("black"))
    );
}

#[tokio::test(start_paused = true)]
async fn only_the_players_act_in_a_game_and_errors_change_nothing() {
    let db = TestDb::new("errors");
    let hub = db.hub().await;
    let (mut alice, mut bob, _, game) = start_game(&hub).await;
    let (mut carol, _) = Client::hello(&hub, 3, "carol", None).await;
    for frame in [
        json!({"type": "move", "game": game, "ply": 0, "point": "5E"}),
        json!({"type": "pass", "game": game, "ply": 0}),
        json!({"type": "resign", "game": game}),
    ] {
        carol.send(frame).await;
        assert_eq!(carol.recv().await["code"], "not_your_game");
    }
    bob.send(json!({"type": "move", "game": game, "ply": 0, "point": "5E"}))
        .await;
    assert_eq!(bob.recv().await["code"], "not_your_turn");
    alice
        .send(json!({"type": "move", "game": "nope", "ply": 0, "point": "5E"}))
        .await;
    assert_eq!(alice.recv().await["code"], "unknown_game");
    alice
        .send(json!({"type": "move", "game": game, "ply": 0, "point": "10A"}))
        .await;
    let refused = alice.recv().await;
    assert_eq!(
        (refused["code"].as_str(), refused["reason"].as_str()),
        (Some("illegal_move"), Some("off-board"))
    );
    alice
        .send(json!({"type": "move", "game": game, "ply": 3, "point": "5E"}))
        .await;
    let state = alice.recv().await;
    assert_eq!(state["type"], "state", "a stale ply gets the state");
    assert_eq!(state["game"]["moves"], json!([]));
    carol.send(json!({"type": "sync", "game": game})).await;
    assert_eq!(carol.recv().await["game"]["moves"], json!([]), "games are public");
    // The game goes on as if nothing had happened.
    alice.send(json!({"type": "resign", "game": game})).await;
    let over = bob.recv().await;
    assert_eq!(
        (over["reason"].as_str(), over["winner"].as_str()),
        (Some("resign"), Some("white"))
    );
    assert_eq!(alice.recv().await, over);
}

#[tokio::test(start_paused = true)]
async fn a_client_that_does_not_read_is_dropped_without_holding_up_others() {
    let db = TestDb::new("slow");
    let hub = db.hub().await;
    let (alice, mut bob, _, game) = start_game(&hub).await;
    let (outbox, mut slow_inbox) = mpsc::channel(4);
    let own = outbox.downgrade();
    hub.send(Event::Connected {
        conn: 9,
        outbox,
        address: LOOPBACK,
    })
    .await
    .unwrap();
    let slow = Client {
        conn: 9,
        hub: hub.clone(),
        inbox: mpsc::channel(1).1,
        outbox: own,
    };
    for t in 0..10 {
        slow.send(json!({"type": "ping", "t": t})).await;
    }
    alice
        .send(json!({"type": "move", "game": game, "ply": 0, "point": "5E"}))
        .await;
    assert_eq!(bob.recv().await["type"], "played", "others are served");
    let mut queued = Vec::new();
    while let Some(message) = slow_inbox.recv().await {
        queued.push(message);
    }
    // The hub queued what fitted, a close, and then let go of the connection.
    assert!(queued.len() <= 5, "{queued:?}");
    assert_eq!(
        queued.last(),
        Some(&Outgoing::Close(1008, "too slow: messages were not read"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_game_keeps_one_clock_entry_however_many_turns_it_has() {
    let db = TestDb::new("heap");
    let store = SqliteStore::open(&db.0).unwrap();
    let mut hub = Hub::new(Store::Sqlite(store), MOVE_TIME, 1000).await.unwrap();
    let mut inboxes = Vec::new();
    for (conn, name, color) in [(1, "alice", "black"), (2, "bob", "white")] {
        let (outbox, inbox) = mpsc::channel(1024);
        inboxes.push(inbox);
        hub.handle(Event::Connected {
            conn,
            outbox,
            address: LOOPBACK,
        })
        .await;
        for frame in [
            json!({"type": "hello", "name": name}),
            json!({"type": "seek", "size": 19, "color": color}),
        ] {
            let frame = ClientFrame::parse(&frame.to_string());
            hub.handle(Event::Frame {
                conn,
                frame,
                reference: None,
            })
            .await;
        }
    }
    hub.commit_and_deliver().await.unwrap();
    let game = hub.games.keys().next().unwrap().clone();
    for ply in 0..60 {
        tokio::time::advance(Duration::from_secs(1)).await;
        // Black fills the top rows and white the bottom ones: no contact, no capture.
        let (row, col) = if ply % 2 == 0 {
            (ply / 2 / 19, ply / 2 % 19)
        } else {
            (18 - ply / 2 / 19, ply / 2 % 19)
        };
        let point = gokata_engine::coord::format(row, col, 19);
        let frame = json!({"type": "move", "game": game, "ply": ply, "point": point});
        let frame = ClientFrame::parse(&frame.to_string());
        hub.handle(Event::Frame {
            conn: 1 + (ply as u64 % 2),
            frame,
            reference: None,
        })
        .await;
        hub.expire_clocks();
        hub.commit_and_deliver().await.unwrap();
        assert!(
            hub.clocks.len() <= 1,
            "{} clock entries after turn {ply}",
            hub.clocks.len()
        );
    }
    assert!(
        !hub.games[&game].game.is_over(),
        "{:?}",
        hub.games[&game].game.result()
    );
    // The one entry still ends the game on time.
    tokio::time::advance(MOVE_TIME).await;
    hub.expire_clocks();
    hub.commit_and_deliver().await.unwrap();
    assert!(hub.games.is_empty(), "the game ended by timeout and left the hub");
}

#[tokio::test(start_paused = true)]
async fn a_failing_read_stops_the_hub_instead_of_passing_for_an_unknown_game() {
    let db = TestDb::new("failing-read");
    let store = SqliteStore::open(&db.0).unwrap();
    let hub = Hub::new(Store::Sqlite(store), MOVE_TIME, 1000).await.unwrap();
    // Reads of games now fail, as on a broken disk.
    rusqlite::Connection::open(&db.0)
        .unwrap()
        .execute_batch("PRAGMA foreign_keys = OFF; DROP TABLE turns; DROP TABLE games;")
        .unwrap();
    let (events, receiver) = mpsc::channel(64);
    let running = tokio::spawn(hub.run(receiver));
    let (mut alice, _) = Client::hello(&events, 1, "alice", None).await;
    alice.send(json!({"type": "sync", "game": "finishedabcd"})).await;
    let reply = alice.recv().await;
    assert_eq!(
        reply["code"], "unavailable",
        "the request is answered, and not as if the game did not exist"
    );
    let goodbye = tokio::time::timeout(Duration::from_secs(5), alice.recv()).await;
    assert_eq!(
        goodbye.expect("a goodbye")["type"],
        "goodbye",
        "then the server stops"
    );
    let stopped = running.await.unwrap();
    assert!(matches!(stopped, Err(StoreError::Database(_))), "{stopped:?}");
}

mod holding;
mod reads;
mod watching;

#[tokio::test(start_paused = true)]
async fn a_ref_is_echoed_in_what_answers_its_frame_and_only_there() {
    let db = TestDb::new("ref");
    let hub = db.hub().await;
    let mut alice = Client::connect(&hub, 1).await;
    alice.send(json!({"type": "ping", "t": 1, "ref": "p1"})).await;
    let pong = alice.recv().await;
    assert_eq!(
        (&pong["type"], &pong["ref"]),
        (&json!("pong"), &json!("p1")),
        "{pong}"
    );
    alice
        .send(json!({"type": "hello", "name": "alice", "ref": 7}))
        .await;
    let welcome = alice.recv().await;
    assert_eq!(
        (&welcome["type"], &welcome["ref"]),
        (&json!("welcome"), &json!(7)),
        "{welcome}"
    );
    alice
        .send(json!({"type": "seek", "size": 9, "color": "black", "ref": "s"}))
        .await;
    assert_eq!(alice.recv().await["ref"], "s");
    let (mut bob, _) = Client::hello(&hub, 2, "bob", None).await;
    bob.send(json!({"type": "seek", "size": 9, "ref": u64::MAX}))
        .await;
    let (start_alice, start_bob) = (alice.recv().await, bob.recv().await);
    assert!(start_alice.get("ref").is_none(), "{start_alice}");
    assert_eq!(
        start_bob["ref"],
        json!(u64::MAX),
        "the seek that paired is answered by start"
    );
    let game = start_alice["game"]["id"].as_str().unwrap().to_string();
    alice
        .send(json!({"type": "move", "game": game, "ply": 0, "point": "5E", "ref": "m1"}))
        .await;
    let (played_alice, played_bob) = (alice.recv().await, bob.recv().await);
    assert_eq!(
        (&played_alice["type"], &played_alice["ref"]),
        (&json!("played"), &json!("m1"))
    );
    assert!(
        played_bob.get("ref").is_none(),
        "only the sender's copy: {played_bob}"
    );
    bob.send(json!({"type": "move", "game": game, "ply": 0, "point": "4D", "ref": "late"}))
        .await;
    let state = bob.recv().await;
    assert_eq!(
        (&state["type"], &state["ref"]),
        (&json!("state"), &json!("late")),
        "{state}"
    );
    bob.send(json!({"type": "move", "game": game, "ply": 1, "point": "5E", "ref": "taken"}))
        .await;
    let refused = bob.recv().await;
    assert_eq!(
        (&refused["code"], &refused["ref"]),
        (&json!("illegal_move"), &json!("taken")),
        "{refused}"
    );
    bob.send(json!({"type": "frobnicate", "ref": "odd"})).await;
    assert_eq!(bob.recv().await["ref"], "odd", "a refused frame echoes its ref");
    let long = "x".repeat(65);
    for bad in [json!({"a": 1}), json!(long), json!(1.5), json!(null), json!(true)] {
        bob.send(json!({"type": "ping", "ref": bad})).await;
        let refused = bob.recv().await;
        assert_eq!(refused["code"], "bad_request", "{refused}");
        assert!(
            refused["message"].as_str().unwrap().contains("field 'ref'"),
            "{refused}"
        );
        assert!(refused.get("ref").is_none(), "{refused}");
    }
    bob.send(json!({"type": "ping", "ref": "y".repeat(64)})).await;
    assert_eq!(bob.recv().await["ref"], json!("y".repeat(64)));
    bob.send(json!({"type": "resign", "game": game, "ref": -3})).await;
    let (over_bob, over_alice) = (bob.recv().await, alice.recv().await);
    assert_eq!(
        (&over_bob["type"], &over_bob["ref"]),
        (&json!("over"), &json!(-3)),
        "{over_bob}"
    );
    assert!(over_alice.get("ref").is_none(), "{over_alice}");
    bob.send(json!({"type": "ping"})).await;
    assert!(bob.recv().await.get("ref").is_none(), "no ref, none echoed");
}
