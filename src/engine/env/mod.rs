//! A batched Go environment for reinforcement learning: many boards stepped together, each
//! step giving AlphaGo Zero's observation planes, the legal-action mask and the rewards,
//! laid out as pgx lays out its Go. Two rule sets: the engine's own (simple ko, no suicide,
//! area score) and pgx 2.6.0's, reproduced exactly (positional superko ends the game, an
//! illegal action loses it, Tromp-Taylor score, the game ends at the step limit).
//!
//! Pure Rust, no Python: the binding (`python/env.rs`) hands it numpy arrays' memory.

mod batch;
mod config;
mod memory;
mod observation;
mod pool;
mod single;
mod superko;

pub use batch::{ActionError, StepRows, VecEnv};
pub use config::{Autoreset, Config, Layout, Rules};
pub use memory::{available_bytes, check_fits};
