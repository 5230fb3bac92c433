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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::auth;
use super::game::{EndReason, GameResult, Refusal, ServerGame, Turn};
use super::limits::BucketsByAddress;
use super::lobby::Seek;
use super::protocol::{
    sizes_value, ClientFrame, ErrorCode, GameState, GameSummary, Opponent, Refused, SeekColor, SeekView,
    ServerMessage,
};
use super::store::{Change, GameNow, Outcome, PlayerRecord, Records, Remote, Store, StoreError, Write};
use gokata_engine::Color;
use presence::Elsewhere;

pub type ConnId = u64;

/// Events handled in one batch at most, so one commit never waits on an endless stream.
const MAX_BATCH: usize = 512;
/// How often a process on a shared database says it is alive (its listener says so too, on a
/// connection of its own); an idle hub also notices a lost database this way.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// The most games `/api/games` lists.
const LISTED_GAMES: usize = 200;
/// The longest wait between two attempts to reach a lost database.
const MAX_RECONNECT_WAIT: Duration = Duration::from_secs(2);

/// What the hub sends a connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Outgoing {
    Text(Arc<str>),
    /// The connection's player is signed in (its `welcome` went just before).
    SignedIn,
    /// A close frame with this code and reason, after which the connection ends.
    Close(u16, &'static str),
}

/// A question from the HTTP API.
#[derive(Debug)]
pub enum Query {
    Player(String),
    Game(String),
    /// The game as an SGF record.
    GameSgf(String),
    /// The games being played, newest first.
    LiveGames,
    /// The seeks waiting, oldest first.
    Seeks,
}

/// The answer to a [`Query`]: a body (JSON, or SGF for `GameSgf`).
#[derive(Debug, PartialEq)]
pub enum Answer {
    Found(String),
    Missing,
    /// The database could not be read.
    Unavailable,
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
    Query {
        query: Query,
        reply: oneshot::Sender<Answer>,
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
}

struct Player {
    record: PlayerRecord,
    connections: Vec<ConnId>,
}

struct LiveGame {
    game: ServerGame,
    /// When the player to move runs out of time; `None` while the last turn awaits its commit.
    deadline: Option<Instant>,
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
    ToPlayer(String, Arc<str>),
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
    /// hoped to store.
    State {
        conn: ConnId,
        game: String,
    },
    Reply(oneshot::Sender<Answer>, Answer),
    /// The list of games being played, made at delivery time: only committed games.
    ReplyLiveGames(oneshot::Sender<Answer>),
    /// An API answer about a live game, made at delivery time likewise.
    ReplyLive {
        reply: oneshot::Sender<Answer>,
        game: String,
        view: LiveView,
    },
}

#[derive(Clone, Copy, Debug)]
enum LiveView {
    State,
    Sgf,
}

/// A delivery, and the write (by its index in the batch) it announces, if any: it is dropped if
/// that write is rejected or the commit fails.
struct Pending {
    after: Option<usize>,
    delivery: Delivery,
}

pub struct Hub {
    store: Store,
    move_time: Duration,
    connections: HashMap<ConnId, Connection>,
    /// Players connected here, by key: their records and connections.
    players: HashMap<String, Player>,
    /// Every game being played, wherever its players are connected.
    games: HashMap<String, LiveGame>,
    /// Games held since the start, for their order.
    games_held: u64,
    /// Entries at or before their games' deadlines; one that comes up early is queued again
    /// for its game's deadline.
    clocks: BinaryHeap<Reverse<(Instant, String)>>,
    // The batch under way.
    writes: Vec<Write>,
    /// The connection whose request made each write, told if the write is rejected or lost.
    origins: Vec<Option<ConnId>>,
    deliveries: Vec<Pending>,
    /// Games whose clock starts when the write of this index is committed.
    clocks_to_start: Vec<(String, usize)>,
    /// Players whose last connection here was closed for being too slow: their seeks are
    /// withdrawn after the batch.
    closed: Vec<String>,
    /// New names registered, by address.
    registrations: BucketsByAddress,
    /// Turns other processes stored, told whole, played after the batch.
    remote_turns: Vec<(String, usize, Option<String>)>,
    /// Games other processes changed otherwise, read after the batch.
    remote: HashSet<String>,
    remote_everything: bool,
    /// Games that ended in this batch, for states made at delivery time.
    ended: HashMap<String, ServerGame>,
    /// A store error met while handling the batch: on a shared store the hub recovers from it;
    /// on SQLite it stops.
    failure: Option<StoreError>,
    /// Whether the store answers (`/health` says so).
    healthy: Arc<AtomicBool>,
    /// Set when the server is stopping: ends a wait for a lost database.
    stopping: Option<watch::Receiver<bool>>,
    /// Who is connected to the other processes on a shared database.
    elsewhere: Elsewhere,
    /// What to tell the other processes that stores nothing: who connected here or left.
    to_announce: Vec<Change>,
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
        let ids = store.live_game_ids().await?;
        let known: Vec<(String, usize)> = ids.into_iter().map(|id| (id, 0)).collect();
        let live = store.games_now(&known).await?;
        let mut hub = Hub {
            store,
            move_time,
            connections: HashMap::new(),
            players: HashMap::new(),
            games: HashMap::new(),
            games_held: 0,
            clocks: BinaryHeap::new(),
            writes: Vec::new(),
            origins: Vec::new(),
            deliveries: Vec::new(),
            clocks_to_start: Vec::new(),
            closed: Vec::new(),
            registrations: BucketsByAddress::new(
                f64::from(registrations_per_hour),
                f64::from(registrations_per_hour) / 3600.0,
            ),
            remote_turns: Vec::new(),
            remote: HashSet::new(),
            remote_everything: false,
            ended: HashMap::new(),
            failure: None,
            healthy: Arc::new(AtomicBool::new(true)),
            stopping: None,
            elsewhere: Elsewhere::default(),
            to_announce: Vec::new(),
        };
        for now in live {
            let game = ServerGame::from_stored(&now.game).map_err(StoreError::Corrupt)?;
            let remaining = remaining(&now, &game);
            let id = game.id.clone();
            hub.hold(LiveGame::new(game));
            hub.arm_clock(&id, remaining);
        }
        Ok(hub)
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
            };
            let mut batch: Vec<Event> = first.into_iter().collect();
            while !batch.is_empty() && batch.len() < MAX_BATCH {
                match events.try_recv() {
                    Ok(event) => batch.push(event),
                    Err(_) => break,
                }
            }
            // What other processes stored goes first: its turns are announced at once, since
            // nothing of this batch is delivered before the batch's commit (and nothing in it
            // can follow from them: their players have not seen them yet).
            let (remote, local): (Vec<Event>, Vec<Event>) = batch
                .into_iter()
                .partition(|event| matches!(event, Event::Remote(_)));
            for event in remote {
                self.handle(event).await;
            }
            self.play_remote_turns();
            self.expire_clocks();
            let mut stop = false;
            for event in local {
                stop = self.handle(event).await;
                if stop {
                    break;
                }
            }
            self.commit_and_deliver().await?;
            if !self.to_announce.is_empty() {
                let changes = std::mem::take(&mut self.to_announce);
                if let Err(error) = self.store.announce(&changes).await {
                    // Told again once the database is back (each entry may be told twice).
                    self.to_announce.splice(0..0, changes);
                    self.failure.get_or_insert(error);
                }
            }
            for name in std::mem::take(&mut self.closed) {
                if let Err(error) = self.store.withdraw_seek(&name).await {
                    self.failure.get_or_insert(error);
                }
            }
            if self.failure.is_none() && (self.remote_everything || !self.remote.is_empty()) {
                let games = self.remote_games().await;
                if let Err(error) = self.catch_up(games).await {
                    self.failure.get_or_insert(error);
                }
            }
            if let Some(error) = self.failure.take() {
                if !shared {
                    return Err(error);
                }
                // A statement refused on a live connection was answered as such; a lost
                // connection is waited out.
                if error.is_connection_lost() && !self.recover(error).await {
                    return Ok(());
                }
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
                };
                self.connections.insert(conn, connection);
            }
            Event::Frame { conn, frame } => match frame {
                Ok(frame) => self.handle_frame(conn, frame).await,
                Err(refused) => self.refuse(conn, refused),
            },
            Event::Disconnected { conn } => self.disconnect(conn).await,
            Event::Resident { conn, name } => {
                if let Err(refused) = self.sign_in_resident(conn, &name).await {
                    self.refuse(conn, refused);
                }
            }
            Event::Query { query, reply } => {
                let delivery = self.answer(query, reply).await;
                self.deliver_later(None, delivery);
            }
            Event::Remote(Remote::Changes { from, changes }) => {
                for change in changes {
                    match change {
                        Change::Turn { game, ply, point } => self.remote_turns.push((game, ply, point)),
                        Change::Game(game) => {
                            self.remote.insert(game);
                        }
                        Change::Presence { player, here } => self.told_presence(&from, &player, here),
                        Change::WhoIsHere => self.announce_everyone_here(),
                    }
                }
            }
            Event::Remote(Remote::Everything) => self.remote_everything = true,
            Event::Remote(Remote::Listening) => {
                self.remote_everything = true;
                // What the others said while this process was not listening is lost: they are
                // asked again, and told again who is here (they may have taken it for dead).
                self.elsewhere.told_before_reconnecting();
                self.to_announce.push(Change::WhoIsHere);
                self.announce_everyone_here();
            }
            Event::Remote(Remote::Alive(alive)) => {
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
            (ClientFrame::Hello { name, token, bot }, None) => self.hello(conn, &name, token, bot).await,
            (ClientFrame::Hello { .. }, Some(player)) => Err(Refused::bad_request(format!(
                "already signed in as {}",
                self.players[&player].record.name
            ))),
            (_, None) => Err(Refused::bad_request(
                "say hello first: {\"type\":\"hello\",\"name\":...}",
            )),
            (
                ClientFrame::Seek {
                    sizes,
                    color,
                    opponent,
                },
                Some(player),
            ) => self.seek(&player, sizes, color, opponent).await,
            (ClientFrame::Cancel, Some(player)) => {
                let name = self.players[&player].record.name.clone();
                match self.store.cancel_seek(&name).await {
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
            (ClientFrame::Sync { game }, Some(_)) => self.send_state(conn, &game).await,
        };
        if let Err(refused) = result {
            self.refuse(conn, refused);
        }
    }

    async fn hello(
        &mut self,
        conn: ConnId,
        name: &str,
        token: Option<String>,
        bot: bool,
    ) -> Result<(), Refused> {
        auth::check_name(name).map_err(Refused::bad_request)?;
        let key = auth::name_key(name);
        let known = match self.players.get(&key) {
            Some(player) => Some(player.record.clone()),
            None => self.store.player(name).await.map_err(|error| self.lost(error))?,
        };
        let token = match (known, token) {
            (None, None) => {
                self.may_register(conn)?;
                let token = auth::new_token();
                let hash = auth::token_hash(&token);
                let added = self
                    .store
                    .add_player(name, &hash, bot)
                    .await
                    .map_err(|error| self.lost(error))?;
                if !added {
                    return Err(name_taken(name));
                }
                let record = PlayerRecord {
                    name: name.to_string(),
                    token_hash: hash,
                    wins: 0,
                    losses: 0,
                    bot,
                };
                self.players.insert(
                    key.clone(),
                    Player {
                        record,
                        connections: Vec::new(),
                    },
                );
                token
            }
            (None, Some(_)) => {
                return Err(Refused::new(
                    ErrorCode::BadToken,
                    format!("no player is named {name:?}: say hello without a token to register the name"),
                ))
            }
            (Some(_), None) => return Err(name_taken(name)),
            (Some(mut record), Some(token)) => {
                if !auth::token_matches(&token, &record.token_hash) {
                    return Err(Refused::new(
                        ErrorCode::BadToken,
                        format!("wrong token for {:?}", record.name),
                    ));
                }
                if bot && !record.bot {
                    self.store
                        .mark_bot(&record.name)
                        .await
                        .map_err(|error| self.lost(error))?;
                    record.bot = true;
                }
                let player = self.players.entry(key.clone()).or_insert(Player {
                    record: record.clone(),
                    connections: Vec::new(),
                });
                player.record.bot = record.bot;
                token
            }
        };
        self.signed_in(conn, key, name, token);
        Ok(())
    }

    /// The connection `conn` is the player `key`'s (held in `players`): welcomed after the batch.
    fn signed_in(&mut self, conn: ConnId, key: String, name: &str, token: String) {
        let connections = &mut self.players.get_mut(&key).expect("a player held").connections;
        connections.push(conn);
        if connections.len() == 1 {
            self.arrived_here(&key, name);
        }
        if let Some(connection) = self.connections.get_mut(&conn) {
            connection.player = Some(key);
        }
        self.deliver_later(None, Delivery::Welcome { conn, token });
    }

    /// Registers the server's own computer player as a bot, or checks that the name is a
    /// bot's already: a person's account is never taken over. Called once, at start.
    pub async fn claim_resident(&mut self, name: &str) -> Result<Result<(), String>, StoreError> {
        if let Err(message) = auth::check_name(name) {
            return Ok(Err(format!("the bot's name: {message}")));
        }
        match self.store.player(name).await? {
            Some(record) if !record.bot => Ok(Err(format!(
                "{:?} is the name of a person's account: give the bot another name",
                record.name
            ))),
            Some(_) => Ok(Ok(())),
            None => {
                // Nobody needs its token: it signs in from inside the server.
                let hash = auth::token_hash(&auth::new_token());
                self.store.add_player(name, &hash, true).await?;
                Ok(Ok(()))
            }
        }
    }

    async fn sign_in_resident(&mut self, conn: ConnId, name: &str) -> Result<(), Refused> {
        let key = auth::name_key(name);
        if !self.players.contains_key(&key) {
            let record = self.store.player(name).await.map_err(|error| self.lost(error))?;
            let Some(record) = record.filter(|record| record.bot) else {
                return Err(Refused::bad_request(format!("{name:?} is not the server's bot")));
            };
            self.players.insert(
                key.clone(),
                Player {
                    record,
                    connections: Vec::new(),
                },
            );
        }
        self.signed_in(conn, key, name, String::new());
        Ok(())
    }

    /// Spends one of the connection's address's new names, or refuses.
    fn may_register(&mut self, conn: ConnId) -> Result<(), Refused> {
        let Some(address) = self.connections.get(&conn).map(|c| c.address) else {
            return Ok(());
        };
        self.registrations.spend(address).map_err(|wait| {
            Refused::new(
                ErrorCode::RateLimited,
                format!(
                    "too many new names from {address}: try again in {} s, or sign in with a token",
                    wait.as_secs() + 1
                ),
            )
        })
    }

    async fn seek(
        &mut self,
        player: &str,
        sizes: Vec<usize>,
        color: SeekColor,
        opponent: Opponent,
    ) -> Result<(), Refused> {
        let record = &self.players[player].record;
        let seek = Seek {
            name: record.name.clone(),
            sizes: sizes.clone(),
            color,
            opponent,
            bot: record.bot,
        };
        let move_time_ms = self.move_time_ms();
        let paired = self
            .store
            .pair(seek, |pairing| {
                ServerGame::new(
                    auth::new_game_id(),
                    pairing.size,
                    pairing.black,
                    pairing.white,
                    move_time_ms,
                )
                .with_bots(pairing.bots)
                .stored()
            })
            .await
            .map_err(|error| self.lost(error))?;
        let Some(paired) = paired else {
            self.tell_player(
                player,
                &ServerMessage::Seeking {
                    size: sizes_value(&sizes),
                    color: color.name(),
                    opponent: opponent.name(),
                },
            );
            return Ok(());
        };
        let game = ServerGame::from_stored(&paired.game).expect("a new game of a server size");
        let start = ServerMessage::Start {
            game: GameState::of(&game, game.move_time_ms).with_connected(|name| self.is_connected_name(name)),
        }
        .to_json();
        let id = game.id.clone();
        let players = player_keys(&game);
        self.hold(LiveGame::new(game));
        if paired.stored {
            self.tell_both(players, start, None);
            self.arm_clock(&id, Duration::from_millis(move_time_ms));
        } else {
            let write = self.write(Write::NewGame(paired.game), None);
            self.tell_both(players, start, Some(write));
            self.clocks_to_start.push((id, write));
        }
        Ok(())
    }

    /// A move (`point`) or a pass (`None`) by `player` in `game_id` as turn `ply`.
    async fn turn(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        ply: usize,
        point: Option<&str>,
    ) -> Result<(), Refused> {
        let color = self.player_color(player, game_id).await?;
        let Some(live) = self.games.get_mut(game_id).filter(|live| !live.game.is_over()) else {
            return self.send_state(conn, game_id).await;
        };
        match live.game.play(color, ply, point) {
            Ok(turn) => {
                self.record_turn(conn, game_id, turn);
                Ok(())
            }
            Err(Refusal::Stale) => self.send_state(conn, game_id).await,
            Err(Refusal::NotYourTurn) => Err(Refused::new(
                ErrorCode::NotYourTurn,
                format!("it is {}'s turn, not {}'s", live.game.to_move(), color),
            )
            .in_game(game_id)),
            Err(Refusal::Malformed(message)) => Err(Refused::bad_request(message).in_game(game_id)),
            Err(Refusal::Illegal { reason, message }) => {
                let mut refused = Refused::new(ErrorCode::IllegalMove, message).in_game(game_id);
                refused.reason = Some(reason);
                Err(refused)
            }
        }
    }

    fn record_turn(&mut self, conn: ConnId, game_id: &str, turn: Turn) {
        let write = self.write(
            Write::Turn {
                game: game_id.to_string(),
                ply: turn.ply,
                point: turn.point.clone(),
            },
            Some(conn),
        );
        let live = &self.games[game_id];
        let played = played_message(&live.game, &turn);
        let players = player_keys(&live.game);
        self.tell_both(players, played, Some(write));
        match turn.result {
            Some(result) => self.finish(game_id, result, Some(conn)),
            None => self.clocks_to_start.push((game_id.to_string(), write)),
        }
        if let Some(live) = self.games.get_mut(game_id) {
            live.deadline = None;
        }
    }

    async fn resign(&mut self, conn: ConnId, player: &str, game_id: &str) -> Result<(), Refused> {
        let color = self.player_color(player, game_id).await?;
        match self
            .games
            .get_mut(game_id)
            .and_then(|live| live.game.end(color, EndReason::Resign))
        {
            Some(result) => {
                self.finish(game_id, result, Some(conn));
                Ok(())
            }
            None => self.send_state(conn, game_id).await,
        }
    }

    /// Stores the result and announces `over` once the records are committed.
    fn finish(&mut self, game_id: &str, result: GameResult, origin: Option<ConnId>) {
        let plies = self.games.get(game_id).map_or(0, |live| live.game.moves().len());
        let write = self.write(
            Write::Finish {
                game: game_id.to_string(),
                result,
                plies,
            },
            origin,
        );
        self.deliver_later(
            Some(write),
            Delivery::Over {
                game: game_id.to_string(),
                result,
            },
        );
    }

    /// Ends by timeout every game whose player to move has run out of time.
    fn expire_clocks(&mut self) {
        let now = Instant::now();
        while let Some(Reverse((at, _))) = self.clocks.peek() {
            if *at > now {
                break;
            }
            let Reverse((at, game_id)) = self.clocks.pop().expect("peeked");
            let Some(live) = self.games.get_mut(&game_id) else {
                continue;
            };
            if live.queued == Some(at) {
                live.queued = None;
            }
            match live.deadline {
                // The last turn awaits its commit, which starts the clock again.
                None => continue,
                Some(deadline) if deadline > now => {
                    if live.queued.is_none() {
                        live.queued = Some(deadline);
                        self.clocks.push(Reverse((deadline, game_id)));
                    }
                    continue;
                }
                Some(_) => {}
            }
            live.deadline = None;
            let loser = live.game.to_move();
            if let Some(result) = live.game.end(loser, EndReason::Timeout) {
                self.finish(&game_id, result, None);
            }
        }
    }

    /// Commits the batch's writes, then delivers what it says, in the order handled. A game
    /// whose write was rejected, or whose result the store counted after a turn this process
    /// had not seen, is read again first (announcing what it had missed), so that nothing
    /// delivered shows what was not stored; the sender of a rejected request gets the state.
    async fn commit_and_deliver(&mut self) -> Result<(), StoreError> {
        let writes = std::mem::take(&mut self.writes);
        let origins = std::mem::take(&mut self.origins);
        let outcomes = if writes.is_empty() {
            Vec::new()
        } else {
            match self.store.commit(&writes).await {
                Ok(outcomes) => outcomes,
                Err(error) if self.store.is_shared() => {
                    self.lost_batch(&writes, &origins, error).await;
                    return Ok(());
                }
                Err(error) => return Err(error),
            }
        };
        let mut reread: HashSet<String> = HashSet::new();
        // A last pass and its result are two writes of one request: one state answers both.
        let mut stale: Vec<(ConnId, String)> = Vec::new();
        for (index, (write, outcome)) in writes.iter().zip(&outcomes).enumerate() {
            match (write, outcome) {
                (_, Outcome::Rejected) => {
                    reread.insert(write.game().to_string());
                    if let Some(conn) = origins[index] {
                        let request = (conn, write.game().to_string());
                        if !stale.contains(&request) {
                            stale.push(request);
                        }
                    }
                }
                (Write::Turn { game, ply, .. }, _) => {
                    if let Some(live) = self.games.get_mut(game) {
                        live.announced = live.announced.max(ply + 1);
                    }
                }
                (Write::Finish { game, .. }, Outcome::Finished { plies, .. }) => {
                    let known = self.games.get(game).map(|live| live.game.moves().len());
                    if known.is_some_and(|known| known != *plies) {
                        reread.insert(game.clone());
                    }
                }
                _ => {}
            }
        }
        for game in &reread {
            if let Some(live) = self.games.get_mut(game) {
                live.dirty = true;
            }
        }
        if !reread.is_empty() {
            if let Err(error) = self.catch_up(reread.iter().cloned().collect()).await {
                self.failure.get_or_insert(error);
            }
        }
        for (game_id, write) in std::mem::take(&mut self.clocks_to_start) {
            if outcomes[write] != Outcome::Rejected && !reread.contains(&game_id) {
                let move_time = self.games.get(&game_id).map(|live| live.game.move_time_ms);
                if let Some(move_time) = move_time {
                    self.arm_clock(&game_id, Duration::from_millis(move_time));
                }
            }
        }
        for pending in std::mem::take(&mut self.deliveries) {
            let records = match pending
                .after
                .map(|write| (&outcomes[write], writes[write].game()))
            {
                Some((Outcome::Rejected, _)) => continue,
                // The game was read again, and its `over` announced with the turns it missed.
                Some((Outcome::Finished { .. }, game)) if reread.contains(game) => continue,
                Some((Outcome::Finished { records, .. }, _)) => Some(records),
                _ => None,
            };
            self.deliver(pending.delivery, records);
        }
        // As for a stale turn: the sender gets the game as it is.
        for (conn, game) in stale {
            let _ = self.send_state(conn, &game).await;
        }
        self.flush_deliveries();
        self.ended.clear();
        Ok(())
    }

    /// The commit failed on a shared store: whether it was stored is unknown. Once the store
    /// answers again, the games are read again (which announces whatever was stored after
    /// all), then what does not depend on the batch is delivered, and each request that did not
    /// get through is refused, to be sent again.
    async fn lost_batch(&mut self, writes: &[Write], origins: &[Option<ConnId>], error: StoreError) {
        for write in writes {
            if let Some(live) = self.games.get_mut(write.game()) {
                live.dirty = true;
            }
        }
        self.clocks_to_start.clear();
        let independent: Vec<Pending> = std::mem::take(&mut self.deliveries)
            .into_iter()
            .filter(|pending| pending.after.is_none())
            .collect();
        if !self.recover(error).await {
            return;
        }
        for pending in independent {
            self.deliver(pending.delivery, None);
        }
        for (write, origin) in writes.iter().zip(origins) {
            let Some(conn) = *origin else {
                continue;
            };
            let live = self.games.get(write.game());
            let stored = match write {
                Write::Turn { ply, .. } => live.is_none_or(|live| live.game.moves().len() > *ply),
                Write::Finish { .. } | Write::NewGame(_) => live.is_none(),
            };
            if !stored {
                let refused = Refused::new(
                    ErrorCode::Unavailable,
                    "the server lost its database while storing this; it was not done: send it again",
                )
                .in_game(write.game());
                self.refuse(conn, refused);
            }
        }
        self.flush_deliveries();
        self.ended.clear();
    }

    /// Waits for a lost database to come back (if the connection was lost), then reads every
    /// game again. `false` if the server began stopping meanwhile.
    async fn recover(&mut self, error: StoreError) -> bool {
        self.healthy.store(false, Ordering::Relaxed);
        let mut lost = error.is_connection_lost();
        if lost {
            eprintln!("gokata serve: lost the database ({error}); reconnecting");
        } else {
            eprintln!("gokata serve: the database refused a batch ({error}); reading every game again");
        }
        let mut wait = Duration::from_millis(50);
        let mut must_reconnect = lost;
        loop {
            if must_reconnect {
                if !self.pause(wait).await {
                    return false;
                }
                wait = (wait * 2).min(MAX_RECONNECT_WAIT);
                if self.store.reconnect().await.is_err() {
                    continue;
                }
            }
            self.remote_everything = true;
            let games = self.remote_games().await;
            let read = match self.failure.take() {
                Some(error) => Err(error),
                None => self.catch_up(games).await,
            };
            match read {
                Ok(()) => break,
                Err(error) if error.is_connection_lost() => {
                    lost = true;
                    must_reconnect = true;
                }
                Err(error) => {
                    // Not a lost connection: trying again would fail the same way.
                    eprintln!("gokata serve: could not read the games again ({error})");
                    break;
                }
            }
        }
        self.remote_everything = false;
        self.failure = None;
        self.healthy.store(true, Ordering::Relaxed);
        if lost {
            eprintln!("gokata serve: the database is back");
            // The others may have taken this process for dead meanwhile.
            self.announce_everyone_here();
        }
        true
    }

    /// Sleeps `wait`; `false` if the server began stopping meanwhile.
    async fn pause(&mut self, wait: Duration) -> bool {
        let Some(stopping) = self.stopping.as_mut() else {
            tokio::time::sleep(wait).await;
            return true;
        };
        let stopped = tokio::select! {
            () = tokio::time::sleep(wait) => false,
            _ = stopping.wait_for(|stopping| *stopping) => true,
        };
        !stopped && !*stopping.borrow()
    }

    /// Plays the turns other processes told of, in order, on the games as this process holds
    /// them, and announces each to its players here. A turn that does not follow what this
    /// process holds (a notification was missed, or the game is new here) has its game read
    /// instead.
    fn play_remote_turns(&mut self) {
        for (game_id, ply, point) in std::mem::take(&mut self.remote_turns) {
            let Some(live) = self.games.get_mut(&game_id) else {
                self.remote.insert(game_id);
                continue;
            };
            let known = live.game.moves().len();
            if known > ply {
                continue; // told twice: a catch-up read it already
            }
            if live.dirty || live.game.is_over() || known < ply {
                self.remote.insert(game_id);
                continue;
            }
            let color = live.game.to_move();
            let Ok(turn) = live.game.play(color, ply, point.as_deref()) else {
                live.dirty = true;
                self.remote.insert(game_id);
                continue;
            };
            live.announced = live.game.moves().len();
            let move_time = Duration::from_millis(live.game.move_time_ms);
            let text: Arc<str> = played_message(&live.game, &turn).into();
            let players = player_keys(&live.game);
            for player in players {
                self.send_to_player(&player, &text);
            }
            // The result of a last pass comes as a change of its own, read with its records.
            if turn.result.is_none() {
                self.arm_clock(&game_id, move_time);
            }
        }
    }

    /// The games other processes changed, taking them from the batch's list. `Everything`
    /// stays asked for if the live games cannot be listed.
    async fn remote_games(&mut self) -> Vec<String> {
        let mut games: HashSet<String> = std::mem::take(&mut self.remote);
        if self.remote_everything {
            match self.store.live_game_ids().await {
                Ok(live) => {
                    self.remote_everything = false;
                    games.extend(live);
                    games.extend(self.games.keys().cloned());
                }
                Err(error) => {
                    self.failure.get_or_insert(error);
                }
            }
        }
        games.into_iter().collect()
    }

    /// Brings these games up to the store: turns and results another process stored are
    /// announced to this process's players, in order and once, and a game new to this
    /// process is started for its players here.
    async fn catch_up(&mut self, games: Vec<String>) -> Result<(), StoreError> {
        let known: Vec<(String, usize)> = games
            .into_iter()
            .map(|id| {
                let from = match self.games.get(&id) {
                    Some(live) if !live.dirty => live.game.moves().len(),
                    _ => 0,
                };
                (id, from)
            })
            .collect();
        if known.is_empty() {
            return Ok(());
        }
        for now in self.store.games_now(&known).await? {
            self.apply(now).await?;
        }
        Ok(())
    }

    async fn apply(&mut self, now: GameNow) -> Result<(), StoreError> {
        let corrupt = |problem: String| StoreError::Corrupt(problem);
        let id = now.game.id.clone();
        if !self.games.contains_key(&id) {
            if now.game.result.is_some() {
                return Ok(()); // a game this process never had: nobody here waits for it
            }
            // Started here as it began, and its turns announced one by one below.
            self.begin_remote_game(&now)?;
        }
        let live = self.games.remove(&id).expect("checked above");
        let queued = live.queued;
        let (mut game, first_ply, new_turns) = if live.dirty {
            // Replayed from the start; what this process announced already is not again.
            let announced = live.announced.min(now.game.moves.len());
            let mut known = now.game.clone();
            known.moves.truncate(announced);
            known.result = None;
            let game = ServerGame::from_stored(&known).map_err(corrupt)?;
            (game, announced, &now.game.moves[announced..])
        } else {
            (live.game, now.first_ply, &now.game.moves[..])
        };
        for (offset, point) in new_turns.iter().enumerate() {
            let ply = first_ply + offset;
            let color = game.to_move();
            let turn = game
                .play(color, ply, point.as_deref())
                .map_err(|refusal| corrupt(format!("game {id} turn {ply}: {refusal:?}")))?;
            let text: Arc<str> = played_message(&game, &turn).into();
            for player in player_keys(&game) {
                self.send_to_player(&player, &text);
            }
        }
        if let (Some(result), Some(records)) = (now.game.result, &now.records) {
            game.set_result(result);
            self.announce_over(&game, result, records);
            return Ok(());
        }
        let remaining = remaining(&now, &game);
        let mut rebuilt = LiveGame::new(game);
        // Its entry in `clocks` stays: one entry per game, however often it changes.
        rebuilt.queued = queued;
        self.hold(rebuilt);
        self.arm_clock(&id, remaining);
        Ok(())
    }

    /// A game another process paired: `start` to its players here, as the game began (any
    /// turns it has already are announced after it, each with its `played`).
    fn begin_remote_game(&mut self, now: &GameNow) -> Result<(), StoreError> {
        let mut first = now.game.clone();
        first.moves.clear();
        first.result = None;
        let game = ServerGame::from_stored(&first).map_err(StoreError::Corrupt)?;
        let remaining = remaining(now, &game);
        let start: Arc<str> = ServerMessage::Start {
            game: GameState::of(&game, remaining.as_millis() as u64)
                .with_connected(|name| self.is_connected_name(name)),
        }
        .to_json()
        .into();
        for player in player_keys(&game) {
            self.send_to_player(&player, &start);
        }
        let id = game.id.clone();
        self.hold(LiveGame::new(game));
        self.arm_clock(&id, remaining);
        Ok(())
    }

    /// Holds a live game, new or rebuilt (which keeps its place in the order of games).
    fn hold(&mut self, mut live: LiveGame) {
        live.order = match self.games.get(&live.game.id) {
            Some(held) => held.order,
            None => {
                self.games_held += 1;
                self.games_held
            }
        };
        self.games.insert(live.game.id.clone(), live);
    }

    /// Starts the game's clock: the player to move has `remaining` from now.
    fn arm_clock(&mut self, game_id: &str, remaining: Duration) {
        let Some(live) = self.games.get_mut(game_id).filter(|live| !live.game.is_over()) else {
            return;
        };
        let deadline = Instant::now() + remaining;
        live.deadline = Some(deadline);
        if live.queued.is_none_or(|queued| queued > deadline) {
            live.queued = Some(deadline);
            self.clocks.push(Reverse((deadline, game_id.to_string())));
        }
    }

    fn deliver(&mut self, delivery: Delivery, records: Option<&Records>) {
        match delivery {
            Delivery::ToConnection(conn, text) => self.send(conn, Outgoing::Text(text)),
            Delivery::ToPlayer(player, text) => self.send_to_player(&player, &text),
            Delivery::Over { game, result } => {
                // Always with the records of its write's commit.
                let Some(records) = records else {
                    return;
                };
                if let Some(live) = self.games.remove(&game) {
                    self.announce_over(&live.game, result, records);
                }
            }
            Delivery::Welcome { conn, token } => self.deliver_welcome(conn, &token),
            Delivery::State { conn, game } => {
                if let Some(state) = self.live_view(&game, LiveView::State) {
                    let text = format!(r#"{{"type":"state","game":{state}}}"#);
                    self.send(conn, Outgoing::Text(text.into()));
                }
            }
            Delivery::Reply(reply, answer) => {
                let _ = reply.send(answer);
            }
            Delivery::ReplyLiveGames(reply) => {
                let _ = reply.send(Answer::Found(self.live_games_listed()));
            }
            Delivery::ReplyLive { reply, game, view } => {
                let answer = match self.live_view(&game, view) {
                    Some(body) => Answer::Found(body),
                    None => Answer::Missing,
                };
                let _ = reply.send(answer);
            }
        }
    }

    /// The games being played, newest first: at most [`LISTED_GAMES`], and how many there are.
    fn live_games_listed(&self) -> String {
        let mut playing: Vec<&LiveGame> = self.games.values().filter(|live| !live.game.is_over()).collect();
        playing.sort_by_key(|live| Reverse(live.order));
        let listed: Vec<GameSummary> = playing
            .iter()
            .take(LISTED_GAMES)
            .map(|live| GameSummary::of(&live.game))
            .collect();
        serde_json::json!({"games": listed, "total": playing.len()}).to_string()
    }

    /// A live game (or one that ended in this batch) as STATE JSON or an SGF record, as it is
    /// now.
    fn live_view(&self, game_id: &str, view: LiveView) -> Option<String> {
        let (game, remaining) = match self.games.get(game_id) {
            Some(live) => (&live.game, self.remaining_ms(live)),
            None => (self.ended.get(game_id)?, 0),
        };
        Some(match view {
            LiveView::State => {
                let state =
                    GameState::of(game, remaining).with_connected(|name| self.is_connected_name(name));
                serde_json::to_string(&state).expect("a state always serialises")
            }
            LiveView::Sgf => game.sgf(),
        })
    }

    /// Delivers what was queued outside a batch's commit (replies while catching up).
    fn flush_deliveries(&mut self) {
        for pending in std::mem::take(&mut self.deliveries) {
            self.deliver(pending.delivery, None);
        }
    }

    /// `over` to both players, and their records as the store counted them. The game is no
    /// longer live here.
    fn announce_over(&mut self, game: &ServerGame, result: GameResult, records: &Records) {
        self.games.remove(&game.id);
        self.ended.insert(game.id.clone(), game.clone());
        for standing in [&records.black, &records.white] {
            if let Some(player) = self.players.get_mut(&auth::name_key(&standing.name)) {
                player.record.wins = standing.wins;
                player.record.losses = standing.losses;
            }
        }
        let text: Arc<str> = ServerMessage::over(&game.id, result, records).into();
        for player in player_keys(game) {
            self.send_to_player(&player, &text);
        }
    }

    fn deliver_welcome(&mut self, conn: ConnId, token: &str) {
        let Some(key) = self.connections.get(&conn).and_then(|c| c.player.clone()) else {
            return;
        };
        let Some(record) = self.players.get(&key).map(|player| &player.record) else {
            return;
        };
        let mut games: Vec<&LiveGame> = self
            .games
            .values()
            .filter(|live| !live.game.is_over() && live.game.color_of(&record.name).is_some())
            .collect();
        games.sort_by(|a, b| a.game.id.cmp(&b.game.id));
        let text = ServerMessage::Welcome {
            name: &record.name,
            token,
            wins: record.wins,
            losses: record.losses,
            bot: record.bot,
            games: games.iter().map(|live| self.state_of(live)).collect(),
        }
        .to_json();
        self.send(conn, Outgoing::Text(text.into()));
        self.send(conn, Outgoing::SignedIn);
        if let Some(connection) = self.connections.get_mut(&conn) {
            connection.welcomed = true;
        }
    }

    fn state_of<'a>(&self, live: &'a LiveGame) -> GameState<'a> {
        GameState::of(&live.game, self.remaining_ms(live)).with_connected(|name| self.is_connected_name(name))
    }

    fn remaining_ms(&self, live: &LiveGame) -> u64 {
        match live.deadline {
            Some(deadline) => deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
            None => live.game.move_time_ms,
        }
    }

    /// `view` of a game's STATE, live or stored; `Ok(None)` if there is no such game.
    async fn with_state<T>(
        &mut self,
        game_id: &str,
        view: impl FnOnce(GameState<'_>) -> T,
    ) -> Result<Option<T>, StoreError> {
        if let Some(live) = self.games.get(game_id) {
            return Ok(Some(view(self.state_of(live))));
        }
        Ok(self
            .stored_game(game_id)
            .await?
            .map(|game| view(GameState::of(&game, 0).with_connected(|name| self.is_connected_name(name)))))
    }

    /// A finished game (or one another process started) from the store.
    async fn stored_game(&mut self, game_id: &str) -> Result<Option<ServerGame>, StoreError> {
        // No id of another form was ever made: not worth asking the store about.
        if !auth::is_game_id(game_id) {
            return Ok(None);
        }
        let Some(stored) = self.store.game(game_id).await? else {
            return Ok(None);
        };
        ServerGame::from_stored(&stored)
            .map(Some)
            .map_err(StoreError::Corrupt)
    }

    /// The game's `state` to `conn`: a live game's made at delivery time, after the batch's
    /// commit; a finished game's from the store.
    async fn send_state(&mut self, conn: ConnId, game_id: &str) -> Result<(), Refused> {
        if self.games.contains_key(game_id) || self.ended.contains_key(game_id) {
            self.deliver_later(
                None,
                Delivery::State {
                    conn,
                    game: game_id.to_string(),
                },
            );
            return Ok(());
        }
        let state = self
            .with_state(game_id, |game| ServerMessage::State { game }.to_json())
            .await
            .map_err(|error| self.lost(error))?
            .ok_or_else(|| unknown_game(game_id))?;
        self.reply_to(conn, state);
        Ok(())
    }

    /// The colour `player` plays in `game_id`, live or finished.
    async fn player_color(&mut self, player: &str, game_id: &str) -> Result<Color, Refused> {
        let name = self.players[player].record.name.clone();
        let color = match self.games.get(game_id) {
            Some(live) => live.game.color_of(&name),
            None => self
                .stored_game(game_id)
                .await
                .map_err(|error| self.lost(error))?
                .ok_or_else(|| unknown_game(game_id))?
                .color_of(&name),
        };
        color.ok_or_else(|| {
            Refused::new(
                ErrorCode::NotYourGame,
                format!("{name} does not play in game {game_id}"),
            )
            .in_game(game_id)
        })
    }

    /// What a query is answered, once the batch is committed.
    async fn answer(&mut self, query: Query, reply: oneshot::Sender<Answer>) -> Delivery {
        let live_view = match &query {
            Query::GameSgf(id) if self.games.contains_key(id) => Some((id, LiveView::Sgf)),
            Query::Game(id) if self.games.contains_key(id) => Some((id, LiveView::State)),
            _ => None,
        };
        if let Some((game, view)) = live_view {
            return Delivery::ReplyLive {
                reply,
                game: game.clone(),
                view,
            };
        }
        let answer = match query {
            Query::LiveGames => return Delivery::ReplyLiveGames(reply),
            Query::Seeks => self.store.waiting_seeks().await.map(|seeks| {
                let listed: Vec<SeekView> = seeks.iter().map(SeekView::of).collect();
                Some(serde_json::json!({ "seeks": listed }).to_string())
            }),
            Query::Player(name) if auth::check_name(&name).is_err() => Ok(None),
            Query::Player(name) => match self.players.get(&auth::name_key(&name)) {
                Some(player) => Ok(Some(player.record.clone())),
                None => self.store.player(&name).await,
            }
            .map(|record| {
                record.map(|record| {
                    serde_json::json!({
                        "name": record.name, "wins": record.wins, "losses": record.losses, "bot": record.bot
                    })
                    .to_string()
                })
            }),
            Query::GameSgf(id) => match self.games.get(&id) {
                Some(live) => Ok(Some(live.game.sgf())),
                None => self
                    .stored_game(&id)
                    .await
                    .map(|game| game.map(|game| game.sgf())),
            },
            Query::Game(id) => {
                self.with_state(&id, |game| {
                    serde_json::to_string(&game).expect("a state always serialises")
                })
                .await
            }
        };
        let answer = match answer {
            Ok(Some(body)) => Answer::Found(body),
            Ok(None) => Answer::Missing,
            Err(error) => {
                self.failure.get_or_insert(error);
                Answer::Unavailable
            }
        };
        Delivery::Reply(reply, answer)
    }

    fn pong(&mut self, conn: ConnId, t: &Value) {
        let server_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let text = ServerMessage::Pong { t, server_ms }.to_json();
        self.reply_to(conn, text);
    }

    fn refuse(&mut self, conn: ConnId, refused: Refused) {
        let text = ServerMessage::Error(&refused).to_json();
        self.reply_to(conn, text);
    }

    async fn disconnect(&mut self, conn: ConnId) {
        let Some(name) = self.forget_connection(conn) else {
            return;
        };
        if let Err(error) = self.store.withdraw_seek(&name).await {
            self.failure.get_or_insert(error);
        }
    }

    /// Drops the connection; the player's name if it was the player's last one here (its
    /// cached record goes too: the store has it).
    fn forget_connection(&mut self, conn: ConnId) -> Option<String> {
        let key = self.connections.remove(&conn)?.player?;
        let player = self.players.get_mut(&key)?;
        player.connections.retain(|&c| c != conn);
        if !player.connections.is_empty() {
            return None;
        }
        let name = self.players.remove(&key)?.record.name;
        self.left_here(&key, &name);
        Some(name)
    }

    /// A player's first connection here: the other processes are told, and the player's
    /// opponents if the player was connected nowhere.
    fn arrived_here(&mut self, key: &str, name: &str) {
        self.announce_presence(name, true);
        if !self.elsewhere.is_connected(key) {
            self.tell_presence(key, true);
        }
    }

    /// A player's last connection here gone.
    fn left_here(&mut self, key: &str, name: &str) {
        self.announce_presence(name, false);
        if !self.elsewhere.is_connected(key) {
            self.tell_presence(key, false);
        }
    }

    fn announce_presence(&mut self, name: &str, here: bool) {
        if self.store.is_shared() {
            self.to_announce.push(Change::Presence {
                player: name.to_string(),
                here,
            });
        }
    }

    /// Another process asked who is connected here.
    fn announce_everyone_here(&mut self) {
        let names: Vec<String> = self
            .players
            .values()
            .map(|player| player.record.name.clone())
            .collect();
        for name in names {
            self.announce_presence(&name, true);
        }
    }

    /// What process `from` said of a player: the player's opponents are told if the player is
    /// now connected somewhere after nowhere, or the reverse.
    fn told_presence(&mut self, from: &str, name: &str, here: bool) {
        let key = auth::name_key(name);
        let before = self.is_connected(&key);
        self.elsewhere.told(&key, from, here);
        if self.is_connected(&key) != before {
            self.tell_presence(&key, !before);
        }
    }

    /// Whether the player is connected to any process.
    fn is_connected(&self, key: &str) -> bool {
        self.players.contains_key(key) || self.elsewhere.is_connected(key)
    }

    fn is_connected_name(&self, name: &str) -> bool {
        self.is_connected(&auth::name_key(name))
    }

    /// `presence` to the opponent in each of the player's live games.
    fn tell_presence(&mut self, key: &str, connected: bool) {
        let mut told = Vec::new();
        for live in self.games.values().filter(|live| !live.game.is_over()) {
            let game = &live.game;
            let (color, name, opponent) = if auth::name_key(&game.black) == key {
                (Color::Black, &game.black, &game.white)
            } else if auth::name_key(&game.white) == key {
                (Color::White, &game.white, &game.black)
            } else {
                continue;
            };
            let message = ServerMessage::Presence {
                game: &game.id,
                name,
                color: color.name(),
                connected,
            };
            told.push((auth::name_key(opponent), message.to_json()));
        }
        for (opponent, text) in told {
            self.deliver_later(None, Delivery::ToPlayer(opponent, text.into()));
        }
    }

    /// Queues a write of this batch; its index.
    fn write(&mut self, write: Write, origin: Option<ConnId>) -> usize {
        self.writes.push(write);
        self.origins.push(origin);
        self.writes.len() - 1
    }

    fn deliver_later(&mut self, after: Option<usize>, delivery: Delivery) {
        self.deliveries.push(Pending { after, delivery });
    }

    fn reply_to(&mut self, conn: ConnId, text: String) {
        self.deliver_later(None, Delivery::ToConnection(conn, text.into()));
    }

    fn tell_player(&mut self, player: &str, message: &ServerMessage<'_>) {
        self.deliver_later(
            None,
            Delivery::ToPlayer(player.to_string(), message.to_json().into()),
        );
    }

    fn tell_both(&mut self, players: [String; 2], text: String, after: Option<usize>) {
        let text: Arc<str> = text.into();
        for player in players {
            self.deliver_later(after, Delivery::ToPlayer(player, text.clone()));
        }
    }

    fn send_to_player(&mut self, player: &str, text: &Arc<str>) {
        let connections = match self.players.get(player) {
            Some(player) => player.connections.clone(),
            None => return,
        };
        for conn in connections {
            if self
                .connections
                .get(&conn)
                .is_some_and(|connection| connection.welcomed)
            {
                self.send(conn, Outgoing::Text(text.clone()));
            }
        }
    }

    /// Queues `message` for a connection; one that cannot keep up is closed, so that a slow
    /// reader never holds up anyone else.
    fn send(&mut self, conn: ConnId, message: Outgoing) {
        let Some(connection) = self.connections.get(&conn) else {
            return;
        };
        // The last slot is kept for the close frame.
        if connection.outbox.capacity() > 1 && connection.outbox.try_send(message).is_ok() {
            return;
        }
        let _ = connection
            .outbox
            .try_send(Outgoing::Close(1008, "too slow: messages were not read"));
        if let Some(name) = self.forget_connection(conn) {
            self.closed.push(name);
        }
    }

    fn say_goodbye(&mut self, reason: &str) {
        let text: Arc<str> = ServerMessage::Goodbye { reason }.to_json().into();
        for connection in self.connections.values() {
            if connection.outbox.capacity() > 1 {
                let _ = connection.outbox.try_send(Outgoing::Text(text.clone()));
            }
            let _ = connection
                .outbox
                .try_send(Outgoing::Close(1012, "server restart"));
        }
        self.connections.clear();
    }

    /// Notes a store error (the hub recovers or stops after this batch) and what the request
    /// that met it is told.
    fn lost(&mut self, error: StoreError) -> Refused {
        let refused = Refused::new(
            ErrorCode::Unavailable,
            format!("the server cannot reach its records ({error}); try again later"),
        );
        self.failure.get_or_insert(error);
        refused
    }

    fn move_time_ms(&self) -> u64 {
        self.move_time.as_millis().try_into().unwrap_or(u64::MAX)
    }
}

/// The time the store gives the player to move, or (where the process keeps the clock) the
/// game's full move time.
fn remaining(now: &GameNow, game: &ServerGame) -> Duration {
    Duration::from_millis(now.remaining_ms.unwrap_or(game.move_time_ms))
}

fn played_message(game: &ServerGame, turn: &Turn) -> String {
    ServerMessage::Played {
        game: &game.id,
        ply: turn.ply,
        color: turn.color.name(),
        point: turn.point.as_deref(),
        captured: &turn.captured,
        to_move: game.to_move().name(),
        remaining_ms: game.move_time_ms,
    }
    .to_json()
}

/// The keys of a game's two players, black first.
fn player_keys(game: &ServerGame) -> [String; 2] {
    [Color::Black, Color::White].map(|color| auth::name_key(game.player(color)))
}

fn unknown_game(game_id: &str) -> Refused {
    Refused::new(ErrorCode::UnknownGame, format!("no game has the id {game_id:?}")).in_game(game_id)
}

fn name_taken(name: &str) -> Refused {
    Refused::new(
        ErrorCode::NameTaken,
        format!("the name {name:?} is taken: sign in with its token, or choose another name"),
    )
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

mod presence;
#[cfg(test)]
mod tests;
