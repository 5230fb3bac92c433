//! Pictures of a game as SVG, modelled on python-chess's board pictures: a wooden (or plain)
//! board, its lines and star points, column letters (no I) and row numbers from the bottom,
//! stones with an edge, the last move ringed, the ko point marked, a caption with the side to
//! move and the captures, and the board as text in `<desc>` for screen readers.
//! Pure Rust: the Python binding only reads the options.

use std::fmt::Write;

use crate::coord::{self, COLUMN_LETTERS};
use crate::{render, Color, Game};

/// The board's look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    #[default]
    Wood,
    Plain,
}

/// What to draw. `Picture::default()` is a wooden board with coordinates, the last move
/// ringed, the ko point and the caption, and no size in pixels (the picture scales).
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// Width in pixels; the height follows. `None`: no size, only a `viewBox`.
    pub size: Option<u32>,
    pub coordinates: bool,
    pub last_move: bool,
    /// Points `(row, col)` (row 0 the top row) marked with a cross.
    pub marks: Vec<(usize, usize)>,
    /// Points whose square is filled with a CSS colour (`"red"`, `"#ff000080"`,
    /// `"rgb(0, 128, 255)"`), under the stones: for heat maps and analysis.
    pub fill: Vec<((usize, usize), String)>,
    pub style: Style,
    pub caption: bool,
}

impl Default for Picture {
    fn default() -> Picture {
        Picture {
            size: None,
            coordinates: true,
            last_move: true,
            marks: Vec::new(),
            fill: Vec::new(),
            style: Style::Wood,
            caption: true,
        }
    }
}

/// Distance between lines, in the picture's units.
const CELL: usize = 40;
/// Wood beyond the outermost lines.
const PAD: usize = 28;
const STONE: usize = 19;

/// Whether `color` is safe to put in an attribute: letters, digits, `#`, `(`, `)`, `,`, `.`,
/// `%`, spaces and `-` only.
fn valid_color(color: &str) -> bool {
    !color.is_empty()
        && color.len() <= 64
        && color
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "#(),.% -".contains(c))
}

/// Star points along a side of `n` lines: `(index, is_middle)`.
fn star_lines(n: usize) -> Vec<(usize, bool)> {
    if n < 7 {
        return Vec::new();
    }
    let edge = if n < 12 { 2 } else { 3 };
    let mut lines = vec![(edge, false), (n - 1 - edge, false)];
    if n % 2 == 1 && n >= 9 {
        lines.push((n / 2, true));
    }
    lines
}

/// The star points of a `height` x `width` board: the corner points on boards of 7 lines and
/// more, the centre on odd sides from 9, and the side points on odd sides from 15 (9x9: 5,
/// 13x13: 5, 19x19: 9; none below 7x7).
pub fn star_points(height: usize, width: usize) -> Vec<(usize, usize)> {
    let mut points = Vec::new();
    for &(r, r_middle) in &star_lines(height) {
        for &(c, c_middle) in &star_lines(width) {
            let keep = match (r_middle, c_middle) {
                (false, false) | (true, true) => true,
                (true, false) => height >= 15,
                (false, true) => width >= 15,
            };
            if keep {
                points.push((r, c));
            }
        }
    }
    points.sort_unstable();
    points
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Stones each side has captured: the opponent's stones put on the board (at the start or by
/// moves) less those still there.
fn captures(game: &Game) -> (usize, usize) {
    let record = game.record();
    let placed = |color: Color| {
        let start = record
            .start
            .iter()
            .flatten()
            .filter(|&&s| s == Some(color))
            .count();
        let moves = record
            .turns
            .iter()
            .filter(|t| t.color == color && t.point.is_some())
            .count();
        start + moves
    };
    let board = game.board();
    let taken_by =
        |color: Color| placed(color.opponent()).saturating_sub(board.stone_count(color.opponent()));
    (taken_by(Color::Black), taken_by(Color::White))
}

/// The caption's parts at their longest, captures counted up to the board's number of points
/// (more is rare): they decide the caption's lines and font size, so that a picture's size
/// depends on the board and the options alone, never on the position (a picture that grew by a
/// line at the first move made the board jump in a notebook).
fn longest_parts(points: usize) -> [String; 3] {
    let most = "9".repeat(points.to_string().len());
    [
        "White to move".to_string(),
        format!("captures: black {most}, white {most}"),
        "last: white passed".to_string(),
    ]
}

/// The caption: lines of the parts of [`longest_parts`] put together, each with its font size;
/// a line can be empty (no last move yet), and keeps its place.
struct Caption {
    lines: Vec<(String, f64)>,
    font: f64,
}

impl Caption {
    fn new(game: &Game, width: usize) -> Caption {
        let points = game.board().height() * game.board().width();
        let (groups, font) = layout(&longest_parts(points), width);
        let parts = caption_parts(game);
        let lines = groups
            .iter()
            .map(|group| {
                let line = group
                    .iter()
                    .map(|&i| parts[i].as_str())
                    .filter(|part| !part.is_empty())
                    .collect::<Vec<_>>()
                    .join(" \u{b7} ");
                // Only more captures than points make a line longer than the longest parts.
                let line_font = font.min(fitting_font(line.chars().count(), width));
                (line, line_font)
            })
            .collect();
        Caption { lines, font }
    }

    fn height(&self) -> usize {
        (self.font * (1.25 * self.lines.len() as f64 + 0.2)).ceil() as usize + 8
    }
}

/// The side to move, the captures, and the last turn (empty before the first).
fn caption_parts(game: &Game) -> [String; 3] {
    let (black, white) = captures(game);
    let to_move = match game.to_move() {
        Color::Black => "Black to move",
        Color::White => "White to move",
    };
    let last = match game.record().turns.last() {
        Some(turn) => match turn.point {
            Some((r, c)) => format!(
                "last: {} {}",
                turn.color,
                coord::format_letter_first(r, c, game.board().height())
            ),
            None => format!("last: {} passed", turn.color),
        },
        None => String::new(),
    };
    [
        to_move.to_string(),
        format!("captures: black {black}, white {white}"),
        last,
    ]
}

/// Which parts go on each line, and the font size, for a picture `width` wide: the longest
/// parts joined while they fit, the font made smaller if one of them alone does not.
fn layout(longest_parts: &[String], width: usize) -> (Vec<Vec<usize>>, f64) {
    let font = (width as f64 / 24.0).clamp(10.0, 16.0);
    let fits = |chars: usize| chars as f64 * 0.6 * font <= width as f64 - 8.0;
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut chars_in_last = 0;
    for (i, part) in longest_parts.iter().enumerate() {
        let chars = part.chars().count();
        match groups.last_mut() {
            Some(group) if fits(chars_in_last + 3 + chars) => {
                group.push(i);
                chars_in_last += 3 + chars;
            }
            _ => {
                groups.push(vec![i]);
                chars_in_last = chars;
            }
        }
    }
    let longest = longest_parts.iter().map(|p| p.chars().count()).max().unwrap_or(1);
    let font = if fits(longest) {
        font
    } else {
        fitting_font(longest, width).max(5.0)
    };
    (groups, font)
}

/// The font size at which a line of `chars` characters fills `width` less a margin: DejaVu
/// Sans averages about 0.6 em a character.
fn fitting_font(chars: usize, width: usize) -> f64 {
    (width as f64 - 8.0) / (0.6 * chars.max(1) as f64)
}

/// The picture; an error names a point off the board or a colour that is not a CSS colour.
pub fn svg(game: &Game, options: &Picture) -> Result<String, String> {
    let board = game.board();
    let (height, width) = (board.height(), board.width());
    let on_board = |&(r, c): &(usize, usize)| {
        if r < height && c < width {
            Ok(())
        } else {
            Err(format!("({r}, {c}) is off the {height}x{width} board"))
        }
    };
    for point in &options.marks {
        on_board(point)?;
    }
    for (point, color) in &options.fill {
        on_board(point)?;
        if !valid_color(color) {
            return Err(format!(
                "{color:?} is not a colour (like 'red', '#ff000080' or 'rgb(0, 128, 255)')"
            ));
        }
    }
    let band = if options.coordinates { 32 } else { 6 };
    let board_w = (width - 1) * CELL + 2 * PAD;
    let board_h = (height - 1) * CELL + 2 * PAD;
    let total_w = board_w + 2 * band;
    let caption = options.caption.then(|| Caption::new(game, total_w));
    let caption_height = caption.as_ref().map_or(0, Caption::height);
    let total_h = board_h + 2 * band + caption_height;
    let x = |c: usize| band + PAD + c * CELL;
    let y = |r: usize| band + PAD + r * CELL;
    let (background, board_fill) = match options.style {
        Style::Wood => ("#e8c77c", "#dcb35c"),
        Style::Plain => ("#ffffff", "#ffffff"),
    };

    let mut s = String::new();
    let size = match options.size {
        Some(px) => {
            let px_h = (u64::from(px) * total_h as u64).div_ceil(total_w as u64);
            format!(" width=\"{px}\" height=\"{px_h}\"")
        }
        None => String::new(),
    };
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" viewBox=\"0 0 {total_w} {total_h}\"{size} role=\"img\">"
    );
    let to_move = game.to_move();
    let _ = write!(
        s,
        "<title>{height}x{width} Go board, {to_move} to move</title><desc>{}\n{to_move} to move</desc>",
        xml_escape(&render(board))
    );
    s.push_str(
        "<defs><radialGradient id=\"black-stone\" cx=\"35%\" cy=\"30%\" r=\"70%\">\
         <stop offset=\"0\" stop-color=\"#5a5a5a\"/><stop offset=\"1\" stop-color=\"#0a0a0a\"/></radialGradient>\
         <radialGradient id=\"white-stone\" cx=\"35%\" cy=\"30%\" r=\"75%\">\
         <stop offset=\"0\" stop-color=\"#ffffff\"/><stop offset=\"1\" stop-color=\"#d0d0d0\"/></radialGradient></defs>",
    );
    let _ = write!(
        s,
        "<rect width=\"{total_w}\" height=\"{total_h}\" fill=\"{background}\"/>"
    );
    let _ = write!(
        s,
        "<rect x=\"{band}\" y=\"{band}\" width=\"{board_w}\" height=\"{board_h}\" fill=\"{board_fill}\" stroke=\"#7a5a20\" stroke-width=\"1\"/>"
    );

    // Fills under the lines' ink, so the grid stays readable.
    for ((r, c), color) in &options.fill {
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{color}\" fill-opacity=\"0.6\"/>",
            x(*c) - CELL / 2,
            y(*r) - CELL / 2
        );
    }

    s.push_str("<g stroke=\"#000000\" stroke-width=\"1.2\" stroke-linecap=\"square\">");
    for r in 0..height {
        let _ = write!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            x(0),
            y(r),
            x(width - 1),
            y(r)
        );
    }
    for c in 0..width {
        let _ = write!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            x(c),
            y(0),
            x(c),
            y(height - 1)
        );
    }
    s.push_str("</g>");
    if height > 1 && width > 1 {
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2.4\"/>",
            x(0),
            y(0),
            (width - 1) * CELL,
            (height - 1) * CELL
        );
    }
    for (r, c) in star_points(height, width) {
        let _ = write!(
            s,
            "<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"#000000\"/>",
            x(c),
            y(r)
        );
    }

    if options.coordinates {
        let _ = write!(
            s,
            "<g font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"17\" fill=\"#2b1d05\" text-anchor=\"middle\">"
        );
        for (c, &letter) in COLUMN_LETTERS.iter().enumerate().take(width) {
            let letter = letter as char;
            let _ = write!(s, "<text x=\"{}\" y=\"{}\">{letter}</text>", x(c), band - 10);
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{}\">{letter}</text>",
                x(c),
                band + board_h + 22
            );
        }
        for r in 0..height {
            let number = height - r;
            let _ = write!(s, "<text x=\"{}\" y=\"{}\">{number}</text>", band / 2, y(r) + 6);
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{}\">{number}</text>",
                band + board_w + band / 2,
                y(r) + 6
            );
        }
        s.push_str("</g>");
    }

    for r in 0..height {
        for c in 0..width {
            let Some(color) = board.stone(board.point(r, c)) else {
                continue;
            };
            let (gradient, edge) = match color {
                Color::Black => ("black-stone", "#000000"),
                Color::White => ("white-stone", "#303030"),
            };
            let _ = write!(
                s,
                "<circle class=\"stone {color}\" cx=\"{}\" cy=\"{}\" r=\"{STONE}\" fill=\"url(#{gradient})\" stroke=\"{edge}\" stroke-width=\"1.5\"/>",
                x(c),
                y(r)
            );
        }
    }

    let record = game.record();
    let last = record.turns.last();
    if options.last_move {
        if let Some(&(r, c)) = last.and_then(|t| t.point.as_ref()) {
            let ring = match board.stone(board.point(r, c)) {
                Some(Color::Black) => "#ffffff",
                _ => "#000000",
            };
            let _ = write!(
                s,
                "<circle class=\"last-move\" cx=\"{}\" cy=\"{}\" r=\"9\" fill=\"none\" stroke=\"{ring}\" stroke-width=\"2.5\"/>",
                x(c),
                y(r)
            );
        }
    }
    if let Some(p) = board.ko_point(to_move) {
        let (r, c) = board.row_col(p);
        let _ = write!(
            s,
            "<rect class=\"ko\" x=\"{}\" y=\"{}\" width=\"16\" height=\"16\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2\"/>",
            x(c) - 8,
            y(r) - 8
        );
    }
    for &(r, c) in &options.marks {
        let mark = match board.stone(board.point(r, c)) {
            Some(Color::Black) => "#ff6060",
            _ => "#c00000",
        };
        let (cx, cy) = (x(c), y(r));
        let _ = write!(
            s,
            "<path class=\"mark\" d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"{mark}\" stroke-width=\"3\" stroke-linecap=\"round\"/>",
            cx - 8,
            cy - 8,
            cx + 8,
            cy + 8,
            cx - 8,
            cy + 8,
            cx + 8,
            cy - 8
        );
    }

    if let Some(caption) = &caption {
        for (i, (line, font)) in caption.lines.iter().enumerate() {
            if line.is_empty() {
                continue;
            }
            let _ = write!(
                s,
                "<text class=\"caption\" x=\"{}\" y=\"{:.1}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"{font:.1}\" fill=\"#1a1a1a\" text-anchor=\"middle\">{}</text>",
                total_w / 2,
                (board_h + 2 * band) as f64 + 4.0 + caption.font * (1.25 * i as f64 + 1.0),
                xml_escape(line)
            );
        }
    }
    s.push_str("</svg>");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_points_per_size() {
        assert_eq!(star_points(19, 19).len(), 9);
        assert_eq!(star_points(13, 13).len(), 5);
        assert_eq!(star_points(9, 9), [(2, 2), (2, 6), (4, 4), (6, 2), (6, 6)]);
        assert_eq!(star_points(7, 7).len(), 4);
        assert!(star_points(5, 5).is_empty());
        assert!(star_points(19, 5).is_empty());
        assert_eq!(star_points(19, 9).len(), 4 + 2 + 1);
    }

    #[test]
    fn colours_are_checked() {
        let game = Game::new(9, 9).unwrap();
        let picture = Picture {
            fill: vec![((0, 0), "red\"/><script>".into())],
            ..Picture::default()
        };
        assert!(svg(&game, &picture).unwrap_err().contains("not a colour"));
        let picture = Picture {
            marks: vec![(9, 0)],
            ..Picture::default()
        };
        assert!(svg(&game, &picture).unwrap_err().contains("off the 9x9 board"));
    }
}
