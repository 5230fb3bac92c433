//! Writing SGF, deterministically: the same tree or game gives the same text. Nodes follow each
//! other on lines of at most about 80 characters (never broken inside a value), each variation
//! starting on a new line. Nothing recurses on a tree's depth.

use super::go::KO_BAN;
use super::tree::{escape, GameTree, Property, Value};
use crate::{Color, GameRecord, TurnRecord};

/// What a written game says about itself besides its moves. Every field is optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameInfo {
    /// `PB`, `PW`: the players' names.
    pub black: Option<String>,
    pub white: Option<String>,
    /// `KM`; not written unless finite.
    pub komi: Option<f64>,
    /// `RE`: `B+R`, `W+3.5`, `0` (a draw), `Void`, `?`.
    pub result: Option<String>,
    /// `DT`: `YYYY-MM-DD`.
    pub date: Option<String>,
    /// `RU`: `Chinese`, `Japanese`, ...
    pub rules: Option<String>,
    /// More root properties, `(identifier, text)`, written in order after the others.
    pub extra: Vec<(String, String)>,
}

const LINE: usize = 78;

fn point(row: usize, col: usize) -> String {
    const LETTERS: &[u8; 26] = b"abcdefghijklmnopqrstuvwxyz";
    format!("{}{}", LETTERS[col] as char, LETTERS[row] as char)
}

impl GameInfo {
    /// The root properties that say it: `KM`, `PB`, `PW`, `DT`, `RU`, `RE`, then `extra`.
    pub fn properties(&self) -> Vec<Property> {
        let mut properties = Vec::new();
        if let Some(komi) = self.komi.filter(|k| k.is_finite()) {
            properties.push(Property::new("KM", &[&komi.to_string()]));
        }
        let texts = [
            ("PB", &self.black),
            ("PW", &self.white),
            ("DT", &self.date),
            ("RU", &self.rules),
            ("RE", &self.result),
        ];
        for (ident, text) in texts {
            if let Some(text) = text {
                properties.push(Property::new(ident, &[text]));
            }
        }
        for (ident, text) in &self.extra {
            properties.push(Property::new(ident, &[text]));
        }
        properties
    }
}

/// An engine game (its [`GameRecord`], from `Game::record`) as an SGF file of one game:
/// `GM[1]FF[4]CA[UTF-8]AP[gokata:VERSION]SZ[...]`, then `info`'s properties, the start
/// position (`HA` and `AB` for handicap stones, `AW`, `PL` when the first player is not the one
/// a reader would assume, a ko ban as the private `KOBAN[cd:B]`), then one node per turn
/// (`B[]` for a pass). Reading it back gives the same record.
pub fn write_game(record: &GameRecord, info: &GameInfo) -> String {
    write_tree(&game_tree(record, &info.properties()))
}

/// The tree [`write_game`] writes, with `information` (properties of the game, not of its
/// position) in the root after `SZ`.
pub fn game_tree(record: &GameRecord, information: &[Property]) -> GameTree {
    let height = record.start.len();
    let width = record.start.first().map_or(0, Vec::len);
    let mut root = vec![
        Property::new("GM", &["1"]),
        Property::new("FF", &["4"]),
        Property::new("CA", &["UTF-8"]),
        Property::new("AP", &[]),
    ];
    root[3].values.push(Value {
        raw: format!("gokata:{}", env!("CARGO_PKG_VERSION")),
        line: 0,
        column: 0,
    });
    let size = if height == width {
        height.to_string()
    } else {
        format!("{width}:{height}")
    };
    root.push(Property::new("SZ", &[&size]));
    root.extend_from_slice(information);
    let stones = |color: Color| -> Vec<String> {
        let mut points = Vec::new();
        for (r, row) in record.start.iter().enumerate() {
            for (c, &cell) in row.iter().enumerate() {
                if cell == Some(color) {
                    points.push(point(r, c));
                }
            }
        }
        points
    };
    let (black, white) = (stones(Color::Black), stones(Color::White));
    let handicap = if record.handicap_placed { black.len() } else { 0 };
    if record.handicap_placed {
        root.push(Property::new("HA", &[&handicap.to_string()]));
    }
    for (ident, points) in [("AB", &black), ("AW", &white)] {
        if !points.is_empty() {
            let values: Vec<&str> = points.iter().map(String::as_str).collect();
            root.push(Property::new(ident, &values));
        }
    }
    // A reader takes the first move's colour as the first player, or with no move white after
    // a handicap of two or more, else black.
    let assumed = match record.turns.first() {
        Some(turn) => turn.color,
        None if handicap >= 2 => Color::White,
        None => Color::Black,
    };
    if record.start_to_move != assumed {
        root.push(Property::new("PL", &[sgf_color(record.start_to_move)]));
    }
    if let Some((r, c, color)) = record.start_ko {
        root.push(Property::new(
            KO_BAN,
            &[&format!("{}:{}", point(r, c), sgf_color(color))],
        ));
    }
    let mut tree = GameTree::with_root(root);
    let mut parent = 0;
    for turn in &record.turns {
        parent = tree.add_child(parent, vec![move_property(turn)]);
    }
    tree
}

/// A turn as a move property: `B[cd]`, `W[]` for a pass.
pub fn move_property(turn: &TurnRecord) -> Property {
    let value = turn.point.map_or(String::new(), |(r, c)| point(r, c));
    Property::new(sgf_color(turn.color), &[&value])
}

fn sgf_color(color: Color) -> &'static str {
    match color {
        Color::Black => "B",
        Color::White => "W",
    }
}

/// Several game trees as one collection, each on its own lines.
pub fn write_collection(trees: &[GameTree]) -> String {
    trees.iter().map(write_tree).collect()
}

/// A game tree as SGF text ending in a line break: every property in its order, values as read.
/// The root gets `FF[4]` (replacing any other `FF`), `GM[1]` if it has no `GM`, and `CA[UTF-8]`
/// (the text is Unicode whatever the file it was read from).
pub fn write_tree(tree: &GameTree) -> String {
    enum Step {
        Node(usize),
        Variation(usize),
        Close,
    }
    let mut out = String::new();
    let mut line_start = 0;
    if tree.nodes.is_empty() {
        return "(;GM[1]FF[4]CA[UTF-8])\n".to_string();
    }
    out.push('(');
    let mut steps = vec![Step::Close, Step::Node(0)];
    while let Some(step) = steps.pop() {
        match step {
            Step::Close => out.push(')'),
            Step::Variation(index) => {
                out.push('\n');
                line_start = out.len();
                out.push('(');
                steps.push(Step::Node(index));
            }
            Step::Node(index) => {
                let node = &tree.nodes[index];
                let mut text = String::from(";");
                if index == 0 {
                    write_root(&mut text, &node.properties);
                } else {
                    for property in &node.properties {
                        write_property(
                            &mut text,
                            &property.ident,
                            property.values.iter().map(|v| v.raw.as_str()),
                        );
                    }
                }
                if out.len() - line_start + text.len() > LINE && out.len() > line_start + 1 {
                    out.push('\n');
                    line_start = out.len();
                }
                out.push_str(&text);
                if index == 0 && node.children.len() == 1 {
                    out.push('\n');
                    line_start = out.len();
                }
                match node.children.as_slice() {
                    [] => {}
                    [only] => steps.push(Step::Node(*only)),
                    children => {
                        for &child in children.iter().rev() {
                            steps.push(Step::Close);
                            steps.push(Step::Variation(child));
                        }
                    }
                }
            }
        }
    }
    out.push('\n');
    out
}

fn write_root(out: &mut String, properties: &[Property]) {
    let has = |ident: &str| properties.iter().any(|p| p.ident == ident);
    if !has("GM") {
        write_property(out, "GM", ["1"].into_iter());
    }
    if !has("FF") {
        write_property(out, "FF", ["4"].into_iter());
    }
    if !has("CA") {
        write_property(out, "CA", ["UTF-8"].into_iter());
    }
    for property in properties {
        match property.ident.as_str() {
            "FF" => write_property(out, "FF", ["4"].into_iter()),
            "CA" => write_property(out, "CA", ["UTF-8"].into_iter()),
            ident => write_property(out, ident, property.values.iter().map(|v| v.raw.as_str())),
        }
    }
}

fn write_property<'a>(out: &mut String, ident: &str, values: impl Iterator<Item = &'a str>) {
    out.push_str(ident);
    for value in values {
        out.push('[');
        out.push_str(value);
        out.push(']');
    }
}

/// Escapes text for a value (for callers building properties by hand).
pub fn escape_text(text: &str) -> String {
    escape(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::{parse::parse, replay};

    #[test]
    fn a_tree_writes_back_as_read() {
        let text = "(;GM[1]FF[4]CA[UTF-8]SZ[9]C[a \\] b];B[ee](;W[cc];B[gg])\n(;W[gc]))\n";
        let parsed = parse(text);
        assert_eq!(
            write_tree(&parsed.trees[0]),
            "(;GM[1]FF[4]CA[UTF-8]SZ[9]C[a \\] b]\n;B[ee]\n(;W[cc];B[gg])\n(;W[gc]))\n"
        );
        let old = parse("(;FF[3]SZ[9]XX[private];B[tt])");
        let written = write_tree(&old.trees[0]);
        assert_eq!(written, "(;GM[1]CA[UTF-8]FF[4]SZ[9]XX[private]\n;B[tt])\n");
        assert_eq!(write_tree(&parse(&written).trees[0]), written);
    }

    #[test]
    fn a_game_writes_and_reads_back_as_the_same_record() {
        let mut game = crate::Game::new(9, 9).unwrap();
        game.place_handicap(2).unwrap();
        let record = game.record();
        let text = write_game(&record, &GameInfo::default());
        assert!(text.contains("HA[2]AB[gc][cg]PL[B]"), "{text}");
        let tree = parse(&text).trees.remove(0);
        let replayed = replay(&tree, 0, true).unwrap();
        assert_eq!(replayed.game.record(), record);
    }
}
