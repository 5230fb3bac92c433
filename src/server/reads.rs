//! The HTTP API's answers, made without the hub: the live games (and on SQLite the seeks) from
//! the snapshot it publishes after each commit, everything else from the store's [`Reader`].
//! On PostgreSQL the seeks are read from the database once a change, by one reader for all that
//! ask meanwhile: a list read after the hub last counted a change is as fresh as any.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{json, Value};

use crate::auth;
use crate::game::ServerGame;
use crate::lobby::Seek;
use crate::protocol::{finished_view, GameState, SeekView, ServerMessage, StandingView};
use crate::snapshot::Snapshot;
use crate::store::{Reader, StoreError};

/// An answer: a body (JSON, or an SGF record), nothing by that name, or no database.
#[derive(Debug, PartialEq)]
pub enum Answer {
    Found(String),
    Missing,
    Unavailable,
}

/// The seeks listed and the body of `/api/seeks`.
type ListedSeeks = (Arc<Value>, Arc<str>);

pub struct Reads {
    snapshot: Snapshot,
    reader: Reader,
    /// The seeks as last read from the database, and the count of changes published before.
    seeks_read: Mutex<Option<(u64, ListedSeeks)>>,
    /// Held while the seeks are read, so that the readers who come meanwhile wait for its list.
    reading_seeks: tokio::sync::Mutex<()>,
}

impl Reads {
    pub fn new(snapshot: Snapshot, reader: Reader) -> Reads {
        Reads {
            snapshot,
            reader,
            seeks_read: Mutex::new(None),
            reading_seeks: tokio::sync::Mutex::new(()),
        }
    }

    /// What the hub published.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// `/api/seeks`: the seeks waiting, oldest first.
    pub async fn seeks(&self) -> Answer {
        answer(self.listed_seeks().await.map(|(_, body)| Some(body.to_string())))
    }

    /// The seeks waiting, oldest first, as `/api/seeks` and the lobby list them.
    pub async fn seeks_listed(&self) -> Result<Value, StoreError> {
        Ok(Value::clone(&self.listed_seeks().await?.0))
    }

    /// The seeks as published (SQLite), else as read from the database since the last change
    /// the hub published.
    async fn listed_seeks(&self) -> Result<ListedSeeks, StoreError> {
        if let Some(published) = self.snapshot.seeks() {
            return Ok(published);
        }
        let wanted = self.snapshot.seeks_changes();
        if let Some(fresh) = self.seeks_read_since(wanted) {
            return Ok(fresh);
        }
        let _reading = self.reading_seeks.lock().await;
        if let Some(fresh) = self.seeks_read_since(wanted) {
            return Ok(fresh);
        }
        let changes = self.snapshot.seeks_changes();
        let seeks = self.reader.waiting_seeks().await?.unwrap_or_default();
        let listed = Arc::new(seeks_listed(&seeks));
        let body: Arc<str> = json!({ "seeks": &*listed }).to_string().into();
        let read = (listed, body);
        *self.seeks_read.lock().unwrap_or_else(PoisonError::into_inner) = Some((changes, read.clone()));
        Ok(read)
    }

    /// The seeks as read once `changes` changes were published, if they were.
    fn seeks_read_since(&self, changes: u64) -> Option<ListedSeeks> {
        let read = self.seeks_read.lock().unwrap_or_else(PoisonError::into_inner);
        read.as_ref()
            .filter(|(read_at, _)| *read_at >= changes)
            .map(|(_, seeks)| seeks.clone())
    }

    /// The lobby's lists: a `lobby` message.
    pub async fn lobby(&self) -> Result<String, StoreError> {
        let seeks = self.seeks_listed().await?;
        let (games, total) = self.live_games_listed().await?;
        Ok(ServerMessage::Lobby {
            seeks: Cow::Owned(seeks),
            games: Cow::Owned(games),
            total,
        }
        .to_json())
    }

    /// `/api/games`: the games being played, newest first.
    pub async fn live_games(&self) -> Answer {
        Answer::Found(self.snapshot.live_games_json())
    }

    /// The games being played, newest first (at most [`LISTED_GAMES`]), and how many there
    /// are, as published.
    pub async fn live_games_listed(&self) -> Result<(Value, usize), StoreError> {
        Ok(self.snapshot.live_games())
    }

    /// `/api/games/ID`: the game's STATE.
    pub async fn game(&self, id: &str) -> Answer {
        if let Some(published) = self.snapshot.game(id) {
            return Answer::Found(published.state_json());
        }
        answer(self.stored_game(id).await.map(|game| {
            game.map(|(game, remaining_ms)| {
                let state = GameState::of(&game, remaining_ms.unwrap_or(0))
                    .with_connected(|name| self.snapshot.is_connected(name));
                serde_json::to_string(&state).expect("a state always serialises")
            })
        }))
    }

    /// `/api/games/ID.sgf`: the game's record.
    pub async fn game_sgf(&self, id: &str) -> Answer {
        if let Some(published) = self.snapshot.game(id) {
            return Answer::Found(published.game.sgf());
        }
        answer(
            self.stored_game(id)
                .await
                .map(|game| game.map(|(game, _)| game.sgf())),
        )
    }

    /// `/api/players/NAME`: the player's record.
    pub async fn player(&self, name: &str) -> Answer {
        if auth::check_name(name).is_err() {
            return Answer::Missing;
        }
        answer(
            self.reader
                .player(name)
                .await
                .map(|record| record.map(|record| json!(StandingView::from(&record.standing())).to_string())),
        )
    }

    /// `/api/players/NAME/games`: the player's finished games, newest first, from just before
    /// `before`.
    pub async fn player_games(&self, name: &str, before: Option<&str>) -> Answer {
        if auth::check_name(name).is_err() {
            return Answer::Missing;
        }
        let listed = async {
            let Some(record) = self.reader.player(name).await? else {
                return Ok(None);
            };
            let games = self.reader.finished_games(&record.name, before).await?;
            let listed: Vec<Value> = games.iter().map(finished_view).collect();
            Ok(Some(json!({ "name": record.name, "games": listed }).to_string()))
        };
        answer(listed.await)
    }

    /// `/api/leaderboard`: the highest-rated players.
    pub async fn leaderboard(&self) -> Answer {
        answer(self.reader.leaderboard().await.map(|standings| {
            let players: Vec<StandingView> = standings.iter().map(StandingView::from).collect();
            Some(json!({ "players": players }).to_string())
        }))
    }

    /// A game as stored, and (where the database keeps the clock) the time its player to move
    /// has left.
    pub async fn stored_game(&self, id: &str) -> Result<Option<(ServerGame, Option<u64>)>, StoreError> {
        // No id of another form was ever made: not worth asking the store about.
        if !auth::is_game_id(id) {
            return Ok(None);
        }
        match self.reader.game(id).await? {
            Some((stored, remaining_ms)) => ServerGame::from_stored(&stored)
                .map(|game| Some((game, remaining_ms)))
                .map_err(StoreError::Corrupt),
            None => Ok(None),
        }
    }
}

/// The seeks waiting, oldest first, as `/api/seeks` and the lobby list them.
pub fn seeks_listed(seeks: &[Seek]) -> Value {
    let listed: Vec<SeekView> = seeks.iter().map(SeekView::of).collect();
    json!(listed)
}

fn answer(read: Result<Option<String>, StoreError>) -> Answer {
    match read {
        Ok(Some(body)) => Answer::Found(body),
        Ok(None) => Answer::Missing,
        Err(error) => {
            eprintln!("gokata serve: a read of the database failed: {error}");
            Answer::Unavailable
        }
    }
}
