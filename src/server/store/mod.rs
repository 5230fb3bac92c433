//! Storage: players, games, turns and seeks. Two backends behind one [`Store`]:
//!
//! - SQLite ([`SqliteStore`]), one file and one server process: the process is the only writer,
//!   so every conditional write succeeds and seeks live in memory;
//! - PostgreSQL ([`PostgresStore`]), for several processes on one database: every write is
//!   conditional on the database's own state (the ply, the status, the deadline), seeks are
//!   rows that any process may pair, and each commit notifies the other processes.
//!
//! The hub sees only [`Store`], and the same hub runs on both.

#[cfg(test)]
pub(crate) mod contract;
mod migrations;
mod notification;
mod postgres;
mod reader;
mod sqlite;

pub use notification::{Change, Remote};
pub use postgres::{is_postgres_address, Listener, PostgresStore};
pub use reader::Reader;
pub use sqlite::SqliteStore;

use serde_json::{json, Value};

use super::game::{ChatMessage, EndReason, GameResult, ScoringPhase, UndoRequest, UndoState, CHAT_KEPT};
use super::lobby::{Pairing, Seek};
use super::rating::{after_rated_game, Rating};
use super::terms::GameTerms;
use super::time_control::Clock;
use gokata_engine::{Color, Score};

/// A registered player as stored: the token itself is never kept, only its hash.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRecord {
    pub name: String,
    pub token_hash: [u8; 32],
    pub wins: u32,
    pub losses: u32,
    /// A program, marked so by its own `hello`, for good.
    pub bot: bool,
    pub rating: Rating,
    pub rated_games: u32,
}

impl PlayerRecord {
    pub fn standing(&self) -> Standing {
        Standing {
            name: self.name.clone(),
            wins: self.wins,
            losses: self.losses,
            bot: self.bot,
            rating: self.rating,
            rated_games: self.rated_games,
        }
    }
}

/// A player's public record.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub name: String,
    pub wins: u32,
    pub losses: u32,
    pub bot: bool,
    pub rating: Rating,
    /// Rated games finished.
    pub rated_games: u32,
}

/// A game as stored: enough to rebuild it by replaying its turns.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    pub id: String,
    pub size: usize,
    pub black: String,
    pub white: String,
    /// Whether black and white are programs: read from the players' accounts.
    pub bots: [bool; 2],
    pub terms: GameTerms,
    /// Each player's clock as it stood at the last stored turn, black first.
    pub clocks: [Clock; 2],
    /// Both clocks after each turn, as `moves` (`None` for turns stored before clocks were).
    pub turn_clocks: Vec<Option<[Clock; 2]>>,
    pub undo: UndoState,
    /// The last chat messages ([`crate::game::CHAT_KEPT`]), oldest first.
    pub chat: Vec<ChatMessage>,
    /// The scoring phase under way, if any.
    pub scoring: Option<ScoringPhase>,
    /// A finished rated game's rating changes.
    pub ratings: Option<Value>,
    /// Every turn in order, kata coordinates, `None` for a pass.
    pub moves: Vec<Option<String>>,
    pub result: Option<GameResult>,
}

/// A finished game as a player's list of games shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub id: String,
    pub size: usize,
    pub black: String,
    pub white: String,
    pub result: GameResult,
    pub terms: GameTerms,
    /// Turns played.
    pub plies: usize,
    /// A rated game's rating changes (`over`'s `ratings`).
    pub ratings: Option<Value>,
}

/// A game being played, as the lobby lists it: read without its turns.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedGame {
    pub id: String,
    pub size: usize,
    pub black: String,
    pub white: String,
    pub bots: [bool; 2],
    pub terms: GameTerms,
    /// Turns played.
    pub plies: usize,
}

/// How many finished games a page of a player's list holds.
pub const GAMES_PAGE: usize = 50;
/// How many players the leaderboard lists.
pub const LEADERBOARD: usize = 100;

/// A game as the database has it now, for a process catching up with what it did not write.
#[derive(Clone, Debug, PartialEq)]
pub struct GameNow {
    /// The game, its `moves` holding only the turns from ply `first_ply` on.
    pub game: StoredGame,
    pub first_ply: usize,
    /// The time left to the player to move, by the database's clock; `None` where the process
    /// keeps the clock itself (SQLite).
    pub remaining_ms: Option<u64>,
    /// The players' records, read with the game, once it is over.
    pub records: Option<Records>,
    /// A rated game's rating changes, once it is over (`over`'s `ratings`).
    pub ratings: Option<Value>,
    /// The turns the store has in all, where other processes write (fewer than a process holds:
    /// one was taken back meanwhile).
    pub stored_plies: Option<usize>,
}

/// One change; a batch of them is committed in one transaction. Turns and results are
/// conditional: each applies only to the game as its writer saw it, and once one write of a
/// game is rejected, the game's later writes in the batch are rejected too.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    NewGame(Box<StoredGame>),
    /// Applies if `ply` turns were played, the game is on and, on a shared database, its
    /// player to move still has time.
    Turn {
        game: String,
        ply: usize,
        point: Option<String>,
        /// Both clocks after the turn, black first.
        clocks: [Clock; 2],
        /// The time the next player has for its turn.
        turn_ms: u64,
    },
    /// A step of an undo, applied if the game is on at `plies` turns: a request (if none is
    /// pending and the player has asked fewer than the most), a refusal of the pending one, or
    /// its acceptance (the last turn taken back, the clocks as given).
    Undo {
        game: String,
        plies: usize,
        step: UndoStep,
    },
    /// A game enters or leaves its scoring phase, or its marks or acceptances change: applies
    /// if the game is on at `plies` turns. `turn_ms`: the time the phase (or, on leaving it, the
    /// player to move) has.
    Scoring {
        game: String,
        plies: usize,
        scoring: Option<ScoringPhase>,
        turn_ms: u64,
        /// The phase as the writer saw it before this change: the write applies only if the
        /// store still has it (two players' changes through two processes never overwrite one
        /// another).
        seen: Option<ScoringPhase>,
    },
    /// A chat message, stored with its game.
    Chat {
        game: String,
        message: ChatMessage,
    },
    /// The result, with a win for the winner and a loss for the loser (nothing for a draw), and
    /// both ratings moved if the game is rated: applies if the game is still on, and for a
    /// timeout only if `plies` turns were played and the time is up.
    Finish {
        game: String,
        result: GameResult,
        plies: usize,
        /// A game scored when the time to agree ran out: the marks it was scored with, which
        /// the store must still have (a change told meanwhile through another process wins).
        marks: Option<ScoringPhase>,
    },
}

impl Write {
    pub fn game(&self) -> &str {
        match self {
            Write::NewGame(game) => &game.id,
            Write::Turn { game, .. }
            | Write::Undo { game, .. }
            | Write::Chat { game, .. }
            | Write::Scoring { game, .. }
            | Write::Finish { game, .. } => game,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum UndoStep {
    Ask(Color),
    Decline,
    Accept { clocks: [Clock; 2], turn_ms: u64 },
}

/// What committing one [`Write`] did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Done,
    /// A result was counted: the two players' records after it, the turns the game had (more
    /// than its writer knew of if another process stored a turn just before), and a rated
    /// game's rating changes (`over`'s `ratings`).
    Finished {
        records: Records,
        plies: usize,
        ratings: Option<Value>,
    },
    /// The game was not as the writer saw it (another process got there first): nothing written.
    Rejected,
    /// A chat message was stored under this id.
    Chatted(i64),
}

/// Two players' records after a result.
#[derive(Clone, Debug, PartialEq)]
pub struct Records {
    pub black: Standing,
    pub white: Standing,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("PostgreSQL: {}", postgres_message(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// A connection that could not be made, to `address` (`HOST:PORT`, each one tried).
    #[error("PostgreSQL: cannot connect to {address}: {}", postgres_message(.source))]
    Connect {
        address: String,
        source: tokio_postgres::Error,
    },
    #[error("corrupt database: {0}")]
    Corrupt(String),
    #[error("cannot start the checkpoint thread: {0}")]
    Thread(#[from] std::io::Error),
}

impl StoreError {
    /// Whether the connection to the database was lost (reconnect), rather than one statement
    /// refused on a live connection.
    pub fn is_connection_lost(&self) -> bool {
        match self {
            StoreError::Postgres(error) => {
                error.is_closed()
                    || match error.as_db_error() {
                        None => true,
                        // Connection exceptions, and the server shutting down or starting.
                        Some(db) => ["08", "57"]
                            .iter()
                            .any(|class| db.code().code().starts_with(class)),
                    }
            }
            StoreError::Connect { .. } => true,
            _ => false,
        }
    }
}

/// The storage of the game server. One writer per process: calls come from the hub alone.
pub enum Store {
    Sqlite(SqliteStore),
    Postgres(Box<PostgresStore>),
}

/// Calls the same method on whichever backend this is.
macro_rules! on_backend {
    ($store:expr, $backend:ident => $call:expr) => {
        match $store {
            Store::Sqlite($backend) => $call,
            Store::Postgres($backend) => $call.await,
        }
    };
}

impl Store {
    /// Whether other processes write to the same database (then writes can be rejected, and
    /// the hub must hear of their changes and recover from a lost connection).
    pub fn is_shared(&self) -> bool {
        matches!(self, Store::Postgres(_))
    }

    /// The player registered under `name`, compared regardless of case.
    pub async fn player(&mut self, name: &str) -> Result<Option<PlayerRecord>, StoreError> {
        on_backend!(self, store => store.player(name))
    }

    /// Registers `name` (a program if `bot`); `false` if the name (regardless of case) is taken.
    pub async fn add_player(
        &mut self,
        name: &str,
        token_hash: &[u8; 32],
        bot: bool,
    ) -> Result<bool, StoreError> {
        on_backend!(self, store => store.add_player(name, token_hash, bot))
    }

    /// Marks a registered player as a program, for good.
    pub async fn mark_bot(&mut self, name: &str) -> Result<(), StoreError> {
        on_backend!(self, store => store.mark_bot(name))
    }

    /// The seeks waiting now, oldest first (on a shared database, those of live processes).
    pub async fn waiting_seeks(&mut self) -> Result<Vec<Seek>, StoreError> {
        on_backend!(self, store => store.waiting_seeks())
    }

    /// Where the seeks live in this process (SQLite): them, and how many times they changed.
    pub fn local_seeks(&self) -> Option<(u64, &[Seek])> {
        match self {
            Store::Sqlite(store) => Some(store.local_seeks()),
            Store::Postgres(_) => None,
        }
    }

    pub async fn game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        on_backend!(self, store => store.game(id))
    }

    /// `name`'s finished games (the name as registered), newest first, [`GAMES_PAGE`] of them,
    /// from just before the game `before` if given (an unknown one gives none).
    pub async fn finished_games(
        &mut self,
        name: &str,
        before: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        on_backend!(self, store => store.finished_games(name, before))
    }

    /// The [`LEADERBOARD`] highest-rated players whose rank is certain (deviation under 160).
    pub async fn leaderboard(&mut self) -> Result<Vec<Standing>, StoreError> {
        on_backend!(self, store => store.leaderboard())
    }

    /// The chat message stored under `id` (another process's), and its game.
    pub async fn chat_message(&mut self, id: i64) -> Result<Option<(String, ChatMessage)>, StoreError> {
        on_backend!(self, store => store.chat_message(id))
    }

    /// The newest `limit` games being played, as listed, newest first, where the hub does not
    /// hold them all (a shared database); `None` on SQLite.
    pub async fn newest_games_listed(&mut self, limit: usize) -> Result<Option<Vec<ListedGame>>, StoreError> {
        match self {
            Store::Sqlite(_) => Ok(None),
            Store::Postgres(store) => store.newest_games_listed(limit).await.map(Some),
        }
    }

    /// The ids of every game still being played.
    pub async fn live_game_ids(&mut self) -> Result<Vec<String>, StoreError> {
        on_backend!(self, store => store.live_game_ids())
    }

    /// The ids of the games being played by any of `names` (as registered).
    pub async fn live_games_of(&mut self, names: &[String]) -> Result<Vec<String>, StoreError> {
        on_backend!(self, store => store.live_games_of(names))
    }

    /// On a shared database: games whose player to move ran out of time a while ago, as the
    /// database's clock has it (a process that holds one ends it at its deadline; these are
    /// held by none, or by one that died). None on SQLite, whose clocks are the process's.
    pub async fn overdue_games(&mut self) -> Result<Vec<String>, StoreError> {
        match self {
            Store::Sqlite(_) => Ok(Vec::new()),
            Store::Postgres(store) => store.overdue_games().await,
        }
    }

    /// Each named game as it is now, with its turns from the given ply on; unknown ids are left
    /// out.
    pub async fn games_now(&mut self, games: &[(String, usize)]) -> Result<Vec<GameNow>, StoreError> {
        on_backend!(self, store => store.games_now(games))
    }

    /// Commits `writes` in one transaction, all or nothing; an outcome for each, in order.
    pub async fn commit(&mut self, writes: &[Write]) -> Result<Vec<Outcome>, StoreError> {
        on_backend!(self, store => store.commit(writes))
    }

    /// Tells the other processes on a shared database what stores nothing; nothing on SQLite.
    pub async fn announce(&mut self, changes: &[Change]) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(_) => Ok(()),
            Store::Postgres(store) => store.announce(changes).await,
        }
    }

    /// Pairs `seek` with the oldest compatible waiting seek, or leaves it waiting (replacing the
    /// player's earlier seek). A pairing's game is made by `new_game`; whether it is stored
    /// already is in the answer (else the hub writes it with its batch).
    pub async fn pair(
        &mut self,
        seek: Seek,
        new_game: impl FnOnce(Pairing) -> StoredGame,
    ) -> Result<Option<PairedGame>, StoreError> {
        on_backend!(self, store => store.pair(seek, new_game))
    }

    /// Withdraws the player's seek, wherever it was made.
    pub async fn cancel_seek(&mut self, name: &str) -> Result<(), StoreError> {
        on_backend!(self, store => store.cancel_seek(name))
    }

    /// Withdraws the player's seek if it was made through this process (its last connection
    /// here closed).
    pub async fn withdraw_seek(&mut self, name: &str) -> Result<(), StoreError> {
        on_backend!(self, store => store.withdraw_seek(name))
    }

    /// Tells the other processes this one is alive (their pairing skips the seeks of a dead one).
    pub async fn heartbeat(&mut self) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(_) => Ok(()),
            Store::Postgres(store) => store.heartbeat().await,
        }
    }

    /// Connects again after the database was lost; an error if it still cannot.
    pub async fn reconnect(&mut self) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(_) => Ok(()),
            Store::Postgres(store) => store.reconnect().await,
        }
    }
}

/// A game made by a pairing.
#[derive(Clone, Debug, PartialEq)]
pub struct PairedGame {
    pub game: StoredGame,
    /// Committed already (with the pairing, on a shared database), or to be written by the hub.
    pub stored: bool,
}

/// A game's result from its columns: none while it is played; a reason once it is over, with a
/// winner but after a draw (the score only after two passes).
pub(crate) fn stored_result(
    id: &str,
    komi: f64,
    winner: Option<String>,
    reason: Option<String>,
    score_black: Option<u32>,
    score_white: Option<u32>,
) -> Result<Option<GameResult>, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    let Some(reason) = reason else {
        return match winner {
            None => Ok(None),
            Some(_) => Err(corrupt("a winner without a reason")),
        };
    };
    let score = match (score_black, score_white) {
        (Some(black), Some(white)) => Some(Score { black, white, komi }),
        _ => None,
    };
    let winner = winner
        .map(|winner| winner.parse::<Color>().map_err(|_| corrupt("winner")))
        .transpose()?;
    if winner.is_none() && score.is_none_or(|score| score.winner().is_some()) {
        return Err(corrupt("no winner, and no drawn score"));
    }
    Ok(Some(GameResult {
        winner,
        reason: EndReason::from_name(&reason).ok_or_else(|| corrupt("reason"))?,
        score,
    }))
}

/// A game's undo state from its columns.
pub(crate) fn stored_undo(
    id: &str,
    by: Option<String>,
    ply: Option<i64>,
    asked: [i64; 2],
) -> Result<UndoState, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    let pending = match (by, ply) {
        (None, _) => None,
        (Some(by), Some(ply)) => Some(UndoRequest {
            by: by.parse::<Color>().map_err(|_| corrupt("undo_by"))?,
            ply: usize::try_from(ply).map_err(|_| corrupt("undo_ply"))?,
        }),
        (Some(_), None) => return Err(corrupt("an undo request without its ply")),
    };
    let count = |n: i64| u32::try_from(n).map_err(|_| corrupt("undo count"));
    Ok(UndoState {
        pending,
        asked: [count(asked[0])?, count(asked[1])?],
    })
}

/// The `scoring` column of a game in its scoring phase.
pub(crate) fn scoring_to_text(phase: &ScoringPhase) -> String {
    json!({"dead": phase.dead, "accepted": phase.accepted}).to_string()
}

pub(crate) fn stored_scoring(id: &str, text: Option<&str>) -> Result<Option<ScoringPhase>, StoreError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let corrupt = || StoreError::Corrupt(format!("game {id}: scoring {text}"));
    let value: Value = serde_json::from_str(text).map_err(|_| corrupt())?;
    let dead = value["dead"]
        .as_array()
        .ok_or_else(corrupt)?
        .iter()
        .map(|point| point.as_str().map(String::from).ok_or_else(corrupt))
        .collect::<Result<Vec<String>, StoreError>>()?;
    let accepted = |at: usize| value["accepted"][at].as_bool().ok_or_else(corrupt);
    Ok(Some(ScoringPhase {
        dead,
        accepted: [accepted(0)?, accepted(1)?],
    }))
}

/// The game's terms and clocks from its columns (`terms` and `clocks` are absent in games
/// stored before there were time controls and ratings).
pub(crate) fn stored_terms(
    id: &str,
    terms: Option<&str>,
    clocks: Option<&str>,
    komi: f64,
    move_time_ms: u64,
) -> Result<(GameTerms, [Clock; 2]), StoreError> {
    let corrupt = |what: &str, why: String| StoreError::Corrupt(format!("game {id}: {what}: {why}"));
    let terms = GameTerms::from_json(terms, komi, move_time_ms).map_err(|why| corrupt("terms", why))?;
    let clocks = match clocks {
        None => [terms.time.new_clock(); 2],
        Some(text) => Clock::pair_from_text(text).map_err(|why| corrupt("clocks", why))?,
    };
    Ok((terms, clocks))
}

/// The SQL, for both stores, of [`Store::finished_games`]: `$1` the name, `$2` the game before
/// which the page starts (or null), `$3` the page's size; `order_column` the column of the order
/// in which games were made, `plies` the expression of a game's turn count.
pub(crate) fn finished_games_sql(order_column: &str, plies: &str) -> String {
    format!(
        "SELECT g.id, g.size, g.black, g.white, g.komi, g.move_time_ms, g.winner, g.reason,
                g.score_black, g.score_white, g.terms, g.ratings, {plies} AS plies
         FROM games g
         WHERE (g.black = $1 OR g.white = $1) AND g.status = 'over'
           AND (CAST($2 AS TEXT) IS NULL
                OR g.{order_column} < (SELECT {order_column} FROM games WHERE id = CAST($2 AS TEXT)))
         ORDER BY g.{order_column} DESC LIMIT $3"
    )
}

/// The SQL, for both stores, of a game's last chat messages (oldest first): `$1` the game.
pub(crate) fn last_chat_sql() -> String {
    format!(
        "SELECT sender, text, ply, at_ms, watchers FROM (
             SELECT id, sender, text, ply, at_ms, watchers FROM chat WHERE game = $1
             ORDER BY id DESC LIMIT {CHAT_KEPT}) AS last ORDER BY id"
    )
}

/// The SQL of [`Store::leaderboard`], for both stores.
pub(crate) const LEADERBOARD_SQL: &str = "SELECT name, wins, losses, bot, rating, deviation, volatility,
    rated_games FROM players WHERE deviation < 160 AND rated_games > 0 ORDER BY rating DESC, name LIMIT 100";

/// The time the first player of a new game has for its first turn.
pub(crate) fn turn_time_ms(game: &StoredGame) -> u64 {
    let first = usize::from(game.terms.handicap > 0);
    game.terms.time.time_left(&game.clocks[first])
}

/// The players' records after a result, counted once in both stores: a win and a loss (nothing
/// for a draw) and, for a rated game, both ratings moved and `over`'s `ratings`.
pub(crate) fn settle(
    result: &GameResult,
    terms: &GameTerms,
    size: usize,
    mut black: Standing,
    mut white: Standing,
) -> (Records, Option<Value>) {
    match result.winner {
        Some(Color::Black) => (black.wins, white.losses) = (black.wins + 1, white.losses + 1),
        Some(Color::White) => (white.wins, black.losses) = (white.wins + 1, black.losses + 1),
        None => {}
    }
    let ratings = terms.rated.then(|| {
        let before = [black.rating, white.rating];
        let after = match result.winner {
            Some(winner) => after_rated_game(before[0], before[1], winner == Color::Black, terms.handicap, size),
            None => [
                before[0].after_game(before[1], 0.5),
                before[1].after_game(before[0], 0.5),
            ],
        };
        black.rating = after[0];
        white.rating = after[1];
        black.rated_games += 1;
        white.rated_games += 1;
        let change = |color: usize| {
            json!({"before": before[color].rating, "after": after[color].rating, "rank": after[color].rank_label()})
        };
        json!({"black": change(0), "white": change(1)})
    });
    (Records { black, white }, ratings)
}

/// The server's own words where it sent some ("db error" alone says nothing); else the error
/// and every error under it, whose words tokio-postgres leaves out of its own ("error
/// connecting to server: Connection refused (os error 111)").
fn postgres_message(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_string(),
        },
        None => {
            let mut message = error.to_string();
            let mut cause = std::error::Error::source(error);
            while let Some(error) = cause {
                let said = error.to_string();
                if !message.contains(&said) {
                    message = format!("{message}: {said}");
                }
                cause = error.source();
            }
            message
        }
    }
}
