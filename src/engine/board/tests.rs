use super::*;

/// Sets up a board from rows of `.`, `x`, `o` (top row first), without captures.
fn board(rows: &[&str]) -> Board {
    let mut b = Board::new(rows.len(), rows[0].len()).unwrap();
    for (r, line) in rows.iter().enumerate() {
        for (c, ch) in line.chars().enumerate() {
            match ch {
                'x' => b.place_stone(b.point(r, c), Color::Black),
                'o' => b.place_stone(b.point(r, c), Color::White),
                _ => {}
            }
        }
    }
    b
}

fn picture(b: &Board) -> Vec<String> {
    (0..b.height())
        .map(|r| {
            (0..b.width())
                .map(|c| b.stone(b.point(r, c)).map_or('.', |s| s.symbol()))
                .collect()
        })
        .collect()
}

#[test]
fn a_lone_stone_in_the_corner_has_two_liberties() {
    let mut b = Board::new(9, 9).unwrap();
    let p = b.point(0, 0);
    b.play(p, Color::Black).unwrap();
    assert_eq!(b.liberties(p), 2);
    assert_eq!(b.empty_points().len(), 80);
}

#[test]
fn capture_removes_the_chain_and_gives_liberties_back() {
    let mut b = board(&[".xo..", "xo...", ".....", ".....", "....."]);
    let before = picture(&b);
    let record = b.play(b.point(1, 2), Color::Black).unwrap();
    assert_eq!(
        b.stone(b.point(0, 2)),
        Some(Color::White),
        "the white corner-side stone keeps a liberty"
    );
    let record2 = b.play(b.point(0, 3), Color::Black).unwrap();
    assert_eq!(b.stone(b.point(0, 2)), None);
    assert_eq!(b.liberties(b.point(0, 1)), 2);
    b.undo(record2);
    b.undo(record);
    assert_eq!(picture(&b), before);
}

#[test]
fn suicide_and_occupied_are_illegal_and_change_nothing() {
    let mut b = board(&[".x...", "x....", ".....", ".....", "....."]);
    let before = picture(&b);
    assert_eq!(b.play(b.point(0, 0), Color::White), Err(IllegalReason::Suicide));
    assert_eq!(b.play(b.point(0, 1), Color::White), Err(IllegalReason::Occupied));
    assert_eq!(picture(&b), before);
    assert_eq!(b.illegal_reason(b.point(0, 0), Color::Black), None);
}

#[test]
fn a_capturing_move_into_a_point_without_liberties_is_legal() {
    // Both black stones have only the corner as liberty: white's corner stone captures them.
    let mut b = board(&[".xo..", "xo...", "o....", ".....", "....."]);
    assert_eq!(b.illegal_reason(b.point(0, 0), Color::White), None);
    let captured = b.captures(b.point(0, 0), Color::White);
    let mut expected = vec![b.point(0, 1), b.point(1, 0)];
    let mut got = captured.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    b.play(b.point(0, 0), Color::White).unwrap();
    assert_eq!(picture(&b), vec!["o.o..", ".o...", "o....", ".....", "....."]);
}

#[test]
fn ko_forbids_the_immediate_retake_only() {
    // . x o .
    // x o . o
    // . x o .
    let mut b = board(&[".xo.", "xo.o", ".xo.", "...."]);
    b.play(b.point(1, 2), Color::Black).unwrap(); // black takes the white stone at (1,1)
    assert_eq!(b.stone(b.point(1, 1)), None);
    assert_eq!(b.ko_point(Color::White), Some(b.point(1, 1)));
    assert_eq!(
        b.illegal_reason(b.point(1, 1), Color::White),
        Some(IllegalReason::Ko)
    );
    let pass = b.pass(Color::White);
    assert_eq!(b.ko_point(Color::White), None);
    b.undo(pass);
    assert_eq!(b.ko_point(Color::White), Some(b.point(1, 1)));
}

#[test]
fn undo_of_a_merging_move_splits_the_chains_again() {
    let mut b = board(&["x.x..", ".....", "x.x..", ".....", "....."]);
    let before = picture(&b);
    let r1 = b.play(b.point(0, 1), Color::Black).unwrap();
    let r2 = b.play(b.point(1, 1), Color::Black).unwrap();
    let r3 = b.play(b.point(1, 0), Color::Black).unwrap();
    assert_eq!(b.chain(b.point(0, 0)).len(), 6, "the chain reaches down to (2,0)");
    b.undo(r3);
    b.undo(r2);
    assert_eq!(b.chain(b.point(0, 0)).len(), 3);
    assert_eq!(b.liberties(b.point(0, 0)), 4);
    b.undo(r1);
    assert_eq!(picture(&b), before);
    assert_eq!(b.liberties(b.point(0, 0)), 2);
    assert_eq!(b.liberties(b.point(2, 2)), 4);
}

#[test]
fn simple_eyes_follow_the_playout_definition() {
    // Centre eye at (2,2): orthogonal black, one white diagonal allowed, two not.
    let b = board(&[".....", "..x..", ".x.x.", "..x..", "....."]);
    assert!(b.is_simple_eye(b.point(2, 2), Color::Black));
    assert!(!b.is_simple_eye(b.point(2, 2), Color::White));
    let b = board(&[".....", ".ox..", ".x.x.", "..x..", "....."]);
    assert!(
        b.is_simple_eye(b.point(2, 2), Color::Black),
        "one opponent diagonal is still an eye"
    );
    let b = board(&[".....", ".ox..", ".x.x.", "..xo.", "....."]);
    assert!(
        !b.is_simple_eye(b.point(2, 2), Color::Black),
        "two opponent diagonals make a false eye"
    );
    // Edge and corner: no opponent diagonal allowed.
    let b = board(&[".x...", "x....", ".....", ".....", "....."]);
    assert!(b.is_simple_eye(b.point(0, 0), Color::Black));
    let b = board(&[".x...", "xo...", ".....", ".....", "....."]);
    assert!(!b.is_simple_eye(b.point(0, 0), Color::Black));
    let b = board(&["x.x..", ".x...", ".....", ".....", "....."]);
    assert!(b.is_simple_eye(b.point(0, 1), Color::Black));
    // An empty neighbour is never an eye.
    let b = board(&[".x...", ".....", ".....", ".....", "....."]);
    assert!(!b.is_simple_eye(b.point(0, 0), Color::Black));
}

#[test]
fn self_atari_agrees_with_playing_the_move() {
    // Every legal point of random light games, both colours: the test without playing against
    // playing the move and counting the liberties and captures.
    let mut rng = Rng::new(11);
    let mut checked = [0usize; 2];
    for size in [5, 9, 13] {
        for _ in 0..20 {
            let mut b = Board::new(size, size).unwrap();
            let mut color = Color::Black;
            for _ in 0..size * size * 2 {
                for p in b.points() {
                    for c in [Color::Black, Color::White] {
                        if b.illegal_reason(p, c).is_some() {
                            continue;
                        }
                        let before = b.stone_count(c.opponent());
                        let record = b.play_legal(p, c);
                        let expected = b.liberties(p) == 1 && b.stone_count(c.opponent()) == before;
                        b.undo(record);
                        assert_eq!(b.is_self_atari(p, c), expected, "{c} at {:?}", b.row_col(p));
                        checked[usize::from(expected)] += 1;
                    }
                }
                match b.random_light_move(color, &mut rng) {
                    Some(p) => {
                        b.play_legal(p, color);
                    }
                    None => break,
                }
                color = color.opponent();
            }
        }
    }
    assert!(checked[0] > 1000 && checked[1] > 1000, "{checked:?}");
}

#[test]
fn the_neighbourhood_codes_the_eight_points_around() {
    let b = board(&["x.o", "...", "..."]);
    // Around the centre: x . o / . . / . . . from the top left.
    assert_eq!(b.neighbourhood(b.point(1, 1)), 0b01_00_10_00_00_00_00_00);
    // The corner: walls above and to the left.
    assert_eq!(b.neighbourhood(b.point(0, 0)), 0b11_11_11_11_00_11_00_00);
}
