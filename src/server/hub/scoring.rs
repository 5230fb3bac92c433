//! Scoring by agreement: after two passes the server proposes the dead stones; the players
//! mark chains dead or alive, accept the marks, or resume play. Both accepting the same marks,
//! or the time to agree running out, ends the game by `score`.

use std::sync::Arc;

use crate::game::{ScoringPhase, ServerGame};
use crate::protocol::{GameState, Marks, Refused, ServerMessage};
use crate::store::Write;

use super::turns::player_keys;
use super::watching::Told;
use super::{ConnId, Delivery, Hub, Outgoing};

impl Hub {
    /// The game just entered its scoring phase (a second pass, `conn`'s): stored, and the
    /// proposal told.
    pub(super) fn begin_scoring(&mut self, game_id: &str, conn: ConnId) {
        let write = self.scoring_write(game_id, None, Some(conn));
        self.tell_scoring_later(game_id, write);
    }

    /// `mark`: the chain at `point` dead or alive.
    pub(super) async fn mark(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        point: &str,
        dead: bool,
    ) -> Result<(), Refused> {
        self.player_color(player, game_id).await?;
        let game = self.scored_game(game_id)?;
        let seen = game.scoring.clone();
        game.mark(point, dead)
            .map_err(|message| Refused::bad_request(message).in_game(game_id))?;
        let write = self.scoring_write(game_id, seen, Some(conn));
        self.tell_scoring_later(game_id, write);
        Ok(())
    }

    /// `accept`: the player accepts `dead`, which must be the marks as they stand.
    pub(super) async fn accept_marks(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        dead: &[String],
    ) -> Result<(), Refused> {
        let color = self.player_color(player, game_id).await?;
        let game = self.scored_game(game_id)?;
        let seen = game.scoring.clone();
        let both = game
            .accept(color, dead)
            .map_err(|message| Refused::bad_request(message).in_game(game_id))?;
        // Stored as both accepted first: the result applies only if that did.
        let write = self.scoring_write(game_id, seen, Some(conn));
        if both {
            let game = &mut self.games.get_mut(game_id).expect("scored above").game;
            let result = game.finish_scoring();
            self.finish(game_id, result, Some(conn));
        } else {
            self.tell_scoring_later(game_id, write);
        }
        Ok(())
    }

    /// `resume`: back to play, the player who passed first to move, clocks as they were.
    pub(super) async fn resume(&mut self, conn: ConnId, player: &str, game_id: &str) -> Result<(), Refused> {
        self.player_color(player, game_id).await?;
        let game = self.scored_game(game_id)?;
        let seen = game.scoring.clone();
        game.resume()
            .map_err(|message| Refused::bad_request(message).in_game(game_id))?;
        let live = self.games.get_mut(game_id).expect("scored above");
        live.deadline = None;
        live.turn_started = None;
        let write = self.scoring_write(game_id, seen, Some(conn));
        let live = &self.games[game_id];
        let state = GameState::of(&live.game, live.game.turn_time_ms())
            .with_connected(|name| self.is_connected_name(name));
        let text: Arc<str> = ServerMessage::Resumed { game: state }.to_json().into();
        for player in player_keys(&live.game) {
            let message = Outgoing::Text(text.clone());
            self.deliver_later(Some(write), Delivery::ToPlayer(player, message));
        }
        self.tell_watchers_later(game_id, Told::Other, &text, Some(write));
        self.batch.clocks_to_start.push((game_id.to_string(), write));
        Ok(())
    }

    /// The live game in its scoring phase, or why not.
    fn scored_game(&mut self, game_id: &str) -> Result<&mut ServerGame, Refused> {
        match self.games.get_mut(game_id) {
            Some(live) if live.game.scoring.is_some() => Ok(&mut live.game),
            _ => Err(Refused::bad_request(
                "the game is not being scored: that comes after two passes in a row",
            )
            .in_game(game_id)),
        }
    }

    /// The scoring phase as it stands, queued for the batch; the write's index.
    fn scoring_write(&mut self, game_id: &str, seen: Option<ScoringPhase>, origin: Option<ConnId>) -> usize {
        let live = &self.games[game_id];
        // Marks and acceptances leave the time to agree as it runs.
        let turn_ms = match (&live.game.scoring, live.deadline) {
            (Some(_), Some(_)) => self.remaining_ms(live),
            _ => live.game.turn_time_ms(),
        };
        let write = Write::Scoring {
            game: game_id.to_string(),
            plies: live.game.moves().len(),
            scoring: live.game.scoring.clone(),
            turn_ms,
            seen,
        };
        self.write(write, origin)
    }

    /// `scoring` to both players and the watchers once `write` is committed.
    fn tell_scoring_later(&mut self, game_id: &str, write: usize) {
        let Some(text) = self.scoring_text(game_id) else {
            return;
        };
        let players = player_keys(&self.games[game_id].game);
        for player in players {
            let message = Outgoing::Text(text.clone());
            self.deliver_later(Some(write), Delivery::ToPlayer(player, message));
        }
        self.tell_watchers_later(game_id, Told::Other, &text, Some(write));
    }

    /// `scoring` to both players and the watchers here, once published (a change another
    /// process made).
    pub(super) fn tell_scoring(&mut self, game_id: &str) {
        let Some(text) = self.scoring_text(game_id) else {
            return;
        };
        let players = player_keys(&self.games[game_id].game);
        for player in &players {
            self.tell_player_after_publish(player, Outgoing::Text(text.clone()));
        }
        self.tell_watchers(game_id, &players, Told::Other, &text);
    }

    fn scoring_text(&self, game_id: &str) -> Option<Arc<str>> {
        let game = &self.games.get(game_id)?.game;
        let marks = Marks::of(game)?;
        let message = ServerMessage::Scoring {
            game: game_id.into(),
            marks,
        };
        Some(message.to_json().into())
    }
}
