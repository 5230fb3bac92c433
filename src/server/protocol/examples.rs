//! `docs/protocol-examples.jsonl`: an example of every frame, the server's made by the server's
//! own code from real games, seeks and records. The file must be what this makes
//! (`GOKATA_WRITE_EXAMPLES=1 cargo test -p gokata-server protocol::examples` writes it again),
//! and every line must read back, as the type it is an example of, to the same JSON.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::*;
use crate::game::{ChatMessage, EndReason, GameResult, Refusal, ServerGame, Turn, UndoRequest};
use crate::lobby::Seek;
use crate::rating::Rating;
use crate::store::{settle, Standing};
use crate::terms::{GameTerms, HandicapAsk, Scoring, SeekTerms};
use crate::time_control::TimeControl;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/protocol-examples.jsonl");
const GAME: &str = "k3v9q2x7m4pd";
const NOW_MS: u64 = 1_767_225_600_000;

const BYOYOMI: TimeControl = TimeControl::Byoyomi {
    main_ms: 600_000,
    period_ms: 30_000,
    periods: 5,
};

/// The example lines, in order.
struct Lines(Vec<String>);

impl Lines {
    fn client(&mut self, frame: ClientFrame) {
        self.push("client", frame.to_json());
    }

    fn client_with_ref(&mut self, reference: Value, frame: ClientFrame) {
        self.push("client", Ref(reference).stamp(&frame.to_json()));
    }

    fn server(&mut self, message: ServerMessage) {
        self.push("server", message.to_json());
    }

    fn server_text(&mut self, text: String) {
        self.push("server", text);
    }

    fn server_with_ref(&mut self, reference: Value, message: ServerMessage) {
        self.push("server", Ref(reference).stamp(&message.to_json()));
    }

    fn push(&mut self, from: &str, frame: String) {
        self.0.push(format!(r#"{{"from":"{from}","frame":{frame}}}"#));
    }
}

fn client_examples(lines: &mut Lines) {
    let game = || GAME.to_string();
    lines.client(ClientFrame::Hello {
        name: "alice".into(),
        token: None,
        bot: false,
    });
    lines.client_with_ref(
        json!("sign-in"),
        ClientFrame::Hello {
            name: "alice".into(),
            token: Some("q7Yw2mX0c9LrT4hB8nVd5sKf".into()),
            bot: false,
        },
    );
    lines.client(ClientFrame::Hello {
        name: "gnugo-robot".into(),
        token: None,
        bot: true,
    });
    lines.client_with_ref(
        json!(1),
        ClientFrame::Seek {
            sizes: vec![9],
            color: SeekColor::Any,
            opponent: Opponent::Human,
            terms: AskedTerms {
                time: Some(BYOYOMI),
                ..AskedTerms::default()
            },
        },
    );
    lines.client(ClientFrame::Seek {
        sizes: vec![19, 13],
        color: SeekColor::Black,
        opponent: Opponent::Any,
        terms: AskedTerms {
            rated: false,
            handicap: HandicapAsk::Stones(3),
            komi: 0.5,
            time: Some(TimeControl::Fischer {
                initial_ms: 300_000,
                increment_ms: 10_000,
                max_ms: 600_000,
            }),
            scoring: Scoring::Agreement,
        },
    });
    lines.client(ClientFrame::Seek {
        sizes: vec![13],
        color: SeekColor::White,
        opponent: Opponent::Computer,
        terms: AskedTerms {
            handicap: HandicapAsk::Auto,
            ..AskedTerms::default()
        },
    });
    lines.client(ClientFrame::Cancel);
    lines.client_with_ref(
        json!(17),
        ClientFrame::Move {
            game: game(),
            ply: 4,
            point: "1B".into(),
        },
    );
    lines.client(ClientFrame::Pass { game: game(), ply: 5 });
    lines.client(ClientFrame::Resign { game: game() });
    lines.client(ClientFrame::Undo { game: game(), ply: 5 });
    lines.client(ClientFrame::UndoAnswer {
        game: game(),
        ply: 5,
        accept: true,
    });
    lines.client(ClientFrame::Chat {
        game: game(),
        text: "good luck \u{263a}".into(),
    });
    lines.client(ClientFrame::Mark {
        game: game(),
        point: "7C".into(),
        dead: true,
    });
    lines.client(ClientFrame::Accept {
        game: game(),
        dead: vec!["7C".into(), "7D".into()],
    });
    lines.client(ClientFrame::Resume { game: game() });
    lines.client_with_ref(json!("resync-3"), ClientFrame::Sync { game: game() });
    lines.client(ClientFrame::Ping {
        t: json!({"sent": 1_767_225_600_000_u64}),
    });
    lines.client(ClientFrame::Watch { game: game() });
    lines.client(ClientFrame::Unwatch { game: game() });
    lines.client(ClientFrame::WatchLobby);
    lines.client(ClientFrame::UnwatchLobby);
}

fn standing(name: &str, wins: u32, losses: u32, rating: Rating, rated_games: u32) -> Standing {
    Standing {
        name: name.into(),
        wins,
        losses,
        bot: false,
        rating,
        rated_games,
    }
}

fn rated_terms() -> GameTerms {
    GameTerms {
        rated: true,
        ranks: ["3k".into(), "1d?".into()],
        ..GameTerms::plain(BYOYOMI)
    }
}

fn new_game() -> ServerGame {
    ServerGame::new(GAME.into(), 9, "alice".into(), "bob".into(), rated_terms()).with_bots([false, true])
}

/// A STATE of `game`, bob away.
fn state(game: &ServerGame, remaining_ms: u64) -> GameState<'_> {
    GameState::of(game, remaining_ms).with_connected(|name| name == "alice")
}

/// `played` of the next turn, taking `elapsed_ms` of the mover's clock.
fn played(game: &mut ServerGame, point: Option<&str>, elapsed_ms: u64) -> String {
    let turn = play(game, point, elapsed_ms);
    ServerMessage::played(game, &turn).to_json()
}

/// Plays the next turn, taking `elapsed_ms` of the mover's clock.
fn play(game: &mut ServerGame, point: Option<&str>, elapsed_ms: u64) -> Turn {
    let color = game.to_move();
    let turn = game
        .play(color, game.moves().len(), point)
        .expect("the examples' turns are legal");
    let clock = game.clock_after(color, elapsed_ms).expect("within time");
    game.set_clock(color, clock);
    turn
}

fn server_examples(lines: &mut Lines) {
    let mut game = new_game();
    lines.server_with_ref(
        json!("sign-in"),
        ServerMessage::Welcome {
            name: "alice".into(),
            token: "q7Yw2mX0c9LrT4hB8nVd5sKf".into(),
            wins: 12,
            losses: 9,
            bot: false,
            rating: 1712.4,
            deviation: 88.2,
            rank: Rating {
                rating: 1712.4,
                deviation: 88.2,
                volatility: 0.06,
            }
            .rank_label(),
            games: vec![],
        },
    );
    let terms = SeekTerms::even(BYOYOMI);
    lines.server_with_ref(
        json!(1),
        ServerMessage::Seeking {
            size: sizes_value(&[9]),
            color: SeekColor::Any,
            opponent: Opponent::Human,
            rated: terms.rated,
            handicap: terms.handicap.to_json(),
            komi: terms.komi,
            time: terms.time.to_json(),
            scoring: terms.scoring,
        },
    );
    lines.server(ServerMessage::Cancelled);
    lines.server(ServerMessage::Start {
        game: state(&game, game.turn_time_ms()),
    });
    lines.server_text(played(&mut game, Some("5E"), 4_210));
    for (point, elapsed_ms) in [(Some("1A"), 2_950), (Some("2A"), 3_400), (None, 8_120)] {
        played(&mut game, point, elapsed_ms);
    }
    let capture = play(&mut game, Some("1B"), 6_030);
    lines.server_with_ref(json!(17), ServerMessage::played(&game, &capture));
    game.add_chat(ChatMessage {
        from: "bob".into(),
        text: "nice".into(),
        ply: 5,
        at_ms: NOW_MS + 26_000,
        watchers: false,
    });
    lines.server_with_ref(
        json!("resync-3"),
        ServerMessage::State {
            game: state(&game, 21_800),
        },
    );
    lines.server(ServerMessage::Welcome {
        name: "alice".into(),
        token: "q7Yw2mX0c9LrT4hB8nVd5sKf".into(),
        wins: 12,
        losses: 9,
        bot: false,
        rating: 1712.4,
        deviation: 88.2,
        rank: "3k".into(),
        games: vec![state(&game, 20_500)],
    });
    lines.server(ServerMessage::Chat {
        game: GAME.into(),
        from: "bob".into(),
        text: "nice".into(),
        ply: 5,
        at_ms: NOW_MS + 26_000,
        channel: ChatChannel::Players,
    });
    lines.server(ServerMessage::Chat {
        game: GAME.into(),
        from: "carol".into(),
        text: "black is ahead \u{263a}".into(),
        ply: 5,
        at_ms: NOW_MS + 31_000,
        channel: ChatChannel::Watchers,
    });
    lines.server_text(played(&mut game, None, 1_200));
    let undo = UndoRequest {
        by: Color::White,
        ply: 6,
    };
    game.undo.pending = Some(undo);
    lines.server(ServerMessage::UndoRequested {
        game: GAME.into(),
        ply: undo.ply,
        by: undo.by,
    });
    lines.server(ServerMessage::State {
        game: state(&game, 29_100).for_watchers(&game),
    });
    lines.server(ServerMessage::UndoDeclined {
        game: GAME.into(),
        ply: 6,
    });
    game.undo_last_turn();
    lines.server(ServerMessage::Undone {
        game: state(&game, game.turn_time_ms()),
    });
    lines.server(ServerMessage::Presence {
        game: GAME.into(),
        name: "bob".into(),
        color: Color::White,
        connected: false,
    });
    scoring_examples(lines);
    over_examples(lines, &mut game);
    lines.server(ServerMessage::Unwatched { game: GAME.into() });
    lobby_example(lines, &new_game());
    lines.server(ServerMessage::UnwatchedLobby);
    lines.server(ServerMessage::Pong {
        t: json!({"sent": 1_767_225_600_000_u64}),
        server_ms: NOW_MS + 41,
    });
    error_examples(lines, &new_game());
    lines.server(ServerMessage::Goodbye {
        reason: "the server is shutting down; reconnect later".into(),
    });
}

/// A game scored by agreement: the scoring phase begins, a chain is marked, play resumes.
fn scoring_examples(lines: &mut Lines) {
    let terms = GameTerms {
        rated: false,
        scoring: Scoring::Agreement,
        ..GameTerms::plain(TimeControl::PerMove { move_ms: 60_000 })
    };
    let mut game = ServerGame::new("p8c2n6w4r1tz".into(), 9, "alice".into(), "carol".into(), terms);
    let turns = [
        "5E", "5F", "4E", "4F", "6E", "6F", "3E", "3F", "7E", "7F", "2E", "2F", "8E", "8F", "1E", "1F", "9E",
        "9F", "3H", "5B",
    ];
    for point in turns {
        play(&mut game, Some(point), 2_000);
    }
    play(&mut game, None, 2_000);
    play(&mut game, None, 2_000);
    lines.server(ServerMessage::State {
        game: GameState::of(&game, game.turn_time_ms()).for_watchers(&game),
    });
    game.mark("3H", false).expect("a stone to mark");
    lines.server(ServerMessage::Scoring {
        game: game.id.as_str().into(),
        marks: Marks::of(&game).expect("the scoring phase"),
    });
    game.resume().expect("resumable");
    lines.server(ServerMessage::Resumed {
        game: GameState::of(&game, game.turn_time_ms()),
    });
}

/// `over` of the game so far, white resigning; and a finished game's STATE.
fn over_examples(lines: &mut Lines, game: &mut ServerGame) {
    let result = game.end(Color::White, EndReason::Resign).expect("a game on");
    let black = standing(
        "alice",
        11,
        9,
        Rating {
            rating: 1690.0,
            deviation: 91.5,
            volatility: 0.06,
        },
        20,
    );
    let white = standing("bob", 40, 32, Rating::NEW, 0);
    let (records, ratings) = settle(&result, &game.terms, game.size(), black, white);
    game.ratings = ratings.clone();
    lines.server_text(ServerMessage::over(GAME, result, &records, ratings.as_ref()));
    lines.server(ServerMessage::State {
        game: GameState::of(game, 0).with_connected(|_| true),
    });
    let mut unrated = ServerGame::new(
        "h5t8d3m9x2qa".into(),
        9,
        "dave".into(),
        "erin".into(),
        GameTerms::plain(TimeControl::Absolute { total_ms: 1_200_000 }),
    );
    play(&mut unrated, None, 1_000);
    play(&mut unrated, None, 1_000);
    let result: GameResult = unrated.result().expect("two passes end it");
    let (records, _) = settle(
        &result,
        &unrated.terms,
        9,
        standing("dave", 3, 1, Rating::NEW, 0),
        standing("erin", 0, 2, Rating::NEW, 0),
    );
    lines.server_text(ServerMessage::over(&unrated.id, result, &records, None));
}

fn lobby_example(lines: &mut Lines, game: &ServerGame) {
    let seek = Seek {
        name: "carol".into(),
        sizes: vec![9, 13],
        color: SeekColor::Any,
        opponent: Opponent::Any,
        bot: false,
        terms: SeekTerms::even(BYOYOMI),
        rating: Rating {
            rating: 1340.0,
            deviation: 120.0,
            volatility: 0.06,
        },
    };
    let seeks = json!([SeekView::of(&seek)]);
    let games = json!([GameSummary::of(game)]);
    lines.server(ServerMessage::Lobby {
        seeks: Cow::Borrowed(&seeks),
        games: Cow::Borrowed(&games),
        total: 1,
    });
}

/// An error of every code, the illegal move as the game refuses it.
fn error_examples(lines: &mut Lines, game: &ServerGame) {
    let mut game = game.clone();
    play(&mut game, Some("5E"), 1_000);
    let Err(Refusal::Illegal { reason, message }) = game.play(Color::White, 1, Some("5E")) else {
        panic!("5E is taken");
    };
    let mut illegal = Refused::new(ErrorCode::IllegalMove, message).in_game(GAME);
    illegal.reason = Some(reason.into());
    lines.server_with_ref(json!(18), ServerMessage::Error(illegal));
    let refusals = [
        Refused::bad_request("the frame has no field 'ply'"),
        Refused::new(
            ErrorCode::NameTaken,
            "the name \"alice\" is taken: sign in with its token",
        ),
        Refused::new(ErrorCode::BadToken, "the token is not alice's"),
        Refused::new(ErrorCode::NotYourGame, "you do not play this game").in_game(GAME),
        Refused::new(ErrorCode::NotYourTurn, "it is white's turn, not black's").in_game(GAME),
        Refused::new(ErrorCode::UnknownGame, "no game has the id \"zzzz\"").in_game("zzzz"),
        Refused::new(ErrorCode::RateLimited, "more than 100 frames a second"),
        Refused::new(
            ErrorCode::Unavailable,
            "the database cannot be reached: send it again",
        ),
    ];
    for refused in refusals {
        lines.server(ServerMessage::Error(refused));
    }
    let refused = ClientFrame::parse(r#"{"type":"dance"}"#).expect_err("an unknown type");
    lines.server_with_ref(json!("r-2"), ServerMessage::Error(refused));
}

fn examples() -> Vec<String> {
    let mut lines = Lines(Vec::new());
    client_examples(&mut lines);
    server_examples(&mut lines);
    lines.0
}

#[test]
fn the_examples_file_is_what_the_server_writes() {
    let made = examples().join("\n") + "\n";
    if std::env::var("GOKATA_WRITE_EXAMPLES").is_ok_and(|v| v == "1") {
        std::fs::write(EXAMPLES, &made).expect("the examples file is writable");
    }
    let kept = std::fs::read_to_string(EXAMPLES).expect("docs/protocol-examples.jsonl");
    for (number, (kept, made)) in kept.lines().zip(made.lines()).enumerate() {
        assert_eq!(
            kept,
            made,
            "line {} of docs/protocol-examples.jsonl is not what the server writes now \
             (GOKATA_WRITE_EXAMPLES=1 writes the file again)",
            number + 1
        );
    }
    assert_eq!(
        kept.lines().count(),
        made.lines().count(),
        "lines in the examples file"
    );
}

/// The names serde lists after "expected one of" in an unknown variant's error.
fn listed_variants(error: &serde_json::Error) -> BTreeSet<String> {
    let message = error.to_string();
    let list = message
        .split_once("expected one of ")
        .unwrap_or_else(|| panic!("no list of variants in {message:?}"))
        .1;
    list.split('`').skip(1).step_by(2).map(String::from).collect()
}

/// Every frame type and error code there is, as the readers themselves list them.
fn every_type() -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let unknown = ClientFrame::parse(r#"{"type":"?"}"#).expect_err("an unknown type");
    let listed = unknown
        .message
        .split_once("expected ")
        .expect("the parser lists the types")
        .1;
    let client = listed
        .split([',', ' '])
        .filter(|word| !word.is_empty() && *word != "or")
        .map(String::from)
        .collect();
    let server = serde_json::from_str::<ServerFrame>(r#"{"type":"?"}"#).expect_err("unknown");
    let code = serde_json::from_str::<ErrorCode>(r#""?""#).expect_err("unknown");
    (client, listed_variants(&server), listed_variants(&code))
}

#[test]
fn every_example_reads_back_as_itself_and_every_type_has_one() {
    let kept = std::fs::read_to_string(EXAMPLES).expect("docs/protocol-examples.jsonl");
    let (mut client_types, mut server_types, mut codes) = every_type();
    assert!(client_types.len() >= 18 && server_types.len() >= 20 && codes.len() >= 9);
    let mut refs = BTreeSet::new();
    for (number, line) in kept.lines().enumerate() {
        let line_number = number + 1;
        let example: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {line_number}: {e}"));
        let frame = example["frame"].clone();
        let reread = match example["from"].as_str() {
            Some("client") => {
                let read: WithRef<ClientFrame> = serde_json::from_value(frame.clone())
                    .unwrap_or_else(|e| panic!("line {line_number} is no client frame: {e}"));
                client_types.remove(read.frame.type_name());
                serde_json::to_value(&read).unwrap()
            }
            Some("server") => {
                let read: WithRef<ServerFrame> = serde_json::from_value(frame.clone())
                    .unwrap_or_else(|e| panic!("line {line_number} is no server frame: {e}"));
                server_types.remove(frame["type"].as_str().unwrap_or_default());
                if let ServerMessage::Error(refused) = &read.frame {
                    codes.remove(frame["code"].as_str().unwrap_or_default());
                    assert_eq!(frame["code"], json!(refused.code));
                }
                serde_json::to_value(&read).unwrap()
            }
            other => panic!("line {line_number} is from {other:?}, not client or server"),
        };
        assert_eq!(reread, frame, "line {line_number} reads back otherwise");
        if let Some(reference) = frame.get("ref") {
            refs.insert(format!("{} {}", example["from"], kind(reference)));
        }
    }
    assert!(
        client_types.is_empty(),
        "client frames without an example: {client_types:?}"
    );
    assert!(
        server_types.is_empty(),
        "server frames without an example: {server_types:?}"
    );
    assert!(codes.is_empty(), "error codes without an example: {codes:?}");
    let both_kinds = [
        r#""client" a string"#,
        r#""client" a number"#,
        r#""server" a string"#,
        r#""server" a number"#,
    ];
    for wanted in both_kinds {
        assert!(
            refs.contains(wanted),
            "no example with a ref of {wanted}: {refs:?}"
        );
    }
}
