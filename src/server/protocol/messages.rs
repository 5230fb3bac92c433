//! The server's messages, and the views of games, seeks and players they carry.

use serde::Serialize;
use serde_json::Value;

use serde_json::json;

use super::Refused;
use crate::game::{ChatMessage, GameResult, ServerGame};
use crate::lobby::Seek;
use crate::store::{FinishedGame, Records, Standing};
use crate::terms::GameTerms;
use gokata_engine::Color;

/// The score object of `over` and STATE.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScoreView {
    pub black: u32,
    pub white: u32,
    pub komi: f64,
}

/// A game's full state: STATE in the protocol.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameState<'a> {
    pub id: &'a str,
    pub size: usize,
    pub black: &'a str,
    pub white: &'a str,
    pub komi: f64,
    pub moves: &'a [Option<String>],
    pub to_move: &'static str,
    pub board: Vec<String>,
    pub status: &'static str,
    pub winner: Option<&'static str>,
    pub reason: Option<&'static str>,
    pub score: Option<ScoreView>,
    /// The time the player to move had when its turn began.
    pub move_time_ms: u64,
    /// The time until the player to move loses if it does not move.
    pub remaining_ms: Option<u64>,
    pub rated: bool,
    /// Black's handicap stones (0: an even game).
    pub handicap: u32,
    /// The time control, as a seek sends it.
    pub time: Value,
    /// What each player has left (the player to move: as its turn began).
    pub clocks: Value,
    /// The players' ranks when the game started.
    pub ranks: Value,
    /// The last chat messages its reader may see, oldest first.
    pub chat: Vec<ChatView>,
    /// `all_alive` or `agreement`.
    pub scoring: &'static str,
    /// The scoring phase, while the status is `scoring`: the dead stones marked, the score
    /// without them, who accepted.
    pub marks: Option<Value>,
    /// A finished rated game's rating changes, as `over` told them.
    pub ratings: Option<Value>,
    /// An undo request waiting for its answer: `{"by":"black","ply":N}`.
    pub undo: Option<Value>,
    /// Whether each player is a program.
    pub bots: ByColor,
    /// Whether each player is connected to the server, while the game is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connected: Option<ByColor>,
}

/// A chat message in a STATE: as `chat` sends it, without `type` and `game`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChatView {
    pub from: String,
    pub text: String,
    pub ply: usize,
    pub at_ms: u64,
    pub channel: &'static str,
}

impl ChatView {
    fn of(message: &ChatMessage) -> ChatView {
        ChatView {
            from: message.from.clone(),
            text: message.text.clone(),
            ply: message.ply,
            at_ms: message.at_ms,
            channel: if message.watchers { "watchers" } else { "players" },
        }
    }
}

/// A yes or no for each player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ByColor {
    pub black: bool,
    pub white: bool,
}

impl GameState<'_> {
    pub fn of(game: &ServerGame, remaining_ms: u64) -> GameState<'_> {
        let result = game.result();
        GameState {
            id: &game.id,
            size: game.size(),
            black: &game.black,
            white: &game.white,
            komi: game.terms.komi,
            moves: game.moves(),
            to_move: game.to_move().name(),
            board: game.board_rows(),
            status: match (result, &game.scoring) {
                (Some(_), _) => "over",
                (None, Some(_)) => "scoring",
                (None, None) => "playing",
            },
            winner: result.and_then(|r| r.winner).map(Color::name),
            reason: result.map(|r| r.reason.name()),
            score: result.and_then(score_view),
            move_time_ms: game.turn_time_ms(),
            remaining_ms: result.is_none().then_some(remaining_ms),
            rated: game.terms.rated,
            handicap: game.terms.handicap,
            time: game.terms.time.to_json(),
            clocks: clocks_view(game),
            ranks: ranks_view(&game.terms),
            chat: game.visible_chat(game.is_over()).map(ChatView::of).collect(),
            scoring: game.terms.scoring.name(),
            marks: crate::hub::scoring::scoring_view(game),
            ratings: game.ratings.clone(),
            undo: game
                .undo
                .pending
                .map(|request| json!({"by": request.by.name(), "ply": request.ply})),
            bots: ByColor {
                black: game.bots[0],
                white: game.bots[1],
            },
            connected: None,
        }
    }

    /// With the chat a watcher sees: the watchers' messages too.
    pub fn for_watchers(mut self, game: &ServerGame) -> Self {
        self.chat = game.visible_chat(true).map(ChatView::of).collect();
        self
    }

    /// With whether each player is connected (`connected(name)`), if the game is on.
    pub fn with_connected(mut self, connected: impl Fn(&str) -> bool) -> Self {
        if self.status != "over" {
            self.connected = Some(ByColor {
                black: connected(self.black),
                white: connected(self.white),
            });
        }
        self
    }
}

/// A game being played, as the lobby lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameSummary<'a> {
    pub id: &'a str,
    pub size: usize,
    pub black: &'a str,
    pub white: &'a str,
    pub bots: ByColor,
    /// The players' ranks when the game started.
    pub ranks: Value,
    pub rated: bool,
    pub time: Value,
    /// Turns played so far.
    pub moves: usize,
    pub to_move: &'static str,
}

impl GameSummary<'_> {
    pub fn of(game: &ServerGame) -> GameSummary<'_> {
        GameSummary {
            id: &game.id,
            size: game.size(),
            black: &game.black,
            white: &game.white,
            bots: ByColor {
                black: game.bots[0],
                white: game.bots[1],
            },
            ranks: ranks_view(&game.terms),
            rated: game.terms.rated,
            time: game.terms.time.to_json(),
            moves: game.moves().len(),
            to_move: game.to_move().name(),
        }
    }
}

/// The players' ranks when the game started: `{"black","white"}`.
fn ranks_view(terms: &GameTerms) -> Value {
    json!({"black": terms.ranks[0], "white": terms.ranks[1]})
}

/// Both players' clocks: CLOCK for black and for white.
pub fn clocks_view(game: &ServerGame) -> Value {
    let clock = |color| game.clock(color).to_json(game.terms.time);
    json!({"black": clock(Color::Black), "white": clock(Color::White)})
}

/// A finished game as a player's list shows it.
pub fn finished_view(game: &FinishedGame) -> Value {
    json!({
        "id": game.id,
        "size": game.size,
        "black": game.black,
        "white": game.white,
        "winner": game.result.winner.map(Color::name),
        "reason": game.result.reason.name(),
        "score": score_view(game.result),
        "moves": game.plies,
        "rated": game.terms.rated,
        "handicap": game.terms.handicap,
        "komi": game.terms.komi,
        "time": game.terms.time.to_json(),
        "ranks": ranks_view(&game.terms),
        "ratings": game.ratings,
    })
}

/// A waiting seek, as the lobby lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeekView<'a> {
    pub name: &'a str,
    /// One size as a number, several as a list.
    pub size: Value,
    pub color: &'static str,
    pub opponent: &'static str,
    pub bot: bool,
    /// The player's rank.
    pub rank: String,
    pub rated: bool,
    /// `"auto"` or a number of stones.
    pub handicap: Value,
    pub komi: f64,
    pub time: Value,
    pub scoring: &'static str,
}

impl SeekView<'_> {
    pub fn of(seek: &Seek) -> SeekView<'_> {
        SeekView {
            name: &seek.name,
            size: sizes_value(&seek.sizes),
            color: seek.color.name(),
            opponent: seek.opponent.name(),
            bot: seek.bot,
            rank: seek.rating.rank_label(),
            rated: seek.terms.rated,
            handicap: seek.terms.handicap.to_json(),
            komi: seek.terms.komi,
            time: seek.terms.time.to_json(),
            scoring: seek.terms.scoring.name(),
        }
    }
}

/// One size as a number, several as a list (as `seek` takes them).
pub fn sizes_value(sizes: &[usize]) -> Value {
    match sizes {
        [size] => (*size).into(),
        sizes => sizes.into(),
    }
}

fn score_view(result: GameResult) -> Option<ScoreView> {
    result.score.map(|s| ScoreView {
        black: s.black,
        white: s.white,
        komi: s.komi,
    })
}

#[derive(Clone, Debug, Serialize)]
pub struct StandingView {
    pub name: String,
    pub wins: u32,
    pub losses: u32,
    pub bot: bool,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub rank: String,
    pub rated_games: u32,
}

impl From<&Standing> for StandingView {
    fn from(standing: &Standing) -> StandingView {
        StandingView {
            name: standing.name.clone(),
            wins: standing.wins,
            losses: standing.losses,
            bot: standing.bot,
            rating: standing.rating.rating,
            deviation: standing.rating.deviation,
            volatility: standing.rating.volatility,
            rank: standing.rating.rank_label(),
            rated_games: standing.rated_games,
        }
    }
}

/// A message from the server.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage<'a> {
    Welcome {
        name: &'a str,
        token: &'a str,
        wins: u32,
        losses: u32,
        bot: bool,
        rating: f64,
        deviation: f64,
        rank: String,
        games: Vec<GameState<'a>>,
    },
    Seeking {
        /// One size as a number, several as a list.
        size: Value,
        color: &'static str,
        opponent: &'static str,
        rated: bool,
        handicap: Value,
        komi: f64,
        time: Value,
        scoring: &'static str,
    },
    Cancelled,
    Start {
        game: GameState<'a>,
    },
    Played {
        game: &'a str,
        ply: usize,
        color: &'static str,
        point: Option<&'a str>,
        captured: &'a [String],
        to_move: &'static str,
        remaining_ms: u64,
        clocks: Value,
    },
    Over {
        game: &'a str,
        winner: Option<&'static str>,
        reason: &'static str,
        score: Option<ScoreView>,
        records: RecordsView,
        /// A rated game's rating changes; `null` for an unrated one.
        ratings: Option<&'a Value>,
    },
    State {
        game: GameState<'a>,
    },
    /// A chat message: to both players and the watchers, or (`channel` `watchers`, a
    /// watcher's while the game is on) to the watchers only.
    Chat {
        game: &'a str,
        from: &'a str,
        text: &'a str,
        ply: usize,
        at_ms: u64,
        channel: &'static str,
    },
    /// To both players: `by` asks to take back the last turn, `ply` turns into the game.
    UndoRequested {
        game: &'a str,
        ply: usize,
        by: &'static str,
    },
    /// To the requester: the opponent refused, or played on.
    UndoDeclined {
        game: &'a str,
        ply: usize,
    },
    /// To both players and the watchers: the scoring phase ended, play goes on.
    Resumed {
        game: GameState<'a>,
    },
    /// To both players and the watchers: the last turn was taken back.
    Undone {
        game: GameState<'a>,
    },
    /// A player of a game connected to the server after being connected nowhere, or the
    /// reverse; told to the opponent.
    Presence {
        game: &'a str,
        name: &'a str,
        color: &'static str,
        connected: bool,
    },
    Pong {
        t: &'a Value,
        server_ms: u64,
    },
    /// After `unwatch`: nothing more of the game comes.
    Unwatched {
        game: &'a str,
    },
    /// The lobby's lists: the seeks waiting (as `/api/seeks`) and the games being played (as
    /// `/api/games`, with their `total`).
    Lobby {
        seeks: &'a Value,
        games: &'a Value,
        total: usize,
    },
    /// After `unwatch_lobby`.
    UnwatchedLobby,
    Error(&'a Refused),
    Goodbye {
        reason: &'a str,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct RecordsView {
    pub black: StandingView,
    pub white: StandingView,
}

impl From<&Records> for RecordsView {
    fn from(records: &Records) -> RecordsView {
        RecordsView {
            black: (&records.black).into(),
            white: (&records.white).into(),
        }
    }
}

impl ServerMessage<'_> {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("server messages always serialise")
    }

    pub fn over(game: &str, result: GameResult, records: &Records, ratings: Option<&Value>) -> String {
        ServerMessage::Over {
            game,
            winner: result.winner.map(Color::name),
            reason: result.reason.name(),
            score: score_view(result),
            records: records.into(),
            ratings,
        }
        .to_json()
    }
}
