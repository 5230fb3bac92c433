//! Answers: the HTTP API's queries, `sync`, and the states of games live or stored.

use std::cmp::Reverse;

use gokata_engine::Color;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::auth;
use crate::game::ServerGame;
use crate::lobby::Seek;
use crate::protocol::{
    finished_view, ErrorCode, GameState, GameSummary, Refused, SeekView, ServerMessage, StandingView,
};
use crate::store::StoreError;

use super::{Answer, ConnId, Delivery, Hub, LiveGame, LiveView, Query, LISTED_GAMES};

impl Hub {
    /// The games being played, newest first: at most [`LISTED_GAMES`], and how many there are
    /// (`/api/games`, and the lobby's `games` and `total`).
    pub(super) fn live_games(&self) -> (Value, usize) {
        let mut playing: Vec<&LiveGame> = self.games.values().filter(|live| !live.game.is_over()).collect();
        playing.sort_by_key(|live| Reverse(live.order));
        let listed: Vec<GameSummary> = playing
            .iter()
            .take(LISTED_GAMES)
            .map(|live| GameSummary::of(&live.game))
            .collect();
        (serde_json::json!(listed), playing.len())
    }

    /// The body of `/api/games`.
    pub(super) fn live_games_listed(&self) -> String {
        let (games, total) = self.live_games();
        serde_json::json!({"games": games, "total": total}).to_string()
    }

    /// A live game (or one that ended in this batch) as STATE JSON or an SGF record, as it is
    /// now.
    pub(super) fn live_view(&self, game_id: &str, view: LiveView) -> Option<String> {
        let (game, remaining) = match self.games.get(game_id) {
            Some(live) => (&live.game, self.remaining_ms(live)),
            None => (self.ended.get(game_id)?, 0),
        };
        Some(match view {
            LiveView::State | LiveView::WatcherState => {
                let mut state =
                    GameState::of(game, remaining).with_connected(|name| self.is_connected_name(name));
                if view == LiveView::WatcherState {
                    state = state.for_watchers(game);
                }
                serde_json::to_string(&state).expect("a state always serialises")
            }
            LiveView::Sgf => game.sgf(),
        })
    }

    pub(super) fn state_of<'a>(&self, live: &'a LiveGame) -> GameState<'a> {
        GameState::of(&live.game, self.remaining_ms(live)).with_connected(|name| self.is_connected_name(name))
    }

    /// `view` of a game's STATE, live or stored; `Ok(None)` if there is no such game.
    pub(super) async fn with_state<T>(
        &mut self,
        game_id: &str,
        view: impl FnOnce(GameState<'_>) -> T,
    ) -> Result<Option<T>, StoreError> {
        if let Some(live) = self.games.get(game_id) {
            return Ok(Some(view(self.state_of(live))));
        }
        Ok(self
            .stored_game(game_id)
            .await?
            .map(|game| view(GameState::of(&game, 0).with_connected(|name| self.is_connected_name(name)))))
    }

    /// A finished game (or one another process started) from the store.
    pub(super) async fn stored_game(&mut self, game_id: &str) -> Result<Option<ServerGame>, StoreError> {
        // No id of another form was ever made: not worth asking the store about.
        if !auth::is_game_id(game_id) {
            return Ok(None);
        }
        let Some(stored) = self.store.game(game_id).await? else {
            return Ok(None);
        };
        ServerGame::from_stored(&stored)
            .map(Some)
            .map_err(StoreError::Corrupt)
    }

    /// The game's `state` to `conn`: a live game's made at delivery time, after the batch's
    /// commit; a finished game's from the store.
    pub(super) async fn send_state(&mut self, conn: ConnId, game_id: &str) -> Result<(), Refused> {
        if self.games.contains_key(game_id) || self.ended.contains_key(game_id) {
            self.deliver_later(
                None,
                Delivery::State {
                    conn,
                    game: game_id.to_string(),
                },
            );
            return Ok(());
        }
        let state = self
            .with_state(game_id, |game| ServerMessage::State { game }.to_json())
            .await
            .map_err(|error| self.lost(error))?
            .ok_or_else(|| unknown_game(game_id))?;
        self.reply_to(conn, state);
        Ok(())
    }

    /// The colour `player` plays in `game_id`, live or finished.
    pub(super) async fn player_color(&mut self, player: &str, game_id: &str) -> Result<Color, Refused> {
        let name = self.players[player].record.name.clone();
        let color = match self.games.get(game_id) {
            Some(live) => live.game.color_of(&name),
            None => self
                .stored_game(game_id)
                .await
                .map_err(|error| self.lost(error))?
                .ok_or_else(|| unknown_game(game_id))?
                .color_of(&name),
        };
        color.ok_or_else(|| {
            Refused::new(
                ErrorCode::NotYourGame,
                format!("{name} does not play in game {game_id}"),
            )
            .in_game(game_id)
        })
    }

    /// What a query is answered, once the batch is committed.
    pub(super) async fn answer(&mut self, query: Query, reply: oneshot::Sender<Answer>) -> Delivery {
        let live_view = match &query {
            Query::GameSgf(id) if self.games.contains_key(id) => Some((id, LiveView::Sgf)),
            Query::Game(id) if self.games.contains_key(id) => Some((id, LiveView::State)),
            _ => None,
        };
        if let Some((game, view)) = live_view {
            return Delivery::ReplyLive {
                reply,
                game: game.clone(),
                view,
            };
        }
        let answer = match query {
            Query::LiveGames => return Delivery::ReplyLiveGames(reply),
            Query::Seeks => self
                .store
                .waiting_seeks()
                .await
                .map(|seeks| Some(serde_json::json!({ "seeks": seeks_listed(&seeks) }).to_string())),
            Query::Player(name) if auth::check_name(&name).is_err() => Ok(None),
            Query::Player(name) => match self.players.get(&auth::name_key(&name)) {
                Some(player) => Ok(Some(player.record.clone())),
                None => self.store.player(&name).await,
            }
            .map(|record| {
                record.map(|record| serde_json::json!(StandingView::from(&record.standing())).to_string())
            }),
            Query::PlayerGames { name, before } => self.player_games(&name, before.as_deref()).await,
            Query::Leaderboard => self.store.leaderboard().await.map(|standings| {
                let players: Vec<StandingView> = standings.iter().map(StandingView::from).collect();
                Some(serde_json::json!({ "players": players }).to_string())
            }),
            Query::GameSgf(id) => match self.games.get(&id) {
                Some(live) => Ok(Some(live.game.sgf())),
                None => self
                    .stored_game(&id)
                    .await
                    .map(|game| game.map(|game| game.sgf())),
            },
            Query::Game(id) => {
                self.with_state(&id, |game| {
                    serde_json::to_string(&game).expect("a state always serialises")
                })
                .await
            }
        };
        let answer = match answer {
            Ok(Some(body)) => Answer::Found(body),
            Ok(None) => Answer::Missing,
            Err(error) => {
                self.failure.get_or_insert(error);
                Answer::Unavailable
            }
        };
        Delivery::Reply(reply, answer)
    }

    /// `/api/players/NAME/games`: none if there is no such player.
    async fn player_games(&mut self, name: &str, before: Option<&str>) -> Result<Option<String>, StoreError> {
        if auth::check_name(name).is_err() {
            return Ok(None);
        }
        let registered = match self.players.get(&auth::name_key(name)) {
            Some(player) => Some(player.record.name.clone()),
            None => self.store.player(name).await?.map(|record| record.name),
        };
        let Some(registered) = registered else {
            return Ok(None);
        };
        let games = self.store.finished_games(&registered, before).await?;
        let listed: Vec<Value> = games.iter().map(finished_view).collect();
        Ok(Some(
            serde_json::json!({ "name": registered, "games": listed }).to_string(),
        ))
    }

    pub(super) fn pong(&mut self, conn: ConnId, t: &Value) {
        let server_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let text = ServerMessage::Pong {
            t: t.clone(),
            server_ms,
        }
        .to_json();
        self.reply_to(conn, text);
    }
}

/// The seeks waiting, oldest first, as `/api/seeks` and the lobby list them.
pub(super) fn seeks_listed(seeks: &[Seek]) -> Value {
    let listed: Vec<SeekView> = seeks.iter().map(SeekView::of).collect();
    serde_json::json!(listed)
}

pub(super) fn unknown_game(game_id: &str) -> Refused {
    Refused::new(ErrorCode::UnknownGame, format!("no game has the id {game_id:?}")).in_game(game_id)
}
