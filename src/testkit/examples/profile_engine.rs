//! A fixed amount of engine work, for profilers that count rather than time (the benchmark
//! machines are shared and noisy, and have no hardware counters):
//!
//! ```sh
//! cargo build --release --example profile_engine
//! valgrind --tool=callgrind target/release/examples/profile_engine replay 19 20
//! perf record -g target/release/examples/profile_engine playouts 9 100000
//! ```
//!
//! `replay SIZE ROUNDS`: replays the corpus (`GOKATA_CORPUS`, else `src/testkit/data/corpus`) ROUNDS
//! times; `playouts SIZE COUNT`: light playouts from the empty board; `legality SIZE ROUNDS`:
//! every empty point of positions sampled every 10 turns, ROUNDS times; `new SIZE COUNT`:
//! creates COUNT games.

use std::hint::black_box;
use std::process::ExitCode;

use gokata_engine::{default_max_moves, playout, Board, Color, Game, Rng};
use gokata_testkit::corpus::{self, Corpus};

fn replay(corpus: &Corpus, rounds: usize) -> usize {
    let mut moves = 0;
    for _ in 0..rounds {
        for recorded in &corpus.games {
            let game = corpus::replay(corpus.size, &recorded.moves).expect("corpus moves are legal");
            moves += recorded.moves.len();
            black_box(&game);
        }
    }
    moves
}

fn legality(corpus: &Corpus, rounds: usize) -> usize {
    let positions = corpus.sampled_positions().expect("corpus moves are legal");
    let mut legal = 0;
    for _ in 0..rounds {
        for (board, color) in &positions {
            for &p in board.empty_points() {
                legal += usize::from(black_box(board.illegal_reason(p, *color)).is_none());
            }
        }
    }
    legal
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [work, size, count] = args.as_slice() else {
        eprintln!("usage: profile_engine replay|playouts|legality|new SIZE COUNT");
        return ExitCode::FAILURE;
    };
    let (Ok(size), Ok(count)) = (size.parse::<usize>(), count.parse::<usize>()) else {
        eprintln!("profile_engine: SIZE and COUNT must be whole numbers");
        return ExitCode::FAILURE;
    };
    let corpus = || {
        Corpus::load(&format!("random-{size}x{size}.txt")).unwrap_or_else(|e| {
            eprintln!("profile_engine: {e}");
            std::process::exit(1)
        })
    };
    let done = match work.as_str() {
        "replay" => replay(&corpus(), count),
        "legality" => legality(&corpus(), count),
        "playouts" => {
            let empty = Board::new(size, size).expect("a valid size");
            let (mut board, mut rng) = (empty.clone(), Rng::new(2026));
            let cap = default_max_moves(&empty);
            (0..count)
                .map(|_| {
                    board.clone_from(&empty);
                    playout(&mut board, Color::Black, false, cap, 0.5, &mut rng).moves as usize
                })
                .sum()
        }
        "new" => (0..count)
            .map(|_| black_box(Game::new(size, size).expect("a valid size")).turns_played())
            .sum(),
        other => {
            eprintln!("profile_engine: unknown work {other:?}");
            return ExitCode::FAILURE;
        }
    };
    println!("{work} {size}x{size}: {done}");
    ExitCode::SUCCESS
}
