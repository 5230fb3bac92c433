//! Colours and vertices as GTP writes them: `b`, `w`, `black`, `white` in any case; a column
//! letter (no `I`) and a row number from the bottom, `D4` or `d4`; `pass` in any case.

use crate::bot::PASS;
use crate::coord::COLUMN_LETTERS;
use crate::{Board, Color, Point};

pub fn color(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("invalid color {text:?}")),
    }
}

/// The point `text` names on `board` (`PASS` for a pass).
pub fn vertex(text: &str, board: &Board) -> Result<Point, String> {
    if text.eq_ignore_ascii_case("pass") {
        return Ok(PASS);
    }
    let invalid = || format!("invalid vertex {text:?}");
    let mut chars = text.chars();
    let letter = chars.next().ok_or_else(invalid)?.to_ascii_uppercase();
    let digits = chars.as_str();
    if digits.is_empty()
        || digits.len() > 2
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || digits.starts_with('0')
    {
        return Err(invalid());
    }
    let col = COLUMN_LETTERS
        .iter()
        .position(|&c| c as char == letter)
        .ok_or_else(invalid)?;
    let number: usize = digits.parse().map_err(|_| invalid())?;
    if col >= board.width() || number > board.height() {
        return Err(format!("vertex {text:?} is off the board"));
    }
    Ok(board.point(board.height() - number, col))
}

/// The GTP name of `p` (`pass` for `PASS`).
pub fn name(p: Point, board: &Board) -> String {
    if p == PASS {
        return "pass".into();
    }
    let (row, col) = board.row_col(p);
    format!("{}{}", COLUMN_LETTERS[col] as char, board.height() - row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_in_either_case_skip_i_and_round_trip() {
        let board = Board::new(19, 19).unwrap();
        assert_eq!(vertex("A1", &board), Ok(board.point(18, 0)));
        assert_eq!(vertex("j10", &board), Ok(board.point(9, 8)));
        assert_eq!(vertex("T19", &board), Ok(board.point(0, 18)));
        assert_eq!(vertex("PaSS", &board), Ok(PASS));
        for bad in ["I5", "A0", "A20", "U1", "", "A", "AA1", "A01", "1A", "A-1", "é1"] {
            assert!(vertex(bad, &board).is_err(), "{bad:?}");
        }
        for p in board.points() {
            assert_eq!(vertex(&name(p, &board), &board), Ok(p));
        }
        let big = Board::new(25, 25).unwrap();
        assert_eq!(name(big.point(0, 24), &big), "Z25");
    }
}
