//! The games a process holds, and which of them changed since they were last published (see
//! [`crate::snapshot`]): every change goes through [`HeldGames::get_mut`], `insert` or
//! `remove`, so none is missed.

use std::collections::{HashMap, HashSet};
use std::ops::Deref;

use super::LiveGame;

#[derive(Default)]
pub(super) struct HeldGames {
    games: HashMap<String, LiveGame>,
    /// Games changed, held anew or dropped since the last [`HeldGames::take_changed`].
    changed: HashSet<String>,
}

impl Deref for HeldGames {
    type Target = HashMap<String, LiveGame>;

    fn deref(&self) -> &Self::Target {
        &self.games
    }
}

impl HeldGames {
    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut LiveGame> {
        let live = self.games.get_mut(id)?;
        if !self.changed.contains(id) {
            self.changed.insert(id.to_string());
        }
        Some(live)
    }

    pub(super) fn insert(&mut self, id: String, live: LiveGame) {
        self.changed.insert(id.clone());
        self.games.insert(id, live);
    }

    pub(super) fn remove(&mut self, id: &str) -> Option<LiveGame> {
        let live = self.games.remove(id)?;
        self.changed.insert(id.to_string());
        Some(live)
    }

    /// Something the game's view shows changed outside it (a player connected or left).
    pub(super) fn mark_changed(&mut self, id: &str) {
        if self.games.contains_key(id) && !self.changed.contains(id) {
            self.changed.insert(id.to_string());
        }
    }

    pub(super) fn take_changed(&mut self) -> HashSet<String> {
        std::mem::take(&mut self.changed)
    }
}
