//! Chat in a game: a player's messages go to both players and the watchers; a signed-in
//! watcher's go to the watchers only while the game is on, and to everyone after. Stored with
//! the game (the last ones come with its STATE, all of them in its SGF as comments).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::game::{ChatMessage, ServerGame};
use crate::protocol::{ChatChannel, ErrorCode, Refused, ServerMessage};
use crate::store::{StoreError, Write};

use super::queries::unknown_game;
use super::turns::player_keys;
use super::watching::Told;
use super::{ConnId, Delivery, Hub, Outgoing};

/// The longest message, in characters once trimmed.
pub const MAX_CHAT_CHARS: usize = 500;
/// Messages a connection may send within [`CHAT_WINDOW`].
pub const CHAT_BURST: usize = 5;
pub const CHAT_WINDOW: Duration = Duration::from_secs(10);

impl Hub {
    /// `chat` from the signed-in `player` on `conn`.
    pub(super) async fn chat(
        &mut self,
        conn: ConnId,
        player: &str,
        game_id: &str,
        text: &str,
    ) -> Result<(), Refused> {
        let text = checked_text(text).map_err(|message| Refused::bad_request(message).in_game(game_id))?;
        let name = self.players[player].record.name.clone();
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let game = match self.games.get(game_id) {
            Some(live) => live.game.clone(),
            None => match self.ended.get(game_id) {
                Some(game) => game.clone(),
                None => self
                    .stored_game(game_id)
                    .await
                    .map_err(|error| self.lost(error))?
                    .ok_or_else(|| unknown_game(game_id))?,
            },
        };
        self.within_chat_rate(conn, game_id)?;
        let message = ChatMessage {
            watchers: game.color_of(&name).is_none() && !game.is_over(),
            from: name,
            text,
            ply: game.moves().len(),
            at_ms: now_ms,
        };
        let write = self.write(
            Write::Chat {
                game: game_id.to_string(),
                message: message.clone(),
            },
            Some(conn),
        );
        let text = chat_text(game_id, &message);
        if !message.watchers {
            for player in player_keys(&game) {
                let message = Outgoing::Text(text.clone());
                self.deliver_later(Some(write), Delivery::ToPlayer(player, message));
            }
        }
        self.tell_watchers_later(game_id, Told::Other, &text, Some(write));
        // A sender that is neither a player nor watching hears its own words all the same.
        let watching = self.rooms.lock().watches(conn, game_id);
        if game.color_of(&message.from).is_none() && !watching {
            self.deliver_later(Some(write), Delivery::ToConnection(conn, text.clone()));
        }
        self.keep_chat(game_id, message);
        Ok(())
    }

    /// A message another process stored: kept, and told to whom it is for here (once it is
    /// published).
    pub(super) async fn remote_chat(&mut self, game_id: &str, id: i64) -> Result<(), StoreError> {
        if !self.games.contains_key(game_id) && !self.ended.contains_key(game_id) {
            return Ok(()); // nobody here follows the game
        }
        let Some((_, message)) = self.store.chat_message(id).await? else {
            return Ok(());
        };
        let text = chat_text(game_id, &message);
        let game: Option<&ServerGame> = self.games.get(game_id).map(|live| &live.game);
        if let Some(players) = game.or_else(|| self.ended.get(game_id)).map(player_keys) {
            if !message.watchers {
                for player in &players {
                    self.tell_player_after_publish(player, Outgoing::Text(text.clone()));
                }
            }
            self.tell_watchers(game_id, &players, Told::Other, &text);
        }
        self.keep_chat(game_id, message);
        Ok(())
    }

    fn keep_chat(&mut self, game_id: &str, message: ChatMessage) {
        if let Some(live) = self.games.get_mut(game_id) {
            live.game.add_chat(message);
        } else if let Some(game) = self.ended.get_mut(game_id) {
            game.add_chat(message);
        }
    }

    /// At most [`CHAT_BURST`] messages in [`CHAT_WINDOW`] a connection; the connection stays.
    fn within_chat_rate(&mut self, conn: ConnId, game_id: &str) -> Result<(), Refused> {
        let Some(connection) = self.connections.get_mut(&conn) else {
            return Ok(());
        };
        let now = Instant::now();
        let sent: &mut VecDeque<Instant> = &mut connection.chat_sent;
        while sent
            .front()
            .is_some_and(|&at| now.duration_since(at) >= CHAT_WINDOW)
        {
            sent.pop_front();
        }
        if sent.len() >= CHAT_BURST {
            return Err(Refused::new(
                ErrorCode::RateLimited,
                format!(
                    "at most {CHAT_BURST} chat messages in {} seconds: wait a moment",
                    CHAT_WINDOW.as_secs()
                ),
            )
            .in_game(game_id));
        }
        sent.push_back(now);
        Ok(())
    }
}

/// The text as it is kept: trimmed, 1 to [`MAX_CHAT_CHARS`] characters, no control character.
fn checked_text(text: &str) -> Result<String, String> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err("field 'text' is empty: say something".into());
    }
    if chars > MAX_CHAT_CHARS {
        return Err(format!(
            "field 'text' has {chars} characters; at most {MAX_CHAT_CHARS} are taken"
        ));
    }
    if let Some(control) = text.chars().find(|c| c.is_control()) {
        return Err(format!(
            "field 'text' holds the control character U+{:04X}: send plain text on one line",
            u32::from(control)
        ));
    }
    Ok(text.to_string())
}

pub(super) fn chat_text(game_id: &str, message: &ChatMessage) -> Arc<str> {
    ServerMessage::Chat {
        game: game_id.into(),
        from: message.from.as_str().into(),
        text: message.text.as_str().into(),
        ply: message.ply,
        at_ms: message.at_ms,
        channel: ChatChannel::of(message),
    }
    .to_json()
    .into()
}
