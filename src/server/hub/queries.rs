//! Answers: the HTTP API's queries, `sync`, and the states of games live or stored.

use gokata_engine::Color;
use serde_json::Value;

use crate::auth;
use crate::game::ServerGame;
use crate::protocol::{ErrorCode, GameState, Refused, ServerMessage};
use crate::store::StoreError;

use super::{ConnId, Delivery, Hub, LiveGame, LiveView};

impl Hub {
    /// A live game (or one that ended in this batch) as STATE JSON, as it is now.
    pub(super) fn live_view(&self, game_id: &str, view: LiveView) -> Option<String> {
        let (game, remaining) = match self.games.get(game_id) {
            Some(live) => (&live.game, self.remaining_ms(live)),
            None => (self.ended.get(game_id)?, 0),
        };
        let mut state = GameState::of(game, remaining).with_connected(|name| self.is_connected_name(name));
        if view == LiveView::WatcherState {
            state = state.for_watchers(game);
        }
        Some(serde_json::to_string(&state).expect("a state always serialises"))
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

pub(super) fn unknown_game(game_id: &str) -> Refused {
    Refused::new(ErrorCode::UnknownGame, format!("no game has the id {game_id:?}")).in_game(game_id)
}
