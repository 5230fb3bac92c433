//! Text coordinates: the kata form `"7A"` (row number, then column letter) and the GTP form
//! `"A7"` (column letter, then row number). Row 1 is the bottom row; column letters skip `I`.

use super::error::GoError;

/// Column letters, left to right; there is no `I`.
pub const COLUMN_LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// Reads a coordinate in the kata form (`"10K"`) or the GTP form (`"K10"`), letters in any case,
/// and returns `(row, col)` with row 0 the top row of a board of `height` rows.
#[inline]
pub fn parse(text: &str, height: usize, width: usize) -> Result<(usize, usize), GoError> {
    match parse_kata_form(text.as_bytes(), height, width) {
        Some(row_col) => Ok(row_col),
        None => parse_any_form(text, height, width),
    }
}

const NOT_A_COLUMN: u8 = u8::MAX;

/// The column of each byte that is a column letter (either case), else `NOT_A_COLUMN`.
const COLUMN_OF_BYTE: [u8; 256] = {
    let mut table = [NOT_A_COLUMN; 256];
    let mut col = 0;
    while col < COLUMN_LETTERS.len() {
        let letter = COLUMN_LETTERS[col];
        table[letter as usize] = col as u8;
        table[letter.to_ascii_lowercase() as usize] = col as u8;
        col += 1;
    }
    table
};

/// The usual coordinate, a row number of one or two digits then a column letter (`"4D"`,
/// `"12K"`), when it is on the board; `None` for anything else, which [`parse_any_form`]
/// reads or explains. A coordinate is read once per move from Python, and on a 19x19 board
/// one or two digits come in no pattern a branch predictor could learn: so the number is
/// read without a branch on its length (the tests are combined with `&` and `|`, and the
/// number is picked with a select).
#[inline]
fn parse_kata_form(bytes: &[u8], height: usize, width: usize) -> Option<(usize, usize)> {
    if !(2..=3).contains(&bytes.len()) {
        return None;
    }
    let two_digits = bytes.len() == 3;
    let first_digit = usize::from(bytes[0].wrapping_sub(b'0'));
    // The second byte is the second digit of a two-digit number, else the letter (unused).
    let second_digit = usize::from(bytes[1].wrapping_sub(b'0'));
    let letter = bytes[bytes.len() - 1];
    let number = if two_digits {
        first_digit * 10 + second_digit
    } else {
        first_digit
    };
    let digits_ok = (1..=9).contains(&first_digit) & (!two_digits | (second_digit <= 9));
    let col = usize::from(COLUMN_OF_BYTE[usize::from(letter)]);
    let on_board = (1..=height).contains(&number) & (col < width.min(COLUMN_LETTERS.len()));
    // `then`, not `then_some`: `height - number` is only computed once it is known not to
    // overflow.
    (digits_ok & on_board).then(|| (height - number, col))
}

/// Any form, and the error that says what is wrong.
fn parse_any_form(text: &str, height: usize, width: usize) -> Result<(usize, usize), GoError> {
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
    let col = column_index(letter).ok_or_else(|| {
        bad(&format!(
            "there is no column I; the columns are {}",
            column_range(width)
        ))
    })?;
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

/// The column letters of a board `width` columns wide, as messages name them: `"A-E"` for 5
/// columns (a board of 8 columns or fewer has no `J`), `"A-H, J"` for 9, `"A-H, J-T"` for 19,
/// `"A-H, J-Z"` for 25.
pub fn column_range(width: usize) -> String {
    let width = width.clamp(1, COLUMN_LETTERS.len());
    let range = |first: usize, last: usize| {
        let (a, b) = (COLUMN_LETTERS[first] as char, COLUMN_LETTERS[last] as char);
        if first == last {
            a.to_string()
        } else {
            format!("{a}-{b}")
        }
    };
    if width <= 8 {
        range(0, width - 1)
    } else {
        format!("{}, {}", range(0, 7), range(8, width - 1))
    }
}

/// The column of a letter (either case), `None` for `I` and anything not a column letter.
fn column_index(letter: u8) -> Option<usize> {
    let col = COLUMN_OF_BYTE[usize::from(letter)];
    (col != NOT_A_COLUMN).then_some(usize::from(col))
}

/// The kata form of `(row, col)` on a board of `height` rows: `(0, 0)` on 9 rows is `"9A"`.
/// Only for a point of a board (a column past the 25th has no letter): check first.
pub fn format(row: usize, col: usize, height: usize) -> String {
    format!("{}{}", height - row, COLUMN_LETTERS[col] as char)
}

/// The form players read, letter first: `(0, 0)` on 9 rows is `"A9"` (the GTP form).
pub fn format_letter_first(row: usize, col: usize, height: usize) -> String {
    format!("{}{}", COLUMN_LETTERS[col] as char, height - row)
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
        assert_eq!(format_letter_first(2, 0, 9), "A7");
        assert_eq!(parse(&format_letter_first(9, 9, 19), 19, 19), Ok((9, 9)));
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
    fn column_ranges_name_the_columns_of_the_board() {
        assert_eq!(column_range(1), "A");
        assert_eq!(column_range(2), "A-B");
        assert_eq!(column_range(5), "A-E");
        assert_eq!(column_range(8), "A-H");
        assert_eq!(column_range(9), "A-H, J");
        assert_eq!(column_range(10), "A-H, J-K");
        assert_eq!(column_range(19), "A-H, J-T");
        assert_eq!(column_range(25), "A-H, J-Z");
    }

    #[test]
    fn column_i_is_refused_naming_the_columns_the_board_has() {
        let problem = |text: &str, width: usize| match parse(text, 9, width) {
            Err(GoError::Coordinate { problem, .. }) => problem,
            other => panic!("{text:?} on {width} columns: {other:?}"),
        };
        assert_eq!(problem("3I", 9), "there is no column I; the columns are A-H, J");
        assert_eq!(
            problem("i3", 19),
            "there is no column I; the columns are A-H, J-T"
        );
        assert_eq!(problem("3I", 5), "there is no column I; the columns are A-E");
        assert_eq!(
            problem("3I", 25),
            "there is no column I; the columns are A-H, J-Z"
        );
        assert_eq!(
            parse("3I", 9, 9).unwrap_err().to_string(),
            "invalid coordinate \"3I\": there is no column I; the columns are A-H, J"
        );
    }

    #[test]
    fn the_column_table_names_the_column_letters_and_nothing_else() {
        for byte in 0..=u8::MAX {
            let expected = COLUMN_LETTERS
                .iter()
                .position(|&letter| byte.is_ascii_alphabetic() && letter == byte.to_ascii_uppercase())
                .map_or(NOT_A_COLUMN, |col| col as u8);
            assert_eq!(COLUMN_OF_BYTE[usize::from(byte)], expected, "byte {byte}");
        }
    }

    /// Every string of up to three bytes from an alphabet of digits, letters, other ASCII and
    /// bytes of multi-byte characters (`é`, `１`): the quick kata-form path agrees with the
    /// general one wherever it answers, answers for every kata coordinate on the board (both
    /// cases of its letter), and never for bytes that are not UTF-8.
    #[test]
    fn the_quick_kata_form_path_agrees_with_the_general_one() {
        let alphabet: Vec<u8> = (b'0'..=b'9')
            .chain(b'A'..=b'Z')
            .chain(b'a'..=b'z')
            .chain([b' ', b'/', b':', b'@', b'[', b'`', b'{', 0])
            .chain([0xC3, 0xA9, 0xEF, 0xBC, 0x91])
            .collect();
        let mut quick_answers = 0;
        for (height, width) in [(1, 1), (9, 9), (13, 7), (19, 19), (25, 25)] {
            let mut check = |bytes: &[u8]| {
                let quick = parse_kata_form(bytes, height, width);
                let Ok(text) = std::str::from_utf8(bytes) else {
                    assert_eq!(quick, None, "{bytes:?} is not UTF-8");
                    return;
                };
                let general = parse_any_form(text, height, width);
                match quick {
                    Some(row_col) => {
                        quick_answers += 1;
                        assert_eq!(general, Ok(row_col), "{text:?} on {height}x{width}");
                    }
                    None => {
                        let kata_form = bytes.first().is_some_and(u8::is_ascii_digit);
                        assert!(
                            general.is_err() || !kata_form,
                            "{text:?} on {height}x{width}: the quick path left a kata coordinate out"
                        );
                    }
                }
            };
            check(b"");
            for &a in &alphabet {
                check(&[a]);
                for &b in &alphabet {
                    check(&[a, b]);
                    for &c in &alphabet {
                        check(&[a, b, c]);
                    }
                }
            }
        }
        // Both cases of every column letter of every row of each board.
        assert_eq!(quick_answers, 2 * (1 + 81 + 13 * 7 + 361 + 625));
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
