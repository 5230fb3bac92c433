//! Tells memory placement from machine noise when the replay figure moves between processes:
//! replays the corpus in nine windows of 200 ms and prints the median (fastest-slowest)
//! window's ns per move beside where this process put its stack and the board's block (their
//! offsets in a 4 KiB page, which ASLR changes and which decide cache-set and 4K aliasing).
//! After each window a canary, a fixed run of arithmetic that touches no memory, is timed too:
//! if the replay's slow windows are the canary's slow windows, the core itself was slow (a
//! shared host: this guest reports no steal time), not the engine's memory.
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

/// ns per step of a fixed xorshift-and-multiply loop, which touches no memory.
fn canary() -> f64 {
    const STEPS: u32 = 1 << 20;
    let start = Instant::now();
    let mut x = black_box(0x9E37_79B9_7F4A_7C15u64);
    for _ in 0..STEPS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    }
    black_box(x);
    start.elapsed().as_nanos() as f64 / f64::from(STEPS)
}

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
    let (mut replay, mut canaries): (Vec<f64>, Vec<f64>) =
        (0..WINDOWS).map(|_| (window(&corpus), canary())).unzip();
    let mut relative: Vec<f64> = replay.iter().zip(&canaries).map(|(r, c)| r / c).collect();
    for figures in [&mut replay, &mut canaries, &mut relative] {
        figures.sort_by(f64::total_cmp);
    }
    let spread = |f: &[f64]| format!("{:.1} ({:.1}-{:.1})", f[WINDOWS / 2], f[0], f[WINDOWS - 1]);
    println!(
        "ns/move {}; canary ns/step {}; ratio {}; in-page offsets: stack {:#05x} board {:#05x}",
        spread(&replay),
        spread(&canaries),
        spread(&relative),
        std::ptr::addr_of!(stack_marker) as usize & 0xfff,
        game.board().empty_points().as_ptr() as usize & 0xfff,
    );
    black_box(kept);
    ExitCode::SUCCESS
}
