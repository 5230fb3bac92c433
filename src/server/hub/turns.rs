//! Turns: moves, passes and resignations, checked against the game and queued for the batch's commit.

use std::sync::Arc;

use gokata_engine::Color;

use crate::auth;
use crate::game::{EndReason, GameResult, Refusal, ScoringPhase, ServerGame, Turn};
use crate::protocol::{ErrorCode, Refused, ServerMessage};
use crate::store::Write;

use super::watching::Told;
use super::{ConnId, Delivery, Hub, Outgoing};

impl Hub {
    /// A move (`point`) or a pass (`None`) by `player` in `game_id` as turn `ply`.
    pub(super) async fn turn(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        ply: usize,
        point: Option<&str>,
    ) -> Result<(), Refused> {
        let color = self.player_color(player, game_id).await?;
        let Some(live) = self.games.get_mut(game_id).filter(|live| !live.game.is_over()) else {
            return self.send_state(conn, game_id).await;
        };
        let on_turn = live.game.scoring.is_none() && color == live.game.to_move();
        let clock = if on_turn && ply == live.game.moves().len() {
            let clock = live.game.clock_after(color, Hub::turn_elapsed_ms(live));
            if clock.is_none() {
                // Played too late: the clock had run out, its timer not yet handled.
                if let Some(result) = live.game.end(color, EndReason::Timeout) {
                    live.deadline = None;
                    live.turn_started = None;
                    self.finish(game_id, result, Some(conn));
                }
                return Ok(());
            }
            clock
        } else {
            None
        };
        let pending_undo = live.game.undo.pending;
        match live.game.play(color, ply, point) {
            Ok(turn) => {
                if let Some(clock) = clock {
                    live.game.set_clock(color, clock);
                }
                let write = self.record_turn(conn, game_id, turn);
                // Playing on declines the opponent's request to take back its turn.
                if let Some(request) = pending_undo.filter(|request| request.by != color) {
                    let live = &self.games[game_id];
                    let requester = auth::name_key(live.game.player(request.by));
                    let text = ServerMessage::UndoDeclined {
                        game: game_id.into(),
                        ply: request.ply,
                    }
                    .to_json();
                    let message = Outgoing::Text(text.into());
                    self.deliver_later(Some(write), Delivery::ToPlayer(requester, message));
                }
                Ok(())
            }
            Err(Refusal::Stale) => self.send_state(conn, game_id).await,
            Err(Refusal::Scoring) => Err(Refused::bad_request(
                "the game is being scored: mark dead stones, accept them, or resume play first",
            )
            .in_game(game_id)),
            Err(Refusal::NotYourTurn) => Err(Refused::new(
                ErrorCode::NotYourTurn,
                format!("it is {}'s turn, not {}'s", live.game.to_move(), color),
            )
            .in_game(game_id)),
            Err(Refusal::Malformed(message)) => Err(Refused::bad_request(message).in_game(game_id)),
            Err(Refusal::Illegal { reason, message }) => {
                let mut refused = Refused::new(ErrorCode::IllegalMove, message).in_game(game_id);
                refused.reason = Some(reason.into());
                Err(refused)
            }
        }
    }

    /// Queues the turn's write and its announcements; the write's index.
    pub(super) fn record_turn(&mut self, conn: ConnId, game_id: &str, turn: Turn) -> usize {
        let live = &self.games[game_id];
        let write = Write::Turn {
            game: game_id.to_string(),
            ply: turn.ply,
            point: turn.point.clone(),
            clocks: live.game.clocks(),
            turn_ms: live.game.turn_time_ms(),
        };
        let write = self.write(write, Some(conn));
        let live = &self.games[game_id];
        let played = played_message(&live.game, &turn);
        let players = player_keys(&live.game);
        let text: Arc<str> = played.into();
        let played = Outgoing::Played {
            game: game_id.into(),
            ply: turn.ply,
            text: text.clone(),
        };
        for player in players {
            self.deliver_later(Some(write), Delivery::ToPlayer(player, played.clone()));
        }
        self.tell_watchers_later(game_id, Told::Turn(turn.ply), &text, Some(write));
        match turn.result {
            Some(result) => self.finish(game_id, result, Some(conn)),
            None => {
                if self.games[game_id].game.scoring.is_some() {
                    self.begin_scoring(game_id, conn);
                }
                self.batch.clocks_to_start.push((game_id.to_string(), write));
            }
        }
        if let Some(live) = self.games.get_mut(game_id) {
            live.deadline = None;
            live.turn_started = None;
        }
        write
    }

    pub(super) async fn resign(&mut self, conn: ConnId, player: &str, game_id: &str) -> Result<(), Refused> {
        let color = self.player_color(player, game_id).await?;
        match self
            .games
            .get_mut(game_id)
            .and_then(|live| live.game.end(color, EndReason::Resign))
        {
            Some(result) => {
                self.finish(game_id, result, Some(conn));
                Ok(())
            }
            None => self.send_state(conn, game_id).await,
        }
    }

    /// Stores the result and announces `over` once the records are committed.
    pub(super) fn finish(&mut self, game_id: &str, result: GameResult, origin: Option<ConnId>) {
        self.finish_with_marks(game_id, result, None, origin);
    }

    /// [`Hub::finish`] of a game scored by the marks it had when the time to agree ran out.
    pub(super) fn finish_with_marks(
        &mut self,
        game_id: &str,
        result: GameResult,
        marks: Option<ScoringPhase>,
        origin: Option<ConnId>,
    ) {
        let plies = self.games.get(game_id).map_or(0, |live| live.game.moves().len());
        let write = self.write(
            Write::Finish {
                game: game_id.to_string(),
                result,
                plies,
                marks,
            },
            origin,
        );
        self.deliver_later(
            Some(write),
            Delivery::Over {
                game: game_id.to_string(),
                result,
            },
        );
    }
}

pub(super) fn played_message(game: &ServerGame, turn: &Turn) -> String {
    ServerMessage::played(game, turn).to_json()
}

/// The keys of a game's two players, black first.
pub(super) fn player_keys(game: &ServerGame) -> [String; 2] {
    [Color::Black, Color::White].map(|color| auth::name_key(game.player(color)))
}
