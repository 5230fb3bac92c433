//! The wire protocol (docs/protocol.md): client frames parsed with errors that name the bad
//! field, and the server's messages as JSON text; both read and written by the same types, by
//! the server and by its own peers. `docs/protocol-examples.jsonl` holds an example of each.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use gokata_engine::Color;

mod client_json;
mod colors;
#[cfg(test)]
mod examples;
mod messages;
mod seek;
#[cfg(test)]
mod tests;

pub use client_json::WithRef;
pub use messages::*;
pub use seek::AskedTerms;

/// The largest frame answered; larger ones get `bad_request`.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;

/// The error codes of the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadRequest,
    NameTaken,
    BadToken,
    NotYourGame,
    NotYourTurn,
    IllegalMove,
    UnknownGame,
    RateLimited,
    /// The server cannot reach its database for now; nothing was done: send it again.
    Unavailable,
}

/// A refused request: the `error` frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refused {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// Why a move is illegal (`occupied`, `suicide`, `ko`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Cow<'static, str>>,
}

impl Refused {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refused {
        Refused {
            code,
            message: message.into(),
            game: None,
            reason: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Refused {
        Refused::new(ErrorCode::BadRequest, message)
    }

    pub fn in_game(mut self, game: &str) -> Refused {
        self.game = Some(game.to_string());
        self
    }

    /// No game has this id.
    pub fn unknown_game(game: &str) -> Refused {
        Refused::new(ErrorCode::UnknownGame, format!("no game has the id {game:?}")).in_game(game)
    }

    /// The store could not be read or written (`error`): nothing was done.
    pub fn unavailable(error: impl std::fmt::Display) -> Refused {
        Refused::new(
            ErrorCode::Unavailable,
            format!("the server cannot reach its records ({error}); try again later"),
        )
    }

    /// A request that needs `hello` before it.
    pub fn hello_first() -> Refused {
        Refused::bad_request(
            "say hello first: {\"type\":\"hello\",\"name\":...} (only ping, watch, unwatch, watch_lobby and unwatch_lobby need none)",
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeekColor {
    Black,
    White,
    Any,
}

impl SeekColor {
    pub fn name(self) -> &'static str {
        match self {
            SeekColor::Black => "black",
            SeekColor::White => "white",
            SeekColor::Any => "any",
        }
    }

    pub fn from_name(name: &str) -> Option<SeekColor> {
        [SeekColor::Black, SeekColor::White, SeekColor::Any]
            .into_iter()
            .find(|color| color.name() == name)
    }

    /// The colour this seek insists on, if any.
    pub fn wanted(self) -> Option<Color> {
        match self {
            SeekColor::Black => Some(Color::Black),
            SeekColor::White => Some(Color::White),
            SeekColor::Any => None,
        }
    }
}

/// Whom a seek will play: people, computer programs (bots), or either.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Opponent {
    Human,
    Computer,
    Any,
}

impl Opponent {
    pub fn name(self) -> &'static str {
        match self {
            Opponent::Human => "human",
            Opponent::Computer => "computer",
            Opponent::Any => "any",
        }
    }

    pub fn from_name(name: &str) -> Option<Opponent> {
        [Opponent::Human, Opponent::Computer, Opponent::Any]
            .into_iter()
            .find(|opponent| opponent.name() == name)
    }

    /// Whether a player who is a bot (or not) is welcome.
    pub fn accepts(self, bot: bool) -> bool {
        match self {
            Opponent::Human => !bot,
            Opponent::Computer => bot,
            Opponent::Any => true,
        }
    }
}

/// A frame from a client.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientFrame {
    Hello {
        name: String,
        token: Option<String>,
        /// The player is a program: the account is marked as a bot for good.
        bot: bool,
    },
    Seek {
        /// The board sizes accepted, the preferred first; `size` on the wire, a number or a list.
        sizes: Vec<usize>,
        color: SeekColor,
        opponent: Opponent,
        terms: AskedTerms,
    },
    Cancel,
    Move {
        game: String,
        ply: usize,
        point: String,
    },
    Pass {
        game: String,
        ply: usize,
    },
    Resign {
        game: String,
    },
    /// Ask to take back the sender's last turn, `ply` turns into the game.
    Undo {
        game: String,
        ply: usize,
    },
    /// In the scoring phase: the chain at `point` dead or alive.
    Mark {
        game: String,
        point: String,
        dead: bool,
    },
    /// In the scoring phase: the dead stones accepted, as the sender sees them marked.
    Accept {
        game: String,
        dead: Vec<String>,
    },
    /// In the scoring phase: back to play.
    Resume {
        game: String,
    },
    /// A chat message in a game.
    Chat {
        game: String,
        text: String,
    },
    /// The opponent's answer to an undo request.
    UndoAnswer {
        game: String,
        ply: usize,
        accept: bool,
    },
    Sync {
        game: String,
    },
    Ping {
        t: Value,
    },
    /// Follow a game: its state, then its every `played`, `over` and `presence` (no `hello`
    /// needed).
    Watch {
        game: String,
    },
    Unwatch {
        game: String,
    },
    /// Follow the lobby: its lists, then again whenever they change (at most once a second).
    WatchLobby,
    UnwatchLobby,
}

/// The longest `ref` a client may give a frame, in characters.
pub const MAX_REF_CHARS: usize = 64;

/// A client's id for one of its frames (`ref`: a string of at most [`MAX_REF_CHARS`]
/// characters, or an integer), echoed in every frame sent in direct answer to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ref(Value);

impl Ref {
    /// `text`, a JSON object, with this `ref` as its first field.
    pub fn stamp(&self, text: &str) -> String {
        match text.strip_prefix('{') {
            Some(rest) if rest.trim_start().starts_with('}') => format!("{{\"ref\":{}}}", self.0),
            Some(rest) => format!("{{\"ref\":{},{rest}", self.0),
            None => text.to_string(),
        }
    }

    fn read(value: &Value) -> Result<Ref, Refused> {
        match value {
            Value::String(text) if text.chars().count() <= MAX_REF_CHARS => Ok(Ref(value.clone())),
            Value::Number(number) if number.is_i64() || number.is_u64() => Ok(Ref(value.clone())),
            other => Err(Refused::bad_request(format!(
                "field 'ref' must be a string of at most {MAX_REF_CHARS} characters or an integer, not {}",
                shown(other)
            ))),
        }
    }
}

impl ClientFrame {
    /// Parses one text frame.
    pub fn parse(text: &str) -> Result<ClientFrame, Refused> {
        ClientFrame::parse_with_ref(text).1
    }

    /// Parses one text frame, and its `ref` if it has a well-formed one (also when the rest of
    /// the frame is refused, so that the refusal can echo it).
    pub fn parse_with_ref(text: &str) -> (Option<Ref>, Result<ClientFrame, Refused>) {
        if text.len() > MAX_FRAME_BYTES {
            let refused = Refused::bad_request(format!(
                "the frame has {} bytes; at most {MAX_FRAME_BYTES} are read",
                text.len()
            ));
            return (None, Err(refused));
        }
        match serde_json::from_str(text) {
            Ok(value) => ClientFrame::from_value_with_ref(value),
            Err(error) => (
                None,
                Err(Refused::bad_request(format!("the frame is not JSON: {error}"))),
            ),
        }
    }

    /// Reads a frame already parsed as JSON, and its `ref`, as [`ClientFrame::parse_with_ref`].
    pub fn from_value_with_ref(value: Value) -> (Option<Ref>, Result<ClientFrame, Refused>) {
        let Value::Object(fields) = value else {
            let refused =
                Refused::bad_request(format!("a frame must be a JSON object, not {}", kind(&value)));
            return (None, Err(refused));
        };
        let reference = match fields.get("ref").map(Ref::read).transpose() {
            Ok(reference) => reference,
            Err(refused) => return (None, Err(refused)),
        };
        (reference, ClientFrame::from_fields(&fields))
    }

    fn from_fields(fields: &Map<String, Value>) -> Result<ClientFrame, Refused> {
        let fields = Fields(fields);
        let game = || fields.string("game");
        let frame = match fields.string("type")? {
            "hello" => ClientFrame::Hello {
                name: fields.string("name")?.to_string(),
                token: fields.optional_string("token")?.map(String::from),
                bot: fields.flag("bot")?,
            },
            "seek" => {
                let sizes = fields.board_sizes()?;
                ClientFrame::Seek {
                    terms: fields.seek_terms(&sizes)?,
                    sizes,
                    color: match fields.optional_string("color")? {
                        None => SeekColor::Any,
                        Some(name) => SeekColor::from_name(name).ok_or_else(|| {
                            Refused::bad_request(format!(
                                "field 'color' must be black, white or any, not {name:?}"
                            ))
                        })?,
                    },
                    opponent: match fields.optional_string("opponent")? {
                        None => Opponent::Human,
                        Some(name) => Opponent::from_name(name).ok_or_else(|| {
                            Refused::bad_request(format!(
                                "field 'opponent' must be human, computer or any, not {name:?}"
                            ))
                        })?,
                    },
                }
            }
            "cancel" => ClientFrame::Cancel,
            "move" => ClientFrame::Move {
                game: game()?.to_string(),
                ply: fields.ply()?,
                point: fields.string("point")?.to_string(),
            },
            "pass" => ClientFrame::Pass {
                game: game()?.to_string(),
                ply: fields.ply()?,
            },
            "resign" => ClientFrame::Resign {
                game: game()?.to_string(),
            },
            "mark" => ClientFrame::Mark {
                game: game()?.to_string(),
                point: fields.string("point")?.to_string(),
                dead: fields.required_flag("dead")?,
            },
            "accept" => ClientFrame::Accept {
                game: game()?.to_string(),
                dead: fields.points("dead")?,
            },
            "resume" => ClientFrame::Resume {
                game: game()?.to_string(),
            },
            "chat" => ClientFrame::Chat {
                game: game()?.to_string(),
                text: fields.string("text")?.to_string(),
            },
            "undo" => ClientFrame::Undo {
                game: game()?.to_string(),
                ply: fields.ply()?,
            },
            "undo_answer" => ClientFrame::UndoAnswer {
                game: game()?.to_string(),
                ply: fields.ply()?,
                accept: match fields.0.get("accept") {
                    Some(Value::Bool(accept)) => *accept,
                    None | Some(Value::Null) => {
                        return Err(Refused::bad_request(
                            "the frame has no field 'accept' (true or false)",
                        ))
                    }
                    Some(other) => {
                        return Err(Refused::bad_request(format!(
                            "field 'accept' must be true or false, not {}",
                            shown(other)
                        )))
                    }
                },
            },
            "sync" => ClientFrame::Sync {
                game: game()?.to_string(),
            },
            "ping" => ClientFrame::Ping {
                t: fields.0.get("t").cloned().unwrap_or(Value::Null),
            },
            "watch" => ClientFrame::Watch {
                game: game()?.to_string(),
            },
            "unwatch" => ClientFrame::Unwatch {
                game: game()?.to_string(),
            },
            "watch_lobby" => ClientFrame::WatchLobby,
            "unwatch_lobby" => ClientFrame::UnwatchLobby,
            other => {
                return Err(Refused::bad_request(format!(
                    "unknown frame type {other:?}: expected hello, seek, cancel, move, pass, resign, \
                     undo, undo_answer, mark, accept, resume, chat, sync, ping, watch, unwatch, watch_lobby or unwatch_lobby"
                )))
            }
        };
        Ok(frame)
    }
}

struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn string(&self, name: &str) -> Result<&str, Refused> {
        self.optional_string(name)?
            .ok_or_else(|| Refused::bad_request(format!("the frame has no field '{name}'")))
    }

    fn optional_string(&self, name: &str) -> Result<Option<&str>, Refused> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(Refused::bad_request(format!(
                "field '{name}' must be a string, not {}",
                kind(other)
            ))),
        }
    }

    fn whole_number(&self, name: &str) -> Result<u64, Refused> {
        match self.0.get(name) {
            None | Some(Value::Null) => Err(Refused::bad_request(format!("the frame has no field '{name}'"))),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or_default()),
            // Past 2^64 - 1 a whole number arrives as a float: as large as it gets.
            Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f >= u64::MAX as f64 && f.is_finite()) => {
                Ok(u64::MAX)
            }
            Some(other) => Err(Refused::bad_request(format!(
                "field '{name}' must be a whole number, not {}",
                shown(other)
            ))),
        }
    }

    fn ply(&self) -> Result<usize, Refused> {
        // Any ply too large for a usize is as stale as any other wrong ply.
        Ok(usize::try_from(self.whole_number("ply")?).unwrap_or(usize::MAX))
    }

    /// A field that must be `true` or `false`.
    fn required_flag(&self, name: &str) -> Result<bool, Refused> {
        match self.0.get(name) {
            Some(Value::Bool(flag)) => Ok(*flag),
            None | Some(Value::Null) => Err(Refused::bad_request(format!(
                "the frame has no field '{name}' (true or false)"
            ))),
            Some(other) => Err(Refused::bad_request(format!(
                "field '{name}' must be true or false, not {}",
                shown(other)
            ))),
        }
    }

    /// A list of points (strings), at most a board's worth.
    fn points(&self, name: &str) -> Result<Vec<String>, Refused> {
        let list = match self.0.get(name) {
            Some(Value::Array(list)) => list,
            None | Some(Value::Null) => {
                return Err(Refused::bad_request(format!(
                    "the frame has no field '{name}' (a list of points)"
                )))
            }
            Some(other) => {
                return Err(Refused::bad_request(format!(
                    "field '{name}' must be a list of points, not {}",
                    shown(other)
                )))
            }
        };
        if list.len() > 19 * 19 {
            return Err(Refused::bad_request(format!(
                "field '{name}' lists more points than a board has"
            )));
        }
        list.iter()
            .map(|value| match value {
                Value::String(point) => Ok(point.clone()),
                other => Err(Refused::bad_request(format!(
                    "field '{name}' must list points as strings, not {}",
                    shown(other)
                ))),
            })
            .collect()
    }

    fn flag(&self, name: &str) -> Result<bool, Refused> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(Refused::bad_request(format!(
                "field '{name}' must be true or false, not {}",
                shown(other)
            ))),
        }
    }

    /// `size`: one board size, or a list of them (each once, at least one).
    fn board_sizes(&self) -> Result<Vec<usize>, Refused> {
        let Some(Value::Array(list)) = self.0.get("size") else {
            return Ok(vec![board_size(self.whole_number("size")?)?]);
        };
        if list.is_empty() {
            return Err(Refused::bad_request(
                "field 'size' is an empty list: name at least one size",
            ));
        }
        let mut sizes = Vec::new();
        for value in list {
            let size = value
                .as_u64()
                .ok_or_else(|| {
                    Refused::bad_request(format!(
                        "field 'size' must list whole numbers, not {}",
                        shown(value)
                    ))
                })
                .and_then(board_size)?;
            if sizes.contains(&size) {
                return Err(Refused::bad_request(format!("field 'size' lists {size} twice")));
            }
            sizes.push(size);
        }
        Ok(sizes)
    }
}

fn board_size(size: u64) -> Result<usize, Refused> {
    super::game::BOARD_SIZES
        .iter()
        .copied()
        .find(|&s| s as u64 == size)
        .ok_or_else(|| Refused::bad_request(format!("field 'size' must be 9, 13 or 19, not {size}")))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value as it appears in a message: short values as JSON, long ones by kind.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= 40 {
        text
    } else {
        kind(value).to_string()
    }
}
