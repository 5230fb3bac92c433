//! On a shared database, the list of the games being played, wherever they are played: what
//! `/api/games` and the lobby list (the newest, and how many there are). A process holds only
//! some games (see `hub::holding`), so its hub keeps this list apart, from its own commits and
//! the other processes' notifications, and publishes it after each batch as it publishes the
//! games it holds: no read of the list asks the database, but when some of the newest ended.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use crate::game::ServerGame;
use crate::protocol::GameSummary;
use crate::snapshot::LISTED_GAMES;
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

/// The published list: the newest games being played, by id and newest first, and how many
/// are played in all.
#[derive(Default)]
pub struct Listing {
    entries: HashMap<String, Arc<ListedEntry>>,
    newest_first: BTreeMap<Reverse<u64>, Arc<ListedEntry>>,
    total: usize,
}

impl Listing {
    /// The newest `limit` games, and how many there are.
    pub fn newest(&self, limit: usize) -> (Vec<Arc<ListedEntry>>, usize) {
        let listed = self.newest_first.values().take(limit).cloned().collect();
        (listed, self.total)
    }

    /// Replaces the entries changed (`None`: no longer listed) and the count; what it replaced,
    /// to be freed by the caller outside its lock.
    pub fn apply(&mut self, changed: ListingChanges) -> Vec<Arc<ListedEntry>> {
        let mut replaced = Vec::with_capacity(changed.entries.len());
        for (id, entry) in changed.entries {
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
        self.total = changed.total;
        replaced
    }
}

/// What changed in the list since it was last published: entries (`None`: no longer listed),
/// and the count of games played.
pub struct ListingChanges {
    pub entries: Vec<(String, Option<ListedEntry>)>,
    pub total: usize,
}

/// The hub's side. Every game being played is known by its id alone (to count them, and to
/// tell a new game from one the process has not listed); only the newest [`Directory::KEPT`] are listed
/// whole, so a process's memory does not grow with the site's unfinished games.
#[derive(Default)]
pub struct Directory {
    live: HashSet<Box<str>>,
    newest: HashMap<String, (ListedGame, u64)>,
    /// Orders grow for new games from the middle of the range, and shrink for older ones read
    /// again.
    next_order: u64,
    oldest_order: u64,
    changed: HashSet<String>,
    total_changed: bool,
}

impl Directory {
    /// Games kept listed beyond those shown, so that the list stays full when some of the
    /// newest end; below [`LISTED_GAMES`] the newest are read again from the database.
    pub const KEPT: usize = 2 * LISTED_GAMES;

    /// The ids of the games being played, and the newest of them listed, newest first, as the
    /// database has them.
    pub fn of(live: Vec<String>, newest_first: Vec<ListedGame>) -> Directory {
        let mut directory = Directory {
            next_order: u64::MAX / 2,
            oldest_order: u64::MAX / 2,
            ..Directory::default()
        };
        directory.reread(live, newest_first);
        directory
    }

    /// The games as the database lists them now, after this process may have missed what the
    /// others told.
    pub fn reread(&mut self, live: Vec<String>, newest_first: Vec<ListedGame>) {
        self.live = live.into_iter().map(String::into_boxed_str).collect();
        self.total_changed = true;
        let listed: HashSet<&str> = newest_first.iter().map(|game| game.id.as_str()).collect();
        let gone: Vec<String> = self
            .newest
            .keys()
            .filter(|id| !listed.contains(id.as_str()))
            .cloned()
            .collect();
        for id in gone {
            self.unlist(&id);
        }
        self.list_older(newest_first);
    }

    /// Whether the list shows fewer games than it could: the newest are to be read again.
    pub fn wants_older(&self) -> bool {
        self.newest.len() < LISTED_GAMES && self.live.len() > self.newest.len()
    }

    /// The newest games as the database lists them, newest first: those not listed yet are
    /// listed below the others.
    pub fn list_older(&mut self, newest_first: Vec<ListedGame>) {
        for game in newest_first {
            if self.newest.len() >= Directory::KEPT {
                break;
            }
            if self.newest.contains_key(&game.id) || !self.live.contains(game.id.as_str()) {
                continue;
            }
            self.oldest_order -= 1;
            self.changed.insert(game.id.clone());
            self.newest.insert(game.id.clone(), (game, self.oldest_order));
        }
    }

    /// A game being played, as this process holds it.
    pub fn held(&mut self, game: &ServerGame) {
        if game.is_over() {
            self.ended(&game.id);
            return;
        }
        let plies = game.moves().len();
        if self.live.contains(game.id.as_str()) && !self.newest.contains_key(&game.id) {
            return;
        }
        if self
            .newest
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
            self.ended(&game.id);
            return;
        }
        if self.live.contains(game.id.as_str()) && !self.newest.contains_key(&game.id) {
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
        if let Some((listed, _)) = self.newest.get_mut(id) {
            if listed.plies <= ply {
                listed.plies = ply + 1;
                self.changed.insert(id.to_string());
            }
        }
    }

    /// A game over.
    pub fn ended(&mut self, id: &str) {
        if self.live.remove(id) {
            self.total_changed = true;
        }
        self.unlist(id);
    }

    /// What changed since the last call, as it is now (`None`: nothing).
    pub fn take_changed(&mut self) -> Option<ListingChanges> {
        if self.changed.is_empty() && !self.total_changed {
            return None;
        }
        self.total_changed = false;
        let entries = std::mem::take(&mut self.changed)
            .into_iter()
            .map(|id| {
                let entry = self.newest.get(&id).map(|(game, order)| ListedEntry {
                    game: game.clone(),
                    order: *order,
                    summary: OnceLock::new(),
                });
                (id, entry)
            })
            .collect();
        Some(ListingChanges {
            entries,
            total: self.live.len(),
        })
    }

    /// Lists a game being played: in its place if listed, else as the newest (a new game), the
    /// oldest listed then going if too many are.
    fn put(&mut self, game: ListedGame) {
        if self.live.insert(game.id.clone().into_boxed_str()) {
            self.total_changed = true;
        }
        let order = match self.newest.get(&game.id) {
            Some((_, order)) => *order,
            None => {
                self.next_order += 1;
                self.next_order
            }
        };
        self.changed.insert(game.id.clone());
        self.newest.insert(game.id.clone(), (game, order));
        if self.newest.len() > Directory::KEPT {
            let oldest = self
                .newest
                .iter()
                .min_by_key(|(_, (_, order))| *order)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                self.unlist(&oldest);
            }
        }
    }

    fn unlist(&mut self, id: &str) {
        if self.newest.remove(id).is_some() {
            self.changed.insert(id.to_string());
        }
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

    fn published(directory: &mut Directory, listing: &mut Listing) -> (Vec<(String, usize)>, usize) {
        if let Some(changes) = directory.take_changed() {
            listing.apply(changes);
        }
        let (newest, total) = listing.newest(LISTED_GAMES);
        let shown = newest
            .iter()
            .map(|entry| (entry.game.id.clone(), entry.game.plies))
            .collect();
        (shown, total)
    }

    fn ids(count: usize) -> Vec<String> {
        (0..count).map(|i| format!("g{i}")).collect()
    }

    #[test]
    fn games_are_listed_newest_first_with_their_turns_until_they_end() {
        let mut directory = Directory::of(
            vec!["a".into(), "b".into(), "old".into()],
            vec![listed("b", 0), listed("a", 3)],
        );
        let mut listing = Listing::default();
        let shown = |pairs: &[(&str, usize)]| -> Vec<(String, usize)> {
            pairs.iter().map(|(id, plies)| (id.to_string(), *plies)).collect()
        };
        assert_eq!(
            published(&mut directory, &mut listing),
            (shown(&[("b", 0), ("a", 3)]), 3)
        );
        directory.turn("a", 3);
        directory.turn("a", 1); // told late: a catch-up had it
        directory.turn("old", 7); // not listed: nothing to change
        directory.put(listed("c", 0));
        assert_eq!(
            published(&mut directory, &mut listing),
            (shown(&[("c", 0), ("b", 0), ("a", 4)]), 4)
        );
        directory.ended("b");
        directory.ended("old");
        directory.ended("never-known");
        assert_eq!(
            published(&mut directory, &mut listing),
            (shown(&[("c", 0), ("a", 4)]), 2)
        );
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

    #[test]
    fn only_the_newest_are_kept_and_older_ones_are_read_again_when_too_few_are_left() {
        let everything: Vec<ListedGame> = ids(Directory::KEPT + 50)
            .iter()
            .rev()
            .map(|id| listed(id, 0))
            .collect();
        let mut directory = Directory::of(ids(Directory::KEPT + 50), everything.clone());
        let mut listing = Listing::default();
        let (shown, total) = published(&mut directory, &mut listing);
        assert_eq!((shown.len(), total), (LISTED_GAMES, Directory::KEPT + 50));
        assert_eq!(
            shown[0].0,
            format!("g{}", Directory::KEPT + 49),
            "the newest first"
        );
        assert!(!directory.wants_older());
        // The newest end, one by one, until too few are left: then the older are read again.
        for id in ids(Directory::KEPT + 50)
            .iter()
            .rev()
            .take(Directory::KEPT - LISTED_GAMES + 1)
        {
            directory.ended(id);
        }
        assert!(directory.wants_older());
        let still: Vec<ListedGame> = everything[Directory::KEPT - LISTED_GAMES + 1..].to_vec();
        directory.list_older(still);
        assert!(!directory.wants_older());
        let (shown, total) = published(&mut directory, &mut listing);
        let left = Directory::KEPT + 50 - (Directory::KEPT - LISTED_GAMES + 1);
        assert_eq!((shown.len(), total), (LISTED_GAMES, left));
        assert_eq!(
            shown[0].0,
            format!("g{}", left - 1),
            "the newest of those left first"
        );
        // A new game comes in at the top, and the oldest kept goes when there are too many.
        for i in 0..Directory::KEPT {
            directory.put(listed(&format!("new{i}"), 0));
        }
        let (shown, total) = published(&mut directory, &mut listing);
        assert_eq!(
            (shown[0].0.as_str(), total),
            (
                format!("new{}", Directory::KEPT - 1).as_str(),
                left + Directory::KEPT
            )
        );
        assert!(directory.newest.len() <= Directory::KEPT);
    }
}
