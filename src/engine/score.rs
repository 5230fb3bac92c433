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
    let mut area = [0u32; 3];
    area[Color::Black as usize] = board.stone_count(Color::Black) as u32;
    area[Color::White as usize] = board.stone_count(Color::White) as u32;
    let mut seen = vec![false; board.height() * board.width()];
    let index = |p| {
        let (r, c) = board.row_col(p);
        r * board.width() + c
    };
    let mut region = Vec::new();
    for start in board.points() {
        if !board.is_empty(start) || seen[index(start)] {
            continue;
        }
        // Flood the empty region, noting which colours border it.
        let mut borders = [false; 3];
        region.clear();
        region.push(start);
        seen[index(start)] = true;
        let mut i = 0;
        while i < region.len() {
            for n in board.on_board_neighbours(region[i]) {
                match board.stone(n) {
                    Some(color) => borders[color as usize] = true,
                    None if !seen[index(n)] => {
                        seen[index(n)] = true;
                        region.push(n);
                    }
                    None => {}
                }
            }
            i += 1;
        }
        match (borders[Color::Black as usize], borders[Color::White as usize]) {
            (true, false) => area[Color::Black as usize] += region.len() as u32,
            (false, true) => area[Color::White as usize] += region.len() as u32,
            _ => {}
        }
    }
    Score {
        black: area[Color::Black as usize],
        white: area[Color::White as usize],
        komi,
    }
}
