//! Positional superko for the pgx rules: a Zobrist hash of each position reached, so that a
//! move repeating an earlier position is seen. Only boards under those rules keep one; the
//! engine's board knows nothing of it.

use std::sync::OnceLock;

use crate::{Rng, MAX_SIDE};

/// One random 64-bit key for each stone colour (black, white) on each point.
fn zobrist_keys() -> &'static [[u64; 2]] {
    static KEYS: OnceLock<Vec<[u64; 2]>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = Rng::new(0x5EED_2060_0000_0001);
        (0..MAX_SIDE * MAX_SIDE)
            .map(|_| [rng.next_u64(), rng.next_u64()])
            .collect()
    })
}

/// The hash of a position given one byte a point (0 empty, 1 black, 2 white).
pub fn position_hash(cells: &[u8]) -> u64 {
    let keys = zobrist_keys();
    cells
        .iter()
        .zip(keys)
        .filter(|(&cell, _)| cell != 0)
        .fold(0, |hash, (&cell, key)| hash ^ key[usize::from(cell & 1 == 0)])
}

/// The hashes of the positions after each step of a game.
#[derive(Clone, Default)]
pub struct PositionHistory(Vec<u64>);

impl PositionHistory {
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Records the position now reached; whether it was reached before.
    pub fn record(&mut self, cells: &[u8]) -> bool {
        let hash = position_hash(cells);
        let repeated = self.0.contains(&hash);
        self.0.push(hash);
        repeated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_position_is_seen_and_colours_differ() {
        let mut seen = PositionHistory::default();
        assert!(!seen.record(&[1, 0, 0, 0]));
        assert!(!seen.record(&[2, 0, 0, 0]));
        assert!(!seen.record(&[1, 2, 0, 0]));
        assert!(seen.record(&[1, 0, 0, 0]));
        assert_ne!(position_hash(&[0, 0, 1, 0]), position_hash(&[0, 1, 0, 0]));
        assert_eq!(position_hash(&[0, 0, 0]), 0);
        seen.clear();
        assert!(!seen.record(&[1, 0, 0, 0]));
    }
}
