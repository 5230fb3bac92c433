//! gokata: a fast, exact Go rules engine ([`engine`]) and its Python binding (`python`,
//! built only with the `python` feature).

pub mod corpus;
pub mod engine;
pub mod puzzle;

#[cfg(feature = "python")]
mod python;
