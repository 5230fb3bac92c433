//! Time control as GTP tells it (`time_settings`, `kgs-time_settings`, `time_left`), and the
//! time a move may take under it.

use std::time::Duration;

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
        let [main, byo_yomi, stones] = args else {
            return Err("time_settings takes main_time byo_yomi_time byo_yomi_stones".into());
        };
        self.set(seconds(main)?, seconds(byo_yomi)?, count(stones)?);
        Ok(())
    }

    /// `kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS | canadian MAIN
    /// TIME STONES`.
    pub fn kgs_time_settings(&mut self, args: &[String]) -> Result<(), String> {
        let kind = args.first().map(|k| k.to_ascii_lowercase());
        match (kind.as_deref(), &args[1.min(args.len())..]) {
            (Some("none"), []) => self.set(0.0, 0.0, 0),
            (Some("absolute"), [main]) => self.set(seconds(main)?, 0.0, 0),
            (Some("byoyomi"), [main, period, periods]) => {
                count(periods)?;
                self.set(seconds(main)?, seconds(period)?, 1)
            }
            (Some("canadian"), [main, time, stones]) => {
                self.set(seconds(main)?, seconds(time)?, count(stones)?)
            }
            _ => {
                return Err(
                    "kgs-time_settings takes none, absolute M, byoyomi M T P or canadian M T S".into(),
                )
            }
        }
        Ok(())
    }

    /// `time_left color time stones`.
    pub fn time_left(&mut self, color: Color, args: &[String]) -> Result<(), String> {
        let [time, stones] = args else {
            return Err("time_left takes color time stones".into());
        };
        self.left[color as usize] = Some((seconds(time)?, count(stones)?));
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
        _ => Err(format!("invalid time {text:?}")),
    }
}

fn count(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .map_err(|_| format!("invalid number of stones {text:?}"))
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
        clock.time_left(Color::Black, &words("10 2")).unwrap();
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
        assert!(clock.time_left(Color::White, &words("-1 0")).is_err());
    }
}
