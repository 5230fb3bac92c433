//! SGF from pure Rust: engine games written with `sgf::write_game` read back to the same record;
//! messy files read strict and lenient; deep nesting neither overflows the stack nor recurses.

use gokata_testkit::random_play::random_turns;

use gokata_engine::sgf::{self, GameInfo};
use gokata_engine::{game_from_position, Color, Game, Rng};

fn read_back(text: &str) -> Game {
    let games = sgf::read_collection_text(text, true).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(games.len(), 1);
    let tree = &games[0].tree;
    let end = *tree.main_line().last().unwrap();
    sgf::replay(tree, end, true).unwrap().game
}

#[test]
fn engine_games_survive_writing_and_reading() {
    for seed in 0..300u64 {
        let mut rng = Rng::new(seed);
        let (height, width) = (1 + rng.below(25), 1 + rng.below(25));
        let mut game = Game::new(height, width).unwrap();
        if height == width && [9, 13, 19].contains(&height) && rng.below(2) == 0 {
            game.place_handicap(1 + rng.below(5) as i64).unwrap();
        }
        let turns = rng.below(120);
        random_turns(&mut game, &mut rng, turns);
        let info = GameInfo {
            black: Some("Shūsaku ]\\".into()),
            komi: Some(6.5),
            result: Some("B+R".into()),
            ..GameInfo::default()
        };
        let text = sgf::write_game(&game.record(), &info);
        assert!(text.starts_with("(;GM[1]FF[4]"), "{text}");
        let size = if height == width {
            format!("SZ[{height}]")
        } else {
            format!("SZ[{width}:{height}]")
        };
        assert!(text.contains(&size), "{text}");
        let read = read_back(&text);
        assert_eq!(read.record(), game.record(), "seed {seed}\n{text}");
        assert_eq!(read.to_move(), game.to_move());
        assert_eq!(sgf::write_game(&read.record(), &info), text, "deterministic");
        let tree = &sgf::read_collection_text(&text, true).unwrap()[0].tree;
        assert_eq!(tree.root().text("PB").unwrap(), "Shūsaku ]\\");
    }
}

#[test]
fn a_ko_ban_at_the_start_is_kept() {
    let rows = [".xo.", "x.xo", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let previous = [".xo.", "xo.o", ".xo.", "...."].map(|r| r.chars().collect::<Vec<_>>());
    let game = game_from_position(&rows, Color::White, Some(&previous)).unwrap();
    assert!(game.record().start_ko.is_some());
    let text = sgf::write_game(&game.record(), &GameInfo::default());
    assert_eq!(read_back(&text).record(), game.record(), "{text}");
}

#[test]
fn strict_stops_at_the_first_problem_and_lenient_reads_on() {
    let text = "(;GM[1]SZ[9];B[ee];W[ee];B[cc];W[dd]";
    let error = sgf::read_collection_text(text, true).unwrap_err();
    assert_eq!((error.line, error.column), (1, 21));
    assert!(error
        .message
        .starts_with("move 2 (W[ee]): illegal move 5E for white: the point is occupied"));
    let games = sgf::read_collection_text(text, false).unwrap();
    let messages: Vec<&str> = games[0].problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[1].contains("ends inside a game tree"));
    // Lenient: the move is carried out as the record says (the white stone replaces the black one).
    let replayed = sgf::replay(&games[0].tree, 4, false).unwrap();
    let board = replayed.game.board();
    assert_eq!(board.stone(board.point(4, 4)), Some(Color::White));
    assert_eq!(replayed.moves, 4);
    assert_eq!(board.stone_count(Color::Black), 1);
}

#[test]
fn deep_nesting_is_read_replayed_and_written_without_recursion() {
    let depth = 100_000;
    let mut text = String::from("(;GM[1]SZ[19]");
    for i in 0..depth {
        let (color, point) = if i % 2 == 0 { ("B", "tt") } else { ("W", "") };
        text.push_str(&format!("(;{color}[{point}]"));
    }
    text.push_str(&")".repeat(depth + 1));
    // On a thread with a 1 MiB stack (recursion would need ~100 bytes a level, 10 MB): nothing
    // may recurse on the depth.
    let handle = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            let games = sgf::read_collection_text(&text, true).unwrap();
            let tree = &games[0].tree;
            let end = *tree.main_line().last().unwrap();
            let replayed = sgf::replay(tree, end, true).unwrap();
            assert_eq!(replayed.game.turns_played(), depth);
            let written = sgf::write_tree(tree);
            let again = sgf::read_collection_text(&written, true).unwrap();
            assert_eq!(again[0].tree.nodes.len(), depth + 1);
            drop(games);
            drop(again);
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn bytes_in_other_encodings() {
    let text = "(;GM[1]FF[4]CA[GB2312]SZ[19]PB[聂卫平]PW[马晓春];B[pd])";
    let (bytes, _, _) = encoding_rs::GBK.encode(text);
    let games = sgf::read_collection(&bytes, true).unwrap();
    assert_eq!(games[0].tree.root().text("PB").unwrap(), "聂卫平");
    assert_eq!(games[0].encoding, "GBK");
    let written = sgf::write_tree(&games[0].tree);
    assert!(
        written.contains("CA[UTF-8]") && written.contains("PW[马晓春]"),
        "{written}"
    );
}
