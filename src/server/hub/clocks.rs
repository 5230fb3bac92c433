//! The move clocks: one deadline a game, and the games lost on time.

use std::cmp::Reverse;
use std::time::Duration;

use tokio::time::Instant;

use crate::game::{EndReason, ServerGame};
use crate::store::GameNow;

use super::{Hub, LiveGame};

impl Hub {
    /// Ends by timeout every game whose player to move has run out of time.
    pub(super) fn expire_clocks(&mut self) {
        let now = Instant::now();
        while let Some(Reverse((at, _))) = self.clocks.peek() {
            if *at > now {
                break;
            }
            let Reverse((at, game_id)) = self.clocks.pop().expect("peeked");
            let Some(live) = self.games.get_mut(&game_id) else {
                continue;
            };
            if live.queued == Some(at) {
                live.queued = None;
            }
            match live.deadline {
                // The last turn awaits its commit, which starts the clock again.
                None => continue,
                Some(deadline) if deadline > now => {
                    if live.queued.is_none() {
                        live.queued = Some(deadline);
                        self.clocks.push(Reverse((deadline, game_id)));
                    }
                    continue;
                }
                Some(_) => {}
            }
            live.deadline = None;
            live.turn_started = None;
            // No agreement in time: the server's marks decide.
            if live.game.scoring.is_some() {
                let marks = live.game.scoring.clone();
                let result = live.game.finish_scoring();
                self.finish_with_marks(&game_id, result, marks, None);
                continue;
            }
            let loser = live.game.to_move();
            if let Some(result) = live.game.end(loser, EndReason::Timeout) {
                self.finish(&game_id, result, None);
            }
        }
    }

    /// Starts the game's clock: the player to move has `remaining` from now (less than its
    /// turn's time where the turn began before, by the store's clock).
    pub(super) fn arm_clock(&mut self, game_id: &str, remaining: Duration) {
        let Some(live) = self.games.get_mut(game_id).filter(|live| !live.game.is_over()) else {
            return;
        };
        let now = Instant::now();
        let deadline = now + remaining;
        let spent = Duration::from_millis(live.game.turn_time_ms()).saturating_sub(remaining);
        live.deadline = Some(deadline);
        live.turn_started = Some(now.checked_sub(spent).unwrap_or(now));
        if live.queued.is_none_or(|queued| queued > deadline) {
            live.queued = Some(deadline);
            self.clocks.push(Reverse((deadline, game_id.to_string())));
        }
    }

    pub(super) fn remaining_ms(&self, live: &LiveGame) -> u64 {
        match live.deadline {
            Some(deadline) => deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
            None => live.game.turn_time_ms(),
        }
    }

    /// How long the turn under way has taken, in milliseconds.
    pub(super) fn turn_elapsed_ms(live: &LiveGame) -> u64 {
        live.turn_started.map_or(0, |started| {
            u64::try_from(Instant::now().saturating_duration_since(started).as_millis()).unwrap_or(u64::MAX)
        })
    }
}

/// The time the store gives the player to move, or (where the process keeps the clock) all the
/// time its clock had when its turn began.
pub(super) fn remaining(now: &GameNow, game: &ServerGame) -> Duration {
    Duration::from_millis(now.remaining_ms.unwrap_or(game.turn_time_ms()))
}

pub(super) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
