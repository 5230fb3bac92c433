//! What a game is played under (rated or not, handicap stones, komi, the time control, the
//! players' ranks at the start) and what a seek asks for of them; both as the store keeps them.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::time_control::TimeControl;

/// The komi of rated games, and of unrated ones that do not ask for another.
pub const DEFAULT_KOMI: f64 = 0.5;
/// The most komi an unrated seek may ask for, either way.
pub const MAX_KOMI: f64 = 150.0;

/// How a game that ends by two passes is scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// Every stone counts as alive (the default).
    #[default]
    AllAlive,
    /// The players agree on the dead stones first, from the server's proposal.
    Agreement,
}

impl Scoring {
    pub fn name(self) -> &'static str {
        match self {
            Scoring::AllAlive => "all_alive",
            Scoring::Agreement => "agreement",
        }
    }

    pub fn from_name(name: &str) -> Option<Scoring> {
        [Scoring::AllAlive, Scoring::Agreement]
            .into_iter()
            .find(|scoring| scoring.name() == name)
    }
}

/// The handicap a seek asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandicapAsk {
    /// Rated seeks: from the players' ranks at pairing.
    Auto,
    /// Unrated seeks: these stones (0: none).
    Stones(u32),
}

impl HandicapAsk {
    pub fn to_json(self) -> Value {
        match self {
            HandicapAsk::Auto => json!("auto"),
            HandicapAsk::Stones(stones) => json!(stones),
        }
    }

    fn from_json(value: &Value) -> Option<HandicapAsk> {
        match value {
            Value::String(text) if text == "auto" => Some(HandicapAsk::Auto),
            other => other
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(HandicapAsk::Stones),
        }
    }
}

/// What a seek asks of its game; two seeks pair only when they ask the same.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeekTerms {
    pub rated: bool,
    pub handicap: HandicapAsk,
    pub komi: f64,
    pub time: TimeControl,
    pub scoring: Scoring,
}

impl SeekTerms {
    /// Today's game: rated, even, komi 0.5, under `time`.
    pub fn even(time: TimeControl) -> SeekTerms {
        SeekTerms {
            rated: true,
            handicap: HandicapAsk::Stones(0),
            komi: DEFAULT_KOMI,
            time,
            scoring: Scoring::AllAlive,
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "rated": self.rated,
            "handicap": self.handicap.to_json(),
            "komi": self.komi,
            "time": self.time.to_json(),
            "scoring": self.scoring.name(),
        })
    }

    /// Reads what [`SeekTerms::to_json`] wrote.
    pub fn from_json(value: &Value) -> Result<SeekTerms, String> {
        Ok(SeekTerms {
            rated: value["rated"].as_bool().ok_or("no 'rated'")?,
            handicap: HandicapAsk::from_json(&value["handicap"]).ok_or("no 'handicap'")?,
            komi: value["komi"].as_f64().ok_or("no 'komi'")?,
            time: TimeControl::parse(&value["time"])?,
            scoring: scoring_of(&value["scoring"])?,
        })
    }
}

/// A `scoring` as stored; absent in what was stored before there was a choice.
fn scoring_of(value: &Value) -> Result<Scoring, String> {
    match value {
        Value::Null => Ok(Scoring::AllAlive),
        value => value
            .as_str()
            .and_then(Scoring::from_name)
            .ok_or_else(|| format!("no scoring {value}")),
    }
}

/// What a game is played under, fixed at its start.
#[derive(Clone, Debug, PartialEq)]
pub struct GameTerms {
    pub rated: bool,
    /// Black's handicap stones (0: an even game; otherwise 2 to 9, and white moves first).
    pub handicap: u32,
    pub komi: f64,
    pub time: TimeControl,
    /// The players' ranks as they were at the start, black first (`"6k?"`, `"1d"`).
    pub ranks: [String; 2],
    pub scoring: Scoring,
}

impl GameTerms {
    /// An unrated even game with komi 0.5 under `time`: the games stored before there were
    /// terms.
    pub fn plain(time: TimeControl) -> GameTerms {
        GameTerms {
            rated: false,
            handicap: 0,
            komi: DEFAULT_KOMI,
            time,
            ranks: [String::new(), String::new()],
            scoring: Scoring::AllAlive,
        }
    }

    /// The row's `terms` column (the komi has a column of its own).
    pub fn to_json(&self) -> String {
        json!({
            "rated": self.rated,
            "handicap": self.handicap,
            "time": self.time.to_json(),
            "ranks": self.ranks,
            "scoring": self.scoring.name(),
        })
        .to_string()
    }

    /// Reads the `terms` column; a game stored before there was one is [`GameTerms::plain`]
    /// with its move time.
    pub fn from_json(text: Option<&str>, komi: f64, move_time_ms: u64) -> Result<GameTerms, String> {
        let Some(text) = text else {
            return Ok(GameTerms {
                komi,
                ..GameTerms::plain(TimeControl::PerMove {
                    move_ms: move_time_ms,
                })
            });
        };
        let value: Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
        let rank = |color: usize| value["ranks"][color].as_str().unwrap_or_default().to_string();
        Ok(GameTerms {
            rated: value["rated"].as_bool().ok_or("no 'rated'")?,
            handicap: value["handicap"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or("no 'handicap'")?,
            komi,
            time: TimeControl::parse(&value["time"])?,
            ranks: [rank(0), rank(1)],
            scoring: scoring_of(&value["scoring"])?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_read_back_as_written() {
        let time = TimeControl::Byoyomi {
            main_ms: 600_000,
            period_ms: 30_000,
            periods: 5,
        };
        let seek = SeekTerms {
            rated: false,
            handicap: HandicapAsk::Stones(3),
            komi: -6.5,
            time,
            scoring: Scoring::Agreement,
        };
        assert_eq!(SeekTerms::from_json(&seek.to_json()), Ok(seek));
        let auto = SeekTerms {
            handicap: HandicapAsk::Auto,
            ..SeekTerms::even(time)
        };
        assert_eq!(SeekTerms::from_json(&auto.to_json()), Ok(auto));
        let game = GameTerms {
            rated: true,
            handicap: 4,
            komi: 0.5,
            time,
            ranks: ["3k".into(), "1d?".into()],
            scoring: Scoring::Agreement,
        };
        assert_eq!(GameTerms::from_json(Some(&game.to_json()), 0.5, 1), Ok(game));
        assert_eq!(
            GameTerms::from_json(None, 0.5, 300_000),
            Ok(GameTerms::plain(TimeControl::PerMove { move_ms: 300_000 }))
        );
    }
}
