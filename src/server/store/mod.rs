//! Storage: players, games, turns and seeks. Two backends behind one [`Store`]:
//!
//! - SQLite ([`SqliteStore`]), one file and one server process: the process is the only writer,
//!   so every conditional write succeeds and seeks live in memory;
//! - PostgreSQL ([`PostgresStore`]), for several processes on one database: every write is
//!   conditional on the database's own state (the ply, the status, the deadline), seeks are
//!   rows that any process may pair, and each commit notifies the other processes.
//!
//! The hub sees only [`Store`], and the same hub runs on both.

mod migrations;
mod notification;
mod postgres;
mod sqlite;

pub use notification::{Change, Remote};
pub use postgres::{is_postgres_address, Listener, PostgresStore};
pub use sqlite::SqliteStore;

use super::game::{EndReason, GameResult};
use super::lobby::{Pairing, Seek};
use gokata_engine::{Color, Score};

/// A registered player as stored: the token itself is never kept, only its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRecord {
    pub name: String,
    pub token_hash: [u8; 32],
    pub wins: u32,
    pub losses: u32,
    /// A program, marked so by its own `hello`, for good.
    pub bot: bool,
}

/// A player's public record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub name: String,
    pub wins: u32,
    pub losses: u32,
    pub bot: bool,
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
    pub komi: f64,
    pub move_time_ms: u64,
    /// Every turn in order, kata coordinates, `None` for a pass.
    pub moves: Vec<Option<String>>,
    pub result: Option<GameResult>,
}

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
}

/// One change; a batch of them is committed in one transaction. Turns and results are
/// conditional: each applies only to the game as its writer saw it, and once one write of a
/// game is rejected, the game's later writes in the batch are rejected too.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    NewGame(StoredGame),
    /// Applies if `ply` turns were played, the game is on and, on a shared database, its
    /// player to move still has time.
    Turn {
        game: String,
        ply: usize,
        point: Option<String>,
    },
    /// The result, with a win for the winner and a loss for the loser: applies if the game is
    /// still on, and for a timeout only if `plies` turns were played and the time is up.
    Finish {
        game: String,
        result: GameResult,
        plies: usize,
    },
}

impl Write {
    pub fn game(&self) -> &str {
        match self {
            Write::NewGame(game) => &game.id,
            Write::Turn { game, .. } | Write::Finish { game, .. } => game,
        }
    }
}

/// What committing one [`Write`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// A result was counted: the two players' records after it, and the turns the game had
    /// (more than its writer knew of if another process stored a turn just before).
    Finished {
        records: Records,
        plies: usize,
    },
    /// The game was not as the writer saw it (another process got there first): nothing written.
    Rejected,
}

/// Two players' records after a result.
#[derive(Clone, Debug, PartialEq, Eq)]
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

    pub async fn game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        on_backend!(self, store => store.game(id))
    }

    /// The ids of every game still being played.
    pub async fn live_game_ids(&mut self) -> Result<Vec<String>, StoreError> {
        on_backend!(self, store => store.live_game_ids())
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

/// A game's result from its columns: none while it is played, and a winner always with a reason
/// (the score only after two passes).
pub(crate) fn stored_result(
    id: &str,
    komi: f64,
    winner: Option<String>,
    reason: Option<String>,
    score_black: Option<u32>,
    score_white: Option<u32>,
) -> Result<Option<GameResult>, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    match (winner, reason) {
        (None, None) => Ok(None),
        (Some(winner), Some(reason)) => Ok(Some(GameResult {
            winner: winner.parse::<Color>().map_err(|_| corrupt("winner"))?,
            reason: EndReason::from_name(&reason).ok_or_else(|| corrupt("reason"))?,
            score: match (score_black, score_white) {
                (Some(black), Some(white)) => Some(Score { black, white, komi }),
                _ => None,
            },
        })),
        _ => Err(corrupt("a winner without a reason")),
    }
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
