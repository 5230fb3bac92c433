//! Seeks waiting for a partner, and pairing: the oldest compatible seek of the same size.

use super::protocol::SeekColor;
use crate::engine::Color;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seek {
    /// The player's name as registered.
    pub name: String,
    pub size: usize,
    pub color: SeekColor,
}

/// Two players paired for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub size: usize,
    pub black: String,
    pub white: String,
}

/// Waiting seeks, oldest first; at most one per player.
#[derive(Default)]
pub struct Lobby {
    seeks: Vec<Seek>,
}

impl Lobby {
    /// `seek` replaces the player's earlier seek, then is paired with the oldest compatible
    /// seek of another player, or waits. `coin` draws black for the new seek when both said any.
    pub fn seek(&mut self, seek: Seek, coin: impl FnOnce() -> bool) -> Option<Pairing> {
        self.cancel(&seek.name);
        let Some(index) = self
            .seeks
            .iter()
            .position(|waiting| waiting.size == seek.size && compatible(waiting.color, seek.color))
        else {
            self.seeks.push(seek);
            return None;
        };
        let waiting = self.seeks.remove(index);
        Some(pair(seek, waiting, coin))
    }

    /// Withdraws the player's seek; whether there was one.
    pub fn cancel(&mut self, name: &str) -> bool {
        let before = self.seeks.len();
        self.seeks.retain(|seek| !seek.name.eq_ignore_ascii_case(name));
        self.seeks.len() != before
    }

    pub fn waiting(&self) -> &[Seek] {
        &self.seeks
    }
}

/// Whether two seeks' colours fit: not both the same colour.
pub fn compatible(a: SeekColor, b: SeekColor) -> bool {
    match (a.wanted(), b.wanted()) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

/// The game of a new seek and the waiting one it fits: a colour asked for decides, and `coin`
/// draws black for the new seek when both said any.
pub fn pair(seek: Seek, waiting: Seek, coin: impl FnOnce() -> bool) -> Pairing {
    let new_is_black = match (seek.color.wanted(), waiting.color.wanted()) {
        (Some(color), _) => color == Color::Black,
        (None, Some(color)) => color == Color::White,
        (None, None) => coin(),
    };
    let (black, white) = if new_is_black {
        (seek.name, waiting.name)
    } else {
        (waiting.name, seek.name)
    };
    Pairing {
        size: seek.size,
        black,
        white,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seek(name: &str, size: usize, color: SeekColor) -> Seek {
        Seek {
            name: name.into(),
            size,
            color,
        }
    }

    fn never() -> bool {
        panic!("no coin is needed here")
    }

    #[test]
    fn the_oldest_compatible_seek_of_the_same_size_is_paired() {
        let mut lobby = Lobby::default();
        assert_eq!(lobby.seek(seek("a", 9, SeekColor::Black), never), None);
        assert_eq!(lobby.seek(seek("b", 13, SeekColor::White), never), None);
        assert_eq!(
            lobby.seek(seek("c", 9, SeekColor::Black), never),
            None,
            "black does not pair black"
        );
        assert_eq!(
            lobby.seek(seek("d", 9, SeekColor::Any), never),
            Some(Pairing {
                size: 9,
                black: "a".into(),
                white: "d".into()
            })
        );
        assert_eq!(
            lobby.seek(seek("e", 9, SeekColor::White), never),
            Some(Pairing {
                size: 9,
                black: "c".into(),
                white: "e".into()
            })
        );
        assert_eq!(lobby.waiting(), &[seek("b", 13, SeekColor::White)]);
    }

    #[test]
    fn any_with_any_draws_colours_and_a_player_never_meets_itself() {
        let mut lobby = Lobby::default();
        assert_eq!(lobby.seek(seek("a", 9, SeekColor::Any), never), None);
        assert_eq!(
            lobby.seek(seek("A", 9, SeekColor::Any), never),
            None,
            "the same player, any case"
        );
        assert_eq!(lobby.waiting().len(), 1, "a new seek replaces the old");
        let pairing = lobby.seek(seek("b", 9, SeekColor::Any), || true).unwrap();
        assert_eq!((pairing.black.as_str(), pairing.white.as_str()), ("b", "A"));
        lobby.seek(seek("a", 9, SeekColor::Any), never);
        let pairing = lobby.seek(seek("b", 9, SeekColor::Any), || false).unwrap();
        assert_eq!((pairing.black.as_str(), pairing.white.as_str()), ("a", "b"));
    }

    #[test]
    fn a_specific_colour_decides_against_any() {
        let mut lobby = Lobby::default();
        lobby.seek(seek("a", 19, SeekColor::White), never);
        let pairing = lobby.seek(seek("b", 19, SeekColor::Any), never).unwrap();
        assert_eq!((pairing.black.as_str(), pairing.white.as_str()), ("b", "a"));
        lobby.seek(seek("a", 19, SeekColor::Any), never);
        let pairing = lobby.seek(seek("b", 19, SeekColor::White), never).unwrap();
        assert_eq!((pairing.black.as_str(), pairing.white.as_str()), ("a", "b"));
        assert!(!lobby.cancel("a"));
        lobby.seek(seek("a", 19, SeekColor::Any), never);
        assert!(lobby.cancel("A"));
        assert!(lobby.waiting().is_empty());
    }
}
