//! SGF text to game trees, without recursion: an explicit stack holds the node each open `(`
//! returns to, so a file nested a million deep needs a million stack entries on the heap, not
//! a million frames.
//!
//! What is not SGF is reported and read around: text before `(;` and between game trees is
//! skipped (the specification allows it), a property without a value or without a capital
//! letter is dropped, a repeated property's values are joined, a stray character is skipped,
//! and a file that ends inside a value or a tree ends it there.

use super::tree::{GameTree, Node, Problem, Property, Value};

/// The game trees of a collection, in file order, and the problems met reading them.
#[derive(Debug, Default)]
pub struct Parsed {
    pub trees: Vec<GameTree>,
    pub problems: Vec<Problem>,
}

/// A position in the text, counting lines and columns (in characters) from 1. A line ends at
/// `\n`, or at a `\r` not followed by `\n`.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    column: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.text[self.offset..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let ch = self.peek()?;
        self.offset += ch.len_utf8();
        let line_break = ch == '\n' || (ch == '\r' && self.peek() != Some('\n'));
        if line_break {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(ch)
    }

    fn skip_white_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn at(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    fn problem(&self, message: impl Into<String>) -> Problem {
        Problem::new(self.line, self.column, message)
    }

    /// Whether white space and then `;` come next.
    fn node_follows(&self) -> bool {
        let mut ahead = *self;
        ahead.skip_white_space();
        ahead.peek() == Some(';')
    }
}

/// Reads every game tree of `text`.
pub fn parse(text: &str) -> Parsed {
    let mut cursor = Cursor {
        text,
        offset: 0,
        line: 1,
        column: 1,
    };
    let mut parsed = Parsed::default();
    while skip_to_game_tree(&mut cursor) {
        let tree = parse_tree(&mut cursor, &mut parsed.problems);
        parsed.trees.push(tree);
    }
    if parsed.trees.is_empty() {
        parsed.problems.push(Problem::new(
            1,
            1,
            "no game tree: an SGF file holds one or more game trees, each starting '(;'",
        ));
    }
    parsed
}

/// Moves to the next `(` that white space and `;` follow; false at the end of the text.
fn skip_to_game_tree(cursor: &mut Cursor<'_>) -> bool {
    loop {
        match cursor.peek() {
            None => return false,
            Some('(') => {
                let mut after = *cursor;
                after.bump();
                if after.node_follows() {
                    return true;
                }
                *cursor = after;
            }
            Some(_) => {
                cursor.bump();
            }
        }
    }
}

/// Reads one game tree from its `(`.
fn parse_tree(cursor: &mut Cursor<'_>, problems: &mut Vec<Problem>) -> GameTree {
    let (line, column) = cursor.at();
    let mut tree = GameTree {
        nodes: Vec::new(),
        line,
        column,
    };
    // The node to return to at each open `(`; the node properties go to.
    let mut open: Vec<Option<usize>> = Vec::new();
    let mut current: Option<usize> = None;
    // Whether the last token was `)`, so a `;` now starts a node after variations.
    let mut after_variations = false;
    // Whether the last problem was a stray character, so a run of them is reported once.
    let mut in_junk = false;
    loop {
        cursor.skip_white_space();
        let Some(ch) = cursor.peek() else {
            problems.push(cursor.problem(format!(
                "the file ends inside a game tree: {} ')' missing",
                open.len()
            )));
            return tree;
        };
        let junk = !matches!(ch, '(' | ')' | ';') && !ch.is_ascii_alphabetic();
        if junk {
            if !in_junk {
                problems.push(cursor.problem(format!("unexpected character {ch:?}: skipped")));
            }
            in_junk = true;
            cursor.bump();
            continue;
        }
        in_junk = false;
        match ch {
            '(' => {
                if !{
                    let mut after = *cursor;
                    after.bump();
                    after.node_follows()
                } {
                    problems.push(cursor.problem("a game tree or variation must start with ';'"));
                }
                cursor.bump();
                open.push(current);
                after_variations = false;
            }
            ')' => {
                cursor.bump();
                current = open.pop().flatten();
                if open.is_empty() {
                    return tree;
                }
                after_variations = true;
            }
            ';' => {
                let (line, column) = cursor.at();
                cursor.bump();
                if after_variations {
                    problems.push(Problem::new(
                        line,
                        column,
                        "a node after variations (missing '('): read as one more variation",
                    ));
                    after_variations = false;
                }
                let index = tree.nodes.len();
                tree.nodes.push(Node {
                    parent: current,
                    line,
                    column,
                    ..Node::default()
                });
                match current {
                    Some(parent) => tree.nodes[parent].children.push(index),
                    None if index == 0 => {}
                    None => {
                        // Only a root has no parent; a second one hangs under the first.
                        problems.push(Problem::new(
                            line,
                            column,
                            "a second root node: read as a child of the root",
                        ));
                        tree.nodes[index].parent = Some(0);
                        tree.nodes[0].children.push(index);
                    }
                }
                current = Some(index);
            }
            _ => {
                if let Some(property) = parse_property(cursor, problems) {
                    match current {
                        Some(node) => add_property(&mut tree.nodes[node], property, problems),
                        None => problems.push(Problem::new(
                            property.line,
                            property.column,
                            format!("property {} outside a node: dropped", property.ident),
                        )),
                    }
                }
            }
        }
    }
}

fn add_property(node: &mut Node, property: Property, problems: &mut Vec<Problem>) {
    match node.properties.iter_mut().find(|p| p.ident == property.ident) {
        Some(earlier) => {
            problems.push(Problem::new(
                property.line,
                property.column,
                format!(
                    "property {} appears twice in one node: its values are joined",
                    property.ident
                ),
            ));
            earlier.values.extend(property.values);
        }
        None => node.properties.push(property),
    }
}

/// Reads a property from its first letter: the identifier, white space, then its values.
fn parse_property(cursor: &mut Cursor<'_>, problems: &mut Vec<Problem>) -> Option<Property> {
    let (line, column) = cursor.at();
    let mut name = String::new();
    while let Some(ch) = cursor.peek().filter(char::is_ascii_alphabetic) {
        name.push(ch);
        cursor.bump();
    }
    // FF[1]-FF[3] allow lowercase letters in names, which do not count: AddBlack is AB.
    let ident: String = name.chars().filter(char::is_ascii_uppercase).collect();
    let mut values = Vec::new();
    let mut truncated = false;
    loop {
        cursor.skip_white_space();
        if cursor.peek() != Some('[') {
            break;
        }
        match parse_value(cursor) {
            Ok(value) => values.push(value),
            Err(problem) => {
                problems.push(problem);
                truncated = true;
                break;
            }
        }
    }
    if ident.is_empty() {
        problems.push(Problem::new(
            line,
            column,
            format!("property name {name:?} has no capital letter: dropped"),
        ));
        return None;
    }
    if values.is_empty() {
        if !truncated {
            problems.push(Problem::new(
                line,
                column,
                format!("property {name} has no value ('[...]'): dropped"),
            ));
        }
        return None;
    }
    Some(Property {
        ident,
        values,
        line,
        column,
    })
}

/// Reads `[...]`, keeping escapes as written.
fn parse_value(cursor: &mut Cursor<'_>) -> Result<Value, Problem> {
    let (line, column) = cursor.at();
    cursor.bump();
    let mut raw = String::new();
    loop {
        match cursor.bump() {
            None => {
                return Err(Problem::new(
                    line,
                    column,
                    "a value is not closed: the file ends inside it (dropped)",
                ))
            }
            Some(']') => return Ok(Value { raw, line, column }),
            Some('\\') => {
                raw.push('\\');
                if let Some(next) = cursor.bump() {
                    raw.push(next);
                }
            }
            Some(ch) => raw.push(ch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(tree: &GameTree, node: usize) -> Vec<&str> {
        tree.nodes[node]
            .properties
            .iter()
            .map(|p| p.ident.as_str())
            .collect()
    }

    #[test]
    fn a_tree_with_variations() {
        let parsed = parse("junk (;FF[4]GM[1]SZ[9];B[ee](;W[cc];B[gg])(;W[gc]))\n");
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let tree = &parsed.trees[0];
        assert_eq!(tree.nodes.len(), 5);
        assert_eq!(idents(tree, 0), ["FF", "GM", "SZ"]);
        assert_eq!(tree.main_line(), [0, 1, 2, 3]);
        assert_eq!(tree.nodes[1].children, [2, 4]);
        assert_eq!((tree.line, tree.column), (1, 6));
    }

    #[test]
    fn old_long_names_escapes_and_positions() {
        let parsed = parse("(;AddBlack[aa]\n  [bb]C[a \\] b\\\\];\r\nW[cc])");
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let tree = &parsed.trees[0];
        let ab = &tree.nodes[0].properties[0];
        assert_eq!(ab.ident, "AB");
        assert_eq!(ab.values.len(), 2);
        assert_eq!((ab.values[1].line, ab.values[1].column), (2, 3));
        assert_eq!(tree.nodes[0].properties[1].values[0].raw, "a \\] b\\\\");
        assert_eq!(tree.nodes[0].text("C").unwrap(), "a ] b\\");
        assert_eq!((tree.nodes[1].line, tree.nodes[1].column), (2, 18));
    }

    #[test]
    fn damage_is_reported_and_read_around() {
        let parsed = parse("(;B[aa]B[bb] X ;W[cc]");
        let messages: Vec<String> = parsed.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(parsed.trees[0].nodes.len(), 2);
        assert_eq!(parsed.trees[0].nodes[0].properties[0].values.len(), 2);
        assert!(
            messages[0].starts_with("line 1, column 8: property B appears twice"),
            "{messages:?}"
        );
        assert!(messages[1].contains("property X has no value"), "{messages:?}");
        assert!(messages[2].contains("ends inside a game tree"), "{messages:?}");
        let truncated = parse("(;C[never closed");
        assert_eq!(truncated.problems[0].column, 4);
        assert!(parse("").problems[0].message.starts_with("no game tree"));
    }

    #[test]
    fn deep_nesting_needs_no_deep_stack() {
        let depth = 200_000;
        let text = format!("(;GM[1]{}{})", "(;B[aa]".repeat(depth), ")".repeat(depth));
        let parsed = parse(&text);
        assert!(parsed.problems.is_empty());
        assert_eq!(parsed.trees[0].main_line().len(), depth + 1);
    }
}
