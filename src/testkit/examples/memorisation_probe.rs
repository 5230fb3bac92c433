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

mod probe_windows;

use std::hint::black_box;
use std::process::ExitCode;

use gokata_testkit::corpus::{self, Corpus, SYMMETRIES};
use probe_windows::{check_in_one_order as check, size_windows_and_corpus, spread, window};

fn replay(corpus: &Corpus) -> usize {
    for recorded in &corpus.games {
        black_box(corpus::replay(corpus.size, black_box(&recorded.moves)).expect("legal"));
    }
    corpus.move_count()
}

fn main() -> ExitCode {
    let (size, windows, corpus) = match size_windows_and_corpus("memorisation_probe") {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
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
