//! A point's name as the server writes it (`"5E"`: the row counted from the bottom, then the
//! column's letter), kept inline: a game's list of moves copies without allocating, which the
//! hub does for every game it publishes after each commit.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest name: two digits of row (boards up to 25 rows) and a letter.
const MAX_LEN: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointName {
    len: u8,
    bytes: [u8; MAX_LEN],
}

impl PointName {
    /// The name `text`, if it is at most three ASCII characters (any name of a point is).
    pub fn new(text: &str) -> Option<PointName> {
        if text.len() > MAX_LEN || !text.is_ascii() {
            return None;
        }
        let mut bytes = [0; MAX_LEN];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Some(PointName {
            len: text.len() as u8,
            bytes,
        })
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("made from ASCII")
    }
}

impl Deref for PointName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for PointName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for PointName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for PointName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<String> for PointName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl Serialize for PointName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PointName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PointName, D::Error> {
        let text = String::deserialize(deserializer)?;
        PointName::new(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{text:?} is not a point's name (at most {MAX_LEN} characters, as \"5E\")"
            ))
        })
    }
}

/// Whether two lists of moves name the same turns.
pub fn same_moves(named: &[Option<PointName>], stored: &[Option<String>]) -> bool {
    named.len() == stored.len()
        && named
            .iter()
            .zip(stored)
            .all(|(a, b)| a.as_deref() == b.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_every_size_fit_and_longer_text_is_refused() {
        for text in ["5E", "19T", "1A"] {
            let name = PointName::new(text).unwrap();
            assert_eq!(name.as_str(), text);
            assert_eq!(serde_json::to_string(&name).unwrap(), format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<PointName>(&format!("\"{text}\"")).unwrap(),
                name
            );
        }
        assert_eq!(PointName::new("100A"), None);
        assert_eq!(PointName::new("5É"), None);
        let error = serde_json::from_str::<PointName>("\"100A\"").unwrap_err();
        assert!(
            error.to_string().contains("\"100A\" is not a point's name"),
            "{error}"
        );
    }
}
