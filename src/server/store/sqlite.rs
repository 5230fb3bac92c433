//! The SQLite backend: one file in WAL mode, one connection, used by one thread, and the seeks
//! in memory (one process serves the file, and seeks do not survive a restart).

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use super::migrations;
use super::{
    stored_result, GameNow, Outcome, PairedGame, PlayerRecord, Records, Standing, StoreError, StoredGame,
    Write,
};
use crate::auth;
use crate::lobby::{Lobby, Pairing, Seek};
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
            "SELECT name, wins, losses, bot FROM players WHERE name = ?1",
            [name],
            |row| {
                Ok(Standing {
                    name: row.get(0)?,
                    wins: row.get(1)?,
                    losses: row.get(2)?,
                    bot: row.get(3)?,
                })
            },
        )?)
    }

    fn load_game(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let row = self
            .connection
            .query_row(
                "SELECT g.id, g.size, g.black, g.white, g.komi, g.move_time_ms, g.winner, g.reason,
                        g.score_black, g.score_white, b.bot, w.bot
                 FROM games g JOIN players b ON b.name = g.black JOIN players w ON w.name = g.white
                 WHERE g.id = ?1",
                [id],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, i64>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, f64>(4)?,
                        row.get::<_, i64>(5)?,
                        row.get::<_, Option<String>>(6)?,
                        row.get::<_, Option<String>>(7)?,
                        row.get::<_, Option<u32>>(8)?,
                        row.get::<_, Option<u32>>(9)?,
                        [row.get::<_, bool>(10)?, row.get::<_, bool>(11)?],
                    ))
                },
            )
            .optional()?;
        let Some((
            id,
            size,
            black,
            white,
            komi,
            move_time_ms,
            winner,
            reason,
            score_black,
            score_white,
            bots,
        )) = row
        else {
            return Ok(None);
        };
        let corrupt = |what: &str| StoreError::Corrupt(format!("game {id}: {what}"));
        let result = stored_result(&id, komi, winner, reason, score_black, score_white)?;
        let mut statement = self
            .connection
            .prepare_cached("SELECT ply, point FROM turns WHERE game = ?1 ORDER BY ply")?;
        let mut moves = Vec::new();
        for row in statement.query_map([&id], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, Option<String>>(1)?))
        })? {
            let (ply, point) = row?;
            if ply != moves.len() as i64 {
                return Err(corrupt("turns out of sequence"));
            }
            moves.push(point);
        }
        Ok(Some(StoredGame {
            size: usize::try_from(size).map_err(|_| corrupt("size"))?,
            move_time_ms: u64::try_from(move_time_ms).map_err(|_| corrupt("move time"))?,
            id,
            black,
            white,
            bots,
            komi,
            moves,
            result,
        }))
    }
}

impl SqliteStore {
    pub fn player(&mut self, name: &str) -> Result<Option<PlayerRecord>, StoreError> {
        let row = self
            .connection
            .query_row(
                "SELECT name, token_hash, wins, losses, bot FROM players WHERE name = ?1",
                [name],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, Vec<u8>>(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                    ))
                },
            )
            .optional()?;
        row.map(|(name, hash, wins, losses, bot)| {
            let token_hash = hash
                .try_into()
                .map_err(|_| StoreError::Corrupt(format!("player {name}: token hash")))?;
            Ok(PlayerRecord {
                name,
                token_hash,
                wins,
                losses,
                bot,
            })
        })
        .transpose()
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

    pub fn game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.load_game(id)
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
                let records = match game.result {
                    Some(_) => Some(Records {
                        black: Self::standing(&self.connection, &game.black)?,
                        white: Self::standing(&self.connection, &game.white)?,
                    }),
                    None => None,
                };
                now.push(GameNow {
                    game,
                    first_ply: *first_ply,
                    remaining_ms: None,
                    records,
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

    /// One process writes this file, so a write is rejected only if it asks for a result
    /// counted already.
    pub fn commit(&mut self, writes: &[Write]) -> Result<Vec<Outcome>, StoreError> {
        let tx = self.connection.transaction()?;
        let mut outcomes = Vec::new();
        for write in writes {
            outcomes.push(match write {
                Write::NewGame(game) => {
                    tx.prepare_cached(
                        "INSERT INTO games (id, size, black, white, komi, move_time_ms, status)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'playing')",
                    )?
                    .execute(params![
                        game.id,
                        game.size as i64,
                        game.black,
                        game.white,
                        game.komi,
                        game.move_time_ms as i64
                    ])?;
                    Outcome::Done
                }
                Write::Turn { game, ply, point } => {
                    tx.prepare_cached("INSERT INTO turns (game, ply, point) VALUES (?1, ?2, ?3)")?
                        .execute(params![game, *ply as i64, point])?;
                    Outcome::Done
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
                             score_black = ?4, score_white = ?5 WHERE id = ?1 AND status = 'playing'",
                        )?
                        .execute(params![
                            game,
                            result.winner.name(),
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
                        let (black, white): (String, String) =
                            tx.query_row("SELECT black, white FROM games WHERE id = ?1", [game], |row| {
                                Ok((row.get(0)?, row.get(1)?))
                            })?;
                        let (winner, loser) = match result.winner {
                            Color::Black => (&black, &white),
                            Color::White => (&white, &black),
                        };
                        tx.prepare_cached("UPDATE players SET wins = wins + 1 WHERE name = ?1")?
                            .execute([winner])?;
                        tx.prepare_cached("UPDATE players SET losses = losses + 1 WHERE name = ?1")?
                            .execute([loser])?;
                        Outcome::Finished {
                            records: Records {
                                black: Self::standing(&tx, &black)?,
                                white: Self::standing(&tx, &white)?,
                            },
                            plies: usize::try_from(plies).unwrap_or(0),
                        }
                    }
                }
            });
        }
        tx.commit()?;
        Ok(outcomes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{EndReason, GameResult};

    fn store() -> (SqliteStore, std::path::PathBuf) {
        let path = std::env::temp_dir().join(format!(
            "gokata-store-test-{}-{:?}.sqlite3",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_file(&path);
        (SqliteStore::open(&path).unwrap(), path)
    }

    fn new_game(id: &str) -> StoredGame {
        StoredGame {
            id: id.into(),
            size: 9,
            black: "Alice".into(),
            white: "bob".into(),
            bots: [false, true],
            komi: 0.5,
            move_time_ms: 300_000,
            moves: vec![],
            result: None,
        }
    }

    #[test]
    fn names_are_unique_regardless_of_case() {
        let (mut store, path) = store();
        assert!(store.add_player("Alice", &[1; 32], false).unwrap());
        assert!(!store.add_player("alice", &[2; 32], true).unwrap());
        let alice = store.player("ALICE").unwrap().unwrap();
        assert_eq!(
            (alice.name.as_str(), alice.token_hash, alice.bot),
            ("Alice", [1; 32], false)
        );
        store.mark_bot("Alice").unwrap();
        assert!(store.player("alice").unwrap().unwrap().bot, "marked for good");
        assert_eq!(store.player("carol").unwrap(), None);
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn a_result_is_counted_once_and_survives_reopening() {
        let (mut store, path) = store();
        store.add_player("Alice", &[1; 32], false).unwrap();
        store.add_player("bob", &[2; 32], true).unwrap();
        let turn = |ply, point: Option<&str>| Write::Turn {
            game: "g1".into(),
            ply,
            point: point.map(String::from),
        };
        store
            .commit(&[Write::NewGame(new_game("g1")), turn(0, Some("5E")), turn(1, None)])
            .unwrap();
        assert_eq!(store.live_game_ids().unwrap(), vec!["g1".to_string()]);
        let now = store
            .games_now(&[("g1".into(), 1), ("nothing".into(), 0)])
            .unwrap();
        assert_eq!(now.len(), 1, "unknown games are left out");
        assert_eq!((now[0].first_ply, &now[0].game.moves), (1, &vec![None]));
        assert_eq!(now[0].game.bots, [false, true], "read from the players");
        let finish = Write::Finish {
            game: "g1".into(),
            result: GameResult {
                winner: Color::White,
                reason: EndReason::Timeout,
                score: None,
            },
            plies: 2,
        };
        let outcomes = store.commit(&[finish.clone(), finish]).unwrap();
        let Outcome::Finished { records, plies } = &outcomes[0] else {
            panic!("{outcomes:?}");
        };
        assert_eq!(*plies, 2);
        assert_eq!((records.white.wins, records.black.losses), (1, 1));
        assert_eq!((records.black.bot, records.white.bot), (false, true));
        assert_eq!(outcomes[1], Outcome::Rejected, "counted once");
        drop(store);
        let mut store = SqliteStore::open(&path).unwrap();
        assert!(store.live_game_ids().unwrap().is_empty());
        let game = store.game("g1").unwrap().unwrap();
        assert_eq!(game.result.map(|r| r.reason), Some(EndReason::Timeout));
        assert_eq!(store.player("bob").unwrap().unwrap().wins, 1);
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn a_failed_batch_commits_nothing() {
        let (mut store, path) = store();
        store.add_player("Alice", &[1; 32], false).unwrap();
        store.add_player("bob", &[2; 32], true).unwrap();
        let duplicate = Write::Turn {
            game: "g1".into(),
            ply: 0,
            point: None,
        };
        assert!(store
            .commit(&[Write::NewGame(new_game("g1")), duplicate.clone(), duplicate])
            .is_err());
        assert_eq!(store.game("g1").unwrap(), None);
        std::fs::remove_file(path).ok();
    }
}
