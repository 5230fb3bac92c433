//! Tells memory placement from machine noise when the replay figure moves between processes:
//! replays the corpus in nine windows of 200 ms and prints the median, fastest and slowest
//! window's ns per move beside where this process put its stack and the board's block (their
//! offsets in a 4 KiB page, which ASLR changes and which decide cache-set and 4K aliasing).
//!
//! ```sh
//! cargo build --release --example placement_probe
//! # many processes, ASLR on and off; then stack offsets swept by padding the environment:
//! for i in $(seq 24); do taskset -c 1 target/release/examples/placement_probe 9; done
//! for i in $(seq 24); do setarch -R taskset -c 1 target/release/examples/placement_probe 9; done
//! for pad in $(seq 0 48 4095); do
//!   env PAD=$(printf '%*s' $pad '') setarch -R taskset -c 1 target/release/examples/placement_probe 9
//! done
//! ```
//!
//! Usage: `placement_probe SIZE [HEAP_PAD]`; HEAP_PAD bytes are allocated and kept before the
//! corpus is read, to move later heap blocks.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use gokata::corpus::{self, Corpus};

const WINDOWS: usize = 9;
const WINDOW: Duration = Duration::from_millis(200);

/// ns per move of corpus replays repeated for one window.
fn window(corpus: &Corpus) -> f64 {
    let start = Instant::now();
    let mut rounds = 0;
    while start.elapsed() < WINDOW {
        for recorded in &corpus.games {
            black_box(corpus::replay(corpus.size, black_box(&recorded.moves)).expect("legal"));
        }
        rounds += 1;
    }
    start.elapsed().as_nanos() as f64 / (rounds * corpus.move_count()) as f64
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (size, heap_pad) = match args.as_slice() {
        [size] => (size.parse::<usize>(), Ok(0)),
        [size, pad] => (size.parse::<usize>(), pad.parse::<usize>()),
        _ => {
            eprintln!("usage: placement_probe SIZE [HEAP_PAD]");
            return ExitCode::FAILURE;
        }
    };
    let (Ok(size), Ok(heap_pad)) = (size, heap_pad) else {
        eprintln!("placement_probe: SIZE and HEAP_PAD must be whole numbers");
        return ExitCode::FAILURE;
    };
    let kept = vec![0u8; heap_pad];
    let corpus = match Corpus::load(&format!("random-{size}x{size}.txt")) {
        Ok(corpus) => corpus,
        Err(e) => {
            eprintln!("placement_probe: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stack_marker = 0u8;
    let game = corpus::replay(size, &corpus.games[0].moves).expect("legal");
    let mut windows: Vec<f64> = (0..WINDOWS).map(|_| window(&corpus)).collect();
    windows.sort_by(f64::total_cmp);
    println!(
        "ns/move median {:.1} fastest {:.1} slowest {:.1}; in-page offsets: stack {:#05x} board {:#05x}",
        windows[WINDOWS / 2],
        windows[0],
        windows[WINDOWS - 1],
        std::ptr::addr_of!(stack_marker) as usize & 0xfff,
        game.board().empty_points().as_ptr() as usize & 0xfff,
    );
    black_box(kept);
    ExitCode::SUCCESS
}
