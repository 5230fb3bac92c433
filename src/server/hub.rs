//! The hub: the one place where the server's state lives and changes. Connections send it
//! events; it handles a batch of them, commits every change of the batch in one transaction,
//! and only then delivers what the batch says (so nothing is announced before it is stored),
//! and ends games whose move clock has run out.
//!
//! It runs on a thread of its own (the store is synchronous and single-writer); its clock is
//! tokio's, so tests can run it on paused time.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::auth;
use super::game::{EndReason, GameResult, Refusal, ServerGame, Turn};
use super::lobby::{Lobby, Seek};
use super::protocol::{ClientFrame, ErrorCode, GameState, Refused, SeekColor, ServerMessage};
use super::store::{PlayerRecord, Records, Store, StoreError, StoredGame, Write};
use crate::engine::Color;

pub type ConnId = u64;

/// Events handled in one batch at most, so one commit never waits on an endless stream.
const MAX_BATCH: usize = 512;

/// What the hub sends a connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Outgoing {
    Text(Arc<str>),
    /// A close frame with this code and reason, after which the connection ends.
    Close(u16, &'static str),
}

/// A question from the HTTP API, answered with a body (JSON, or SGF for `GameSgf`), or `None`
/// for not found.
#[derive(Debug)]
pub enum Query {
    Player(String),
    Game(String),
    /// The game as an SGF record.
    GameSgf(String),
}

#[derive(Debug)]
pub enum Event {
    Connected {
        conn: ConnId,
        outbox: mpsc::Sender<Outgoing>,
    },
    Frame {
        conn: ConnId,
        frame: Result<ClientFrame, Refused>,
    },
    Disconnected {
        conn: ConnId,
    },
    Query {
        query: Query,
        reply: oneshot::Sender<Option<String>>,
    },
    /// Finish the batch, say goodbye to every connection, and stop.
    Shutdown,
}

struct Connection {
    outbox: mpsc::Sender<Outgoing>,
    /// The signed-in player's key.
    player: Option<String>,
}

struct Player {
    record: PlayerRecord,
    connections: Vec<ConnId>,
}

struct LiveGame {
    game: ServerGame,
    /// When the player to move runs out of time; `None` while the last turn awaits its commit.
    deadline: Option<Instant>,
    /// Whether `clocks` holds an entry for this game: at most one, at or before `deadline`.
    clock_queued: bool,
}

impl LiveGame {
    fn new(game: ServerGame) -> LiveGame {
        LiveGame {
            game,
            deadline: None,
            clock_queued: false,
        }
    }
}

/// Something to deliver once the batch is committed.
enum Delivery {
    ToConnection(ConnId, Arc<str>),
    ToPlayer(String, Arc<str>),
    /// `over` to both players, with the records the commit returned.
    Over {
        game: String,
        result: GameResult,
    },
    /// `welcome`, made at delivery time so its records and games are the committed ones.
    Welcome {
        conn: ConnId,
        token: String,
    },
    Reply(oneshot::Sender<Option<String>>, Option<String>),
}

pub struct Hub {
    store: Box<dyn Store>,
    move_time: Duration,
    connections: HashMap<ConnId, Connection>,
    /// Players seen since the start, by key: their records and connections.
    players: HashMap<String, Player>,
    games: HashMap<String, LiveGame>,
    lobby: Lobby,
    /// One entry per game with a clock running. A game's deadline only moves later, so an
    /// entry is at or before it: when it comes up early, it is queued again for the deadline.
    clocks: BinaryHeap<Reverse<(Instant, String)>>,
    // The batch under way.
    writes: Vec<Write>,
    deliveries: Vec<Delivery>,
    clocks_to_start: Vec<String>,
    /// A store error met while handling the batch: the hub stops after it.
    failure: Option<StoreError>,
}

impl Hub {
    /// A hub on `store`, with every unfinished game loaded and its clock started afresh.
    pub fn new(mut store: Box<dyn Store>, move_time: Duration) -> Result<Hub, StoreError> {
        let unfinished = store.unfinished_games()?;
        let mut hub = Hub {
            store,
            move_time,
            connections: HashMap::new(),
            players: HashMap::new(),
            games: HashMap::new(),
            lobby: Lobby::default(),
            clocks: BinaryHeap::new(),
            writes: Vec::new(),
            deliveries: Vec::new(),
            clocks_to_start: Vec::new(),
            failure: None,
        };
        for stored in unfinished {
            let game = ServerGame::from_stored(&stored).map_err(StoreError::Corrupt)?;
            hub.clocks_to_start.push(game.id.clone());
            hub.games.insert(game.id.clone(), LiveGame::new(game));
        }
        hub.start_clocks();
        Ok(hub)
    }

    /// Handles events until `Shutdown` or until every sender is gone. A store error stops the
    /// hub: what was not committed was never announced, and a restart carries on from the store.
    pub async fn run(mut self, mut events: mpsc::Receiver<Event>) -> Result<(), StoreError> {
        let result = self.run_batches(&mut events).await;
        self.say_goodbye(match result {
            Ok(()) => "the server is shutting down; reconnect later",
            Err(_) => "the server stopped on an error; reconnect later",
        });
        result
    }

    async fn run_batches(&mut self, events: &mut mpsc::Receiver<Event>) -> Result<(), StoreError> {
        loop {
            let next_clock = self.clocks.peek().map(|Reverse((deadline, _))| *deadline);
            let first = tokio::select! {
                event = events.recv() => Some(event.unwrap_or(Event::Shutdown)),
                () = sleep_until(next_clock) => None,
            };
            let mut stop = false;
            self.expire_clocks();
            if let Some(event) = first {
                stop = self.handle(event);
                let mut handled = 1;
                while !stop && handled < MAX_BATCH {
                    match events.try_recv() {
                        Ok(event) => stop = self.handle(event),
                        Err(_) => break,
                    }
                    handled += 1;
                }
            }
            self.commit_and_deliver()?;
            if let Some(error) = self.failure.take() {
                return Err(error);
            }
            if stop {
                return Ok(());
            }
        }
    }

    /// Handles one event; `true` to stop.
    fn handle(&mut self, event: Event) -> bool {
        match event {
            Event::Connected { conn, outbox } => {
                self.connections.insert(conn, Connection { outbox, player: None });
            }
            Event::Frame { conn, frame } => match frame {
                Ok(frame) => self.handle_frame(conn, frame),
                Err(refused) => self.refuse(conn, refused),
            },
            Event::Disconnected { conn } => self.disconnect(conn),
            Event::Query { query, reply } => {
                let answer = self.answer(query);
                self.deliveries.push(Delivery::Reply(reply, answer));
            }
            Event::Shutdown => return true,
        }
        false
    }

    fn handle_frame(&mut self, conn: ConnId, frame: ClientFrame) {
        let Some(connection) = self.connections.get(&conn) else {
            return;
        };
        let player = connection.player.clone();
        let result = match (frame, player) {
            (ClientFrame::Ping { t }, _) => {
                self.pong(conn, &t);
                Ok(())
            }
            (ClientFrame::Hello { name, token }, None) => self.hello(conn, &name, token),
            (ClientFrame::Hello { .. }, Some(player)) => Err(Refused::bad_request(format!(
                "already signed in as {}",
                self.players[&player].record.name
            ))),
            (_, None) => Err(Refused::bad_request(
                "say hello first: {\"type\":\"hello\",\"name\":...}",
            )),
            (ClientFrame::Seek { size, color }, Some(player)) => {
                self.seek(&player, size, color);
                Ok(())
            }
            (ClientFrame::Cancel, Some(player)) => {
                let name = self.players[&player].record.name.clone();
                self.lobby.cancel(&name);
                self.tell_player(&player, &ServerMessage::Cancelled);
                Ok(())
            }
            (ClientFrame::Move { game, ply, point }, Some(player)) => {
                self.turn(conn, &player, &game, ply, Some(&point))
            }
            (ClientFrame::Pass { game, ply }, Some(player)) => self.turn(conn, &player, &game, ply, None),
            (ClientFrame::Resign { game }, Some(player)) => self.resign(conn, &player, &game),
            (ClientFrame::Sync { game }, Some(_)) => match self.game_state(&game) {
                Some(state) => {
                    self.reply_to(conn, state);
                    Ok(())
                }
                None => Err(unknown_game(&game)),
            },
        };
        if let Err(refused) = result {
            self.refuse(conn, refused);
        }
    }

    fn hello(&mut self, conn: ConnId, name: &str, token: Option<String>) -> Result<(), Refused> {
        auth::check_name(name).map_err(Refused::bad_request)?;
        let key = auth::name_key(name);
        let known = match self.players.get(&key) {
            Some(player) => Some(player.record.clone()),
            None => self.store_call(|store| store.player(name))?,
        };
        let token = match (known, token) {
            (None, None) => {
                let token = auth::new_token();
                let hash = auth::token_hash(&token);
                if !self.store_call(|store| store.add_player(name, &hash))? {
                    return Err(name_taken(name));
                }
                let record = PlayerRecord {
                    name: name.to_string(),
                    token_hash: hash,
                    wins: 0,
                    losses: 0,
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
            (Some(record), Some(token)) => {
                if !auth::token_matches(&token, &record.token_hash) {
                    return Err(Refused::new(
                        ErrorCode::BadToken,
                        format!("wrong token for {:?}", record.name),
                    ));
                }
                self.players.entry(key.clone()).or_insert(Player {
                    record,
                    connections: Vec::new(),
                });
                token
            }
        };
        self.players
            .get_mut(&key)
            .expect("inserted above")
            .connections
            .push(conn);
        if let Some(connection) = self.connections.get_mut(&conn) {
            connection.player = Some(key);
        }
        self.deliveries.push(Delivery::Welcome { conn, token });
        Ok(())
    }

    fn seek(&mut self, player: &str, size: usize, color: SeekColor) {
        let name = self.players[player].record.name.clone();
        let seek = Seek { name, size, color };
        let Some(pairing) = self.lobby.seek(seek, auth::coin) else {
            self.tell_player(
                player,
                &ServerMessage::Seeking {
                    size,
                    color: color.name(),
                },
            );
            return;
        };
        let game = ServerGame::new(
            auth::new_game_id(),
            pairing.size,
            pairing.black,
            pairing.white,
            self.move_time_ms(),
        );
        self.writes.push(Write::NewGame(game.stored()));
        let start = ServerMessage::Start {
            game: GameState::of(&game, game.move_time_ms),
        }
        .to_json();
        self.tell_both(player_keys(&game), start);
        self.clocks_to_start.push(game.id.clone());
        self.games.insert(game.id.clone(), LiveGame::new(game));
    }

    /// A move (`point`) or a pass (`None`) by `player` in `game_id` as turn `ply`.
    fn turn(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        ply: usize,
        point: Option<&str>,
    ) -> Result<(), Refused> {
        let color = self.player_color(player, game_id)?;
        let Some(live) = self.games.get_mut(game_id).filter(|live| !live.game.is_over()) else {
            return self.send_state(conn, game_id);
        };
        match live.game.play(color, ply, point) {
            Ok(turn) => {
                self.record_turn(game_id, turn);
                Ok(())
            }
            Err(Refusal::Stale) => self.send_state(conn, game_id),
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

    fn record_turn(&mut self, game_id: &str, turn: Turn) {
        let live = &self.games[game_id];
        self.writes.push(Write::Turn {
            game: game_id.to_string(),
            ply: turn.ply,
            point: turn.point.clone(),
        });
        let played = ServerMessage::Played {
            game: game_id,
            ply: turn.ply,
            color: turn.color.name(),
            point: turn.point.as_deref(),
            captured: &turn.captured,
            to_move: live.game.to_move().name(),
            remaining_ms: live.game.move_time_ms,
        }
        .to_json();
        let players = player_keys(&live.game);
        self.tell_both(players, played);
        match turn.result {
            Some(result) => self.finish(game_id, result),
            None => self.clocks_to_start.push(game_id.to_string()),
        }
        if let Some(live) = self.games.get_mut(game_id) {
            live.deadline = None;
        }
    }

    fn resign(&mut self, conn: ConnId, player: &str, game_id: &str) -> Result<(), Refused> {
        let color = self.player_color(player, game_id)?;
        match self
            .games
            .get_mut(game_id)
            .and_then(|live| live.game.end(color, EndReason::Resign))
        {
            Some(result) => {
                self.finish(game_id, result);
                Ok(())
            }
            None => self.send_state(conn, game_id),
        }
    }

    /// Stores the result and announces `over` once the records are committed.
    fn finish(&mut self, game_id: &str, result: GameResult) {
        self.writes.push(Write::Finish {
            game: game_id.to_string(),
            result,
        });
        self.deliveries.push(Delivery::Over {
            game: game_id.to_string(),
            result,
        });
    }

    /// Ends by timeout every game whose player to move has run out of time.
    fn expire_clocks(&mut self) {
        let now = Instant::now();
        while let Some(Reverse((deadline, _))) = self.clocks.peek() {
            if *deadline > now {
                break;
            }
            let Reverse((_, game_id)) = self.clocks.pop().expect("peeked");
            let Some(live) = self.games.get_mut(&game_id) else {
                continue;
            };
            live.clock_queued = false;
            match live.deadline {
                // The last turn awaits its commit, which starts the clock again.
                None => continue,
                Some(deadline) if deadline > now => {
                    live.clock_queued = true;
                    self.clocks.push(Reverse((deadline, game_id)));
                    continue;
                }
                Some(_) => {}
            }
            live.deadline = None;
            let loser = live.game.to_move();
            if let Some(result) = live.game.end(loser, EndReason::Timeout) {
                self.finish(&game_id, result);
            }
        }
    }

    /// Commits the batch's writes, then starts clocks and delivers, in the order handled.
    fn commit_and_deliver(&mut self) -> Result<(), StoreError> {
        let writes = std::mem::take(&mut self.writes);
        let records = if writes.is_empty() {
            Vec::new()
        } else {
            self.store.commit(&writes)?
        };
        let mut records = records.into_iter();
        self.start_clocks();
        for delivery in std::mem::take(&mut self.deliveries) {
            match delivery {
                Delivery::ToConnection(conn, text) => self.send(conn, Outgoing::Text(text)),
                Delivery::ToPlayer(player, text) => self.send_to_player(&player, &text),
                Delivery::Over { game, result } => {
                    let records = records.next().expect("one record pair per finished game");
                    self.deliver_over(&game, result, &records);
                }
                Delivery::Welcome { conn, token } => self.deliver_welcome(conn, &token),
                Delivery::Reply(reply, answer) => {
                    let _ = reply.send(answer);
                }
            }
        }
        Ok(())
    }

    fn start_clocks(&mut self) {
        let now = Instant::now();
        for game_id in std::mem::take(&mut self.clocks_to_start) {
            if let Some(live) = self.games.get_mut(&game_id).filter(|live| !live.game.is_over()) {
                live.deadline = Some(now + Duration::from_millis(live.game.move_time_ms));
                if !live.clock_queued {
                    live.clock_queued = true;
                    let deadline = live.deadline.expect("set above");
                    self.clocks.push(Reverse((deadline, game_id)));
                }
            }
        }
    }

    fn deliver_over(&mut self, game_id: &str, result: GameResult, records: &Records) {
        for standing in [&records.black, &records.white] {
            if let Some(player) = self.players.get_mut(&auth::name_key(&standing.name)) {
                player.record.wins = standing.wins;
                player.record.losses = standing.losses;
            }
        }
        let Some(live) = self.games.remove(game_id) else {
            return;
        };
        let text: Arc<str> = ServerMessage::over(game_id, result, records).into();
        for player in player_keys(&live.game) {
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
            games: games.iter().map(|live| self.state_of(live)).collect(),
        }
        .to_json();
        self.send(conn, Outgoing::Text(text.into()));
    }

    fn state_of<'a>(&self, live: &'a LiveGame) -> GameState<'a> {
        let remaining = match live.deadline {
            Some(deadline) => deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
            None => live.game.move_time_ms,
        };
        GameState::of(&live.game, remaining)
    }

    /// `view` of a game's STATE, live or stored.
    fn with_state<T>(&mut self, game_id: &str, view: impl FnOnce(GameState<'_>) -> T) -> Option<T> {
        if let Some(live) = self.games.get(game_id) {
            return Some(view(self.state_of(live)));
        }
        let game = self.stored_game(game_id)?;
        Some(view(GameState::of(&game, 0)))
    }

    /// The `state` frame of a game, live or stored.
    fn game_state(&mut self, game_id: &str) -> Option<String> {
        self.with_state(game_id, |game| ServerMessage::State { game }.to_json())
    }

    /// A finished game from the store. A store that cannot answer stops the hub after this
    /// batch (like a failed commit): it is not taken for a game that does not exist.
    fn stored_game(&mut self, game_id: &str) -> Option<ServerGame> {
        let stored: StoredGame = self.read_store(|store| store.game(game_id))?;
        match ServerGame::from_stored(&stored) {
            Ok(game) => Some(game),
            Err(problem) => {
                self.failure.get_or_insert(StoreError::Corrupt(problem));
                None
            }
        }
    }

    /// The answer of a store read, `None` when there is none or the read failed (then noted).
    fn read_store<T>(
        &mut self,
        read: impl FnOnce(&mut dyn Store) -> Result<Option<T>, StoreError>,
    ) -> Option<T> {
        match read(self.store.as_mut()) {
            Ok(answer) => answer,
            Err(error) => {
                self.failure.get_or_insert(error);
                None
            }
        }
    }

    fn send_state(&mut self, conn: ConnId, game_id: &str) -> Result<(), Refused> {
        let state = self.game_state(game_id).ok_or_else(|| unknown_game(game_id))?;
        self.reply_to(conn, state);
        Ok(())
    }

    /// The colour `player` plays in `game_id`, live or finished.
    fn player_color(&mut self, player: &str, game_id: &str) -> Result<Color, Refused> {
        let name = self.players[player].record.name.clone();
        let color = match self.games.get(game_id) {
            Some(live) => live.game.color_of(&name),
            None => self
                .stored_game(game_id)
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

    fn answer(&mut self, query: Query) -> Option<String> {
        match query {
            Query::Player(name) => {
                let record = match self.players.get(&auth::name_key(&name)) {
                    Some(player) => player.record.clone(),
                    None => self.read_store(|store| store.player(&name))?,
                };
                Some(
                    serde_json::json!({"name": record.name, "wins": record.wins, "losses": record.losses})
                        .to_string(),
                )
            }
            Query::GameSgf(id) => {
                if let Some(live) = self.games.get(&id) {
                    return Some(live.game.sgf());
                }
                Some(self.stored_game(&id)?.sgf())
            }
            Query::Game(id) => self.with_state(&id, |game| {
                serde_json::to_string(&game).expect("a state always serialises")
            }),
        }
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

    fn disconnect(&mut self, conn: ConnId) {
        let Some(connection) = self.connections.remove(&conn) else {
            return;
        };
        let Some(key) = connection.player else {
            return;
        };
        let Some(player) = self.players.get_mut(&key) else {
            return;
        };
        player.connections.retain(|&c| c != conn);
        if player.connections.is_empty() {
            // Gone: the seek with it, and its cached record (the store has it).
            let name = player.record.name.clone();
            self.players.remove(&key);
            self.lobby.cancel(&name);
        }
    }

    fn reply_to(&mut self, conn: ConnId, text: String) {
        self.deliveries.push(Delivery::ToConnection(conn, text.into()));
    }

    fn tell_player(&mut self, player: &str, message: &ServerMessage<'_>) {
        self.deliveries
            .push(Delivery::ToPlayer(player.to_string(), message.to_json().into()));
    }

    fn tell_both(&mut self, players: [String; 2], text: String) {
        let text: Arc<str> = text.into();
        for player in players {
            self.deliveries.push(Delivery::ToPlayer(player, text.clone()));
        }
    }

    fn send_to_player(&mut self, player: &str, text: &Arc<str>) {
        let connections = match self.players.get(player) {
            Some(player) => player.connections.clone(),
            None => return,
        };
        for conn in connections {
            self.send(conn, Outgoing::Text(text.clone()));
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
        self.disconnect(conn);
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

    /// A store call whose failure stops the hub after this batch.
    fn store_call<T>(
        &mut self,
        call: impl FnOnce(&mut dyn Store) -> Result<T, StoreError>,
    ) -> Result<T, Refused> {
        call(self.store.as_mut()).map_err(|error| {
            let refused = Refused::bad_request(format!(
                "the server cannot reach its records ({error}); try again later"
            ));
            self.failure = Some(error);
            refused
        })
    }

    fn move_time_ms(&self) -> u64 {
        self.move_time.as_millis().try_into().unwrap_or(u64::MAX)
    }
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

#[cfg(test)]
mod tests;
