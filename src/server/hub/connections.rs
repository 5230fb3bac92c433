//! Connections: what is sent to them, and what goes when one does.

use std::sync::Arc;

use crate::protocol::{Refused, ServerMessage};

use super::{ConnId, Hub, Outgoing};

impl Hub {
    pub(super) fn refuse(&mut self, conn: ConnId, refused: Refused) {
        let text = ServerMessage::Error(refused).to_json();
        self.reply_to(conn, text);
    }

    pub(super) async fn disconnect(&mut self, conn: ConnId) {
        let Some(name) = self.forget_connection(conn) else {
            return;
        };
        self.seeks_changed = true;
        if let Err(error) = self.store.withdraw_seek(&name).await {
            self.failure.get_or_insert(error);
        }
    }

    /// Drops the connection; the player's name if it was the player's last one here (its
    /// cached record goes too: the store has it).
    pub(super) fn forget_connection(&mut self, conn: ConnId) -> Option<String> {
        let connection = self.connections.remove(&conn)?;
        self.stop_watching(conn);
        let key = connection.player?;
        let player = self.players.get_mut(&key)?;
        player.connections.retain(|&c| c != conn);
        if !player.connections.is_empty() {
            return None;
        }
        let name = self.players.remove(&key)?.record.name;
        self.may_release();
        self.left_here(&key, &name);
        Some(name)
    }

    pub(super) fn send_to_player(&mut self, player: &str, message: &Outgoing) {
        let connections = match self.players.get(player) {
            Some(player) => player.connections.clone(),
            None => return,
        };
        for conn in connections {
            if self
                .connections
                .get(&conn)
                .is_some_and(|connection| connection.welcomed)
            {
                self.send(conn, message.clone());
            }
        }
    }

    /// Queues `message` for a connection; one that cannot keep up is closed, so that a slow
    /// reader never holds up anyone else.
    pub(super) fn send(&mut self, conn: ConnId, message: Outgoing) {
        if !self.push(conn, message) {
            self.close_slow(conn);
        }
    }

    /// Queues `message` for a connection, unless its outbox is full (`false`: it is to be
    /// closed, by [`Hub::close_slow`]).
    pub(super) fn push(&self, conn: ConnId, message: Outgoing) -> bool {
        let Some(connection) = self.connections.get(&conn) else {
            return true;
        };
        // The last slot is kept for the close frame.
        connection.outbox.capacity() > 1
            && connection
                .outbox
                .try_send(self.stamped_for(conn, message))
                .is_ok()
    }

    /// `message`, with the `ref` of the frame it answers if it goes to that frame's connection
    /// (sent at once, or delivered after the commit).
    pub(super) fn stamped_for(&self, conn: ConnId, message: Outgoing) -> Outgoing {
        match self.delivering.as_ref().or(self.answering.as_ref()) {
            Some((to, reference)) if *to == conn => message.stamped(reference),
            _ => message,
        }
    }

    /// Closes a connection that does not read what it is sent.
    pub(super) fn close_slow(&mut self, conn: ConnId) {
        let Some(connection) = self.connections.get(&conn) else {
            return;
        };
        let _ = connection
            .outbox
            .try_send(Outgoing::Close(1008, "too slow: messages were not read"));
        if let Some(name) = self.forget_connection(conn) {
            self.batch.closed.push(name);
        }
    }

    pub(super) fn say_goodbye(&mut self, reason: &str) {
        let text: Arc<str> = ServerMessage::Goodbye {
            reason: reason.into(),
        }
        .to_json()
        .into();
        for connection in self.connections.values() {
            if connection.outbox.capacity() > 1 {
                let _ = connection.outbox.try_send(Outgoing::Text(text.clone()));
            }
            let _ = connection
                .outbox
                .try_send(Outgoing::Close(1012, "server restart"));
        }
        self.connections.clear();
        self.rooms.lock().clear();
    }
}
