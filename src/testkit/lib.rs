//! What gokata's tests, benchmarks and probes share, kept out of the published crates and the
//! wheel: the game corpus ([`corpus`], its files in `data/corpus`), the naive reference board
//! that the engine is checked against ([`reference`]) and random play ([`random_play`]).

pub mod corpus;
pub mod random_play;
pub mod reference;
