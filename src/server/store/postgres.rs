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

use std::collections::{HashMap, HashSet};
use std::future::poll_fn;
use std::str::FromStr;
use std::time::Duration;

use futures_util::future::{join, join4, join5, join_all};
use tokio::sync::mpsc;
use tokio_postgres::config::Host;
use tokio_postgres::error::SqlState;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls, Row, Statement};

use super::migrations;
use super::notification::{self, Change, Remote};
use super::{
    stored_result, GameNow, Outcome, PairedGame, PlayerRecord, Records, Standing, StoreError, StoredGame,
    Write,
};
use crate::auth;
use crate::lobby::{pair, Pairing, Seek};
use crate::protocol::{Opponent, SeekColor};
use gokata_engine::Color;

/// The channel every process listens on.
const CHANNEL: &str = "gokata";
/// A process not seen for this long is taken for dead: its seeks are withdrawn, and if no
/// process is alive when one starts, the clocks start afresh.
const ALIVE_WITHIN: &str = "3 seconds";
/// How often a process says it is alive: well within `ALIVE_WITHIN`.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// The time left to every player to move after the database was away.
const GRACE: Duration = Duration::from_secs(30);

/// Whether `--db` names a PostgreSQL database rather than an SQLite file: a URL
/// (`postgresql://`, `postgres://`) or libpq's `key=value` form.
pub fn is_postgres_address(address: &str) -> bool {
    let address = address.trim_start();
    address.starts_with("postgresql://")
        || address.starts_with("postgres://")
        || address
            .split_whitespace()
            .next()
            .and_then(|word| word.split_once('='))
            .is_some_and(|(key, _)| {
                !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
}

/// Parses a database address, naming what is wrong with it.
pub fn parse_address(address: &str) -> Result<Config, String> {
    let mut config = Config::from_str(address).map_err(|error| format!("{error}"))?;
    if config.get_application_name().is_none() {
        config.application_name("gokata serve");
    }
    config.connect_timeout(Duration::from_secs(5));
    // A database gone without a word (its machine, the network) is noticed in seconds.
    config.keepalives_idle(Duration::from_secs(5));
    config.keepalives_interval(Duration::from_secs(2));
    config.keepalives_retries(3);
    config.tcp_user_timeout(Duration::from_secs(15));
    Ok(config)
}

struct Statements {
    lock_sizes: Statement,
    withdraw_seek: Statement,
    withdraw_dead_seeks: Statement,
    oldest_fitting_seek: Statement,
    add_seek: Statement,
    take_seek: Statement,
    turns: Statement,
    finish: Statement,
    new_game: Statement,
    notify: Statement,
}

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
        let row = self
            .client
            .query_opt(
                "SELECT name, token_hash, wins, losses, bot FROM players WHERE lower(name) = lower($1)",
                &[&name],
            )
            .await?;
        row.map(|row| {
            let name: String = row.get(0);
            let token_hash = row
                .get::<_, Vec<u8>>(1)
                .try_into()
                .map_err(|_| StoreError::Corrupt(format!("player {name}: token hash")))?;
            Ok(PlayerRecord {
                token_hash,
                wins: count(&row, 2)?,
                losses: count(&row, 3)?,
                bot: row.get(4),
                name,
            })
        })
        .transpose()
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
        let rows = self
            .client
            .query(
                &format!(
                    "SELECT id, player, color, coalesce(sizes, ARRAY[size]), opponent, bot FROM seeks
                     WHERE instance IN (
                         SELECT id FROM instances WHERE seen >= clock_timestamp() - interval '{ALIVE_WITHIN}')
                     ORDER BY id"
                ),
                &[],
            )
            .await?;
        rows.iter()
            .map(|row| seek_of(row).map(|(_, seek)| seek))
            .collect()
    }

    pub async fn game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let now = self.games_now(&[(id.to_string(), 0)]).await?;
        Ok(now.into_iter().next().map(|now| now.game))
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
        let mut firsts_by_id: HashMap<&str, usize> = HashMap::new();
        for (id, first) in games {
            let earliest = firsts_by_id.entry(id.as_str()).or_insert(*first);
            *earliest = (*earliest).min(*first);
        }
        let (ids, firsts): (Vec<&str>, Vec<i32>) = firsts_by_id
            .into_iter()
            .map(|(id, first)| (id, i32::try_from(first).unwrap_or(i32::MAX)))
            .unzip();
        let rows = self
            .client
            .query(
                "SELECT g.id, g.size, g.black, g.white, g.komi, g.move_time_ms, g.winner, g.reason,
                        g.score_black, g.score_white, k.first,
                        greatest(0, ceil(extract(epoch FROM g.deadline - clock_timestamp()) * 1000))::int8,
                        t.ply, t.point, b.wins, b.losses, w.wins, w.losses, b.bot, w.bot
                 FROM unnest($1::text[], $2::int4[]) AS k(id, first)
                 JOIN games g ON g.id = k.id
                 JOIN players b ON b.name = g.black
                 JOIN players w ON w.name = g.white
                 LEFT JOIN turns t ON t.game = g.id AND t.ply >= k.first
                 ORDER BY g.id, t.ply",
                &[&ids, &firsts],
            )
            .await?;
        let mut now: Vec<GameNow> = Vec::new();
        for row in rows {
            let id: String = row.get(0);
            if now.last().is_none_or(|last| last.game.id != id) {
                now.push(game_now(&row)?);
            }
            let current = now.last_mut().expect("pushed above");
            if let Some(ply) = row.get::<_, Option<i32>>(12) {
                if usize::try_from(ply).ok() != Some(current.first_ply + current.game.moves.len()) {
                    return Err(StoreError::Corrupt(format!("game {id}: turns out of sequence")));
                }
                current.game.moves.push(row.get(13));
            }
        }
        Ok(now)
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
            client.query_opt(
                &statements.oldest_fitting_seek,
                &[&sizes, &color, &opponent, &seek.bot],
            ),
        )
        .await;
        let read = || -> Result<Option<(i64, Seek)>, StoreError> {
            begun?;
            locked?;
            own_withdrawn?;
            dead_withdrawn?;
            waiting?.as_ref().map(seek_of).transpose()
        };
        let waiting_seek = match read() {
            Ok(waiting_seek) => waiting_seek,
            Err(error) => return Err(roll_back(client, error).await),
        };
        let Some((waiting_id, waiting_seek)) = waiting_seek else {
            let (stored, committed) = join(
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
                    ],
                ),
                client.batch_execute("COMMIT"),
            )
            .await;
            stored?;
            committed?;
            return Ok(None);
        };
        let game = new_game(pair(seek, waiting_seek, auth::coin));
        let told = notification::payloads(&self.instance, &[Change::Game(game.id.clone())]);
        let (taken, stored, notified, committed) = join4(
            // Locked by the read: its player's seek through another process waits for this
            // commit (and then finds it gone), rather than being taken in its place.
            client.execute(&statements.take_seek, &[&waiting_id]),
            apply(client, statements, &Write::NewGame(game.clone()), false),
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
        self.client
            .execute("DELETE FROM seeks WHERE player = $1", &[&name])
            .await?;
        Ok(())
    }

    pub async fn withdraw_seek(&mut self, name: &str) -> Result<(), StoreError> {
        self.client
            .execute(
                "DELETE FROM seeks WHERE player = $1 AND instance = $2",
                &[&name, &self.instance],
            )
            .await?;
        Ok(())
    }
}

/// Ends the transaction open on `client` after `error`, which it returns.
async fn roll_back(client: &Client, error: StoreError) -> StoreError {
    // A failed statement leaves the transaction aborted, still to be ended; a lost connection
    // ended it already, and then this fails without harm.
    let _ = client.batch_execute("ROLLBACK").await;
    error
}

/// Sends the payloads, in one statement, in the transaction: delivered once it commits.
async fn notify(client: &Client, statement: &Statement, payloads: &[String]) -> Result<(), StoreError> {
    if !payloads.is_empty() {
        client.execute(statement, &[&payloads]).await?;
    }
    Ok(())
}

/// The indices of `writes` in rounds: each game's first write in the first, its second in the
/// second, and so on; each round in the order of the games.
fn rounds(writes: &[Write]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..writes.len()).collect();
    order.sort_by(|&a, &b| writes[a].game().cmp(writes[b].game()));
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    let mut round = 0;
    for (at, &index) in order.iter().enumerate() {
        let same_game = at > 0 && writes[order[at - 1]].game() == writes[index].game();
        round = if same_game { round + 1 } else { 0 };
        if rounds.len() == round {
            rounds.push(Vec::new());
        }
        rounds[round].push(index);
    }
    rounds
}

/// One round's writes, sent at once; their outcomes, in the order of `indices`. `chained`: each
/// game was written in an earlier round, which must have applied.
async fn commit_round(
    client: &Client,
    statements: &Statements,
    writes: &[Write],
    indices: &[usize],
    chained: bool,
) -> Result<Vec<Outcome>, StoreError> {
    let (turns, others): (Vec<usize>, Vec<usize>) = indices
        .iter()
        .partition(|&&index| matches!(writes[index], Write::Turn { .. }));
    let turns_applied = apply_turns(client, &statements.turns, writes, &turns, chained);
    let others_applied = join_all(
        others
            .iter()
            .map(|&index| apply(client, statements, &writes[index], chained)),
    );
    let (turns_applied, others_applied) = join(turns_applied, others_applied).await;
    let turns_applied = turns_applied?;
    let mut others_applied = others.iter().zip(others_applied);
    let mut outcomes = Vec::with_capacity(indices.len());
    for &index in indices {
        outcomes.push(match &writes[index] {
            Write::Turn { game, .. } if turns_applied.contains(game.as_str()) => Outcome::Done,
            Write::Turn { .. } => Outcome::Rejected,
            _ => {
                let (_, outcome) = others_applied.next().expect("one outcome per other write");
                outcome?
            }
        });
    }
    Ok(outcomes)
}

/// Turns of distinct games in one statement; the games whose turn applied.
async fn apply_turns(
    client: &Client,
    statement: &Statement,
    writes: &[Write],
    turns: &[usize],
    chained: bool,
) -> Result<HashSet<String>, StoreError> {
    if turns.is_empty() {
        return Ok(HashSet::new());
    }
    let mut games = Vec::with_capacity(turns.len());
    let mut plies = Vec::with_capacity(turns.len());
    let mut points = Vec::with_capacity(turns.len());
    for &index in turns {
        if let Write::Turn { game, ply, point } = &writes[index] {
            games.push(game.as_str());
            plies.push(i32::try_from(*ply).unwrap_or(i32::MAX));
            points.push(point.as_deref());
        }
    }
    let rows = client
        .query(statement, &[&games, &plies, &points, &chained])
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// What the applied writes changed, in their order, for the other processes.
fn changes(writes: &[Write], outcomes: &[Outcome]) -> Vec<Change> {
    writes
        .iter()
        .zip(outcomes)
        .filter(|(_, outcome)| **outcome != Outcome::Rejected)
        .map(|(write, _)| match write {
            Write::Turn { game, ply, point } => Change::Turn {
                game: game.clone(),
                ply: *ply,
                point: point.clone(),
            },
            write => Change::Game(write.game().to_string()),
        })
        .collect()
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

async fn connect(config: &Config) -> Result<Client, StoreError> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|source| StoreError::Connect {
            address: targets(config),
            source,
        })?;
    tokio::spawn(async move {
        // Ends when the connection does; the next call on the client then fails, and the hub
        // reconnects.
        let _ = connection.await;
    });
    // Acknowledged means durable, whatever the database's default. No statement, lock wait or
    // open transaction may hold a process (or, if the process died, other processes' rows)
    // for long.
    client
        .batch_execute(
            "SET synchronous_commit = on; SET statement_timeout = '15s'; SET lock_timeout = '10s';
             SET idle_in_transaction_session_timeout = '15s'",
        )
        .await?;
    Ok(client)
}

/// Where `config` connects, as messages name it: `HOST:PORT` for each host tried (its
/// `hostaddr` if it has one, a socket's directory for a Unix socket), as tokio-postgres pairs
/// hosts and ports (one port for all, one for each, or 5432).
fn targets(config: &Config) -> String {
    let (hosts, addresses, ports) = (config.get_hosts(), config.get_hostaddrs(), config.get_ports());
    let count = hosts.len().max(addresses.len());
    if count == 0 {
        return "no host (give a host or hostaddr)".into();
    }
    (0..count)
        .map(|i| {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            let host = match (addresses.get(i), hosts.get(i)) {
                (Some(address), _) => address.to_string(),
                (None, Some(Host::Tcp(name))) => name.clone(),
                #[cfg(unix)]
                (None, Some(Host::Unix(directory))) => directory.display().to_string(),
                (None, None) => unreachable!("the count is that of the longer list"),
            };
            if host.contains(':') && !host.starts_with('/') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The writes test a game's status with `<> 'over'` (the only other value), not `= 'playing'`:
/// that would let the planner scan the partial index of live games, whose size it guesses at
/// 0.5% of the table until the table is analyzed, and a plan cached on that guess would walk
/// every live game for each turn of a batch.
async fn prepare(client: &Client) -> Result<Statements, StoreError> {
    Ok(Statements {
        lock_sizes: client
            .prepare("SELECT size FROM seek_sizes WHERE size = ANY($1::int4[]) ORDER BY size FOR UPDATE")
            .await?,
        withdraw_seek: client.prepare("DELETE FROM seeks WHERE player = $1").await?,
        withdraw_dead_seeks: client
            .prepare(&format!(
                "DELETE FROM seeks WHERE coalesce(sizes, ARRAY[size]) && $1::int4[] AND instance NOT IN (
                     SELECT id FROM instances WHERE seen >= clock_timestamp() - interval '{ALIVE_WITHIN}')"
            ))
            .await?,
        oldest_fitting_seek: client
            .prepare(
                "SELECT id, player, color, coalesce(sizes, ARRAY[size]), opponent, bot FROM seeks
                 WHERE coalesce(sizes, ARRAY[size]) && $1::int4[]
                   AND ($2 = 'any' OR color = 'any' OR color <> $2)
                   AND CASE $3 WHEN 'human' THEN NOT bot WHEN 'computer' THEN bot ELSE true END
                   AND CASE opponent WHEN 'human' THEN NOT $4 WHEN 'computer' THEN $4 ELSE true END
                 ORDER BY id LIMIT 1 FOR UPDATE",
            )
            .await?,
        add_seek: client
            .prepare(
                "INSERT INTO seeks (player, size, sizes, color, opponent, bot, instance)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .await?,
        take_seek: client.prepare("DELETE FROM seeks WHERE id = $1").await?,
        turns: client
            .prepare(
                "WITH claimed AS (
                     UPDATE games g SET plies = g.plies + 1, written_by = pg_current_xact_id(),
                         deadline = clock_timestamp() + g.move_time_ms::float8 * interval '1 millisecond'
                     FROM unnest($1::text[], $2::int4[], $3::text[]) AS k(id, ply, point)
                     WHERE g.id = k.id AND g.plies = k.ply AND g.status <> 'over'
                       AND g.deadline > clock_timestamp()
                       AND (NOT $4::bool OR g.written_by = pg_current_xact_id())
                     RETURNING g.id, k.ply, k.point)
                 INSERT INTO turns (game, ply, point) SELECT id, ply, point FROM claimed
                 RETURNING game",
            )
            .await?,
        finish: client
            .prepare(
                "WITH ended AS (
                     UPDATE games SET status = 'over', winner = $2, reason = $3, score_black = $4,
                         score_white = $5, written_by = pg_current_xact_id()
                     WHERE id = $1 AND status <> 'over'
                       AND (NOT $6::bool OR written_by = pg_current_xact_id())
                       AND ($3 <> 'timeout' OR (plies = $7 AND deadline <= clock_timestamp()))
                     RETURNING black, white, plies),
                 won AS (
                     UPDATE players SET wins = wins + 1 FROM ended
                     WHERE players.name = CASE WHEN $2 = 'black' THEN ended.black ELSE ended.white END
                     RETURNING players.name, players.wins, players.losses, players.bot),
                 lost AS (
                     UPDATE players SET losses = losses + 1 FROM ended
                     WHERE players.name = CASE WHEN $2 = 'black' THEN ended.white ELSE ended.black END
                     RETURNING players.name, players.wins, players.losses, players.bot)
                 SELECT won.name, won.wins, won.losses, won.bot, lost.name, lost.wins, lost.losses, lost.bot,
                        ended.plies
                 FROM won, lost, ended",
            )
            .await?,
        new_game: client
            .prepare(
                "INSERT INTO games (id, size, black, white, komi, move_time_ms, status, deadline)
                 VALUES ($1, $2, $3, $4, $5, $6, 'playing',
                         clock_timestamp() + $6::int8::float8 * interval '1 millisecond')",
            )
            .await?,
        notify: client
            .prepare(&format!(
                "SELECT pg_notify('{CHANNEL}', payload) FROM unnest($1::text[]) AS payload"
            ))
            .await?,
    })
}

/// One write, conditional on the game as its writer saw it; `chained` when an earlier write of
/// the same batch touched the game, which must then have applied.
async fn apply(
    client: &Client,
    statements: &Statements,
    write: &Write,
    chained: bool,
) -> Result<Outcome, StoreError> {
    match write {
        Write::NewGame(game) => {
            let size = i32::try_from(game.size).unwrap_or(0);
            let move_time = i64::try_from(game.move_time_ms).unwrap_or(i64::MAX);
            client
                .execute(
                    &statements.new_game,
                    &[&game.id, &size, &game.black, &game.white, &game.komi, &move_time],
                )
                .await?;
            Ok(Outcome::Done)
        }
        Write::Turn { game, .. } => {
            let applied = apply_turns(
                client,
                &statements.turns,
                std::slice::from_ref(write),
                &[0],
                chained,
            )
            .await?;
            Ok(if applied.contains(game.as_str()) {
                Outcome::Done
            } else {
                Outcome::Rejected
            })
        }
        Write::Finish { game, result, plies } => {
            let (score_black, score_white) = match result.score {
                Some(score) => (i32::try_from(score.black).ok(), i32::try_from(score.white).ok()),
                None => (None, None),
            };
            let plies = i32::try_from(*plies).unwrap_or(i32::MAX);
            let rows = client
                .query(
                    &statements.finish,
                    &[
                        game,
                        &result.winner.name(),
                        &result.reason.name(),
                        &score_black,
                        &score_white,
                        &chained,
                        &plies,
                    ],
                )
                .await?;
            let Some(row) = rows.first() else {
                return Ok(Outcome::Rejected);
            };
            let standing = |at: usize| -> Result<Standing, StoreError> {
                Ok(Standing {
                    name: row.get(at),
                    wins: count(row, at + 1)?,
                    losses: count(row, at + 2)?,
                    bot: row.get(at + 3),
                })
            };
            let (winner, loser) = (standing(0)?, standing(4)?);
            let (black, white) = match result.winner {
                Color::Black => (winner, loser),
                Color::White => (loser, winner),
            };
            let plies = usize::try_from(row.get::<_, i32>(8))
                .map_err(|_| StoreError::Corrupt(format!("game {game}: a negative turn count")))?;
            Ok(Outcome::Finished {
                records: Records { black, white },
                plies,
            })
        }
    }
}

/// A seek and its id from a row of `id, player, color, sizes, opponent, bot`.
fn seek_of(row: &Row) -> Result<(i64, Seek), StoreError> {
    let name: String = row.get(1);
    let corrupt = |what: String| StoreError::Corrupt(format!("the seek of {name}: {what}"));
    let color: String = row.get(2);
    let opponent: String = row.get(4);
    let sizes = row
        .get::<_, Vec<i32>>(3)
        .into_iter()
        .map(|size| usize::try_from(size).map_err(|_| corrupt(format!("size {size}"))))
        .collect::<Result<Vec<usize>, StoreError>>()?;
    if sizes.is_empty() {
        return Err(corrupt("no size".into()));
    }
    let seek = Seek {
        color: SeekColor::from_name(&color).ok_or_else(|| corrupt(format!("colour {color:?}")))?,
        opponent: Opponent::from_name(&opponent).ok_or_else(|| corrupt(format!("opponent {opponent:?}")))?,
        bot: row.get(5),
        sizes,
        name,
    };
    Ok((row.get(0), seek))
}

fn game_now(row: &Row) -> Result<GameNow, StoreError> {
    let id: String = row.get(0);
    let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
    let komi: f64 = row.get(4);
    let result = stored_result(
        &id,
        komi,
        row.get(6),
        row.get(7),
        row.get::<_, Option<i32>>(8).and_then(|n| u32::try_from(n).ok()),
        row.get::<_, Option<i32>>(9).and_then(|n| u32::try_from(n).ok()),
    )?;
    let (black, white): (String, String) = (row.get(2), row.get(3));
    let bots: [bool; 2] = [row.get(18), row.get(19)];
    let records = match result {
        Some(_) => Some(Records {
            black: Standing {
                wins: count(row, 14)?,
                losses: count(row, 15)?,
                name: black.clone(),
                bot: bots[0],
            },
            white: Standing {
                wins: count(row, 16)?,
                losses: count(row, 17)?,
                name: white.clone(),
                bot: bots[1],
            },
        }),
        None => None,
    };
    Ok(GameNow {
        first_ply: usize::try_from(row.get::<_, i32>(10)).map_err(|_| corrupt("ply"))?,
        remaining_ms: Some(u64::try_from(row.get::<_, i64>(11)).unwrap_or(0)),
        records,
        game: StoredGame {
            size: usize::try_from(row.get::<_, i32>(1)).map_err(|_| corrupt("size"))?,
            black,
            white,
            bots,
            komi,
            move_time_ms: u64::try_from(row.get::<_, i64>(5)).map_err(|_| corrupt("move time"))?,
            moves: Vec::new(),
            result,
            id,
        },
    })
}

/// A deadlock broken, or a serialization failure: the transaction was aborted whole.
fn is_retryable(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&SqlState::T_R_DEADLOCK_DETECTED)
        || error.code() == Some(&SqlState::T_R_SERIALIZATION_FAILURE)
}

fn count(row: &Row, at: usize) -> Result<u32, StoreError> {
    u32::try_from(row.get::<_, i32>(at)).map_err(|_| StoreError::Corrupt("a negative count".into()))
}

/// Listens for the other processes' notifications on a connection of its own, polled for them
/// (a pooled connection would drop them), and reconnects when it is lost.
pub struct Listener {
    config: Config,
    instance: String,
}

impl Listener {
    /// Sends what changed until `changes` closes. After each (re)connection it sends
    /// [`Remote::Listening`]: what was notified while it was not listening is lost.
    pub async fn run(self, changes: mpsc::Sender<Remote>) {
        let mut wait = Duration::from_millis(50);
        while !changes.is_closed() {
            if self.listen(&changes).await {
                wait = Duration::from_millis(50);
            } else {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
        }
    }

    /// One connection's life; whether it got as far as listening.
    async fn listen(&self, changes: &mpsc::Sender<Remote>) -> bool {
        let Ok((client, mut connection)) = self.config.connect(NoTls).await else {
            return false;
        };
        let (notifications, mut received) = mpsc::unbounded_channel();
        let driver = tokio::spawn(async move {
            while let Some(Ok(message)) = poll_fn(|cx| connection.poll_message(cx)).await {
                if let AsyncMessage::Notification(notification) = message {
                    if notifications.send(notification.payload().to_string()).is_err() {
                        break;
                    }
                }
            }
        });
        if client.batch_execute(&format!("LISTEN {CHANNEL}")).await.is_err() {
            driver.abort();
            return false;
        }
        if changes.send(Remote::Listening).await.is_err() {
            driver.abort();
            return true;
        }
        // This connection also says the process is alive, however long the hub's batches take.
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        loop {
            let payload = tokio::select! {
                payload = received.recv() => payload,
                _ = heartbeat.tick() => {
                    if beat(&client, &self.instance).await.is_err() {
                        break;
                    }
                    let Ok(alive) = alive_instances(&client).await else {
                        break;
                    };
                    if changes.send(Remote::Alive(alive)).await.is_err() {
                        break;
                    }
                    continue;
                }
            };
            let Some(payload) = payload else {
                break;
            };
            let Some(remote) = self.parse(&payload) else {
                continue;
            };
            if changes.send(remote).await.is_err() {
                break;
            }
        }
        driver.abort();
        drop(client);
        true
    }

    /// `None` for this process's own notifications.
    fn parse(&self, payload: &str) -> Option<Remote> {
        let (instance, remote) = notification::parse(payload);
        (instance != self.instance).then_some(remote)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_told_from_file_names() {
        for address in [
            "postgresql://gokata@127.0.0.1:5432/gokata",
            "postgres://localhost/db",
            "host=/tmp/sockets port=5433 dbname=gokata user=postgres",
            "  dbname=gokata",
        ] {
            assert!(is_postgres_address(address), "{address}");
        }
        for path in [
            "gokata.sqlite3",
            "/var/lib/gokata/games.db",
            "./postgres",
            "a b=c",
            "=x",
        ] {
            assert!(!is_postgres_address(path), "{path}");
        }
    }

    #[test]
    fn a_connection_refused_says_so_and_names_the_address_tried() {
        // Nothing listens on port 1 of the loopback: the connection is refused at once.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let error = match runtime.block_on(PostgresStore::open("postgresql://nobody@127.0.0.1:1/nodb")) {
            Err(error) => error,
            Ok(_) => panic!("something answered on 127.0.0.1:1"),
        };
        assert!(error.is_connection_lost());
        let message = error.to_string();
        assert!(
            message.starts_with(
                "PostgreSQL: cannot connect to 127.0.0.1:1: error connecting to server: Connection refused"
            ),
            "{message}"
        );
    }

    #[test]
    fn the_addresses_tried_pair_hosts_and_ports_as_tokio_postgres_does() {
        let targets = |address: &str| targets(&parse_address(address).unwrap());
        assert_eq!(targets("postgresql://u@db.example:5433/x"), "db.example:5433");
        assert_eq!(targets("postgresql://u@db.example/x"), "db.example:5432");
        assert_eq!(targets("host=a,b port=1 dbname=x"), "a:1, b:1");
        assert_eq!(targets("host=a,b port=1,2 dbname=x"), "a:1, b:2");
        assert_eq!(targets("host=/run/postgresql dbname=x"), "/run/postgresql:5432");
        assert_eq!(targets("hostaddr=::1 port=7 dbname=x"), "[::1]:7");
        assert_eq!(targets("dbname=x"), "no host (give a host or hostaddr)");
    }

    #[test]
    fn a_batch_goes_in_rounds_of_distinct_games_in_order() {
        let turn = |game: &str, ply| Write::Turn {
            game: game.into(),
            ply,
            point: None,
        };
        let writes = [
            turn("b", 4),
            turn("a", 0),
            turn("b", 5),
            turn("c", 9),
            turn("b", 6),
            turn("a", 1),
        ];
        assert_eq!(rounds(&writes), vec![vec![1, 0, 3], vec![5, 2], vec![4]]);
        assert!(rounds(&[]).is_empty());
    }

    #[test]
    fn the_listener_skips_its_own_notifications() {
        let listener = Listener {
            config: Config::new(),
            instance: "me".into(),
        };
        assert_eq!(listener.parse("me g:a t:b:0:5E"), None);
        assert_eq!(
            listener.parse("other g:a"),
            Some(Remote::Changes {
                from: "other".into(),
                changes: vec![Change::Game("a".into())]
            })
        );
    }
}
