//! Client frames and `ref`s as serde values: written exactly as a client sends them, and read
//! through the protocol's own parser, so that a bad frame is refused with the same message
//! whoever reads it.

use serde::de::Error;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{sizes_value, ClientFrame, Ref};

impl ClientFrame {
    /// The frame's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientFrame::Hello { .. } => "hello",
            ClientFrame::Seek { .. } => "seek",
            ClientFrame::Cancel => "cancel",
            ClientFrame::Move { .. } => "move",
            ClientFrame::Pass { .. } => "pass",
            ClientFrame::Resign { .. } => "resign",
            ClientFrame::Undo { .. } => "undo",
            ClientFrame::Mark { .. } => "mark",
            ClientFrame::Accept { .. } => "accept",
            ClientFrame::Resume { .. } => "resume",
            ClientFrame::Chat { .. } => "chat",
            ClientFrame::UndoAnswer { .. } => "undo_answer",
            ClientFrame::Sync { .. } => "sync",
            ClientFrame::Ping { .. } => "ping",
            ClientFrame::Watch { .. } => "watch",
            ClientFrame::Unwatch { .. } => "unwatch",
            ClientFrame::WatchLobby => "watch_lobby",
            ClientFrame::UnwatchLobby => "unwatch_lobby",
        }
    }

    /// The frame as JSON text, ready to send.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("client frames always serialise")
    }
}

/// Every field the parser reads, except `token`, a seek's `time` and a ping's `t` when there
/// are none (the server's default time control is not a value a client can name).
impl Serialize for ClientFrame {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.type_name())?;
        match self {
            ClientFrame::Hello { name, token, bot } => {
                map.serialize_entry("name", name)?;
                if let Some(token) = token {
                    map.serialize_entry("token", token)?;
                }
                map.serialize_entry("bot", bot)?;
            }
            ClientFrame::Seek {
                sizes,
                color,
                opponent,
                terms,
            } => {
                map.serialize_entry("size", &sizes_value(sizes))?;
                map.serialize_entry("color", color)?;
                map.serialize_entry("opponent", opponent)?;
                map.serialize_entry("rated", &terms.rated)?;
                map.serialize_entry("handicap", &terms.handicap.to_json())?;
                map.serialize_entry("komi", &terms.komi)?;
                if let Some(time) = terms.time {
                    map.serialize_entry("time", &time.to_json())?;
                }
                map.serialize_entry("scoring", &terms.scoring)?;
            }
            ClientFrame::Cancel | ClientFrame::WatchLobby | ClientFrame::UnwatchLobby => {}
            ClientFrame::Move { game, ply, point } => {
                map.serialize_entry("game", game)?;
                map.serialize_entry("ply", ply)?;
                map.serialize_entry("point", point)?;
            }
            ClientFrame::Pass { game, ply } | ClientFrame::Undo { game, ply } => {
                map.serialize_entry("game", game)?;
                map.serialize_entry("ply", ply)?;
            }
            ClientFrame::Resign { game }
            | ClientFrame::Resume { game }
            | ClientFrame::Sync { game }
            | ClientFrame::Watch { game }
            | ClientFrame::Unwatch { game } => map.serialize_entry("game", game)?,
            ClientFrame::Mark { game, point, dead } => {
                map.serialize_entry("game", game)?;
                map.serialize_entry("point", point)?;
                map.serialize_entry("dead", dead)?;
            }
            ClientFrame::Accept { game, dead } => {
                map.serialize_entry("game", game)?;
                map.serialize_entry("dead", dead)?;
            }
            ClientFrame::Chat { game, text } => {
                map.serialize_entry("game", game)?;
                map.serialize_entry("text", text)?;
            }
            ClientFrame::UndoAnswer { game, ply, accept } => {
                map.serialize_entry("game", game)?;
                map.serialize_entry("ply", ply)?;
                map.serialize_entry("accept", accept)?;
            }
            ClientFrame::Ping { t } => {
                if !t.is_null() {
                    map.serialize_entry("t", t)?;
                }
            }
        }
        map.end()
    }
}

/// Through [`ClientFrame::from_value_with_ref`]: a refusal's message, which names the bad field,
/// is the error's.
impl<'de> Deserialize<'de> for ClientFrame {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ClientFrame, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ClientFrame::from_value_with_ref(value)
            .1
            .map_err(|refused| D::Error::custom(refused.message))
    }
}

impl Serialize for Ref {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Ref {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ref, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ref::read(&value).map_err(|refused| D::Error::custom(refused.message))
    }
}

/// A frame with the `ref` its client gave it, or that the server echoes in its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WithRef<F> {
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Ref>,
    #[serde(flatten)]
    pub frame: F,
}
