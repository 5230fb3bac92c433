//! One WebSocket connection: frames in, parsed and rate-limited, to the hub; the hub's
//! messages out, and a ping now and then so that a live but quiet client keeps its connection.
//! `sync`, `watch` and `unwatch` are answered here ([`Answers`]), and the lobby watched, from
//! the [`LobbyFeed`], not through the hub. Nothing here knows the game.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::answers::{Answers, Reply, Unanswered, Watched};
use super::hub::{ConnId, Event, Outgoing};
use super::limits::{ConnectionGuard, TokenBucket};
use super::lobby_feed::{LobbyFeed, LobbyWatch};
use super::protocol::{ClientFrame, ErrorCode, Ref, Refused, ServerMessage, MAX_FRAME_BYTES};

/// Frames over this size end the connection (up to it, they are answered with `bad_request`).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The WebSocket library reads frames up to this size whole, so that a frame over
/// `MAX_MESSAGE_BYTES` is refused in words and the connection closed cleanly; past it the
/// library stops at the frame's header: the frame is refused and the connection closed (1009)
/// with the rest of it unread, so a client still sending it may see the connection reset.
pub const READ_LIMIT_BYTES: usize = 1024 * 1024;
/// Messages waiting to be written to one client before it counts as too slow.
const OUTBOX_CAPACITY: usize = 256;
/// How long one frame may take to write before the client counts as gone.
const SEND_TIME: Duration = Duration::from_secs(10);
/// A client may send this many frames at once, and this many a second for long.
const BURST_FRAMES: f64 = 200.0;
const FRAMES_PER_SECOND: f64 = 100.0;
/// How long the writer may take to flush the last messages after the reader stops, and how
/// long a client that is being closed has to answer the close frame.
const FLUSH_TIME: Duration = Duration::from_secs(2);
/// A connection must be signed in (a `hello` that got `welcome`), or watch a game or the lobby
/// (a `watch` or `watch_lobby` answered), this soon after it opens.
pub const HELLO_TIME: Duration = Duration::from_secs(10);
/// How often the server pings: well within the silence a connection is allowed
/// (`accept::IDLE_TIME`), so that a client that answers pings is never taken for gone.
const PING_EVERY: Duration = Duration::from_secs(25);

static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

/// A connection's id, never given before in this process.
pub fn new_connection_id() -> ConnId {
    NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed)
}

/// One connection's company: where its client is, and what it holds until it ends.
pub struct Holding {
    pub address: IpAddr,
    /// Held to the end, so the server can wait for every connection to flush before it stops.
    pub alive: Arc<()>,
    /// Its place in the per-address count, behind a proxy (else the TCP stream holds it).
    pub guard: Option<ConnectionGuard>,
    /// The lobby, for `watch_lobby`.
    pub lobby: LobbyFeed,
    /// For `sync` and `watch`.
    pub answers: Arc<Answers>,
}

/// Serves one upgraded connection until either side closes it.
pub async fn serve(socket: WebSocket, hub: mpsc::Sender<Event>, holding: Holding) {
    let conn = new_connection_id();
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut outgoing) = mpsc::channel::<Outgoing>(OUTBOX_CAPACITY);
    // The hub holds the only strong sender: when it drops the connection (too slow, or the
    // server stopping), the writer drains what is queued and closes the socket.
    let own_outbox = outbox.downgrade();
    let connected = Event::Connected {
        conn,
        outbox,
        address: holding.address,
    };
    if hub.send(connected).await.is_err() {
        return;
    }
    let say_and_close = |refused: Refused, code: u16, reason: &'static str| {
        if let Some(outbox) = own_outbox.upgrade() {
            let _ = outbox.try_send(Outgoing::Text(ServerMessage::Error(refused).to_json().into()));
            let _ = outbox.try_send(Outgoing::Close(code, reason));
        }
    };
    // Set when the player is signed in (by the writer, when the hub says so after `welcome`),
    // or the connection watches a game or the lobby: a refused hello does not stop the clock
    // of HELLO_TIME.
    let signed_in = Arc::new(AtomicBool::new(false));
    let signed_in_by_writer = signed_in.clone();
    // Set by the writer after `welcome`: `sync` is answered here from then on.
    let welcomed = Arc::new(AtomicBool::new(false));
    let welcomed_by_writer = welcomed.clone();
    let mut writer = tokio::spawn(async move {
        let mut ping = tokio::time::interval_at(Instant::now() + PING_EVERY, PING_EVERY);
        let mut states = StatesSent::default();
        loop {
            let message = tokio::select! {
                message = outgoing.recv() => match message {
                    Some(message) => message,
                    None => break,
                },
                _ = ping.tick() => {
                    match tokio::time::timeout(SEND_TIME, sink.send(Message::Ping(Default::default()))).await {
                        Ok(Ok(())) => continue,
                        _ => break,
                    }
                }
            };
            let frame = match message {
                Outgoing::SignedIn => {
                    signed_in_by_writer.store(true, Ordering::Relaxed);
                    welcomed_by_writer.store(true, Ordering::Relaxed);
                    continue;
                }
                Outgoing::Close(code, reason) => {
                    let close = Message::Close(Some(CloseFrame {
                        code,
                        reason: reason.into(),
                    }));
                    let _ = tokio::time::timeout(SEND_TIME, sink.send(close)).await;
                    break;
                }
                message => match states.pass(message) {
                    Some(text) => Message::Text(text.as_ref().into()),
                    None => continue,
                },
            };
            // A client that does not read blocks the write: it is dropped, not waited for.
            if !matches!(
                tokio::time::timeout(SEND_TIME, sink.send(frame)).await,
                Ok(Ok(()))
            ) {
                break;
            }
        }
        let _ = tokio::time::timeout(SEND_TIME, sink.close()).await;
    });
    let mut limiter = TokenBucket::new(BURST_FRAMES, FRAMES_PER_SECOND, Instant::now());
    let mut writer_done = false;
    let mut linger = false;
    let hello_by = tokio::time::sleep(HELLO_TIME);
    tokio::pin!(hello_by);
    let mut hello_checked = false;
    let mut lobby: Option<LobbyWatch> = None;
    // Whether a `hello` went to the hub: a `sync` before its `welcome` goes there too.
    let mut hello_sent = false;
    // What this connection answers itself (the lobby), queued behind the hub's messages.
    let answer = |reference: Option<Ref>, text: &str| {
        let text = match reference {
            Some(reference) => reference.stamp(text),
            None => text.to_string(),
        };
        if let Some(outbox) = own_outbox.upgrade() {
            let _ = outbox.try_send(Outgoing::Text(text.into()));
        }
    };
    loop {
        let received = tokio::select! {
            received = stream.next() => received,
            text = next_lobby(&mut lobby) => {
                answer(None, &text);
                continue;
            }
            _ = &mut writer => {
                writer_done = true;
                break;
            }
            () = &mut hello_by, if !hello_checked => {
                hello_checked = true;
                if signed_in.load(Ordering::Relaxed) {
                    continue;
                }
                let refused = Refused::bad_request(format!(
                    "no hello (nor a watch) within {} seconds: the connection is closed",
                    HELLO_TIME.as_secs()
                ));
                say_and_close(refused, 1008, "no hello");
                linger = true;
                break;
            }
        };
        let (reference, frame) = match received {
            None | Some(Ok(Message::Close(_))) => break,
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Ok(message @ (Message::Text(_) | Message::Binary(_))))
                if payload_len(&message) > MAX_MESSAGE_BYTES =>
            {
                let refused = Refused::bad_request(format!(
                    "a frame of {} bytes: frames are at most {MAX_FRAME_BYTES} bytes, and over \
                     {MAX_MESSAGE_BYTES} the connection is closed",
                    payload_len(&message)
                ));
                say_and_close(refused, 1009, "frame too large");
                linger = true;
                break;
            }
            Some(Ok(Message::Text(text))) => ClientFrame::parse_with_ref(text.as_str()),
            Some(Ok(Message::Binary(bytes))) => (
                None,
                Err(Refused::bad_request(format!(
                    "a binary frame of {} bytes: frames are JSON text",
                    bytes.len()
                ))),
            ),
            Some(Err(error)) => {
                // Past the read limit, or not WebSocket at all: say why, and close.
                let (refused, code, reason) = unreadable(error);
                say_and_close(refused, code, reason);
                break;
            }
        };
        if !limiter.allow(Instant::now()) {
            let refused = Refused::new(
                ErrorCode::RateLimited,
                format!("more than {FRAMES_PER_SECOND} frames a second: the connection is closed"),
            );
            say_and_close(refused, 1008, "rate limited");
            linger = true;
            break;
        }
        match frame {
            Ok(ClientFrame::WatchLobby) => {
                match holding.lobby.watch().await {
                    Ok((now, watch)) => {
                        lobby = Some(watch);
                        signed_in.store(true, Ordering::Relaxed);
                        answer(reference, &now);
                    }
                    Err(error) => {
                        let refused = Refused::new(
                            ErrorCode::Unavailable,
                            format!("the server cannot reach its records ({error}); try again later"),
                        );
                        answer(reference, &ServerMessage::Error(refused).to_json());
                    }
                }
                continue;
            }
            Ok(ClientFrame::UnwatchLobby) => {
                lobby = None;
                answer(reference, &ServerMessage::UnwatchedLobby.to_json());
                continue;
            }
            Ok(ClientFrame::Watch { game }) => {
                let reply = Reply {
                    outbox: &own_outbox,
                    reference: reference.as_ref(),
                };
                match holding.answers.watch(conn, &game, &reply).await {
                    Ok(Watched::Finished) => {}
                    Ok(Watched::Following) => signed_in.store(true, Ordering::Relaxed),
                    Ok(Watched::FromStore) => {
                        signed_in.store(true, Ordering::Relaxed);
                        if hub.send(Event::Watched { game }).await.is_err() {
                            break;
                        }
                    }
                    Err(unanswered) => {
                        if !answered(Err(unanswered), reference, &answer) {
                            linger = true;
                            break;
                        }
                    }
                }
                continue;
            }
            Ok(ClientFrame::Unwatch { game }) => {
                let reply = Reply {
                    outbox: &own_outbox,
                    reference: reference.as_ref(),
                };
                if !answered(holding.answers.unwatch(conn, &game, &reply), reference, &answer) {
                    linger = true;
                    break;
                }
                continue;
            }
            Ok(ClientFrame::Sync { game }) if welcomed.load(Ordering::Relaxed) => {
                let reply = Reply {
                    outbox: &own_outbox,
                    reference: reference.as_ref(),
                };
                if !answered(holding.answers.sync(&game, &reply).await, reference, &answer) {
                    linger = true;
                    break;
                }
                continue;
            }
            // Without a `hello`, refused here; after one not yet welcomed, the hub answers (it
            // alone knows yet whether the `hello` was taken).
            Ok(ClientFrame::Sync { .. }) if !hello_sent => {
                answer(reference, &ServerMessage::Error(Refused::hello_first()).to_json());
                continue;
            }
            Ok(ClientFrame::Hello { .. }) => hello_sent = true,
            _ => {}
        }
        if hub
            .send(Event::Frame {
                conn,
                frame,
                reference,
            })
            .await
            .is_err()
        {
            break;
        }
    }
    holding.answers.leave(conn);
    let _ = hub.send(Event::Disconnected { conn }).await;
    if linger {
        // Closing the socket with the client's frames unread would reset the connection and
        // lose our last words to it: read and drop its frames until it answers the close.
        let _ = tokio::time::timeout(FLUSH_TIME, async {
            while let Some(Ok(message)) = stream.next().await {
                if matches!(message, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
    if !writer_done && tokio::time::timeout(FLUSH_TIME, &mut writer).await.is_err() {
        writer.abort();
    }
}

/// Answers a request answered here that was refused with its error; `false` if the client
/// does not read what it is sent (the connection is being closed).
fn answered(
    result: Result<(), Unanswered>,
    reference: Option<Ref>,
    answer: &impl Fn(Option<Ref>, &str),
) -> bool {
    match result {
        Ok(()) => true,
        Err(Unanswered::Refused(refused)) => {
            answer(reference, &ServerMessage::Error(refused).to_json());
            true
        }
        Err(Unanswered::TooSlow) => false,
    }
}

/// The turns of each game that the last `state` sent of it had, until a later `played` comes:
/// a `played` of one of them is not sent (the hub may tell a turn after the state was made of
/// a publication that had it).
#[derive(Default)]
pub(crate) struct StatesSent(HashMap<Arc<str>, usize>);

impl StatesSent {
    /// The text to send for `message`; `None` to send nothing.
    pub(crate) fn pass(&mut self, message: Outgoing) -> Option<Arc<str>> {
        match message {
            Outgoing::State { game, plies, text } => {
                self.0.insert(game, plies);
                Some(text)
            }
            Outgoing::Played { game, ply, text } => match self.0.get(&game) {
                Some(&plies) if ply < plies => None,
                Some(_) => {
                    self.0.remove(&game);
                    Some(text)
                }
                None => Some(text),
            },
            Outgoing::Undone { game, text } => {
                self.0.remove(&game);
                Some(text)
            }
            Outgoing::Text(text) => Some(text),
            Outgoing::SignedIn | Outgoing::Close(..) => None,
        }
    }
}

/// The next lobby to send, if the connection watches the lobby (else never).
async fn next_lobby(lobby: &mut Option<LobbyWatch>) -> Arc<str> {
    match lobby {
        Some(lobby) => lobby.next().await,
        None => std::future::pending().await,
    }
}

/// Why a frame the WebSocket library could not read ends the connection, and the close
/// frame's code and reason: 1009 for one over `READ_LIMIT_BYTES`, 1002 for a broken one.
fn unreadable(error: axum::Error) -> (Refused, u16, &'static str) {
    let error = error.into_inner();
    if let Some(tungstenite::Error::Capacity(tungstenite::error::CapacityError::MessageTooLong {
        size,
        ..
    })) = error.downcast_ref::<tungstenite::Error>()
    {
        let refused = Refused::bad_request(format!(
            "a frame of {size} bytes: frames are at most {MAX_FRAME_BYTES} bytes, and one over \
             {READ_LIMIT_BYTES} is not read: the connection is closed"
        ));
        return (refused, 1009, "frame too large");
    }
    let refused = Refused::bad_request(format!(
        "not a WebSocket frame the server can read ({error}): the connection is closed"
    ));
    (refused, 1002, "unreadable frame")
}

fn payload_len(message: &Message) -> usize {
    match message {
        Message::Text(text) => text.len(),
        Message::Binary(bytes) | Message::Ping(bytes) | Message::Pong(bytes) => bytes.len(),
        Message::Close(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn played(ply: usize) -> Outgoing {
        Outgoing::Played {
            game: "g".into(),
            ply,
            text: format!("played {ply}").into(),
        }
    }

    #[test]
    fn a_turn_a_state_had_is_not_sent_after_it_unless_turns_were_taken_back() {
        let mut sent = StatesSent::default();
        assert!(sent.pass(played(3)).is_some(), "no state of the game yet");
        let state = Outgoing::State {
            game: "g".into(),
            plies: 5,
            text: "state".into(),
        };
        assert_eq!(sent.pass(state).as_deref(), Some("state"));
        assert_eq!(sent.pass(played(4)), None, "the state had it");
        let other = Outgoing::Played {
            game: "h".into(),
            ply: 0,
            text: "other".into(),
        };
        assert!(sent.pass(other).is_some(), "another game's");
        let undone = Outgoing::Undone {
            game: "g".into(),
            text: "undone".into(),
        };
        assert!(sent.pass(undone).is_some());
        assert_eq!(
            sent.pass(played(4)).as_deref(),
            Some("played 4"),
            "after turns taken back, a ply of the state comes again"
        );
        let state = Outgoing::State {
            game: "g".into(),
            plies: 5,
            text: "state".into(),
        };
        sent.pass(state);
        assert_eq!(sent.pass(played(5)).as_deref(), Some("played 5"));
        assert_eq!(sent.pass(played(6)).as_deref(), Some("played 6"));
    }
}
