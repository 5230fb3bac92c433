//! The players' colours as the protocol names them (`"black"`, `"white"`), for fields of the
//! engine's [`Color`] (`#[serde(with = "color")]`, or `optional_color` for `null` too).

use gokata_engine::Color;
use serde::de::Error;
use serde::{Deserialize, Deserializer, Serializer};

fn named(name: &str) -> Option<Color> {
    [Color::Black, Color::White]
        .into_iter()
        .find(|color| color.name() == name)
}

fn read<E: Error>(name: &str) -> Result<Color, E> {
    named(name).ok_or_else(|| E::custom(format!("a colour must be black or white, not {name:?}")))
}

pub mod color {
    use super::*;

    pub fn serialize<S: Serializer>(color: &Color, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(color.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Color, D::Error> {
        read(&String::deserialize(deserializer)?)
    }
}

pub mod optional_color {
    use super::*;

    pub fn serialize<S: Serializer>(color: &Option<Color>, serializer: S) -> Result<S::Ok, S::Error> {
        match color {
            Some(color) => serializer.serialize_str(color.name()),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Color>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|name| read(&name))
            .transpose()
    }
}
