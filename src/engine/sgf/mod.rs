//! SGF (Smart Game Format, FF[4]) for Go: reading collections of game trees from bytes in any
//! encoding, replaying a line of play with the engine's rules, and writing games back.
//! Pure Rust, no Python.
//!
//! - [`decode`]: bytes to text: a byte-order mark, `CA[...]` (through `encoding_rs`), UTF-8,
//!   else a guess (`chardetng`).
//! - [`parse`]: text to game trees. A small hand-written parser with an explicit stack, so
//!   deeply nested variations cannot overflow the call stack, that keeps every property in the
//!   file's order and reads what it can of a damaged file, listing each problem with its line
//!   and column.
//! - [`go`]: the Go meaning of a tree: board size, points and point lists, setup stones, whose
//!   turn, handicap, and the replay of a line of play with the engine's rules.
//! - [`write`]: deterministic writing of trees and of engine games ([`write_game`]).
//! - [`record`]: what a game read from SGF keeps of the record, to write back with its turns.
//!
//! Reading is strict (the first problem is an error) or lenient (the problems come back with
//! what could be read): see [`read_collection`].

pub mod decode;
pub mod go;
pub mod parse;
mod record;
mod tree;
pub mod write;

pub use go::{board_size, replay, Mark, Replay};
pub use record::SgfRecord;
pub use tree::{GameTree, Node, Problem, Property, Value};
pub use write::{game_tree, write_collection, write_game, write_tree, GameInfo};

/// One game of a collection as read: its tree, the problems found in it (reading and replaying
/// its main line), and the encoding its file was read in.
#[derive(Clone, Debug)]
pub struct SgfGame {
    pub tree: GameTree,
    pub problems: Vec<Problem>,
    pub encoding: &'static str,
}

/// Reads every game of a collection from a file's bytes. Strict: the first problem, in file
/// order, is the error. Lenient: every game that could be read, each with its problems (those
/// outside any game go with the game they precede or follow). A file without any game tree is an
/// error either way in strict mode, and an empty list in lenient mode.
pub fn read_collection(data: &[u8], strict: bool) -> Result<Vec<SgfGame>, Problem> {
    let decoded = decode::decode(data);
    collect(&decoded.text, decoded.problems, decoded.encoding.name(), strict)
}

/// Like [`read_collection`] for text already decoded (`CA[...]` is then not used).
pub fn read_collection_text(text: &str, strict: bool) -> Result<Vec<SgfGame>, Problem> {
    collect(text, Vec::new(), "UTF-8", strict)
}

fn collect(
    text: &str,
    mut problems: Vec<Problem>,
    encoding: &'static str,
    strict: bool,
) -> Result<Vec<SgfGame>, Problem> {
    let parsed = parse::parse(text);
    problems.extend(parsed.problems);
    let mut games: Vec<SgfGame> = parsed
        .trees
        .into_iter()
        .map(|tree| SgfGame {
            tree,
            problems: Vec::new(),
            encoding,
        })
        .collect();
    // Each game's own problems: its size, its setup and the rules along its main line.
    for game in &mut games {
        let end = game.tree.main_line().last().copied().unwrap_or(0);
        match replay(&game.tree, end, false) {
            Ok(replayed) => game.problems.extend(replayed.problems),
            Err(problem) => game.problems.push(problem),
        }
    }
    // Problems of the file go with the game whose text they are in (or the one before them).
    for problem in problems {
        let at = (problem.line, problem.column);
        let index = games
            .iter()
            .rposition(|game| game.tree.start() <= at)
            .unwrap_or(0);
        if let Some(game) = games.get_mut(index) {
            game.problems.push(problem);
        } else if strict {
            return Err(problem);
        }
    }
    for game in &mut games {
        game.problems.sort_by_key(|p| (p.line, p.column));
    }
    if strict {
        let first = games
            .iter()
            .flat_map(|game| game.problems.first())
            .min_by_key(|p| (p.line, p.column));
        if let Some(problem) = first {
            return Err(problem.clone());
        }
        if games.is_empty() {
            return Err(Problem::new(
                1,
                1,
                "no game: an SGF file holds '(;' and a game tree",
            ));
        }
    }
    Ok(games)
}
