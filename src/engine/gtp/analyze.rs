//! Leela Zero's analysis commands as Sabaki and Lizzie read them: `lz-analyze [color]
//! [interval]` answers `=` and then, every `interval` centiseconds until the next command
//! arrives, one line `info move D4 visits N winrate W prior P order K pv D4 Q16 ... info move
//! ...` (win rate and prior in ten-thousandths, for the side to move).

use super::vertex::{self, color as read_color};
use crate::bot::Candidate;
use crate::{Board, Color};

/// The default and least interval, in centiseconds.
const DEFAULT_INTERVAL: u64 = 50;
const LEAST_INTERVAL: u64 = 5;

/// What `lz-analyze` and `lz-genmove_analyze` were asked: whose move (default: the side to
/// move) and how often to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub color: Option<Color>,
    pub centiseconds: u64,
}

/// Reads `[color] [interval]` and Leela Zero's keyword arguments (`interval N`; others, such
/// as `minmoves N` or `avoid ...`, are accepted and ignored).
pub fn request(args: &[String]) -> Result<Request, String> {
    let mut request = Request {
        color: None,
        centiseconds: DEFAULT_INTERVAL,
    };
    let mut interval_given = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if let (None, Ok(color)) = (request.color, read_color(word)) {
            if !interval_given {
                request.color = Some(color);
                continue;
            }
        }
        let interval = if word.eq_ignore_ascii_case("interval") {
            Some(words.next().ok_or("interval needs a number")?.as_str())
        } else if word.bytes().all(|b| b.is_ascii_digit()) && !interval_given {
            Some(word.as_str())
        } else {
            // A keyword of Leela Zero's we do not use, and its value.
            words.next();
            None
        };
        if let Some(text) = interval {
            let centiseconds: u64 = text.parse().map_err(|_| format!("invalid interval {text:?}"))?;
            request.centiseconds = centiseconds.clamp(LEAST_INTERVAL, 360_000);
            interval_given = true;
        }
    }
    Ok(request)
}

/// One report: every candidate with a visit, most visited first.
pub fn info_line(candidates: &[Candidate], board: &Board) -> String {
    let prior_total: f64 = candidates.iter().map(|c| c.prior).sum();
    let shown: Vec<String> = candidates
        .iter()
        .filter(|c| c.visits > 0)
        .enumerate()
        .map(|(order, c)| {
            let prior = if prior_total > 0.0 {
                c.prior / prior_total
            } else {
                0.0
            };
            let pv: Vec<String> = c.pv.iter().map(|&p| vertex::name(p, board)).collect();
            format!(
                "info move {} visits {} winrate {} prior {} order {order} pv {}",
                vertex::name(c.mv, board),
                c.visits,
                (c.win_rate * 10_000.0).round() as i64,
                (prior * 10_000.0).round() as i64,
                pv.join(" ")
            )
        })
        .collect();
    shown.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::PASS;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn requests_in_sabakis_and_leela_zeros_forms() {
        let r = |text| request(&words(text));
        assert_eq!(
            r(""),
            Ok(Request {
                color: None,
                centiseconds: 50
            })
        );
        assert_eq!(
            r("10"),
            Ok(Request {
                color: None,
                centiseconds: 10
            })
        );
        assert_eq!(
            r("B 100"),
            Ok(Request {
                color: Some(Color::Black),
                centiseconds: 100
            })
        );
        assert_eq!(
            r("w interval 20 minmoves 3"),
            Ok(Request {
                color: Some(Color::White),
                centiseconds: 20
            })
        );
        assert_eq!(
            r("1"),
            Ok(Request {
                color: None,
                centiseconds: 5
            })
        );
        assert!(r("interval").is_err());
        assert!(r("interval x").is_err());
    }

    #[test]
    fn info_lines_name_moves_visits_and_rates() {
        let board = Board::new(9, 9).unwrap();
        let e5 = board.point(4, 4);
        let c3 = board.point(6, 2);
        let candidates = [
            Candidate {
                mv: e5,
                visits: 30,
                win_rate: 0.55,
                prior: 0.6,
                pv: vec![e5, c3],
            },
            Candidate {
                mv: c3,
                visits: 4,
                win_rate: 0.25,
                prior: 0.2,
                pv: vec![c3],
            },
            Candidate {
                mv: PASS,
                visits: 0,
                win_rate: 0.5,
                prior: 0.2,
                pv: vec![PASS],
            },
        ];
        assert_eq!(
            info_line(&candidates, &board),
            "info move E5 visits 30 winrate 5500 prior 6000 order 0 pv E5 C3 \
             info move C3 visits 4 winrate 2500 prior 2000 order 1 pv C3"
        );
    }
}
