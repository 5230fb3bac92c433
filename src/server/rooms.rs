//! The watchers of each game watched in this process (its room), shared by the connections,
//! which join and leave rooms themselves (see [`crate::answers`]), and the hub, which tells each
//! room its game's news. One lock guards every room: a connection holds it while it reads the
//! game it sends and joins, the hub while it picks whom a piece of news goes to and queues it,
//! so that each watcher gets each piece of news once, after its state, unless its state has it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::mpsc;

use crate::game::ServerGame;
use crate::hub::{ConnId, Outgoing};

/// The most games one connection watches at once.
pub const MAX_WATCHED: usize = 64;

/// Every room of the process.
#[derive(Clone, Default)]
pub struct Rooms(Arc<Mutex<Watchers>>);

impl Rooms {
    pub fn lock(&self) -> MutexGuard<'_, Watchers> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A watcher of a game.
pub struct Member {
    /// Where its messages go: its connection's outbox (whose strong sender is the hub's, which
    /// may not have heard of the connection yet).
    pub outbox: mpsc::WeakSender<Outgoing>,
    pub seen: Seen,
}

/// What a watcher was sent of its game.
pub enum Seen {
    /// Sent the game as the hub published it, or brought up to what the hub holds: its turns
    /// up to `plies`, and the hub's news up to number `news` (see `hub::watching`).
    Following { plies: usize, news: u64 },
    /// Sent the game as the store had it, before this process held it: the hub brings it up to
    /// what it holds (the turns, chat, marks and comings and goings since), then it follows.
    FromStore(Box<StoredView>),
}

/// A game as a watcher was sent it from the store.
pub struct StoredView {
    pub game: ServerGame,
    /// Whether each player was connected, as the state said (black first).
    pub connected: [bool; 2],
}

/// The rooms, and the games each connection watches.
#[derive(Default)]
pub struct Watchers {
    rooms: HashMap<String, HashMap<ConnId, Member>>,
    watched: HashMap<ConnId, HashSet<String>>,
}

impl Watchers {
    /// `conn` watches `game` as `member` says (anew, or again with a new state).
    pub fn join(&mut self, conn: ConnId, game: &str, member: Member) {
        self.rooms
            .entry(game.to_string())
            .or_default()
            .insert(conn, member);
        self.watched.entry(conn).or_default().insert(game.to_string());
    }

    pub fn leave(&mut self, conn: ConnId, game: &str) {
        if let Some(room) = self.rooms.get_mut(game) {
            room.remove(&conn);
            if room.is_empty() {
                self.rooms.remove(game);
            }
        }
        if let Some(games) = self.watched.get_mut(&conn) {
            games.remove(game);
            if games.is_empty() {
                self.watched.remove(&conn);
            }
        }
    }

    /// A connection gone: out of every room.
    pub fn leave_all(&mut self, conn: ConnId) {
        for game in self.watched.remove(&conn).unwrap_or_default() {
            if let Some(room) = self.rooms.get_mut(&game) {
                room.remove(&conn);
                if room.is_empty() {
                    self.rooms.remove(&game);
                }
            }
        }
    }

    /// The game's room, taken away: nothing more of the game comes to its watchers.
    pub fn close(&mut self, game: &str) -> HashMap<ConnId, Member> {
        let room = self.rooms.remove(game).unwrap_or_default();
        for conn in room.keys() {
            if let Some(games) = self.watched.get_mut(conn) {
                games.remove(game);
                if games.is_empty() {
                    self.watched.remove(conn);
                }
            }
        }
        room
    }

    pub fn room_mut(&mut self, game: &str) -> Option<&mut HashMap<ConnId, Member>> {
        self.rooms.get_mut(game)
    }

    pub fn room(&self, game: &str) -> Option<&HashMap<ConnId, Member>> {
        self.rooms.get(game)
    }

    /// Whether anyone here watches the game.
    pub fn has(&self, game: &str) -> bool {
        self.rooms.contains_key(game)
    }

    pub fn watches(&self, conn: ConnId, game: &str) -> bool {
        self.watched.get(&conn).is_some_and(|games| games.contains(game))
    }

    /// How many games the connection watches.
    pub fn watched_by(&self, conn: ConnId) -> usize {
        self.watched.get(&conn).map_or(0, HashSet::len)
    }

    /// The games watched here.
    pub fn games(&self) -> Vec<String> {
        self.rooms.keys().cloned().collect()
    }

    pub fn clear(&mut self) {
        self.rooms.clear();
        self.watched.clear();
    }
}
