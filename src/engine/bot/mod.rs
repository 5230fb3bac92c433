//! A computer player: Monte-Carlo tree search over light playouts, with RAVE and michi's
//! priors, one tree for all threads (tree parallelism with virtual loss) kept between moves. Pure Rust, no Python.
//!
//! - [`playout`]: the playouts, light moves after a capture-or-escape rule.
//! - [`patterns`]: MoGo's 3x3 patterns, a prior of the tree's moves.
//! - [`priors`]: a new node's children and their prior knowledge.
//! - [`tree`]: the nodes and their statistics.
//! - [`search`]: one thread's simulations.
//! - [`threads`]: the trees of all threads, reused between moves, and their merged answer.
//! - [`status`]: which stones are dead at the end, by playouts.

mod patterns;
mod playout;
mod priors;
mod search;
mod status;
mod threads;
mod tree;

use std::time::Duration;

pub use playout::PASS;
pub use status::seki_stones;
pub use status::{dead_stones, score_without};
pub use threads::{Candidate, Report};

use crate::{area_score, Game, Point};
use threads::Forest;

/// How long the bot thinks about a move: until the first limit given is reached (with
/// neither, a single simulation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// Simulations in all threads together.
    pub playouts: Option<u64>,
    pub time: Option<Duration>,
}

impl Budget {
    pub fn playouts(count: u64) -> Budget {
        Budget {
            playouts: Some(count),
            time: None,
        }
    }

    pub fn time(time: Duration) -> Budget {
        Budget {
            playouts: None,
            time: Some(time),
        }
    }

    /// This budget with its time cut to at most `cap`.
    pub fn capped(self, cap: Duration) -> Budget {
        Budget {
            time: Some(self.time.map_or(cap, |time| time.min(cap))),
            ..self
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Each move's, unless the time control asks for less.
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
    /// One tree for all threads (tree parallelism), else one a thread (root parallelism).
    shared_tree: bool,
    forest: Forest,
}

impl Bot {
    /// A bot whose threads share one tree.
    pub fn new(settings: Settings) -> Bot {
        Bot::with_trees(settings, true)
    }

    /// A bot whose threads each grow a tree of their own, summed at the root.
    pub fn with_root_parallelism(settings: Settings) -> Bot {
        Bot::with_trees(settings, false)
    }

    fn with_trees(settings: Settings, shared_tree: bool) -> Bot {
        Bot {
            settings,
            shared_tree,
            forest: Forest::new(settings.threads, shared_tree, settings.seed),
        }
    }

    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The move for the side to move in `game` (the game is not changed), searching for
    /// `budget`, with the candidates it chose from (empty when it passed without a search).
    /// It passes after a pass when that wins by area with every stone counted alive and no
    /// opponent stone is left that it judges dead (so that a referee or an opponent judging
    /// the dead stones differently cannot turn the result). In `cleanup` mode (KGS's
    /// `kgs-genmove_cleanup`) it never resigns. `stop` is asked every few milliseconds whether
    /// to cut the search short.
    pub fn genmove(
        &mut self,
        game: &Game,
        komi: f64,
        budget: Budget,
        cleanup: bool,
        stop: &mut dyn FnMut() -> bool,
    ) -> (Decision, Vec<Candidate>) {
        self.genmove_reporting(game, komi, budget, cleanup, stop, None)
    }

    /// [`Bot::genmove`], and `report`, if given, gets the candidates while it searches.
    pub fn genmove_reporting(
        &mut self,
        game: &Game,
        komi: f64,
        budget: Budget,
        cleanup: bool,
        stop: &mut dyn FnMut() -> bool,
        report: Option<Report<'_>>,
    ) -> (Decision, Vec<Candidate>) {
        let to_move = game.to_move();
        let wins_by_passing =
            game.last_turn_was_pass() && area_score(game.board(), komi).winner() == Some(to_move);
        let cleaned_up = || {
            dead_stones(game, self.settings.seed)
                .iter()
                .all(|&p| game.board().stone(p) == Some(to_move))
        };
        if wins_by_passing && cleaned_up() {
            return (Decision::Pass, Vec::new());
        }
        let candidates = self.forest.search(game, komi, budget, stop, report);
        let decision = match candidates.first() {
            None => Decision::Pass,
            Some(best) if best.mv == PASS => Decision::Pass,
            Some(best)
                if self.settings.resign
                    && !cleanup
                    && best.visits >= RESIGN_MIN_VISITS
                    && best.win_rate < RESIGN_BELOW =>
            {
                Decision::Resign
            }
            Some(best) => Decision::Play(best.mv),
        };
        (decision, candidates)
    }

    /// Searches for `budget` more and returns the candidate moves, most visited first.
    pub fn analyze(
        &mut self,
        game: &Game,
        komi: f64,
        budget: Budget,
        stop: &mut dyn FnMut() -> bool,
    ) -> Vec<Candidate> {
        self.forest.search(game, komi, budget, stop, None)
    }

    /// Forgets the trees (after a change the bot cannot follow, or to start afresh).
    pub fn clear(&mut self) {
        self.forest = Forest::new(self.settings.threads, self.shared_tree, self.settings.seed);
    }
}

/// A board drawn as text, a row a line (`.`, `x`, `o`), for the tests of the bot's parts.
#[cfg(test)]
fn board_from_text(rows: &str) -> crate::Board {
    let rows: Vec<Vec<char>> = rows.lines().map(|line| line.chars().collect()).collect();
    crate::parse_board(&rows).expect("a valid board")
}
