//! The Go meaning of a game tree (GM[1]): board size, points, setup stones, whose turn, and the
//! replay of a line of play with the engine's rules.
//!
//! A replay follows the SGF specification: setup (`AB`, `AW`, `AE`) overwrites points in any
//! node without captures, `PL` says who moves, `B` and `W` play. A move the rules forbid
//! (occupied point, suicide, ko) is a problem that names the move number; in lenient mode it is
//! still carried out as the specification says ([`Game::play_regardless`]), a turn on record
//! like any other.
//!
//! The engine's game starts at the last point the record left its turns: setup stones after
//! the first move, or a pass or a `PL` out of turn. Until such a point, and so for every game
//! gokata writes, its history holds every move.

use super::tree::{GameTree, Node, Problem, Value};
use crate::grid::{grid_of, remove_dead_chains, Grid};
use crate::{coord, Color, Game, GameRecord, MAX_SIDE};

/// A line of play replayed: the game at its last node, the problems met (rules broken, points
/// off the board), how many moves (`B` and `W`, passes included) the line holds, and where
/// the game's history stood after each node of the line.
#[derive(Clone)]
pub struct Replay {
    pub game: Game,
    pub problems: Vec<Problem>,
    pub moves: usize,
    pub marks: Vec<Mark>,
}

/// Where a replay's game stood after a node: how many times its history had restarted (see the
/// module's notes), and how many turns it then held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub restarts: usize,
    pub turns: usize,
}

/// The private root property that carries a ko ban at the start (`KOBAN[cd:B]`: black may not
/// play at `cd` first), which a position set up with `Go.from_board(..., previous=...)` has.
pub const KO_BAN: &str = "KOBAN";

/// `(height, width)` from the root's `SZ` (19 without one). `SZ[w:h]` is width (columns) then
/// height (rows). A malformed `SZ` is a problem and read as 19 in lenient mode; a board past
/// 25 either way, or smaller than 1, is an error.
pub fn board_size(root: &Node, strict: bool, problems: &mut Vec<Problem>) -> Result<(usize, usize), Problem> {
    let Some(property) = root.get("SZ") else {
        return Ok((19, 19));
    };
    let value = &property.values[0];
    let text = value.text();
    let text = text.trim();
    let number = |s: &str| s.trim().parse::<u64>().ok();
    let (width, height) = match text.split_once(':') {
        None => (number(text), number(text)),
        Some((w, h)) => (number(w), number(h)),
    };
    let (Some(width), Some(height)) = (width, height) else {
        let problem = at(value, format!("SZ[{text}] is not a board size: read as 19x19"));
        if strict {
            return Err(problem);
        }
        problems.push(problem);
        return Ok((19, 19));
    };
    if width > MAX_SIDE as u64 || height > MAX_SIDE as u64 || width == 0 || height == 0 {
        return Err(at(
            value,
            format!(
                "board size {width}x{height} (SZ[{text}], {width} columns and {height} rows) is out of range: \
                 gokata plays boards 1 to 25 wide and tall"
            ),
        ));
    }
    if text.contains(':') && width == height {
        let problem = at(
            value,
            format!("SZ[{text}]: a square board is written SZ[{width}]"),
        );
        if strict {
            return Err(problem);
        }
        problems.push(problem);
    }
    Ok((height as usize, width as usize))
}

fn at(value: &Value, message: String) -> Problem {
    Problem::new(value.line, value.column, message)
}

/// `(row, col)` of a point value on a board of `height` x `width` (`aa` the top left corner).
/// White space around it (a line break before `]`, say) is not part of it.
fn point(text: &str, height: usize, width: usize) -> Result<(usize, usize), String> {
    let text = text.trim();
    let letter = |b: u8| match b {
        b'a'..=b'z' => Some(usize::from(b - b'a')),
        b'A'..=b'Z' => Some(usize::from(b - b'A') + 26),
        _ => None,
    };
    match text.as_bytes() {
        &[c, r] => match (letter(c), letter(r)) {
            (Some(col), Some(row)) if col < width && row < height => Ok((row, col)),
            (Some(_), Some(_)) => Err(format!("{text} is off the {width}x{height} board")),
            _ => Err(format!("{text:?} is not a point (two letters, like 'cd')")),
        },
        _ => Err(format!("{text:?} is not a point (two letters, like 'cd')")),
    }
}

/// The points of a list value: one point, or a rectangle `aa:cc` (compressed point list).
fn point_list(text: &str, height: usize, width: usize) -> Result<Vec<(usize, usize)>, String> {
    match text.split_once(':') {
        None => Ok(vec![point(text, height, width)?]),
        Some((a, b)) => {
            let (r1, c1) = point(a, height, width)?;
            let (r2, c2) = point(b, height, width)?;
            let rows = r1.min(r2)..=r1.max(r2);
            Ok(rows
                .flat_map(|r| (c1.min(c2)..=c1.max(c2)).map(move |c| (r, c)))
                .collect())
        }
    }
}

/// A move value: `None` for a pass (`[]`, and `[tt]` on boards up to 19x19).
fn move_point(text: &str, height: usize, width: usize) -> Result<Option<(usize, usize)>, String> {
    let text = text.trim();
    if text.is_empty() || (text == "tt" && height <= 19 && width <= 19) {
        return Ok(None);
    }
    point(text, height, width).map(Some)
}

fn color_value(text: &str) -> Option<Color> {
    match text.trim().chars().next()?.to_ascii_uppercase() {
        'B' => Some(Color::Black),
        'W' => Some(Color::White),
        _ => None,
    }
}

fn sgf_color(color: Color) -> &'static str {
    match color {
        Color::Black => "B",
        Color::White => "W",
    }
}

/// The replay's state: the position where the engine's game starts, and the game since then.
struct Line {
    start: Grid,
    start_to_move: Color,
    start_ko: Option<(usize, usize, Color)>,
    handicap: bool,
    game: Game,
    strict: bool,
    problems: Vec<Problem>,
    restarts: usize,
}

impl Line {
    fn report(&mut self, problem: Problem) -> Result<(), Problem> {
        if self.strict {
            return Err(problem);
        }
        self.problems.push(problem);
        Ok(())
    }

    /// The engine's game for the current start, with no turns.
    fn rebuild(&mut self, line: usize, column: usize) -> Result<(), Problem> {
        let record = GameRecord {
            start: self.start.clone(),
            start_to_move: self.start_to_move,
            start_ko: self.start_ko,
            handicap_placed: self.handicap,
            turns: Vec::new(),
        };
        self.game = record
            .replay()
            .map_err(|e| Problem::new(line, column, e.to_string()))?;
        Ok(())
    }

    fn grid(&self) -> Grid {
        grid_of(self.game.board())
    }

    /// A new start from the current position (the engine cannot undo past it).
    fn restart(
        &mut self,
        grid: Grid,
        to_move: Color,
        ko: Option<(usize, usize, Color)>,
        line: usize,
        column: usize,
    ) -> Result<(), Problem> {
        self.start = grid;
        self.start_to_move = to_move;
        self.start_ko = ko;
        self.restarts += 1;
        self.rebuild(line, column)
    }

    fn current_ko(&self) -> Option<(usize, usize, Color)> {
        let board = self.game.board();
        [Color::Black, Color::White].into_iter().find_map(|color| {
            let (r, c) = board.row_col(board.ko_point(color)?);
            Some((r, c, color))
        })
    }
}

/// Replays the line from the root to `node` (an index into `tree.nodes`). Strict: the first
/// problem is the error. Lenient: only a board size out of range is an error.
pub fn replay(tree: &GameTree, node: usize, strict: bool) -> Result<Replay, Problem> {
    let root = tree.root();
    let mut problems = Vec::new();
    if let Some(gm) = root.get("GM") {
        let text = gm.values[0].text();
        if text.trim() != "1" {
            let problem = at(&gm.values[0], format!("GM[{text}] is not Go (GM[1]): read as Go"));
            if strict {
                return Err(problem);
            }
            problems.push(problem);
        }
    }
    let (height, width) = board_size(root, strict, &mut problems)?;
    let path = tree.path_to(node);
    let first_player = first_player(tree, &path, height, width);
    let empty: Grid = vec![vec![None; width]; height];
    let mut line = Line {
        game: Game::new(height, width).map_err(|e| Problem::new(root.line, root.column, e.to_string()))?,
        start: empty,
        start_to_move: first_player,
        start_ko: None,
        handicap: false,
        strict,
        problems,
        restarts: 0,
    };
    line.rebuild(root.line, root.column)?;
    let mut moves = 0;
    let mut marks = Vec::with_capacity(path.len());
    for &index in &path {
        replay_node(
            &mut line,
            &tree.nodes[index],
            index == 0,
            &mut moves,
            height,
            width,
        )?;
        marks.push(Mark {
            restarts: line.restarts,
            turns: line.game.turns_played(),
        });
    }
    Ok(Replay {
        game: line.game,
        problems: line.problems,
        moves,
        marks,
    })
}

/// Who moves first when no `PL` says: the colour of the first move on the path (or, past its
/// end, on the main line below it); with no move at all, white after a handicap of 2 or more
/// (the SGF convention), else black.
fn first_player(tree: &GameTree, path: &[usize], height: usize, width: usize) -> Color {
    let mut below = Vec::new();
    if let Some(&last) = path.last() {
        let mut at = tree.nodes[last].children.first().copied();
        while let Some(index) = at {
            below.push(index);
            at = tree.nodes[index].children.first().copied();
        }
    }
    for &index in path.iter().chain(&below) {
        let node = &tree.nodes[index];
        for property in &node.properties {
            let color = match property.ident.as_str() {
                "B" => Color::Black,
                "W" => Color::White,
                _ => continue,
            };
            if property
                .values
                .iter()
                .any(|v| move_point(&v.text(), height, width).is_ok())
            {
                return color;
            }
        }
    }
    let handicap = tree
        .root()
        .text("HA")
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or(0);
    if handicap >= 2 {
        Color::White
    } else {
        Color::Black
    }
}

fn replay_node(
    line: &mut Line,
    node: &Node,
    is_root: bool,
    moves: &mut usize,
    height: usize,
    width: usize,
) -> Result<(), Problem> {
    let has = |ident: &str| node.get(ident).is_some();
    let setup = has("AB") || has("AW") || has("AE");
    if (setup || has("PL")) && (has("B") || has("W")) {
        line.report(Problem::new(
            node.line,
            node.column,
            "setup (AB, AW, AE, PL) and a move in one node: the setup is done first",
        ))?;
    }
    if setup {
        let mut grid = line.grid();
        for property in &node.properties {
            let stone = match property.ident.as_str() {
                "AB" => Some(Color::Black),
                "AW" => Some(Color::White),
                "AE" => None,
                _ => continue,
            };
            for value in &property.values {
                match point_list(&value.text(), height, width) {
                    Ok(points) => {
                        for (r, c) in points {
                            grid[r][c] = stone;
                        }
                    }
                    Err(problem) => line.report(at(
                        value,
                        format!("{}[{}]: {problem}: ignored", property.ident, value.raw),
                    ))?,
                }
            }
        }
        for (r, c, color) in remove_dead_chains(&mut grid) {
            line.report(Problem::new(
                node.line,
                node.column,
                format!(
                    "setup leaves the {color} chain at {} without a liberty: removed",
                    coord::format(r, c, height)
                ),
            ))?;
        }
        if line.game.turns_played() == 0 {
            line.start = grid;
            line.start_ko = None;
            line.rebuild(node.line, node.column)?;
        } else {
            let to_move = line.game.to_move();
            line.restart(grid, to_move, None, node.line, node.column)?;
        }
    }
    if is_root {
        if let Some(property) = node.get("HA") {
            let value = &property.values[0];
            match value.text().trim().parse::<i64>() {
                // Handicap stones are placed (the engine's flag) when HA comes with AB.
                Ok(stones) => line.handicap = stones >= 1 && has("AB"),
                Err(_) => line.report(at(value, format!("HA[{}] is not a number: ignored", value.raw)))?,
            }
            line.rebuild(node.line, node.column)?;
        }
        if let Some(property) = node.get(KO_BAN) {
            let value = &property.values[0];
            let text = value.text();
            let ban = text
                .split_once(':')
                .and_then(|(p, c)| Some((point(p, height, width).ok()?, color_value(c)?)));
            match ban {
                Some(((r, c), color)) => {
                    line.start_ko = Some((r, c, color));
                    line.rebuild(node.line, node.column)?;
                }
                None => line.report(at(
                    value,
                    format!("{KO_BAN}[{text}] is not a point and a colour: ignored"),
                ))?,
            }
        }
    }
    if let Some(property) = node.get("PL") {
        let value = &property.values[0];
        match color_value(&value.text()) {
            Some(color) if line.game.turns_played() == 0 => {
                line.start_to_move = color;
                line.rebuild(node.line, node.column)?;
            }
            Some(color) if color != line.game.to_move() => {
                let (grid, ko) = (line.grid(), line.current_ko());
                line.restart(grid, color, ko, node.line, node.column)?;
            }
            Some(_) => {}
            None => line.report(at(value, format!("PL[{}] is not B or W: ignored", value.raw)))?,
        }
    }
    for property in &node.properties {
        let color = match property.ident.as_str() {
            "B" => Color::Black,
            "W" => Color::White,
            _ => continue,
        };
        if property.values.len() > 1 {
            line.report(Problem::new(
                property.line,
                property.column,
                format!(
                    "{} has {} values: a move has one; each is played",
                    property.ident,
                    property.values.len()
                ),
            ))?;
        }
        for value in &property.values {
            *moves += 1;
            play(line, color, value, *moves, height, width)?;
        }
    }
    if has("B") && has("W") {
        line.report(Problem::new(
            node.line,
            node.column,
            "B and W in one node: both are played, in order",
        ))?;
    }
    Ok(())
}

fn play(
    line: &mut Line,
    color: Color,
    value: &Value,
    number: usize,
    height: usize,
    width: usize,
) -> Result<(), Problem> {
    let name = sgf_color(color);
    let text = value.text();
    let point = match move_point(&text, height, width) {
        Ok(point) => point,
        Err(problem) => {
            return line.report(at(
                value,
                format!("move {number} ({name}[{}]): {problem}: not played", value.raw),
            ));
        }
    };
    let Some((r, c)) = point else {
        if color != line.game.to_move() {
            let grid = line.grid();
            line.restart(grid, color, None, value.line, value.column)?;
        }
        line.game.pass();
        return Ok(());
    };
    let p = line.game.board().point(r, c);
    let Err(error) = line.game.check_move(color, p) else {
        line.game.play_as(color, p).expect("checked");
        return Ok(());
    };
    line.report(at(
        value,
        format!("move {number} ({name}[{}]): {error}", value.raw),
    ))?;
    // Lenient: carried out as the record says.
    line.game.play_regardless(color, p);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_and_lists() {
        assert_eq!(point("cd", 9, 9), Ok((3, 2)));
        assert!(point("jj", 9, 9).unwrap_err().contains("off the 9x9 board"));
        assert!(point("c", 9, 9).is_err());
        assert_eq!(
            point_list("aa:bb", 9, 9).unwrap(),
            [(0, 0), (0, 1), (1, 0), (1, 1)]
        );
        assert_eq!(point_list("bb:aa", 9, 9).unwrap().len(), 4);
        assert_eq!(move_point("tt", 19, 19), Ok(None));
        assert_eq!(move_point("tt", 25, 25), Ok(Some((19, 19))));
        assert_eq!(move_point("", 25, 25), Ok(None));
    }
}
