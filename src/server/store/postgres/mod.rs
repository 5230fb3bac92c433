//! The PostgreSQL backend, for several server processes on one database.
//!
//! Coordination is PostgreSQL's own, with no protocol of ours between processes:
//! - every write is a conditional update, all of a batch in one transaction: a turn applies
//!   only at the game's current ply while its player to move has time, a timeout only once
//!   the deadline has passed at that ply, any result only while the game is on; row locks
//!   serialise processes that race for one game, and the loser's update matches no row;
//! - the deadline is the database's (`clock_timestamp()`), so any process can end a game on
//!   time, and exactly one does;
//! - pairing locks the board size's row in `seek_sizes`, so two seeks that fit each other can
//!   never both wait (with `SKIP LOCKED` alone, two seekers arriving together each skip the
//!   other's uncommitted seek);
//! - each commit notifies the others of the turns it stored, whole, and of the games that
//!   changed otherwise, which they read ([`notification`], [`Listener`]); once the commit's
//!   outcomes are known, so that nothing rejected is told.
//!
//! One connection writes (the hub is the process's one writer, so there is no pool), and
//! [`Listener`] keeps a second one for notifications.
//!
//! Here the store and its transactions; beside it, `connection` (addresses and connecting),
//! `statements` (what is prepared), `writes` (a batch's conditional writes, in rounds), `rows`
//! (rows read back) and `listener`.

use std::time::Duration;

use futures_util::future::{join, join3, join4, join5, join_all};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config};

use super::migrations;
use super::notification::{self, Change};
use super::{
    FinishedGame, GameNow, ListedGame, Outcome, PairedGame, PlayerRecord, Standing, StoreError, StoredGame,
    Write,
};
use crate::auth;
use crate::game::ChatMessage;
use crate::lobby::{fits, pair, Pairing, Seek};

pub(crate) mod connection;
mod listener;
pub(crate) mod reads;
mod rows;
mod statements;
mod writes;

use connection::connect;
pub use connection::{is_postgres_address, parse_address};
pub use listener::Listener;
use rows::{chat_of, is_retryable, seek_of};
use statements::{prepare, Statements};
use writes::{apply, changes, commit_round, notify, roll_back, rounds, settle_results};

/// The channel every process listens on.
const CHANNEL: &str = "gokata";
/// A process not seen for this long is taken for dead: its seeks are withdrawn, and if no
/// process is alive when one starts, the clocks start afresh.
const ALIVE_WITHIN: &str = "3 seconds";
/// How long after its deadline a game is ended by any process, if the processes that hold it
/// (which end it at its deadline) have not.
const OVERDUE_AFTER: &str = "250 milliseconds";
/// How often a process says it is alive: well within `ALIVE_WITHIN`.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// The time left to every player to move after the database was away.
const GRACE: Duration = Duration::from_secs(30);

pub struct PostgresStore {
    config: Config,
    client: Client,
    statements: Statements,
    /// This process's name in `instances` and in its notifications.
    instance: String,
    /// Set while a transaction is open on `client` (its `BEGIN` and `COMMIT` are sent with
    /// its statements, not through tokio-postgres's `Transaction`), and still set if one was
    /// abandoned midway: the next transaction then rolls it back first.
    in_transaction: bool,
}

impl PostgresStore {
    /// Connects, brings the schema to the newest version, and says this process is alive. If no
    /// other process is, every game on the database has been without a server: their clocks
    /// start afresh, as a restarted SQLite server's do.
    pub async fn open(address: &str) -> Result<PostgresStore, StoreError> {
        let config = parse_address(address).map_err(StoreError::Corrupt)?;
        let mut client = connect(&config).await?;
        migrations::migrate_postgres(&mut client).await?;
        let statements = prepare(&client).await?;
        let mut store = PostgresStore {
            config,
            client,
            statements,
            instance: auth::new_game_id(),
            in_transaction: false,
        };
        store.restart_clocks_if_alone().await?;
        store.heartbeat().await?;
        Ok(store)
    }

    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// A listener for the other processes' notifications, on a connection of its own.
    pub fn listener(&self) -> Listener {
        Listener {
            config: self.config.clone(),
            instance: self.instance.clone(),
        }
    }

    /// Connects again after the connection was lost. Nobody could move meanwhile, so no game
    /// is lost on time for it: each player to move gets at least [`GRACE`] (or the game's whole
    /// move time, if shorter) from now; every process that reconnects does the same, once over.
    pub async fn reconnect(&mut self) -> Result<(), StoreError> {
        let client = connect(&self.config).await?;
        self.statements = prepare(&client).await?;
        self.client = client;
        self.in_transaction = false;
        self.client
            .execute(
                &format!(
                    "UPDATE games SET deadline = greatest(deadline,
                         clock_timestamp() + least(move_time_ms, {})::float8 * interval '1 millisecond')
                     WHERE status = 'playing'",
                    GRACE.as_millis()
                ),
                &[],
            )
            .await?;
        self.heartbeat().await
    }

    async fn restart_clocks_if_alone(&mut self) -> Result<(), StoreError> {
        let sql = format!(
            "UPDATE games SET deadline = clock_timestamp() + move_time_ms::float8 * interval '1 millisecond'
             WHERE status = 'playing' AND NOT EXISTS (
                 SELECT 1 FROM instances WHERE seen >= clock_timestamp() - interval '{ALIVE_WITHIN}')"
        );
        self.client.execute(&sql, &[]).await?;
        Ok(())
    }

    pub async fn heartbeat(&mut self) -> Result<(), StoreError> {
        beat(&self.client, &self.instance).await
    }

    /// Says this process stopped on purpose: its seeks go at once, and a whole site stopped
    /// and started again gives every game its full move time back.
    pub async fn sign_off(&mut self) -> Result<(), StoreError> {
        let tx = self.client.transaction().await?;
        tx.execute("DELETE FROM seeks WHERE instance = $1", &[&self.instance])
            .await?;
        tx.execute("DELETE FROM instances WHERE id = $1", &[&self.instance])
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn player(&mut self, name: &str) -> Result<Option<PlayerRecord>, StoreError> {
        reads::player(&self.client, name).await
    }

    pub async fn add_player(
        &mut self,
        name: &str,
        token_hash: &[u8; 32],
        bot: bool,
    ) -> Result<bool, StoreError> {
        let added = self
            .client
            .execute(
                "INSERT INTO players (name, token_hash, bot) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                &[&name, &&token_hash[..], &bot],
            )
            .await?;
        Ok(added == 1)
    }

    pub async fn mark_bot(&mut self, name: &str) -> Result<(), StoreError> {
        self.client
            .execute("UPDATE players SET bot = true WHERE name = $1", &[&name])
            .await?;
        Ok(())
    }

    /// The seeks of live processes, oldest first.
    pub async fn waiting_seeks(&mut self) -> Result<Vec<Seek>, StoreError> {
        reads::waiting_seeks(&self.client).await
    }

    pub async fn game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        reads::game(&self.client, id).await
    }

    pub async fn finished_games(
        &mut self,
        name: &str,
        before: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        reads::finished_games(&self.client, name, before).await
    }

    pub async fn leaderboard(&mut self) -> Result<Vec<Standing>, StoreError> {
        reads::leaderboard(&self.client).await
    }

    pub async fn chat_message(&mut self, id: i64) -> Result<Option<(String, ChatMessage)>, StoreError> {
        let row = self
            .client
            .query_opt(
                "SELECT game, sender, text, ply, at_ms, watchers FROM chat WHERE id = $1",
                &[&id],
            )
            .await?;
        row.map(|row| Ok((row.try_get("game")?, chat_of(&row)?)))
            .transpose()
    }

    pub async fn live_games_of(&mut self, names: &[String]) -> Result<Vec<String>, StoreError> {
        reads::live_games_of(&self.client, names).await
    }

    /// Games on, whose deadline passed more than [`OVERDUE_AFTER`] ago, the oldest first.
    pub async fn overdue_games(&mut self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .client
            .query(
                &format!(
                    "SELECT id FROM games WHERE status = 'playing'
                     AND deadline < clock_timestamp() - interval '{OVERDUE_AFTER}'
                     ORDER BY deadline LIMIT 200"
                ),
                &[],
            )
            .await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// The newest `limit` games being played, as listed, newest first.
    pub async fn newest_games_listed(&mut self, limit: usize) -> Result<Vec<ListedGame>, StoreError> {
        Ok(reads::live_games_listed(&self.client, limit).await?.0)
    }

    pub async fn live_game_ids(&mut self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .client
            .query(
                "SELECT id FROM games WHERE status = 'playing' ORDER BY created",
                &[],
            )
            .await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// One statement, so the games and their turns are read as of one moment. A game named
    /// twice is read once, from the earlier ply.
    pub async fn games_now(&mut self, games: &[(String, usize)]) -> Result<Vec<GameNow>, StoreError> {
        reads::games_now(&self.client, games).await
    }

    /// Every write of the batch and the notification, sent at once on one connection
    /// (pipelined) and committed together; tried again if PostgreSQL broke a deadlock by
    /// aborting it (nothing of it was stored).
    pub async fn commit(&mut self, writes: &[Write]) -> Result<Vec<Outcome>, StoreError> {
        let mut attempt = 0;
        loop {
            self.end_abandoned_transaction().await?;
            let committed = self.commit_once(writes).await;
            self.in_transaction = false;
            match committed {
                Err(StoreError::Postgres(error)) if attempt < 3 && is_retryable(&error) => attempt += 1,
                other => return other,
            }
        }
    }

    /// Rolls back a transaction left open by a commit or pairing whose future was dropped, and
    /// notes that one is about to begin.
    async fn end_abandoned_transaction(&mut self) -> Result<(), StoreError> {
        if self.in_transaction {
            self.client.batch_execute("ROLLBACK").await?;
        }
        self.in_transaction = true;
        Ok(())
    }

    /// The writes go in rounds: a game's first write in the first round, its second in the
    /// second, and so on. A round's turns are one statement over arrays, sorted by game, so that
    /// two processes usually lock games' rows in one order (a deadlock, if one comes, aborts the
    /// transaction, which is tried again); its other writes (new games, results) one statement
    /// each. Two round trips: `BEGIN` and every round, sent at once (a
    /// later round's writes apply only where the game's earlier one did); then the notification
    /// of what applied, with `COMMIT`.
    async fn commit_once(&mut self, writes: &[Write]) -> Result<Vec<Outcome>, StoreError> {
        let client = &self.client;
        let rounds = rounds(writes);
        let writing = rounds
            .iter()
            .enumerate()
            .map(|(round, indices)| commit_round(client, &self.statements, writes, indices, round > 0));
        let (begun, applied) = join(client.batch_execute("BEGIN"), join_all(writing)).await;
        let mut outcomes = vec![Outcome::Rejected; writes.len()];
        let applied = begun.map_err(StoreError::from).and_then(|()| {
            for (indices, applied) in rounds.iter().zip(applied) {
                for (&index, outcome) in indices.iter().zip(applied?) {
                    outcomes[index] = outcome;
                }
            }
            Ok(())
        });
        if let Err(error) = applied {
            return Err(roll_back(client, error).await);
        }
        let mut chained = vec![false; writes.len()];
        for (round, indices) in rounds.iter().enumerate() {
            for &index in indices {
                chained[index] = round > 0;
            }
        }
        if let Err(error) = settle_results(client, &self.statements, writes, &chained, &mut outcomes).await {
            return Err(roll_back(client, error).await);
        }
        let payloads = notification::payloads(&self.instance, &changes(writes, &outcomes));
        let (notified, committed) = join(
            notify(client, &self.statements.notify, &payloads),
            client.batch_execute("COMMIT"),
        )
        .await;
        notified?;
        committed?;
        Ok(outcomes)
    }

    /// Tells the other processes `changes` that store nothing (who is connected here).
    pub async fn announce(&mut self, changes: &[Change]) -> Result<(), StoreError> {
        let payloads = notification::payloads(&self.instance, changes);
        notify(&self.client, &self.statements.notify, &payloads).await
    }

    /// Under the size's row lock: the player's earlier seek and those of dead processes go,
    /// then the oldest fitting seek is paired (its game stored in the same transaction) or the
    /// new seek waits. Tried again when the same player's seek through another process, for
    /// another size, was stored at the same moment (the second replaces the first).
    pub async fn pair(
        &mut self,
        seek: Seek,
        new_game: impl FnOnce(Pairing) -> StoredGame,
    ) -> Result<Option<PairedGame>, StoreError> {
        let mut new_game = Some(new_game);
        let mut attempt = 0;
        loop {
            let make = |pairing| (new_game.take().expect("one game per pairing"))(pairing);
            self.end_abandoned_transaction().await?;
            let paired = self.pair_once(seek.clone(), make).await;
            self.in_transaction = false;
            match paired {
                Err(StoreError::Postgres(error))
                    if attempt < 3
                        && new_game.is_some()
                        && (is_retryable(&error) || error.code() == Some(&SqlState::UNIQUE_VIOLATION)) =>
                {
                    attempt += 1
                }
                other => return other,
            }
        }
    }

    /// Two round trips: `BEGIN`, the lock and every read under it (each statement sees what
    /// was committed before the lock was granted); then the writes with `COMMIT`. The lock is
    /// held for as short a time as the database allows. Every statement is prepared, so that
    /// each goes out, in order, when its future is first polled (one still to be prepared
    /// would wait for that and could overtake another).
    async fn pair_once(
        &mut self,
        seek: Seek,
        new_game: impl FnOnce(Pairing) -> StoredGame,
    ) -> Result<Option<PairedGame>, StoreError> {
        let (client, statements) = (&self.client, &self.statements);
        let sizes: Vec<i32> = seek
            .sizes
            .iter()
            .map(|&size| i32::try_from(size).unwrap_or(0))
            .collect();
        let (color, opponent) = (seek.color.name(), seek.opponent.name());
        let (begun, locked, own_withdrawn, dead_withdrawn, waiting) = join5(
            client.batch_execute("BEGIN"),
            client.query(&statements.lock_sizes, &[&sizes]),
            client.execute(&statements.withdraw_seek, &[&seek.name]),
            client.execute(&statements.withdraw_dead_seeks, &[&sizes]),
            client.query(&statements.seeks_of_sizes, &[&sizes]),
        )
        .await;
        let read = || -> Result<Option<(i64, Seek)>, StoreError> {
            begun?;
            locked?;
            own_withdrawn?;
            dead_withdrawn?;
            for row in waiting? {
                let (id, waiting) = seek_of(&row)?;
                if fits(&waiting, &seek) {
                    return Ok(Some((id, waiting)));
                }
            }
            Ok(None)
        };
        let waiting_seek = match read() {
            Ok(waiting_seek) => waiting_seek,
            Err(error) => return Err(roll_back(client, error).await),
        };
        let Some((waiting_id, waiting_seek)) = waiting_seek else {
            let told = notification::payloads(&self.instance, &[Change::Seeks]);
            let (stored, notified, committed) = join3(
                client.execute(
                    &statements.add_seek,
                    &[
                        &seek.name,
                        &sizes[0],
                        &sizes,
                        &color,
                        &opponent,
                        &seek.bot,
                        &self.instance,
                        &seek.terms_to_text(),
                    ],
                ),
                notify(client, &statements.notify, &told),
                client.batch_execute("COMMIT"),
            )
            .await;
            stored?;
            notified?;
            committed?;
            return Ok(None);
        };
        let game = new_game(pair(seek, waiting_seek, auth::coin));
        let told = notification::payloads(&self.instance, &[Change::Game(game.id.clone())]);
        let (taken, stored, notified, committed) = join4(
            // Locked by the read: its player's seek through another process waits for this
            // commit (and then finds it gone), rather than being taken in its place.
            client.execute(&statements.take_seek, &[&waiting_id]),
            apply(client, statements, &Write::NewGame(Box::new(game.clone())), false),
            notify(client, &statements.notify, &told),
            client.batch_execute("COMMIT"),
        )
        .await;
        taken?;
        stored?;
        notified?;
        committed?;
        Ok(Some(PairedGame { game, stored: true }))
    }

    pub async fn cancel_seek(&mut self, name: &str) -> Result<(), StoreError> {
        self.withdraw_seeks("DELETE FROM seeks WHERE player = $1", &[&name])
            .await
    }

    pub async fn withdraw_seek(&mut self, name: &str) -> Result<(), StoreError> {
        let instance = self.instance.clone();
        self.withdraw_seeks(
            "DELETE FROM seeks WHERE player = $1 AND instance = $2",
            &[&name, &instance],
        )
        .await
    }

    /// Withdraws seeks, and tells the other processes if any went.
    async fn withdraw_seeks(
        &mut self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<(), StoreError> {
        self.end_abandoned_transaction().await?;
        let client = &self.client;
        let told = notification::payloads(&self.instance, &[Change::Seeks]);
        let (begun, withdrawn) = join(client.batch_execute("BEGIN"), client.execute(sql, params)).await;
        let withdrawn = match begun
            .map_err(StoreError::from)
            .and(withdrawn.map_err(StoreError::from))
        {
            Ok(withdrawn) => withdrawn,
            Err(error) => return Err(roll_back(client, error).await),
        };
        if withdrawn > 0 {
            if let Err(error) = notify(client, &self.statements.notify, &told).await {
                return Err(roll_back(client, error).await);
            }
        }
        client.batch_execute("COMMIT").await?;
        Ok(())
    }
}

/// Notes that process `instance` is alive now.
async fn beat(client: &Client, instance: &str) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO instances (id, seen) VALUES ($1, clock_timestamp())
             ON CONFLICT (id) DO UPDATE SET seen = excluded.seen",
            &[&instance],
        )
        .await?;
    Ok(())
}

/// The processes that said they were alive within [`ALIVE_WITHIN`].
async fn alive_instances(client: &Client) -> Result<Vec<String>, StoreError> {
    let rows = client
        .query(
            &format!("SELECT id FROM instances WHERE seen >= clock_timestamp() - interval '{ALIVE_WITHIN}'"),
            &[],
        )
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

#[cfg(test)]
mod tests;
