//! The batch solver for the CodinGame puzzle "A Game of Go": a board and a list of coloured
//! moves in, `NOT_VALID` or the resulting board out.
//!
//! Input: line 1 the size `S`; line 2 the move count `M`; `S` lines of `.`, `B`, `W` (top row
//! first); `M` lines `COLOR ROW COL` with 0-based `ROW` (0 is the top line) and `COL`.
//! Colours need not alternate. Ko forbids a move whose result equals the board as it was
//! just before the previous move of the list.

use std::num::IntErrorKind;

use crate::{Board, Color, Game, GoError};

/// The answer to a puzzle input: the final board in the input's alphabet, or `NOT_VALID`.
/// Malformed input is an error naming the line at fault.
pub fn solve(input: &str) -> Result<String, GoError> {
    let mut lines = input.lines().enumerate().map(|(i, line)| (i + 1, line.trim()));
    let mut next_line = |what: &str| {
        lines
            .next()
            .ok_or_else(|| malformed(format!("the input ends before {what}")))
    };

    let (n, line) = next_line("the board size")?;
    let size = parse_number(n, line, "the board size")?;
    if !(1..=25).contains(&size) {
        return Err(malformed(format!(
            "line {n}: the board size must be 1 to 25, not {size}"
        )));
    }
    let (n, line) = next_line("the move count")?;
    let move_count = parse_number(n, line, "the move count")?;

    let mut rows = Vec::with_capacity(size);
    for row in 0..size {
        let (n, line) = next_line(&format!("board row {} of {size}", row + 1))?;
        let cells: Vec<char> = line.chars().collect();
        if cells.len() != size {
            return Err(malformed(format!(
                "line {n}: a board row has {size} characters, this one {}",
                cells.len()
            )));
        }
        if let Some(col) = cells.iter().position(|c| !matches!(c, '.' | 'B' | 'W')) {
            return Err(malformed(format!(
                "line {n}: {:?} at column {col} is not one of . B W",
                cells[col]
            )));
        }
        rows.push(cells);
    }
    let mut game = starting_game(&rows)?;

    // The count comes from the input: it bounds the loop but sizes nothing, so a count of
    // 10^18 on a short input is "the input ends before move ...", not an allocation.
    let mut moves = Vec::new();
    for m in 0..move_count {
        let (n, line) = next_line(&format!("move {} of {move_count}", m + 1))?;
        moves.push(parse_move(n, line, size)?);
    }
    if let Some((n, line)) = lines.find(|(_, line)| !line.is_empty()) {
        return Err(malformed(format!(
            "line {n}: unexpected text after the moves: {line:?}"
        )));
    }

    for (color, row, col) in moves {
        let p = game.board().point(row, col);
        if game.play_as(color, p).is_err() {
            return Ok("NOT_VALID".to_string());
        }
    }
    let board = game.board();
    let picture: Vec<String> = (0..size)
        .map(|row| {
            (0..size)
                .map(|col| match board.stone(board.point(row, col)) {
                    None => '.',
                    Some(Color::Black) => 'B',
                    Some(Color::White) => 'W',
                })
                .collect()
        })
        .collect();
    Ok(picture.join("\n"))
}

/// The game from the puzzle's board rows (already checked to be `.`, `B`, `W`, square).
fn starting_game(rows: &[Vec<char>]) -> Result<Game, GoError> {
    let stones: Vec<Vec<Option<Color>>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|&cell| match cell {
                    'B' => Some(Color::Black),
                    'W' => Some(Color::White),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let board = Board::with_stones(&stones)?;
    if let Some((row, col)) = board.chain_without_liberty() {
        // The board's first row is the input's line 3.
        return Err(malformed(format!(
            "line {}: the chain at row {row}, column {col} has no liberty",
            row + 3
        )));
    }
    Ok(Game::from_board(board, Color::Black))
}

fn malformed(problem: String) -> GoError {
    GoError::PuzzleInput(problem)
}

fn parse_number(n: usize, text: &str, what: &str) -> Result<usize, GoError> {
    text.parse().map_err(|error: std::num::ParseIntError| {
        malformed(match error.kind() {
            IntErrorKind::PosOverflow => format!("line {n}: {what} is too large: {text}"),
            _ => format!("line {n}: {what} must be a whole number, not {text:?}"),
        })
    })
}

fn parse_move(n: usize, line: &str, size: usize) -> Result<(Color, usize, usize), GoError> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [color, row, col] = fields[..] else {
        return Err(malformed(format!(
            "line {n}: a move is `COLOR ROW COL`, not {line:?}"
        )));
    };
    let color = match color {
        "B" | "b" => Color::Black,
        "W" | "w" => Color::White,
        _ => {
            return Err(malformed(format!(
                "line {n}: the colour is B or W, not {color:?}"
            )))
        }
    };
    let row = parse_number(n, row, "the row")?;
    let col = parse_number(n, col, "the column")?;
    if row >= size || col >= size {
        return Err(malformed(format!(
            "line {n}: ({row}, {col}) is off the {size}x{size} board (rows and columns are 0 to {})",
            size - 1
        )));
    }
    Ok((color, row, col))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_on_a_small_board() {
        let input = "3\n1\n.B.\nBW.\n.B.\nB 1 2\n";
        assert_eq!(solve(input).unwrap(), ".B.\nB.B\n.B.");
    }

    #[test]
    fn suicide_is_not_valid() {
        assert_eq!(solve("3\n1\n.B.\nB..\n...\nW 0 0\n").unwrap(), "NOT_VALID");
    }

    #[test]
    fn malformed_inputs_name_the_line() {
        for (input, line) in [
            ("x\n0\n", "line 1"),
            ("3\n1\n...\n..\n...\nB 0 0\n", "line 4"),
            ("3\n1\n...\n...\n...\nB 3 0\n", "line 6"),
            ("3\n1\n...\n...\n...\nG 0 0\n", "line 6"),
            ("3\n0\n...\n...\n...\nB 0 0\n", "line 6"),
            ("3\n0\n...\n.x.\n...\n", "line 4"),
            ("3\n0\n...\nW..\nBW.\n", "line 5: the chain at row 2, column 0"),
        ] {
            let error = solve(input).unwrap_err().to_string();
            assert!(error.contains(line), "{input:?}: {error}");
        }
        assert!(solve("3\n2\n...\n...\n...\nB 0 0\n").is_err());
    }

    #[test]
    fn a_huge_move_count_on_a_short_input_is_malformed_input() {
        // Each count used to size an allocation before any move was read: 2 * 10^9 aborted
        // the process (48 GB), 10^18 panicked ("capacity overflow").
        for count in ["2000000000", "1000000000000000000", &usize::MAX.to_string()] {
            let input = format!("3\n{count}\n...\n...\n...\nB 0 0\n");
            let error = solve(&input).unwrap_err().to_string();
            assert!(
                error.contains(&format!("the input ends before move 2 of {count}")),
                "{error}"
            );
        }
        let error = solve("3\n99999999999999999999999\n...\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("line 2: the move count is too large"), "{error}");
    }

    /// No input at all, however malformed, makes the solver panic: a seeded generator of
    /// inputs near the format (mutated good inputs, random bytes, huge numbers).
    #[test]
    fn no_input_panics() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let pieces = [
            "0",
            "1",
            "3",
            "25",
            "26",
            "-1",
            "2000000000",
            "18446744073709551615",
            "99999999999999999999999",
            ".",
            "B",
            "W",
            "x",
            " ",
            "\n",
            "\r\n",
            "...",
            ".B.",
            "BW.",
            "B 1 2",
            "W 0 0",
            "b 2 2",
            "B 3 0",
            "B -1 0",
            "\u{feff}",
            "é",
            "\0",
            "\t",
        ];
        for _ in 0..20_000 {
            let mut input = String::new();
            for _ in 0..next(24) {
                input.push_str(pieces[next(pieces.len())]);
                if next(3) == 0 {
                    input.push('\n');
                }
            }
            let _ = std::panic::catch_unwind(|| solve(&input))
                .unwrap_or_else(|_| panic!("solve panicked on {input:?}"));
        }
    }
}
