//! What the hub publishes after each commit for readers on other threads: the live games it
//! holds, and (on SQLite, whose seeks live in the hub's store) the seeks waiting. The HTTP API
//! answers from here without waiting on the hub; the hub replaces a game's entry whole, so a
//! reader holds the lock only to copy pointers.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};

use serde_json::Value;
use tokio::time::Instant;

use crate::game::ServerGame;
use crate::protocol::{GameState, GameSummary};

/// The most games `/api/games` and the lobby list.
pub const LISTED_GAMES: usize = 200;

/// A live game as of the last commit that changed it.
pub struct PublishedGame {
    pub game: ServerGame,
    /// When the player to move runs out of time, if its clock runs.
    pub deadline: Option<Instant>,
    /// Whether each player is connected to the server (black, white).
    pub connected: [bool; 2],
    /// When the process first held it: the newest are listed first.
    pub order: u64,
}

impl PublishedGame {
    /// The game's STATE as its players see it, its clock as of now.
    pub fn state_json(&self) -> String {
        let remaining = match self.deadline {
            Some(deadline) => deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
            None => self.game.turn_time_ms(),
        };
        let state = GameState::of(&self.game, remaining)
            .with_connected(|name| self.connected[usize::from(name != self.game.black)]);
        serde_json::to_string(&state).expect("a state always serialises")
    }
}

#[derive(Default)]
struct Published {
    games: HashMap<String, Arc<PublishedGame>>,
    /// The same games, newest first.
    newest_first: BTreeMap<Reverse<u64>, Arc<PublishedGame>>,
    /// Counts the games published anew or no longer live: the list's members changed.
    members: u64,
    /// The seeks waiting, as `/api/seeks` lists them, where the hub knows every seek (SQLite),
    /// and the body of `/api/seeks`.
    seeks: Option<(Arc<Value>, Arc<str>)>,
}

/// The published state, shared by the hub (which writes it) and its readers.
#[derive(Clone, Default)]
pub struct Snapshot(Arc<RwLock<Published>>);

impl Snapshot {
    pub fn game(&self, id: &str) -> Option<Arc<PublishedGame>> {
        self.read().games.get(id).cloned()
    }

    /// The games held, newest first (at most [`LISTED_GAMES`]), and how many there are.
    pub fn live_games(&self) -> (Value, usize) {
        let (listed, total) = {
            let published = self.read();
            let listed: Vec<Arc<PublishedGame>> = published
                .newest_first
                .values()
                .take(LISTED_GAMES)
                .cloned()
                .collect();
            (listed, published.games.len())
        };
        let games: Vec<GameSummary> = listed
            .iter()
            .map(|published| GameSummary::of(&published.game))
            .collect();
        (serde_json::json!(games), total)
    }

    /// How many times the games listed changed, but for their turns: a game published anew,
    /// or no longer live.
    pub fn members(&self) -> u64 {
        self.read().members
    }

    /// The seeks waiting, listed, and the body of `/api/seeks`, if the hub publishes them.
    pub fn seeks(&self) -> Option<(Arc<Value>, Arc<str>)> {
        self.read().seeks.clone()
    }

    /// Replaces the games changed by the last commit (`None`: no longer live).
    pub(crate) fn publish_games(&self, changed: Vec<(String, Option<PublishedGame>)>) {
        let mut published = self.write();
        for (id, game) in changed {
            let old = published.games.remove(&id);
            if let Some(old) = &old {
                published.newest_first.remove(&Reverse(old.order));
            }
            if old.is_some() != game.is_some() {
                published.members += 1;
            }
            if let Some(game) = game {
                let game = Arc::new(game);
                published.newest_first.insert(Reverse(game.order), game.clone());
                published.games.insert(id, game);
            }
        }
    }

    pub(crate) fn publish_seeks(&self, seeks: Value) {
        let body = serde_json::json!({ "seeks": seeks }).to_string();
        self.write().seeks = Some((Arc::new(seeks), body.into()));
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Published> {
        self.0.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Published> {
        self.0.write().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
