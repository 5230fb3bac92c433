//! Undo: a player asks to take back its last turn, the opponent accepts or refuses (or plays
//! on, which refuses); on acceptance both players and the watchers get the game as it stands.
//! Each step is a conditional write; other processes read the game again and tell theirs.

use std::sync::Arc;

use gokata_engine::Color;

use crate::auth;
use crate::game::{EndReason, UndoRequest, MAX_UNDO_REQUESTS};
use crate::protocol::{GameState, Refused, ServerMessage};
use crate::store::{UndoStep, Write};

use super::turns::player_keys;
use super::watching::{News, Told};
use super::{ConnId, Delivery, Hub, Outgoing};

impl Hub {
    /// `undo`: `player` asks to take back its last turn, `ply` turns into `game_id`.
    pub(super) async fn ask_undo(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        ply: usize,
    ) -> Result<(), Refused> {
        let color = self.player_color(player, game_id).await?;
        let Some(live) = self.games.get_mut(game_id).filter(|live| !live.game.is_over()) else {
            return self.send_state(conn, game_id).await;
        };
        let game = &mut live.game;
        let refused = |message: String| Err(Refused::bad_request(message).in_game(game_id));
        if game.scoring.is_some() {
            return refused(
                "the game is being scored: resume play first, then ask to take a turn back".into(),
            );
        }
        if ply != game.moves().len() {
            return refused(format!(
                "field 'ply' must be the number of turns played, {}, not {ply}",
                game.moves().len()
            ));
        }
        if game.moves().is_empty() || game.to_move() == color {
            return refused("the last turn is not yours: only your own last turn can be taken back".into());
        }
        if game.undo.pending.is_some() {
            return refused("an undo request is already waiting for an answer in this game".into());
        }
        let asked = &mut game.undo.asked[usize::from(color == Color::White)];
        if *asked >= MAX_UNDO_REQUESTS {
            return refused(format!(
                "a player may ask to undo at most {MAX_UNDO_REQUESTS} times a game, and you have"
            ));
        }
        *asked += 1;
        game.undo.pending = Some(UndoRequest { by: color, ply });
        let text = ServerMessage::UndoRequested {
            game: game_id.into(),
            ply,
            by: color,
        }
        .to_json();
        let players = player_keys(game);
        let step = UndoStep::Ask(color);
        let write = self.write(undo_write(game_id, ply, step), Some(conn));
        self.tell_both(players, text, Some(write));
        Ok(())
    }

    /// `undo_answer`: the opponent of the player who asked accepts or refuses.
    pub(super) async fn answer_undo(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        ply: usize,
        accept: bool,
    ) -> Result<(), Refused> {
        let color = self.player_color(player, game_id).await?;
        let Some(live) = self.games.get_mut(game_id).filter(|live| !live.game.is_over()) else {
            return self.send_state(conn, game_id).await;
        };
        let Some(request) = live.game.undo.pending.filter(|request| request.ply == ply) else {
            return Err(
                Refused::bad_request(format!("no undo request is waiting at ply {ply}")).in_game(game_id),
            );
        };
        if request.by == color {
            return Err(Refused::bad_request("an undo request is answered by the opponent").in_game(game_id));
        }
        // The answer comes on the answerer's own clock: one that ran out loses first.
        if live.game.clock_after(color, Hub::turn_elapsed_ms(live)).is_none() {
            if let Some(result) = live.game.end(color, EndReason::Timeout) {
                live.deadline = None;
                live.turn_started = None;
                self.finish(game_id, result, Some(conn));
            }
            return Ok(());
        }
        if !accept {
            live.game.undo.pending = None;
            let requester = auth::name_key(live.game.player(request.by));
            let write = self.write(undo_write(game_id, ply, UndoStep::Decline), Some(conn));
            let text = ServerMessage::UndoDeclined {
                game: game_id.into(),
                ply,
            }
            .to_json();
            let message = Outgoing::Text(text.into());
            self.deliver_later(Some(write), Delivery::ToPlayer(requester, message));
            return Ok(());
        }
        live.game.undo_last_turn();
        live.deadline = None;
        live.turn_started = None;
        let step = UndoStep::Accept {
            clocks: live.game.clocks(),
            turn_ms: live.game.turn_time_ms(),
        };
        let write = self.write(undo_write(game_id, ply, step), Some(conn));
        let live = &self.games[game_id];
        let state = GameState::of(&live.game, live.game.turn_time_ms())
            .with_connected(|name| self.is_connected_name(name));
        let text: Arc<str> = ServerMessage::Undone { game: state }.to_json().into();
        let number = self.next_news();
        self.deliver_later(
            Some(write),
            Delivery::Undone {
                game: game_id.to_string(),
                plies: ply - 1,
                text,
                number,
            },
        );
        self.batch.clocks_to_start.push((game_id.to_string(), write));
        Ok(())
    }

    /// `undone` to both players and the watchers here, who then follow the game from `plies`
    /// turns (`number`: its number as news).
    pub(super) fn announce_undone(&mut self, game_id: &str, plies: usize, text: &Arc<str>, number: u64) {
        let Some(live) = self.games.get_mut(game_id) else {
            return;
        };
        live.announced = plies;
        let players = player_keys(&live.game);
        self.tell_undone(&players, game_id, plies, text, number);
    }

    /// `undone`, once published (at once while delivering).
    pub(super) fn tell_undone(
        &mut self,
        players: &[String; 2],
        game_id: &str,
        plies: usize,
        text: &Arc<str>,
        number: u64,
    ) {
        let undone = Outgoing::Undone {
            game: game_id.into(),
            text: text.clone(),
        };
        for player in players {
            self.tell_player_after_publish(player, undone.clone());
        }
        let news = News::new(game_id, players, Told::Undone(plies), number, text);
        self.news.push(Delivery::ToWatchers(news));
    }

    /// Tells `by`'s connections here that its request at `ply` was declined, once published.
    pub(super) fn tell_undo_declined(&mut self, game_id: &str, by: &str, ply: usize) {
        let text: Arc<str> = ServerMessage::UndoDeclined {
            game: game_id.into(),
            ply,
        }
        .to_json()
        .into();
        self.tell_player_after_publish(&auth::name_key(by), Outgoing::Text(text));
    }
}

fn undo_write(game_id: &str, plies: usize, step: UndoStep) -> Write {
    Write::Undo {
        game: game_id.to_string(),
        plies,
        step,
    }
}
