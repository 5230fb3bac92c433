//! The SQLite backend: one file in WAL mode, one connection, used by one thread, and the seeks
//! in memory (one process serves the file, and seeks do not survive a restart).

use std::collections::HashSet;
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use super::migrations;
use serde_json::Value;

use super::{
    last_chat_sql, scoring_to_text, settle, stored_result, stored_scoring, stored_terms, stored_undo,
    turn_time_ms, FinishedGame, GameNow, Outcome, PairedGame, PlayerRecord, Records, Standing, StoreError,
    StoredGame, UndoStep, Write,
};
use crate::auth;
use crate::game::{ChatMessage, MAX_UNDO_REQUESTS};
use crate::lobby::{Lobby, Pairing, Seek};
use crate::rating::Rating;
use crate::time_control::Clock;
use gokata_engine::Color;

/// How often the log is copied into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

pub struct SqliteStore {
    connection: Connection,
    checkpointer: Option<Checkpointer>,
    lobby: Lobby,
}

/// Copies the write-ahead log into the database on a thread and connection of its own, so that
/// the writer's commits never wait on a checkpoint (SQLite would run one inside a commit, with
/// two fsyncs, every thousand pages: the whole server waited on it).
struct Checkpointer {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    fn start(path: &Path) -> Result<Checkpointer, StoreError> {
        let connection = Connection::open(path)?;
        connection.busy_timeout(Duration::from_secs(5))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("gokata-checkpoint".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
                    // PASSIVE: copies what it can without waiting for the writer.
                    let _ = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                }
            })?;
        Ok(Checkpointer { stop, thread })
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        if let Some(checkpointer) = self.checkpointer.take() {
            drop(checkpointer.stop);
            let _ = checkpointer.thread.join();
        }
        // Closing: everything into the database file, the log emptied.
        let _ = self
            .connection
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
}

impl SqliteStore {
    /// A connection that only reads the file, for a [`crate::store::Reader`]: opened after the
    /// store, which made the file and brought its schema up to date.
    pub fn open_reader(path: &Path) -> Result<Connection, StoreError> {
        let connection = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(Duration::from_secs(5))?;
        Ok(connection)
    }

    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let connection = Connection::open(path)?;
        // WAL with synchronous=FULL: each commit is on the disk before it returns, so an
        // acknowledged turn survives a power cut as well as a killed process.
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", "ON")?;
        connection.pragma_update(None, "wal_autocheckpoint", 0)?;
        connection.busy_timeout(Duration::from_secs(5))?;
        migrations::migrate_sqlite(&connection)?;
        let checkpointer = Some(Checkpointer::start(path)?);
        Ok(SqliteStore {
            connection,
            checkpointer,
            lobby: Lobby::default(),
        })
    }

    fn standing(connection: &Connection, name: &str) -> Result<Standing, StoreError> {
        Ok(connection.query_row(
            &format!("SELECT {STANDING} FROM players WHERE name = ?1"),
            [name],
            standing_of,
        )?)
    }

    fn write_standing(connection: &Connection, standing: &Standing) -> Result<(), StoreError> {
        connection
            .prepare_cached(
                "UPDATE players SET wins = ?2, losses = ?3, rating = ?4, deviation = ?5,
                 volatility = ?6, rated_games = ?7 WHERE name = ?1",
            )?
            .execute(params![
                standing.name,
                standing.wins,
                standing.losses,
                standing.rating.rating,
                standing.rating.deviation,
                standing.rating.volatility,
                standing.rated_games
            ])?;
        Ok(())
    }

    fn load_game(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        Self::load_in(&self.connection, id)
    }

    pub(crate) fn load_in(connection: &Connection, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let row = connection
            .query_row(
                "SELECT g.id, g.size, g.black, g.white, g.komi, g.move_time_ms, g.winner, g.reason,
                        g.score_black, g.score_white, b.bot, w.bot, g.terms, g.clocks,
                        g.undo_by, g.undo_ply, g.undo_asked_black, g.undo_asked_white, g.scoring,
                        g.ratings
                 FROM games g JOIN players b ON b.name = g.black JOIN players w ON w.name = g.white
                 WHERE g.id = ?1",
                [id],
                |row| {
                    Ok(LiveRow {
                        game: GameRow::read(row)?,
                        bots: [row.get(10)?, row.get(11)?],
                        clocks: row.get("clocks")?,
                        undo: (
                            row.get("undo_by")?,
                            row.get("undo_ply")?,
                            [row.get("undo_asked_black")?, row.get("undo_asked_white")?],
                        ),
                        scoring: row.get("scoring")?,
                    })
                },
            )
            .optional()?;
        let Some(LiveRow {
            game: row,
            bots,
            clocks,
            undo,
            scoring,
        }) = row
        else {
            return Ok(None);
        };
        let id = row.id;
        let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
        let result = stored_result(&id, row.komi, row.winner, row.reason, row.score.0, row.score.1)?;
        let move_time_ms = u64::try_from(row.move_time_ms).map_err(|_| corrupt("move time"))?;
        let (terms, clocks) = stored_terms(
            &id,
            row.terms.as_deref(),
            clocks.as_deref(),
            row.komi,
            move_time_ms,
        )?;
        let undo = stored_undo(&id, undo.0, undo.1, undo.2)?;
        let scoring = stored_scoring(&id, scoring.as_deref())?;
        let ratings = row
            .ratings
            .map(|text| serde_json::from_str(&text).map_err(|_| corrupt("ratings")))
            .transpose()?;
        let mut statement =
            connection.prepare_cached("SELECT ply, point, clocks FROM turns WHERE game = ?1 ORDER BY ply")?;
        let mut moves = Vec::new();
        let mut turn_clocks = Vec::new();
        for row in statement.query_map([&id], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, Option<String>>(1)?,
                row.get::<_, Option<String>>(2)?,
            ))
        })? {
            let (ply, point, clocks) = row?;
            if ply != moves.len() as i64 {
                return Err(corrupt("turns out of sequence"));
            }
            moves.push(point);
            let clocks = clocks
                .map(|text| {
                    Clock::pair_from_text(&text).map_err(|why| corrupt(&format!("turn clocks: {why}")))
                })
                .transpose()?;
            turn_clocks.push(clocks);
        }
        let mut statement = connection.prepare_cached(&last_chat_sql())?;
        let chat = statement
            .query_map([&id], |row| {
                Ok(ChatMessage {
                    from: row.get("sender")?,
                    text: row.get("text")?,
                    ply: usize::try_from(row.get::<_, i64>("ply")?).unwrap_or(0),
                    at_ms: u64::try_from(row.get::<_, i64>("at_ms")?).unwrap_or(0),
                    watchers: row.get("watchers")?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(StoredGame {
            size: usize::try_from(row.size).map_err(|_| corrupt("size"))?,
            id,
            black: row.black,
            white: row.white,
            bots,
            terms,
            clocks,
            turn_clocks,
            undo,
            chat,
            scoring,
            ratings,
            moves,
            result,
        }))
    }

    fn ratings_of(&self, id: &str) -> Result<Option<Value>, StoreError> {
        let text: Option<String> =
            self.connection
                .query_row("SELECT ratings FROM games WHERE id = ?1", [id], |row| row.get(0))?;
        text.map(|text| {
            serde_json::from_str(&text).map_err(|_| StoreError::Corrupt(format!("game {id}: ratings")))
        })
        .transpose()
    }
}

/// The columns of a player's public record, in the order [`standing_of`] reads them.
const STANDING: &str = "name, wins, losses, bot, rating, deviation, volatility, rated_games";

fn standing_of(row: &rusqlite::Row) -> rusqlite::Result<Standing> {
    Ok(Standing {
        name: row.get("name")?,
        wins: row.get("wins")?,
        losses: row.get("losses")?,
        bot: row.get("bot")?,
        rating: Rating {
            rating: row.get("rating")?,
            deviation: row.get("deviation")?,
            volatility: row.get("volatility")?,
        },
        rated_games: row.get("rated_games")?,
    })
}

/// A `games` row as read, before it is checked.
struct GameRow {
    id: String,
    size: i64,
    black: String,
    white: String,
    komi: f64,
    move_time_ms: i64,
    winner: Option<String>,
    reason: Option<String>,
    score: (Option<u32>, Option<u32>),
    terms: Option<String>,
    ratings: Option<String>,
}

impl GameRow {
    fn read(row: &rusqlite::Row) -> rusqlite::Result<GameRow> {
        Ok(GameRow {
            id: row.get("id")?,
            size: row.get("size")?,
            black: row.get("black")?,
            white: row.get("white")?,
            komi: row.get("komi")?,
            move_time_ms: row.get("move_time_ms")?,
            winner: row.get("winner")?,
            reason: row.get("reason")?,
            score: (row.get("score_black")?, row.get("score_white")?),
            terms: row.get("terms")?,
            ratings: row.get("ratings")?,
        })
    }
}

/// A game still played: its row and what only such a game has.
struct LiveRow {
    game: GameRow,
    bots: [bool; 2],
    clocks: Option<String>,
    /// `undo_by`, `undo_ply`, and the requests of black and white.
    undo: (Option<String>, Option<i64>, [i64; 2]),
    scoring: Option<String>,
}

impl SqliteStore {
    pub fn player(&mut self, name: &str) -> Result<Option<PlayerRecord>, StoreError> {
        reads::player(&self.connection, name)
    }

    pub fn add_player(&mut self, name: &str, token_hash: &[u8; 32], bot: bool) -> Result<bool, StoreError> {
        let added = self.connection.execute(
            "INSERT INTO players (name, token_hash, bot) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            params![name, &token_hash[..], bot],
        )?;
        Ok(added == 1)
    }

    pub fn mark_bot(&mut self, name: &str) -> Result<(), StoreError> {
        self.connection
            .execute("UPDATE players SET bot = 1 WHERE name = ?1", [name])?;
        Ok(())
    }

    pub fn waiting_seeks(&mut self) -> Result<Vec<Seek>, StoreError> {
        Ok(self.lobby.waiting().to_vec())
    }

    /// The seeks waiting, which live in this process, and how many times they changed.
    pub fn local_seeks(&self) -> (u64, &[Seek]) {
        (self.lobby.changes(), self.lobby.waiting())
    }

    pub fn game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.load_game(id)
    }

    pub fn finished_games(
        &mut self,
        name: &str,
        before: Option<&str>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        reads::finished_games(&self.connection, name, before)
    }

    pub fn leaderboard(&mut self) -> Result<Vec<Standing>, StoreError> {
        reads::leaderboard(&self.connection)
    }

    /// One process writes the file: no other's messages to read.
    pub fn chat_message(&mut self, _id: i64) -> Result<Option<(String, ChatMessage)>, StoreError> {
        Ok(None)
    }

    pub fn live_games_of(&mut self, names: &[String]) -> Result<Vec<String>, StoreError> {
        let mut ids = Vec::new();
        let mut statement = self
            .connection
            .prepare_cached("SELECT id FROM games WHERE status = 'playing' AND (black = ?1 OR white = ?1)")?;
        for name in names {
            let rows = statement.query_map([name], |row| row.get(0))?;
            for id in rows {
                ids.push(id?);
            }
        }
        Ok(ids)
    }

    pub fn live_game_ids(&mut self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .connection
            .prepare("SELECT id FROM games WHERE status = 'playing' ORDER BY rowid")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?)
    }

    /// The clock is the process's own: no remaining time is read.
    pub fn games_now(&mut self, games: &[(String, usize)]) -> Result<Vec<GameNow>, StoreError> {
        let mut now = Vec::new();
        for (id, first_ply) in games {
            if let Some(mut game) = self.load_game(id)? {
                game.moves.drain(..(*first_ply).min(game.moves.len()));
                game.turn_clocks.drain(..(*first_ply).min(game.turn_clocks.len()));
                let records = match game.result {
                    Some(_) => Some(Records {
                        black: Self::standing(&self.connection, &game.black)?,
                        white: Self::standing(&self.connection, &game.white)?,
                    }),
                    None => None,
                };
                let ratings = match game.result {
                    Some(_) => self.ratings_of(id)?,
                    None => None,
                };
                now.push(GameNow {
                    game,
                    first_ply: *first_ply,
                    remaining_ms: None,
                    records,
                    ratings,
                    stored_plies: None,
                });
            }
        }
        Ok(now)
    }

    pub fn pair(
        &mut self,
        seek: Seek,
        new_game: impl FnOnce(Pairing) -> StoredGame,
    ) -> Result<Option<PairedGame>, StoreError> {
        Ok(self.lobby.seek(seek, auth::coin).map(|pairing| PairedGame {
            game: new_game(pairing),
            stored: false,
        }))
    }

    pub fn cancel_seek(&mut self, name: &str) -> Result<(), StoreError> {
        self.lobby.cancel(name);
        Ok(())
    }

    pub fn withdraw_seek(&mut self, name: &str) -> Result<(), StoreError> {
        self.cancel_seek(name)
    }

    /// One process writes this file, so a write is rejected only if the hub asks what the game
    /// no longer allows (a result counted already, an undo or scoring step out of date), and
    /// then so are the game's later writes in the batch.
    pub fn commit(&mut self, writes: &[Write]) -> Result<Vec<Outcome>, StoreError> {
        let tx = self.connection.transaction()?;
        let mut outcomes = Vec::new();
        // Each write of a game was made on top of the one before: once one is rejected, so are
        // the game's later ones but chats, which condition nothing.
        let mut rejected: HashSet<&str> = HashSet::new();
        for write in writes {
            if rejected.contains(write.game()) && !matches!(write, Write::Chat { .. }) {
                outcomes.push(Outcome::Rejected);
                continue;
            }
            let outcome = match write {
                Write::NewGame(game) => {
                    tx.prepare_cached(
                        "INSERT INTO games (id, size, black, white, komi, move_time_ms, status, terms, clocks)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'playing', ?7, ?8)",
                    )?
                    .execute(params![
                        game.id,
                        game.size as i64,
                        game.black,
                        game.white,
                        game.terms.komi,
                        turn_time_ms(game) as i64,
                        game.terms.to_json(),
                        Clock::pair_to_text(&game.clocks),
                    ])?;
                    Outcome::Done
                }
                Write::Turn {
                    game,
                    ply,
                    point,
                    clocks,
                    turn_ms,
                } => {
                    let clocks = Clock::pair_to_text(clocks);
                    tx.prepare_cached(
                        "INSERT INTO turns (game, ply, point, clocks) VALUES (?1, ?2, ?3, ?4)",
                    )?
                    .execute(params![game, *ply as i64, point, clocks])?;
                    // A turn declines an undo request still waiting.
                    tx.prepare_cached(
                        "UPDATE games SET clocks = ?2, move_time_ms = ?3, undo_by = NULL, undo_ply = NULL
                         WHERE id = ?1",
                    )?
                    .execute(params![game, clocks, *turn_ms as i64])?;
                    Outcome::Done
                }
                Write::Scoring {
                    game,
                    plies,
                    scoring,
                    turn_ms,
                    seen,
                } => {
                    let changed = tx
                        .prepare_cached(
                            "UPDATE games SET scoring = ?3, move_time_ms = ?4
                             WHERE id = ?1 AND status = 'playing' AND scoring IS ?5
                               AND (SELECT count(*) FROM turns WHERE game = ?1) = ?2",
                        )?
                        .execute(params![
                            game,
                            *plies as i64,
                            scoring.as_ref().map(scoring_to_text),
                            *turn_ms as i64,
                            seen.as_ref().map(scoring_to_text)
                        ])?;
                    if changed == 0 {
                        Outcome::Rejected
                    } else {
                        Outcome::Done
                    }
                }
                Write::Chat { game, message } => {
                    tx.prepare_cached(
                        "INSERT INTO chat (game, ply, sender, text, at_ms, watchers)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    )?
                    .execute(params![
                        game,
                        message.ply as i64,
                        message.from,
                        message.text,
                        message.at_ms as i64,
                        message.watchers
                    ])?;
                    Outcome::Chatted(tx.last_insert_rowid())
                }
                Write::Undo { game, plies, step } => {
                    let plies = *plies as i64;
                    let changed = match step {
                        UndoStep::Ask(by) => tx
                            .prepare_cached(&format!(
                                "UPDATE games SET undo_by = ?3, undo_ply = ?2,
                                     undo_asked_{by} = undo_asked_{by} + 1
                                 WHERE id = ?1 AND status = 'playing' AND undo_by IS NULL
                                   AND undo_asked_{by} < {MAX_UNDO_REQUESTS}
                                   AND (SELECT count(*) FROM turns WHERE game = ?1) = ?2"
                            ))?
                            .execute(params![game, plies, by.name()])?,
                        UndoStep::Decline => tx
                            .prepare_cached(
                                "UPDATE games SET undo_by = NULL, undo_ply = NULL
                                 WHERE id = ?1 AND status = 'playing' AND undo_ply = ?2",
                            )?
                            .execute(params![game, plies])?,
                        UndoStep::Accept { clocks, turn_ms } => {
                            let changed = tx
                                .prepare_cached(
                                    "UPDATE games SET undo_by = NULL, undo_ply = NULL, clocks = ?3,
                                         move_time_ms = ?4
                                     WHERE id = ?1 AND status = 'playing' AND undo_ply = ?2",
                                )?
                                .execute(params![
                                    game,
                                    plies,
                                    Clock::pair_to_text(clocks),
                                    *turn_ms as i64
                                ])?;
                            if changed > 0 {
                                tx.prepare_cached("DELETE FROM turns WHERE game = ?1 AND ply = ?2")?
                                    .execute(params![game, plies - 1])?;
                            }
                            changed
                        }
                    };
                    if changed == 0 {
                        Outcome::Rejected
                    } else {
                        Outcome::Done
                    }
                }
                Write::Finish { game, result, .. } => {
                    let (score_black, score_white) = match result.score {
                        Some(score) => (Some(score.black), Some(score.white)),
                        None => (None, None),
                    };
                    // Only a game still playing can finish: a result is counted once.
                    let changed = tx
                        .prepare_cached(
                            "UPDATE games SET status = 'over', winner = ?2, reason = ?3,
                             score_black = ?4, score_white = ?5, scoring = NULL
                             WHERE id = ?1 AND status = 'playing'",
                        )?
                        .execute(params![
                            game,
                            result.winner.map(Color::name),
                            result.reason.name(),
                            score_black,
                            score_white
                        ])?;
                    if changed == 0 {
                        Outcome::Rejected
                    } else {
                        let plies: i64 =
                            tx.query_row("SELECT count(*) FROM turns WHERE game = ?1", [game], |row| {
                                row.get(0)
                            })?;
                        let stored = Self::load_in(&tx, game)?
                            .ok_or_else(|| StoreError::Corrupt(format!("game {game} vanished")))?;
                        let (records, ratings) = settle(
                            result,
                            &stored.terms,
                            stored.size,
                            Self::standing(&tx, &stored.black)?,
                            Self::standing(&tx, &stored.white)?,
                        );
                        Self::write_standing(&tx, &records.black)?;
                        Self::write_standing(&tx, &records.white)?;
                        if let Some(ratings) = &ratings {
                            tx.prepare_cached("UPDATE games SET ratings = ?2 WHERE id = ?1")?
                                .execute(params![game, ratings.to_string()])?;
                        }
                        Outcome::Finished {
                            records,
                            plies: usize::try_from(plies).unwrap_or(0),
                            ratings,
                        }
                    }
                }
            };
            if outcome == Outcome::Rejected {
                rejected.insert(write.game());
            }
            outcomes.push(outcome);
        }
        tx.commit()?;
        Ok(outcomes)
    }
}

pub(crate) mod reads;
#[cfg(test)]
mod tests;
