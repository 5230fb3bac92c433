//! Reader for the shared game records (`random-9x9.txt`, `random-19x19.txt`): line 1 is
//! `N G`; then G lines of moves (point index `r * N + c`, row 0 at the top, `-1` a pass; black
//! first, alternating); then G lines of final boards, `N * N` digits `0` empty, `1` black, `2`
//! white, in the same point order.

use std::path::{Path, PathBuf};

/// One recorded game: its moves and its final board.
#[derive(Clone, Debug)]
pub struct RecordedGame {
    /// `Some((row, col))` for a move, `None` for a pass.
    pub moves: Vec<Option<(usize, usize)>>,
    /// The final board, row by row from the top: 0 empty, 1 black, 2 white.
    pub final_board: Vec<u8>,
}

/// A corpus of games on an `size` x `size` board.
#[derive(Clone, Debug)]
pub struct Corpus {
    pub size: usize,
    pub games: Vec<RecordedGame>,
}

impl Corpus {
    pub fn parse(text: &str) -> Result<Corpus, String> {
        let mut lines = text.lines();
        let header: Vec<usize> = lines
            .next()
            .ok_or("empty corpus")?
            .split_whitespace()
            .map(|n| n.parse().map_err(|e| format!("bad header: {e}")))
            .collect::<Result<_, _>>()?;
        let [size, count] = header[..] else {
            return Err("the header must be `N G`".into());
        };
        let move_lines: Vec<&str> = lines.by_ref().take(count).collect();
        let board_lines: Vec<&str> = lines.take(count).collect();
        if move_lines.len() != count || board_lines.len() != count {
            return Err(format!("expected {count} games and {count} final boards"));
        }
        let games = move_lines
            .iter()
            .zip(&board_lines)
            .map(|(moves, board)| parse_game(moves, board, size))
            .collect::<Result<_, _>>()?;
        Ok(Corpus { size, games })
    }

    /// Reads `name` from the corpus folder: `$GOKATA_CORPUS`, or `../shared/corpus` beside the
    /// project root.
    pub fn load(name: &str) -> Result<Corpus, String> {
        let path = corpus_dir().join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Corpus::parse(&text)
    }

    pub fn move_count(&self) -> usize {
        self.games.iter().map(|g| g.moves.len()).sum()
    }
}

/// Where the shared corpus lives.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("GOKATA_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    }
}

fn parse_game(moves: &str, board: &str, size: usize) -> Result<RecordedGame, String> {
    let moves = moves
        .split_whitespace()
        .map(|m| match m.parse::<i64>() {
            Ok(-1) => Ok(None),
            Ok(i) if (0..(size * size) as i64).contains(&i) => {
                Ok(Some((i as usize / size, i as usize % size)))
            }
            _ => Err(format!("bad move {m:?}")),
        })
        .collect::<Result<_, _>>()?;
    let final_board: Vec<u8> = board.trim().bytes().map(|b| b.wrapping_sub(b'0')).collect();
    if final_board.len() != size * size || final_board.iter().any(|&d| d > 2) {
        return Err(format!("bad final board {board:?}"));
    }
    Ok(RecordedGame { moves, final_board })
}
