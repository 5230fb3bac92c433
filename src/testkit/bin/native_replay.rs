//! `native-replay`: the engine's own replay speed, for `benches/bench_python.py` to set
//! `Go.play_many` against, turn about with its own samples.
//!
//! It loads the corpus (`GOKATA_CORPUS`, else the repository's) once, turns every game by each
//! of the eight symmetries, and then answers each line `ROUNDS` on standard input with
//! `NANOSECONDS MOVES`: the time `Game::play` took to replay all of those games `ROUNDS` times
//! on fresh boards, and the moves it played. Every move must be legal; a corpus that cannot be
//! read or replayed ends the program with a message and exit status 1.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::Instant;

use gokata_testkit::corpus::{replay, Corpus, RECIPES, SYMMETRIES};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("native-replay: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut games = Vec::new();
    for recipe in RECIPES {
        let corpus = Corpus::load(recipe.name)?;
        for k in 0..SYMMETRIES {
            let turned = corpus.turned(k);
            for recorded in &turned.games {
                games.push((turned.size, recorded.moves.clone()));
            }
        }
    }
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        let rounds: u32 = line
            .trim()
            .parse()
            .map_err(|_| format!("expected a number of rounds, got {line:?}"))?;
        let mut moves = 0usize;
        let start = Instant::now();
        for _ in 0..rounds {
            for (size, game_moves) in &games {
                std::hint::black_box(replay(*size, game_moves).map_err(|e| e.to_string())?);
                moves += game_moves.len();
            }
        }
        let nanoseconds = start.elapsed().as_nanos();
        writeln!(out, "{nanoseconds} {moves}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write standard output: {e}"))?;
    }
    Ok(())
}
