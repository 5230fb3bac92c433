//! A seek's terms as the `seek` frame asks them: rated or not, the handicap, the komi and the
//! time control, each checked against the rest of the frame.

use serde_json::Value;

use super::{shown, Fields, Refused};
use crate::terms::{HandicapAsk, Scoring, DEFAULT_KOMI, MAX_KOMI};
use crate::time_control::TimeControl;

/// What a `seek` asks of its game; the time control is the server's default where it says none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AskedTerms {
    pub rated: bool,
    pub handicap: HandicapAsk,
    pub komi: f64,
    pub time: Option<TimeControl>,
    pub scoring: Scoring,
}

impl Default for AskedTerms {
    fn default() -> AskedTerms {
        AskedTerms {
            rated: true,
            handicap: HandicapAsk::Stones(0),
            komi: DEFAULT_KOMI,
            time: None,
            scoring: Scoring::AllAlive,
        }
    }
}

impl Fields<'_> {
    /// `rated` (default true), `handicap` (`"auto"` for rated seeks; 0 or 2 to 9, 2 to 5 on
    /// 9x9, for unrated ones), `komi` (unrated: a multiple of 0.5 within 150 either way) and
    /// `time`.
    pub(super) fn seek_terms(&self, sizes: &[usize]) -> Result<AskedTerms, Refused> {
        let rated = match self.0.get("rated") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(rated)) => *rated,
            Some(other) => {
                return Err(Refused::bad_request(format!(
                    "field 'rated' must be true or false, not {}",
                    shown(other)
                )))
            }
        };
        let handicap = match self.0.get("handicap") {
            None | Some(Value::Null) => HandicapAsk::Stones(0),
            Some(Value::String(text)) if text == "auto" => HandicapAsk::Auto,
            Some(value) => match value.as_u64() {
                Some(stones) => HandicapAsk::Stones(handicap_stones(stones, sizes)?),
                None => {
                    return Err(Refused::bad_request(format!(
                        "field 'handicap' must be \"auto\" or a number of stones, not {}",
                        shown(value)
                    )))
                }
            },
        };
        let komi = match self.0.get("komi") {
            None | Some(Value::Null) => None,
            Some(value) => Some(komi(value)?),
        };
        match (rated, handicap) {
            (true, HandicapAsk::Stones(stones)) if stones > 0 => {
                return Err(Refused::bad_request(format!(
                "field 'handicap' of a rated seek must be \"auto\" (stones from the ranks), not {stones}: \
                     fixed stones are for unrated seeks (\"rated\": false)"
            )))
            }
            (false, HandicapAsk::Auto) => {
                return Err(Refused::bad_request(
                    "field 'handicap' \"auto\" gives stones from the ranks, for rated seeks only: \
                     an unrated seek names its stones",
                ))
            }
            _ => {}
        }
        if rated && komi.is_some_and(|komi| komi != DEFAULT_KOMI) {
            return Err(Refused::bad_request(format!(
                "field 'komi' of a rated seek must be {DEFAULT_KOMI}, not {}: other komi are for unrated \
                 seeks (\"rated\": false)",
                komi.unwrap_or_default()
            )));
        }
        let time = match self.0.get("time") {
            None | Some(Value::Null) => None,
            Some(value) => Some(TimeControl::parse(value).map_err(Refused::bad_request)?),
        };
        let scoring = match self.0.get("scoring") {
            None | Some(Value::Null) => Scoring::AllAlive,
            Some(value) => value.as_str().and_then(Scoring::from_name).ok_or_else(|| {
                Refused::bad_request(format!(
                    "field 'scoring' must be \"all_alive\" or \"agreement\", not {}",
                    shown(value)
                ))
            })?,
        };
        Ok(AskedTerms {
            rated,
            handicap,
            komi: komi.unwrap_or(DEFAULT_KOMI),
            time,
            scoring,
        })
    }
}

fn handicap_stones(stones: u64, sizes: &[usize]) -> Result<u32, Refused> {
    let most = if sizes.contains(&9) { 5 } else { 9 };
    match u32::try_from(stones) {
        Ok(stones) if stones == 0 || (2..=most).contains(&stones) => Ok(stones),
        _ => Err(Refused::bad_request(format!(
            "field 'handicap' must be 0 or 2 to {most} stones{}, not {stones}",
            if most == 5 { " on 9x9" } else { "" }
        ))),
    }
}

fn komi(value: &Value) -> Result<f64, Refused> {
    match value.as_f64() {
        Some(komi) if komi.abs() <= MAX_KOMI && (komi * 2.0).fract() == 0.0 => Ok(komi),
        _ => Err(Refused::bad_request(format!(
            "field 'komi' must be a multiple of 0.5 from -{MAX_KOMI} to {MAX_KOMI}, not {}",
            shown(value)
        ))),
    }
}
