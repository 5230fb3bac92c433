//! What a connection answers itself, without waiting on the hub: `sync` and `watch`, from what
//! the hub published ([`crate::snapshot`]) or, for a game it does not hold, from the store's
//! reader; and `unwatch`. A watcher joins its game's room ([`crate::rooms`]) as it is sent the
//! state; the hub tells the room the game's news from then on.
//!
//! Why nothing is missed or told twice: the hub publishes a change before it tells of it, and
//! picks a room's recipients under the rooms' lock. A watcher reads the published game and
//! joins under that lock, and queues its state there too, so a piece of news the hub told
//! before the watcher joined is in the game it read, and one told after comes after its state,
//! to be sent unless the state has it (by the turns and the news number the watcher joined
//! with). A game the hub does not hold is sent as stored: the hub, told of the watcher, holds
//! the game and brings the watcher up to it (see `hub::from_store`).
//!
//! A player's own copies of its game's turns are not in any room: a state answering `sync` (or
//! `watch`) carries its turns, and the connection drops a later `played` of one of them (the
//! hub may tell a turn after the publication the state was read from had it).

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::game::ServerGame;
use crate::hub::{ConnId, Outgoing};
use crate::protocol::{GameState, Ref, Refused, ServerMessage};
use crate::reads::Reads;
use crate::rooms::{Member, Rooms, Seen, StoredView, Watchers, MAX_WATCHED};
use crate::snapshot::{PublishedGame, Snapshot};

/// The connections' answers: what the hub published, the store's reader, and the rooms.
pub struct Answers {
    reads: Arc<Reads>,
    rooms: Rooms,
}

/// Where a connection's answer goes: its outbox (whose strong sender is the hub's), with the
/// `ref` of the frame it answers.
pub struct Reply<'a> {
    pub outbox: &'a mpsc::WeakSender<Outgoing>,
    pub reference: Option<&'a Ref>,
}

/// Why a request got no answer of its own.
#[derive(Debug)]
pub enum Unanswered {
    /// It is answered with this error.
    Refused(Refused),
    /// The client does not read what it is sent (its outbox is full): the connection is closed.
    TooSlow,
}

impl From<Refused> for Unanswered {
    fn from(refused: Refused) -> Unanswered {
        Unanswered::Refused(refused)
    }
}

/// What a `watch` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Watched {
    /// The connection follows the game, sent as published.
    Following,
    /// It follows the game, sent as stored: the hub is to hold the game and bring the watcher
    /// up to it (`Event::Watched`).
    FromStore,
    /// The game is over: its state, and nothing more (it is not watched).
    Finished,
}

impl Reply<'_> {
    /// Queues `message`; a client whose outbox is full is sent the close frame instead (the
    /// last slot is kept for it, as the hub does).
    pub fn push(&self, message: Outgoing) -> Result<(), Unanswered> {
        let Some(outbox) = self.outbox.upgrade() else {
            return Ok(()); // the hub let go of the connection: it is closing
        };
        if outbox.capacity() > 1 && outbox.try_send(message).is_ok() {
            return Ok(());
        }
        let _ = outbox.try_send(Outgoing::Close(1008, "too slow: messages were not read"));
        Err(Unanswered::TooSlow)
    }

    /// `text`, with the answered frame's `ref`.
    fn stamped(&self, text: &str) -> Arc<str> {
        match self.reference {
            Some(reference) => reference.stamp(text).into(),
            None => text.into(),
        }
    }

    /// A `state` message of `game`, whose STATE is `state`: for a live game, tagged with its
    /// turns, so that the connection drops the `played` of any it has.
    fn state(&self, game: &ServerGame, state: &str) -> Outgoing {
        let text = self.stamped(&format!(r#"{{"type":"state","game":{state}}}"#));
        if game.is_over() {
            return Outgoing::Text(text);
        }
        Outgoing::State {
            game: game.id.as_str().into(),
            plies: game.moves().len(),
            text,
        }
    }
}

impl Answers {
    pub fn new(reads: Arc<Reads>, rooms: Rooms) -> Answers {
        Answers { reads, rooms }
    }

    fn snapshot(&self) -> &Snapshot {
        self.reads.snapshot()
    }

    /// `sync` from a signed-in connection: the game's STATE as its players see it.
    pub async fn sync(&self, game_id: &str, reply: &Reply<'_>) -> Result<(), Unanswered> {
        let published =
            |published: &PublishedGame| reply.push(reply.state(&published.game, &published.state_json()));
        if let Some(sent) = self.snapshot().with_game(game_id, |game| game.map(published)) {
            return sent;
        }
        let stored = self.stored(game_id, false).await?;
        // Held since it was read: as published, which is at least as new.
        self.snapshot().with_game(game_id, |held| match held {
            Some(held) => published(held),
            None => reply.push(reply.state(&stored.game, &stored.state)),
        })
    }

    /// `watch`: the game's STATE as its watchers see it; the connection then follows the game,
    /// unless it is over.
    pub async fn watch(&self, conn: ConnId, game_id: &str, reply: &Reply<'_>) -> Result<Watched, Unanswered> {
        let joined = self.join_published(&mut self.rooms.lock(), conn, game_id, reply)?;
        if let Some(watched) = joined {
            return Ok(watched);
        }
        let stored = self.stored(game_id, true).await?;
        if stored.game.is_over() {
            reply.push(reply.state(&stored.game, &stored.state))?;
            return Ok(Watched::Finished);
        }
        let mut watchers = self.rooms.lock();
        // Held since it was read: as published, which is at least as new.
        if let Some(watched) = self.join_published(&mut watchers, conn, game_id, reply)? {
            return Ok(watched);
        }
        within_limit(&watchers, conn, game_id)?;
        reply.push(reply.state(&stored.game, &stored.state))?;
        let view = StoredView {
            game: stored.game,
            connected: stored.connected,
        };
        let member = Member {
            outbox: reply.outbox.clone(),
            seen: Seen::FromStore(Box::new(view)),
        };
        watchers.join(conn, game_id, member);
        Ok(Watched::FromStore)
    }

    /// `unwatch`: nothing more of the game comes after its answer.
    pub fn unwatch(&self, conn: ConnId, game_id: &str, reply: &Reply<'_>) -> Result<(), Unanswered> {
        let mut watchers = self.rooms.lock();
        watchers.leave(conn, game_id);
        let text = ServerMessage::Unwatched { game: game_id.into() }.to_json();
        reply.push(Outgoing::Text(reply.stamped(&text)))
    }

    /// The connection is gone: out of every room.
    pub fn leave(&self, conn: ConnId) {
        self.rooms.lock().leave_all(conn);
    }

    /// Joins the game's room with its state as published, if the hub holds it (`None` if not).
    fn join_published(
        &self,
        watchers: &mut Watchers,
        conn: ConnId,
        game_id: &str,
        reply: &Reply<'_>,
    ) -> Result<Option<Watched>, Unanswered> {
        self.snapshot().with_game(game_id, |published| {
            let Some(published) = published else {
                return Ok(None);
            };
            within_limit(watchers, conn, game_id)?;
            reply.push(reply.state(&published.game, &published.watcher_state_json()))?;
            let seen = Seen::Following {
                plies: published.game.moves().len(),
                news: published.news,
            };
            let member = Member {
                outbox: reply.outbox.clone(),
                seen,
            };
            watchers.join(conn, game_id, member);
            Ok(Some(Watched::Following))
        })
    }

    /// The game as stored, and its STATE (`for_watchers`: as its watchers see it), with who is
    /// connected as the hub last published it.
    async fn stored(&self, game_id: &str, for_watchers: bool) -> Result<Stored, Unanswered> {
        let (game, remaining_ms) = self
            .reads
            .stored_game(game_id)
            .await
            .map_err(Refused::unavailable)?
            .ok_or_else(|| Refused::unknown_game(game_id))?;
        let connected = [&game.black, &game.white].map(|name| self.snapshot().is_connected(name));
        let remaining_ms = remaining_ms.unwrap_or_else(|| game.turn_time_ms());
        let mut state = GameState::of(&game, remaining_ms)
            .with_connected(|name| connected[usize::from(name != game.black)]);
        if for_watchers {
            state = state.for_watchers(&game);
        }
        let state = serde_json::to_string(&state).expect("a state always serialises");
        Ok(Stored {
            game,
            state,
            connected,
        })
    }
}

/// A game as the store had it, and the STATE made of it.
struct Stored {
    game: ServerGame,
    state: String,
    /// Whether each player was connected, as the state says (black first).
    connected: [bool; 2],
}

/// A connection watches at most [`MAX_WATCHED`] games; one it watches already may be watched
/// again.
fn within_limit(watchers: &Watchers, conn: ConnId, game_id: &str) -> Result<(), Refused> {
    if watchers.watches(conn, game_id) || watchers.watched_by(conn) < MAX_WATCHED {
        return Ok(());
    }
    Err(Refused::bad_request(format!(
        "a connection watches at most {MAX_WATCHED} games at once: unwatch one first"
    ))
    .in_game(game_id))
}
