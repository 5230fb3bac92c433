//! Replays the shared corpus of random games and checks every final board.

use gokata::corpus::{corpus_dir, Corpus};
use gokata::engine::Game;

fn replay(name: &str) {
    let corpus = match Corpus::load(name) {
        Ok(corpus) => corpus,
        // Outside CI the shared folder may be absent; in CI it must be there.
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!(
                "skipping corpus replay, no corpus at {}: {e}",
                corpus_dir().display()
            );
            return;
        }
        Err(e) => panic!("corpus missing in CI: {e}"),
    };
    assert!(!corpus.games.is_empty());
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
        let board = game.board();
        let digits: Vec<u8> = board
            .points()
            .map(|p| board.stone(p).map_or(0, |c| c as u8))
            .collect();
        assert_eq!(digits, recorded.final_board, "{name} game {number}: final board");
        // And the whole game unwinds to the empty board.
        game.rollback(recorded.moves.len() as i64).unwrap();
        assert!(board_is_empty(&game), "{name} game {number}: rollback to start");
    }
}

fn board_is_empty(game: &Game) -> bool {
    let board = game.board();
    board.points().all(|p| board.is_empty(p))
}

#[test]
fn nine_by_nine_corpus_replays_to_its_final_boards() {
    replay("random-9x9.txt");
}

#[test]
fn nineteen_by_nineteen_corpus_replays_to_its_final_boards() {
    replay("random-19x19.txt");
}
