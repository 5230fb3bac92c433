//! The HTTP API's answers, made without the hub: the live games (and on SQLite the seeks) from
//! the snapshot it publishes after each commit, everything else from the store's [`Reader`].

use std::borrow::Cow;

use serde_json::{json, Value};

use crate::auth;
use crate::game::ServerGame;
use crate::lobby::Seek;
use crate::protocol::{finished_view, GameState, GameSummary, SeekView, ServerMessage, StandingView};
use crate::snapshot::Snapshot;
use crate::snapshot::LISTED_GAMES;
use crate::store::{Reader, StoreError};

/// An answer: a body (JSON, or an SGF record), nothing by that name, or no database.
#[derive(Debug, PartialEq)]
pub enum Answer {
    Found(String),
    Missing,
    Unavailable,
}

pub struct Reads {
    snapshot: Snapshot,
    reader: Reader,
}

impl Reads {
    pub fn new(snapshot: Snapshot, reader: Reader) -> Reads {
        Reads { snapshot, reader }
    }

    /// What the hub published.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// `/api/seeks`: the seeks waiting, oldest first.
    pub async fn seeks(&self) -> Answer {
        if let Some((_, body)) = self.snapshot.seeks() {
            return Answer::Found(body.to_string());
        }
        answer(
            self.seeks_listed()
                .await
                .map(|seeks| Some(json!({ "seeks": seeks }).to_string())),
        )
    }

    /// The seeks waiting, oldest first, as `/api/seeks` and the lobby list them.
    pub async fn seeks_listed(&self) -> Result<Value, StoreError> {
        if let Some((seeks, _)) = self.snapshot.seeks() {
            return Ok(Value::clone(&seeks));
        }
        let seeks = self.reader.waiting_seeks().await?.unwrap_or_default();
        Ok(seeks_listed(&seeks))
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
        match self.reader.live_games(LISTED_GAMES).await {
            Ok(Some((games, total))) => {
                let listed: Vec<GameSummary> = games.iter().map(GameSummary::listed).collect();
                Answer::Found(json!({"games": listed, "total": total}).to_string())
            }
            Ok(None) => Answer::Found(self.snapshot.live_games_json()),
            Err(error) => answer(Err(error)),
        }
    }

    /// The games being played, newest first (at most [`LISTED_GAMES`]), and how many there
    /// are: from the database where this process holds only some (PostgreSQL), else as
    /// published.
    pub async fn live_games_listed(&self) -> Result<(Value, usize), StoreError> {
        match self.reader.live_games(LISTED_GAMES).await? {
            Some((games, total)) => {
                let listed: Vec<GameSummary> = games.iter().map(GameSummary::listed).collect();
                Ok((json!(listed), total))
            }
            None => Ok(self.snapshot.live_games()),
        }
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
