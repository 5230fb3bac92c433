//! What the probes share: timed windows, their spread, the corpus of the size asked for, and
//! the legality loop the benchmark used to run (one order a pass over every position).

use std::hint::black_box;
use std::time::{Duration, Instant};

use gokata_engine::{Board, Color, Point};
use gokata_testkit::corpus::Corpus;

pub const WINDOW: Duration = Duration::from_millis(100);

/// Nanoseconds per unit over one window of `pass` (which returns how many units it did).
pub fn window(mut pass: impl FnMut() -> usize) -> f64 {
    let start = Instant::now();
    let mut units = 0;
    while start.elapsed() < WINDOW {
        units += pass();
    }
    start.elapsed().as_nanos() as f64 / units as f64
}

/// The median (10th-90th percentile) of some windows; the lower median when their count is
/// even.
pub fn spread(mut figures: Vec<f64>) -> String {
    figures.sort_by(f64::total_cmp);
    let at = |q: usize| figures[(figures.len() - 1) * q / 100];
    format!("{:.2} ({:.2}-{:.2})", at(50), at(10), at(90))
}

/// `SIZE WINDOWS` from the command line, and the corpus of that size; a message for the user
/// when either is wrong.
pub fn size_windows_and_corpus(probe: &str) -> Result<(usize, usize, Corpus), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(size), Some(windows)) = (
        args.first().and_then(|a| a.parse::<usize>().ok()),
        args.get(1)
            .and_then(|a| a.parse::<usize>().ok())
            .filter(|&w| w > 0),
    ) else {
        return Err(format!(
            "usage: {probe} SIZE WINDOWS (SIZE 9 or 19, WINDOWS at least 1)"
        ));
    };
    let corpus = Corpus::load(&format!("random-{size}x{size}.txt")).map_err(|e| format!("{probe}: {e}"))?;
    Ok((size, windows, corpus))
}

/// Every position's empty points in one order (one of `corpus::check_orders`), position after
/// position; returns the number of checks.
pub fn check_in_one_order(positions: &[(Board, Color)], order: &[Vec<Point>]) -> usize {
    let mut checks = 0;
    for ((board, color), empties) in positions.iter().zip(order) {
        for &p in empties {
            black_box(board.illegal_reason(black_box(p), *color));
        }
        checks += empties.len();
    }
    checks
}
