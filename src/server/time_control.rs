//! Time controls as OGS and KGS offer them, and a player's clock under each: how much time is
//! left before the player loses, and the clock after a turn that took so long. Pure arithmetic
//! on whole milliseconds; the hub measures the turns and arms the deadlines.
//!
//! - `per_move`: every turn has the same time (the server's `--move-time` by default);
//! - `absolute`: one total for the whole game;
//! - `fischer`: the increment is added after each of the player's turns, never above the maximum;
//! - `byoyomi`: main time, then periods; a turn played within a period keeps it, a period that
//!   runs out is used up, and the player loses when the last one runs out;
//! - `canadian`: main time, then `stones` turns within each period, the period starting again
//!   after the last of them.
//!
//! Passes are turns for the clock.

use serde_json::{json, Map, Value};

/// Every duration is at least a second and at most seven days (correspondence games).
pub const DURATION_MS: (u64, u64) = (1_000, 604_800_000);
pub const PERIODS: (u64, u64) = (1, 30);
pub const STONES: (u64, u64) = (1, 100);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    PerMove {
        move_ms: u64,
    },
    Absolute {
        total_ms: u64,
    },
    Fischer {
        initial_ms: u64,
        increment_ms: u64,
        max_ms: u64,
    },
    Byoyomi {
        main_ms: u64,
        period_ms: u64,
        periods: u32,
    },
    Canadian {
        main_ms: u64,
        period_ms: u64,
        stones: u32,
    },
}

/// What a player has left: main time, and as the system has them, the byo-yomi periods left
/// or the Canadian period's time and stones left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub main_ms: u64,
    /// Byo-yomi: the periods left.
    pub periods: u32,
    /// Canadian: the time left in the period under way (the whole period before it starts).
    pub period_ms: u64,
    /// Canadian: the turns still to play within the period under way.
    pub stones: u32,
}

impl TimeControl {
    /// Reads a seek's `time` object; the error names the bad field and value.
    pub fn parse(value: &Value) -> Result<TimeControl, String> {
        let Value::Object(fields) = value else {
            return Err(format!("field 'time' must be an object, not {value}"));
        };
        let system = match fields.get("system") {
            Some(Value::String(system)) => system.as_str(),
            Some(other) => return Err(format!("field 'time.system' must be a string, not {other}")),
            None => return Err("field 'time' has no 'system'".into()),
        };
        let known: &[&str] = match system {
            "per_move" => &["move_ms"],
            "absolute" => &["total_ms"],
            "fischer" => &["initial_ms", "increment_ms", "max_ms"],
            "byoyomi" => &["main_ms", "period_ms", "periods"],
            "canadian" => &["main_ms", "period_ms", "stones"],
            other => {
                return Err(format!(
                "field 'time.system' must be per_move, absolute, fischer, byoyomi or canadian, not {other:?}"
            ))
            }
        };
        if let Some(extra) = fields
            .keys()
            .find(|key| *key != "system" && !known.contains(&key.as_str()))
        {
            return Err(format!(
                "field 'time.{extra}' is not a setting of {system}: it takes {}",
                known.join(", ")
            ));
        }
        let read = Reader(fields);
        let control = match system {
            "per_move" => TimeControl::PerMove {
                move_ms: read.duration("move_ms")?,
            },
            "absolute" => TimeControl::Absolute {
                total_ms: read.duration("total_ms")?,
            },
            "fischer" => {
                let (initial_ms, max_ms) = (read.duration("initial_ms")?, read.duration("max_ms")?);
                if max_ms < initial_ms {
                    return Err(format!(
                        "field 'time.max_ms' ({max_ms}) must be at least 'time.initial_ms' ({initial_ms})"
                    ));
                }
                TimeControl::Fischer {
                    initial_ms,
                    increment_ms: read.duration("increment_ms")?,
                    max_ms,
                }
            }
            "byoyomi" => TimeControl::Byoyomi {
                main_ms: read.duration("main_ms")?,
                period_ms: read.duration("period_ms")?,
                periods: read.count("periods", PERIODS)?,
            },
            _ => TimeControl::Canadian {
                main_ms: read.duration("main_ms")?,
                period_ms: read.duration("period_ms")?,
                stones: read.count("stones", STONES)?,
            },
        };
        Ok(control)
    }

    /// The settings as a seek sends them.
    pub fn to_json(self) -> Value {
        match self {
            TimeControl::PerMove { move_ms } => json!({"system": "per_move", "move_ms": move_ms}),
            TimeControl::Absolute { total_ms } => json!({"system": "absolute", "total_ms": total_ms}),
            TimeControl::Fischer {
                initial_ms,
                increment_ms,
                max_ms,
            } => {
                json!({"system": "fischer", "initial_ms": initial_ms, "increment_ms": increment_ms, "max_ms": max_ms})
            }
            TimeControl::Byoyomi {
                main_ms,
                period_ms,
                periods,
            } => json!({"system": "byoyomi", "main_ms": main_ms, "period_ms": period_ms, "periods": periods}),
            TimeControl::Canadian {
                main_ms,
                period_ms,
                stones,
            } => json!({"system": "canadian", "main_ms": main_ms, "period_ms": period_ms, "stones": stones}),
        }
    }

    /// A player's clock at the start of the game.
    pub fn new_clock(self) -> Clock {
        let (main_ms, periods, period_ms, stones) = match self {
            TimeControl::PerMove { move_ms } => (move_ms, 0, 0, 0),
            TimeControl::Absolute { total_ms } => (total_ms, 0, 0, 0),
            TimeControl::Fischer { initial_ms, .. } => (initial_ms, 0, 0, 0),
            TimeControl::Byoyomi {
                main_ms,
                period_ms,
                periods,
            } => (main_ms, periods, period_ms, 0),
            TimeControl::Canadian {
                main_ms,
                period_ms,
                stones,
            } => (main_ms, 0, period_ms, stones),
        };
        Clock {
            main_ms,
            periods,
            period_ms,
            stones,
        }
    }

    /// How long the player whose turn starts with `clock` may take before losing on time.
    pub fn time_left(self, clock: &Clock) -> u64 {
        match self {
            TimeControl::PerMove { move_ms } => move_ms,
            TimeControl::Absolute { .. } | TimeControl::Fischer { .. } => clock.main_ms,
            TimeControl::Byoyomi { period_ms, .. } => clock
                .main_ms
                .saturating_add(period_ms.saturating_mul(u64::from(clock.periods))),
            TimeControl::Canadian { .. } => clock.main_ms.saturating_add(clock.period_ms),
        }
    }

    /// The clock after a turn that took `elapsed_ms`; `None` if the player ran out of time
    /// before playing it: the deadline itself is too late, as a period is used up when it ends.
    pub fn after_turn(self, clock: &Clock, elapsed_ms: u64) -> Option<Clock> {
        if elapsed_ms >= self.time_left(clock) {
            return None;
        }
        let mut next = *clock;
        match self {
            TimeControl::PerMove { .. } => {}
            TimeControl::Absolute { .. } => next.main_ms -= elapsed_ms,
            TimeControl::Fischer {
                increment_ms, max_ms, ..
            } => {
                next.main_ms = (clock.main_ms - elapsed_ms)
                    .saturating_add(increment_ms)
                    .min(max_ms)
            }
            TimeControl::Byoyomi { period_ms, .. } => {
                if elapsed_ms <= clock.main_ms {
                    next.main_ms -= elapsed_ms;
                } else {
                    // Periods wholly used up are gone; the one the turn was played in is kept.
                    let over = elapsed_ms - clock.main_ms;
                    let used = u32::try_from(over / period_ms).unwrap_or(u32::MAX);
                    if used >= clock.periods {
                        return None;
                    }
                    next.main_ms = 0;
                    next.periods = clock.periods - used;
                }
            }
            TimeControl::Canadian {
                period_ms, stones, ..
            } => {
                // Once main time is gone every turn is a stone of the period, an instant one too.
                if clock.main_ms > 0 && elapsed_ms <= clock.main_ms {
                    next.main_ms -= elapsed_ms;
                } else {
                    next.main_ms = 0;
                    next.period_ms = clock.period_ms - (elapsed_ms - clock.main_ms);
                    next.stones = clock.stones - 1;
                    if next.stones == 0 {
                        next.period_ms = period_ms;
                        next.stones = stones;
                    }
                }
            }
        }
        Some(next)
    }
}

impl Clock {
    /// CLOCK in the protocol: `main_ms`, and as the system has them `periods` and `period_ms`
    /// (byo-yomi) or `period_ms` and `stones` (Canadian).
    pub fn to_json(&self, control: TimeControl) -> Value {
        match control {
            TimeControl::Byoyomi { period_ms, .. } => {
                json!({"main_ms": self.main_ms, "periods": self.periods, "period_ms": period_ms})
            }
            TimeControl::Canadian { .. } => {
                json!({"main_ms": self.main_ms, "period_ms": self.period_ms, "stones": self.stones})
            }
            _ => json!({ "main_ms": self.main_ms }),
        }
    }
}

impl Clock {
    /// Two clocks, black first, as the store keeps them: `[[main_ms, periods, period_ms, stones], ...]`.
    pub fn pair_to_text(clocks: &[Clock; 2]) -> String {
        let [black, white] = clocks.map(|c| json!([c.main_ms, c.periods, c.period_ms, c.stones]));
        json!([black, white]).to_string()
    }

    /// Reads what [`Clock::pair_to_text`] wrote.
    pub fn pair_from_text(text: &str) -> Result<[Clock; 2], String> {
        let value: Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
        let clock = |at: usize| -> Result<Clock, String> {
            let number = |field: usize| value[at][field].as_u64().ok_or(format!("not a clock: {text}"));
            Ok(Clock {
                main_ms: number(0)?,
                periods: u32::try_from(number(1)?).map_err(|e| e.to_string())?,
                period_ms: number(2)?,
                stones: u32::try_from(number(3)?).map_err(|e| e.to_string())?,
            })
        };
        Ok([clock(0)?, clock(1)?])
    }
}

impl TimeControl {
    /// What a program may spend on a turn with `clock` and not run short: a third of a move's
    /// time, a thirtieth of main time, a third of a byo-yomi period, half a Canadian stone's
    /// share of its period, half a Fischer increment.
    pub fn comfortable_ms(self, clock: &Clock) -> u64 {
        let main = clock.main_ms / 30;
        match self {
            TimeControl::PerMove { move_ms } => move_ms / 3,
            TimeControl::Absolute { .. } => main,
            TimeControl::Fischer { increment_ms, .. } => (main + increment_ms / 2).min(clock.main_ms / 3),
            TimeControl::Byoyomi { period_ms, .. } if clock.periods > 0 => main + period_ms / 3,
            TimeControl::Byoyomi { .. } => main,
            TimeControl::Canadian { .. } => main + clock.period_ms / u64::from(clock.stones.max(1)) / 2,
        }
    }
}

impl Clock {
    /// Reads CLOCK as [`Clock::to_json`] writes it; what the system has not is 0.
    pub fn from_json(value: &Value) -> Option<Clock> {
        let number = |name: &str| value.get(name).and_then(Value::as_u64);
        Some(Clock {
            main_ms: number("main_ms")?,
            periods: u32::try_from(number("periods").unwrap_or(0)).ok()?,
            period_ms: number("period_ms").unwrap_or(0),
            stones: u32::try_from(number("stones").unwrap_or(0)).ok()?,
        })
    }
}

struct Reader<'a>(&'a Map<String, Value>);

impl Reader<'_> {
    fn whole(&self, name: &str, (low, high): (u64, u64), what: &str) -> Result<u64, String> {
        let value = self
            .0
            .get(name)
            .ok_or_else(|| format!("field 'time' has no '{name}'"))?;
        value
            .as_u64()
            .filter(|n| (low..=high).contains(n))
            .ok_or_else(|| format!("field 'time.{name}' must be {what} from {low} to {high}, not {value}"))
    }

    fn duration(&self, name: &str) -> Result<u64, String> {
        self.whole(name, DURATION_MS, "a whole number of milliseconds")
    }

    fn count(&self, name: &str, bounds: (u64, u64)) -> Result<u32, String> {
        // The bounds are far below u32::MAX.
        self.whole(name, bounds, "a whole number").map(|n| n as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TimeControl, String> {
        TimeControl::parse(&serde_json::from_str(text).unwrap())
    }

    /// Plays turns of the given lengths; the clock after each, or `None` once lost.
    fn play(control: TimeControl, turns: &[u64]) -> Vec<Option<Clock>> {
        let mut clock = Some(control.new_clock());
        turns
            .iter()
            .map(|&elapsed| {
                clock = clock.and_then(|clock| control.after_turn(&clock, elapsed));
                clock
            })
            .collect()
    }

    #[test]
    fn every_system_reads_back_as_sent() {
        for text in [
            r#"{"system":"per_move","move_ms":300000}"#,
            r#"{"system":"byoyomi","main_ms":600000,"period_ms":30000,"periods":5}"#,
            r#"{"system":"fischer","initial_ms":300000,"increment_ms":10000,"max_ms":600000}"#,
            r#"{"system":"canadian","main_ms":600000,"period_ms":300000,"stones":25}"#,
            r#"{"system":"absolute","total_ms":1200000}"#,
        ] {
            let control = parse(text).unwrap();
            assert_eq!(control.to_json(), serde_json::from_str::<Value>(text).unwrap());
        }
    }

    #[test]
    fn a_bad_setting_is_named() {
        let cases = [
            (r#"[1]"#, "field 'time' must be an object"),
            (r#"{"move_ms":1000}"#, "has no 'system'"),
            (r#"{"system":"hourglass"}"#, "\"hourglass\""),
            (r#"{"system":"per_move"}"#, "has no 'move_ms'"),
            (
                r#"{"system":"per_move","move_ms":999}"#,
                "'time.move_ms' must be a whole number of milliseconds from 1000 to 604800000, not 999",
            ),
            (r#"{"system":"per_move","move_ms":604800001}"#, "not 604800001"),
            (r#"{"system":"per_move","move_ms":1500.5}"#, "not 1500.5"),
            (r#"{"system":"per_move","move_ms":"10"}"#, "not \"10\""),
            (
                r#"{"system":"absolute","total_ms":5000,"periods":3}"#,
                "'time.periods' is not a setting of absolute",
            ),
            (
                r#"{"system":"byoyomi","main_ms":1000,"period_ms":1000,"periods":0}"#,
                "'time.periods' must be a whole number from 1 to 30, not 0",
            ),
            (
                r#"{"system":"byoyomi","main_ms":1000,"period_ms":1000,"periods":31}"#,
                "not 31",
            ),
            (
                r#"{"system":"canadian","main_ms":1000,"period_ms":1000,"stones":101}"#,
                "'time.stones' must be a whole number from 1 to 100, not 101",
            ),
            (
                r#"{"system":"fischer","initial_ms":9000,"increment_ms":1000,"max_ms":8000}"#,
                "'time.max_ms' (8000) must be at least 'time.initial_ms' (9000)",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn per_move_gives_every_turn_the_same_time() {
        let control = parse(r#"{"system":"per_move","move_ms":5000}"#).unwrap();
        let clocks = play(control, &[4999, 100, 4999, 5000]);
        assert!(clocks[..3]
            .iter()
            .all(|clock| clock.is_some_and(|c| control.time_left(&c) == 5000)));
        assert_eq!(clocks[3], None);
    }

    #[test]
    fn absolute_time_runs_out_once() {
        let control = parse(r#"{"system":"absolute","total_ms":10000}"#).unwrap();
        let clocks = play(control, &[4000, 5999, 0, 1]);
        assert_eq!(clocks[0].unwrap().main_ms, 6000);
        assert_eq!(clocks[2].unwrap().main_ms, 1);
        assert_eq!(clocks[3], None);
    }

    #[test]
    fn fischer_adds_the_increment_up_to_the_maximum() {
        let control =
            parse(r#"{"system":"fischer","initial_ms":10000,"increment_ms":3000,"max_ms":12000}"#).unwrap();
        let clocks = play(control, &[1000, 0, 5000, 10000]);
        assert_eq!(clocks[0].unwrap().main_ms, 12000); // 10000 - 1000 + 3000
        assert_eq!(clocks[1].unwrap().main_ms, 12000); // capped
        assert_eq!(clocks[2].unwrap().main_ms, 10000);
        assert_eq!(clocks[3], None);
    }

    #[test]
    fn byoyomi_keeps_a_period_played_within_and_loses_with_the_last() {
        let control = parse(r#"{"system":"byoyomi","main_ms":2000,"period_ms":1000,"periods":3}"#).unwrap();
        assert_eq!(control.time_left(&control.new_clock()), 5000);
        let clocks = play(control, &[1500, 1400, 900, 1000, 1999, 999, 1000]);
        let periods: Vec<Option<(u64, u32)>> =
            clocks.iter().map(|c| c.map(|c| (c.main_ms, c.periods))).collect();
        assert_eq!(
            periods,
            vec![
                Some((500, 3)), // in main time
                Some((0, 3)),   // 900 ms into the first period: kept
                Some((0, 3)),   // within a period
                Some((0, 2)),   // a whole period used, the turn played as the next began
                Some((0, 1)),   // one more used
                Some((0, 1)),   // within the last
                None,           // the last runs out
            ]
        );
    }

    #[test]
    fn canadian_restarts_the_period_after_its_stones() {
        let control = parse(r#"{"system":"canadian","main_ms":1000,"period_ms":10000,"stones":3}"#).unwrap();
        let clocks = play(control, &[1500, 3000, 5000, 9000, 0, 0, 0, 10000]);
        let seen: Vec<Option<(u64, u64, u32)>> = clocks
            .iter()
            .map(|c| c.map(|c| (c.main_ms, c.period_ms, c.stones)))
            .collect();
        assert_eq!(
            seen,
            vec![
                Some((0, 9500, 2)), // main time gone, 500 ms into the period
                Some((0, 6500, 1)),
                Some((0, 10000, 3)), // 1500 left for the last stone: played, the period starts again
                Some((0, 1000, 2)),
                Some((0, 1000, 1)),  // an instant turn is a stone of the period too
                Some((0, 10000, 3)), // the period's last stone: it starts again
                Some((0, 10000, 2)),
                None, // the whole period for one stone: too late
            ]
        );
    }

    #[test]
    fn clocks_show_what_their_system_has() {
        let byoyomi = parse(r#"{"system":"byoyomi","main_ms":60000,"period_ms":30000,"periods":5}"#).unwrap();
        assert_eq!(
            byoyomi.new_clock().to_json(byoyomi),
            json!({"main_ms": 60000, "periods": 5, "period_ms": 30000})
        );
        let canadian =
            parse(r#"{"system":"canadian","main_ms":60000,"period_ms":300000,"stones":25}"#).unwrap();
        assert_eq!(
            canadian.new_clock().to_json(canadian),
            json!({"main_ms": 60000, "period_ms": 300000, "stones": 25})
        );
        let fischer =
            parse(r#"{"system":"fischer","initial_ms":60000,"increment_ms":5000,"max_ms":60000}"#).unwrap();
        assert_eq!(fischer.new_clock().to_json(fischer), json!({"main_ms": 60000}));
    }
}
