//! The commit of a batch, and the deliveries it allows: nothing is announced before it is stored.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::auth;
use crate::game::{GameResult, ServerGame};
use crate::protocol::{ErrorCode, Refused, ServerMessage};
use crate::store::{Change, Outcome, Records, StoreError, Write};

use super::batch::Batch;
use super::turns::player_keys;
use super::{ConnId, Delivery, Hub, LiveGame, Outgoing, Pending};

/// A result's records and rating changes, as its commit returned them.
pub(super) type Settled<'a> = (&'a Records, Option<&'a Value>);

/// A batch committed: what it lets be delivered once it is published.
pub(super) struct Committed {
    writes: Vec<Write>,
    outcomes: Vec<Outcome>,
    deliveries: Vec<Pending>,
    /// Games read again (a write was rejected, or a result counted a turn not seen here).
    reread: HashSet<String>,
    /// The connections whose requests were rejected, to be sent the game as it is.
    stale: Vec<(ConnId, String)>,
    to_announce: Vec<Change>,
    closed: Vec<String>,
}

impl Hub {
    /// Commits the batch's writes, publishes what they changed, then delivers what the batch
    /// says, in the order handled. A game whose write was rejected, or whose result the store
    /// counted after a turn this process had not seen, is read again first (announcing what it
    /// had missed), so that nothing delivered shows what was not stored; the sender of a
    /// rejected request gets the state. Then tells the other processes what stores nothing,
    /// and withdraws the seeks of players closed for being too slow.
    pub(super) async fn commit_and_deliver(&mut self) -> Result<(), StoreError> {
        let Some(committed) = self.commit_batch().await? else {
            return Ok(());
        };
        // Before anything is told: whoever is told a turn can read it (and the news of games
        // read again goes out first).
        self.publish();
        self.deliver_committed(committed).await;
        Ok(())
    }

    /// Commits the batch's writes; `None` if the commit failed on a shared store (whose
    /// recovery delivered what it could).
    pub(super) async fn commit_batch(&mut self) -> Result<Option<Committed>, StoreError> {
        let Batch {
            writes,
            origins,
            deliveries,
            clocks_to_start,
            closed,
            to_announce,
        } = std::mem::take(&mut self.batch);
        let outcomes = if writes.is_empty() {
            Vec::new()
        } else {
            match self.store.commit(&writes).await {
                Ok(outcomes) => outcomes,
                Err(error) if self.store.is_shared() => {
                    self.lost_batch(&writes, &origins, deliveries, error).await;
                    self.after_commit(to_announce, closed).await;
                    return Ok(None);
                }
                Err(error) => return Err(error),
            }
        };
        let mut reread: HashSet<String> = HashSet::new();
        // A last pass and its result are two writes of one request: one state answers both.
        let mut stale: Vec<(ConnId, String)> = Vec::new();
        for (index, (write, outcome)) in writes.iter().zip(&outcomes).enumerate() {
            match (write, outcome) {
                (_, Outcome::Rejected) => {
                    reread.insert(write.game().to_string());
                    if let Some(conn) = origins[index] {
                        let request = (conn, write.game().to_string());
                        if !stale.contains(&request) {
                            stale.push(request);
                        }
                    }
                }
                (Write::Turn { game, ply, .. }, _) => {
                    if let Some(live) = self.games.get_mut(game) {
                        live.announced = live.announced.max(ply + 1);
                    }
                }
                (Write::Finish { game, .. }, Outcome::Finished { plies, .. }) => {
                    let known = self.games.get(game).map(|live| live.game.moves().len());
                    if known.is_some_and(|known| known != *plies) {
                        reread.insert(game.clone());
                    }
                }
                _ => {}
            }
        }
        for game in &reread {
            if let Some(live) = self.games.get_mut(game) {
                live.dirty = true;
            }
        }
        if !reread.is_empty() {
            if let Err(error) = self.catch_up(reread.iter().cloned().collect()).await {
                self.failure.get_or_insert(error);
            }
        }
        for (game_id, write) in clocks_to_start {
            if outcomes[write] != Outcome::Rejected && !reread.contains(&game_id) {
                let move_time = self.games.get(&game_id).map(|live| live.game.turn_time_ms());
                if let Some(move_time) = move_time {
                    self.arm_clock(&game_id, Duration::from_millis(move_time));
                }
            }
        }
        Ok(Some(Committed {
            writes,
            outcomes,
            deliveries,
            reread,
            stale,
            to_announce,
            closed,
        }))
    }

    /// Delivers what a committed batch says, once it is published.
    pub(super) async fn deliver_committed(&mut self, committed: Committed) {
        let Committed {
            writes,
            outcomes,
            deliveries,
            reread,
            stale,
            to_announce,
            closed,
        } = committed;
        for pending in deliveries {
            let records = match pending
                .after
                .map(|write| (&outcomes[write], writes[write].game()))
            {
                Some((Outcome::Rejected, _)) => continue,
                // The game was read again, and its `over` announced with the turns it missed.
                Some((Outcome::Finished { .. }, game)) if reread.contains(game) => continue,
                Some((Outcome::Finished { records, ratings, .. }, _)) => Some((records, ratings.as_ref())),
                _ => None,
            };
            self.deliver_pending(pending, records);
        }
        // As for a stale turn: the sender gets the game as it is.
        for (conn, game) in stale {
            let _ = self.send_state(conn, &game).await;
        }
        self.flush_deliveries();
        self.ended.clear();
        self.after_commit(to_announce, closed).await;
    }

    /// What follows a batch's commit: the other processes told what stores nothing (again
    /// after a lost database: each may be told twice), the seeks of players `closed` withdrawn.
    async fn after_commit(&mut self, mut to_announce: Vec<Change>, mut closed: Vec<String>) {
        // And what the deliveries added: connections closed for being too slow meanwhile.
        to_announce.append(&mut self.batch.to_announce);
        closed.append(&mut self.batch.closed);
        if !to_announce.is_empty() {
            if let Err(error) = self.store.announce(&to_announce).await {
                self.batch.to_announce.splice(0..0, to_announce);
                self.failure.get_or_insert(error);
            }
        }
        for name in closed {
            self.seeks_changed = true;
            if let Err(error) = self.store.withdraw_seek(&name).await {
                self.failure.get_or_insert(error);
            }
        }
    }

    /// The commit failed on a shared store: whether it was stored is unknown. Once the store
    /// answers again, the games are read again (which announces whatever was stored after
    /// all), then what does not depend on the batch is delivered, and each request that did not
    /// get through is refused, to be sent again.
    pub(super) async fn lost_batch(
        &mut self,
        writes: &[Write],
        origins: &[Option<ConnId>],
        deliveries: Vec<Pending>,
        error: StoreError,
    ) {
        for write in writes {
            if let Some(live) = self.games.get_mut(write.game()) {
                live.dirty = true;
            }
        }
        let independent: Vec<Pending> = deliveries
            .into_iter()
            .filter(|pending| pending.after.is_none())
            .collect();
        if !self.recover(error).await {
            return;
        }
        self.publish();
        for pending in independent {
            self.deliver_pending(pending, None);
        }
        for (write, origin) in writes.iter().zip(origins) {
            let Some(conn) = *origin else {
                continue;
            };
            let live = self.games.get(write.game());
            let stored = match write {
                Write::Turn { ply, .. } => live.is_none_or(|live| live.game.moves().len() > *ply),
                Write::Finish { .. } | Write::NewGame(_) => live.is_none(),
                // Read again, the game tells; the request is sent again either way.
                Write::Undo { .. } | Write::Chat { .. } | Write::Scoring { .. } => false,
            };
            if !stored {
                let refused = Refused::new(
                    ErrorCode::Unavailable,
                    "the server lost its database while storing this; it was not done: send it again",
                )
                .in_game(write.game());
                self.refuse(conn, refused);
            }
        }
        self.flush_deliveries();
        self.ended.clear();
    }

    /// `settled`: the records and rating changes of the result this delivery waited for.
    pub(super) fn deliver(&mut self, delivery: Delivery, settled: Option<Settled<'_>>) {
        match delivery {
            Delivery::ToConnection(conn, text) => self.send(conn, Outgoing::Text(text)),
            Delivery::ToPlayer(player, message) => self.send_to_player(&player, &message),
            Delivery::Over { game, result } => {
                // Always with the records of its write's commit.
                let Some((records, ratings)) = settled else {
                    return;
                };
                if let Some(live) = self.games.remove(&game) {
                    self.announce_over(&live.game, result, records, ratings);
                }
            }
            Delivery::Welcome { conn, token } => self.deliver_welcome(conn, &token),
            Delivery::State { conn, game, synced } => self.deliver_state(conn, &game, synced),
            Delivery::Undone {
                game,
                plies,
                text,
                number,
            } => self.announce_undone(&game, plies, &text, number),
            Delivery::ToWatchers(news) => self.deliver_to_watchers(&news),
            Delivery::WatchersOver { game, text } => self.deliver_watchers_over(&game, &text),
            Delivery::BringUp { game } => self.bring_up(&game),
        }
    }

    /// Delivers what was queued outside a batch's commit (replies while catching up).
    pub(super) fn flush_deliveries(&mut self) {
        for pending in std::mem::take(&mut self.batch.deliveries) {
            self.deliver_pending(pending, None);
        }
    }

    /// Delivers `pending`, and the news it makes; what goes to the connection it answers
    /// carries that frame's `ref`.
    fn deliver_pending(&mut self, pending: Pending, settled: Option<Settled<'_>>) {
        self.delivering = pending.answer_to;
        self.deliver(pending.delivery, settled);
        self.tell_news();
        self.delivering = None;
    }

    /// Tells the news of changes published already (see [`Hub::publish`]).
    pub(super) fn tell_news(&mut self) {
        while !self.news.is_empty() {
            for delivery in std::mem::take(&mut self.news) {
                self.deliver(delivery, None);
            }
        }
    }

    /// `over` to both players and the watchers, and their records as the store counted them,
    /// told once published (at once while delivering). The game is no longer live here.
    pub(super) fn announce_over(
        &mut self,
        game: &ServerGame,
        result: GameResult,
        records: &Records,
        ratings: Option<&Value>,
    ) {
        self.games.remove(&game.id);
        if let Some(directory) = &mut self.directory {
            directory.ended(&game.id);
        }
        let mut ended = game.clone();
        ended.ratings = ratings.cloned();
        self.ended.insert(game.id.clone(), ended);
        self.recently_over.push_back(game.id.clone());
        if self.recently_over.len() > super::RECENTLY_OVER {
            self.recently_over.pop_front();
        }
        for standing in [&records.black, &records.white] {
            if let Some(player) = self.players.get_mut(&auth::name_key(&standing.name)) {
                player.record.wins = standing.wins;
                player.record.losses = standing.losses;
                player.record.rating = standing.rating;
                player.record.rated_games = standing.rated_games;
            }
        }
        let text: Arc<str> = ServerMessage::over(&game.id, result, records, ratings).into();
        for player in player_keys(game) {
            self.tell_player_after_publish(&player, Outgoing::Text(text.clone()));
        }
        self.tell_watchers_over(game, &text);
    }

    pub(super) fn deliver_welcome(&mut self, conn: ConnId, token: &str) {
        let Some(key) = self.connections.get(&conn).and_then(|c| c.player.clone()) else {
            return;
        };
        let Some(record) = self.players.get(&key).map(|player| &player.record) else {
            return;
        };
        let mut games: Vec<&LiveGame> = self
            .games
            .values()
            .filter(|live| !live.game.is_over() && live.game.color_of(&record.name).is_some())
            .collect();
        games.sort_by(|a, b| a.game.id.cmp(&b.game.id));
        let text = ServerMessage::Welcome {
            name: record.name.as_str().into(),
            token: token.into(),
            wins: record.wins,
            losses: record.losses,
            bot: record.bot,
            rating: record.rating.rating,
            deviation: record.rating.deviation,
            rank: record.rating.rank_label(),
            games: games.iter().map(|live| self.state_of(live)).collect(),
        }
        .to_json();
        self.send(conn, Outgoing::Text(text.into()));
        self.send(conn, Outgoing::SignedIn);
        if let Some(connection) = self.connections.get_mut(&conn) {
            connection.welcomed = true;
        }
    }

    pub(super) fn deliver_later(&mut self, after: Option<usize>, delivery: Delivery) {
        let answer_to = self.answering.clone();
        self.batch.deliveries.push(Pending {
            after,
            delivery,
            answer_to,
        });
    }

    pub(super) fn reply_to(&mut self, conn: ConnId, text: String) {
        self.deliver_later(None, Delivery::ToConnection(conn, text.into()));
    }

    pub(super) fn tell_player(&mut self, player: &str, message: &ServerMessage<'_>) {
        let message = Outgoing::Text(message.to_json().into());
        self.deliver_later(None, Delivery::ToPlayer(player.to_string(), message));
    }

    pub(super) fn tell_both(&mut self, players: [String; 2], text: String, after: Option<usize>) {
        let text: Arc<str> = text.into();
        for player in players {
            let message = Outgoing::Text(text.clone());
            self.deliver_later(after, Delivery::ToPlayer(player, message));
        }
    }

    /// `message` to the player's connections here, about a change already stored, once it is
    /// published.
    pub(super) fn tell_player_after_publish(&mut self, player: &str, message: Outgoing) {
        self.news.push(Delivery::ToPlayer(player.to_string(), message));
    }
}
