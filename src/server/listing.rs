//! On a shared database, the list of every game being played, wherever it is played: what
//! `/api/games` and the lobby list. A process holds only some games (see `hub::holding`), so its
//! hub keeps this list apart, from its own commits and the other processes' notifications, and
//! publishes it after each batch as it publishes the games it holds: no read of the list asks
//! the database.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use crate::game::ServerGame;
use crate::protocol::GameSummary;
use crate::store::{GameNow, ListedGame};

/// A game as listed, and its place in the order of games (newest first).
pub struct ListedEntry {
    pub game: ListedGame,
    pub order: u64,
    /// Its entry in `/api/games`, made by the first reader that lists it.
    pub summary: OnceLock<String>,
}

impl ListedEntry {
    pub fn summary_json(&self) -> &str {
        self.summary.get_or_init(|| {
            serde_json::to_string(&GameSummary::listed(&self.game)).expect("a summary always serialises")
        })
    }
}

/// The published list: every game being played, by id and newest first.
#[derive(Default)]
pub struct Listing {
    entries: HashMap<String, Arc<ListedEntry>>,
    newest_first: BTreeMap<Reverse<u64>, Arc<ListedEntry>>,
}

impl Listing {
    /// The newest `limit` games, and how many there are.
    pub fn newest(&self, limit: usize) -> (Vec<Arc<ListedEntry>>, usize) {
        let listed = self.newest_first.values().take(limit).cloned().collect();
        (listed, self.entries.len())
    }

    /// Replaces the entries changed (`None`: no longer played); what it replaced, to be freed
    /// by the caller outside its lock.
    pub fn apply(&mut self, changed: Vec<(String, Option<ListedEntry>)>) -> Vec<Arc<ListedEntry>> {
        let mut replaced = Vec::with_capacity(changed.len());
        for (id, entry) in changed {
            if let Some(old) = self.entries.remove(&id) {
                self.newest_first.remove(&Reverse(old.order));
                replaced.push(old);
            }
            if let Some(entry) = entry {
                let entry = Arc::new(entry);
                self.newest_first.insert(Reverse(entry.order), entry.clone());
                self.entries.insert(id, entry);
            }
        }
        replaced
    }
}

/// The hub's side: the list as it stands, and what changed since it was last published.
#[derive(Default)]
pub struct Directory {
    games: HashMap<String, (ListedGame, u64)>,
    next_order: u64,
    changed: HashSet<String>,
}

impl Directory {
    /// The games being played as the database lists them, oldest first.
    pub fn of(oldest_first: Vec<ListedGame>) -> Directory {
        let mut directory = Directory::default();
        for game in oldest_first {
            directory.put(game);
        }
        directory
    }

    /// The games being played as the database lists them now (oldest first), after this
    /// process may have missed what the others told: those not among them are gone.
    pub fn reread(&mut self, oldest_first: Vec<ListedGame>) {
        let playing: HashSet<&str> = oldest_first.iter().map(|game| game.id.as_str()).collect();
        let gone: Vec<String> = self
            .games
            .keys()
            .filter(|id| !playing.contains(id.as_str()))
            .cloned()
            .collect();
        for id in gone {
            self.remove(&id);
        }
        for game in oldest_first {
            self.put(game);
        }
    }

    /// A game being played, as this process holds it.
    pub fn held(&mut self, game: &ServerGame) {
        if game.is_over() {
            self.remove(&game.id);
            return;
        }
        let plies = game.moves().len();
        if self
            .games
            .get(&game.id)
            .is_some_and(|(listed, _)| listed.plies == plies)
        {
            return;
        }
        self.put(ListedGame {
            id: game.id.clone(),
            size: game.size(),
            black: game.black.clone(),
            white: game.white.clone(),
            bots: game.bots,
            terms: game.terms.clone(),
            plies,
        });
    }

    /// A game as the database has it now: listed with its turns, or gone once over.
    pub fn read(&mut self, now: &GameNow) {
        let game = &now.game;
        if game.result.is_some() {
            self.remove(&game.id);
            return;
        }
        self.put(ListedGame {
            id: game.id.clone(),
            size: game.size,
            black: game.black.clone(),
            white: game.white.clone(),
            bots: game.bots,
            terms: game.terms.clone(),
            plies: now.first_ply + game.moves.len(),
        });
    }

    /// Another process stored turn `ply` of a game this one does not hold.
    pub fn turn(&mut self, id: &str, ply: usize) {
        if let Some((listed, _)) = self.games.get_mut(id) {
            if listed.plies <= ply {
                listed.plies = ply + 1;
                self.changed.insert(id.to_string());
            }
        }
    }

    pub fn remove(&mut self, id: &str) {
        if self.games.remove(id).is_some() {
            self.changed.insert(id.to_string());
        }
    }

    /// The entries changed since the last call, as they are now.
    pub fn take_changed(&mut self) -> Vec<(String, Option<ListedEntry>)> {
        std::mem::take(&mut self.changed)
            .into_iter()
            .map(|id| {
                let entry = self.games.get(&id).map(|(game, order)| ListedEntry {
                    game: game.clone(),
                    order: *order,
                    summary: OnceLock::new(),
                });
                (id, entry)
            })
            .collect()
    }

    /// Lists the game, in its place if it had one, else as the newest.
    fn put(&mut self, game: ListedGame) {
        let order = match self.games.get(&game.id) {
            Some((_, order)) => *order,
            None => {
                self.next_order += 1;
                self.next_order
            }
        };
        self.changed.insert(game.id.clone());
        self.games.insert(game.id.clone(), (game, order));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::GameTerms;
    use crate::time_control::TimeControl;

    fn listed(id: &str, plies: usize) -> ListedGame {
        ListedGame {
            id: id.into(),
            size: 9,
            black: "ann".into(),
            white: "bob".into(),
            bots: [false; 2],
            terms: GameTerms::plain(TimeControl::PerMove { move_ms: 1000 }),
            plies,
        }
    }

    fn published(directory: &mut Directory, listing: &mut Listing) -> Vec<(String, usize)> {
        listing.apply(directory.take_changed());
        let (newest, total) = listing.newest(10);
        assert_eq!(newest.len(), total);
        newest
            .iter()
            .map(|entry| (entry.game.id.clone(), entry.game.plies))
            .collect()
    }

    #[test]
    fn games_are_listed_newest_first_with_their_turns_until_they_end() {
        let mut directory = Directory::of(vec![listed("a", 3), listed("b", 0)]);
        let mut listing = Listing::default();
        assert_eq!(
            published(&mut directory, &mut listing),
            [("b".to_string(), 0), ("a".to_string(), 3)]
        );
        directory.turn("a", 3);
        directory.turn("a", 1); // told late: a catch-up had it
        directory.turn("unknown", 0);
        directory.put(listed("c", 0));
        assert_eq!(
            published(&mut directory, &mut listing),
            [("c".to_string(), 0), ("b".to_string(), 0), ("a".to_string(), 4)]
        );
        directory.remove("b");
        assert!(directory
            .take_changed()
            .iter()
            .all(|(id, entry)| id == "b" && entry.is_none()));
        let entry = ListedEntry {
            game: listed("a", 4),
            order: 1,
            summary: OnceLock::new(),
        };
        assert!(
            entry.summary_json().contains(r#""moves":4"#),
            "{}",
            entry.summary_json()
        );
    }
}
