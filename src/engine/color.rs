//! Stone colours.

use std::fmt;
use std::str::FromStr;

use super::error::GoError;

/// The colour of a stone, and of a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Color {
    Black = 1,
    White = 2,
}

impl Color {
    #[inline(always)]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `"black"` or `"white"`.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// The kata's board character: `'x'` for black, `'o'` for white.
    pub fn symbol(self) -> char {
        match self {
            Color::Black => 'x',
            Color::White => 'o',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Color {
    type Err = GoError;

    /// Accepts `black`/`white`, `b`/`w` and `x`/`o`, in any case.
    fn from_str(text: &str) -> Result<Color, GoError> {
        match text.to_ascii_lowercase().as_str() {
            "black" | "b" | "x" => Ok(Color::Black),
            "white" | "w" | "o" => Ok(Color::White),
            _ => Err(GoError::Color(text.to_string())),
        }
    }
}
