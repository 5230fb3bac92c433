//! The Go rules engine: pure Rust, no Python.

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
