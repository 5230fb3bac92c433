//! The lobby's watchers, served without the hub: while anyone in this process watches the
//! lobby, it is made once a second from what the hub published and the store's reader, and
//! each watching connection sends it on when it changed, a second apart at most.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::reads::Reads;
use crate::store::StoreError;

/// The least time between two lobbies sent to one connection.
pub const LOBBY_EVERY: Duration = Duration::from_secs(1);

/// The lobby as last made, for every connection that watches it.
#[derive(Clone)]
pub struct LobbyFeed {
    reads: Arc<Reads>,
    latest: Arc<watch::Sender<Arc<str>>>,
}

impl LobbyFeed {
    /// A feed of `reads`; [`LobbyFeed::run`] makes its lobbies.
    pub fn new(reads: Arc<Reads>) -> LobbyFeed {
        LobbyFeed {
            reads,
            latest: Arc::new(watch::Sender::new(Arc::from(""))),
        }
    }

    /// Makes the lobby once a second while anyone watches it, for as long as the server runs;
    /// a lobby that could not be read (no database) is tried again a second later.
    pub async fn run(self) {
        let mut tick = tokio::time::interval(LOBBY_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if self.latest.receiver_count() == 0 {
                continue;
            }
            if let Ok(lobby) = self.reads.lobby().await {
                self.latest.send_if_modified(|latest| {
                    let changed = **latest != *lobby;
                    if changed {
                        *latest = lobby.into();
                    }
                    changed
                });
            }
        }
    }

    /// `watch_lobby`: the lobby as it is now, and what sends it again when it changes.
    pub async fn watch(&self) -> Result<(Arc<str>, LobbyWatch), StoreError> {
        let mut receiver = self.latest.subscribe();
        let now: Arc<str> = self.reads.lobby().await?.into();
        // The feed's latest becomes this one, so that the next change is told against it.
        self.latest.send_if_modified(|latest| {
            let changed = **latest != *now;
            if changed {
                *latest = now.clone();
            }
            changed
        });
        receiver.borrow_and_update();
        let watch = LobbyWatch {
            receiver,
            last: now.clone(),
            sent_at: Instant::now(),
        };
        Ok((now, watch))
    }
}

/// One connection's watch of the lobby.
pub struct LobbyWatch {
    receiver: watch::Receiver<Arc<str>>,
    /// The last lobby sent, and when.
    last: Arc<str>,
    sent_at: Instant,
}

impl LobbyWatch {
    /// The next lobby to send: one that differs from the last sent, a second after it at the
    /// earliest. Cancel-safe: what it waits for is kept here, not in the future.
    pub async fn next(&mut self) -> Arc<str> {
        loop {
            tokio::time::sleep_until(self.sent_at + LOBBY_EVERY).await;
            if self.receiver.changed().await.is_err() {
                // The feed is gone with the server: nothing more comes.
                std::future::pending::<()>().await;
            }
            let latest = self.receiver.borrow_and_update().clone();
            if latest != self.last {
                self.last = latest.clone();
                self.sent_at = Instant::now();
                return latest;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watching(sender: &watch::Sender<Arc<str>>, last: &str) -> LobbyWatch {
        let mut receiver = sender.subscribe();
        receiver.borrow_and_update();
        LobbyWatch {
            receiver,
            last: last.into(),
            sent_at: Instant::now(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_changed_lobby_is_sent_a_second_after_the_last_at_the_earliest_and_once() {
        let sender = watch::Sender::new(Arc::from(""));
        let started = Instant::now();
        let mut lobby = watching(&sender, "a");
        sender.send_replace("b".into());
        assert_eq!(&*lobby.next().await, "b");
        assert_eq!(
            Instant::now() - started,
            LOBBY_EVERY,
            "not sooner than a second after the first"
        );

        tokio::time::sleep(Duration::from_secs(3)).await;
        sender.send_replace("c".into());
        let sent = Instant::now();
        assert_eq!(&*lobby.next().await, "c", "at once: the last was long ago");
        assert_eq!(Instant::now(), sent);

        sender.send_replace("c".into());
        let unchanged = tokio::time::timeout(Duration::from_secs(5), lobby.next()).await;
        assert!(unchanged.is_err(), "the same lobby is not sent again");
    }
}
