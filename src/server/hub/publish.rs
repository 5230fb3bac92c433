//! Publishing the committed state for readers on other threads ([`crate::snapshot`]).

use std::sync::OnceLock;

use crate::listing::Directory;
use crate::snapshot::PublishedGame;
use crate::store::StoreError;

use super::Hub;
use crate::reads::seeks_listed;

impl Hub {
    /// Publishes the games changed since the last publication, as they are now (committed:
    /// called after a commit, and after a catch-up), and the seeks if they live here and changed;
    /// then tells the news of what it published.
    pub(super) fn publish(&mut self) {
        let changed = self.games.take_changed();
        if let Some(directory) = &mut self.directory {
            for id in &changed {
                if let Some(live) = self.games.get(id) {
                    directory.held(&live.game);
                }
            }
            if let Some(listed) = directory.take_changed() {
                self.snapshot.publish_listing(listed);
            }
        }
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
        if std::mem::take(&mut self.seeks_changed) && self.store.is_shared() {
            self.snapshot.seeks_changed();
        }
        if let Some((changes, seeks)) = self.store.local_seeks() {
            if self.seeks_published != Some(changes) {
                self.snapshot.publish_seeks(seeks_listed(seeks));
                self.seeks_published = Some(changes);
            }
        }
        self.tell_news();
    }

    /// The list of games read again, after this process may have missed what the others told.
    pub(super) async fn reread_listing(&mut self) -> Result<(), StoreError> {
        let Some(newest) = self.store.newest_games_listed(Directory::KEPT).await? else {
            return Ok(());
        };
        let live = self.store.live_game_ids().await?;
        if let Some(directory) = &mut self.directory {
            directory.reread(live, newest);
        }
        Ok(())
    }

    /// Lists older games in the place of the newest that ended, when too few are left.
    pub(super) async fn list_older_games(&mut self) {
        if !self.directory.as_ref().is_some_and(Directory::wants_older) {
            return;
        }
        match self.store.newest_games_listed(Directory::KEPT).await {
            Ok(newest) => {
                if let (Some(directory), Some(newest)) = (&mut self.directory, newest) {
                    directory.list_older(newest);
                }
            }
            Err(error) => {
                self.failure.get_or_insert(error);
            }
        }
    }
}
