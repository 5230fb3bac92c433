//! What an environment is asked for: board size, komi, history, step limit, rules and layout,
//! checked once when it is made.

use crate::MAX_SIDE;

/// Which rules the boards follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// The engine's: simple ko, no suicide, area score with komi; an illegal action is an
    /// error; the step limit truncates the game.
    Gokata,
    /// pgx 2.6.0's Go: a move that repeats an earlier position (positional superko) or an
    /// illegal action ends the game, lost by the player who made it; Tromp-Taylor score, a
    /// tie going to white; the step limit ends the game with the score.
    Pgx,
}

/// When a finished board starts its next game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Autoreset {
    /// At the step after the end, whose action is ignored (Gymnasium's default).
    NextStep,
    /// At the step that ends the game: its final observation is given apart.
    SameStep,
}

/// The order of an observation's axes for one board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `(size, size, planes)`, as pgx.
    Nhwc,
    /// `(planes, size, size)`, as PyTorch's convolutions take it.
    Nchw,
}

/// A checked configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub size: usize,
    pub komi: f64,
    pub history: usize,
    pub max_steps: usize,
    pub rules: Rules,
    pub autoreset: Autoreset,
    pub layout: Layout,
}

/// The most history positions an observation may hold.
pub const MAX_HISTORY: usize = 64;

impl Config {
    /// Checks every value; the error names the first bad one.
    pub fn new(
        size: usize,
        komi: f64,
        history: usize,
        max_steps: Option<usize>,
        rules: Rules,
        autoreset: Autoreset,
        layout: Layout,
    ) -> Result<Config, String> {
        if !(2..=MAX_SIDE).contains(&size) {
            return Err(format!("size must be 2 to {MAX_SIDE}, not {size}"));
        }
        if !komi.is_finite() {
            return Err(format!("komi must be a finite number, not {komi}"));
        }
        if !(1..=MAX_HISTORY).contains(&history) {
            return Err(format!("history must be 1 to {MAX_HISTORY}, not {history}"));
        }
        let max_steps = max_steps.unwrap_or(2 * size * size);
        if max_steps == 0 {
            return Err("max_steps must be at least 1, not 0".into());
        }
        Ok(Config {
            size,
            komi,
            history,
            max_steps,
            rules,
            autoreset,
            layout,
        })
    }

    /// Points on the board; also the number of the pass action.
    pub fn points(&self) -> usize {
        self.size * self.size
    }

    /// Actions: every point, then pass.
    pub fn actions(&self) -> usize {
        self.points() + 1
    }

    /// Planes of an observation: own and opponent stones for each history position, then colour.
    pub fn planes(&self) -> usize {
        2 * self.history + 1
    }

    /// Bytes of one board's observation.
    pub fn observation_len(&self) -> usize {
        self.points() * self.planes()
    }
}
