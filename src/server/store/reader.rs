//! The store's read side: the public records (players, finished games, the leaderboard, and on
//! PostgreSQL the seeks) read on connections of their own, so that a read never waits on the
//! hub, whose connection commits every turn.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;
use tokio_postgres::{Client, Config};

use super::postgres::connection::{connect, parse_address};
use super::postgres::reads as postgres_reads;
use super::sqlite::reads as sqlite_reads;
use super::{is_postgres_address, FinishedGame, PlayerRecord, SqliteStore, Standing, StoreError, StoredGame};
use crate::lobby::Seek;

pub enum Reader {
    /// A read-only connection to the file (WAL lets it read while the hub writes), used on a
    /// blocking thread.
    Sqlite(Arc<Mutex<Connection>>),
    Postgres(Box<PostgresReader>),
}

/// A connection of its own to the database, made when first needed and again when lost.
pub struct PostgresReader {
    config: Config,
    client: tokio::sync::Mutex<Option<Arc<Client>>>,
}

impl Reader {
    /// A reader of `database`, which the store has opened already (and so made and migrated).
    pub fn open(database: &str) -> Result<Reader, StoreError> {
        if is_postgres_address(database) {
            let config = parse_address(database).map_err(StoreError::Corrupt)?;
            return Ok(Reader::Postgres(Box::new(PostgresReader {
                config,
                client: tokio::sync::Mutex::new(None),
            })));
        }
        let connection = SqliteStore::open_reader(Path::new(database))?;
        Ok(Reader::Sqlite(Arc::new(Mutex::new(connection))))
    }

    /// The player registered under `name`, compared regardless of case.
    pub async fn player(&self, name: &str) -> Result<Option<PlayerRecord>, StoreError> {
        match self {
            Reader::Sqlite(connection) => {
                let name = name.to_string();
                on_file(connection, move |c| sqlite_reads::player(c, &name)).await
            }
            Reader::Postgres(reader) => postgres_reads::player(&*reader.client().await?, name).await,
        }
    }

    /// As [`super::Store::finished_games`].
    pub async fn finished_games(
        &self,
        name: &str,
        before: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        match self {
            Reader::Sqlite(connection) => {
                let (name, before) = (name.to_string(), before.map(String::from));
                on_file(connection, move |c| {
                    sqlite_reads::finished_games(c, &name, before.as_deref())
                })
                .await
            }
            Reader::Postgres(reader) => {
                postgres_reads::finished_games(&*reader.client().await?, name, before).await
            }
        }
    }

    pub async fn leaderboard(&self) -> Result<Vec<Standing>, StoreError> {
        match self {
            Reader::Sqlite(connection) => on_file(connection, sqlite_reads::leaderboard).await,
            Reader::Postgres(reader) => postgres_reads::leaderboard(&*reader.client().await?).await,
        }
    }

    /// A game as stored (finished, or on PostgreSQL also one this process does not hold), and
    /// on PostgreSQL the time its player to move has left.
    pub async fn game(&self, id: &str) -> Result<Option<(StoredGame, Option<u64>)>, StoreError> {
        match self {
            Reader::Sqlite(connection) => {
                let id = id.to_string();
                let game = on_file(connection, move |c| SqliteStore::load_in(c, &id)).await?;
                Ok(game.map(|game| (game, None)))
            }
            Reader::Postgres(reader) => {
                let id = (id.to_string(), 0);
                let now = postgres_reads::games_now(&*reader.client().await?, &[id]).await?;
                Ok(now.into_iter().next().map(|now| (now.game, now.remaining_ms)))
            }
        }
    }

    /// The seeks of live processes, oldest first, where they are in the database (PostgreSQL);
    /// `None` where they live in the hub (SQLite), which publishes them.
    pub async fn waiting_seeks(&self) -> Result<Option<Vec<Seek>>, StoreError> {
        match self {
            Reader::Sqlite(_) => Ok(None),
            Reader::Postgres(reader) => postgres_reads::waiting_seeks(&*reader.client().await?)
                .await
                .map(Some),
        }
    }
}

impl PostgresReader {
    async fn client(&self) -> Result<Arc<Client>, StoreError> {
        let mut held = self.client.lock().await;
        if let Some(client) = held.as_ref().filter(|client| !client.is_closed()) {
            return Ok(client.clone());
        }
        let client = Arc::new(connect(&self.config).await?);
        *held = Some(client.clone());
        Ok(client)
    }
}

async fn on_file<T: Send + 'static>(
    connection: &Arc<Mutex<Connection>>,
    read: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let connection = connection.clone();
    tokio::task::spawn_blocking(move || read(&connection.lock().unwrap_or_else(PoisonError::into_inner)))
        .await
        .map_err(|error| StoreError::Corrupt(format!("a read of the database stopped: {error}")))?
}
