//! The HTTP API answers without the hub: from what it published, and from the store's reader.

use std::sync::atomic::AtomicBool;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

use super::*;
use crate::accept::Peer;
use crate::limits::Limits;
use crate::lobby_feed::LobbyFeed;
use crate::reads::Reads;
use crate::store::Reader;

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
    let app = crate::http::router(
        events,
        reads,
        lobby,
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
