//! The engine's error type.

use std::fmt;

use thiserror::Error;

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The point already holds a stone.
    Occupied,
    /// The stone's own chain would have no liberty after captures.
    Suicide,
    /// The move would recreate the position as it was before the last turn (simple ko: only
    /// the immediate retake of a single stone can, and a pass, being a turn, lifts the ban).
    Ko,
}

impl IllegalReason {
    /// The short name used by the Python API: `"occupied"`, `"suicide"`, `"ko"`.
    pub fn name(self) -> &'static str {
        match self {
            IllegalReason::Occupied => "occupied",
            IllegalReason::Suicide => "suicide",
            IllegalReason::Ko => "ko",
        }
    }

    fn explanation(self) -> &'static str {
        match self {
            IllegalReason::Occupied => "the point is occupied",
            IllegalReason::Suicide => "suicide (the stone would have no liberty)",
            IllegalReason::Ko => "ko (it would recreate the position as it was before the last turn)",
        }
    }
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.explanation())
    }
}

/// Every way a request to the engine can fail. Nothing is changed when one is returned.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GoError {
    #[error("board size {height}x{width} is out of range: height and width must each be 1 to 25")]
    BoardSize { height: i64, width: i64 },

    #[error("invalid coordinate {text:?}: {problem}")]
    Coordinate { text: String, problem: String },

    #[error("coordinate {text:?} is off the board: {problem}")]
    OffBoard { text: String, problem: String },

    #[error("illegal move {coord} for {color}: {reason}")]
    IllegalMove {
        coord: String,
        color: &'static str,
        reason: IllegalReason,
    },

    #[error("invalid colour {0:?}: expected black/white, b/w or x/o")]
    Color(String),

    #[error("handicap_stones({stones}) refused: {problem}")]
    Handicap { stones: i64, problem: String },

    #[error("rollback({requested}) refused: {problem}")]
    Rollback { requested: i64, problem: String },

    #[error("invalid position: {0}")]
    Position(String),

    #[error("malformed puzzle input: {0}")]
    PuzzleInput(String),
}
