//! Shows why the replay and legality figures jumped from run to run: a corpus of ten thousand
//! moves replayed over and over is learnt by the processor's branch predictor. Windows of
//! 100 ms alternate between the corpus as recorded and the corpus turned by each of the
//! board's eight symmetries in turn (the same games and the same work, new to the predictor),
//! for replays and for legality checks; the median (10th-90th percentile) of each is printed.
//!
//! As recorded, the figure is fast while the predictor's memory of the games lasts and slow
//! when anything (another process, an interrupt, a neighbour on the host's core) disturbs it:
//! its windows spread widely. Turned, it stays near the slow end, and stays there: that is
//! the engine's speed on games it has not seen, which the benchmarks now report.
//!
//! ```sh
//! cargo build --release --example memorisation_probe
//! taskset -c 1 target/release/examples/memorisation_probe 9 60
//! ```
//!
//! Usage: `memorisation_probe SIZE WINDOWS` (each of the four figures gets WINDOWS windows).

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use gokata::corpus::{self, Corpus, SYMMETRIES};
use gokata::engine::{Board, Color, Point};

const WINDOW: Duration = Duration::from_millis(100);

/// Nanoseconds per unit over one window of `pass` (which returns how many units it did).
fn window(mut pass: impl FnMut() -> usize) -> f64 {
    let start = Instant::now();
    let mut units = 0;
    while start.elapsed() < WINDOW {
        units += pass();
    }
    start.elapsed().as_nanos() as f64 / units as f64
}

fn replay(corpus: &Corpus) -> usize {
    for recorded in &corpus.games {
        black_box(corpus::replay(corpus.size, black_box(&recorded.moves)).expect("legal"));
    }
    corpus.move_count()
}

fn check(positions: &[(Board, Color)], orders: &[Vec<Point>]) -> usize {
    let mut checks = 0;
    for ((board, color), empties) in positions.iter().zip(orders) {
        for &p in empties {
            black_box(board.illegal_reason(black_box(p), *color));
        }
        checks += empties.len();
    }
    checks
}

fn spread(mut figures: Vec<f64>) -> String {
    figures.sort_by(f64::total_cmp);
    let at = |q: usize| figures[(figures.len() - 1) * q / 100];
    format!("{:.2} ({:.2}-{:.2})", at(50), at(10), at(90))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(Ok(size)), Some(Ok(windows @ 1..))) = (
        args.first().map(|a| a.parse::<usize>()),
        args.get(1).map(|a| a.parse::<usize>()),
    ) else {
        eprintln!("usage: memorisation_probe SIZE WINDOWS (WINDOWS at least 1)");
        return ExitCode::FAILURE;
    };
    let corpus = match Corpus::load(&format!("random-{size}x{size}.txt")) {
        Ok(corpus) => corpus,
        Err(e) => {
            eprintln!("memorisation_probe: {e}");
            return ExitCode::FAILURE;
        }
    };
    let turned: Vec<Corpus> = (0..SYMMETRIES).map(|k| corpus.turned(k)).collect();
    let positions = corpus.sampled_positions().expect("corpus moves are legal");
    let orders = corpus::check_orders(&positions);
    let (mut replay_turn, mut check_turn) = (0, 0);
    let mut figures = [(); 4].map(|_| Vec::with_capacity(windows));
    for _ in 0..windows {
        figures[0].push(window(|| replay(&corpus)));
        figures[1].push(window(|| {
            replay_turn = (replay_turn + 1) % SYMMETRIES;
            replay(&turned[replay_turn])
        }));
        figures[2].push(window(|| check(&positions, &orders[0])));
        figures[3].push(window(|| {
            check_turn = (check_turn + 1) % SYMMETRIES;
            check(&positions, &orders[check_turn])
        }));
    }
    let [replay_recorded, replay_turned, check_recorded, check_turned] = figures.map(spread);
    println!(
        "{size}x{size}, {} games, {} moves, {} positions; median (10th-90th percentile) of {windows} windows",
        corpus.games.len(),
        corpus.move_count(),
        positions.len()
    );
    println!("replay ns/move:       as recorded {replay_recorded}; turned {replay_turned}");
    println!("legality ns/check:    as recorded {check_recorded}; turned {check_turned}");
    ExitCode::SUCCESS
}
