//! Leela Zero's analysis commands as Sabaki and Lizzie read them: `lz-analyze [color]
//! [interval]` answers `=` and then, every `interval` centiseconds until the next command
//! arrives, one line `info move D4 visits N winrate W prior P order K pv D4 Q16 ... info move
//! ...` (win rate and prior in ten-thousandths, for the side to move).

use super::line::{missing_argument, quoted};
use super::vertex::{self, color as read_color, vertex as read_vertex};
use crate::bot::Candidate;
use crate::{Board, Color};

/// The default and least interval, in centiseconds.
const DEFAULT_INTERVAL: u64 = 50;
const LEAST_INTERVAL: u64 = 5;
const MOST_INTERVAL: u64 = 360_000;

/// What `lz-analyze` and `lz-genmove_analyze` were asked: whose move (default: the side to
/// move) and how often to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub color: Option<Color>,
    pub centiseconds: u64,
}

/// Reads `command`'s arguments as Leela Zero does, in any order: a color, an interval in
/// centiseconds (a number, or `interval N`), and the keywords `minmoves N`, `maxmoves N`,
/// `avoid COLOR VERTICES MOVES` and `allow COLOR VERTICES MOVES` (VERTICES: comma-separated,
/// on `board`), which are read and checked but change nothing here. Anything else, a value
/// that does not read, or a color or interval given twice is refused, naming it.
pub fn request(command: &str, args: &[String], board: &Board) -> Result<Request, String> {
    let usage = format!(
        "{command} [COLOR] [INTERVAL] [interval N] [minmoves N] [maxmoves N] \
         [avoid|allow COLOR VERTICES MOVES]"
    );
    let mut color = None;
    let mut interval = None;
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        let mut value = |name: &str| words.next().ok_or_else(|| missing_argument(name, &usage));
        match word.to_ascii_lowercase().as_str() {
            "b" | "w" | "black" | "white" => {
                if color.is_some() {
                    return Err(format!(
                        "syntax error: a second color {} (usage: {usage})",
                        quoted(word)
                    ));
                }
                color = Some(read_color(word)?);
            }
            "interval" => {
                let text = value("N")?;
                set_interval(&mut interval, text, &usage)?;
            }
            keyword @ ("minmoves" | "maxmoves") => {
                whole_number(keyword, value("N")?)?;
            }
            keyword @ ("avoid" | "allow") => {
                read_color(value("COLOR")?)?;
                for point in value("VERTICES")?.split(',') {
                    read_vertex(point, board)?;
                }
                whole_number(&format!("number of moves to {keyword}"), value("MOVES")?)?;
            }
            _ if word.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c)) => {
                set_interval(&mut interval, word, &usage)?;
            }
            _ => return Err(format!("invalid argument {} (usage: {usage})", quoted(word))),
        }
    }
    Ok(Request {
        color,
        centiseconds: interval.unwrap_or(DEFAULT_INTERVAL),
    })
}

/// Reads an interval in centiseconds into `interval` (kept between the least and the most),
/// refusing a second one.
fn set_interval(interval: &mut Option<u64>, text: &str, usage: &str) -> Result<(), String> {
    if interval.is_some() {
        return Err(format!(
            "syntax error: a second interval {} (usage: {usage})",
            quoted(text)
        ));
    }
    let centiseconds = whole_number("interval", text)?;
    *interval = Some(centiseconds.clamp(LEAST_INTERVAL, MOST_INTERVAL));
    Ok(())
}

/// A whole number (one too big for a u64 reads as the largest), or an error naming `what`.
fn whole_number(what: &str, text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("invalid {what} {}: not a whole number", quoted(text)));
    }
    Ok(text.parse().unwrap_or(u64::MAX))
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
        let board = Board::new(19, 19).unwrap();
        let r = |text| request("lz-analyze", &words(text), &board);
        let asked = |color, centiseconds| Ok(Request { color, centiseconds });
        assert_eq!(r(""), asked(None, 50));
        assert_eq!(r("10"), asked(None, 10));
        assert_eq!(r("B 100"), asked(Some(Color::Black), 100));
        assert_eq!(r("w interval 20 minmoves 3"), asked(Some(Color::White), 20));
        assert_eq!(r("interval 20 white"), asked(Some(Color::White), 20));
        assert_eq!(r("1"), asked(None, 5));
        assert_eq!(r("99999999999999999999999"), asked(None, 360_000));
        assert_eq!(
            r("b 30 avoid b q16,d4 1 allow w pass,A1 20 maxmoves 5"),
            asked(Some(Color::Black), 30)
        );
    }

    #[test]
    fn what_does_not_read_is_refused_naming_it() {
        let board = Board::new(9, 9).unwrap();
        let error = |text| request("lz-analyze", &words(text), &board).unwrap_err();
        let usage = "(usage: lz-analyze [COLOR] [INTERVAL] [interval N] [minmoves N] [maxmoves N] \
                     [avoid|allow COLOR VERTICES MOVES])";
        assert_eq!(error("purple"), format!("invalid argument \"purple\" {usage}"));
        assert_eq!(
            error("b 10 purple"),
            format!("invalid argument \"purple\" {usage}")
        );
        assert_eq!(error("interval"), format!("syntax error: missing N {usage}"));
        assert_eq!(error("interval x"), "invalid interval \"x\": not a whole number");
        assert_eq!(error("-5"), "invalid interval \"-5\": not a whole number");
        assert_eq!(error("1.5"), "invalid interval \"1.5\": not a whole number");
        assert_eq!(
            error("10 20"),
            format!("syntax error: a second interval \"20\" {usage}")
        );
        assert_eq!(
            error("b w"),
            format!("syntax error: a second color \"w\" {usage}")
        );
        assert_eq!(
            error("minmoves many"),
            "invalid minmoves \"many\": not a whole number"
        );
        assert_eq!(error("avoid purple d4 1"), "invalid color \"purple\"");
        assert_eq!(
            error("avoid b d4,z9 1"),
            "invalid coordinate \"z9\": the columns of this 9x9 board are A-H, J"
        );
        assert_eq!(
            error("allow b d4"),
            format!("syntax error: missing MOVES {usage}")
        );
        assert_eq!(
            error("avoid b d4 soon"),
            "invalid number of moves to avoid \"soon\": not a whole number"
        );
        let genmove = request("lz-genmove_analyze", &words("purple"), &board).unwrap_err();
        assert!(
            genmove.starts_with("invalid argument \"purple\" (usage: lz-genmove_analyze "),
            "{genmove}"
        );
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
