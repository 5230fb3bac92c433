//! Writes the in-repository game corpus, `src/testkit/data/corpus/random-9x9.txt` and
//! `random-19x19.txt`, from fixed seeds (see `gokata_testkit::corpus::RECIPES` and `generate`):
//! `cargo run --release --example make_corpus [folder]`, the folder `src/testkit/data/corpus` by
//! default. The same seeds always give the same files; `cargo test` checks that they still do.
//!
//! `cargo run --release --example make_corpus FOLDER --fresh` writes the larger files of
//! `FRESH_RECIPES` instead (300 and 100 games), for the anchors' script:
//! `run.sh GOKATA_DIR BUILD_DIR ROUNDS FOLDER` then times every engine on games too many for
//! a branch predictor to learn.
use std::path::PathBuf;
use std::process::ExitCode;

use gokata_testkit::corpus::{in_repo_corpus_dir, Corpus, FRESH_RECIPES, RECIPES};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (folder, recipes) = match args.as_slice() {
        [] => (in_repo_corpus_dir(), RECIPES),
        [folder] => (PathBuf::from(folder), RECIPES),
        [folder, fresh] if fresh == "--fresh" => (PathBuf::from(folder), FRESH_RECIPES),
        _ => {
            eprintln!("usage: make_corpus [FOLDER [--fresh]]");
            return ExitCode::FAILURE;
        }
    };
    std::fs::create_dir_all(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    for recipe in recipes {
        let text = recipe.generate().expect("a valid board size");
        let corpus = Corpus::parse(&text).expect("the generated text parses");
        let path = folder.join(recipe.name);
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!(
            "{}: {} games, {} moves, {} bytes (seed {})",
            path.display(),
            corpus.games.len(),
            corpus.move_count(),
            text.len(),
            recipe.seed
        );
    }
    ExitCode::SUCCESS
}
