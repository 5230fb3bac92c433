//! Game trees as read: nodes of properties in file order, values as written (escapes kept).

use std::fmt;

/// Something wrong in a file, where it is: `line` and `column` count from 1 (columns in
/// characters); `0, 0` for a tree made in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Problem {
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Problem {
        Problem {
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for Problem {}

/// One property value as written between the brackets (escapes and soft line breaks kept, so
/// writing it back is exact), and where its `[` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    pub raw: String,
    pub line: usize,
    pub column: usize,
}

impl Value {
    /// A value made in memory from plain text: `\` and `]` are escaped.
    pub fn from_text(text: &str) -> Value {
        Value {
            raw: escape(text),
            line: 0,
            column: 0,
        }
    }

    /// The value as Text (FF[4]): escapes resolved, soft line breaks (`\` then a line break)
    /// removed, line breaks as `\n`, other white space as a space.
    pub fn text(&self) -> String {
        unescape(&self.raw)
    }
}

/// A property: its identifier (capital letters only: FF[1]-FF[3] long names such as `AddBlack`
/// are read as `AB`) and its values in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    pub ident: String,
    pub values: Vec<Value>,
    pub line: usize,
    pub column: usize,
}

impl Property {
    pub fn new(ident: &str, values: &[&str]) -> Property {
        Property {
            ident: ident.to_string(),
            values: values.iter().map(|v| Value::from_text(v)).collect(),
            line: 0,
            column: 0,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub properties: Vec<Property>,
    pub parent: Option<usize>,
    /// Indices into the tree's nodes; the first child continues the main line.
    pub children: Vec<usize>,
    /// Where the node's `;` is.
    pub line: usize,
    pub column: usize,
}

impl Node {
    pub fn get(&self, ident: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.ident == ident)
    }

    /// The first value of `ident` as Text, if the node has it.
    pub fn text(&self, ident: &str) -> Option<String> {
        self.get(ident).and_then(|p| p.values.first()).map(Value::text)
    }
}

/// One game: its nodes in an arena, the root first. Children refer to nodes by index, so no
/// operation on a tree recurses on its depth.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameTree {
    pub nodes: Vec<Node>,
    /// Where the tree's `(` is.
    pub line: usize,
    pub column: usize,
}

impl GameTree {
    /// A tree with only a root node holding `properties`.
    pub fn with_root(properties: Vec<Property>) -> GameTree {
        GameTree {
            nodes: vec![Node {
                properties,
                ..Node::default()
            }],
            line: 0,
            column: 0,
        }
    }

    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    pub(crate) fn start(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    /// Adds a node under `parent` and returns its index.
    pub fn add_child(&mut self, parent: usize, properties: Vec<Property>) -> usize {
        let index = self.nodes.len();
        self.nodes.push(Node {
            properties,
            parent: Some(parent),
            ..Node::default()
        });
        self.nodes[parent].children.push(index);
        index
    }

    /// The main line: the root, then each node's first child.
    pub fn main_line(&self) -> Vec<usize> {
        let mut line = Vec::new();
        let mut at = (!self.nodes.is_empty()).then_some(0);
        while let Some(index) = at {
            line.push(index);
            at = self.nodes[index].children.first().copied();
        }
        line
    }

    /// The nodes from the root to `index`, both included.
    pub fn path_to(&self, index: usize) -> Vec<usize> {
        let mut path = vec![index];
        let mut at = index;
        while let Some(parent) = self.nodes[at].parent {
            path.push(parent);
            at = parent;
        }
        path.reverse();
        path
    }
}

/// Escapes text for a property value: `\` and `]` get a backslash.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch == '\\' || ch == ']' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// Resolves a raw value as Text: see [`Value::text`].
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => match chars.next() {
                // A soft line break: `\` then a line break (any of \n, \r, \r\n, \n\r).
                Some(first @ ('\n' | '\r')) => {
                    let other = if first == '\n' { '\r' } else { '\n' };
                    if chars.peek() == Some(&other) {
                        chars.next();
                    }
                }
                Some(next) => out.push(next),
                None => {}
            },
            '\r' | '\n' => {
                let other = if ch == '\n' { '\r' } else { '\n' };
                if chars.peek() == Some(&other) {
                    chars.next();
                }
                out.push('\n');
            }
            ch if ch.is_whitespace() => out.push(' '),
            ch => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_values_resolve_escapes_and_soft_line_breaks() {
        assert_eq!(unescape(r"a\]b\\c\:d"), r"a]b\c:d");
        assert_eq!(unescape("one\\\ntwo"), "onetwo");
        assert_eq!(unescape("one\\\r\ntwo"), "onetwo");
        assert_eq!(unescape("one\r\ntwo\tthree"), "one\ntwo three");
        assert_eq!(unescape(&escape("x]y\\z")), "x]y\\z");
    }
}
