//! What the hub publishes after each commit for readers on other threads: the live games it
//! holds, and (on SQLite, whose seeks live in the hub's store) the seeks waiting. The HTTP API,
//! `sync` and `watch` are answered from here without waiting on the hub; the hub replaces a
//! game's entry whole, so a reader holds the lock only to copy pointers (or, answering a
//! connection, to queue its answer: see [`Snapshot::with_game`]).

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock, RwLock};

use serde_json::Value;
use tokio::time::Instant;

use crate::game::ServerGame;
use crate::listing::{ListedEntry, Listing, ListingChanges};
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
    /// Its entry in `/api/games`, made by the first reader that lists it.
    pub summary: OnceLock<String>,
    /// The number of the hub's last news to watchers when this was published: every piece of
    /// news numbered up to it is in this game as published (see `hub::watching`).
    pub news: u64,
}

impl PublishedGame {
    /// The game's STATE as its players see it, its clock as of now.
    pub fn state_json(&self) -> String {
        serde_json::to_string(&self.state()).expect("a state always serialises")
    }

    /// The game's STATE as its watchers see it (the watchers' chat too), its clock as of now.
    pub fn watcher_state_json(&self) -> String {
        let state = self.state().for_watchers(&self.game);
        serde_json::to_string(&state).expect("a state always serialises")
    }

    fn state(&self) -> GameState<'_> {
        let remaining = match self.deadline {
            Some(deadline) => deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
            None => self.game.turn_time_ms(),
        };
        GameState::of(&self.game, remaining)
            .with_connected(|name| self.connected[usize::from(name != self.game.black)])
    }
}

#[derive(Default)]
struct Published {
    games: HashMap<String, Arc<PublishedGame>>,
    /// The same games, newest first.
    newest_first: BTreeMap<Reverse<u64>, Arc<PublishedGame>>,
    /// The keys of the players connected to the server (here or to another process).
    connected: Arc<HashSet<String>>,
    /// The seeks waiting, as `/api/seeks` lists them, where the hub knows every seek (SQLite),
    /// and the body of `/api/seeks`.
    seeks: Option<(Arc<Value>, Arc<str>)>,
    /// Every game being played, where the hub holds only some (a shared database); else the
    /// games held are the list.
    listing: Option<Listing>,
    /// Where the seeks are read from the database (a shared one): how many times they may have
    /// changed, as the hub knows after its commit; a list read before the last change is stale.
    seeks_changes: u64,
}

/// The published state, shared by the hub (which writes it) and its readers.
#[derive(Clone, Default)]
pub struct Snapshot(Arc<RwLock<Published>>);

impl Snapshot {
    pub fn game(&self, id: &str) -> Option<Arc<PublishedGame>> {
        self.read().games.get(id).cloned()
    }

    /// `answer` of the game as published (`None`: not held here), made while the hub cannot
    /// publish: what a connection queues in it comes before anything the hub tells of a later
    /// change (the hub publishes a change before it tells it).
    pub fn with_game<T>(&self, id: &str, answer: impl FnOnce(Option<&PublishedGame>) -> T) -> T {
        let published = self.read();
        answer(published.games.get(id).map(Arc::as_ref))
    }

    /// The body of `/api/games`: the games held, newest first (at most [`LISTED_GAMES`]), and
    /// how many there are. Each game's entry is made once a change, by the first reader.
    pub fn live_games_json(&self) -> String {
        let (entries, total) = self.listed();
        let mut body = String::from("{\"games\":[");
        for (index, entry) in entries.iter().enumerate() {
            if index > 0 {
                body.push(',');
            }
            body.push_str(entry);
        }
        body.push_str(&format!("],\"total\":{total}}}"));
        body
    }

    /// The games being played, newest first (at most [`LISTED_GAMES`]), and how many there are.
    pub fn live_games(&self) -> (Value, usize) {
        let (entries, total) = self.listed();
        let games: Vec<Value> = entries
            .iter()
            .map(|entry| serde_json::from_str(entry).expect("made as JSON"))
            .collect();
        (Value::Array(games), total)
    }

    /// The newest games' entries in `/api/games` (each made once a change, by the first reader),
    /// and how many games there are.
    fn listed(&self) -> (Vec<ListedSummary>, usize) {
        if let Some(listing) = &self.read().listing {
            let (newest, total) = listing.newest(LISTED_GAMES);
            return (newest.into_iter().map(ListedSummary::Listed).collect(), total);
        }
        let (newest, total) = self.newest();
        (newest.into_iter().map(ListedSummary::Held).collect(), total)
    }

    /// How many games the hub holds, as last published.
    #[cfg(test)]
    pub fn games_held(&self) -> usize {
        self.read().games.len()
    }

    /// Whether the player of this name is connected to the server, as last published.
    pub fn is_connected(&self, name: &str) -> bool {
        self.read().connected.contains(&crate::auth::name_key(name))
    }

    pub(crate) fn publish_connected(&self, connected: HashSet<String>) {
        self.write().connected = Arc::new(connected);
    }

    fn newest(&self) -> (Vec<Arc<PublishedGame>>, usize) {
        let published = self.read();
        let listed = published
            .newest_first
            .values()
            .take(LISTED_GAMES)
            .cloned()
            .collect();
        (listed, published.games.len())
    }

    /// The seeks waiting, listed, and the body of `/api/seeks`, if the hub publishes them.
    pub fn seeks(&self) -> Option<(Arc<Value>, Arc<str>)> {
        self.read().seeks.clone()
    }

    /// Replaces the games changed by the last commit (`None`: no longer live).
    pub(crate) fn publish_games(&self, changed: Vec<(String, Option<PublishedGame>)>) {
        // Dropped after the lock is let go: readers wait for no freeing.
        let mut replaced = Vec::with_capacity(changed.len());
        let mut published = self.write();
        for (id, game) in changed {
            if let Some(old) = published.games.remove(&id) {
                published.newest_first.remove(&Reverse(old.order));
                replaced.push(old);
            }
            if let Some(game) = game {
                let game = Arc::new(game);
                published.newest_first.insert(Reverse(game.order), game.clone());
                published.games.insert(id, game);
            }
        }
        drop(published);
        drop(replaced);
    }

    /// Replaces the entries of the list of games changed since it was last published.
    pub(crate) fn publish_listing(&self, changed: ListingChanges) {
        let mut published = self.write();
        let replaced = published
            .listing
            .get_or_insert_with(Listing::default)
            .apply(changed);
        drop(published);
        drop(replaced);
    }

    /// Counts a change to the seeks in the database (see [`Snapshot::seeks_changes`]).
    pub(crate) fn seeks_changed(&self) {
        self.write().seeks_changes += 1;
    }

    /// How many times the seeks in the database may have changed, as last published.
    pub fn seeks_changes(&self) -> u64 {
        self.read().seeks_changes
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

/// A game's entry in `/api/games`, from the list of every game or from a game held.
enum ListedSummary {
    Listed(Arc<ListedEntry>),
    Held(Arc<PublishedGame>),
}

impl std::ops::Deref for ListedSummary {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            ListedSummary::Listed(entry) => entry.summary_json(),
            ListedSummary::Held(published) => published.summary.get_or_init(|| {
                serde_json::to_string(&GameSummary::of(&published.game)).expect("a summary always serialises")
            }),
        }
    }
}
