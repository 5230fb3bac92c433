//! The observation planes: the stones of the last `history` positions, kept per point from
//! black's view, and written out from the view of the player to move.
//!
//! Each point keeps its stones as bits of one word: bit `2 * age` is a black stone and bit
//! `2 * age + 1` a white one, age 0 being the current position. A new position shifts every
//! point's bits by two; white's view swaps each pair of bits; and an observation in pgx's
//! layout (planes innermost) spreads a point's bits to bytes eight at a time from a table.
//! The word is the narrowest that holds `2 * history` bits (`u32` for the usual 8 positions):
//! a batch of boards does not fit in the caches, and every byte kept is a byte read back.

use std::ops::{BitAnd, BitOr, Shl, Shr};

use crate::Color;

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

/// A word of a point's plane bits.
trait Bits:
    Copy + Shl<u32, Output = Self> + Shr<u32, Output = Self> + BitOr<Output = Self> + BitAnd<Output = Self>
{
    const BITS: u32;
    /// Every even bit: black's stones.
    const EVEN: Self;
    /// All ones.
    const ONES: Self;
    fn from_cell(cell: u8) -> Self;
    fn low_byte(self) -> u8;
}

macro_rules! bits {
    ($($word:ty),*) => {$(
        impl Bits for $word {
            const BITS: u32 = <$word>::BITS;
            const EVEN: $word = <$word>::MAX / 3;
            const ONES: $word = <$word>::MAX;
            #[inline(always)]
            fn from_cell(cell: u8) -> $word {
                <$word>::from(cell & 3)
            }
            #[inline(always)]
            fn low_byte(self) -> u8 {
                self as u8
            }
        }
    )*};
}
bits!(u32, u64, u128);

/// The bits of white's view: each black bit swapped with the white bit above it.
#[inline(always)]
fn swap_colours<B: Bits>(bits: B) -> B {
    ((bits & B::EVEN) << 1) | ((bits >> 1) & B::EVEN)
}

/// One word a point, row by row from the top, the narrowest that holds the planes.
#[derive(Clone)]
enum Words {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
    Widest(Vec<u128>),
}

/// `each_word!(words, w => expression)`: the expression for whichever word `words` holds.
macro_rules! each_word {
    ($words:expr, $w:ident => $e:expr) => {
        match $words {
            Words::Narrow($w) => $e,
            Words::Wide($w) => $e,
            Words::Widest($w) => $e,
        }
    };
}

/// The stones of the last `history` positions (positions before the start are empty).
#[derive(Clone)]
pub struct HistoryPlanes {
    history: usize,
    words: Words,
}

impl HistoryPlanes {
    /// `history` is 1 to 64.
    pub fn new(points: usize, history: usize) -> HistoryPlanes {
        debug_assert!((1..=64).contains(&history));
        let words = match 2 * history {
            0..=32 => Words::Narrow(vec![0; points]),
            33..=64 => Words::Wide(vec![0; points]),
            _ => Words::Widest(vec![0; points]),
        };
        HistoryPlanes { history, words }
    }

    /// Forgets every position.
    pub fn clear(&mut self) {
        each_word!(&mut self.words, w => w.fill(0))
    }

    /// Makes `cells` (one byte a point: 0 empty, 1 black, 2 white) the current position; the
    /// others age by one and the oldest is dropped.
    pub fn push(&mut self, cells: &[u8]) {
        let history = self.history;
        each_word!(&mut self.words, w => push(w, history, cells))
    }

    /// Writes the observation for `to_play` into `out` (`points * (2 * history + 1)` bytes):
    /// for each position from the current one back, `to_play`'s stones then the opponent's,
    /// then a plane of 1 if white is to play, else 0.
    pub fn write(&self, to_play: Color, layout: Layout, out: &mut [u8]) {
        let history = self.history;
        each_word!(&self.words, w => match (layout, to_play) {
            (Layout::Nhwc, Color::Black) => write_nhwc::<_, false>(w, history, out),
            (Layout::Nhwc, Color::White) => write_nhwc::<_, true>(w, history, out),
            (Layout::Nchw, _) => write_nchw(w, history, to_play, out),
        })
    }
}

fn push<B: Bits>(words: &mut [B], history: usize, cells: &[u8]) {
    let kept = B::ONES >> (B::BITS - 2 * history as u32);
    for (bits, &cell) in words.iter_mut().zip(cells) {
        // Black (1) is bit 0 and white (2) bit 1, as the cell's value says.
        *bits = ((*bits << 2) | B::from_cell(cell)) & kept;
    }
}

fn write_nhwc<B: Bits, const WHITE: bool>(words: &[B], history: usize, out: &mut [u8]) {
    let planes = 2 * history;
    let (whole, tail) = (planes / 8, planes % 8);
    for (&bits, out) in words.iter().zip(out.chunks_exact_mut(planes + 1)) {
        let bits = if WHITE { swap_colours(bits) } else { bits };
        let (stones, colour) = out.split_at_mut(planes);
        for (j, eight) in stones.chunks_exact_mut(8).enumerate() {
            let byte = (bits >> (8 * j as u32)).low_byte();
            eight.copy_from_slice(&SPREAD[usize::from(byte)].to_le_bytes());
        }
        if tail > 0 {
            let byte = (bits >> (8 * whole as u32)).low_byte();
            stones[8 * whole..].copy_from_slice(&SPREAD[usize::from(byte)].to_le_bytes()[..tail]);
        }
        colour[0] = u8::from(WHITE);
    }
}

fn write_nchw<B: Bits>(words: &[B], history: usize, to_play: Color, out: &mut [u8]) {
    let points = words.len();
    let swap = u32::from(to_play == Color::White);
    let (stones, colour) = out.split_at_mut(2 * history * points);
    for (plane, out) in stones.chunks_exact_mut(points).enumerate() {
        let bit = plane as u32 ^ swap;
        for (out, &bits) in out.iter_mut().zip(words) {
            *out = (bits >> bit).low_byte() & 1;
        }
    }
    colour.fill(swap as u8);
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
        for history in [1, 3, 4, 5, 8, 16, 17, 20, 32, 33, 63, 64] {
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
