//! The hub: the one place in a process where the server's state lives and changes. Connections
//! send it events; it handles a batch of them, commits every change of the batch in one
//! transaction, and only then delivers what the batch says (so nothing is announced before it is
//! stored), and ends games whose move clock has run out.
//!
//! It keeps every live game in memory. On a shared database (PostgreSQL) other processes change
//! them too: their writes are rejected by the store when they raced ours and won, and their
//! notifications make the hub read what changed (see [`Hub::catch_up`]); each process tells only
//! its own connections. A lost database connection is waited out: the hub reconnects and reads
//! every game again before it goes on.
//!
//! It runs on a thread of its own (the store is single-writer); its clock is tokio's, so tests
//! can run it on paused time.
//!
//! This module holds the hub's state and its loop (a batch: events handled, committed,
//! delivered); its jobs are modules of their own: `batch` (what a round of events asked for),
//! `sign_in`, `pairing`, `turns`, `undo`, `chat`, `scoring`, `clocks`, `commit` (the commit,
//! which consumes the batch, and what it lets be delivered), `remote` (the other processes'
//! changes, and a lost database), `queries` (game states), `connections`, `presence`,
//! `watching` (a game's news to its watchers, whose rooms the connections join themselves:
//! [`crate::rooms`]), `from_store` (watchers sent a game as stored, brought up to what the hub
//! holds), `held` (the games held, and which changed) and `publish` (what readers on other
//! threads see: [`crate::snapshot`]).
//!
//! What the hub tells of a change goes out only once the change is published (a batch's
//! deliveries after its commit's publication, news of other processes' changes after the next
//! one): so a connection that answers `sync` or `watch` from what was published never sends a
//! state older than what the hub told it before.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::game::{GameResult, ServerGame};
use super::limits::BucketsByAddress;
use super::listing::Directory;
use super::protocol::{ClientFrame, Ref, Refused, ServerMessage};
use super::rooms::Rooms;
use super::snapshot::Snapshot;
use super::store::{Change, PlayerRecord, Remote, Store, StoreError};
use batch::Batch;
use clocks::{remaining, sleep_until};
use held::HeldGames;
use presence::Elsewhere;

pub type ConnId = u64;

/// Events handled in one batch at most, so one commit never waits on an endless stream.
const MAX_BATCH: usize = 512;
/// How often a process on a shared database says it is alive (its listener says so too, on a
/// connection of its own); an idle hub also notices a lost database this way.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How often a process on a shared database looks for games overdue that no process ended
/// (see `holding`): with the database's margin, such a game ends within about 0.75 s of its
/// deadline.
const OVERDUE_EVERY: Duration = Duration::from_millis(500);
/// How many announced ends a process remembers (see `Hub::recently_over`).
const RECENTLY_OVER: usize = 4096;
/// The longest wait between two attempts to reach a lost database.
const MAX_RECONNECT_WAIT: Duration = Duration::from_secs(2);

/// What the hub (or the connection itself) queues for a connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Outgoing {
    Text(Arc<str>),
    /// A `state` answering `sync` or `watch`, of a game being played with `plies` turns: the
    /// connection drops any `played` of those turns that comes after it.
    State {
        game: Arc<str>,
        plies: usize,
        text: Arc<str>,
    },
    /// A game's `played` of its turn `ply`.
    Played {
        game: Arc<str>,
        ply: usize,
        text: Arc<str>,
    },
    /// A game's `undone`: turns were taken back, so a later `played` may have the `ply` of one
    /// that a state had.
    Undone {
        game: Arc<str>,
        text: Arc<str>,
    },
    /// The connection's player is signed in (its `welcome` went just before).
    SignedIn,
    /// A close frame with this code and reason, after which the connection ends.
    Close(u16, &'static str),
}

impl Outgoing {
    /// The message's text, if it is one.
    pub fn text(&self) -> Option<&Arc<str>> {
        match self {
            Outgoing::Text(text)
            | Outgoing::State { text, .. }
            | Outgoing::Played { text, .. }
            | Outgoing::Undone { text, .. } => Some(text),
            Outgoing::SignedIn | Outgoing::Close(..) => None,
        }
    }

    /// The same message, its text carrying `reference`.
    fn stamped(mut self, reference: &Ref) -> Outgoing {
        match &mut self {
            Outgoing::Text(text)
            | Outgoing::State { text, .. }
            | Outgoing::Played { text, .. }
            | Outgoing::Undone { text, .. } => *text = reference.stamp(text).into(),
            Outgoing::SignedIn | Outgoing::Close(..) => {}
        }
        self
    }
}

#[derive(Debug)]
pub enum Event {
    Connected {
        conn: ConnId,
        outbox: mpsc::Sender<Outgoing>,
        /// The client's address, for the limit on new names.
        address: IpAddr,
    },
    Frame {
        conn: ConnId,
        frame: Result<ClientFrame, Refused>,
        /// The frame's `ref`, echoed in what answers it.
        reference: Option<Ref>,
    },
    Disconnected {
        conn: ConnId,
    },
    /// The server's own computer player (`gokata serve --bot`) signs in on its connection,
    /// without a token: its account was claimed when the server started.
    Resident {
        conn: ConnId,
        name: String,
    },
    /// A connection watches the game, sent it as stored: the hub holds the game and brings the
    /// watcher up to it (see `from_store`).
    Watched {
        game: String,
    },
    /// Another process changed these games.
    Remote(Remote),
    /// Finish the batch, say goodbye to every connection, and stop.
    Shutdown,
}

struct Connection {
    outbox: mpsc::Sender<Outgoing>,
    address: IpAddr,
    /// The signed-in player's key.
    player: Option<String>,
    /// Whether `welcome` went out: what is told to the player before it is not sent here, since
    /// the welcome, made at delivery, has it already.
    welcomed: bool,
    /// When its last chat messages were sent (the rate limit's window).
    chat_sent: std::collections::VecDeque<Instant>,
}

struct Player {
    record: PlayerRecord,
    connections: Vec<ConnId>,
}

struct LiveGame {
    game: ServerGame,
    /// When the player to move runs out of time; `None` while the last turn awaits its commit.
    deadline: Option<Instant>,
    /// When the turn under way began, by this process's clock (the clock it measures against);
    /// `None` while the last turn awaits its commit.
    turn_started: Option<Instant>,
    /// The earliest entry `clocks` holds for this game, if any: at or before `deadline`.
    queued: Option<Instant>,
    /// Turns announced to this process's connections (all of them committed).
    announced: usize,
    /// What this process holds of the game may differ from the store (a write of it was
    /// rejected, or its fate is unknown): the next catch-up reads it whole.
    dirty: bool,
    /// When this process first held the game, in the order of games: the lobby lists the
    /// newest first.
    order: u64,
}

impl LiveGame {
    fn new(game: ServerGame) -> LiveGame {
        let announced = game.moves().len();
        LiveGame {
            game,
            deadline: None,
            turn_started: None,
            queued: None,
            announced,
            dirty: false,
            order: 0,
        }
    }
}

/// Something to deliver once the batch is committed.
enum Delivery {
    ToConnection(ConnId, Arc<str>),
    ToPlayer(String, Outgoing),
    /// `over` to both players, with the records its write's commit returned.
    Over {
        game: String,
        result: GameResult,
    },
    /// `welcome`, made at delivery time so its records and games are the committed ones.
    Welcome {
        conn: ConnId,
        token: String,
    },
    /// The `state` of a live game, made at delivery time: what was stored, not what the batch
    /// hoped to store; `synced`: in answer to `sync` (see [`Outgoing::State`]).
    State {
        conn: ConnId,
        game: String,
        synced: bool,
    },
    /// A game's news to its watchers here.
    ToWatchers(watching::News),
    /// `undone` to both players and the watchers, who follow the game from `plies` turns on;
    /// `number`: its number as news (see `watching`).
    Undone {
        game: String,
        plies: usize,
        text: Arc<str>,
        number: u64,
    },
    /// `over` to the game's watchers, whose room closes; the game as it ended brings up those
    /// sent it from the store first.
    WatchersOver {
        game: Box<ServerGame>,
        text: Arc<str>,
    },
    /// The game's watchers sent it from the store, brought up to what the hub holds.
    BringUp {
        game: String,
    },
}

/// A delivery, and the write (by its index in the batch) it announces, if any: it is dropped if
/// that write is rejected or the commit fails.
struct Pending {
    after: Option<usize>,
    delivery: Delivery,
    /// The connection and `ref` of the frame this answers, if it answers one that had a `ref`.
    answer_to: Option<(ConnId, Ref)>,
}

pub struct Hub {
    store: Store,
    move_time: Duration,
    connections: HashMap<ConnId, Connection>,
    /// While a frame with a `ref` is handled: its connection and `ref`, which what is queued in
    /// answer carries.
    answering: Option<(ConnId, Ref)>,
    /// While a delivery that answers such a frame is sent: the same, for [`Hub::send`].
    delivering: Option<(ConnId, Ref)>,
    /// Players connected here, by key: their records and connections.
    players: HashMap<String, Player>,
    /// Every game being played, wherever its players are connected.
    games: HeldGames,
    /// What readers on other threads see of the games and seeks, published after each commit.
    snapshot: Snapshot,
    /// Every game being played, where this process holds only some (a shared database).
    directory: Option<Directory>,
    /// The count of changes to the seeks (where they live here) as last published.
    seeks_published: Option<u64>,
    /// Whether a player connected or left since the players connected were last published.
    presence_changed: bool,
    /// On a shared database, whether the seeks may have changed since readers were last told
    /// (they read the seeks from the database again).
    seeks_changed: bool,
    /// Games held only to be ended for being overdue (see `holding`), until they are.
    overdue: HashSet<String>,
    /// Whether a player or an overdue game left since the games held were last checked for
    /// whether anyone here still needs them (see `holding`).
    release_due: bool,
    /// When the games held are next checked for watchers gone, at the latest.
    next_release_check: Instant,
    /// Games held since the start, for their order.
    games_held: u64,
    /// Entries at or before their games' deadlines; one that comes up early is queued again
    /// for its game's deadline.
    clocks: BinaryHeap<Reverse<(Instant, String)>>,
    /// The batch under way, consumed by its commit.
    batch: Batch,
    /// New names registered, by address.
    registrations: BucketsByAddress,
    /// Turns other processes stored, told whole, played after the batch.
    remote_turns: Vec<Change>,
    /// Chat messages other processes stored (game, id), read and told after the batch.
    remote_chats: Vec<(String, i64)>,
    /// Games other processes changed otherwise, read after the batch.
    remote: HashSet<String>,
    remote_everything: bool,
    /// Games that ended in this batch, for states made at delivery time.
    ended: HashMap<String, ServerGame>,
    /// The games whose end this process announced lately, oldest first (at most
    /// [`RECENTLY_OVER`]): a catch-up that reads one of them again does not announce it again.
    recently_over: VecDeque<String>,
    /// A store error met while handling the batch: on a shared store the hub recovers from it;
    /// on SQLite it stops.
    failure: Option<StoreError>,
    /// Whether the store answers (`/health` says so).
    healthy: Arc<AtomicBool>,
    /// Set when the server is stopping: ends a wait for a lost database.
    stopping: Option<watch::Receiver<bool>>,
    /// Who is connected to the other processes on a shared database.
    elsewhere: Elsewhere,
    /// The watchers of each game watched here, shared with the connections, which join and
    /// leave them.
    rooms: Rooms,
    /// What to tell of changes already made, once they are published: other processes' turns
    /// and ends, read or told (see [`Hub::publish`]).
    news: Vec<Delivery>,
    /// The number of the last piece of news to watchers (see `watching`).
    news_told: u64,
}

impl Hub {
    /// A hub on `store`, with every unfinished game loaded and its clock running: afresh on
    /// SQLite, where this process is the only server; as the database has it on PostgreSQL.
    /// `registrations_per_hour` new names may come from one address (all at once, at most).
    pub async fn new(
        mut store: Store,
        move_time: Duration,
        registrations_per_hour: u32,
    ) -> Result<Hub, StoreError> {
        // On a shared database, games are read as connections need them (see `holding`).
        let ids = if store.is_shared() {
            Vec::new()
        } else {
            store.live_game_ids().await?
        };
        let known: Vec<(String, usize)> = ids.into_iter().map(|id| (id, 0)).collect();
        let live = store.games_now(&known).await?;
        let directory = match store.newest_games_listed(Directory::KEPT).await? {
            Some(newest) => Some(Directory::of(store.live_game_ids().await?, newest)),
            None => None,
        };
        let snapshot = Snapshot::default();
        let mut hub = Hub {
            store,
            move_time,
            connections: HashMap::new(),
            answering: None,
            delivering: None,
            players: HashMap::new(),
            games: HeldGames::default(),
            snapshot,
            directory,
            seeks_published: None,
            overdue: HashSet::new(),
            release_due: false,
            next_release_check: Instant::now(),
            presence_changed: true,
            seeks_changed: false,
            games_held: 0,
            clocks: BinaryHeap::new(),
            batch: Batch::default(),
            registrations: BucketsByAddress::new(
                f64::from(registrations_per_hour),
                f64::from(registrations_per_hour) / 3600.0,
            ),
            remote_turns: Vec::new(),
            remote_chats: Vec::new(),
            remote: HashSet::new(),
            remote_everything: false,
            ended: HashMap::new(),
            recently_over: VecDeque::new(),
            failure: None,
            healthy: Arc::new(AtomicBool::new(true)),
            stopping: None,
            elsewhere: Elsewhere::default(),
            rooms: Rooms::default(),
            news: Vec::new(),
            news_told: 0,
        };
        for now in live {
            let game = ServerGame::from_stored(&now.game).map_err(StoreError::Corrupt)?;
            let remaining = remaining(&now, &game);
            let id = game.id.clone();
            hub.hold(LiveGame::new(game));
            hub.arm_clock(&id, remaining);
        }
        hub.publish();
        Ok(hub)
    }

    /// What the hub publishes after each commit, for readers on other threads.
    pub fn snapshot(&self) -> Snapshot {
        self.snapshot.clone()
    }

    /// The games' watchers, whose rooms the connections join and leave themselves.
    pub fn rooms(&self) -> Rooms {
        self.rooms.clone()
    }

    /// Whether the store answers, for `/health`.
    pub fn health(&self) -> Arc<AtomicBool> {
        self.healthy.clone()
    }

    /// Lets a wait for a lost database end when the server stops.
    pub fn stop_with(&mut self, stopping: watch::Receiver<bool>) {
        self.stopping = Some(stopping);
    }

    /// Handles events until `Shutdown` or until every sender is gone. On SQLite a store error
    /// stops the hub: what was not committed was never announced, and a restart carries on from
    /// the store. On PostgreSQL the hub waits for the database and carries on itself.
    pub async fn run(mut self, mut events: mpsc::Receiver<Event>) -> Result<(), StoreError> {
        let result = self.run_batches(&mut events).await;
        self.say_goodbye(match result {
            Ok(()) => "the server is shutting down; reconnect later",
            Err(_) => "the server stopped on an error; reconnect later",
        });
        if let Store::Postgres(store) = &mut self.store {
            let _ = store.sign_off().await;
        }
        result
    }

    async fn run_batches(&mut self, events: &mut mpsc::Receiver<Event>) -> Result<(), StoreError> {
        let shared = self.store.is_shared();
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut overdue = tokio::time::interval(OVERDUE_EVERY);
        overdue.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let next_clock = self.clocks.peek().map(|Reverse((deadline, _))| *deadline);
            let first = tokio::select! {
                event = events.recv() => Some(event.unwrap_or(Event::Shutdown)),
                () = sleep_until(next_clock) => None,
                _ = heartbeat.tick(), if shared => {
                    if let Err(error) = self.store.heartbeat().await {
                        self.failure.get_or_insert(error);
                    }
                    None
                }
                _ = overdue.tick(), if shared => {
                    self.hold_overdue_games().await;
                    None
                }
            };
            let mut batch: Vec<Event> = first.into_iter().collect();
            while !batch.is_empty() && batch.len() < MAX_BATCH {
                match events.try_recv() {
                    Ok(event) => batch.push(event),
                    Err(_) => break,
                }
            }
            // What other processes stored goes first: its turns are announced at once (once
            // published), since nothing of this batch is delivered before the batch's commit
            // (and nothing in it can follow from them: their players have not seen them yet).
            let (remote, local): (Vec<Event>, Vec<Event>) = batch
                .into_iter()
                .partition(|event| matches!(event, Event::Remote(_)));
            for event in remote {
                self.handle(event).await;
            }
            self.play_remote_turns();
            for (game, id) in std::mem::take(&mut self.remote_chats) {
                if let Err(error) = self.remote_chat(&game, id).await {
                    self.failure.get_or_insert(error);
                }
            }
            // Published (all of it was committed by the other processes), then told.
            self.publish();
            self.expire_clocks();
            let mut stop = false;
            for event in local {
                stop = self.handle(event).await;
                if stop {
                    break;
                }
            }
            self.commit_and_deliver().await?;
            if self.failure.is_none() && (self.remote_everything || !self.remote.is_empty()) {
                let games = self.remote_games().await;
                if let Err(error) = self.catch_up(games).await {
                    self.failure.get_or_insert(error);
                }
            }
            self.list_older_games().await;
            // Those ended on time were announced; those held only to be ended go too.
            self.overdue.retain(|id| self.games.contains_key(id));
            self.release_unneeded();
            self.publish();
            if let Some(error) = self.failure.take() {
                if !shared {
                    return Err(error);
                }
                // A statement refused on a live connection was answered as such; a lost
                // connection is waited out.
                if error.is_connection_lost() && !self.recover(error).await {
                    return Ok(());
                }
                self.publish();
            }
            if stop {
                return Ok(());
            }
        }
    }

    /// Handles one event; `true` to stop.
    async fn handle(&mut self, event: Event) -> bool {
        match event {
            Event::Connected {
                conn,
                outbox,
                address,
            } => {
                let connection = Connection {
                    outbox,
                    address,
                    player: None,
                    welcomed: false,
                    chat_sent: Default::default(),
                };
                self.connections.insert(conn, connection);
            }
            Event::Frame {
                conn,
                frame,
                reference,
            } => {
                self.answering = reference.map(|reference| (conn, reference));
                match frame {
                    Ok(frame) => self.handle_frame(conn, frame).await,
                    Err(refused) => self.refuse(conn, refused),
                }
                self.answering = None;
            }
            Event::Disconnected { conn } => self.disconnect(conn).await,
            Event::Watched { game } => self.watched_from_store(&game),
            Event::Resident { conn, name } => {
                if let Err(refused) = self.sign_in_resident(conn, &name).await {
                    self.refuse(conn, refused);
                }
            }
            Event::Remote(Remote::Changes { from, changes }) => {
                for change in changes {
                    match change {
                        turn @ Change::Turn { .. } => self.remote_turns.push(turn),
                        Change::Game(game) => {
                            // A pairing takes a seek.
                            self.seeks_changed = true;
                            // Read whole: a turn may have been taken back.
                            if let Some(live) = self.games.get_mut(&game) {
                                live.dirty = true;
                            }
                            self.remote.insert(game);
                        }
                        Change::Chat { game, id } => self.remote_chats.push((game, id)),
                        Change::Presence { player, here } => self.told_presence(&from, &player, here),
                        Change::WhoIsHere => self.announce_everyone_here(),
                        Change::Seeks => self.seeks_changed = true,
                    }
                }
            }
            Event::Remote(Remote::Everything) => {
                self.remote_everything = true;
                self.seeks_changed = true;
            }
            Event::Remote(Remote::Listening) => {
                self.remote_everything = true;
                self.seeks_changed = true;
                // What the others said while this process was not listening is lost: they are
                // asked again, and told again who is here (they may have taken it for dead).
                self.elsewhere.told_before_reconnecting();
                self.batch.to_announce.push(Change::WhoIsHere);
                self.announce_everyone_here();
            }
            Event::Remote(Remote::Alive(alive)) => {
                // The seeks listed are those of processes alive.
                self.seeks_changed |= !self.elsewhere.is_alive_now(&alive);
                for (key, connected) in self.elsewhere.report_alive(&alive) {
                    if !self.players.contains_key(&key) {
                        self.tell_presence(&key, connected);
                    }
                }
            }
            Event::Shutdown => return true,
        }
        false
    }

    async fn handle_frame(&mut self, conn: ConnId, frame: ClientFrame) {
        let Some(connection) = self.connections.get(&conn) else {
            return;
        };
        let player = connection.player.clone();
        let result = match (frame, player) {
            (ClientFrame::Ping { t }, _) => {
                self.pong(conn, &t);
                Ok(())
            }
            // Answered by the connection itself (see `crate::answers` and `crate::lobby_feed`):
            // never sent here.
            (
                ClientFrame::Watch { .. }
                | ClientFrame::Unwatch { .. }
                | ClientFrame::WatchLobby
                | ClientFrame::UnwatchLobby,
                _,
            ) => Ok(()),
            (ClientFrame::Hello { name, token, bot }, None) => self.hello(conn, &name, token, bot).await,
            (ClientFrame::Hello { .. }, Some(player)) => Err(Refused::bad_request(format!(
                "already signed in as {}",
                self.players[&player].record.name
            ))),
            (_, None) => Err(Refused::hello_first()),
            (
                ClientFrame::Seek {
                    sizes,
                    color,
                    opponent,
                    terms,
                },
                Some(player),
            ) => self.seek(&player, sizes, color, opponent, terms).await,
            (ClientFrame::Cancel, Some(player)) => {
                let name = self.players[&player].record.name.clone();
                let cancelled = self.store.cancel_seek(&name).await;
                self.seeks_changed = true;
                match cancelled {
                    Ok(()) => {
                        self.tell_player(&player, &ServerMessage::Cancelled);
                        Ok(())
                    }
                    Err(error) => Err(self.lost(error)),
                }
            }
            (ClientFrame::Move { game, ply, point }, Some(player)) => {
                self.turn(conn, &player, &game, ply, Some(&point)).await
            }
            (ClientFrame::Pass { game, ply }, Some(player)) => {
                self.turn(conn, &player, &game, ply, None).await
            }
            (ClientFrame::Resign { game }, Some(player)) => self.resign(conn, &player, &game).await,
            (ClientFrame::Undo { game, ply }, Some(player)) => self.ask_undo(conn, &player, &game, ply).await,
            (ClientFrame::Chat { game, text }, Some(player)) => self.chat(conn, &player, &game, &text).await,
            (ClientFrame::Mark { game, point, dead }, Some(player)) => {
                self.mark(conn, &player, &game, &point, dead).await
            }
            (ClientFrame::Accept { game, dead }, Some(player)) => {
                self.accept_marks(conn, &player, &game, &dead).await
            }
            (ClientFrame::Resume { game }, Some(player)) => self.resume(conn, &player, &game).await,
            (ClientFrame::UndoAnswer { game, ply, accept }, Some(player)) => {
                self.answer_undo(conn, &player, &game, ply, accept).await
            }
            // Answered by the connection itself once it knows its player signed in; one sent
            // right after `hello`, before the `welcome` came, comes here.
            (ClientFrame::Sync { game }, Some(_)) => self.sync(conn, &game).await,
        };
        if let Err(refused) = result {
            self.refuse(conn, refused);
        }
    }

    /// Notes a store error (the hub recovers or stops after this batch) and what the request
    /// that met it is told.
    fn lost(&mut self, error: StoreError) -> Refused {
        let refused = Refused::unavailable(&error);
        self.failure.get_or_insert(error);
        refused
    }

    fn move_time_ms(&self) -> u64 {
        self.move_time.as_millis().try_into().unwrap_or(u64::MAX)
    }
}

mod batch;
mod chat;
mod clocks;
mod commit;
mod connections;
mod from_store;
mod held;
mod holding;
mod pairing;
mod presence;
mod publish;
mod queries;
mod remote;
pub mod scoring;
mod sign_in;
#[cfg(test)]
mod tests;
mod turns;
mod undo;
mod watching;
