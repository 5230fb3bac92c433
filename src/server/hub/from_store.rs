//! Watchers sent a game as the store had it, when this process did not hold it (see
//! [`crate::answers`]): the hub holds the game, then brings each of them up to it, sending what
//! changed since their state (the turns, the marks, the chat, who is connected), after which
//! they follow the game as any watcher. Until then they get none of its news: what it told is
//! in what they are brought up to.

use std::sync::Arc;

use gokata_engine::Color;

use crate::game::ServerGame;
use crate::protocol::{GameState, Marks, ServerMessage};
use crate::rooms::{Seen, StoredView};
use crate::store::{GameNow, StoreError};

use super::chat::chat_text;
use super::turns::{played_message, player_keys};
use super::{Delivery, Hub, Outgoing};

impl Hub {
    /// A connection watches the game, sent it as stored: the game is held (read after the
    /// batch if it is not yet), and its watchers sent it so brought up to it once published.
    pub(super) fn watched_from_store(&mut self, game_id: &str) {
        if self.games.contains_key(game_id) {
            self.news.push(Delivery::BringUp {
                game: game_id.to_string(),
            });
        } else {
            self.remote.insert(game_id.to_string());
        }
    }

    /// Whether someone here waits to be brought up to the game.
    pub(super) fn waits_for(&self, game_id: &str) -> bool {
        self.rooms.lock().room(game_id).is_some_and(|room| {
            room.values()
                .any(|member| matches!(member.seen, Seen::FromStore(_)))
        })
    }

    /// Brings the game's watchers sent it as stored up to what the hub holds (published
    /// already); they follow it from then on.
    pub(super) fn bring_up(&mut self, game_id: &str) {
        let Some(live) = self.games.get(game_id) else {
            return;
        };
        let (game, remaining) = (&live.game, self.remaining_ms(live));
        let players = player_keys(game);
        let rooms = self.rooms.clone();
        let mut slow = Vec::new();
        {
            let mut watchers = rooms.lock();
            let Some(room) = watchers.room_mut(game_id) else {
                return;
            };
            for (&conn, member) in room.iter_mut() {
                let Seen::FromStore(view) = &member.seen else {
                    continue;
                };
                let (messages, plies) = self.bringing_up(view, game, remaining);
                if !self.gets_players_copy(conn, &players)
                    && !self.push_all_to_watcher(conn, &member.outbox, messages)
                {
                    slow.push((conn, member.outbox.clone()));
                }
                member.seen = Seen::Following {
                    plies,
                    news: self.news_told,
                };
            }
        }
        self.close_slow_watchers(slow);
    }

    /// The end of a game told here already, to those who joined its room since (sent it as
    /// stored while it was on).
    pub(super) fn tell_late_watchers_over(&mut self, now: &GameNow) -> Result<(), StoreError> {
        let (Some(result), Some(records)) = (now.game.result, &now.records) else {
            return Ok(());
        };
        let game = ServerGame::from_stored(&now.game).map_err(StoreError::Corrupt)?;
        let text: Arc<str> = ServerMessage::over(&game.id, result, records, now.ratings.as_ref()).into();
        self.tell_watchers_over(&game, &text);
        Ok(())
    }

    /// What brings a watcher sent `view` up to `game` (whose player to move has
    /// `remaining_ms`), and the turns it then has: the play since, the chat since, and who
    /// came or went since.
    pub(super) fn bringing_up(
        &self,
        view: &StoredView,
        game: &ServerGame,
        remaining_ms: u64,
    ) -> (Vec<Outgoing>, usize) {
        let (mut messages, plies) = self.play_since(view, game, remaining_ms);
        messages.extend(chat_since(view, game));
        if !game.is_over() {
            messages.extend(self.presence_since(view, game));
        }
        (messages, plies)
    }

    /// Turns played since come as `played`, then the marks if they changed; turns taken back,
    /// or play resumed, as the whole game (`undone`, `resumed`). A game the store had further
    /// than the hub holds yet brings nothing: the hub tells the rest as it reads it.
    fn play_since(&self, view: &StoredView, game: &ServerGame, remaining_ms: u64) -> (Vec<Outgoing>, usize) {
        let (theirs, ours) = (view.game.moves(), game.moves());
        let common = theirs.iter().zip(ours).take_while(|(a, b)| a == b).count();
        if common == ours.len() && theirs.len() > ours.len() {
            return (Vec::new(), theirs.len());
        }
        let whole = |message: fn(GameState<'_>) -> ServerMessage<'_>| -> Arc<str> {
            let state = GameState::of(game, remaining_ms).with_connected(|name| self.is_connected_name(name));
            message(state).to_json().into()
        };
        let undone = || Outgoing::Undone {
            game: game.id.as_str().into(),
            text: whole(|game| ServerMessage::Undone { game }),
        };
        if common < theirs.len() {
            return (vec![undone()], ours.len());
        }
        let resumed = view.game.scoring.is_some() && (game.scoring.is_none() || ours.len() > theirs.len());
        if resumed && !game.is_over() {
            let text = whole(|game| ServerMessage::Resumed { game });
            return (vec![Outgoing::Text(text)], ours.len());
        }
        let mut messages = Vec::new();
        let replayed = game.replay_since(theirs.len(), |after, turn| {
            messages.push(Outgoing::Played {
                game: game.id.as_str().into(),
                ply: turn.ply,
                text: played_message(after, turn).into(),
            });
        });
        if replayed.is_err() {
            return (vec![undone()], ours.len());
        }
        if game.scoring.is_some() && game.scoring != view.game.scoring {
            if let Some(marks) = Marks::of(game) {
                let game = game.id.as_str().into();
                let message = ServerMessage::Scoring { game, marks };
                messages.push(Outgoing::Text(message.to_json().into()));
            }
        }
        (messages, ours.len())
    }

    /// `presence` of each player who came or went since.
    fn presence_since(&self, view: &StoredView, game: &ServerGame) -> Vec<Outgoing> {
        let players = [(Color::Black, &game.black), (Color::White, &game.white)];
        players
            .into_iter()
            .zip(view.connected)
            .filter_map(|((color, name), was)| {
                let connected = self.is_connected_name(name);
                (connected != was).then(|| {
                    let message = ServerMessage::Presence {
                        game: game.id.as_str().into(),
                        name: name.as_str().into(),
                        color,
                        connected,
                    };
                    Outgoing::Text(message.to_json().into())
                })
            })
            .collect()
    }
}

/// The chat said since the last message the watcher was sent (all of it if it had none).
fn chat_since(view: &StoredView, game: &ServerGame) -> Vec<Outgoing> {
    let new = match view.game.chat.last() {
        None => 0,
        Some(said) => game
            .chat
            .iter()
            .rposition(|message| message == said)
            .map_or(game.chat.len(), |at| at + 1),
    };
    game.chat[new..]
        .iter()
        .map(|message| Outgoing::Text(chat_text(&game.id, message)))
        .collect()
}
