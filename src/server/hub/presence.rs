//! Who is connected to the other processes on a shared database, as they told (`p:` entries
//! of their notifications), so that a player's opponent can be told when the player goes and
//! comes back wherever each is connected.
//!
//! What a process told counts while it is seen alive (the listener reports the processes alive
//! every second): one that dies says nothing, and its players count as gone once it is no longer
//! seen; one that was only out of sight for a while (its database connection lost) counts again
//! when it is back. What was told before this process's listener lost its connection counts until
//! the others have had time to say it again.

use super::watching::Told;
use super::{Delivery, Hub, Outgoing};
use crate::auth;
use crate::protocol::ServerMessage;
use crate::store::Change;
use gokata_engine::Color;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Reports of the processes alive (about one a second) that a process may miss and still
/// count again, and that what was told before a reconnection has to be told again in.
const ABSENT_REPORTS_KEPT: u32 = 60;
const RECONFIRM_REPORTS: u32 = 3;

#[derive(Default)]
pub struct Elsewhere {
    /// By player key, the processes that said the player is connected to them, and whether
    /// each said so since this process last began listening.
    told: HashMap<String, HashMap<String, Confirmed>>,
    /// The processes in the last report.
    alive: HashSet<String>,
    /// Reports each process has been missing from.
    absent: HashMap<String, u32>,
    /// Whether something told before this process's listener reconnected may still await
    /// confirmation.
    reconfirming: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Confirmed {
    Yes,
    /// Told before this process's listener reconnected: dropped after this many more reports.
    Until(u32),
}

impl Elsewhere {
    /// Whether a process seen alive says the player is connected to it.
    pub fn is_connected(&self, key: &str) -> bool {
        self.told
            .get(key)
            .is_some_and(|processes| processes.keys().any(|process| self.alive.contains(process)))
    }

    /// Notes what process `from` told of the player (which shows it alive, before the next
    /// report of the processes alive says so).
    pub fn told(&mut self, key: &str, from: &str, here: bool) {
        self.alive.insert(from.to_string());
        self.absent.remove(from);
        if here {
            self.told
                .entry(key.to_string())
                .or_default()
                .insert(from.to_string(), Confirmed::Yes);
        } else if let Some(processes) = self.told.get_mut(key) {
            processes.remove(from);
            if processes.is_empty() {
                self.told.remove(key);
            }
        }
    }

    /// Whether `alive` are the processes last reported alive.
    pub fn is_alive_now(&self, alive: &[String]) -> bool {
        alive.len() == self.alive.len() && alive.iter().all(|process| self.alive.contains(process))
    }

    /// The processes alive now; the players whose connectedness this changed, and how.
    pub fn report_alive(&mut self, alive: &[String]) -> Vec<(String, bool)> {
        if self.is_alive_now(alive) && self.absent.is_empty() && !self.reconfirming {
            // Every process told of is alive, as before, and everything told is confirmed.
            return Vec::new();
        }
        let before = self.connected_keys();
        self.alive = alive.iter().cloned().collect();
        for process in alive {
            self.absent.remove(process);
        }
        let processes: HashSet<String> = self.told.values().flat_map(|p| p.keys().cloned()).collect();
        for process in processes.difference(&self.alive) {
            *self.absent.entry(process.clone()).or_default() += 1;
        }
        let absent = &self.absent;
        self.told.retain(|_, processes| {
            processes.retain(|process, confirmed| {
                let long_gone = absent.get(process).is_some_and(|&n| n > ABSENT_REPORTS_KEPT);
                let unconfirmed = match confirmed {
                    Confirmed::Yes => false,
                    Confirmed::Until(0) => true,
                    Confirmed::Until(left) => {
                        *left -= 1;
                        false
                    }
                };
                !long_gone && !unconfirmed
            });
            !processes.is_empty()
        });
        self.absent.retain(|_, &mut n| n <= ABSENT_REPORTS_KEPT);
        self.reconfirming = self
            .told
            .values()
            .any(|processes| processes.values().any(|confirmed| *confirmed != Confirmed::Yes));
        let after = self.connected_keys();
        let gone = before.difference(&after).map(|key| (key.clone(), false));
        let back = after.difference(&before).map(|key| (key.clone(), true));
        gone.chain(back).collect()
    }

    /// This process's listener reconnected: what was told may be out of date. It counts until
    /// told again (the others are asked) or for a few more reports, then goes.
    pub fn told_before_reconnecting(&mut self) {
        self.reconfirming = true;
        for processes in self.told.values_mut() {
            for confirmed in processes.values_mut() {
                *confirmed = Confirmed::Until(RECONFIRM_REPORTS);
            }
        }
    }

    pub fn connected_keys(&self) -> BTreeSet<String> {
        self.told
            .keys()
            .filter(|key| self.is_connected(key))
            .cloned()
            .collect()
    }
}

impl Hub {
    /// A player's first connection here: the other processes are told, and the player's
    /// opponents if the player was connected nowhere.
    pub(super) fn arrived_here(&mut self, key: &str, name: &str) {
        self.announce_presence(name, true);
        if !self.elsewhere.is_connected(key) {
            self.tell_presence(key, true);
        }
    }

    /// A player's last connection here gone.
    pub(super) fn left_here(&mut self, key: &str, name: &str) {
        self.announce_presence(name, false);
        if !self.elsewhere.is_connected(key) {
            self.tell_presence(key, false);
        }
    }

    pub(super) fn announce_presence(&mut self, name: &str, here: bool) {
        if self.store.is_shared() {
            self.batch.to_announce.push(Change::Presence {
                player: name.to_string(),
                here,
            });
        }
    }

    /// Another process asked who is connected here.
    pub(super) fn announce_everyone_here(&mut self) {
        let names: Vec<String> = self
            .players
            .values()
            .map(|player| player.record.name.clone())
            .collect();
        for name in names {
            self.announce_presence(&name, true);
        }
    }

    /// What process `from` said of a player: the player's opponents are told if the player is
    /// now connected somewhere after nowhere, or the reverse.
    pub(super) fn told_presence(&mut self, from: &str, name: &str, here: bool) {
        let key = auth::name_key(name);
        let before = self.is_connected(&key);
        self.elsewhere.told(&key, from, here);
        if self.is_connected(&key) != before {
            self.tell_presence(&key, !before);
        }
    }

    /// Whether the player is connected to any process.
    pub(super) fn is_connected(&self, key: &str) -> bool {
        self.players.contains_key(key) || self.elsewhere.is_connected(key)
    }

    pub(super) fn is_connected_name(&self, name: &str) -> bool {
        self.is_connected(&auth::name_key(name))
    }

    /// `presence` to the opponent in each of the player's live games.
    pub(super) fn tell_presence(&mut self, key: &str, connected: bool) {
        self.presence_changed = true;
        let mut told = Vec::new();
        let mut watched = Vec::new();
        for live in self.games.values().filter(|live| !live.game.is_over()) {
            let game = &live.game;
            let (color, name, opponent) = if auth::name_key(&game.black) == key {
                (Color::Black, &game.black, &game.white)
            } else if auth::name_key(&game.white) == key {
                (Color::White, &game.white, &game.black)
            } else {
                continue;
            };
            let message = ServerMessage::Presence {
                game: game.id.as_str().into(),
                name: name.as_str().into(),
                color,
                connected,
            };
            let text: Arc<str> = message.to_json().into();
            told.push((auth::name_key(opponent), text.clone()));
            watched.push((game.id.clone(), text));
        }
        for (opponent, text) in told {
            self.deliver_later(None, Delivery::ToPlayer(opponent, Outgoing::Text(text)));
        }
        for (game, text) in watched {
            self.games.mark_changed(&game);
            self.tell_watchers_later(&game, Told::Other, &text, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(processes: &[&str]) -> Vec<String> {
        processes.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_player_is_connected_elsewhere_while_a_live_process_says_so() {
        let mut elsewhere = Elsewhere::default();
        assert!(elsewhere.report_alive(&alive(&["x", "y"])).is_empty());
        elsewhere.told("bob", "x", true);
        elsewhere.told("bob", "y", true);
        elsewhere.told("bob", "x", false);
        assert!(elsewhere.is_connected("bob"));
        elsewhere.told("bob", "y", false);
        assert!(!elsewhere.is_connected("bob"));
        elsewhere.told("al", "z", false);
        assert!(!elsewhere.is_connected("al"));
        elsewhere.told("al", "new", true);
        assert!(elsewhere.is_connected("al"), "a process that tells is alive");
    }

    #[test]
    fn a_process_out_of_sight_counts_again_when_back_and_is_forgotten_if_it_stays_away() {
        let mut elsewhere = Elsewhere::default();
        elsewhere.report_alive(&alive(&["x", "y"]));
        elsewhere.told("bob", "x", true);
        elsewhere.told("al", "y", true);
        assert_eq!(
            elsewhere.report_alive(&alive(&["y"])),
            vec![("bob".to_string(), false)]
        );
        assert!(!elsewhere.is_connected("bob"));
        assert_eq!(
            elsewhere.report_alive(&alive(&["x", "y"])),
            vec![("bob".to_string(), true)]
        );
        for _ in 0..=ABSENT_REPORTS_KEPT {
            elsewhere.report_alive(&alive(&["y"]));
        }
        assert!(elsewhere.report_alive(&alive(&["x", "y"])).is_empty());
        assert!(!elsewhere.is_connected("bob"));
        assert!(elsewhere.is_connected("al"));
    }

    #[test]
    fn after_a_reconnection_what_is_not_told_again_goes_and_nothing_else_changes() {
        let mut elsewhere = Elsewhere::default();
        elsewhere.report_alive(&alive(&["x"]));
        elsewhere.told("bob", "x", true);
        elsewhere.told("al", "x", true);
        elsewhere.told_before_reconnecting();
        elsewhere.told("al", "x", true);
        for _ in 0..RECONFIRM_REPORTS {
            assert!(elsewhere.report_alive(&alive(&["x"])).is_empty());
            assert!(elsewhere.is_connected("bob"));
        }
        assert_eq!(
            elsewhere.report_alive(&alive(&["x"])),
            vec![("bob".to_string(), false)]
        );
        assert!(elsewhere.is_connected("al"));
    }
}
