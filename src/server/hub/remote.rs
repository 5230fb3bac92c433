//! Changes from the other processes on a shared database, and recovery from a lost one.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::auth;
use crate::game::ServerGame;
use crate::protocol::{GameState, ServerMessage};
use crate::store::{Change, GameNow, StoreError};

use super::clocks::remaining;
use super::turns::{played_message, player_keys};
use super::watching::Told;
use super::{Delivery, Hub, LiveGame, Outgoing, MAX_RECONNECT_WAIT};

impl Hub {
    /// Waits for a lost database to come back (if the connection was lost), then reads every
    /// game again. `false` if the server began stopping meanwhile.
    pub(super) async fn recover(&mut self, error: StoreError) -> bool {
        self.healthy.store(false, Ordering::Relaxed);
        let mut lost = error.is_connection_lost();
        if lost {
            eprintln!("gokata serve: lost the database ({error}); reconnecting");
        } else {
            eprintln!("gokata serve: the database refused a batch ({error}); reading every game again");
        }
        let mut wait = Duration::from_millis(50);
        let mut must_reconnect = lost;
        loop {
            if must_reconnect {
                if !self.pause(wait).await {
                    return false;
                }
                wait = (wait * 2).min(MAX_RECONNECT_WAIT);
                if self.store.reconnect().await.is_err() {
                    continue;
                }
            }
            self.remote_everything = true;
            let games = self.remote_games().await;
            let read = match self.failure.take() {
                Some(error) => Err(error),
                None => self.catch_up(games).await,
            };
            match read {
                Ok(()) => break,
                Err(error) if error.is_connection_lost() => {
                    lost = true;
                    must_reconnect = true;
                }
                Err(error) => {
                    // Not a lost connection: trying again would fail the same way.
                    eprintln!("gokata serve: could not read the games again ({error})");
                    break;
                }
            }
        }
        self.remote_everything = false;
        self.failure = None;
        self.healthy.store(true, Ordering::Relaxed);
        if lost {
            eprintln!("gokata serve: the database is back");
            // The others may have taken this process for dead meanwhile.
            self.announce_everyone_here();
        }
        true
    }

    /// Sleeps `wait`; `false` if the server began stopping meanwhile.
    pub(super) async fn pause(&mut self, wait: Duration) -> bool {
        let Some(stopping) = self.stopping.as_mut() else {
            tokio::time::sleep(wait).await;
            return true;
        };
        let stopped = tokio::select! {
            () = tokio::time::sleep(wait) => false,
            _ = stopping.wait_for(|stopping| *stopping) => true,
        };
        !stopped && !*stopping.borrow()
    }

    /// Plays the turns other processes told of, in order, on the games as this process holds
    /// them, and announces each to its players and watchers here (once published). A turn that
    /// does not follow what this process holds (a notification was missed, or the game is new
    /// here) has its game read instead.
    pub(super) fn play_remote_turns(&mut self) {
        for change in std::mem::take(&mut self.remote_turns) {
            let Change::Turn {
                game: game_id,
                ply,
                point,
                clocks,
            } = change
            else {
                continue;
            };
            // A game not held here is not replayed: nobody here needs it (or it is new here,
            // and read whole as its `Change::Game` says).
            let Some(live) = self.games.get_mut(&game_id) else {
                if let Some(directory) = &mut self.directory {
                    directory.turn(&game_id, ply);
                }
                if !self.holds_only_needed() {
                    self.remote.insert(game_id);
                }
                continue;
            };
            let known = live.game.moves().len();
            if known > ply {
                continue; // told twice: a catch-up read it already
            }
            if live.dirty || live.game.is_over() || known < ply {
                self.remote.insert(game_id);
                continue;
            }
            let color = live.game.to_move();
            let pending_undo = live.game.undo.pending;
            let Ok(turn) = live.game.play(color, ply, point.as_deref()) else {
                live.dirty = true;
                self.remote.insert(game_id);
                continue;
            };
            live.announced = live.game.moves().len();
            let declined = pending_undo
                .filter(|request| request.by != color)
                .map(|request| (live.game.player(request.by).to_string(), request.ply));
            // An older process tells no clocks: its games are all per move, whose clocks stay.
            if let Some(clocks) = clocks {
                live.game.set_clocks(clocks);
            }
            let move_time = Duration::from_millis(live.game.turn_time_ms());
            let text: Arc<str> = played_message(&live.game, &turn).into();
            let players = player_keys(&live.game);
            self.tell_played(&game_id, &players, ply, &text);
            if let Some((by, request_ply)) = declined {
                self.tell_undo_declined(&game_id, &by, request_ply);
            }
            // The result of a last pass comes as a change of its own, read with its records.
            if turn.result.is_none() {
                self.arm_clock(&game_id, move_time);
                if self.games[&game_id].game.scoring.is_some() {
                    self.tell_scoring(&game_id);
                }
            }
        }
    }

    /// The games other processes changed, taking them from the batch's list. `Everything`
    /// stays asked for if the live games cannot be listed.
    pub(super) async fn remote_games(&mut self) -> Vec<String> {
        let mut games: HashSet<String> = std::mem::take(&mut self.remote);
        if self.remote_everything {
            if self.directory.is_some() {
                if let Err(error) = self.reread_listing().await {
                    self.failure.get_or_insert(error);
                    return games.into_iter().collect();
                }
            }
            let everything = if self.holds_only_needed() {
                // What this process holds, and what its players play.
                let names: Vec<String> = self
                    .players
                    .values()
                    .map(|player| player.record.name.clone())
                    .collect();
                self.store.live_games_of(&names).await
            } else {
                self.store.live_game_ids().await
            };
            match everything {
                Ok(live) => {
                    self.remote_everything = false;
                    games.extend(live);
                    games.extend(self.games.keys().cloned());
                    // And those watched here, held or to be.
                    games.extend(self.rooms.lock().games());
                }
                Err(error) => {
                    self.failure.get_or_insert(error);
                }
            }
        }
        games.into_iter().collect()
    }

    /// Brings these games up to the store: turns and results another process stored are
    /// announced to this process's players, in order and once, and a game new to this
    /// process is started for its players here.
    pub(super) async fn catch_up(&mut self, games: Vec<String>) -> Result<(), StoreError> {
        let known: Vec<(String, usize)> = games
            .into_iter()
            .map(|id| {
                let from = match self.games.get(&id) {
                    Some(live) if !live.dirty => live.game.moves().len(),
                    _ => 0,
                };
                (id, from)
            })
            .collect();
        if known.is_empty() {
            return Ok(());
        }
        for now in self.store.games_now(&known).await? {
            self.apply(now).await?;
        }
        Ok(())
    }

    pub(super) async fn apply(&mut self, now: GameNow) -> Result<(), StoreError> {
        let corrupt = |problem: String| StoreError::Corrupt(problem);
        let id = now.game.id.clone();
        if let Some(directory) = &mut self.directory {
            directory.read(&now);
        }
        if let Some(held) = self.games.get_mut(&id) {
            if !held.dirty
                && now
                    .stored_plies
                    .is_some_and(|plies| plies < held.game.moves().len())
            {
                // A turn was taken back meanwhile, unheard of: read whole, after this batch.
                held.dirty = true;
                self.remote.insert(id);
                return Ok(());
            }
        }
        if !self.games.contains_key(&id) {
            if now.game.result.is_none() && !self.needs(&id, [&now.game.black, &now.game.white]) {
                return Ok(());
            }
            let player_here = [&now.game.black, &now.game.white]
                .into_iter()
                .any(|name| self.players.contains_key(&auth::name_key(name)));
            if now.game.result.is_some() {
                // A game this process never had (nobody here waits for it), or one whose end
                // it announced already (but to whoever joined its room since).
                let (told, watched) = (self.recently_over.contains(&id), self.rooms.lock().has(&id));
                if told && watched {
                    return self.tell_late_watchers_over(&now);
                }
                if told || (!watched && !player_here) {
                    return Ok(());
                }
            }
            // Started here as it began, and its turns announced one by one below.
            self.begin_remote_game(&now)?;
        }
        let live = self.games.remove(&id).expect("checked above");
        let queued = live.queued;
        let held_undo = live.game.undo.pending;
        let held_scoring = live.game.scoring.clone();
        let mut undone = false;
        let (mut game, first_ply, new_turns) = if live.dirty {
            // Replayed from the start; what this process announced already is not again, but
            // for turns taken back since.
            let told = &live.game.moves()[..live.announced.min(live.game.moves().len())];
            let common = told
                .iter()
                .zip(&now.game.moves)
                .take_while(|(a, b)| a.as_deref() == b.as_deref())
                .count();
            undone = common < told.len();
            let mut known = now.game.clone();
            known.moves.truncate(common);
            known.turn_clocks.truncate(common);
            known.clocks = match common.checked_sub(1) {
                Some(last) => now
                    .game
                    .turn_clocks
                    .get(last)
                    .copied()
                    .flatten()
                    .unwrap_or(now.game.clocks),
                None => [now.game.terms.time.new_clock(); 2],
            };
            known.result = None;
            known.scoring = None; // entered, if at all, by a turn played below
            let game = ServerGame::from_stored(&known).map_err(corrupt)?;
            (game, common, &now.game.moves[common..])
        } else {
            (live.game, now.first_ply, &now.game.moves[..])
        };
        if undone {
            let state =
                GameState::of(&game, game.turn_time_ms()).with_connected(|name| self.is_connected_name(name));
            let text: Arc<str> = ServerMessage::Undone { game: state }.to_json().into();
            let number = self.next_news();
            self.tell_undone(&player_keys(&game), &id, first_ply, &text, number);
        }
        let clocks_from = first_ply - now.first_ply.min(first_ply);
        for (offset, point) in new_turns.iter().enumerate() {
            let ply = first_ply + offset;
            let color = game.to_move();
            let turn = game
                .play(color, ply, point.as_deref())
                .map_err(|refusal| corrupt(format!("game {id} turn {ply}: {refusal:?}")))?;
            if let Some(Some(clocks)) = now.game.turn_clocks.get(clocks_from + offset) {
                game.set_clocks(*clocks);
            }
            let text: Arc<str> = played_message(&game, &turn).into();
            self.tell_played(&id, &player_keys(&game), ply, &text);
        }
        game.set_clocks(now.game.clocks);
        game.undo = now.game.undo;
        game.scoring = now.game.scoring.clone();
        let scoring_changed = held_scoring != game.scoring && now.game.result.is_none();
        match (held_undo, now.game.undo.pending) {
            (held, Some(request)) if held != Some(request) => {
                let text = ServerMessage::UndoRequested {
                    game: id.as_str().into(),
                    ply: request.ply,
                    by: request.by,
                }
                .to_json();
                let text: Arc<str> = text.into();
                for player in player_keys(&game) {
                    self.tell_player_after_publish(&player, Outgoing::Text(text.clone()));
                }
            }
            (Some(request), None) if !undone => {
                let by = game.player(request.by).to_string();
                self.tell_undo_declined(&id, &by, request.ply);
            }
            _ => {}
        }
        if let (Some(result), Some(records)) = (now.game.result, &now.records) {
            game.set_result(result);
            self.announce_over(&game, result, records, now.ratings.as_ref());
            return Ok(());
        }
        let remaining = remaining(&now, &game);
        let resumed = scoring_changed && game.scoring.is_none();
        let mut rebuilt = LiveGame::new(game);
        // Its entry in `clocks` stays: one entry per game, however often it changes.
        rebuilt.queued = queued;
        self.hold(rebuilt);
        self.arm_clock(&id, remaining);
        if resumed {
            let live = &self.games[&id];
            let state = GameState::of(&live.game, self.remaining_ms(live))
                .with_connected(|name| self.is_connected_name(name));
            let text: Arc<str> = ServerMessage::Resumed { game: state }.to_json().into();
            let players = player_keys(&self.games[&id].game);
            for player in &players {
                self.tell_player_after_publish(player, Outgoing::Text(text.clone()));
            }
            self.tell_watchers(&id, &players, Told::Other, &text);
        } else if scoring_changed {
            self.tell_scoring(&id);
        }
        if self.waits_for(&id) {
            self.news.push(Delivery::BringUp { game: id });
        }
        Ok(())
    }

    /// A turn another process stored, to the players and the watchers here once published.
    fn tell_played(&mut self, game_id: &str, players: &[String; 2], ply: usize, text: &Arc<str>) {
        let played = Outgoing::Played {
            game: game_id.into(),
            ply,
            text: text.clone(),
        };
        for player in players {
            self.tell_player_after_publish(player, played.clone());
        }
        self.tell_watchers(game_id, players, Told::Turn(ply), text);
    }

    /// A game another process paired: `start` to its players here, as the game began (any
    /// turns it has already are announced after it, each with its `played`).
    pub(super) fn begin_remote_game(&mut self, now: &GameNow) -> Result<(), StoreError> {
        let mut first = now.game.clone();
        first.moves.clear();
        first.result = None;
        // As it began: its scoring phase and undo request, if any, come after its turns.
        first.scoring = None;
        first.undo.pending = None;
        let game = ServerGame::from_stored(&first).map_err(StoreError::Corrupt)?;
        let remaining = remaining(now, &game);
        let start: Arc<str> = ServerMessage::Start {
            game: GameState::of(&game, remaining.as_millis() as u64)
                .with_connected(|name| self.is_connected_name(name)),
        }
        .to_json()
        .into();
        for player in player_keys(&game) {
            self.tell_player_after_publish(&player, Outgoing::Text(start.clone()));
        }
        let id = game.id.clone();
        self.hold(LiveGame::new(game));
        self.arm_clock(&id, remaining);
        Ok(())
    }

    /// Holds a live game, new or rebuilt (which keeps its place in the order of games).
    pub(super) fn hold(&mut self, mut live: LiveGame) {
        live.order = match self.games.get(&live.game.id) {
            Some(held) => held.order,
            None => {
                self.games_held += 1;
                self.games_held
            }
        };
        self.games.insert(live.game.id.clone(), live);
    }
}
