//! The echo ceiling: the relay server (`--echo`), and its peer, the same exchange without a game.

use std::collections::HashMap;
use std::io::Read;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{Message as AxumMessage, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use gokata_engine::{Color, Rng};
use gokata_server::protocol::{ServerFrame, ServerMessage};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::audience::Audience;
use crate::driver::{Moment, Role, Sent, Turns};
use crate::measure::{measure, Measured, Site};
use crate::plan::Params;
use crate::servers::{Children, ServerProcess};
use crate::READ_BUFFER;

type Peers = Arc<Mutex<HashMap<u64, [Option<mpsc::Sender<Utf8Bytes>>; 2]>>>;

/// `--echo`: the ceiling, an axum WebSocket relay on a multi-threaded tokio runtime like the
/// server's. A connection's first frame `{"pair":K,"side":0|1}` is answered by `welcome`; every
/// later frame goes out unchanged to both connections of the pair, each through its own writer
/// task and queue as in the server.
pub(crate) fn serve_echo() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("server_load --echo: {error}");
            return ExitCode::from(1);
        }
    };
    let listener = match runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("server_load --echo: cannot listen: {error}");
            return ExitCode::from(1);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let nodelay = !std::env::args().any(|a| a == "--nagle");
    let listener = listener.tap_io(move |stream| {
        let _ = stream.set_nodelay(nodelay);
    });
    println!("{port}");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        let _ = stop.send(());
    });
    let peers: Peers = Arc::default();
    let app = Router::new()
        .route(
            "/ws",
            get(
                |State(peers): State<Peers>, upgrade: WebSocketUpgrade| async move {
                    upgrade
                        .read_buffer_size(READ_BUFFER)
                        .on_upgrade(move |socket| echo_connection(socket, peers))
                },
            ),
        )
        .with_state(peers);
    let served = runtime.block_on(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    runtime.shutdown_timeout(Duration::from_millis(500));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("server_load --echo: {error}");
            ExitCode::from(1)
        }
    }
}

async fn echo_connection(socket: WebSocket, peers: Peers) {
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut outgoing) = mpsc::channel::<Utf8Bytes>(1024);
    let writer = tokio::spawn(async move {
        while let Some(text) = outgoing.recv().await {
            if sink.send(AxumMessage::Text(text)).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let mut me: Option<(u64, usize)> = None;
    let mut partner: Option<mpsc::Sender<Utf8Bytes>> = None;
    while let Some(Ok(message)) = stream.next().await {
        let text = match message {
            AxumMessage::Text(text) => text,
            AxumMessage::Close(_) => break,
            _ => continue,
        };
        let Some((pair, side)) = me else {
            let hello: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
            let (Some(pair), Some(side)) = (hello["pair"].as_u64(), hello["side"].as_u64()) else {
                let _ = outbox
                    .send(r#"{"type":"error","code":"bad_request"}"#.into())
                    .await;
                continue;
            };
            let side = (side & 1) as usize;
            peers.lock().unwrap().entry(pair).or_default()[side] = Some(outbox.clone());
            me = Some((pair, side));
            let _ = outbox.send(r#"{"type":"welcome"}"#.into()).await;
            continue;
        };
        if partner.is_none() {
            partner = peers.lock().unwrap()[&pair][1 - side].clone();
        }
        match &partner {
            Some(partner) => {
                // Own echo first: a connection sees its frame before the partner's answer.
                let _ = outbox.send(text.clone()).await;
                let _ = partner.send(text).await;
            }
            None => {
                let _ = outbox
                    .send(r#"{"type":"error","code":"no_partner"}"#.into())
                    .await;
            }
        }
    }
    drop(outbox);
    let _ = writer.await;
}

// ---------------------------------------------------------------------------------------------
// The echo peer: the same exchange without a game.

struct EchoPeer {
    pair: usize,
    side: usize,
    /// The ply of the next frame to arrive.
    next: usize,
    rng: Rng,
    turns: Turns,
}

impl EchoPeer {
    fn new(pair: usize, side: usize, sent: Arc<Sent>) -> EchoPeer {
        EchoPeer {
            pair,
            side,
            next: 0,
            rng: Rng::new(0xEC40_0000 + 2 * pair as u64 + side as u64),
            turns: Turns::new(sent),
        }
    }

    fn color(&self) -> Color {
        if self.side == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Sends the next frame when it is due: a `played` as the server writes one.
    fn send_turn(&mut self, at: &mut Moment, first: bool) {
        let ply = self.next;
        let not_before = at
            .shared
            .not_before(&self.turns.sent, ply, at.now, first, &mut self.rng);
        let clock = json!({"main_ms": 300_000});
        let played = ServerMessage::Played {
            game: format!("echo{:08}", self.pair).into(),
            ply,
            color: self.color(),
            point: Some("5E".into()),
            captured: Vec::new().into(),
            to_move: self.color().opponent(),
            remaining_ms: 300_000,
            clocks: json!({"black": clock, "white": clock}),
        };
        self.turns.send(ply, played.to_json(), not_before, at.out);
    }
}

impl Role for EchoPeer {
    fn name(&self) -> String {
        format!("echo pair {} side {}", self.pair, self.side)
    }

    fn hello(&self) -> String {
        json!({"type": "hello", "pair": self.pair, "side": self.side}).to_string()
    }

    fn welcomed(&mut self, frame: &str) -> Result<(), String> {
        // The relay's own welcome, not the game server's.
        let frame: Value = serde_json::from_str(frame).map_err(|e| format!("not JSON ({e}): {frame}"))?;
        if frame["type"] != "welcome" {
            return Err(format!("hello was answered by {frame}"));
        }
        Ok(())
    }

    fn run(&mut self, at: &mut Moment) {
        if self.side == 0 {
            self.send_turn(at, true);
        }
    }

    fn frame(&mut self, frame: &str, at: &mut Moment) -> Result<(), String> {
        let color = match serde_json::from_str(frame) {
            Ok(ServerFrame::Played { ply, color, .. }) if ply == self.next => color,
            _ => return Err(format!("expected frame {}, got {frame}", self.next)),
        };
        let ply = self.next;
        self.next += 1;
        if color == self.color() {
            if !self.turns.on_my_turn_acknowledged(ply, at.now, at.shared) {
                return Err(format!("an echo of frame {ply}, which I did not send"));
            }
            return Ok(());
        }
        if !self.turns.on_opponent_turn(ply, at.now, at.shared) {
            return Err(format!("frame {ply} was not stamped"));
        }
        if at.running {
            self.send_turn(at, false);
        }
        Ok(())
    }

    fn turns(&mut self) -> &mut Turns {
        &mut self.turns
    }
}
pub(crate) fn echo_round(
    params: &Params,
    rate: Option<f64>,
    children: &Children,
) -> Result<Measured, String> {
    let nagle = std::env::var("ECHO_NODELAY").is_ok_and(|v| v == "0");
    let args: &[&str] = if nagle {
        &["--echo", "--nagle"]
    } else {
        &["--echo"]
    };
    let echo = ServerProcess::start(args, children)?;
    let site = Site {
        name: "echo".into(),
        servers: std::slice::from_ref(&echo),
        postmaster: None,
    };
    let peers = (0..params.games)
        .flat_map(|pair| {
            let sent = Arc::new(Sent::default());
            (0..2).map(move |side| EchoPeer::new(pair, side, sent.clone()))
        })
        .collect();
    let ceiling = measure(&site, rate, params, peers, Audience::Nobody)?;
    echo.stop()?;
    Ok(ceiling)
}
