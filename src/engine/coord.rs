//! Text coordinates: the kata form `"7A"` (row number, then column letter) and the GTP form
//! `"A7"` (column letter, then row number). Row 1 is the bottom row; column letters skip `I`.

use super::error::GoError;

/// Column letters, left to right; there is no `I`.
pub const COLUMN_LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// Reads a coordinate in the kata form (`"10K"`) or the GTP form (`"K10"`), letters in any case,
/// and returns `(row, col)` with row 0 the top row of a board of `height` rows.
pub fn parse(text: &str, height: usize, width: usize) -> Result<(usize, usize), GoError> {
    let bad = |problem: &str| GoError::Coordinate {
        text: text.to_string(),
        problem: problem.to_string(),
    };
    let off_board = |problem: String| GoError::OffBoard {
        text: text.to_string(),
        problem,
    };
    let bytes = text.as_bytes();
    let (digits, letter) = match bytes {
        [letter, digits @ ..] if letter.is_ascii_alphabetic() => (digits, *letter),
        [digits @ .., letter] if letter.is_ascii_alphabetic() => (digits, *letter),
        _ => {
            return Err(bad(
                "expected a row number and a column letter, like '7A' or 'A7'",
            ))
        }
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad(
            "expected a row number and a column letter, like '7A' or 'A7'",
        ));
    }
    if digits[0] == b'0' && digits.len() > 1 {
        return Err(bad("a row number has no leading zero"));
    }
    let col = column_index(letter).ok_or_else(|| bad("there is no column I; columns are A-H, J-Z"))?;
    if col >= width {
        return Err(off_board(format!(
            "column {} is past the last column {}",
            letter as char,
            COLUMN_LETTERS[width - 1] as char
        )));
    }
    // Past three digits a number is off every board (and might not fit in a usize).
    let number = if digits.len() > 3 {
        usize::MAX
    } else {
        digits.iter().fold(0, |n, &d| n * 10 + usize::from(d - b'0'))
    };
    if number == 0 || number > height {
        let digits = String::from_utf8_lossy(digits);
        return Err(off_board(format!("rows are 1 to {height}, not {digits}")));
    }
    Ok((height - number, col))
}

/// The column of a letter (either case), `None` for `I` and anything not a column letter.
fn column_index(letter: u8) -> Option<usize> {
    let col = match letter.to_ascii_uppercase() {
        letter @ b'A'..=b'H' => letter - b'A',
        letter @ b'J'..=b'Z' => letter - b'A' - 1,
        _ => return None,
    };
    Some(usize::from(col))
}

/// The kata form of `(row, col)` on a board of `height` rows: `(0, 0)` on 9 rows is `"9A"`.
pub fn format(row: usize, col: usize, height: usize) -> String {
    format!("{}{}", height - row, COLUMN_LETTERS[col] as char)
}

/// Checks a 0-based `(row, col)` pair against the board.
pub fn check_indices(row: i64, col: i64, height: usize, width: usize) -> Result<(usize, usize), GoError> {
    if (0..height as i64).contains(&row) && (0..width as i64).contains(&col) {
        Ok((row as usize, col as usize))
    } else {
        Err(GoError::OffBoard {
            text: format!("({row}, {col})"),
            problem: format!("0-based indices of a board of {height} rows and {width} columns"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kata_and_gtp_forms_name_the_same_point() {
        assert_eq!(parse("7A", 9, 9), Ok((2, 0)));
        assert_eq!(parse("A7", 9, 9), Ok((2, 0)));
        assert_eq!(parse("a7", 9, 9), Ok((2, 0)));
        assert_eq!(parse("10K", 19, 19), Ok((9, 9)));
        assert_eq!(parse("10J", 19, 19), Ok((9, 8)));
        assert_eq!(parse("1A", 9, 9), Ok((8, 0)));
        assert_eq!(parse("9J", 9, 9), Ok((0, 8)));
        assert_eq!(parse("25Z", 25, 25), Ok((0, 24)));
    }

    #[test]
    fn malformed_and_off_board_coordinates_are_rejected() {
        for text in [
            "0A",
            "10A",
            "1K",
            "3Z",
            "66",
            "5I",
            "IA",
            "A",
            "1",
            "",
            "A1A",
            " 1A",
            "1A ",
            "01A",
            "1AA",
            "99999999999999999999A",
            "１A",
        ] {
            assert!(parse(text, 9, 9).is_err(), "{text:?} should be rejected");
        }
    }

    #[test]
    fn well_formed_points_past_the_edge_are_off_board() {
        for text in ["0A", "10A", "1K", "3Z", "Z3", "a10", "999A"] {
            assert!(
                matches!(parse(text, 9, 9), Err(GoError::OffBoard { .. })),
                "{text:?}"
            );
        }
        for text in ["5I", "IA", "66", "01A"] {
            assert!(
                matches!(parse(text, 9, 9), Err(GoError::Coordinate { .. })),
                "{text:?}"
            );
        }
    }

    #[test]
    fn format_is_the_inverse_of_parse() {
        for height in [1, 9, 19, 25] {
            for row in 0..height {
                for col in 0..height {
                    assert_eq!(parse(&format(row, col, height), height, height), Ok((row, col)));
                }
            }
        }
    }
}
