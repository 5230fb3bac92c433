//! Game records for replay tests and benchmarks (`random-9x9.txt`, `random-19x19.txt`): line 1
//! is `N G`; then G lines of moves (point index `r * N + c`, row 0 at the top, `-1` a pass; black
//! first, alternating); then G lines of final boards, `N * N` digits `0` empty, `1` black, `2`
//! white, in the same point order.
//!
//! The records are read from the folder in `GOKATA_CORPUS` when it is set, else from the
//! repository's own `src/testkit/data/corpus`, which [`generate`] made (see its README.md).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gokata_engine::{default_max_moves, Board, Color, Game, GoError, Point, Rng};

/// How one file of the in-repository corpus is made: `generate(size, games, seed)`.
#[derive(Clone, Copy, Debug)]
pub struct Recipe {
    pub name: &'static str,
    pub size: usize,
    pub games: usize,
    pub seed: u64,
}

impl Recipe {
    /// The file's text, as [`generate`] makes it.
    pub fn generate(&self) -> Result<String, String> {
        generate(self.size, self.games, self.seed)
    }
}

/// The files the tests and benchmarks replay, and how `data/corpus` made them (the game
/// counts of the shared corpus the figures in README.md were first measured on).
pub const RECIPES: [Recipe; 2] = [
    Recipe {
        name: "random-9x9.txt",
        size: 9,
        games: 90,
        seed: 9,
    },
    Recipe {
        name: "random-19x19.txt",
        size: 19,
        games: 23,
        seed: 19,
    },
];

/// Larger files of new games (`make_corpus FOLDER --fresh`), for running the anchors' script on
/// games that no engine's branch predictor can learn in a benchmark's few seconds: every
/// engine then replays and checks as it would on games it has not seen (README.md, Speed).
pub const FRESH_RECIPES: [Recipe; 2] = [
    Recipe {
        name: "random-9x9.txt",
        size: 9,
        games: 300,
        seed: 12345,
    },
    Recipe {
        name: "random-19x19.txt",
        size: 19,
        games: 100,
        seed: 4321,
    },
];

/// One recorded game: its moves and its final board.
#[derive(Clone, Debug)]
pub struct RecordedGame {
    /// `Some((row, col))` for a move, `None` for a pass.
    pub moves: Vec<Option<(usize, usize)>>,
    /// The final board, row by row from the top: 0 empty, 1 black, 2 white.
    pub final_board: Vec<u8>,
}

/// Plays `moves` (`Some((row, col))` for a move, `None` for a pass) on a new `size` x `size`
/// game: the replay that the benchmarks time and the corpus tests check.
pub fn replay(size: usize, moves: &[Option<(usize, usize)>]) -> Result<Game, GoError> {
    let mut game = Game::new(size, size)?;
    for m in moves {
        match *m {
            Some((row, col)) => game.play(game.board().point(row, col))?,
            None => game.pass(),
        }
    }
    Ok(game)
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
        if count == 0 {
            return Err("the corpus has no games".into());
        }
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

    /// Reads `name` from [`corpus_dir`]. A missing file, an unreadable one and one without
    /// games are all errors naming the file.
    pub fn load(name: &str) -> Result<Corpus, String> {
        let path = corpus_dir().join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the corpus file {}: {e}", path.display()))?;
        Corpus::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn move_count(&self) -> usize {
        self.games.iter().map(|g| g.moves.len()).sum()
    }

    /// The same games seen through symmetry `k` of the square board (taken modulo
    /// [`SYMMETRIES`]: 0 leaves them as they are), final boards included.
    ///
    /// The benchmarks replay the corpus under each symmetry in turn. Replayed over and over
    /// unchanged, a corpus of this size is learnt by the processor's branch predictor: the
    /// same ten thousand moves in the same order become predictable, and the figure then
    /// measures that memory, which a stray interrupt wipes, rather than the board (see
    /// README.md, Speed). The turned games take the same work and are new to the predictor.
    pub fn turned(&self, k: usize) -> Corpus {
        let size = self.size;
        let turn = |(row, col)| turn_point(row, col, size, k);
        let games = self
            .games
            .iter()
            .map(|game| {
                let mut final_board = vec![0; game.final_board.len()];
                for (i, &digit) in game.final_board.iter().enumerate() {
                    let (row, col) = turn((i / size, i % size));
                    final_board[row * size + col] = digit;
                }
                RecordedGame {
                    moves: game.moves.iter().map(|m| m.map(turn)).collect(),
                    final_board,
                }
            })
            .collect();
        Corpus { size, games }
    }

    /// The position before every tenth turn of every game (turns 0, 10, 20, ...), with the
    /// side to move, as the anchors' drivers sample them: what the legality benchmarks check
    /// every empty point of.
    pub fn sampled_positions(&self) -> Result<Vec<(Board, Color)>, GoError> {
        let mut positions = Vec::new();
        for recorded in &self.games {
            let mut game = Game::new(self.size, self.size)?;
            for (turn, m) in recorded.moves.iter().enumerate() {
                if turn % 10 == 0 {
                    positions.push((game.board().clone(), game.to_move()));
                }
                match *m {
                    Some((row, col)) => game.play(game.board().point(row, col))?,
                    None => game.pass(),
                }
            }
        }
        Ok(positions)
    }
}

/// The empty points of `board` (square) in the order symmetry `k` reads them: row by row of
/// the turned board. The legality benchmarks take the eight orders in turn, for the reason
/// given at [`Corpus::turned`].
pub fn empty_points_turned(board: &Board, k: usize) -> Vec<Point> {
    let size = board.width();
    let mut empties = board.empty_points().to_vec();
    empties.sort_by_key(|&p| {
        let (row, col) = board.row_col(p);
        let (row, col) = turn_point(row, col, size, k);
        row * size + col
    });
    empties
}

/// For each symmetry `k` (the outer index), each position's empty points in the order `k`
/// reads them ([`empty_points_turned`]): the eight orders in which the legality benchmarks
/// check the same points.
pub fn check_orders(positions: &[(Board, Color)]) -> Vec<Vec<Vec<Point>>> {
    (0..SYMMETRIES)
        .map(|k| {
            positions
                .iter()
                .map(|(board, _)| empty_points_turned(board, k))
                .collect()
        })
        .collect()
}

/// The symmetries of a square board: four rotations, each also mirrored.
pub const SYMMETRIES: usize = 8;

/// Where symmetry `k` (modulo [`SYMMETRIES`]) takes the point `(row, col)` of a `size` x `size`
/// board (`row` and `col` below `size`): a mirror image when bit 2 of `k` is set, then `k % 4`
/// quarter turns.
pub fn turn_point(row: usize, col: usize, size: usize, k: usize) -> (usize, usize) {
    let last = size - 1;
    let (row, col) = if k & 4 != 0 { (row, last - col) } else { (row, col) };
    match k & 3 {
        0 => (row, col),
        1 => (col, last - row),
        2 => (last - row, last - col),
        _ => (last - col, row),
    }
}

/// The folder the corpus is read from: `$GOKATA_CORPUS` when set and not empty, else
/// [`in_repo_corpus_dir`].
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("GOKATA_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => in_repo_corpus_dir(),
    }
}

/// The repository's own corpus, `src/testkit/data/corpus`, made by [`generate`].
pub fn in_repo_corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/corpus")
}

/// `games` seeded random games on a `size` x `size` board, as corpus text. Each move is
/// uniformly random among the moves that are legal (no suicide), do not fill the mover's own
/// simple eye (as in light playouts) and do not repeat any earlier whole-board position of the
/// game, so every move is legal under simple ko and positional superko alike; with none left,
/// the player passes. A game ends at two passes in a row or after three turns per point. The
/// final boards are the engine's. Candidates are taken in point order, so the result depends
/// only on the rules, `seed` and [`Rng`].
pub fn generate(size: usize, games: usize, seed: u64) -> Result<String, String> {
    let empty = Board::new(size, size).map_err(|e| e.to_string())?;
    let max_turns = default_max_moves(&empty) as usize;
    let mut rng = Rng::new(seed);
    let (mut move_lines, mut board_lines) = (Vec::new(), Vec::new());
    for _ in 0..games {
        let mut board = empty.clone();
        let mut to_move = Color::Black;
        let mut seen: HashSet<Vec<u8>> = HashSet::from([digits(&board)]);
        let mut turns: Vec<i64> = Vec::new();
        while turns.len() < max_turns && !turns.ends_with(&[-1, -1]) {
            let mut candidates: Vec<_> = board
                .legal_moves(to_move)
                .filter(|&p| !board.is_simple_eye(p, to_move))
                .collect();
            let mut chosen = None;
            while !candidates.is_empty() {
                let p = candidates.swap_remove(rng.below(candidates.len()));
                let record = board.play_legal(p, to_move);
                if seen.insert(digits(&board)) {
                    chosen = Some(p);
                    break;
                }
                board.undo(record);
            }
            turns.push(match chosen {
                Some(p) => {
                    let (row, col) = board.row_col(p);
                    (row * size + col) as i64
                }
                None => {
                    board.pass(to_move);
                    -1
                }
            });
            to_move = to_move.opponent();
        }
        move_lines.push(turns.iter().map(i64::to_string).collect::<Vec<_>>().join(" "));
        board_lines.push(
            digits(&board)
                .iter()
                .map(|d| char::from(b'0' + d))
                .collect::<String>(),
        );
    }
    let mut text = format!("{size} {games}\n");
    for line in move_lines.iter().chain(&board_lines) {
        text.push_str(line);
        text.push('\n');
    }
    Ok(text)
}

/// The board's points row by row from the top: 0 empty, 1 black, 2 white.
pub fn digits(board: &Board) -> Vec<u8> {
    board
        .points()
        .map(|p| board.stone(p).map_or(0, |c| c as u8))
        .collect()
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
