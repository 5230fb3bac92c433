//! Colours and vertices as GTP writes them: `b`, `w`, `black`, `white` in any case; a column
//! letter (no `I`) and a row number from the bottom, `D4` or `d4`; `pass` in any case.

use super::line::quoted;
use crate::bot::PASS;
use crate::coord::{column_range, COLUMN_LETTERS};
use crate::{Board, Color, Point};

pub fn color(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("invalid color {}", quoted(text))),
    }
}

/// The point `text` names on `board` (`PASS` for a pass), or an error naming `text` and what
/// is wrong with it: `invalid coordinate "Z9": the columns of this 9x9 board are A-H, J`.
pub fn vertex(text: &str, board: &Board) -> Result<Point, String> {
    if text.eq_ignore_ascii_case("pass") {
        return Ok(PASS);
    }
    let invalid = |problem: &str| format!("invalid coordinate {}: {problem}", quoted(text));
    let malformed = || invalid("expected a column letter and a row number, like D4, or pass");
    let mut chars = text.chars();
    let letter = chars.next().ok_or_else(malformed)?.to_ascii_uppercase();
    let digits = chars.as_str();
    if !letter.is_ascii_alphabetic() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(invalid("a row number has no leading zero"));
    }
    let size = format!("{}x{}", board.height(), board.width());
    let columns = || {
        format!(
            "the columns of this {size} board are {}",
            column_range(board.width())
        )
    };
    let col = match COLUMN_LETTERS.iter().position(|&c| c as char == letter) {
        Some(col) if col < board.width() => col,
        Some(_) => return Err(invalid(&columns())),
        None => return Err(invalid(&format!("there is no column I; {}", columns()))),
    };
    // Past a few digits a number is off every board (and might not fit in a usize).
    let number: usize = digits.parse().unwrap_or(usize::MAX);
    if number == 0 || number > board.height() {
        return Err(invalid(&format!(
            "the rows of this {size} board are 1 to {}",
            board.height()
        )));
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
        for bad in [
            "I5",
            "A0",
            "A20",
            "U1",
            "",
            "A",
            "AA1",
            "A01",
            "1A",
            "A-1",
            "é1",
            "A1é",
            "A99999999999999999999999",
        ] {
            assert!(vertex(bad, &board).is_err(), "{bad:?}");
        }
        for p in board.points() {
            assert_eq!(vertex(&name(p, &board), &board), Ok(p));
        }
        let big = Board::new(25, 25).unwrap();
        assert_eq!(name(big.point(0, 24), &big), "Z25");
    }

    #[test]
    fn errors_name_the_value_and_what_is_wrong_with_it() {
        let b9 = Board::new(9, 9).unwrap();
        let error = |text: &str| vertex(text, &b9).unwrap_err();
        assert_eq!(
            error("Z9"),
            "invalid coordinate \"Z9\": the columns of this 9x9 board are A-H, J"
        );
        assert_eq!(
            error("I3"),
            "invalid coordinate \"I3\": there is no column I; the columns of this 9x9 board are A-H, J"
        );
        assert_eq!(
            error("J10"),
            "invalid coordinate \"J10\": the rows of this 9x9 board are 1 to 9"
        );
        assert_eq!(
            error("A0"),
            "invalid coordinate \"A0\": the rows of this 9x9 board are 1 to 9"
        );
        assert_eq!(
            error("A01"),
            "invalid coordinate \"A01\": a row number has no leading zero"
        );
        assert_eq!(
            error("1A"),
            "invalid coordinate \"1A\": expected a column letter and a row number, like D4, or pass"
        );
        let b5 = Board::new(5, 5).unwrap();
        assert_eq!(
            vertex("i1", &b5).unwrap_err(),
            "invalid coordinate \"i1\": there is no column I; the columns of this 5x5 board are A-E"
        );
        assert_eq!(color("purple").unwrap_err(), "invalid color \"purple\"");
    }
}
