//! What a game read from SGF keeps of its record besides the engine's game: the root's
//! properties (the game information, and any other) and the nodes of the line of play it was
//! read from, comments and unknown properties included, to write them back with the game's
//! turns. A game not read from SGF keeps the information set on it, in a root of its own.

use super::go::{replay, KO_BAN};
use super::tree::{GameTree, Property, Value};
use super::write::{game_tree, move_property, write_tree};
use crate::GameRecord;

/// Root properties that describe the position or the file rather than the game: written anew
/// from the engine's game when the line read is not followed.
const STRUCTURE: [&str; 13] = [
    "GM", "FF", "CA", "AP", "SZ", "HA", "AB", "AW", "AE", "PL", KO_BAN, "B", "W",
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SgfRecord {
    /// The root, then each node of the line read as the first child of the one before; a root
    /// alone for a game not read from SGF; `None` while there is nothing to keep (not read, no
    /// information set), so that the many games that never have any allocate nothing for it.
    line: Option<GameTree>,
    /// Whether `line` was read from SGF (else its root holds only information set since).
    /// When it was, `line` is there.
    read: bool,
}

impl SgfRecord {
    /// The record of the line from `tree`'s root along `path` (node indices, the root first).
    pub fn read(tree: &GameTree, path: &[usize]) -> SgfRecord {
        let mut line = GameTree::with_root(tree.root().properties.clone());
        let mut parent = 0;
        for &index in path.iter().skip(1) {
            parent = line.add_child(parent, tree.nodes[index].properties.clone());
        }
        SgfRecord {
            line: Some(line),
            read: true,
        }
    }

    /// Information alone, on a root of its own (none while there is no information).
    fn information_alone(root: Vec<Property>) -> SgfRecord {
        SgfRecord {
            line: (!root.is_empty()).then(|| GameTree::with_root(root)),
            read: false,
        }
    }

    /// The root's properties: none for a record with nothing in it.
    fn root_properties(&self) -> &[Property] {
        self.line.as_ref().map_or(&[], |line| &line.root().properties)
    }

    /// Whether there is nothing to keep: not read, and no information set.
    pub fn is_empty(&self) -> bool {
        !self.read && self.root_properties().is_empty()
    }

    /// The first value of a root property, as text.
    pub fn text(&self, ident: &str) -> Option<String> {
        self.line.as_ref()?.root().text(ident)
    }

    /// Sets a root property to one text value, where it stands (or last); `None` removes it.
    pub fn set_text(&mut self, ident: &str, text: Option<&str>) {
        let Some(text) = text else {
            if let Some(line) = &mut self.line {
                line.nodes[0]
                    .properties
                    .retain(|property| property.ident != ident);
                if self.is_empty() {
                    self.line = None;
                }
            }
            return;
        };
        let root = &mut self
            .line
            .get_or_insert_with(|| GameTree::with_root(Vec::new()))
            .nodes[0]
            .properties;
        let values = vec![Value::from_text(text)];
        match root.iter_mut().find(|property| property.ident == ident) {
            Some(property) => property.values = values,
            None => root.push(Property::new(ident, &[text])),
        }
    }

    /// `KM` as a finite number.
    pub fn komi(&self) -> Option<f64> {
        self.text("KM")?
            .trim()
            .parse()
            .ok()
            .filter(|komi: &f64| komi.is_finite())
    }

    pub fn set_komi(&mut self, komi: Option<f64>) {
        self.set_text("KM", komi.map(|komi| komi.to_string()).as_deref());
    }

    /// The game `record` as SGF: the line read with its properties, as far as the game still
    /// follows it, then the game's later turns; else (a game not read from SGF, or one whose
    /// start is no longer the line's) the game as [`game_tree`] writes it, with the root's
    /// information.
    pub fn write(&self, record: &GameRecord) -> String {
        let followed = self.followed_line(record);
        write_tree(&followed.unwrap_or_else(|| game_tree(record, &self.information())))
    }

    /// The root's properties but those of the position and the file ([`STRUCTURE`]).
    fn information(&self) -> Vec<Property> {
        self.root_properties()
            .iter()
            .filter(|property| !STRUCTURE.contains(&property.ident.as_str()))
            .cloned()
            .collect()
    }

    /// The line read, up to the last node whose turns the game still has, then a node for
    /// each later turn of the game; `None` if the game does not start where the line does.
    fn followed_line(&self, record: &GameRecord) -> Option<GameTree> {
        let line_read = self.line.as_ref().filter(|_| self.read)?;
        let replayed = replay(line_read, line_read.nodes.len() - 1, false).ok()?;
        let read = replayed.game.record();
        let start = |r: &GameRecord| (r.start.clone(), r.start_to_move, r.start_ko, r.handicap_placed);
        if start(&read) != start(record) {
            return None;
        }
        let common = read
            .turns
            .iter()
            .zip(&record.turns)
            .take_while(|(a, b)| a == b)
            .count();
        // A node before the history's last restart holds none of its turns.
        let last_restart = replayed.marks.last()?.restarts;
        let follows = |mark: &super::Mark| mark.restarts < last_restart || mark.turns <= common;
        let kept = replayed.marks.iter().take_while(|mark| follows(mark)).count();
        if kept == 0 {
            return None;
        }
        let last_kept = replayed.marks[kept - 1];
        let done = if last_kept.restarts == last_restart {
            last_kept.turns
        } else {
            0
        };
        let mut line = GameTree::with_root(line_read.root().properties.clone());
        let mut parent = 0;
        for node in &line_read.nodes[1..kept] {
            parent = line.add_child(parent, node.properties.clone());
        }
        for turn in &record.turns[done..] {
            parent = line.add_child(parent, vec![move_property(turn)]);
        }
        Some(line)
    }

    /// The record as plain values for pickling: whether it was read, and its line as SGF.
    pub fn state(&self) -> (bool, String) {
        let line = match &self.line {
            Some(line) => write_tree(line),
            None => write_tree(&GameTree::with_root(Vec::new())),
        };
        (self.read, line)
    }

    /// The record a [`SgfRecord::state`] describes.
    pub fn from_state(read: bool, text: &str) -> Result<SgfRecord, String> {
        let games = super::read_collection_text(text, false).map_err(|problem| problem.to_string())?;
        let [game] = games.as_slice() else {
            return Err(format!("{} games, not one", games.len()));
        };
        let line = game.tree.main_line();
        if !read && line.len() > 1 {
            return Err("information alone has a root alone".into());
        }
        let record = SgfRecord::read(&game.tree, &line);
        if read {
            return Ok(record);
        }
        // Reading added the file's properties (FF, GM, CA) to the information alone.
        Ok(SgfRecord::information_alone(record.information()))
    }
}

#[cfg(test)]
mod tests {
    use super::SgfRecord;

    #[test]
    fn a_record_without_information_holds_no_tree_and_drops_it_when_emptied() {
        let mut record = SgfRecord::default();
        assert!(record.line.is_none() && record.is_empty());
        record.set_text("PB", None);
        assert!(record.line.is_none());
        record.set_komi(Some(6.5));
        record.set_text("PB", Some("Honinbo"));
        assert_eq!(
            (record.komi(), record.text("PB").as_deref()),
            (Some(6.5), Some("Honinbo"))
        );
        record.set_komi(None);
        assert!(!record.is_empty());
        record.set_text("PB", None);
        assert!(record.line.is_none() && record.is_empty());
        assert_eq!(record, SgfRecord::default());
    }

    #[test]
    fn an_empty_record_survives_its_state() {
        let (read, text) = SgfRecord::default().state();
        assert_eq!(SgfRecord::from_state(read, &text), Ok(SgfRecord::default()));
    }
}
