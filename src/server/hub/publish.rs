//! Publishing the committed state for readers on other threads ([`crate::snapshot`]).

use std::sync::OnceLock;

use crate::snapshot::PublishedGame;

use super::Hub;
use crate::reads::seeks_listed;

impl Hub {
    /// Publishes the games changed since the last publication, as they are now (committed:
    /// called after a commit, and after a catch-up), and the seeks if they live here and changed;
    /// then tells the news of what it published.
    pub(super) fn publish(&mut self) {
        let changed = self.games.take_changed();
        if !changed.is_empty() {
            let entries = changed
                .into_iter()
                .map(|id| {
                    let entry = self
                        .games
                        .get(&id)
                        .filter(|live| !live.game.is_over())
                        .map(|live| PublishedGame {
                            game: live.game.clone(),
                            deadline: live.deadline,
                            connected: [
                                self.is_connected_name(&live.game.black),
                                self.is_connected_name(&live.game.white),
                            ],
                            order: live.order,
                            summary: OnceLock::new(),
                            news: self.news_told,
                        });
                    (id, entry)
                })
                .collect();
            self.snapshot.publish_games(entries);
        }
        if std::mem::take(&mut self.presence_changed) {
            let mut connected: std::collections::HashSet<String> =
                self.elsewhere.connected_keys().into_iter().collect();
            connected.extend(self.players.keys().cloned());
            self.snapshot.publish_connected(connected);
        }
        if let Some((changes, seeks)) = self.store.local_seeks() {
            if self.seeks_published != Some(changes) {
                self.snapshot.publish_seeks(seeks_listed(seeks));
                self.seeks_published = Some(changes);
            }
        }
        self.tell_news();
    }
}
