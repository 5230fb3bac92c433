//! The observation planes: the stones of the last `history` positions, kept per point from
//! black's view, and written out from the view of the player to move.
//!
//! The planes are kept point by point, `[black, white]` for the current position, then for
//! the one before, and so on (`2 * history` bytes a point): a new position shifts the whole
//! buffer by two bytes and writes the two bytes of each point, and an observation in pgx's
//! layout (planes innermost) is a copy of each point's bytes, pairs swapped when white is to
//! move, then the colour plane.

use crate::engine::Color;

use super::config::Layout;

/// The stones of the last `history` positions (positions before the start are empty).
#[derive(Clone)]
pub struct HistoryPlanes {
    history: usize,
    /// `[point][2 * age + colour]`, colour 0 black and 1 white; 1 where that stone was.
    bytes: Vec<u8>,
}

impl HistoryPlanes {
    pub fn new(points: usize, history: usize) -> HistoryPlanes {
        HistoryPlanes {
            history,
            bytes: vec![0; points * 2 * history],
        }
    }

    /// Forgets every position.
    pub fn clear(&mut self) {
        self.bytes.fill(0);
    }

    /// Makes `cells` (one byte a point: 0 empty, 1 black, 2 white) the current position; the
    /// others age by one and the oldest is dropped.
    pub fn push(&mut self, cells: &[u8]) {
        let len = self.bytes.len();
        self.bytes.copy_within(0..len - 2, 2);
        let per_point = 2 * self.history;
        for (planes, &cell) in self.bytes.chunks_exact_mut(per_point).zip(cells) {
            planes[0] = u8::from(cell == Color::Black as u8);
            planes[1] = u8::from(cell == Color::White as u8);
        }
    }

    /// Writes the observation for `to_play` into `out` (`points * (2 * history + 1)` bytes):
    /// for each position from the current one back, `to_play`'s stones then the opponent's,
    /// then a plane of 1 if white is to play, else 0.
    pub fn write(&self, to_play: Color, layout: Layout, out: &mut [u8]) {
        match layout {
            Layout::Nhwc => self.write_nhwc(to_play, out),
            Layout::Nchw => self.write_nchw(to_play, out),
        }
    }

    fn write_nhwc(&self, to_play: Color, out: &mut [u8]) {
        let per_point = 2 * self.history;
        let colour = u8::from(to_play == Color::White);
        let points = self
            .bytes
            .chunks_exact(per_point)
            .zip(out.chunks_exact_mut(per_point + 1));
        match to_play {
            Color::Black => {
                for (planes, out) in points {
                    out[..per_point].copy_from_slice(planes);
                    out[per_point] = colour;
                }
            }
            Color::White => {
                for (planes, out) in points {
                    for (pair, out) in planes.chunks_exact(2).zip(out.chunks_exact_mut(2)) {
                        out[0] = pair[1];
                        out[1] = pair[0];
                    }
                    out[per_point] = colour;
                }
            }
        }
    }

    fn write_nchw(&self, to_play: Color, out: &mut [u8]) {
        let per_point = 2 * self.history;
        let points = self.bytes.len() / per_point;
        let swap = usize::from(to_play == Color::White);
        let (stones, colour) = out.split_at_mut(per_point * points);
        for (plane, out) in stones.chunks_exact_mut(points).enumerate() {
            let source = plane ^ swap;
            for (out, planes) in out.iter_mut().zip(self.bytes.chunks_exact(per_point)) {
                *out = planes[source];
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
}
