//! The observation planes: the stones of the last `history` positions, kept per point from
//! black's view, and written out from the view of the player to move.
//!
//! Each point keeps its stones as bits of one `u128`: bit `2 * age` is a black stone and bit
//! `2 * age + 1` a white one, age 0 being the current position. A new position shifts every
//! point's bits by two; white's view swaps each pair of bits; and an observation in pgx's
//! layout (planes innermost) spreads a point's bits to bytes eight at a time from a table.

use crate::engine::Color;

use super::config::Layout;

/// `SPREAD[b]` holds byte `i` = bit `i` of `b` (little-endian), for writing eight planes at once.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            table[b] |= ((b as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    table
};

/// Every even bit: black's stones.
const EVEN_BITS: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;

/// The bits of white's view of `bits`: each black bit swapped with the white bit above it.
#[inline(always)]
fn swap_colours(bits: u128) -> u128 {
    ((bits & EVEN_BITS) << 1) | ((bits >> 1) & EVEN_BITS)
}

/// The stones of the last `history` positions (positions before the start are empty).
#[derive(Clone)]
pub struct HistoryPlanes {
    history: usize,
    /// One a point, row by row from the top.
    bits: Vec<u128>,
}

impl HistoryPlanes {
    /// `history` is 1 to 64.
    pub fn new(points: usize, history: usize) -> HistoryPlanes {
        debug_assert!((1..=64).contains(&history));
        HistoryPlanes {
            history,
            bits: vec![0; points],
        }
    }

    /// Forgets every position.
    pub fn clear(&mut self) {
        self.bits.fill(0);
    }

    /// Makes `cells` (one byte a point: 0 empty, 1 black, 2 white) the current position; the
    /// others age by one and the oldest is dropped.
    pub fn push(&mut self, cells: &[u8]) {
        let kept = u128::MAX >> (128 - 2 * self.history);
        for (bits, &cell) in self.bits.iter_mut().zip(cells) {
            // Black (1) is bit 0 and white (2) bit 1, as the cell's value says.
            *bits = ((*bits << 2) | u128::from(cell & 3)) & kept;
        }
    }

    /// Writes the observation for `to_play` into `out` (`points * (2 * history + 1)` bytes):
    /// for each position from the current one back, `to_play`'s stones then the opponent's,
    /// then a plane of 1 if white is to play, else 0.
    pub fn write(&self, to_play: Color, layout: Layout, out: &mut [u8]) {
        match (layout, to_play) {
            (Layout::Nhwc, Color::Black) => self.write_nhwc::<false>(out),
            (Layout::Nhwc, Color::White) => self.write_nhwc::<true>(out),
            (Layout::Nchw, _) => self.write_nchw(to_play, out),
        }
    }

    fn write_nhwc<const WHITE: bool>(&self, out: &mut [u8]) {
        let planes = 2 * self.history;
        let (whole, tail) = (planes / 8, planes % 8);
        for (&bits, out) in self.bits.iter().zip(out.chunks_exact_mut(planes + 1)) {
            let bits = if WHITE { swap_colours(bits) } else { bits };
            let (stones, colour) = out.split_at_mut(planes);
            for (j, eight) in stones.chunks_exact_mut(8).enumerate() {
                eight.copy_from_slice(&SPREAD[usize::from((bits >> (8 * j)) as u8)].to_le_bytes());
            }
            if tail > 0 {
                let last = SPREAD[usize::from((bits >> (8 * whole)) as u8)].to_le_bytes();
                stones[8 * whole..].copy_from_slice(&last[..tail]);
            }
            colour[0] = u8::from(WHITE);
        }
    }

    fn write_nchw(&self, to_play: Color, out: &mut [u8]) {
        let points = self.bits.len();
        let swap = usize::from(to_play == Color::White);
        let (stones, colour) = out.split_at_mut(2 * self.history * points);
        for (plane, out) in stones.chunks_exact_mut(points).enumerate() {
            let bit = plane ^ swap;
            for (out, &bits) in out.iter_mut().zip(&self.bits) {
                *out = (bits >> bit) as u8 & 1;
            }
        }
        colour.fill(swap as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plane `plane` of point `point` in an observation written in `layout`.
    fn plane_at(out: &[u8], layout: Layout, points: usize, planes: usize, point: usize, plane: usize) -> u8 {
        match layout {
            Layout::Nhwc => out[point * planes + plane],
            Layout::Nchw => out[plane * points + point],
        }
    }

    #[test]
    fn planes_age_and_follow_the_player_to_move() {
        let (points, history) = (4, 2);
        let planes = 2 * history + 1;
        let mut kept = HistoryPlanes::new(points, history);
        kept.push(&[1, 0, 0, 2]);
        kept.push(&[1, 1, 0, 0]);
        for layout in [Layout::Nhwc, Layout::Nchw] {
            let mut out = vec![9; points * planes];
            kept.write(Color::White, layout, &mut out);
            let at = |point, plane| plane_at(&out, layout, points, planes, point, plane);
            // Now: white's stones (none), black's at 0 and 1; before: white at 3, black at 0.
            assert_eq!((0..points).map(|p| at(p, 0)).collect::<Vec<_>>(), [0, 0, 0, 0]);
            assert_eq!((0..points).map(|p| at(p, 1)).collect::<Vec<_>>(), [1, 1, 0, 0]);
            assert_eq!((0..points).map(|p| at(p, 2)).collect::<Vec<_>>(), [0, 0, 0, 1]);
            assert_eq!((0..points).map(|p| at(p, 3)).collect::<Vec<_>>(), [1, 0, 0, 0]);
            assert!((0..points).all(|p| at(p, 4) == 1));
            kept.write(Color::Black, layout, &mut out);
            let at = |point, plane| plane_at(&out, layout, points, planes, point, plane);
            assert_eq!((0..points).map(|p| at(p, 0)).collect::<Vec<_>>(), [1, 1, 0, 0]);
            assert_eq!((0..points).map(|p| at(p, 2)).collect::<Vec<_>>(), [1, 0, 0, 0]);
            assert!((0..points).all(|p| at(p, 4) == 0));
        }
        kept.push(&[0, 0, 0, 0]);
        let mut out = vec![9; points * planes];
        kept.write(Color::Black, Layout::Nhwc, &mut out);
        // The oldest position (black at 0 and white at 3) is gone.
        assert_eq!(out.iter().filter(|&&b| b == 1).count(), 2);
        kept.clear();
        kept.write(Color::Black, Layout::Nhwc, &mut out);
        assert!(out.iter().all(|&b| b == 0));
    }

    #[test]
    fn every_history_length_keeps_exactly_its_positions() {
        for history in [1, 3, 4, 5, 8, 63, 64] {
            let planes = 2 * history + 1;
            let mut kept = HistoryPlanes::new(2, history);
            // Position k has a black stone on point 0 if k is even, a white one on point 1 if
            // k is a multiple of 3; positions 0 to 69 are pushed, 69 the newest.
            for k in 0..70 {
                kept.push(&[if k % 2 == 0 { 1 } else { 0 }, if k % 3 == 0 { 2 } else { 0 }]);
            }
            for (layout, to_play) in [(Layout::Nhwc, Color::White), (Layout::Nchw, Color::Black)] {
                let mut out = vec![9; 2 * planes];
                kept.write(to_play, layout, &mut out);
                let own_first = to_play == Color::Black;
                for age in 0..history {
                    let k = 69 - age;
                    let (black, white) = (u8::from(k % 2 == 0), u8::from(k % 3 == 0));
                    let (own, opponent) = if own_first { (black, white) } else { (white, black) };
                    // Point 0 holds only black stones, point 1 only white ones.
                    let (own_on, opponent_on) = if own_first { (0, 1) } else { (1, 0) };
                    assert_eq!(
                        plane_at(&out, layout, 2, planes, own_on, 2 * age),
                        own,
                        "{history} {age}"
                    );
                    assert_eq!(
                        plane_at(&out, layout, 2, planes, opponent_on, 2 * age + 1),
                        opponent
                    );
                    assert_eq!(plane_at(&out, layout, 2, planes, opponent_on, 2 * age), 0);
                }
                let colour = u8::from(to_play == Color::White);
                assert!((0..2).all(|p| plane_at(&out, layout, 2, planes, p, planes - 1) == colour));
            }
        }
    }
}
