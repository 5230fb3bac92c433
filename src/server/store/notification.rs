//! What one process tells the others on commit, through PostgreSQL's `NOTIFY`: the turns it
//! stored, whole (a turn is a few bytes, and every other process would otherwise read it back),
//! and the games that changed otherwise (a new game, a result), which the others read.
//!
//! A payload is `INSTANCE ENTRY ENTRY ...`: `t:GAME:PLY:POINT:CLOCKS` a stored turn (`-` for a
//! pass; CLOCKS both players' after it, `MAIN.PERIODS.PERIOD_MS.STONES,...` black first),
//! `g:GAME` a game to read, `p:NAME:1` and `p:NAME:0` a player's first connection to the sender
//! and its last one gone, `p?` a process asking every other to tell who is connected to it, `s`
//! a seek placed or withdrawn (the seeks are read again). A commit's entries are split over as many payloads as PostgreSQL's
//! limit of 8,000 bytes needs, all sent in the same transaction (which takes the cluster-wide
//! lock for notifying commits once).

/// A payload's length at most.
const MAX_PAYLOAD: usize = 7_900;

/// One change another process stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Turn {
        game: String,
        ply: usize,
        point: Option<String>,
        /// Both clocks after the turn, black first (absent from older processes' entries).
        clocks: Option<[Clock; 2]>,
    },
    /// Read this game from the database.
    Game(String),
    /// A chat message of this game, stored under `id`.
    Chat { game: String, id: i64 },
    /// A player connected to the sending process (`here`), or no longer.
    Presence { player: String, here: bool },
    /// Tell me every player connected to you (my listener missed what you said).
    WhoIsHere,
    /// A seek was placed or withdrawn.
    Seeks,
}

/// What another process changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remote {
    Changes {
        from: String,
        changes: Vec<Change>,
    },
    /// Anything may have changed (a newer process said what this one does not know): read
    /// every live game.
    Everything,
    /// The listener (re)connected: what was told while it was not listening is lost, games and
    /// who is connected where.
    Listening,
    /// The processes alive now: the players connected to any other are gone.
    Alive(Vec<String>),
}

/// The payloads telling `changes`, in order.
pub fn payloads(instance: &str, changes: &[Change]) -> Vec<String> {
    let mut payloads = Vec::new();
    let mut payload = instance.to_string();
    for change in changes {
        let entry = match change {
            Change::Turn {
                game,
                ply,
                point,
                clocks,
            } => {
                let point = point.as_deref().unwrap_or("-");
                match clocks {
                    Some(clocks) => {
                        let [black, white] = clocks
                            .map(|c| format!("{}.{}.{}.{}", c.main_ms, c.periods, c.period_ms, c.stones));
                        format!("t:{game}:{ply}:{point}:{black},{white}")
                    }
                    None => format!("t:{game}:{ply}:{point}"),
                }
            }
            Change::Game(game) => format!("g:{game}"),
            Change::Chat { game, id } => format!("c:{game}:{id}"),
            Change::Presence { player, here } => format!("p:{player}:{}", u8::from(*here)),
            Change::WhoIsHere => "p?".to_string(),
            Change::Seeks => "s".to_string(),
        };
        if payload.len() + 1 + entry.len() > MAX_PAYLOAD {
            payloads.push(std::mem::replace(&mut payload, instance.to_string()));
        }
        payload.push(' ');
        payload.push_str(&entry);
    }
    if payload.len() > instance.len() {
        payloads.push(payload);
    }
    payloads
}

/// The sender's instance and its changes; entries of another form are left out (a newer
/// process may say more), and a payload that has none left asks for everything to be read.
pub fn parse(payload: &str) -> (&str, Remote) {
    let mut words = payload.split_whitespace();
    let instance = words.next().unwrap_or("");
    let mut changes = Vec::new();
    let mut unknown = false;
    for word in words {
        match parse_entry(word) {
            Some(change) => changes.push(change),
            None => unknown = true,
        }
    }
    if changes.is_empty() && unknown {
        return (instance, Remote::Everything);
    }
    let from = instance.to_string();
    (instance, Remote::Changes { from, changes })
}

fn parse_entry(word: &str) -> Option<Change> {
    if let Some(game) = word.strip_prefix("g:") {
        return Some(Change::Game(game.to_string()));
    }
    if let Some(chat) = word.strip_prefix("c:") {
        let (game, id) = chat.rsplit_once(':')?;
        return Some(Change::Chat {
            game: game.to_string(),
            id: id.parse().ok()?,
        });
    }
    if word == "p?" {
        return Some(Change::WhoIsHere);
    }
    if word == "s" {
        return Some(Change::Seeks);
    }
    if let Some(presence) = word.strip_prefix("p:") {
        let (player, here) = presence.rsplit_once(':')?;
        let here = match here {
            "1" => true,
            "0" => false,
            _ => return None,
        };
        return Some(Change::Presence {
            player: player.to_string(),
            here,
        });
    }
    let mut parts = word.strip_prefix("t:")?.split(':');
    let (game, ply, point) = (parts.next()?, parts.next()?, parts.next()?);
    let clocks = match parts.next() {
        None => None,
        Some(clocks) => {
            let (black, white) = clocks.split_once(',')?;
            Some([parse_clock(black)?, parse_clock(white)?])
        }
    };
    if parts.next().is_some() {
        return None;
    }
    Some(Change::Turn {
        game: game.to_string(),
        ply: ply.parse().ok()?,
        point: (point != "-").then(|| point.to_string()),
        clocks,
    })
}

fn parse_clock(text: &str) -> Option<Clock> {
    let mut numbers = text.split('.');
    let clock = Clock {
        main_ms: numbers.next()?.parse().ok()?,
        periods: numbers.next()?.parse().ok()?,
        period_ms: numbers.next()?.parse().ok()?,
        stones: numbers.next()?.parse().ok()?,
    };
    numbers.next().is_none().then_some(clock)
}

use crate::time_control::Clock;

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(game: &str, ply: usize, point: Option<&str>) -> Change {
        Change::Turn {
            game: game.into(),
            ply,
            point: point.map(String::from),
            clocks: None,
        }
    }

    #[test]
    fn changes_read_back_as_they_were_told() {
        let clocked = Change::Turn {
            game: "g3".into(),
            ply: 4,
            point: None,
            clocks: Some([
                Clock {
                    main_ms: 0,
                    periods: 3,
                    period_ms: 30_000,
                    stones: 0,
                },
                Clock {
                    main_ms: 12,
                    periods: 0,
                    period_ms: 0,
                    stones: 0,
                },
            ]),
        };
        let changes = vec![
            clocked,
            turn("g1", 0, Some("5E")),
            turn("g1", 1, None),
            Change::Game("g1".into()),
            turn("g2", 17, Some("19T")),
            Change::Presence {
                player: "bob_2-x".into(),
                here: false,
            },
            Change::WhoIsHere,
            Change::Presence {
                player: "Al".into(),
                here: true,
            },
            Change::Chat {
                game: "g1".into(),
                id: 42,
            },
            Change::Seeks,
        ];
        let sent = payloads("me", &changes);
        assert_eq!(
            sent,
            vec![
                "me t:g3:4:-:0.3.30000.0,12.0.0.0 t:g1:0:5E t:g1:1:- g:g1 t:g2:17:19T p:bob_2-x:0 p? p:Al:1 c:g1:42 s"
                    .to_string()
            ]
        );
        let from = "me".to_string();
        assert_eq!(parse(&sent[0]), ("me", Remote::Changes { from, changes }));
    }

    #[test]
    fn many_changes_are_split_under_the_limit_in_order() {
        let changes: Vec<Change> = (0..2000)
            .map(|n| turn(&format!("game{n:08}"), n, Some("10K")))
            .collect();
        let sent = payloads("me", &changes);
        assert!(sent.len() > 1);
        assert!(sent.iter().all(|payload| payload.len() <= MAX_PAYLOAD));
        let read: Vec<Change> = sent
            .iter()
            .flat_map(|payload| match parse(payload) {
                ("me", Remote::Changes { changes, .. }) => changes,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(read, changes);
        assert!(payloads("me", &[]).is_empty());
    }

    #[test]
    fn entries_of_another_form_are_left_out() {
        assert_eq!(
            parse("them x:1 g:g1 t:g2:x:5E t:g2:1 p:bob:2 p:bob p!"),
            (
                "them",
                Remote::Changes {
                    from: "them".into(),
                    changes: vec![Change::Game("g1".into())]
                }
            )
        );
        assert_eq!(parse("them *"), ("them", Remote::Everything));
    }
}
