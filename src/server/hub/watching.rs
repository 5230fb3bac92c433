//! Watching, with or without a name: a game's watchers (its room) get its `state`, then its
//! every `played`, `over` and `presence`, in order, once each. (The lobby is watched without
//! the hub: see [`crate::lobby_feed`].)
//!
//! A watcher's `state` is made at delivery time, after the batch's commit, from every turn the
//! hub holds; the watcher joins the room then, with the turns that state has, and gets only
//! later turns. So a turn of the same batch is in the state or comes after it, never both:
//! its `played` may be queued before the `state` (the watcher is not in the room yet) or after
//! it (its ply is one the watcher has seen). A room exists only while someone watches its game.

use std::sync::Arc;

use crate::protocol::{GameState, Refused, ServerMessage};

use super::queries::unknown_game;
use super::turns::player_keys;
use super::{ConnId, Delivery, Hub, LiveView, Outgoing};

/// The most games one connection watches at once.
pub const MAX_WATCHED: usize = 64;
impl Hub {
    /// `watch`: the game's state once the batch is committed, then its news. A finished game
    /// only has its state.
    pub(super) async fn watch(&mut self, conn: ConnId, game_id: &str) -> Result<(), Refused> {
        if !self.connections.contains_key(&conn) {
            return Ok(());
        }
        let stored = if self.games.contains_key(game_id) || self.ended.contains_key(game_id) {
            None
        } else {
            let game = self
                .stored_game(game_id)
                .await
                .map_err(|error| self.lost(error))?
                .ok_or_else(|| unknown_game(game_id))?;
            let state = GameState::of(&game, game.turn_time_ms())
                .with_connected(|name| self.is_connected_name(name))
                .for_watchers(&game);
            let text = ServerMessage::State { game: state }.to_json();
            if game.is_over() {
                // Nothing more will come: not watched, and no reason to keep the connection.
                self.reply_to(conn, text);
                return Ok(());
            }
            // Started by another process, and not held here yet: read after the batch (its
            // turns then come as they do to its players here).
            self.remote.insert(game_id.to_string());
            Some((text, game.moves().len()))
        };
        let Some(connection) = self.connections.get_mut(&conn) else {
            return Ok(());
        };
        if !connection.watching.contains(game_id) && connection.watching.len() >= MAX_WATCHED {
            return Err(Refused::bad_request(format!(
                "a connection watches at most {MAX_WATCHED} games at once: unwatch one first"
            ))
            .in_game(game_id));
        }
        connection.watching.insert(game_id.to_string());
        self.deliver_later(
            None,
            Delivery::Watch {
                conn,
                game: game_id.to_string(),
                stored,
            },
        );
        Ok(())
    }

    pub(super) fn unwatch(&mut self, conn: ConnId, game_id: &str) {
        if let Some(connection) = self.connections.get_mut(&conn) {
            connection.watching.remove(game_id);
        }
        self.deliver_later(
            None,
            Delivery::Unwatch {
                conn,
                game: game_id.to_string(),
            },
        );
    }

    /// A watcher's `state`, as the hub holds the game now; the watcher joins its room with
    /// every turn of it (unless it is over, or the watcher unwatched it since).
    pub(super) fn deliver_watch(&mut self, conn: ConnId, game_id: &str, stored: Option<(String, usize)>) {
        let held = match self.games.get(game_id) {
            Some(live) => Some(&live.game),
            None => self.ended.get(game_id),
        };
        let (text, plies, playing) = match (held, stored) {
            (Some(game), _) => {
                let (plies, playing) = (game.moves().len(), !game.is_over());
                let Some(text) = self.state_message(game_id, LiveView::WatcherState) else {
                    return;
                };
                (text, plies, playing)
            }
            (None, Some((text, plies))) => (text, plies, true),
            (None, None) => {
                // Gone from the hub without an end (its record was unreadable): as unknown.
                if let Some(connection) = self.connections.get_mut(&conn) {
                    connection.watching.remove(game_id);
                }
                self.refuse_now(conn, unknown_game(game_id));
                return;
            }
        };
        self.send(conn, Outgoing::Text(text.into()));
        let Some(connection) = self.connections.get_mut(&conn) else {
            return;
        };
        if !playing {
            connection.watching.remove(game_id);
        } else if connection.watching.contains(game_id) {
            self.rooms
                .entry(game_id.to_string())
                .or_default()
                .insert(conn, plies);
            self.keep(conn);
        }
    }

    pub(super) fn deliver_unwatch(&mut self, conn: ConnId, game_id: &str) {
        self.leave_room(conn, game_id);
        let text = ServerMessage::Unwatched { game: game_id.into() }.to_json();
        self.send(conn, Outgoing::Text(text.into()));
    }

    /// A game's `STATE` message, made now from what the hub holds.
    pub(super) fn state_message(&self, game_id: &str, view: LiveView) -> Option<String> {
        let state = self.live_view(game_id, view)?;
        Some(format!(r#"{{"type":"state","game":{state}}}"#))
    }

    /// `played` (`ply`: sent to each watcher only if later than what it has seen) or
    /// `presence` (`None`) of a game to its watchers here; not to a connection of one of its
    /// players, which gets the players' copy.
    pub(super) fn tell_watchers(
        &mut self,
        game_id: &str,
        players: &[String; 2],
        ply: Option<usize>,
        text: &Arc<str>,
    ) {
        let Some(room) = self.rooms.get_mut(game_id) else {
            return;
        };
        let mut to = Vec::with_capacity(room.len());
        for (&conn, seen) in room.iter_mut() {
            if let Some(ply) = ply {
                if ply < *seen {
                    continue;
                }
                *seen = ply + 1;
            }
            to.push(conn);
        }
        for conn in to {
            if !self.gets_players_copy(conn, players) {
                self.send(conn, Outgoing::Text(text.clone()));
            }
        }
    }

    /// `over` to a game's watchers, whose room then closes: nothing more of the game comes.
    pub(super) fn tell_watchers_over(&mut self, game_id: &str, players: &[String; 2], text: &Arc<str>) {
        self.tell_watchers(game_id, players, None, text);
        let Some(room) = self.rooms.remove(game_id) else {
            return;
        };
        for conn in room.keys() {
            if let Some(connection) = self.connections.get_mut(conn) {
                connection.watching.remove(game_id);
            }
        }
    }

    /// Queues `played` or `presence` for the game's watchers, after the write `after` if any.
    /// A game without a room needs none: whoever joins it in this batch gets a state made after
    /// this, which has it.
    pub(super) fn tell_watchers_later(
        &mut self,
        game_id: &str,
        ply: Option<usize>,
        text: &Arc<str>,
        after: Option<usize>,
    ) {
        let Some(live) = self.games.get(game_id) else {
            return;
        };
        if !self.rooms.contains_key(game_id) {
            return;
        }
        let players = player_keys(&live.game);
        self.deliver_later(
            after,
            Delivery::ToWatchers {
                game: game_id.to_string(),
                players,
                ply,
                text: text.clone(),
            },
        );
    }

    fn gets_players_copy(&self, conn: ConnId, players: &[String; 2]) -> bool {
        self.connections.get(&conn).is_some_and(|connection| {
            connection.welcomed
                && connection
                    .player
                    .as_ref()
                    .is_some_and(|key| players.contains(key))
        })
    }

    fn leave_room(&mut self, conn: ConnId, game_id: &str) {
        if let Some(room) = self.rooms.get_mut(game_id) {
            room.remove(&conn);
            if room.is_empty() {
                self.rooms.remove(game_id);
                self.may_release();
            }
        }
    }

    /// A connection gone: out of its rooms.
    pub(super) fn stop_watching(&mut self, conn: ConnId, watching: &std::collections::HashSet<String>) {
        for game_id in watching {
            self.leave_room(conn, game_id);
        }
    }

    /// Tells the connection that it watches: it is not closed for not saying `hello`.
    fn keep(&mut self, conn: ConnId) {
        let Some(connection) = self.connections.get_mut(&conn) else {
            return;
        };
        if !connection.kept {
            connection.kept = true;
            self.send(conn, Outgoing::Watching);
        }
    }

    /// An error sent at delivery time (the request was accepted when handled).
    fn refuse_now(&mut self, conn: ConnId, refused: Refused) {
        let text = ServerMessage::Error(refused).to_json();
        self.send(conn, Outgoing::Text(text.into()));
    }
}
