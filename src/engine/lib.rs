//! gokata's engine: the rules of Go (board, game, coordinates, scoring, playouts) and what is
//! built on them alone: SGF records ([`sgf`]), pictures ([`picture`]), the puzzle solver
//! ([`puzzle`]), the tree-search bot ([`bot`]), the GTP engine ([`gtp`]) and the batched
//! reinforcement-learning environment ([`env`]).
//!
//! Pure Rust: no Python, no async runtime and no database in this crate's dependency tree (the
//! server and the Python extension are crates of their own on top of it).

pub mod bot;
pub mod env;
pub mod gtp;
pub mod picture;
pub mod puzzle;
pub mod sgf;

mod board;
mod color;
pub mod coord;
mod error;
mod game;
pub mod grid;
mod handicap;
mod parallel;
mod playout;
mod position;
mod record;
mod render;
mod rng;
mod score;

pub use board::{Board, MoveRecord, Point, MAX_SIDE};
pub use color::Color;
pub use error::{GoError, IllegalReason};
pub use game::Game;
pub use handicap::handicap_points;
pub use parallel::{playout_rng, PlayoutPlan};
pub use playout::{
    default_max_moves, playout, playout_until, PlayoutResult, PlayoutSummary, STOP_CHECK_MOVES,
};
pub use position::{game_from_position, parse_board, ALPHABET_HELP};
pub use record::{GameRecord, TurnRecord};
pub use render::render;
pub use rng::Rng;
pub use score::{area_score, Score};
