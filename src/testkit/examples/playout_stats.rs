//! Mean length of light playouts and how many hit the move cap, from the empty board:
//! `cargo run --release --example playout_stats [size] [count]`. Handy under `perf record`.
use gokata_engine::{default_max_moves, playout, Board, Color, Rng};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("a number"));
    let sizes = match args.next() {
        Some(size) => vec![size],
        None => vec![9, 19],
    };
    let count = args.next().unwrap_or(2000);
    for size in sizes {
        let empty = Board::new(size, size).unwrap();
        let cap = default_max_moves(&empty);
        let mut rng = Rng::new(1);
        let (mut total, mut capped) = (0u64, 0);
        for _ in 0..count {
            let mut board = empty.clone();
            let result = playout(&mut board, Color::Black, false, cap, 0.5, &mut rng);
            total += u64::from(result.moves);
            capped += usize::from(result.moves == cap);
        }
        println!(
            "{size}x{size}: {} moves per playout on average, {capped} of {count} reached the cap of {cap}",
            total / count as u64
        );
    }
}
