//! Storage: players, games and turns. The game logic sees only the [`Store`] trait, so another
//! backend (PostgreSQL, for several server processes sharing players and games) slots in
//! without touching it.

mod sqlite;

pub use sqlite::SqliteStore;

use super::game::GameResult;

/// A registered player as stored: the token itself is never kept, only its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRecord {
    pub name: String,
    pub token_hash: [u8; 32],
    pub wins: u32,
    pub losses: u32,
}

/// A player's public record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub name: String,
    pub wins: u32,
    pub losses: u32,
}

/// A game as stored: enough to rebuild it by replaying its turns.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    pub id: String,
    pub size: usize,
    pub black: String,
    pub white: String,
    pub komi: f64,
    pub move_time_ms: u64,
    /// Every turn in order, kata coordinates, `None` for a pass.
    pub moves: Vec<Option<String>>,
    pub result: Option<GameResult>,
}

/// One change; a batch of them is committed in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    NewGame(StoredGame),
    Turn {
        game: String,
        ply: usize,
        point: Option<String>,
    },
    /// The result, and a win for the winner and a loss for the loser, at most once per game.
    Finish {
        game: String,
        result: GameResult,
    },
}

/// What committing a [`Write::Finish`] did to the two players' records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Records {
    pub black: Standing,
    pub white: Standing,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("corrupt database: {0}")]
    Corrupt(String),
    #[error("cannot start the checkpoint thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// The storage interface of the game server. One writer: calls come from a single thread.
pub trait Store: Send {
    /// The player registered under `name`, compared regardless of case.
    fn player(&mut self, name: &str) -> Result<Option<PlayerRecord>, StoreError>;
    /// Registers `name`; `false` if the name (regardless of case) is taken.
    fn add_player(&mut self, name: &str, token_hash: &[u8; 32]) -> Result<bool, StoreError>;
    fn game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError>;
    fn unfinished_games(&mut self) -> Result<Vec<StoredGame>, StoreError>;
    /// Commits `writes` in one transaction, all or nothing; for each `Finish`, in order, the
    /// two records after it.
    fn commit(&mut self, writes: &[Write]) -> Result<Vec<Records>, StoreError>;
}
