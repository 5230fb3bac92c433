//! The generator: one task per connection, driven through phases; what a connection does is
//! its `Role` (a game player, or an echo peer).

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use gokata_engine::Rng;
use tokio::net::TcpStream;
use tokio::sync::{watch, Semaphore};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

use crate::measure::Stats;
use crate::{CONNECTING_AT_ONCE, CONNECT_TIMEOUT, PACE_BURST, PACE_PER_SECOND, READ_BUFFER};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Phase {
    /// Connecting and signing in.
    Setup,
    /// Playing.
    Run,
    /// No new turn or seek; the turns in flight are acknowledged.
    Stop,
    /// Re-reading the games.
    Verify,
    /// Closing.
    Done,
}

pub(crate) struct Shared {
    pub(crate) ready: AtomicUsize,
    /// Connections whose first game has started (an echo peer's at once).
    pub(crate) started: AtomicUsize,
    pub(crate) quiet: AtomicUsize,
    pub(crate) verified: AtomicUsize,
    failed: AtomicBool,
    failures: Mutex<Vec<String>>,
    /// The measured window.
    pub(crate) window: OnceLock<(Instant, Instant)>,
    connecting: Semaphore,
    /// Players seeking their first game at once (the ramp; see `Params::seeking_at_once`).
    seeking: Semaphore,
    /// Players in a game now.
    pub(crate) in_game: AtomicUsize,
    /// Turns acknowledged to their players less turns received by the opponents: every
    /// acknowledged turn must reach the opponent (on another process, it may do so before the
    /// acknowledgement, so this can be negative for a while).
    pub(crate) undelivered: AtomicI64,
    /// The time from one turn of a game to the next when the load is paced; `None` flat out.
    interval: Option<Duration>,
}

impl Shared {
    pub(crate) fn new(interval: Option<Duration>, seeking_at_once: usize) -> Shared {
        Shared {
            ready: AtomicUsize::new(0),
            started: AtomicUsize::new(0),
            quiet: AtomicUsize::new(0),
            verified: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            failures: Mutex::new(Vec::new()),
            window: OnceLock::new(),
            connecting: Semaphore::new(CONNECTING_AT_ONCE),
            seeking: Semaphore::new(seeking_at_once),
            in_game: AtomicUsize::new(0),
            undelivered: AtomicI64::new(0),
            interval,
        }
    }

    pub(crate) fn fail(&self, message: String) {
        self.failed.store(true, Ordering::SeqCst);
        self.failures.lock().unwrap().push(message);
    }

    pub(crate) fn failure(&self) -> Option<String> {
        if !self.failed.load(Ordering::SeqCst) {
            return None;
        }
        let failures = self.failures.lock().unwrap();
        let mut message = failures.iter().take(5).cloned().collect::<Vec<_>>().join("; ");
        if failures.len() > 5 {
            message += &format!("; and {} more", failures.len() - 5);
        }
        Some(message)
    }

    /// When turn `ply` of a paced game may go: on a fixed schedule from the game's first turn,
    /// which the first game of a player puts off by a random part of the interval (so games do
    /// not move in step). A late turn goes at once: turns never wait for a missed slot.
    pub(crate) fn not_before(
        &self,
        game: &Sent,
        ply: usize,
        now: Instant,
        first: bool,
        rng: &mut Rng,
    ) -> Option<Instant> {
        let interval = self.interval?;
        let origin = *game.origin.get_or_init(|| match first {
            true => now + interval.mul_f64(rng.below(1000) as f64 / 1000.0),
            false => now,
        });
        let at = origin + interval.mul_f64(ply as f64);
        (at > now).then_some(at)
    }

    pub(crate) fn in_window(&self, at: Instant) -> bool {
        self.window
            .get()
            .is_some_and(|&(start, end)| at >= start && at < end)
    }
}

/// When a game's last turn was sent, so the opponent's connection can time its `played`; and
/// when its turns are due when the load is paced.
#[derive(Default)]
pub(crate) struct Sent {
    last: Mutex<Option<(usize, Instant)>>,
    /// When turn 0 is due: turn `n` is due `n` intervals later.
    origin: OnceLock<Instant>,
}

impl Sent {
    fn stamp(&self, ply: usize, at: Instant) {
        *self.last.lock().unwrap() = Some((ply, at));
    }

    fn at(&self, ply: usize) -> Option<Instant> {
        match *self.last.lock().unwrap() {
            Some((sent, at)) if sent == ply => Some(at),
            _ => None,
        }
    }
}

/// A frame to send, not before `not_before`; a turn is stamped with its time just before it goes.
pub(crate) struct Out {
    pub(crate) text: String,
    pub(crate) stamp: Option<(Arc<Sent>, usize)>,
    pub(crate) not_before: Option<Instant>,
}

/// When a connection acts (on a frame, or as playing begins), whether playing goes on, and where
/// its frames to send go.
pub(crate) struct Moment<'a> {
    pub(crate) now: Instant,
    pub(crate) running: bool,
    pub(crate) shared: &'a Shared,
    pub(crate) out: &'a mut Vec<Out>,
}
/// yet acknowledged, and what it counted.
pub(crate) struct Turns {
    pub(crate) sent: Arc<Sent>,
    pub(crate) awaiting: Option<usize>,
    pub(crate) stats: Stats,
}

impl Turns {
    pub(crate) fn new(sent: Arc<Sent>) -> Turns {
        Turns {
            sent,
            awaiting: None,
            stats: Stats::default(),
        }
    }

    /// Sends own turn `ply` as `text`, not before `not_before`; it is stamped as it goes and
    /// awaits its acknowledgement.
    pub(crate) fn send(&mut self, ply: usize, text: String, not_before: Option<Instant>, out: &mut Vec<Out>) {
        self.awaiting = Some(ply);
        out.push(Out {
            text,
            stamp: Some((self.sent.clone(), ply)),
            not_before,
        });
    }

    /// Own turn `ply` came back at `now`; false (and nothing counted) if it is not the one sent.
    pub(crate) fn on_my_turn_acknowledged(&mut self, ply: usize, now: Instant, shared: &Shared) -> bool {
        if self.awaiting != Some(ply) {
            return false;
        }
        self.awaiting = None;
        self.stats.turns += 1;
        shared.undelivered.fetch_add(1, Ordering::SeqCst);
        if shared.in_window(now) {
            self.stats.acked_in_window += 1;
            if let Some(sent) = self.sent.at(ply) {
                let micros = now.duration_since(sent).as_micros();
                self.stats
                    .ack_latencies_us
                    .push(micros.min(u32::MAX as u128) as u32);
            }
        }
        true
    }

    /// The opponent's turn `ply` arrived at `now`: its latency from the opponent's stamp; false
    /// if the opponent did not stamp it.
    pub(crate) fn on_opponent_turn(&mut self, ply: usize, now: Instant, shared: &Shared) -> bool {
        let Some(sent) = self.sent.at(ply) else {
            return false;
        };
        shared.undelivered.fetch_sub(1, Ordering::SeqCst);
        if shared.in_window(now) {
            let micros = now.duration_since(sent).as_micros();
            self.stats.latencies_us.push(micros.min(u32::MAX as u128) as u32);
        }
        true
    }
}

/// What a connection does; the driver owns the socket, the phases and the pacing.
pub(crate) trait Role: Send + 'static {
    fn name(&self) -> String;
    fn hello(&self) -> String;
    /// The answer to `hello`, as text.
    fn welcomed(&mut self, frame: &str) -> Result<(), String>;
    /// Playing begins.
    fn run(&mut self, at: &mut Moment);
    /// A frame, as text: each role reads it as the frames it expects.
    fn frame(&mut self, frame: &str, at: &mut Moment) -> Result<(), String>;
    /// Its first game has started.
    fn started(&self) -> bool {
        true
    }
    /// Re-reading begins (a role without games has nothing to re-read).
    fn verify(&mut self, _out: &mut Vec<Out>) {}
    fn is_verified(&self) -> bool {
        true
    }
    fn turns(&mut self) -> &mut Turns;
}

struct Pacer {
    tokens: f64,
    updated: Instant,
    waits: u64,
}

impl Pacer {
    fn new() -> Pacer {
        Pacer {
            tokens: PACE_BURST,
            updated: Instant::now(),
            waits: 0,
        }
    }

    async fn take(&mut self) {
        let refill = |pacer: &mut Pacer| {
            let now = Instant::now();
            let elapsed = now.duration_since(pacer.updated).as_secs_f64();
            pacer.updated = now;
            pacer.tokens = (pacer.tokens + elapsed * PACE_PER_SECOND).min(PACE_BURST);
        };
        refill(self);
        if self.tokens < 1.0 {
            self.waits += 1;
            tokio::time::sleep(Duration::from_secs_f64((1.0 - self.tokens) / PACE_PER_SECOND)).await;
            refill(self);
        }
        self.tokens -= 1.0;
    }
}

pub(crate) type Socket = WebSocketStream<TcpStream>;

/// A TCP connection to the server on loopback, without Nagle's delay.
pub(crate) async fn tcp_to(port: u16) -> Result<TcpStream, String> {
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(("127.0.0.1", port)))
        .await
        .map_err(|_| "connecting timed out".to_string())?
        .map_err(|e| format!("cannot connect: {e}"))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("cannot set TCP_NODELAY: {e}"))?;
    Ok(stream)
}

pub(crate) async fn connect(port: u16) -> Result<Socket, String> {
    let stream = tcp_to(port).await?;
    let url = format!("ws://127.0.0.1:{port}/ws");
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let handshake = tokio_tungstenite::client_async_with_config(url, stream, Some(config));
    let (socket, _) = tokio::time::timeout(CONNECT_TIMEOUT, handshake)
        .await
        .map_err(|_| "the WebSocket handshake timed out".to_string())?
        .map_err(|e| format!("the WebSocket handshake failed: {e}"))?;
    Ok(socket)
}

/// A text frame; `None` for a frame of another kind, which is passed over.
pub(crate) fn received(message: Option<Result<Message, WsError>>) -> Result<Option<Utf8Bytes>, String> {
    match message {
        Some(Ok(Message::Text(text))) => Ok(Some(text)),
        Some(Ok(Message::Close(frame))) => Err(format!("the server closed the connection: {frame:?}")),
        Some(Ok(_)) => Ok(None),
        Some(Err(e)) => Err(format!("the connection failed: {e}")),
        None => Err("the server closed the connection".into()),
    }
}

pub(crate) async fn next_frame(socket: &mut Socket) -> Result<Utf8Bytes, String> {
    loop {
        let message = tokio::time::timeout(CONNECT_TIMEOUT, socket.next())
            .await
            .map_err(|_| "no answer in time".to_string())?;
        if let Some(frame) = received(message)? {
            return Ok(frame);
        }
    }
}

pub(crate) async fn drive<R: Role>(
    mut role: R,
    port: u16,
    shared: Arc<Shared>,
    phases: watch::Receiver<Phase>,
) -> Result<Stats, String> {
    let mut pacer = Pacer::new();
    match drive_socket(&mut role, port, &shared, phases, &mut pacer).await {
        Ok(()) => {
            let mut stats = std::mem::take(&mut role.turns().stats);
            stats.paced = pacer.waits;
            Ok(stats)
        }
        Err(message) => {
            let message = format!("{}: {message}", role.name());
            shared.fail(message.clone());
            Err(message)
        }
    }
}

async fn drive_socket<R: Role>(
    role: &mut R,
    port: u16,
    shared: &Shared,
    mut phases: watch::Receiver<Phase>,
    pacer: &mut Pacer,
) -> Result<(), String> {
    let mut socket = {
        let _permit = shared.connecting.acquire().await.map_err(|e| e.to_string())?;
        let mut socket = connect(port).await?;
        socket
            .send(Message::text(role.hello()))
            .await
            .map_err(|e| format!("cannot send hello: {e}"))?;
        let answer = next_frame(&mut socket).await?;
        role.welcomed(&answer)?;
        socket
    };
    shared.ready.fetch_add(1, Ordering::SeqCst);
    let mut phase = Phase::Setup;
    let (mut started, mut quiet, mut verified) = (false, false, false);
    let mut ramp = None;
    let mut out = Vec::new();
    loop {
        let now_phase = *phases.borrow_and_update();
        if now_phase != phase {
            if phase < Phase::Run && now_phase == Phase::Run {
                if !role.started() {
                    ramp = Some(shared.seeking.acquire().await.map_err(|e| e.to_string())?);
                }
                let now = Instant::now();
                role.run(&mut Moment {
                    now,
                    running: true,
                    shared,
                    out: &mut out,
                });
            }
            if phase < Phase::Verify && now_phase == Phase::Verify {
                role.verify(&mut out);
            }
            phase = now_phase;
        }
        if phase == Phase::Done {
            let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
            return Ok(());
        }
        for Out {
            text,
            stamp,
            not_before,
        } in out.drain(..)
        {
            if let Some(at) = not_before {
                tokio::time::sleep_until(at.into()).await;
            }
            pacer.take().await;
            if let Some((sent, ply)) = stamp {
                sent.stamp(ply, Instant::now());
            }
            socket
                .send(Message::text(text))
                .await
                .map_err(|e| format!("cannot send: {e}"))?;
        }
        if phase >= Phase::Run && !started && role.started() {
            started = true;
            drop(ramp.take());
            shared.started.fetch_add(1, Ordering::SeqCst);
        }
        if phase >= Phase::Stop && !quiet && role.turns().awaiting.is_none() {
            quiet = true;
            shared.quiet.fetch_add(1, Ordering::SeqCst);
        }
        if phase >= Phase::Verify && !verified && role.is_verified() {
            verified = true;
            shared.verified.fetch_add(1, Ordering::SeqCst);
        }
        tokio::select! {
            message = socket.next() => {
                let now = Instant::now();
                if let Some(frame) = received(message)? {
                    let running = phase == Phase::Run;
                    role.frame(frame.as_str(), &mut Moment { now, running, shared, out: &mut out })?;
                }
            }
            changed = phases.changed() => {
                if changed.is_err() {
                    return Err("the generator stopped".into());
                }
            }
        }
    }
}
