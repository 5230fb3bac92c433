//! Shows why the 19x19 legality figure jumped from round to round: checking every empty point
//! of one position after another, a pass streams all the sampled positions through the cache
//! (7.6 MB of 19x19 boards in the shared corpus, 33 MB in `make_corpus --fresh`'s), so the
//! figure measured what memory the machine's other work left free. Checking each position's
//! points in the eight orders while it is in the cache does the same checks without that.
//!
//! Windows of 100 ms alternate between the two loops, with and without a second thread
//! reading a 256 MiB buffer over and over (another program's memory traffic, on the other
//! core when the probe is not pinned); the median (10th-90th percentile) of each is printed.
//! On 9x9, whose positions fit the cache either way, the two loops take about the same time:
//! the predictor gains little from meeting a position's answers in eight orders in a row.
//!
//! ```sh
//! cargo build --release --example locality_probe
//! target/release/examples/locality_probe 19 20    # not pinned: the reading thread needs a core
//! ```
//!
//! Usage: `locality_probe SIZE WINDOWS` (each of the four figures gets WINDOWS windows).

mod probe_windows;

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use gokata_engine::{Board, Color, Point};
use gokata_testkit::corpus::{self, SYMMETRIES};
use probe_windows::{check_in_one_order, size_windows_and_corpus, spread, window, WINDOW};

const TRAFFIC_BYTES: usize = 256 << 20;

/// Each position's points in the eight orders, one position at a time, as the benchmark does.
fn position_by_position(positions: &[(Board, Color)], orders: &[Vec<Vec<Point>>]) -> usize {
    let mut checks = 0;
    for (i, (board, color)) in positions.iter().enumerate() {
        for order in orders {
            for &p in &order[i] {
                black_box(board.illegal_reason(black_box(p), *color));
            }
            checks += order[i].len();
        }
    }
    checks
}

/// Reads `buffer` over and over, a megabyte at a time, while `on` is set; until `done`.
fn memory_traffic(buffer: &[u64], on: &AtomicBool, done: &AtomicBool) {
    let mut megabytes = buffer.chunks(1 << 17).cycle();
    while !done.load(Ordering::Relaxed) {
        if on.load(Ordering::Relaxed) {
            let megabyte = megabytes.next().expect("cycle never ends");
            black_box(megabyte.iter().fold(0u64, |sum, &x| sum.wrapping_add(x)));
        } else {
            thread::sleep(Duration::from_millis(1));
        }
    }
}

fn main() -> ExitCode {
    let (size, windows, corpus) = match size_windows_and_corpus("locality_probe") {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let positions = corpus.sampled_positions().expect("corpus moves are legal");
    let orders = corpus::check_orders(&positions);
    let megabytes = positions.iter().map(|(b, _)| b.memory_bytes()).sum::<usize>() as f64 / 1e6;
    println!(
        "{size}x{size}: {} positions, {megabytes:.1} MB of boards; ns per check, median \
         (10th-90th percentile) of {windows} windows of {} ms",
        positions.len(),
        WINDOW.as_millis()
    );
    // Filled before the first window, so that filling it is not timed.
    let buffer = vec![1u64; TRAFFIC_BYTES / 8];
    let (traffic_on, done) = (AtomicBool::new(false), AtomicBool::new(false));
    // For each setting of the reading thread (off, on): the windows of each loop.
    let (mut streamed_windows, mut local_windows) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    let mut k = 0;
    thread::scope(|scope| {
        scope.spawn(|| memory_traffic(&buffer, &traffic_on, &done));
        for _ in 0..windows {
            for traffic in [false, true] {
                traffic_on.store(traffic, Ordering::Relaxed);
                streamed_windows[usize::from(traffic)].push(window(|| {
                    k = (k + 1) % SYMMETRIES;
                    check_in_one_order(&positions, &orders[k])
                }));
                local_windows[usize::from(traffic)]
                    .push(window(|| position_by_position(&positions, &orders)));
            }
        }
        done.store(true, Ordering::Relaxed);
    });
    let [streamed_quiet, streamed_traffic] = streamed_windows;
    let [local_quiet, local_traffic] = local_windows;
    for (label, figures) in [
        ("one order a pass, quiet", streamed_quiet),
        ("position by position, quiet", local_quiet),
        ("one order a pass, other thread reading 256 MiB", streamed_traffic),
        (
            "position by position, other thread reading 256 MiB",
            local_traffic,
        ),
    ] {
        println!("{label:<52} {}", spread(figures));
    }
    ExitCode::SUCCESS
}
