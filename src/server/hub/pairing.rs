//! Pairing: a seek is stored, or paired with a waiting one into a new game.

use std::time::Duration;

use crate::auth;
use crate::game::ServerGame;
use crate::lobby::Seek;
use crate::protocol::{sizes_value, AskedTerms, GameState, Opponent, Refused, SeekColor, ServerMessage};
use crate::store::Write;
use crate::terms::{Scoring, SeekTerms};
use crate::time_control::TimeControl;

use super::turns::player_keys;
use super::{Hub, LiveGame};

impl Hub {
    pub(super) async fn seek(
        &mut self,
        player: &str,
        sizes: Vec<usize>,
        color: SeekColor,
        opponent: Opponent,
        asked: AskedTerms,
    ) -> Result<(), Refused> {
        let record = &self.players[player].record;
        if record.bot && asked.scoring == Scoring::Agreement {
            return Err(Refused::bad_request(
                "field 'scoring' \"agreement\" is for people: games with a program count every stone as alive",
            ));
        }
        let terms = SeekTerms {
            scoring: asked.scoring,
            rated: asked.rated,
            handicap: asked.handicap,
            komi: asked.komi,
            time: asked.time.unwrap_or(TimeControl::PerMove {
                move_ms: self.move_time_ms(),
            }),
        };
        let seek = Seek {
            name: record.name.clone(),
            sizes: sizes.clone(),
            color,
            opponent,
            bot: record.bot,
            terms,
            rating: record.rating,
        };
        let paired = self
            .store
            .pair(seek, |pairing| {
                ServerGame::new(
                    auth::new_game_id(),
                    pairing.size,
                    pairing.black,
                    pairing.white,
                    pairing.terms,
                )
                .with_bots(pairing.bots)
                .stored()
            })
            .await
            .map_err(|error| self.lost(error))?;
        self.seeks_changed = true;
        let Some(paired) = paired else {
            self.tell_player(
                player,
                &ServerMessage::Seeking {
                    size: sizes_value(&sizes),
                    color,
                    opponent,
                    rated: terms.rated,
                    handicap: terms.handicap.to_json(),
                    komi: terms.komi,
                    time: terms.time.to_json(),
                    scoring: terms.scoring,
                },
            );
            return Ok(());
        };
        let game = ServerGame::from_stored(&paired.game).expect("a new game of a server size");
        let start = ServerMessage::Start {
            game: GameState::of(&game, game.turn_time_ms())
                .with_connected(|name| self.is_connected_name(name)),
        }
        .to_json();
        let id = game.id.clone();
        let players = player_keys(&game);
        self.hold(LiveGame::new(game));
        if paired.stored {
            self.tell_both(players, start, None);
            let turn_time = self.games[&id].game.turn_time_ms();
            self.arm_clock(&id, Duration::from_millis(turn_time));
        } else {
            let write = self.write(Write::NewGame(Box::new(paired.game)), None);
            self.tell_both(players, start, Some(write));
            self.batch.clocks_to_start.push((id, write));
        }
        Ok(())
    }
}
