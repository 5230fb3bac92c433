//! Replays the game corpus (`GOKATA_CORPUS`, else the repository's `src/testkit/data/corpus`) on the
//! engine and on the naive reference board, and checks every final board; checks that the
//! in-repository files are exactly what their generator makes from its seeds. A missing or
//! empty corpus fails: nothing here passes having replayed nothing.

#[allow(dead_code)]
use std::collections::HashSet;

use gokata_engine::Game;
use gokata_testkit::corpus::{
    corpus_dir, digits, in_repo_corpus_dir, turn_point, Corpus, RECIPES, SYMMETRIES,
};
use gokata_testkit::reference::NaiveGame;

fn load(name: &str) -> Corpus {
    let corpus = Corpus::load(name).unwrap_or_else(|e| {
        panic!(
            "no game corpus to replay in {} (GOKATA_CORPUS or src/testkit/data/corpus): {e}",
            corpus_dir().display()
        )
    });
    assert!(!corpus.games.is_empty(), "{name}: no games");
    assert!(corpus.move_count() > 0, "{name}: no moves");
    corpus
}

fn replay_on_the_engine(name: &str) -> usize {
    replay_corpus_on_the_engine(name, &load(name))
}

fn replay_corpus_on_the_engine(name: &str, corpus: &Corpus) -> usize {
    for (number, recorded) in corpus.games.iter().enumerate() {
        let mut game = Game::new(corpus.size, corpus.size).unwrap();
        for (turn, m) in recorded.moves.iter().enumerate() {
            match *m {
                Some((row, col)) => {
                    let p = game.board().point(row, col);
                    game.play(p)
                        .unwrap_or_else(|e| panic!("{name} game {number} move {turn}: {e}"));
                }
                None => game.pass(),
            }
        }
        assert_eq!(
            digits(game.board()),
            recorded.final_board,
            "{name} game {number}: final board"
        );
        // And the whole game unwinds to the empty board.
        game.rollback(recorded.moves.len() as i64).unwrap();
        assert!(board_is_empty(&game), "{name} game {number}: rollback to start");
    }
    corpus.games.len()
}

fn board_is_empty(game: &Game) -> bool {
    let board = game.board();
    board.points().all(|p| board.is_empty(p))
}

/// The same games on the naive board, which shares no code with the engine: every move legal
/// under simple ko, no stone move repeating an earlier whole-board position (superko), and the
/// recorded final board.
fn replay_on_the_naive_board(name: &str) -> usize {
    replay_corpus_on_the_naive_board(name, &load(name))
}

fn replay_corpus_on_the_naive_board(name: &str, corpus: &Corpus) -> usize {
    for (number, recorded) in corpus.games.iter().enumerate() {
        let mut game = NaiveGame::new(corpus.size, corpus.size);
        let mut seen = HashSet::from([game.board().cells.clone()]);
        for (turn, m) in recorded.moves.iter().enumerate() {
            match *m {
                Some((row, col)) => {
                    game.play(row * corpus.size + col)
                        .unwrap_or_else(|e| panic!("{name} game {number} move {turn}: {e}"));
                    assert!(
                        seen.insert(game.board().cells.clone()),
                        "{name} game {number} move {turn}: a repeated position"
                    );
                }
                None => game.pass(),
            }
        }
        assert_eq!(
            game.board().cells,
            recorded.final_board,
            "{name} game {number}: final board"
        );
    }
    corpus.games.len()
}

#[test]
fn nine_by_nine_corpus_replays_to_its_final_boards() {
    assert!(replay_on_the_engine("random-9x9.txt") > 0);
}

#[test]
fn nineteen_by_nineteen_corpus_replays_to_its_final_boards() {
    assert!(replay_on_the_engine("random-19x19.txt") > 0);
}

#[test]
fn the_naive_board_replays_the_corpus_to_the_same_final_boards() {
    for recipe in RECIPES {
        assert!(replay_on_the_naive_board(recipe.name) > 0);
    }
}

/// The benchmarks replay the corpus under each symmetry of the board: every turned game is
/// legal on the engine and on the naive board, and ends on its turned final board.
#[test]
fn every_symmetry_of_the_corpus_replays_to_its_turned_final_boards() {
    for recipe in RECIPES {
        let corpus = load(recipe.name);
        for k in 0..SYMMETRIES {
            let name = format!("{} turned by symmetry {k}", recipe.name);
            let turned = corpus.turned(k);
            assert_eq!(turned.move_count(), corpus.move_count(), "{name}");
            assert!(replay_corpus_on_the_engine(&name, &turned) > 0);
            assert!(replay_corpus_on_the_naive_board(&name, &turned) > 0);
        }
    }
}

/// Each symmetry maps the board onto itself, the first is the identity, and no two agree
/// (on a board larger than 1x1), so the eight turned corpora are eight different sets of games.
#[test]
fn the_eight_symmetries_are_distinct_maps_of_the_board_onto_itself() {
    for size in [1, 2, 9, 19] {
        let points: Vec<(usize, usize)> = (0..size)
            .flat_map(|row| (0..size).map(move |col| (row, col)))
            .collect();
        let maps: Vec<Vec<(usize, usize)>> = (0..SYMMETRIES)
            .map(|k| points.iter().map(|&(r, c)| turn_point(r, c, size, k)).collect())
            .collect();
        assert_eq!(maps[0], points, "symmetry 0 on {size}x{size}");
        for (k, map) in maps.iter().enumerate() {
            let mut sorted = map.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, points, "symmetry {k} on {size}x{size} is not a bijection");
        }
        let distinct: HashSet<&Vec<(usize, usize)>> = maps.iter().collect();
        assert_eq!(
            distinct.len(),
            if size == 1 { 1 } else { SYMMETRIES },
            "{size}x{size}"
        );
    }
}

/// `src/testkit/data/corpus` is what `cargo run --release --example make_corpus` writes, whatever
/// `GOKATA_CORPUS` says.
#[test]
fn the_in_repo_corpus_is_what_its_generator_makes() {
    for recipe in RECIPES {
        let path = in_repo_corpus_dir().join(recipe.name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            text.replace("\r\n", "\n") == recipe.generate().unwrap(),
            "{} differs from what `cargo run --release --example make_corpus` makes from seed {}",
            path.display(),
            recipe.seed
        );
        let corpus = Corpus::parse(&text).unwrap();
        assert_eq!((corpus.size, corpus.games.len()), (recipe.size, recipe.games));
    }
}
