//! Time control as GTP tells it (`time_settings`, `kgs-time_settings`, `time_left`), and the
//! time a move may take under it.

use std::time::Duration;

use super::line::{arguments, missing_argument, quoted};
use crate::{Board, Color};

/// The settings and each colour's time left, in seconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clock {
    main: f64,
    /// Canadian byo-yomi: `byo_yomi` seconds for `stones` stones (Japanese: one stone a period).
    byo_yomi: f64,
    stones: u32,
    /// `false` until settings with a limit arrive (no limit: `time_settings 0 1 0`, or `none`).
    limited: bool,
    /// By colour index: seconds left, and stones left in the current byo-yomi period (0 in
    /// main time).
    left: [Option<(f64, u32)>; 3],
}

/// The fraction of the time left a move may take, and its least time.
const SAFETY: f64 = 0.8;
const LEAST: f64 = 0.05;

impl Clock {
    /// `time_settings main_time byo_yomi_time byo_yomi_stones`.
    pub fn time_settings(&mut self, args: &[String]) -> Result<(), String> {
        let [main, byo_yomi, stones] = arguments(
            "time_settings",
            args,
            ["MAIN_TIME", "BYO_YOMI_TIME", "BYO_YOMI_STONES"],
        )?;
        self.set(seconds(main)?, seconds(byo_yomi)?, count(stones, "stones")?);
        Ok(())
    }

    /// `kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS | canadian MAIN
    /// TIME STONES`.
    pub fn kgs_time_settings(&mut self, args: &[String]) -> Result<(), String> {
        let Some((system, rest)) = args.split_first() else {
            return Err(missing_argument(
                "SYSTEM",
                "kgs-time_settings none|absolute|byoyomi|canadian ...",
            ));
        };
        let command = format!("kgs-time_settings {system}");
        match system.to_ascii_lowercase().as_str() {
            "none" => {
                arguments(&command, rest, [])?;
                self.set(0.0, 0.0, 0)
            }
            "absolute" => {
                let [main] = arguments(&command, rest, ["MAIN_TIME"])?;
                self.set(seconds(main)?, 0.0, 0)
            }
            "byoyomi" => {
                let [main, period, periods] =
                    arguments(&command, rest, ["MAIN_TIME", "PERIOD_TIME", "PERIODS"])?;
                let (main, period) = (seconds(main)?, seconds(period)?);
                count(periods, "periods")?;
                self.set(main, period, 1)
            }
            "canadian" => {
                let [main, time, stones] =
                    arguments(&command, rest, ["MAIN_TIME", "BYO_YOMI_TIME", "BYO_YOMI_STONES"])?;
                self.set(seconds(main)?, seconds(time)?, count(stones, "stones")?)
            }
            _ => {
                return Err(format!(
                    "invalid time system {}: kgs-time_settings takes none, absolute, byoyomi or canadian",
                    quoted(system)
                ))
            }
        }
        Ok(())
    }

    /// `time_left color time stones`, the colour read.
    pub fn time_left(&mut self, color: Color, time: &str, stones: &str) -> Result<(), String> {
        self.left[color as usize] = Some((seconds(time)?, count(stones, "stones")?));
        Ok(())
    }

    fn set(&mut self, main: f64, byo_yomi: f64, stones: u32) {
        // GTP: byo-yomi time with 0 stones means no time limit.
        let limited = !(byo_yomi > 0.0 && stones == 0) && (main > 0.0 || byo_yomi > 0.0);
        *self = Clock {
            main,
            byo_yomi,
            stones,
            limited,
            left: [None; 3],
        };
    }

    /// The most a move of `color` on `board` may take, `None` without a time limit.
    pub fn move_time(&self, color: Color, board: &Board) -> Option<Duration> {
        if !self.limited {
            return None;
        }
        let (left, stones) = self.left[color as usize].unwrap_or((self.main, 0));
        let seconds = if stones > 0 {
            left / f64::from(stones)
        } else {
            let moves_to_come = (board.empty_points().len() / 3).max(10) as f64;
            let byo_yomi_share = if self.stones > 0 {
                self.byo_yomi / f64::from(self.stones)
            } else {
                0.0
            };
            left / moves_to_come + byo_yomi_share
        };
        Some(Duration::from_secs_f64((seconds * SAFETY).max(LEAST)))
    }
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=1e9).contains(&s) => Ok(s),
        _ => Err(format!("invalid time {}", quoted(text))),
    }
}

/// A count of stones or periods (`what`), a whole number.
fn count(text: &str, what: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .map_err(|_| format!("invalid number of {what} {}", quoted(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn moves_take_a_share_of_the_time_left() {
        let board = Board::new(9, 9).unwrap();
        let mut clock = Clock::default();
        assert_eq!(clock.move_time(Color::Black, &board), None);
        clock.time_settings(&words("60 0 0")).unwrap();
        assert_eq!(
            clock.move_time(Color::Black, &board),
            Some(Duration::from_secs_f64(60.0 / 27.0 * 0.8))
        );
        clock.time_left(Color::Black, "10", "2").unwrap();
        assert_eq!(
            clock.move_time(Color::Black, &board),
            Some(Duration::from_secs_f64(4.0))
        );
        clock.time_settings(&words("0 30 0")).unwrap();
        assert_eq!(
            clock.move_time(Color::White, &board),
            None,
            "byo-yomi without stones: no limit"
        );
        clock.kgs_time_settings(&words("byoyomi 0 10 5")).unwrap();
        assert_eq!(
            clock.move_time(Color::White, &board),
            Some(Duration::from_secs_f64(8.0))
        );
        assert!(clock.kgs_time_settings(&words("byoyomi 0 10")).is_err());
        assert!(clock.time_settings(&words("1 nan 0")).is_err());
        assert!(clock.time_left(Color::White, "-1", "0").is_err());
    }

    #[test]
    fn errors_name_the_value_or_the_argument_missing_and_change_nothing() {
        let mut clock = Clock::default();
        clock.time_settings(&words("60 0 0")).unwrap();
        let before = clock.clone();
        assert_eq!(
            clock.time_settings(&words("1 2")),
            Err("syntax error: missing BYO_YOMI_STONES (usage: time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES)".into())
        );
        assert_eq!(
            clock.time_settings(&words("1 x 0")),
            Err("invalid time \"x\"".into())
        );
        assert_eq!(
            clock.kgs_time_settings(&[]),
            Err(
                "syntax error: missing SYSTEM (usage: kgs-time_settings none|absolute|byoyomi|canadian ...)"
                    .into()
            )
        );
        assert_eq!(
            clock.kgs_time_settings(&words("fischer 1 2")),
            Err("invalid time system \"fischer\": kgs-time_settings takes none, absolute, byoyomi or canadian".into())
        );
        assert_eq!(
            clock.kgs_time_settings(&words("byoyomi 0 10")),
            Err("syntax error: missing PERIODS (usage: kgs-time_settings byoyomi MAIN_TIME PERIOD_TIME PERIODS)".into())
        );
        assert_eq!(
            clock.kgs_time_settings(&words("none 5")),
            Err("syntax error: unexpected \"5\" (kgs-time_settings none takes no arguments)".into())
        );
        assert_eq!(
            clock.kgs_time_settings(&words("byoyomi 0 10 -1")),
            Err("invalid number of periods \"-1\"".into())
        );
        assert_eq!(
            clock.time_left(Color::Black, "10", "x"),
            Err("invalid number of stones \"x\"".into())
        );
        assert_eq!(clock, before);
    }
}
