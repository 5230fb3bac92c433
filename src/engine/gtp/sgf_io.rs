//! `loadsgf FILE [N]` and `printsgf`, through the crate's SGF reader and writer.

use super::line::quoted;
use crate::sgf::{self, GameInfo};
use crate::Game;

/// The game of an SGF file's first game tree, its main line played up to (not including)
/// move `move_number` (all of it without one), and its komi if it gives one. Lenient: what
/// can be read of a damaged file is read.
pub fn load(path: &str, move_number: Option<&str>) -> Result<(Game, Option<f64>), String> {
    let stop_before = match move_number {
        None => usize::MAX,
        Some(text) => match text.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(format!(
                    "move number must be a whole number from 1, not {}",
                    quoted(text)
                ))
            }
        },
    };
    let cannot = |problem: &dyn std::fmt::Display| format!("cannot load file {}: {problem}", quoted(path));
    let bytes = std::fs::read(path).map_err(|e| cannot(&e))?;
    let games = sgf::read_collection(&bytes, false).map_err(|p| cannot(&p.message))?;
    let tree = &games.first().ok_or_else(|| cannot(&"no game in it"))?.tree;
    let mut last = 0;
    let mut moves = 0;
    for &index in &tree.main_line() {
        let node = &tree.nodes[index];
        let is_move = node.get("B").is_some() || node.get("W").is_some();
        if is_move {
            if moves + 1 >= stop_before {
                break;
            }
            moves += 1;
        }
        last = index;
    }
    let replay = sgf::replay(tree, last, false).map_err(|p| cannot(&p.message))?;
    let komi = tree
        .root()
        .text("KM")
        .and_then(|k| k.trim().parse::<f64>().ok())
        .filter(|k| k.is_finite());
    Ok((replay.game, komi))
}

/// The game as an SGF file of one game, with its komi.
pub fn print(game: &Game, komi: f64) -> String {
    let info = GameInfo {
        komi: Some(komi),
        ..GameInfo::default()
    };
    sgf::write_game(&game.record(), &info).trim_end().to_string()
}
