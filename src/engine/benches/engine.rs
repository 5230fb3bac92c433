//! Engine speed, in the figures Go engines are compared on. Run: `cargo bench --bench engine`.
//!
//! - corpus replay: ns per move replaying the corpus of random games (`GOKATA_CORPUS`, else the
//!   repository's `src/testkit/data/corpus`; every final board checked first), turned by each of the
//!   board's eight symmetries in turn so that the processor cannot learn the games by heart,
//!   with a naive flood-fill board replaying the same games as the in-run baseline;
//! - light random playouts per second from the empty board;
//! - ns per legality check over every empty point of positions sampled from the corpus, each
//!   position's points taken in the order of each of the eight symmetries in turn;
//! - `Game::new` and a game's copy, with the bytes a game takes printed.
//!
//! Targets (issue 12), against KataGo, libego and Pachi measured in the same run by the
//! anchors' script (outside this repository; it runs this benchmark with `GOKATA_CORPUS` set to
//! its corpus): replay and legality faster than KataGo's board, light playouts at least 1.3
//! times libego's and Pachi's; `Game::new(9, 9)` under 100 ns; a 9x9 game under 2 KB and a
//! 19x19 game under 8 KB.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gokata_engine::{default_max_moves, playout, Board, Color, Game, Rng};
use gokata_testkit::corpus::{self, corpus_dir, digits, Corpus, RecordedGame, SYMMETRIES};

use gokata_testkit::reference;

fn load(name: &str) -> Corpus {
    let corpus = Corpus::load(name).unwrap_or_else(|e| {
        panic!(
            "the benchmark needs the game corpus in {} (GOKATA_CORPUS or src/testkit/data/corpus): {e}",
            corpus_dir().display()
        )
    });
    assert!(corpus.move_count() > 0, "{name}: no moves to replay");
    check_final_boards(name, &corpus);
    println!(
        "{name}: {} games, {} moves, final boards checked",
        corpus.games.len(),
        corpus.move_count()
    );
    corpus
}

fn check_final_boards(name: &str, corpus: &Corpus) {
    for (number, recorded) in corpus.games.iter().enumerate() {
        let game = replay(corpus.size, recorded);
        assert_eq!(
            digits(game.board()),
            recorded.final_board,
            "{name} game {number}: wrong final board"
        );
    }
}

/// The corpus under each symmetry of the board, final boards checked. The replay benchmarks
/// take them in turn, so the branch predictor cannot learn the games (see `Corpus::turned`).
fn every_symmetry(name: &str, corpus: &Corpus) -> Vec<Corpus> {
    (0..SYMMETRIES)
        .map(|k| {
            let turned = corpus.turned(k);
            check_final_boards(&format!("{name} turned by symmetry {k}"), &turned);
            turned
        })
        .collect()
}

fn replay(size: usize, recorded: &RecordedGame) -> Game {
    corpus::replay(size, &recorded.moves).expect("corpus moves are legal")
}

fn naive_replay(size: usize, recorded: &RecordedGame) -> reference::NaiveGame {
    let mut game = reference::NaiveGame::new(size, size);
    for m in &recorded.moves {
        match *m {
            Some((row, col)) => game.play(row * size + col).expect("corpus moves are legal"),
            None => game.pass(),
        }
    }
    game
}

/// Times `work` and reports the time per unit: `work` returns how many units it did.
fn per_unit(iters: u64, mut work: impl FnMut() -> usize) -> Duration {
    let mut units = 0;
    let start = Instant::now();
    for _ in 0..iters {
        units += work();
    }
    start.elapsed().mul_f64(iters as f64 / units as f64)
}

fn corpus_replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("corpus replay, time per move");
    for name in ["random-9x9.txt", "random-19x19.txt"] {
        let corpus = load(name);
        let (size, moves) = (corpus.size, corpus.move_count());
        let turned = every_symmetry(name, &corpus);
        let mut symmetry = 0;
        group.bench_function(format!("gokata {size}x{size}"), |b| {
            b.iter_custom(|iters| {
                per_unit(iters, || {
                    symmetry = (symmetry + 1) % SYMMETRIES;
                    for recorded in &turned[symmetry].games {
                        black_box(replay(size, black_box(recorded)));
                    }
                    moves
                })
            })
        });
        group.bench_function(format!("naive flood-fill baseline {size}x{size}"), |b| {
            b.iter_custom(|iters| {
                per_unit(iters, || {
                    symmetry = (symmetry + 1) % SYMMETRIES;
                    let first_games = &turned[symmetry].games[..4.min(corpus.games.len())];
                    for recorded in first_games {
                        black_box(naive_replay(size, black_box(recorded)));
                    }
                    first_games.iter().map(|g| g.moves.len()).sum()
                })
            })
        });
    }
    group.finish();
}

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("light playouts from the empty board");
    group.throughput(Throughput::Elements(1));
    for size in [9, 19] {
        let empty = Board::new(size, size).unwrap();
        let max_moves = default_max_moves(&empty);
        let mut rng = Rng::new(2026);
        let mut board = empty.clone();
        group.bench_function(format!("{size}x{size}"), |b| {
            b.iter(|| {
                board.clone_from(&empty);
                black_box(playout(&mut board, Color::Black, false, max_moves, 0.5, &mut rng))
            })
        });
    }
    group.finish();
}

fn legality(c: &mut Criterion) {
    let mut group = c.benchmark_group("legality check, time per empty point");
    for name in ["random-9x9.txt", "random-19x19.txt"] {
        let corpus = load(name);
        let positions = corpus.sampled_positions().expect("corpus moves are legal");
        // Each position's points are checked in the eight orders of the board's symmetries
        // (so that the branch predictor cannot learn the sequence of answers), all eight while
        // the position is in the cache. One order a pass over every position streamed all of
        // them through the cache eight times (7.6 MB of 19x19 boards in the shared corpus,
        // 33 MB in `make_corpus --fresh`'s), and the figure measured the memory that other
        // processes left free (see examples/locality_probe.rs).
        let orders = corpus::check_orders(&positions);
        let checks = SYMMETRIES
            * positions
                .iter()
                .map(|(board, _)| board.empty_points().len())
                .sum::<usize>();
        group.bench_function(format!("{}x{}", corpus.size, corpus.size), |b| {
            b.iter_custom(|iters| {
                per_unit(iters, || {
                    for (i, (board, color)) in positions.iter().enumerate() {
                        for order in &orders {
                            for &p in &order[i] {
                                black_box(board.illegal_reason(black_box(p), *color));
                            }
                        }
                    }
                    checks
                })
            })
        });
    }
    group.finish();
}

/// A game after the first `turns` turns of the first corpus game.
fn game_after(corpus: &Corpus, turns: usize) -> Game {
    let first = RecordedGame {
        moves: corpus.games[0].moves[..turns].to_vec(),
        final_board: Vec::new(),
    };
    replay(corpus.size, &first)
}

/// What a game costs to make and to copy (a tree search does both by the million), with the
/// bytes each takes printed beside.
fn game_costs(c: &mut Criterion) {
    let mut group = c.benchmark_group("game creation and copy");
    for name in ["random-9x9.txt", "random-19x19.txt"] {
        let corpus = load(name);
        let size = corpus.size;
        let game = game_after(&corpus, 40);
        let copy = game.clone();
        println!(
            "memory {size}x{size}: a new game {} bytes; after 40 turns {} bytes, its copy {} bytes \
             ({} bytes per turn)",
            Game::new(size, size).unwrap().memory_bytes(),
            game.memory_bytes(),
            copy.memory_bytes(),
            Game::BYTES_PER_TURN
        );
        group.bench_function(format!("Game::new {size}x{size}"), |b| {
            b.iter(|| Game::new(black_box(size), black_box(size)).unwrap())
        });
        group.bench_function(format!("clone after 40 turns {size}x{size}"), |b| {
            b.iter(|| black_box(&game).clone())
        });
    }
    group.finish();
}

fn config() -> Criterion {
    println!("memory per recorded turn: {} bytes", Game::BYTES_PER_TURN);
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = corpus_replay, playouts, legality, game_costs
}
criterion_main!(benches);
