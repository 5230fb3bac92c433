//! A small, fast, seedable random number generator for playouts: Marsaglia's xorshift64,
//! whose state is the seed scrambled by SplitMix64's finaliser. Playouts need speed and
//! reproducibility, not cryptographic quality (libego and Pachi use simpler generators still),
//! so no crate is pulled in for it. A candidate move is drawn with three shifts and one
//! multiply: a SplitMix64 step (two multiplies more) made light playouts 5% slower (perf).

/// SplitMix64's increment, 2^64 over the golden ratio.
pub(super) const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser: a bijection of `u64` that spreads neighbouring inputs far apart.
pub(super) fn scramble(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let z = scramble(seed.wrapping_add(GOLDEN_GAMMA));
        // xorshift's one forbidden state is zero.
        Rng(if z == 0 { GOLDEN_GAMMA } else { z })
    }

    /// A seed from the standard library's per-process random hasher keys.
    pub fn from_entropy() -> Rng {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(GOLDEN_GAMMA);
        Rng::new(hasher.finish())
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..n` by Lemire's multiply-shift on the high bits (the better ones of
    /// xorshift): 32 of them below 2^32 (bias below n / 2^32), all 64 above.
    #[inline(always)]
    pub fn below(&mut self, n: usize) -> usize {
        let x = self.next_u64();
        if n <= u32::MAX as usize {
            (((x >> 32) * n as u64) >> 32) as usize
        } else {
            ((x as u128 * n as u128) >> 64) as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn draws_cover_the_range_evenly_and_follow_the_seed() {
        let mut rng = Rng::new(0);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[rng.below(10)] += 1;
        }
        // 5 sigma of a binomial(100000, 0.1) is about 474.
        assert!(
            counts.iter().all(|&c| (9_526..=10_474).contains(&c)),
            "{counts:?}"
        );
        let (mut a, mut b, mut c) = (Rng::new(7), Rng::new(7), Rng::new(8));
        let (first, second) = (
            (0..8).map(|_| a.next_u64()).collect::<Vec<_>>(),
            (0..8).map(|_| b.next_u64()).collect::<Vec<_>>(),
        );
        assert_eq!(first, second);
        assert_ne!(first, (0..8).map(|_| c.next_u64()).collect::<Vec<_>>());
        assert!((0..1000).all(|_| Rng::new(3).below(usize::MAX) < usize::MAX));
    }
}
