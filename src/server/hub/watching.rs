//! A game's news to its watchers here, its room ([`crate::rooms`]): every `played`, `over`,
//! `presence`, `chat`, `scoring`, `resumed` and `undone` of the game, in order, once each. The
//! connections join and leave rooms themselves, answering `watch` from what the hub published
//! (see [`crate::answers`]); the lobby is watched without the hub (see [`crate::lobby_feed`]).
//!
//! Each piece of news is numbered when the change it tells is made, and goes out only after
//! that change is published. A watcher joins with the turns and the news number of the game
//! as published, so it gets a turn only if it has not seen its `ply`, and other news only if
//! numbered after its state (which has all news numbered up to it); `over` always, which
//! closes the room. A watcher sent the game as stored is brought up to what the hub holds
//! before it gets any news (see `from_store`).

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::game::ServerGame;
use crate::rooms::Seen;

use super::turns::player_keys;
use super::{ConnId, Delivery, Hub, Outgoing};

/// What a piece of news tells a watcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Told {
    /// A turn, of this ply: sent to each watcher once.
    Turn(usize),
    /// Turns were taken back: the game has this many.
    Undone(usize),
    /// Anything else: chat, presence, marks, play resumed.
    Other,
}

/// A piece of a game's news for its watchers.
pub(super) struct News {
    game: String,
    /// The game's players: their connections get the players' copy instead.
    players: [String; 2],
    told: Told,
    /// Its number, given when the change it tells was made.
    number: u64,
    text: Arc<str>,
}

impl News {
    pub(super) fn new(
        game_id: &str,
        players: &[String; 2],
        told: Told,
        number: u64,
        text: &Arc<str>,
    ) -> News {
        News {
            game: game_id.to_string(),
            players: players.clone(),
            told,
            number,
            text: text.clone(),
        }
    }

    fn message(&self) -> Outgoing {
        let game: Arc<str> = self.game.as_str().into();
        let text = self.text.clone();
        match self.told {
            Told::Turn(ply) => Outgoing::Played { game, ply, text },
            Told::Undone(_) => Outgoing::Undone { game, text },
            Told::Other => Outgoing::Text(text),
        }
    }
}

impl Hub {
    /// The number of a piece of news about a change made now.
    pub(super) fn next_news(&mut self) -> u64 {
        self.news_told += 1;
        self.news_told
    }

    /// A piece of news of the game `players` play, numbered now.
    fn news(&mut self, game_id: &str, players: &[String; 2], told: Told, text: &Arc<str>) -> News {
        let number = self.next_news();
        News::new(game_id, players, told, number, text)
    }

    /// Queues news of a game held here for its watchers, after the write `after` if any.
    pub(super) fn tell_watchers_later(
        &mut self,
        game_id: &str,
        told: Told,
        text: &Arc<str>,
        after: Option<usize>,
    ) {
        let Some(live) = self.games.get(game_id) else {
            return;
        };
        let players = player_keys(&live.game);
        let news = self.news(game_id, &players, told, text);
        self.deliver_later(after, Delivery::ToWatchers(news));
    }

    /// News of a change already stored (another process's, or read again) for the game's
    /// watchers, told once the change is published.
    pub(super) fn tell_watchers(
        &mut self,
        game_id: &str,
        players: &[String; 2],
        told: Told,
        text: &Arc<str>,
    ) {
        let news = self.news(game_id, players, told, text);
        self.news.push(Delivery::ToWatchers(news));
    }

    /// `over` to the game's watchers, once its end is published; its room closes.
    pub(super) fn tell_watchers_over(&mut self, game: &ServerGame, text: &Arc<str>) {
        self.news.push(Delivery::WatchersOver {
            game: Box::new(game.clone()),
            text: text.clone(),
        });
    }

    /// Sends `news` to the watchers of its game that lack it, but to the players' connections.
    pub(super) fn deliver_to_watchers(&mut self, news: &News) {
        let rooms = self.rooms.clone();
        let mut slow = Vec::new();
        {
            let mut watchers = rooms.lock();
            let Some(room) = watchers.room_mut(&news.game) else {
                return;
            };
            for (&conn, member) in room.iter_mut() {
                let Seen::Following { plies, news: seen } = &mut member.seen else {
                    continue; // brought up to the game first, with this in it
                };
                match news.told {
                    Told::Turn(ply) if ply < *plies => continue,
                    Told::Turn(ply) => *plies = ply + 1,
                    _ if news.number <= *seen => continue,
                    Told::Undone(left) => *plies = left,
                    Told::Other => {}
                }
                if !self.gets_players_copy(conn, &news.players)
                    && !self.push_to_watcher(conn, &member.outbox, news.message())
                {
                    slow.push((conn, member.outbox.clone()));
                }
            }
        }
        self.close_slow_watchers(slow);
    }

    /// `over` to the game's watchers (those sent it as stored brought up to its end first),
    /// whose room then closes: nothing more of the game comes.
    pub(super) fn deliver_watchers_over(&mut self, game: &ServerGame, text: &Arc<str>) {
        let players = player_keys(game);
        let rooms = self.rooms.clone();
        let mut slow = Vec::new();
        {
            let mut watchers = rooms.lock();
            for (conn, member) in watchers.close(&game.id) {
                if self.gets_players_copy(conn, &players) {
                    continue;
                }
                let mut messages = match member.seen {
                    Seen::FromStore(view) => self.bringing_up(&view, game, 0).0,
                    Seen::Following { .. } => Vec::new(),
                };
                messages.push(Outgoing::Text(text.clone()));
                if !self.push_all_to_watcher(conn, &member.outbox, messages) {
                    slow.push((conn, member.outbox));
                }
            }
        }
        self.close_slow_watchers(slow);
    }

    /// Queues `message` for a watcher (whose connection the hub may not have heard of yet);
    /// `false` if its outbox is full.
    pub(super) fn push_to_watcher(
        &self,
        conn: ConnId,
        outbox: &mpsc::WeakSender<Outgoing>,
        message: Outgoing,
    ) -> bool {
        let Some(outbox) = outbox.upgrade() else {
            return true; // gone
        };
        // The last slot is kept for the close frame.
        outbox.capacity() > 1 && outbox.try_send(self.stamped_for(conn, message)).is_ok()
    }

    /// [`Hub::push_to_watcher`] of each message, in order, while they fit.
    pub(super) fn push_all_to_watcher(
        &self,
        conn: ConnId,
        outbox: &mpsc::WeakSender<Outgoing>,
        messages: Vec<Outgoing>,
    ) -> bool {
        messages
            .into_iter()
            .all(|message| self.push_to_watcher(conn, outbox, message))
    }

    /// Closes the watchers that do not read what they are sent.
    pub(super) fn close_slow_watchers(&mut self, slow: Vec<(ConnId, mpsc::WeakSender<Outgoing>)>) {
        for (conn, outbox) in slow {
            if self.connections.contains_key(&conn) {
                self.close_slow(conn);
            } else if let Some(outbox) = outbox.upgrade() {
                let _ = outbox.try_send(Outgoing::Close(1008, "too slow: messages were not read"));
            }
        }
    }

    /// Whether the connection gets the game's players' copy of its news (it is one of theirs).
    pub(super) fn gets_players_copy(&self, conn: ConnId, players: &[String; 2]) -> bool {
        self.connections.get(&conn).is_some_and(|connection| {
            connection.welcomed
                && connection
                    .player
                    .as_ref()
                    .is_some_and(|key| players.contains(key))
        })
    }

    /// A connection gone: out of its rooms.
    pub(super) fn stop_watching(&mut self, conn: ConnId) {
        self.rooms.lock().leave_all(conn);
    }
}
