//! The server's messages, and the views of games, seeks and players they carry: written by
//! the server from its own objects (borrowing what it can), and read back by the server's own
//! peers (the resident bot, the load benchmark) as [`ServerFrame`]s.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::colors::{color, optional_color};
use super::{Opponent, Refused, SeekColor};
use crate::game::{ChatMessage, EndReason, GameResult, PointName, ServerGame, Turn};
use crate::lobby::Seek;
use crate::store::{FinishedGame, ListedGame, Records, Standing};
use crate::terms::{GameTerms, Scoring};
use gokata_engine::Color;

/// The score object of `over` and STATE.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreView {
    pub black: u32,
    pub white: u32,
    pub komi: f64,
}

/// A game's full state: STATE in the protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameState<'a> {
    pub id: Cow<'a, str>,
    pub size: usize,
    pub black: Cow<'a, str>,
    pub white: Cow<'a, str>,
    pub komi: f64,
    pub moves: Cow<'a, [Option<PointName>]>,
    #[serde(with = "color")]
    pub to_move: Color,
    pub board: Vec<String>,
    pub status: GameStatus,
    #[serde(with = "optional_color")]
    pub winner: Option<Color>,
    pub reason: Option<EndReason>,
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
    pub scoring: Scoring,
    /// The scoring phase, while the status is `scoring`.
    pub marks: Option<Marks>,
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

/// The scoring phase as STATE and `scoring` show it: the dead stones marked, the score without
/// them, and who accepted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Marks {
    pub dead: Vec<String>,
    pub score: ScoreView,
    pub accepted: ByColor,
}

impl Marks {
    pub fn of(game: &ServerGame) -> Option<Marks> {
        let phase = game.scoring.as_ref()?;
        let score = game.score_with_dead(&phase.dead);
        Some(Marks {
            dead: phase.dead.clone(),
            score: ScoreView {
                black: score.black,
                white: score.white,
                komi: score.komi,
            },
            accepted: ByColor {
                black: phase.accepted[0],
                white: phase.accepted[1],
            },
        })
    }
}

/// Whether a game is being played, scored or over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    Playing,
    Scoring,
    Over,
}

/// Who reads a chat message: both players and the watchers, or the watchers only (a watcher's
/// while the game is on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatChannel {
    Players,
    Watchers,
}

impl ChatChannel {
    pub fn of(message: &ChatMessage) -> ChatChannel {
        if message.watchers {
            ChatChannel::Watchers
        } else {
            ChatChannel::Players
        }
    }
}

/// A chat message in a STATE: as `chat` sends it, without `type` and `game`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatView {
    pub from: String,
    pub text: String,
    pub ply: usize,
    pub at_ms: u64,
    pub channel: ChatChannel,
}

impl ChatView {
    fn of(message: &ChatMessage) -> ChatView {
        ChatView {
            from: message.from.clone(),
            text: message.text.clone(),
            ply: message.ply,
            at_ms: message.at_ms,
            channel: ChatChannel::of(message),
        }
    }
}

/// A yes or no for each player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByColor {
    pub black: bool,
    pub white: bool,
}

impl GameState<'_> {
    pub fn of(game: &ServerGame, remaining_ms: u64) -> GameState<'_> {
        let result = game.result();
        GameState {
            id: game.id.as_str().into(),
            size: game.size(),
            black: game.black.as_str().into(),
            white: game.white.as_str().into(),
            komi: game.terms.komi,
            moves: game.moves().into(),
            to_move: game.to_move(),
            board: game.board_rows(),
            status: match (result, &game.scoring) {
                (Some(_), _) => GameStatus::Over,
                (None, Some(_)) => GameStatus::Scoring,
                (None, None) => GameStatus::Playing,
            },
            winner: result.and_then(|r| r.winner),
            reason: result.map(|r| r.reason),
            score: result.and_then(score_view),
            move_time_ms: game.turn_time_ms(),
            remaining_ms: result.is_none().then_some(remaining_ms),
            rated: game.terms.rated,
            handicap: game.terms.handicap,
            time: game.terms.time.to_json(),
            clocks: clocks_view(game),
            ranks: ranks_view(&game.terms),
            chat: game.visible_chat(game.is_over()).map(ChatView::of).collect(),
            scoring: game.terms.scoring,
            marks: Marks::of(game),
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
        if self.status != GameStatus::Over {
            self.connected = Some(ByColor {
                black: connected(&self.black),
                white: connected(&self.white),
            });
        }
        self
    }
}

/// A game being played, as the lobby lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSummary<'a> {
    pub id: Cow<'a, str>,
    pub size: usize,
    pub black: Cow<'a, str>,
    pub white: Cow<'a, str>,
    pub bots: ByColor,
    /// The players' ranks when the game started.
    pub ranks: Value,
    pub rated: bool,
    pub time: Value,
    /// Turns played so far.
    pub moves: usize,
    #[serde(with = "color")]
    pub to_move: Color,
}

impl<'a> GameSummary<'a> {
    pub fn of(game: &'a ServerGame) -> GameSummary<'a> {
        let names = [game.black.as_str().into(), game.white.as_str().into()];
        let turns = (game.moves().len(), game.to_move());
        GameSummary::from_parts(
            game.id.as_str().into(),
            game.size(),
            names,
            game.bots,
            &game.terms,
            turns,
        )
    }

    /// A game as the store lists it, without its turns.
    pub fn listed(game: &ListedGame) -> GameSummary<'static> {
        // With handicap stones, white moves first.
        let white_first = game.terms.handicap > 0;
        let to_move = if (game.plies % 2 == 1) != white_first {
            Color::White
        } else {
            Color::Black
        };
        let names = [game.black.clone().into(), game.white.clone().into()];
        GameSummary::from_parts(
            game.id.clone().into(),
            game.size,
            names,
            game.bots,
            &game.terms,
            (game.plies, to_move),
        )
    }

    /// `turns`: how many were played, and who is to move.
    fn from_parts(
        id: Cow<'a, str>,
        size: usize,
        [black, white]: [Cow<'a, str>; 2],
        bots: [bool; 2],
        terms: &GameTerms,
        (moves, to_move): (usize, Color),
    ) -> GameSummary<'a> {
        GameSummary {
            id,
            size,
            black,
            white,
            bots: ByColor {
                black: bots[0],
                white: bots[1],
            },
            ranks: ranks_view(terms),
            rated: terms.rated,
            time: terms.time.to_json(),
            moves,
            to_move,
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeekView<'a> {
    pub name: Cow<'a, str>,
    /// One size as a number, several as a list.
    pub size: Value,
    pub color: SeekColor,
    pub opponent: Opponent,
    pub bot: bool,
    /// The player's rank.
    pub rank: String,
    pub rated: bool,
    /// `"auto"` or a number of stones.
    pub handicap: Value,
    pub komi: f64,
    pub time: Value,
    pub scoring: Scoring,
}

impl SeekView<'_> {
    pub fn of(seek: &Seek) -> SeekView<'_> {
        SeekView {
            name: seek.name.as_str().into(),
            size: sizes_value(&seek.sizes),
            color: seek.color,
            opponent: seek.opponent,
            bot: seek.bot,
            rank: seek.rating.rank_label(),
            rated: seek.terms.rated,
            handicap: seek.terms.handicap.to_json(),
            komi: seek.terms.komi,
            time: seek.terms.time.to_json(),
            scoring: seek.terms.scoring,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// A message from the server: borrowing the server's objects as it writes them, owning what
/// it read as a [`ServerFrame`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage<'a> {
    Welcome {
        name: Cow<'a, str>,
        token: Cow<'a, str>,
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
        color: SeekColor,
        opponent: Opponent,
        rated: bool,
        handicap: Value,
        komi: f64,
        time: Value,
        scoring: Scoring,
    },
    Cancelled,
    Start {
        game: GameState<'a>,
    },
    Played {
        game: Cow<'a, str>,
        ply: usize,
        #[serde(with = "color")]
        color: Color,
        point: Option<Cow<'a, str>>,
        captured: Cow<'a, [String]>,
        #[serde(with = "color")]
        to_move: Color,
        remaining_ms: u64,
        clocks: Value,
    },
    Over {
        game: Cow<'a, str>,
        #[serde(with = "optional_color")]
        winner: Option<Color>,
        reason: EndReason,
        score: Option<ScoreView>,
        records: RecordsView,
        /// A rated game's rating changes; `null` for an unrated one.
        ratings: Option<Cow<'a, Value>>,
    },
    State {
        game: GameState<'a>,
    },
    /// A chat message: to both players and the watchers, or (`channel` `watchers`, a
    /// watcher's while the game is on) to the watchers only.
    Chat {
        game: Cow<'a, str>,
        from: Cow<'a, str>,
        text: Cow<'a, str>,
        ply: usize,
        at_ms: u64,
        channel: ChatChannel,
    },
    /// To both players: `by` asks to take back the last turn, `ply` turns into the game.
    UndoRequested {
        game: Cow<'a, str>,
        ply: usize,
        #[serde(with = "color")]
        by: Color,
    },
    /// To the requester: the opponent refused, or played on.
    UndoDeclined {
        game: Cow<'a, str>,
        ply: usize,
    },
    /// To both players and the watchers: the scoring phase began, or its marks changed.
    Scoring {
        game: Cow<'a, str>,
        #[serde(flatten)]
        marks: Marks,
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
        game: Cow<'a, str>,
        name: Cow<'a, str>,
        #[serde(with = "color")]
        color: Color,
        connected: bool,
    },
    Pong {
        t: Value,
        server_ms: u64,
    },
    /// After `unwatch`: nothing more of the game comes.
    Unwatched {
        game: Cow<'a, str>,
    },
    /// The lobby's lists: the seeks waiting (as `/api/seeks`) and the games being played (as
    /// `/api/games`, with their `total`).
    Lobby {
        seeks: Cow<'a, Value>,
        games: Cow<'a, Value>,
        total: usize,
    },
    /// After `unwatch_lobby`.
    UnwatchedLobby,
    Error(Refused),
    Goodbye {
        reason: Cow<'a, str>,
    },
}

/// A message from the server as its peers read it.
pub type ServerFrame = ServerMessage<'static>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

impl<'a> ServerMessage<'a> {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("server messages always serialise")
    }

    /// `played` of `turn`, just played in `game`.
    pub fn played(game: &'a ServerGame, turn: &'a Turn) -> ServerMessage<'a> {
        ServerMessage::Played {
            game: game.id.as_str().into(),
            ply: turn.ply,
            color: turn.color,
            point: turn.point.as_deref().map(Into::into),
            captured: turn.captured.as_slice().into(),
            to_move: game.to_move(),
            remaining_ms: game.turn_time_ms(),
            clocks: clocks_view(game),
        }
    }

    pub fn over(game: &str, result: GameResult, records: &Records, ratings: Option<&Value>) -> String {
        ServerMessage::Over {
            game: game.into(),
            winner: result.winner,
            reason: result.reason,
            score: score_view(result),
            records: records.into(),
            ratings: ratings.map(Cow::Borrowed),
        }
        .to_json()
    }
}
