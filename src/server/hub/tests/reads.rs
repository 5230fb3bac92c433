//! The HTTP API answers without the hub, and so does a connection's `sync` and `watch`: from
//! what the hub published, and from the store's reader.

use std::sync::atomic::AtomicBool;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

use super::*;
use crate::accept::Peer;
use crate::limits::Limits;
use crate::lobby_feed::LobbyFeed;

/// Alice and Bob finish one game (Bob resigns) and start another, in which Alice plays 5E;
/// the ids of the finished game and of the live one.
async fn a_finished_and_a_live_game(hub: &mpsc::Sender<Event>) -> (String, String) {
    let (mut alice, mut bob, _, finished) = start_game(hub).await;
    bob.send(json!({"type": "resign", "game": finished})).await;
    assert_eq!(alice.recv().await["type"], "over");
    assert_eq!(bob.recv().await["type"], "over");
    alice
        .send(json!({"type": "seek", "size": 9, "color": "black", "rated": false}))
        .await;
    assert_eq!(alice.recv().await["type"], "seeking");
    bob.send(json!({"type": "seek", "size": 9, "rated": false})).await;
    let start = alice.recv().await;
    let live = start["game"]["id"].as_str().unwrap().to_string();
    alice
        .send(json!({"type": "move", "game": live, "ply": 0, "point": "5E"}))
        .await;
    assert_eq!(alice.recv().await["type"], "played");
    (finished, live)
}

async fn get(app: &axum::Router, path: &str) -> (StatusCode, Value) {
    let request = Request::get(path)
        .extension(ConnectInfo(Peer(LOOPBACK)))
        .body(Body::empty())
        .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(5), app.clone().oneshot(request))
        .await
        .unwrap_or_else(|_| panic!("{path} waited for the hub"))
        .unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    let body = String::from_utf8(body.to_vec()).unwrap();
    (status, serde_json::from_str(&body).unwrap_or(Value::String(body)))
}

#[tokio::test]
async fn the_api_answers_while_the_hub_answers_nothing() {
    let db = TestDb::new("stalled");
    let hub = db.hub().await;
    let (finished, live) = a_finished_and_a_live_game(&hub).await;
    hub.send(Event::Shutdown).await.unwrap();
    hub.closed().await;

    // A hub that never runs: its queue is full, so anything that asked it would wait for good.
    let store = SqliteStore::open(&db.0).unwrap();
    let stalled = Hub::new(Store::Sqlite(store), MOVE_TIME, 1000).await.unwrap();
    let reads = Reads::new(stalled.snapshot(), Reader::open(db.0.to_str().unwrap()).unwrap());
    let (events, _never_read) = mpsc::channel(1);
    events.try_send(Event::Shutdown).unwrap();
    let limits = Limits {
        api_requests_per_second: 1000,
        ..Limits::default()
    };
    let reads = Arc::new(reads);
    let lobby = LobbyFeed::new(reads.clone());
    let answers = Arc::new(Answers::new(reads.clone(), stalled.rooms()));
    let app = crate::http::router(
        events,
        crate::http::Readers {
            reads,
            answers,
            lobby,
        },
        Arc::new(()),
        limits,
        Arc::new(AtomicBool::new(true)),
    );

    let (status, games) = get(&app, "/api/games").await;
    assert_eq!((status, &games["total"]), (StatusCode::OK, &json!(1)), "{games}");
    assert_eq!(games["games"][0]["id"], json!(live));
    assert_eq!(games["games"][0]["moves"], 1);
    let (_, state) = get(&app, &format!("/api/games/{live}")).await;
    assert_eq!(
        (&state["status"], &state["moves"], &state["to_move"]),
        (&json!("playing"), &json!(["5E"]), &json!("white")),
        "{state}"
    );
    assert!(state["remaining_ms"].as_u64().unwrap() <= MOVE_TIME.as_millis() as u64);
    let (_, sgf) = get(&app, &format!("/api/games/{live}.sgf")).await;
    assert!(sgf.as_str().unwrap().contains(";B[ee]"), "{sgf}");
    let (_, over) = get(&app, &format!("/api/games/{finished}")).await;
    assert_eq!(
        (&over["status"], &over["winner"]),
        (&json!("over"), &json!("black")),
        "{over}"
    );
    let (_, alice) = get(&app, "/api/players/ALICE").await;
    assert_eq!(
        (&alice["name"], &alice["wins"]),
        (&json!("alice"), &json!(1)),
        "{alice}"
    );
    let (_, listed) = get(&app, "/api/players/bob/games").await;
    assert_eq!(listed["games"][0]["id"], json!(finished), "{listed}");
    let (status, _) = get(&app, "/api/leaderboard").await;
    assert_eq!(status, StatusCode::OK);
    let (_, seeks) = get(&app, "/api/seeks").await;
    assert_eq!(seeks, json!({"seeks": []}));
    let (status, _) = get(&app, "/api/players/nobody").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = get(&app, "/api/games/nosuchgame").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// A WebSocket client of a server served by the test.
type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(address: std::net::SocketAddr) -> Socket {
    tokio_tungstenite::connect_async(format!("ws://{address}/ws"))
        .await
        .unwrap()
        .0
}

async fn say(socket: &mut Socket, frame: Value) {
    use futures_util::SinkExt;
    let text = frame.to_string();
    socket
        .send(tokio_tungstenite::tungstenite::Message::Text(text.into()))
        .await
        .unwrap();
}

/// The next message, if one comes within `wait`.
async fn heard(socket: &mut Socket, wait: Duration) -> Option<Value> {
    use futures_util::StreamExt;
    loop {
        let message = tokio::time::timeout(wait, socket.next()).await.ok()?;
        if let tokio_tungstenite::tungstenite::Message::Text(text) = message.unwrap().unwrap() {
            return Some(serde_json::from_str(&text).unwrap());
        }
    }
}

async fn hear(socket: &mut Socket) -> Value {
    heard(socket, Duration::from_secs(5))
        .await
        .expect("a message within 5 s")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_answers_sync_and_watch_while_the_hub_answers_nothing() {
    let db = TestDb::new("stalled-socket");
    let store = SqliteStore::open(&db.0).unwrap();
    let hub = Hub::new(Store::Sqlite(store), MOVE_TIME, 1000).await.unwrap();
    let reads = Arc::new(Reads::new(
        hub.snapshot(),
        Reader::open(db.0.to_str().unwrap()).unwrap(),
    ));
    let answers = Arc::new(Answers::new(reads.clone(), hub.rooms()));
    let lobby = LobbyFeed::new(reads.clone());
    let (to_hub, hub_events) = mpsc::channel(64);
    tokio::spawn(async move { hub.run(hub_events).await.unwrap() });
    // The connections reach the hub through a valve the test closes: the hub then hears none
    // of them, as if it were busy for good.
    let (events, mut valve) = mpsc::channel::<Event>(1024);
    let (open, gate) = tokio::sync::watch::channel(true);
    tokio::spawn(async move {
        let mut gate = gate;
        while let Some(event) = valve.recv().await {
            if gate.wait_for(|open| *open).await.is_err() || to_hub.send(event).await.is_err() {
                break;
            }
        }
    });
    let readers = crate::http::Readers {
        reads,
        answers,
        lobby,
    };
    let app = crate::http::router(
        events,
        readers,
        Arc::new(()),
        Limits::default(),
        Arc::new(AtomicBool::new(true)),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (_serving, stopping) = tokio::sync::watch::channel(false);
    let listener = crate::accept::GuardedListener::new(listener, Default::default(), None);
    tokio::spawn(crate::accept::serve(listener, app, stopping));

    let (mut alice, mut bob) = (connect(address).await, connect(address).await);
    say(&mut alice, json!({"type": "hello", "name": "alice"})).await;
    assert_eq!(hear(&mut alice).await["type"], "welcome");
    say(&mut alice, json!({"type": "seek", "size": 9, "color": "black"})).await;
    assert_eq!(hear(&mut alice).await["type"], "seeking");
    say(&mut bob, json!({"type": "hello", "name": "bob"})).await;
    assert_eq!(hear(&mut bob).await["type"], "welcome");
    say(&mut bob, json!({"type": "seek", "size": 9})).await;
    let game = hear(&mut bob).await["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(hear(&mut alice).await["type"], "start");
    say(
        &mut alice,
        json!({"type": "move", "game": game, "ply": 0, "point": "5E"}),
    )
    .await;
    for socket in [&mut alice, &mut bob] {
        assert_eq!(hear(socket).await["ply"], 0);
    }

    open.send(false).unwrap();
    // Bob's turn waits for the hub: nothing comes of it while it hears nothing.
    say(
        &mut bob,
        json!({"type": "move", "game": game, "ply": 1, "point": "4D"}),
    )
    .await;
    assert_eq!(heard(&mut bob, Duration::from_millis(300)).await, None);
    // Meanwhile a new connection watches, Alice syncs, and a connection that said no hello
    // is refused: each answered at once, from what the hub published.
    let mut carol = connect(address).await;
    say(&mut carol, json!({"type": "watch", "game": game, "ref": "w"})).await;
    let state = hear(&mut carol).await;
    assert_eq!(
        (&state["type"], &state["ref"], &state["game"]["moves"]),
        (&json!("state"), &json!("w"), &json!(["5E"])),
        "{state}"
    );
    say(&mut carol, json!({"type": "watch", "game": "nosuchgame12"})).await;
    assert_eq!(hear(&mut carol).await["code"], "unknown_game");
    say(&mut alice, json!({"type": "sync", "game": game, "ref": 1})).await;
    let synced = hear(&mut alice).await;
    assert_eq!(
        (&synced["type"], &synced["ref"], &synced["game"]["moves"]),
        (&json!("state"), &json!(1), &json!(["5E"])),
        "{synced}"
    );
    let mut dave = connect(address).await;
    say(&mut dave, json!({"type": "sync", "game": game})).await;
    let refused = hear(&mut dave).await;
    assert_eq!(refused["code"], "bad_request", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .starts_with("say hello first"),
        "{refused}"
    );

    // Heard again, the hub plays the turn: each of them gets it once.
    open.send(true).unwrap();
    for socket in [&mut alice, &mut bob, &mut carol] {
        let played = hear(socket).await;
        assert_eq!(
            (&played["type"], &played["ply"]),
            (&json!("played"), &json!(1)),
            "{played}"
        );
    }
    say(&mut carol, json!({"type": "ping", "t": 1})).await;
    assert_eq!(hear(&mut carol).await["type"], "pong", "the turn came once");
}
