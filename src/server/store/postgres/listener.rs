//! The other processes' notifications, on a connection of their own.

use std::future::poll_fn;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Config, NoTls};

use crate::store::notification::{self, Remote};

use super::{alive_instances, beat, CHANNEL, HEARTBEAT};

/// Listens for the other processes' notifications on a connection of its own, polled for them
/// (a pooled connection would drop them), and reconnects when it is lost.
pub struct Listener {
    pub(super) config: Config,
    pub(super) instance: String,
}

impl Listener {
    /// Sends what changed until `changes` closes. After each (re)connection it sends
    /// [`Remote::Listening`]: what was notified while it was not listening is lost.
    pub async fn run(self, changes: mpsc::Sender<Remote>) {
        let mut wait = Duration::from_millis(50);
        while !changes.is_closed() {
            if self.listen(&changes).await {
                wait = Duration::from_millis(50);
            } else {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
        }
    }

    /// One connection's life; whether it got as far as listening.
    async fn listen(&self, changes: &mpsc::Sender<Remote>) -> bool {
        let Ok((client, mut connection)) = self.config.connect(NoTls).await else {
            return false;
        };
        let (notifications, mut received) = mpsc::unbounded_channel();
        let driver = tokio::spawn(async move {
            while let Some(Ok(message)) = poll_fn(|cx| connection.poll_message(cx)).await {
                if let AsyncMessage::Notification(notification) = message {
                    if notifications.send(notification.payload().to_string()).is_err() {
                        break;
                    }
                }
            }
        });
        if client.batch_execute(&format!("LISTEN {CHANNEL}")).await.is_err() {
            driver.abort();
            return false;
        }
        if changes.send(Remote::Listening).await.is_err() {
            driver.abort();
            return true;
        }
        // This connection also says the process is alive, however long the hub's batches take.
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        loop {
            let payload = tokio::select! {
                payload = received.recv() => payload,
                _ = heartbeat.tick() => {
                    if beat(&client, &self.instance).await.is_err() {
                        break;
                    }
                    let Ok(alive) = alive_instances(&client).await else {
                        break;
                    };
                    if changes.send(Remote::Alive(alive)).await.is_err() {
                        break;
                    }
                    continue;
                }
            };
            let Some(payload) = payload else {
                break;
            };
            let Some(remote) = self.parse(&payload) else {
                continue;
            };
            if changes.send(remote).await.is_err() {
                break;
            }
        }
        driver.abort();
        drop(client);
        true
    }

    /// `None` for this process's own notifications.
    pub(super) fn parse(&self, payload: &str) -> Option<Remote> {
        let (instance, remote) = notification::parse(payload);
        (instance != self.instance).then_some(remote)
    }
}
