//! Game states, live or stored: what answers a stale request, or a `sync` sent before its
//! connection knew that its `hello` was taken (connections answer the others themselves).

use gokata_engine::Color;
use serde_json::Value;

use crate::auth;
use crate::game::ServerGame;
use crate::protocol::{ErrorCode, GameState, Refused, ServerMessage};
use crate::store::StoreError;

use super::{ConnId, Delivery, Hub, LiveGame, Outgoing};

impl Hub {
    /// A live game (or one that ended in this batch) as a `state` message, as it is now; the
    /// game's turns if it is on.
    pub(super) fn state_message(&self, game_id: &str) -> Option<(String, Option<usize>)> {
        let (game, remaining) = match self.games.get(game_id) {
            Some(live) => (&live.game, self.remaining_ms(live)),
            None => (self.ended.get(game_id)?, 0),
        };
        let state = GameState::of(game, remaining).with_connected(|name| self.is_connected_name(name));
        let state = serde_json::to_string(&state).expect("a state always serialises");
        let plies = (!game.is_over()).then(|| game.moves().len());
        Some((format!(r#"{{"type":"state","game":{state}}}"#), plies))
    }

    /// Sends a live game's `state` (made as it is now): with its turns if it answers `sync`.
    pub(super) fn deliver_state(&mut self, conn: ConnId, game_id: &str, synced: bool) {
        let Some((text, plies)) = self.state_message(game_id) else {
            return;
        };
        let message = match plies {
            Some(plies) if synced => Outgoing::State {
                game: game_id.into(),
                plies,
                text: text.into(),
            },
            _ => Outgoing::Text(text.into()),
        };
        self.send(conn, message);
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
        self.state_to(conn, game_id, false).await
    }

    /// `sync` (see [`Outgoing::State`]).
    pub(super) async fn sync(&mut self, conn: ConnId, game_id: &str) -> Result<(), Refused> {
        self.state_to(conn, game_id, true).await
    }

    async fn state_to(&mut self, conn: ConnId, game_id: &str, synced: bool) -> Result<(), Refused> {
        if self.games.contains_key(game_id) || self.ended.contains_key(game_id) {
            self.deliver_later(
                None,
                Delivery::State {
                    conn,
                    game: game_id.to_string(),
                    synced,
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
    Refused::unknown_game(game_id)
}
