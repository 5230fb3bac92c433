//! The schema, as numbered migrations the server applies itself: migration `n` (from 1) takes
//! a database from version `n - 1` to `n`. Append new ones; never edit one that has shipped.

use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};
use tokio_postgres::error::SqlState;
use tokio_postgres::Client;

use super::StoreError;

/// SQLite keeps its version in `PRAGMA user_version`. Migration 1 is written so that files made
/// before versions existed (the same tables, version 0) take it as it is.
pub(super) const SQLITE: &[&str] = &[
    "
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    token_hash BLOB NOT NULL,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    black TEXT NOT NULL REFERENCES players(name),
    white TEXT NOT NULL REFERENCES players(name),
    komi REAL NOT NULL,
    move_time_ms INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('playing', 'over')),
    winner TEXT CHECK (winner IN ('black', 'white')),
    reason TEXT CHECK (reason IN ('passes', 'timeout', 'resign')),
    score_black INTEGER,
    score_white INTEGER
);
CREATE INDEX IF NOT EXISTS games_playing ON games(status) WHERE status = 'playing';
CREATE TABLE IF NOT EXISTS turns (
    game TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    point TEXT,
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;
",
    "
-- Programs (bots) say so in their hello, and stay marked.
ALTER TABLE players ADD COLUMN bot INTEGER NOT NULL DEFAULT 0 CHECK (bot IN (0, 1));
",
    "
-- Ratings (Glicko-2), and what a game is played under: rated or not, handicap, time control and
-- the ranks at the start (`terms`, JSON), both clocks as of the last turn (`clocks`), and a
-- rated game's rating changes (`ratings`). Games stored before have none: unrated, per move.
ALTER TABLE players ADD COLUMN rating REAL NOT NULL DEFAULT 1500;
ALTER TABLE players ADD COLUMN deviation REAL NOT NULL DEFAULT 350;
ALTER TABLE players ADD COLUMN volatility REAL NOT NULL DEFAULT 0.06;
ALTER TABLE players ADD COLUMN rated_games INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN terms TEXT;
ALTER TABLE games ADD COLUMN clocks TEXT;
ALTER TABLE games ADD COLUMN ratings TEXT;
CREATE INDEX games_black ON games (black);
CREATE INDEX games_white ON games (white);
CREATE INDEX players_rating ON players (rating);
",
    "
-- Undo: each turn's clocks after it (what taking back the next turn restores), and a game's
-- pending request (who asked, at how many turns) with how many each player has asked.
ALTER TABLE turns ADD COLUMN clocks TEXT;
ALTER TABLE games ADD COLUMN undo_by TEXT CHECK (undo_by IN ('black', 'white'));
ALTER TABLE games ADD COLUMN undo_ply INTEGER;
ALTER TABLE games ADD COLUMN undo_asked_black INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN undo_asked_white INTEGER NOT NULL DEFAULT 0;
",
    "
-- Chat: a game's messages, in the order said; `watchers`: a watcher's, said while the game was on.
CREATE TABLE chat (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    sender TEXT NOT NULL,
    text TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    watchers INTEGER NOT NULL CHECK (watchers IN (0, 1))
);
CREATE INDEX chat_game ON chat (game, id);
",
    "
-- Scoring by agreement: a game's scoring phase (the stones marked dead, who accepted them), and
-- the result it ends in, reason 'score'. SQLite changes a CHECK only by making the table anew
-- (the migrations run with foreign keys off).
CREATE TABLE games_next (
    id TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    black TEXT NOT NULL REFERENCES players(name),
    white TEXT NOT NULL REFERENCES players(name),
    komi REAL NOT NULL,
    move_time_ms INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('playing', 'over')),
    winner TEXT CHECK (winner IN ('black', 'white')),
    reason TEXT CHECK (reason IN ('passes', 'timeout', 'resign', 'score')),
    score_black INTEGER,
    score_white INTEGER,
    terms TEXT,
    clocks TEXT,
    ratings TEXT,
    undo_by TEXT CHECK (undo_by IN ('black', 'white')),
    undo_ply INTEGER,
    undo_asked_black INTEGER NOT NULL DEFAULT 0,
    undo_asked_white INTEGER NOT NULL DEFAULT 0,
    scoring TEXT
);
INSERT INTO games_next (id, size, black, white, komi, move_time_ms, status, winner, reason,
    score_black, score_white, terms, clocks, ratings, undo_by, undo_ply, undo_asked_black,
    undo_asked_white)
SELECT id, size, black, white, komi, move_time_ms, status, winner, reason, score_black,
    score_white, terms, clocks, ratings, undo_by, undo_ply, undo_asked_black, undo_asked_white
FROM games ORDER BY rowid;
DROP TABLE games;
ALTER TABLE games_next RENAME TO games;
CREATE INDEX games_playing ON games(status) WHERE status = 'playing';
CREATE INDEX games_black ON games (black);
CREATE INDEX games_white ON games (white);
",
];

/// PostgreSQL keeps its version in `gokata_migrations`. Beyond SQLite's tables: a game's turn
/// count, deadline and the transaction that wrote it last (the conditions of every write),
/// the seeks, one row per board size to serialise pairing, and the processes' heartbeats.
const POSTGRES: &[&str] = &[
    "
CREATE TABLE players (
    name TEXT PRIMARY KEY,
    token_hash BYTEA NOT NULL,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX players_folded_name ON players (lower(name));
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    created BIGSERIAL,
    size INTEGER NOT NULL,
    black TEXT NOT NULL REFERENCES players(name),
    white TEXT NOT NULL REFERENCES players(name),
    komi DOUBLE PRECISION NOT NULL,
    move_time_ms BIGINT NOT NULL CHECK (move_time_ms > 0),
    status TEXT NOT NULL CHECK (status IN ('playing', 'over')),
    plies INTEGER NOT NULL DEFAULT 0,
    deadline TIMESTAMPTZ NOT NULL,
    written_by XID8,
    winner TEXT CHECK (winner IN ('black', 'white')),
    reason TEXT CHECK (reason IN ('passes', 'timeout', 'resign')),
    score_black INTEGER,
    score_white INTEGER
);
CREATE INDEX games_playing ON games (deadline) WHERE status = 'playing';
CREATE TABLE turns (
    game TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    point TEXT,
    PRIMARY KEY (game, ply)
);
CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    seen TIMESTAMPTZ NOT NULL
);
CREATE TABLE seek_sizes (size INTEGER PRIMARY KEY);
INSERT INTO seek_sizes VALUES (9), (13), (19);
CREATE TABLE seeks (
    id BIGSERIAL PRIMARY KEY,
    player TEXT NOT NULL UNIQUE REFERENCES players(name),
    size INTEGER NOT NULL REFERENCES seek_sizes(size),
    color TEXT NOT NULL CHECK (color IN ('black', 'white', 'any')),
    instance TEXT NOT NULL
);
",
    "
-- A turn changes a game's deadline: with no index on it, and room on each page, a turn's update
-- stays on its page and needs no new index entry (a HOT update), where each one used to leave a
-- dead row and index entry behind for vacuum.
DROP INDEX games_playing;
CREATE INDEX games_playing ON games (created) WHERE status = 'playing';
ALTER TABLE games SET (fillfactor = 50);
",
    "
-- A turn is stored only by the statement that advances its game's row, which it has just
-- locked and found: checking the reference again cost each turn a third of its time.
ALTER TABLE turns DROP CONSTRAINT turns_game_fkey;
",
    "
-- Programs (bots) say so in their hello, and stay marked. A seek may accept several board
-- sizes (NULL: only `size`, as processes of the previous version write it), and says whom it
-- will play; a bot's seek is marked so that pairing need not read the players.
ALTER TABLE players ADD COLUMN bot BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE seeks ADD COLUMN sizes INTEGER[],
    ADD COLUMN opponent TEXT NOT NULL DEFAULT 'human' CHECK (opponent IN ('human', 'computer', 'any')),
    ADD COLUMN bot BOOLEAN NOT NULL DEFAULT false;
",
    "
-- Ratings (Glicko-2), and what a game is played under: rated or not, handicap, time control and
-- the ranks at the start (`terms`, JSON), both clocks as of the last turn (`clocks`), and a
-- rated game's rating changes (`ratings`). From now on `move_time_ms` is the time the player to
-- move had when its turn began (the deadline's start). Games stored before have no terms:
-- unrated, per move. A seek's terms hold what it asks and its player's rating; seeks without
-- (made by an older process) are never paired.
ALTER TABLE players ADD COLUMN rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
    ADD COLUMN deviation DOUBLE PRECISION NOT NULL DEFAULT 350,
    ADD COLUMN volatility DOUBLE PRECISION NOT NULL DEFAULT 0.06,
    ADD COLUMN rated_games INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN terms TEXT, ADD COLUMN clocks TEXT, ADD COLUMN ratings TEXT;
ALTER TABLE seeks ADD COLUMN terms TEXT;
CREATE INDEX games_black ON games (black, created);
CREATE INDEX games_white ON games (white, created);
CREATE INDEX players_rating ON players (rating);
",
    "
-- Undo: each turn's clocks after it (what taking back the next turn restores), and a game's
-- pending request (who asked, at how many turns) with how many each player has asked.
ALTER TABLE turns ADD COLUMN clocks TEXT;
ALTER TABLE games ADD COLUMN undo_by TEXT CHECK (undo_by IN ('black', 'white')),
    ADD COLUMN undo_ply INTEGER,
    ADD COLUMN undo_asked_black INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN undo_asked_white INTEGER NOT NULL DEFAULT 0;
",
    "
-- Chat: a game's messages, in the order said; `watchers`: a watcher's, said while the game was on.
CREATE TABLE chat (
    id BIGSERIAL PRIMARY KEY,
    game TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    sender TEXT NOT NULL,
    text TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    watchers BOOLEAN NOT NULL
);
CREATE INDEX chat_game ON chat (game, id);
",
    "
-- Scoring by agreement: a game's scoring phase (the stones marked dead, who accepted them), and
-- the result it ends in, reason 'score'.
ALTER TABLE games DROP CONSTRAINT games_reason_check,
    ADD CONSTRAINT games_reason_check CHECK (reason IN ('passes', 'timeout', 'resign', 'score')),
    ADD COLUMN scoring TEXT;
",
];

pub fn migrate_sqlite(connection: &Connection) -> Result<(), StoreError> {
    let version: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let version = usize::try_from(version).unwrap_or(0);
    check_known(version, SQLITE.len())?;
    // A table made anew would take its rows' references with it: checked again after.
    connection.pragma_update(None, "foreign_keys", "OFF")?;
    for (index, migration) in SQLITE.iter().enumerate().skip(version) {
        connection.execute_batch(&format!(
            "BEGIN; {migration}; PRAGMA user_version = {}; COMMIT;",
            index + 1
        ))?;
    }
    let broken: Option<String> = connection
        .query_row("PRAGMA foreign_key_check", [], |row| row.get(0))
        .optional()?;
    if let Some(table) = broken {
        return Err(StoreError::Corrupt(format!("a row of {table} refers to nothing")));
    }
    connection.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Brings the database to the newest version. Processes starting together on an empty database
/// all try: the losers of the race for the first tables see an error and try again, and the
/// table lock then makes each wait for the one migrating.
pub async fn migrate_postgres(client: &mut Client) -> Result<(), StoreError> {
    let mut attempt = 0;
    loop {
        match try_migrate_postgres(client).await {
            Err(StoreError::Postgres(error)) if attempt < 20 && is_race(&error) => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(20 * attempt)).await;
            }
            other => return other,
        }
    }
}

async fn try_migrate_postgres(client: &mut Client) -> Result<(), StoreError> {
    let tx = client.transaction().await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS gokata_migrations (
             version INTEGER PRIMARY KEY,
             applied TIMESTAMPTZ NOT NULL DEFAULT now()
         );
         LOCK TABLE gokata_migrations IN EXCLUSIVE MODE;",
    )
    .await?;
    let version: i32 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM gokata_migrations", &[])
        .await?
        .get(0);
    let version = usize::try_from(version).unwrap_or(0);
    check_known(version, POSTGRES.len())?;
    for (index, migration) in POSTGRES.iter().enumerate().skip(version) {
        tx.batch_execute(migration).await?;
        let number = i32::try_from(index + 1).expect("few migrations");
        tx.execute("INSERT INTO gokata_migrations (version) VALUES ($1)", &[&number])
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The errors of two processes creating the same tables at once.
fn is_race(error: &tokio_postgres::Error) -> bool {
    [
        SqlState::UNIQUE_VIOLATION,
        SqlState::DUPLICATE_TABLE,
        SqlState::DUPLICATE_OBJECT,
        SqlState::T_R_DEADLOCK_DETECTED,
        SqlState::T_R_SERIALIZATION_FAILURE,
    ]
    .iter()
    .any(|state| error.code() == Some(state))
}

fn check_known(version: usize, known: usize) -> Result<(), StoreError> {
    if version > known {
        return Err(StoreError::Corrupt(format!(
            "the database is at schema version {version}, made by a newer gokata; this one knows \
             versions up to {known}"
        )));
    }
    Ok(())
}
