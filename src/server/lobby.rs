//! Seeks waiting for a partner, and pairing: the oldest seek that fits, by size, colour, kind
//! of opponent and terms (rated or not, handicap, komi, time control). The one rule both
//! stores pair by.

use super::protocol::{Opponent, SeekColor};
use super::rating::{handicap_stones, Rating};
#[cfg(test)]
use super::terms::Scoring;
use super::terms::{GameTerms, HandicapAsk, SeekTerms, DEFAULT_KOMI};
use gokata_engine::Color;

#[derive(Clone, Debug, PartialEq)]
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
    pub terms: SeekTerms,
    /// The player's rating when it sought: its rank, and the handicap of an automatic one.
    pub rating: Rating,
}

impl Seek {
    /// What the seek asks and its player's rating, as a shared store keeps them.
    pub fn terms_to_text(&self) -> String {
        let rating = [self.rating.rating, self.rating.deviation, self.rating.volatility];
        serde_json::json!({"terms": self.terms.to_json(), "rating": rating}).to_string()
    }

    /// Reads what [`Seek::terms_to_text`] wrote.
    pub fn terms_from_text(text: &str) -> Result<(SeekTerms, Rating), String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
        let number = |at: usize| value["rating"][at].as_f64().ok_or(format!("no rating in {text}"));
        let rating = Rating {
            rating: number(0)?,
            deviation: number(1)?,
            volatility: number(2)?,
        };
        Ok((SeekTerms::from_json(&value["terms"])?, rating))
    }
}

/// Two players paired for a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    pub size: usize,
    pub black: String,
    pub white: String,
    /// Whether black and white are programs.
    pub bots: [bool; 2],
    pub terms: GameTerms,
}

/// Waiting seeks, oldest first; at most one per player.
#[derive(Default)]
pub struct Lobby {
    seeks: Vec<Seek>,
    /// Counts the changes to `seeks`, so that a reader of them knows when to read again.
    changes: u64,
}

impl Lobby {
    /// `seek` replaces the player's earlier seek, then is paired with the oldest seek of
    /// another player that fits it, or waits. `coin` draws black for the new seek when both
    /// said any.
    pub fn seek(&mut self, seek: Seek, coin: impl FnOnce() -> bool) -> Option<Pairing> {
        self.cancel(&seek.name);
        self.changes += 1;
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
        let cancelled = self.seeks.len() != before;
        self.changes += u64::from(cancelled);
        cancelled
    }

    pub fn waiting(&self) -> &[Seek] {
        &self.seeks
    }

    /// How many times the seeks waiting changed.
    pub fn changes(&self) -> u64 {
        self.changes
    }
}

/// Whether a waiting seek and a new one make a game: another player, a size in common, the
/// same terms, each player the kind of opponent the other asked for, and colours that fit.
pub fn fits(waiting: &Seek, seek: &Seek) -> bool {
    let Some(size) = common_size(seek, waiting) else {
        return false;
    };
    !waiting.name.eq_ignore_ascii_case(&seek.name)
        && waiting.terms == seek.terms
        && waiting.opponent.accepts(seek.bot)
        && seek.opponent.accepts(waiting.bot)
        && match ranked_colours(waiting, seek, size) {
            // The weaker is black: a colour asked for must be the one its rank gets.
            Some((weaker, stronger)) => {
                weaker.color.wanted() != Some(Color::White) && stronger.color.wanted() != Some(Color::Black)
            }
            None => compatible(waiting.color, seek.color),
        }
}

/// Whether two seeks' colours fit: not both the same colour.
pub fn compatible(a: SeekColor, b: SeekColor) -> bool {
    match (a.wanted(), b.wanted()) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

/// For an automatic handicap of two stones or more, the two seeks weaker first; `None` where
/// the colours are the seeks' to choose.
fn ranked_colours<'a>(a: &'a Seek, b: &'a Seek, size: usize) -> Option<(&'a Seek, &'a Seek)> {
    if a.terms.handicap != HandicapAsk::Auto || automatic_stones(a, b, size) == 0 {
        return None;
    }
    Some(if a.rating.rank() < b.rating.rank() {
        (a, b)
    } else {
        (b, a)
    })
}

fn automatic_stones(a: &Seek, b: &Seek, size: usize) -> u32 {
    handicap_stones(a.rating.rank() - b.rating.rank(), size)
}

/// The size of a game of `seek` with `waiting`: the first of the new seek's sizes the waiting
/// one accepts.
fn common_size(seek: &Seek, waiting: &Seek) -> Option<usize> {
    seek.sizes
        .iter()
        .copied()
        .find(|size| waiting.sizes.contains(size))
}

/// The game of a new seek and a waiting one that fits it. With an automatic handicap of two
/// stones or more the weaker player is black; otherwise a colour asked for decides, and `coin`
/// draws black for the new seek when both said any.
pub fn pair(seek: Seek, waiting: Seek, coin: impl FnOnce() -> bool) -> Pairing {
    let size = common_size(&seek, &waiting).expect("paired seeks share a size");
    let handicap = match seek.terms.handicap {
        HandicapAsk::Auto => automatic_stones(&seek, &waiting, size),
        HandicapAsk::Stones(stones) => stones,
    };
    let new_is_black = match ranked_colours(&seek, &waiting, size) {
        Some((weaker, _)) => std::ptr::eq(weaker, &seek),
        None => match (seek.color.wanted(), waiting.color.wanted()) {
            (Some(color), _) => color == Color::Black,
            (None, Some(color)) => color == Color::White,
            (None, None) => coin(),
        },
    };
    let (black, white) = if new_is_black {
        (seek, waiting)
    } else {
        (waiting, seek)
    };
    let terms = GameTerms {
        rated: black.terms.rated,
        handicap,
        komi: match black.terms.handicap {
            HandicapAsk::Auto => DEFAULT_KOMI,
            HandicapAsk::Stones(_) => black.terms.komi,
        },
        time: black.terms.time,
        ranks: [black.rating.rank_label(), white.rating.rank_label()],
        scoring: black.terms.scoring,
    };
    Pairing {
        size,
        bots: [black.bot, white.bot],
        black: black.name,
        white: white.name,
        terms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time_control::TimeControl;

    fn seek(name: &str, size: usize, color: SeekColor) -> Seek {
        Seek {
            name: name.into(),
            sizes: vec![size],
            color,
            opponent: Opponent::Human,
            bot: false,
            terms: SeekTerms::even(TIME),
            rating: Rating::NEW,
        }
    }

    fn bot(name: &str, sizes: &[usize], opponent: Opponent) -> Seek {
        Seek {
            name: name.into(),
            sizes: sizes.to_vec(),
            color: SeekColor::Any,
            opponent,
            bot: true,
            terms: SeekTerms::even(TIME),
            rating: Rating::NEW,
        }
    }

    const TIME: TimeControl = TimeControl::PerMove { move_ms: 300_000 };

    /// The terms of a game of two new players' default seeks.
    fn even_game() -> GameTerms {
        GameTerms {
            rated: true,
            handicap: 0,
            komi: 0.5,
            time: TIME,
            ranks: ["6k?".into(), "6k?".into()],
            scoring: Scoring::AllAlive,
        }
    }

    fn rated(name: &str, sizes: &[usize], color: SeekColor, rating: f64) -> Seek {
        Seek {
            sizes: sizes.to_vec(),
            terms: SeekTerms {
                handicap: HandicapAsk::Auto,
                ..SeekTerms::even(TIME)
            },
            rating: Rating {
                rating,
                deviation: 100.0,
                volatility: 0.06,
            },
            ..seek(name, sizes[0], color)
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
                terms: even_game(),
            })
        );
        assert_eq!(
            lobby.seek(seek("e", 9, SeekColor::White), never),
            Some(Pairing {
                size: 9,
                black: "c".into(),
                white: "e".into(),
                bots: [false; 2],
                terms: even_game(),
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
                terms: even_game(),
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

    #[test]
    fn seeks_pair_only_with_the_same_terms() {
        let mut lobby = Lobby::default();
        let mut unrated = seek("a", 9, SeekColor::Any);
        unrated.terms.rated = false;
        lobby.seek(unrated.clone(), never);
        assert_eq!(
            lobby.seek(seek("b", 9, SeekColor::Any), never),
            None,
            "rated and unrated"
        );
        let mut faster = seek("c", 9, SeekColor::Any);
        faster.terms.rated = false;
        faster.terms.time = TimeControl::Absolute { total_ms: 60_000 };
        assert_eq!(lobby.seek(faster, never), None, "another time control");
        let mut komi = unrated.clone();
        komi.name = "d".into();
        komi.terms.komi = 6.5;
        assert_eq!(lobby.seek(komi, never), None, "another komi");
        let mut same = unrated.clone();
        same.name = "e".into();
        let pairing = lobby.seek(same, || true).unwrap();
        assert_eq!((pairing.black.as_str(), pairing.white.as_str()), ("e", "a"));
        assert!(!pairing.terms.rated);
        let mut stones = seek("f", 19, SeekColor::White);
        stones.terms = SeekTerms {
            handicap: HandicapAsk::Stones(3),
            rated: false,
            ..SeekTerms::even(TIME)
        };
        lobby.seek(stones.clone(), never);
        stones.name = "g".into();
        stones.color = SeekColor::Any;
        let pairing = lobby.seek(stones, never).unwrap();
        assert_eq!((pairing.black.as_str(), pairing.terms.handicap), ("g", 3));
    }

    #[test]
    fn an_automatic_handicap_comes_from_the_ranks_and_the_weaker_is_black() {
        // 1500 is rank 24.30; 1000 is 14.92 (9.4 ranks weaker), 1400 is 22.71 (1.6 weaker).
        for (size, stones) in [(19, 9), (13, 3), (9, 0)] {
            let mut lobby = Lobby::default();
            lobby.seek(rated("strong", &[size], SeekColor::Any, 1500.0), never);
            let pairing = lobby
                .seek(rated("weak", &[size], SeekColor::Any, 1000.0), || false)
                .unwrap();
            assert_eq!(pairing.terms.handicap, stones, "{size}x{size}");
            if stones > 0 {
                assert_eq!(
                    (pairing.black.as_str(), pairing.white.as_str()),
                    ("weak", "strong")
                );
            }
            assert_eq!(pairing.terms.komi, 0.5);
            if stones > 0 {
                assert_eq!(pairing.terms.ranks, ["16k".to_string(), "6k".to_string()]);
            }
        }
        let mut lobby = Lobby::default();
        lobby.seek(rated("strong", &[19], SeekColor::Black, 1500.0), never);
        assert_eq!(
            lobby.seek(rated("weak", &[19], SeekColor::Any, 1000.0), never),
            None,
            "the stronger player asked for black, and stones make it white"
        );
        lobby.cancel("strong");
        lobby.cancel("weak");
        lobby.seek(rated("strong", &[19], SeekColor::White, 1500.0), never);
        let pairing = lobby
            .seek(rated("weakest", &[19], SeekColor::Black, 900.0), never)
            .unwrap();
        assert_eq!((pairing.black.as_str(), pairing.terms.handicap), ("weakest", 9));
        let mut lobby = Lobby::default();
        lobby.seek(rated("near", &[19], SeekColor::Black, 1400.0), never);
        let pairing = lobby.seek(rated("even", &[19], SeekColor::Black, 1500.0), never);
        assert_eq!(
            pairing, None,
            "an even game honours the colours: black with black does not pair"
        );
        let pairing = lobby
            .seek(rated("even", &[19], SeekColor::White, 1500.0), never)
            .unwrap();
        assert_eq!((pairing.black.as_str(), pairing.terms.handicap), ("near", 0));
    }
}
