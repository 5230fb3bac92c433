//! Writes the in-repository game corpus, `tests/data/corpus/random-9x9.txt` and
//! `random-19x19.txt`, from fixed seeds (see `gokata::corpus::RECIPES` and `generate`):
//! `cargo run --release --example make_corpus [folder]`, the folder `tests/data/corpus` by
//! default. The same seeds always give the same files; `cargo test` checks that they still do.
use std::path::PathBuf;

use gokata::corpus::{in_repo_corpus_dir, Corpus, RECIPES};

fn main() {
    let folder = std::env::args_os()
        .nth(1)
        .map_or_else(in_repo_corpus_dir, PathBuf::from);
    std::fs::create_dir_all(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    for recipe in RECIPES {
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
}
