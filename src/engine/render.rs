//! Text pictures of a board.

use super::board::Board;
use super::coord::COLUMN_LETTERS;

/// The board with column letters above and below and row numbers on both sides:
///
/// ```text
///    A B C
///  3 . . .  3
///  2 . x .  2
///  1 . . o  1
///    A B C
/// ```
pub fn render(board: &Board) -> String {
    let letters: Vec<String> = COLUMN_LETTERS[..board.width()]
        .iter()
        .map(|&c| (c as char).to_string())
        .collect();
    let header = format!("    {}\n", letters.join(" "));
    let mut text = header.clone();
    for row in 0..board.height() {
        let number = board.height() - row;
        let cells: Vec<String> = (0..board.width())
            .map(|col| {
                board
                    .stone(board.point(row, col))
                    .map_or('.', |c| c.symbol())
                    .to_string()
            })
            .collect();
        text += &format!("{number:>3} {} {number}\n", cells.join(" "));
    }
    text + &header
}
