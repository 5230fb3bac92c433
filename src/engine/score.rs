//! Area scoring: stones on the board plus empty regions that touch only one colour. Every
//! stone counts as alive (no dead-stone removal).

use super::board::Board;
use super::color::Color;

/// The area of each colour, the komi, and who won.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    pub black: u32,
    pub white: u32,
    pub komi: f64,
}

impl Score {
    /// Black's area minus white's area plus komi.
    pub fn margin(&self) -> f64 {
        self.black as f64 - (self.white as f64 + self.komi)
    }

    /// The winner, or `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        let margin = self.margin();
        if margin > 0.0 {
            Some(Color::Black)
        } else if margin < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }
}

/// Scores `board` by area with `komi` added to white.
pub fn area_score(board: &Board, komi: f64) -> Score {
    let area = board.area();
    Score {
        black: area[Color::Black as usize],
        white: area[Color::White as usize],
        komi,
    }
}
