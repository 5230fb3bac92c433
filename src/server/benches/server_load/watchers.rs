//! Watchers: connections without a name that follow games with `watch`, each checked to get
//! every turn of its game once, in order, as the game's players had it acknowledged; and the
//! feeds through which players announce their games and their acknowledged turns.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use gokata_engine::coord;
use gokata_server::protocol::{ClientFrame, GameStatus, ServerFrame};

use crate::games::read;
use tokio::sync::{watch, Semaphore};
use tokio_tungstenite::tungstenite::Message;

use crate::driver::{connect, next_frame, received, Phase, Shared, Socket};
use crate::{CONNECTING_AT_ONCE, SIZE};

/// A turn's point in a byte: 0 for a pass, else 1 + its index on the board; `u8::MAX` for
/// anything else (which then differs from the players' copy).
pub(crate) fn point_code(point: Option<&str>) -> u8 {
    match point {
        None => 0,
        Some(text) => match coord::parse(text, SIZE, SIZE) {
            Ok((row, col)) => (1 + row * SIZE + col) as u8,
            Err(_) => u8::MAX,
        },
    }
}

#[derive(Default)]
struct FeedTurns {
    /// By ply: the point and when its mover had the turn acknowledged.
    acked: Vec<Option<(u8, Instant)>>,
    /// By ply: when the last watcher's copy (a `played`) came.
    last_copy: Vec<Option<Instant>>,
    over: bool,
}

/// One game as its players saw it.
pub(crate) struct Feed {
    pub(crate) id: String,
    /// The server processes of its two players.
    processes: [usize; 2],
    turns: Mutex<FeedTurns>,
}

impl Feed {
    /// The mover's turn `ply` was acknowledged at `at`.
    pub(crate) fn acked(&self, ply: usize, point: Option<&str>, at: Instant) {
        let mut turns = self.turns.lock().unwrap();
        if turns.acked.len() <= ply {
            turns.acked.resize(ply + 1, None);
        }
        turns.acked[ply] = Some((point_code(point), at));
    }

    pub(crate) fn finished(&self) {
        self.turns.lock().unwrap().over = true;
    }

    fn copied(&self, ply: usize, at: Instant) {
        let mut turns = self.turns.lock().unwrap();
        if turns.last_copy.len() <= ply {
            turns.last_copy.resize(ply + 1, None);
        }
        let last = &mut turns.last_copy[ply];
        *last = Some(last.map_or(at, |last| last.max(at)));
    }

    /// The acknowledged turns (a turn not acknowledged as `u8::MAX`), and whether it is over.
    fn settled(&self) -> (Vec<u8>, bool) {
        let turns = self.turns.lock().unwrap();
        let points = turns
            .acked
            .iter()
            .map(|turn| turn.map_or(u8::MAX, |(point, _)| point))
            .collect();
        (points, turns.over)
    }

    /// From each turn's acknowledgement, acknowledged in `window`, to its last watcher's copy,
    /// in µs (0 for a copy that came first: a watcher on the mover's process can be quicker
    /// than the mover's own connection).
    fn copy_latencies(&self, window: (Instant, Instant), into: &mut Vec<u32>) {
        let turns = self.turns.lock().unwrap();
        for (acked, copy) in turns.acked.iter().zip(&turns.last_copy) {
            if let (Some((_, acked)), Some(copy)) = (acked, copy) {
                if *acked >= window.0 && *acked < window.1 {
                    let micros = copy.saturating_duration_since(*acked).as_micros();
                    into.push(micros.min(u32::MAX as u128) as u32);
                }
            }
        }
    }
}

/// Every game's feed by id, and the games waiting for watchers: a game started is offered to
/// `per_game` watchers, each taking the oldest offer when it has no game.
pub(crate) struct Feeds {
    per_game: usize,
    games: Mutex<HashMap<String, Arc<Feed>>>,
    offers: Mutex<VecDeque<Arc<Feed>>>,
    /// A permit for each offer.
    offered: Semaphore,
}

impl Feeds {
    pub(crate) fn new(per_game: usize) -> Feeds {
        Feeds {
            per_game,
            games: Mutex::default(),
            offers: Mutex::default(),
            offered: Semaphore::new(0),
        }
    }

    /// The feed of game `id`, whose players are on `processes`.
    pub(crate) fn of(&self, id: &str, processes: [usize; 2]) -> Arc<Feed> {
        let mut games = self.games.lock().unwrap();
        games
            .entry(id.to_string())
            .or_insert_with(|| {
                Arc::new(Feed {
                    id: id.to_string(),
                    processes,
                    turns: Mutex::default(),
                })
            })
            .clone()
    }

    /// A game has started: offered to its watchers.
    pub(crate) fn announce(&self, feed: &Arc<Feed>) {
        let mut offers = self.offers.lock().unwrap();
        offers.extend(std::iter::repeat_n(feed.clone(), self.per_game));
        self.offered.add_permits(self.per_game);
    }

    /// The oldest offer, when there is one (cancel-safe: an offer is taken only when returned).
    async fn next(&self) -> Arc<Feed> {
        let permit = self.offered.acquire().await.expect("never closed");
        permit.forget();
        self.offers
            .lock()
            .unwrap()
            .pop_front()
            .expect("a permit for each offer")
    }

    /// From the acknowledgement of each turn in `window` to its last watcher's copy, in µs,
    /// sorted.
    pub(crate) fn copy_latencies(&self, window: (Instant, Instant)) -> Vec<u32> {
        let mut latencies = Vec::new();
        for feed in self.games.lock().unwrap().values() {
            feed.copy_latencies(window, &mut latencies);
        }
        latencies.sort_unstable();
        latencies
    }
}

/// What the watchers count, shared.
pub(crate) struct WatcherCounters {
    /// Connected, and idle (they watched the lobby and stopped, which keeps a connection
    /// without a name open).
    pub(crate) ready: AtomicUsize,
    /// Caught up with every turn acknowledged, at the end.
    pub(crate) settled: AtomicUsize,
    /// A watcher still behind at the end, and how, for the failure if it stays behind.
    pub(crate) behind: Mutex<Option<String>>,
    connecting: Semaphore,
}

impl Default for WatcherCounters {
    fn default() -> WatcherCounters {
        WatcherCounters {
            ready: AtomicUsize::new(0),
            settled: AtomicUsize::new(0),
            behind: Mutex::new(None),
            connecting: Semaphore::new(CONNECTING_AT_ONCE),
        }
    }
}

#[derive(Default)]
pub(crate) struct WatcherStats {
    pub(crate) games: u64,
    /// Games watched through a process neither of its players is on.
    pub(crate) across: u64,
    /// Games already over when their state came.
    pub(crate) over_when_watched: u64,
    /// Turns that came as `played`, and turns checked in all (those in states too).
    pub(crate) copies: u64,
    pub(crate) turns_checked: u64,
}

impl WatcherStats {
    pub(crate) fn add(&mut self, other: WatcherStats) {
        self.games += other.games;
        self.across += other.across;
        self.over_when_watched += other.over_when_watched;
        self.copies += other.copies;
        self.turns_checked += other.turns_checked;
    }
}

/// A game as one watcher got it.
struct Watched {
    feed: Arc<Feed>,
    state_seen: bool,
    points: Vec<u8>,
    over: bool,
}

pub(crate) struct Watcher {
    index: usize,
    process: usize,
    feeds: Arc<Feeds>,
    watched: Vec<Watched>,
    /// Whether the last game watched goes on.
    watching: bool,
    stats: WatcherStats,
}

impl Watcher {
    /// Watcher `index`, on process `index % processes`.
    pub(crate) fn new(index: usize, processes: usize, feeds: Arc<Feeds>) -> Watcher {
        Watcher {
            index,
            process: index % processes,
            feeds,
            watched: Vec::new(),
            watching: false,
            stats: WatcherStats::default(),
        }
    }

    fn name(&self) -> String {
        format!("watcher {}", self.index)
    }

    fn start(&mut self, feed: Arc<Feed>) -> String {
        self.stats.games += 1;
        if !feed.processes.contains(&self.process) {
            self.stats.across += 1;
        }
        let text = serde_json::to_string(&ClientFrame::Watch {
            game: feed.id.clone(),
        })
        .expect("a frame always serialises");
        self.watched.push(Watched {
            feed,
            state_seen: false,
            points: Vec::new(),
            over: false,
        });
        self.watching = true;
        text
    }

    fn frame(&mut self, text: &str, now: Instant) -> Result<(), String> {
        let frame = read(text)?;
        let (game, is_state): (&str, bool) = match &frame {
            ServerFrame::Lobby { .. } | ServerFrame::UnwatchedLobby | ServerFrame::Presence { .. } => {
                return Ok(())
            }
            ServerFrame::Error(_) => return Err(format!("an error: {text}")),
            ServerFrame::State { game } => (&game.id, true),
            ServerFrame::Played { game, .. } => (game, false),
            ServerFrame::Over { game, .. } => (game, false),
            _ => return Err(format!("unexpected: {text}")),
        };
        let current = match self.watched.last_mut() {
            Some(current) if self.watching && game == current.feed.id => current,
            _ => return Err(format!("a frame of a game not watched now: {text}")),
        };
        let id = &current.feed.id;
        if current.state_seen == is_state {
            return Err(format!("game {id}: a frame before or after its state: {text}"));
        }
        match frame {
            ServerFrame::State { game } => {
                current.state_seen = true;
                current.points = game
                    .moves
                    .iter()
                    .map(|point| point_code(point.as_deref()))
                    .collect();
                if game.status == GameStatus::Over {
                    current.over = true;
                    self.watching = false;
                    self.stats.over_when_watched += 1;
                }
            }
            ServerFrame::Played { ply, point, .. } => {
                let expected = current.points.len();
                if ply != expected {
                    return Err(format!(
                        "game {id}: expected the played of ply {expected}, got {ply}: a gap or a duplicate"
                    ));
                }
                current.points.push(point_code(point.as_deref()));
                current.feed.copied(ply, now);
                self.stats.copies += 1;
            }
            _ => {
                current.over = true;
                self.watching = false;
            }
        }
        Ok(())
    }

    /// How far behind its players the game watched last is, if it is (at the end, when they
    /// have every turn acknowledged); an error if it is not behind but different.
    fn behind(&self) -> Result<Option<String>, String> {
        let Some(last) = self.watched.last() else {
            return Ok(None);
        };
        let (points, over) = last.feed.settled();
        if !points.starts_with(&last.points) || (last.over && !over) {
            return Err(difference(last, &points, over));
        }
        Ok((last.points.len() < points.len() || last.over != over).then(|| {
            format!(
                "{}, game {}: {} turns (over: {}), its players {} (over: {over})",
                self.name(),
                last.feed.id,
                last.points.len(),
                last.over,
                points.len()
            )
        }))
    }

    /// Every game watched, against its players' turns (acknowledged and delivered by now).
    fn check(&mut self) -> Result<(), String> {
        for watched in &self.watched {
            let (points, over) = watched.feed.settled();
            if watched.points != points || watched.over != over {
                return Err(difference(watched, &points, over));
            }
            self.stats.turns_checked += points.len() as u64;
        }
        Ok(())
    }
}

/// How a game as watched differs from its players' `points` and end.
fn difference(watched: &Watched, points: &[u8], over: bool) -> String {
    let id = &watched.feed.id;
    if watched.points == points {
        return format!(
            "game {id}: over for its players {over}, for the watcher {}",
            watched.over
        );
    }
    let same = points
        .iter()
        .zip(&watched.points)
        .take_while(|(a, b)| a == b)
        .count();
    format!(
        "game {id}: got {} turns, its players {} acknowledged; they differ from ply {same} (a \
         lost, extra or different turn)",
        watched.points.len(),
        points.len()
    )
}

/// Opens the connection, and leaves it idle but kept: the server closes one that neither signs
/// in nor watches within 10 s, so it watches the lobby once and stops.
async fn open_idle(port: u16, counters: &WatcherCounters) -> Result<Socket, String> {
    let _permit = counters.connecting.acquire().await.map_err(|e| e.to_string())?;
    let mut socket = connect(port).await?;
    for ask in [ClientFrame::WatchLobby, ClientFrame::UnwatchLobby] {
        let text = serde_json::to_string(&ask).expect("a frame always serialises");
        socket
            .send(Message::text(text.clone()))
            .await
            .map_err(|e| format!("cannot send {text}: {e}"))?;
        let answer = next_frame(&mut socket).await?;
        let answered = matches!(
            (&ask, read(&answer)?),
            (ClientFrame::WatchLobby, ServerFrame::Lobby { .. })
                | (ClientFrame::UnwatchLobby, ServerFrame::UnwatchedLobby)
        );
        if !answered {
            return Err(format!("{text} was answered by {answer}"));
        }
    }
    Ok(socket)
}

/// The watcher's connection through the phases: idle in setup, watching a game at a time while
/// the players play (a new one when its game ends), caught up at the end, then checked.
pub(crate) async fn watch_games(
    mut watcher: Watcher,
    port: u16,
    shared: Arc<Shared>,
    counters: Arc<WatcherCounters>,
    phases: watch::Receiver<Phase>,
) -> Result<WatcherStats, String> {
    match follow(&mut watcher, port, &shared, &counters, phases).await {
        Ok(()) => Ok(watcher.stats),
        Err(message) => {
            let message = format!("{}: {message}", watcher.name());
            shared.fail(message.clone());
            Err(message)
        }
    }
}

async fn follow(
    watcher: &mut Watcher,
    port: u16,
    shared: &Shared,
    counters: &WatcherCounters,
    mut phases: watch::Receiver<Phase>,
) -> Result<(), String> {
    let mut socket = open_idle(port, counters).await?;
    counters.ready.fetch_add(1, Ordering::SeqCst);
    let feeds = watcher.feeds.clone();
    let mut settled = false;
    loop {
        let phase = *phases.borrow_and_update();
        if phase == Phase::Done {
            let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
            return watcher.check();
        }
        if phase >= Phase::Verify && !settled {
            match watcher.behind()? {
                None => {
                    settled = true;
                    counters.settled.fetch_add(1, Ordering::SeqCst);
                }
                Some(behind) => *counters.behind.lock().unwrap() = Some(behind),
            }
        }
        // New games are taken only while the players play: at the end the feeds stay put.
        let idle = phase == Phase::Run && !watcher.watching;
        let polling = phase >= Phase::Verify && !settled;
        tokio::select! {
            message = socket.next() => {
                let now = Instant::now();
                if let Some(frame) = received(message)? {
                    watcher.frame(&frame, now)?;
                }
            }
            feed = feeds.next(), if idle => {
                let text = watcher.start(feed);
                socket.send(Message::text(text)).await.map_err(|e| format!("cannot send: {e}"))?;
            }
            changed = phases.changed() => {
                if changed.is_err() {
                    return Err("the generator stopped".into());
                }
            }
            _ = tokio::time::sleep(Duration::from_millis(20)), if polling => {}
        }
        if shared.failure().is_some() {
            return Ok(());
        }
    }
}
