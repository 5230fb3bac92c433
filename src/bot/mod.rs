//! A computer player: Monte-Carlo tree search over light playouts, with RAVE and michi's
//! priors, one tree per thread (root parallelism) kept between moves. Pure Rust, no Python.
//!
//! - [`playout`]: the playouts, light moves after a capture-or-escape rule.
//! - [`priors`]: a new node's children and their prior knowledge.
//! - [`tree`]: the nodes and their statistics.
//! - [`search`]: one thread's simulations.
//! - [`threads`]: the trees of all threads, reused between moves, and their merged answer.
//! - [`status`]: which stones are dead at the end, by playouts.

mod playout;
mod priors;
mod search;
mod status;
mod threads;
mod tree;

use std::time::Duration;

pub use playout::PASS;
pub use status::{dead_stones, score_without};
pub use threads::Candidate;

use crate::engine::{area_score, Game, Point};
use threads::Forest;

/// How long the bot thinks about a move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Simulations in all threads together.
    Playouts(u64),
    Time(Duration),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub budget: Budget,
    /// At least 1.
    pub threads: usize,
    pub seed: u64,
    /// Resign when the best move's win rate falls below [`RESIGN_BELOW`].
    pub resign: bool,
}

/// The win rate under which the bot resigns (when it may).
pub const RESIGN_BELOW: f64 = 0.08;
/// Simulations the best move needs before its win rate can make the bot resign.
const RESIGN_MIN_VISITS: u64 = 200;

/// What the bot does on its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Play(Point),
    Pass,
    Resign,
}

/// The bot: its settings and its search trees.
pub struct Bot {
    settings: Settings,
    forest: Forest,
}

impl Bot {
    pub fn new(settings: Settings) -> Bot {
        Bot {
            settings,
            forest: Forest::new(settings.threads.max(1), settings.seed),
        }
    }

    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The move for the side to move in `game` (the game is not changed). `stop` is asked
    /// every few milliseconds whether to cut the search short.
    pub fn genmove(&mut self, game: &Game, komi: f64, stop: &mut dyn FnMut() -> bool) -> Decision {
        let to_move = game.to_move();
        if game.last_turn_was_pass() && area_score(game.board(), komi).winner() == Some(to_move) {
            return Decision::Pass;
        }
        let candidates = self.forest.search(game, komi, self.settings.budget, stop);
        let Some(best) = candidates.first() else {
            return Decision::Pass;
        };
        if best.mv == PASS {
            return Decision::Pass;
        }
        if self.settings.resign && best.visits >= RESIGN_MIN_VISITS && best.win_rate < RESIGN_BELOW {
            return Decision::Resign;
        }
        Decision::Play(best.mv)
    }

    /// Searches for `budget` more and returns the candidate moves, most visited first.
    pub fn analyze(
        &mut self,
        game: &Game,
        komi: f64,
        budget: Budget,
        stop: &mut dyn FnMut() -> bool,
    ) -> Vec<Candidate> {
        self.forest.search(game, komi, budget, stop)
    }

    /// Forgets the trees (after a change the bot cannot follow, or to start afresh).
    pub fn clear(&mut self) {
        self.forest = Forest::new(self.settings.threads.max(1), self.settings.seed);
    }
}
