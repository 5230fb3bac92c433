//! Seeks waiting for a partner, and pairing: the oldest seek that fits, by size, colour and
//! kind of opponent.

use super::protocol::{Opponent, SeekColor};
use gokata_engine::Color;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seek {
    /// The player's name as registered.
    pub name: String,
    /// The board sizes accepted, the preferred first.
    pub sizes: Vec<usize>,
    pub color: SeekColor,
    /// Whom the player will play.
    pub opponent: Opponent,
    /// Whether the player is a program.
    pub bot: bool,
}

/// Two players paired for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub size: usize,
    pub black: String,
    pub white: String,
    /// Whether black and white are programs.
    pub bots: [bool; 2],
}

/// Waiting seeks, oldest first; at most one per player.
#[derive(Default)]
pub struct Lobby {
    seeks: Vec<Seek>,
}

impl Lobby {
    /// `seek` replaces the player's earlier seek, then is paired with the oldest seek of
    /// another player that fits it, or waits. `coin` draws black for the new seek when both
    /// said any.
    pub fn seek(&mut self, seek: Seek, coin: impl FnOnce() -> bool) -> Option<Pairing> {
        self.cancel(&seek.name);
        let Some(index) = self.seeks.iter().position(|waiting| fits(waiting, &seek)) else {
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

/// Whether two seeks make a game: a size in common, not both the same colour, and each
/// player the kind of opponent the other asked for.
pub fn fits(a: &Seek, b: &Seek) -> bool {
    common_size(b, a).is_some()
        && compatible(a.color, b.color)
        && a.opponent.accepts(b.bot)
        && b.opponent.accepts(a.bot)
}

/// Whether two seeks' colours fit: not both the same colour.
pub fn compatible(a: SeekColor, b: SeekColor) -> bool {
    match (a.wanted(), b.wanted()) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

/// The size of a game of `seek` with `waiting`: the first of the new seek's sizes the waiting
/// one accepts.
fn common_size(seek: &Seek, waiting: &Seek) -> Option<usize> {
    seek.sizes
        .iter()
        .copied()
        .find(|size| waiting.sizes.contains(size))
}

/// The game of a new seek and a waiting one that fits it: a colour asked for decides, and
/// `coin` draws black for the new seek when both said any.
pub fn pair(seek: Seek, waiting: Seek, coin: impl FnOnce() -> bool) -> Pairing {
    let size = common_size(&seek, &waiting).expect("paired seeks share a size");
    let new_is_black = match (seek.color.wanted(), waiting.color.wanted()) {
        (Some(color), _) => color == Color::Black,
        (None, Some(color)) => color == Color::White,
        (None, None) => coin(),
    };
    let (black, white) = if new_is_black {
        (seek, waiting)
    } else {
        (waiting, seek)
    };
    Pairing {
        size,
        bots: [black.bot, white.bot],
        black: black.name,
        white: white.name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seek(name: &str, size: usize, color: SeekColor) -> Seek {
        Seek {
            name: name.into(),
            sizes: vec![size],
            color,
            opponent: Opponent::Human,
            bot: false,
        }
    }

    fn bot(name: &str, sizes: &[usize], opponent: Opponent) -> Seek {
        Seek {
            name: name.into(),
            sizes: sizes.to_vec(),
            color: SeekColor::Any,
            opponent,
            bot: true,
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
                white: "d".into(),
                bots: [false; 2],
            })
        );
        assert_eq!(
            lobby.seek(seek("e", 9, SeekColor::White), never),
            Some(Pairing {
                size: 9,
                black: "c".into(),
                white: "e".into(),
                bots: [false; 2],
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

    #[test]
    fn people_meet_bots_only_when_they_ask_and_bots_meet_bots_only_when_both_ask() {
        let mut lobby = Lobby::default();
        assert_eq!(
            lobby.seek(bot("robot", &[9, 13, 19], Opponent::Human), never),
            None
        );
        assert_eq!(
            lobby.seek(seek("alice", 9, SeekColor::Any), never),
            None,
            "a person's seek asks for a person by default"
        );
        let mut asking = seek("bob", 13, SeekColor::Black);
        asking.opponent = Opponent::Computer;
        let pairing = lobby.seek(asking, never).unwrap();
        assert_eq!(
            pairing,
            Pairing {
                size: 13,
                black: "bob".into(),
                white: "robot".into(),
                bots: [false, true],
            }
        );
        assert_eq!(lobby.waiting(), &[seek("alice", 9, SeekColor::Any)]);
        lobby.cancel("alice");
        assert_eq!(lobby.seek(bot("robot", &[9], Opponent::Human), never), None);
        assert_eq!(
            lobby.seek(bot("droid", &[9], Opponent::Any), never),
            None,
            "the waiting bot asked for people"
        );
        let pairing = lobby
            .seek(bot("tin", &[19, 9], Opponent::Computer), || true)
            .unwrap();
        assert_eq!((pairing.size, pairing.bots), (9, [true, true]));
        assert_eq!((pairing.black.as_str(), pairing.white.as_str()), ("tin", "droid"));
    }

    #[test]
    fn a_game_takes_the_new_seeks_first_size_that_the_waiting_one_accepts() {
        let mut lobby = Lobby::default();
        let mut many = bot("robot", &[19, 9], Opponent::Any);
        many.bot = false;
        lobby.seek(many, never);
        let mut asking = seek("alice", 13, SeekColor::Any);
        asking.sizes = vec![13, 9, 19];
        let pairing = lobby.seek(asking, || false).unwrap();
        assert_eq!(pairing.size, 9);
        assert!(lobby.waiting().is_empty());
    }
}
