//! `gokata gtp`: the Go Text Protocol, version 2, for GUIs (Sabaki, GoGui, Lizzie) and other
//! engines, with the bot of [`crate::bot`] behind `genmove`. Pure Rust, no Python.
//!
//! - [`line`]: reading a command line and writing a reply.
//! - [`vertex`]: colours and vertices.
//! - [`engine`]: the state and the commands.
//! - [`clock`]: time control.
//! - [`handicap`]: where handicap stones go.
//! - [`sgf_io`]: `loadsgf` and `printsgf`.
//! - [`analyze`]: Leela Zero's analysis format.
//! - [`session`]: the loop over the input.

mod analyze;
mod clock;
mod engine;
mod handicap;
pub mod line;
mod session;
mod sgf_io;
pub mod vertex;

pub use engine::COMMANDS;
pub use session::{run, Ending};
