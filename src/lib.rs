//! gokata: a fast, exact Go rules engine ([`engine`]) and its Python binding (`python`,
//! built only with the `python` feature), the game server (`server`, with the `server` feature), and a batched environment for
//! reinforcement learning ([`env`]).

pub mod bot;
pub mod corpus;
pub mod engine;
pub mod env;
pub mod gtp;
pub mod picture;
pub mod puzzle;
#[cfg(feature = "server")]
pub mod server;
pub mod sgf;

#[cfg(feature = "python")]
mod python;
