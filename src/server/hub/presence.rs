//! Who is connected to the other processes on a shared database, as they told (`p:` entries
//! of their notifications), so that a player's opponent can be told when the player goes and
//! comes back wherever each is connected. A process that dies says nothing: its players count
//! as gone once it is no longer seen alive.

use std::collections::{HashMap, HashSet};

#[derive(Default)]
pub struct Elsewhere {
    /// By player key, the other processes the player is connected to.
    processes: HashMap<String, HashSet<String>>,
}

impl Elsewhere {
    pub fn is_connected(&self, key: &str) -> bool {
        self.processes.contains_key(key)
    }

    /// Notes what process `from` told of the player.
    pub fn told(&mut self, key: &str, from: &str, here: bool) {
        if here {
            self.processes
                .entry(key.to_string())
                .or_default()
                .insert(from.to_string());
        } else if let Some(processes) = self.processes.get_mut(key) {
            processes.remove(from);
            if processes.is_empty() {
                self.processes.remove(key);
            }
        }
    }

    /// Forgets the processes not in `alive`; the keys of the players this leaves connected
    /// nowhere else.
    pub fn keep_alive(&mut self, alive: &[String]) -> Vec<String> {
        let mut gone = Vec::new();
        self.processes.retain(|key, processes| {
            processes.retain(|process| alive.contains(process));
            if processes.is_empty() {
                gone.push(key.clone());
            }
            !processes.is_empty()
        });
        gone
    }

    /// Forgets everything (what was told while this process was not listening is lost; the
    /// others are asked again).
    pub fn clear(&mut self) {
        self.processes.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_is_connected_elsewhere_until_every_process_says_gone_or_dies() {
        let mut elsewhere = Elsewhere::default();
        elsewhere.told("bob", "x", true);
        elsewhere.told("bob", "y", true);
        elsewhere.told("bob", "x", false);
        assert!(elsewhere.is_connected("bob"));
        elsewhere.told("al", "x", true);
        assert_eq!(elsewhere.keep_alive(&["x".to_string()]), vec!["bob".to_string()]);
        assert!(!elsewhere.is_connected("bob"));
        assert!(elsewhere.is_connected("al"));
        elsewhere.told("al", "x", false);
        assert!(!elsewhere.is_connected("al"));
        elsewhere.told("al", "z", false);
        assert!(!elsewhere.is_connected("al"));
    }
}
