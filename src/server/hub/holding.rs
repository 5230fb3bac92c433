//! On a shared database a process holds only the games its connections need: those its
//! players play and those its watchers watch. A game is read when one of them needs it (a
//! player signs in, a watcher watches, another process paired a player here) and dropped when
//! none does; other processes' turns of games it does not hold are not replayed. A game that
//! no process holds is still ended on time: every process looks twice a second for games
//! overdue by the database's clock, and the database lets one of them end each. On SQLite the one process
//! holds every game, since its clocks are its own.

use std::time::Duration;

use tokio::time::Instant;

use crate::auth;

use super::Hub;

/// How often the games held are checked for watchers gone, who leave without the hub.
pub(super) const RELEASE_CHECK_EVERY: Duration = Duration::from_secs(1);

impl Hub {
    /// Whether this process holds only what its connections need (a shared database).
    pub(super) fn holds_only_needed(&self) -> bool {
        self.store.is_shared()
    }

    /// Whether a connection here plays or watches the game of these players, or this process
    /// is ending it for being overdue.
    pub(super) fn needs(&self, id: &str, players: [&str; 2]) -> bool {
        let watched = self.rooms.lock().has(id);
        self.needed(id, players, watched)
    }

    /// [`Hub::needs`], `watched` saying whether anyone here watches the game.
    fn needed(&self, id: &str, players: [&str; 2], watched: bool) -> bool {
        !self.holds_only_needed()
            || watched
            || self.overdue.contains(id)
            || players
                .iter()
                .any(|name| self.players.contains_key(&auth::name_key(name)))
    }

    /// Reads the live games of a player signing in that this process does not hold yet (its
    /// welcome lists them).
    pub(super) async fn hold_games_of(&mut self, name: &str) -> Result<(), crate::store::StoreError> {
        if !self.holds_only_needed() {
            return Ok(());
        }
        let ids: Vec<String> = self
            .store
            .live_games_of(&[name.to_string()])
            .await?
            .into_iter()
            .filter(|id| !self.games.contains_key(id))
            .collect();
        self.catch_up(ids).await
    }

    /// Notes that a game may no longer be needed here: a player left, an overdue game turned
    /// out not to be.
    pub(super) fn may_release(&mut self) {
        self.release_due = true;
    }

    /// Drops the games no connection here needs any more: after a player left, and once a
    /// second for the watchers (who leave rooms without the hub). A game is unpublished as it
    /// is dropped, under the rooms' lock: a watcher that joins its room since finds it not
    /// held, and sends it as stored (so that the hub holds it again).
    pub(super) fn release_unneeded(&mut self) {
        if !self.holds_only_needed() {
            return;
        }
        let now = Instant::now();
        let due = std::mem::take(&mut self.release_due) || now >= self.next_release_check;
        if !due {
            return;
        }
        self.next_release_check = now + RELEASE_CHECK_EVERY;
        let rooms = self.rooms.clone();
        let watchers = rooms.lock();
        let unneeded: Vec<String> = self
            .games
            .values()
            .filter(|live| {
                let game = &live.game;
                let players = [game.black.as_str(), game.white.as_str()];
                !self.needed(&game.id, players, watchers.has(&game.id))
            })
            .map(|live| live.game.id.clone())
            .collect();
        if unneeded.is_empty() {
            return;
        }
        for id in &unneeded {
            self.games.remove(id);
        }
        let unpublished = unneeded.into_iter().map(|id| (id, None)).collect();
        self.snapshot.publish_games(unpublished);
    }

    /// Reads the games overdue by the database's clock that this process does not hold, so
    /// that their clocks, run out, end them (once: the database takes one process's ending).
    pub(super) async fn hold_overdue_games(&mut self) {
        let overdue = match self.store.overdue_games().await {
            Ok(overdue) => overdue,
            Err(error) => {
                self.failure.get_or_insert(error);
                return;
            }
        };
        let unheld: Vec<String> = overdue
            .into_iter()
            .filter(|id| !self.games.contains_key(id))
            .collect();
        if unheld.is_empty() {
            return;
        }
        self.overdue.extend(unheld.iter().cloned());
        if let Err(error) = self.catch_up(unheld).await {
            self.failure.get_or_insert(error);
        }
        // One whose player moved meanwhile is not overdue after all.
        let now = tokio::time::Instant::now();
        let games = &self.games;
        let before = self.overdue.len();
        self.overdue.retain(|id| {
            games
                .get(id)
                .is_some_and(|live| live.deadline.is_none_or(|deadline| deadline <= now))
        });
        if self.overdue.len() < before {
            self.may_release();
        }
    }
}
