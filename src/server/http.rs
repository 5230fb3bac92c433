//! The HTTP routes: the page, health, the public records and games, and the WebSocket endpoint;
//! the API limited in requests a second per client address.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::sync::mpsc;

use super::accept::Peer;
use super::answers::Answers;
use super::hub::Event;
use super::limits::{client_address, BucketsByAddress, ConnectionCounts, Limits};
use super::lobby_feed::LobbyFeed;
use super::reads::{Answer, Reads};
use super::socket::{self, Holding};

/// What answers without the hub: the API, `sync` and `watch`, and the lobby.
#[derive(Clone)]
pub struct Readers {
    pub reads: Arc<Reads>,
    pub answers: Arc<Answers>,
    pub lobby: LobbyFeed,
}

#[derive(Clone)]
struct AppState {
    hub: mpsc::Sender<Event>,
    /// The API's answers, made without the hub.
    reads: Arc<Reads>,
    /// A connection's answers to `sync` and `watch`.
    answers: Arc<Answers>,
    lobby: LobbyFeed,
    /// One clone per open WebSocket: the server waits for the count to drop before it stops.
    alive: Arc<()>,
    limits: Limits,
    api_requests: Arc<Mutex<BucketsByAddress>>,
    /// WebSockets by client address, counted here behind a proxy.
    sockets: ConnectionCounts,
}

/// `healthy`: whether the hub reaches its database (else `/health` answers 503).
pub fn router(
    hub: mpsc::Sender<Event>,
    readers: Readers,
    alive: Arc<()>,
    limits: Limits,
    healthy: Arc<AtomicBool>,
) -> Router {
    let per_second = f64::from(limits.api_requests_per_second);
    let Readers {
        reads,
        answers,
        lobby,
    } = readers;
    let state = AppState {
        hub,
        reads,
        answers,
        lobby,
        alive,
        limits,
        api_requests: Arc::new(Mutex::new(BucketsByAddress::new(2.0 * per_second, per_second))),
        sockets: ConnectionCounts::default(),
    };
    let api = Router::new()
        .route("/api/players/{name}", get(player))
        .route("/api/players/{name}/games", get(player_games))
        .route(
            "/api/leaderboard",
            get(|State(state): State<AppState>| async move { respond(state.reads.leaderboard().await, "") }),
        )
        .route("/api/games", get(games))
        .route("/api/games/{id}", get(game))
        .route(
            "/api/seeks",
            get(|State(state): State<AppState>| async move { respond(state.reads.seeks().await, "") }),
        )
        .route_layer(middleware::from_fn_with_state(state.clone(), rate_limited));
    Router::new()
        .route(
            "/",
            get(|| page("text/html; charset=utf-8", include_str!("web/index.html"))),
        )
        .route(
            "/style.css",
            get(|| page("text/css; charset=utf-8", include_str!("web/style.css"))),
        )
        .route("/js/{file}", get(script))
        .route(
            "/health",
            get(move || async move {
                if healthy.load(Ordering::Relaxed) {
                    json(StatusCode::OK, r#"{"status":"ok"}"#.into())
                } else {
                    json(
                        StatusCode::SERVICE_UNAVAILABLE,
                        r#"{"status":"the database is unavailable"}"#.into(),
                    )
                }
            }),
        )
        .route("/ws", get(upgrade))
        .merge(api)
        .fallback(|| async { json(StatusCode::NOT_FOUND, error_body("no such page")) })
        .with_state(state)
}

impl AppState {
    /// The client's address: the peer's, or behind a proxy the one it forwarded.
    fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        client_address(peer, headers, self.limits.behind_proxy)
    }
}

/// A client over one of its limits: 429, saying which.
fn too_many(message: String) -> Response {
    json(StatusCode::TOO_MANY_REQUESTS, error_body(&message))
}

/// How long a client over its connections is told to wait: one of them may close meanwhile.
const CONNECTIONS_RETRY_AFTER_SECONDS: u64 = 5;

/// A connection from an address that has `limit` open already: 429, with `Retry-After`.
pub fn too_many_connections(address: IpAddr, limit: usize) -> Response {
    let seconds = CONNECTIONS_RETRY_AFTER_SECONDS;
    let mut response = too_many(format!(
        "more than {limit} connections from {address}: close one, or try again in {seconds} s"
    ));
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
    response
}

/// The API's requests, a bucket per client address: 429 when it is empty.
async fn rate_limited(
    State(state): State<AppState>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    request: Request,
    next: Next,
) -> Response {
    let address = state.client(peer, request.headers());
    let spent = state
        .api_requests
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .spend(address);
    match spent {
        Ok(()) => next.run(request).await,
        Err(wait) => {
            let seconds = wait.as_secs() + 1;
            let mut response = too_many(format!(
                "more than {} requests a second from {address}: try again in {seconds} s",
                state.limits.api_requests_per_second
            ));
            if let Ok(value) = seconds.to_string().parse() {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
            response
        }
    }
}

async fn upgrade(
    State(state): State<AppState>,
    ConnectInfo(Peer(peer)): ConnectInfo<Peer>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let address = state.client(peer, &headers);
    // Behind a proxy every TCP connection is the proxy's: the client's are counted here.
    let guard = if state.limits.behind_proxy {
        match state.sockets.open(address, state.limits.connections_per_address) {
            Some(guard) => Some(guard),
            None => return too_many_connections(address, state.limits.connections_per_address),
        }
    } else {
        None
    };
    let holding = Holding {
        address,
        alive: state.alive,
        guard,
        lobby: state.lobby,
        answers: state.answers,
    };
    upgrade
        // tungstenite zeroes its whole read buffer on every read: 4 KiB, not the 128 KiB default.
        .read_buffer_size(4096)
        .max_message_size(socket::READ_LIMIT_BYTES)
        .max_frame_size(socket::READ_LIMIT_BYTES)
        .on_upgrade(move |ws| socket::serve(ws, state.hub, holding))
}

async fn player(State(state): State<AppState>, Path(name): Path<String>) -> Response {
    let missing = format!("no player is named {name:?}");
    respond(state.reads.player(&name).await, &missing)
}

/// `/api/players/NAME/games?before=ID`: the player's finished games, newest first.
async fn player_games(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(query): Query<PageQuery>,
) -> Response {
    let missing = format!("no player is named {name:?}");
    respond(
        state.reads.player_games(&name, query.before.as_deref()).await,
        &missing,
    )
}

#[derive(serde::Deserialize)]
struct PageQuery {
    before: Option<String>,
}

/// `/api/games?status=playing` (the only status listed, and the default): the games being played.
async fn games(State(state): State<AppState>, Query(query): Query<GamesQuery>) -> Response {
    match query.status.as_deref() {
        None | Some("playing") => respond(state.reads.live_games().await, ""),
        Some(other) => json(
            StatusCode::BAD_REQUEST,
            error_body(&format!("status must be playing, not {other:?}")),
        ),
    }
}

#[derive(serde::Deserialize)]
struct GamesQuery {
    status: Option<String>,
}

/// `/api/games/ID`: the STATE; `/api/games/ID.sgf`: the SGF record.
async fn game(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let Some(id) = id.strip_suffix(".sgf") else {
        let missing = format!("no game has the id {id:?}");
        return respond(state.reads.game(&id).await, &missing);
    };
    let missing = format!("no game has the id {id:?}");
    let mut response = respond(state.reads.game_sgf(id).await, &missing);
    if response.status() == StatusCode::OK {
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            "application/x-go-sgf; charset=utf-8"
                .parse()
                .expect("a valid header"),
        );
        let disposition = format!("attachment; filename=\"gokata-{id}.sgf\"");
        if let Ok(value) = disposition.parse() {
            headers.insert(header::CONTENT_DISPOSITION, value);
        }
    }
    response
}

/// `missing`: what a 404 says.
fn respond(answer: Answer, missing: &str) -> Response {
    match answer {
        Answer::Found(body) => json(StatusCode::OK, body),
        Answer::Missing => json(StatusCode::NOT_FOUND, error_body(missing)),
        Answer::Unavailable => json(
            StatusCode::SERVICE_UNAVAILABLE,
            error_body("the server cannot reach its database; try again later"),
        ),
    }
}

/// The page's script modules (`/js/NAME.js`), compiled in.
const SCRIPTS: &[(&str, &str)] = &[
    ("main.js", include_str!("web/js/main.js")),
    ("state.js", include_str!("web/js/state.js")),
    ("util.js", include_str!("web/js/util.js")),
    ("connection.js", include_str!("web/js/connection.js")),
    ("handlers.js", include_str!("web/js/handlers.js")),
    ("game.js", include_str!("web/js/game.js")),
    ("board.js", include_str!("web/js/board.js")),
    ("clock.js", include_str!("web/js/clock.js")),
    ("words.js", include_str!("web/js/words.js")),
    ("render.js", include_str!("web/js/render.js")),
    ("lobby.js", include_str!("web/js/lobby.js")),
    ("seekform.js", include_str!("web/js/seekform.js")),
    ("directory.js", include_str!("web/js/directory.js")),
    ("chat.js", include_str!("web/js/chat.js")),
    ("scoring.js", include_str!("web/js/scoring.js")),
];

async fn script(Path(file): Path<String>) -> Response {
    match SCRIPTS.iter().find(|(name, _)| *name == file) {
        Some((_, body)) => page("text/javascript; charset=utf-8", body).await,
        None => json(StatusCode::NOT_FOUND, error_body("no such page")),
    }
}

/// The page's files are compiled in; the page loads nothing from any other host.
async fn page(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
            ),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

fn error_body(message: &str) -> String {
    serde_json::json!({ "error": message }).to_string()
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}
