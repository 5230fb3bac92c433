//! The batch under way: what the events of one round asked for. The hub fills it while it
//! handles them; [`Hub::commit_and_deliver`] consumes it, committing its writes in one
//! transaction before it delivers anything.

use super::{ConnId, Hub, Pending};
use crate::store::{Change, Write};

#[derive(Default)]
pub(super) struct Batch {
    /// The writes, in the order made.
    pub(super) writes: Vec<Write>,
    /// The connection whose request made each write, told if the write is rejected or lost.
    pub(super) origins: Vec<Option<ConnId>>,
    /// What to deliver once the writes are committed, in the order handled.
    pub(super) deliveries: Vec<Pending>,
    /// Games whose clock starts when the write of this index is committed.
    pub(super) clocks_to_start: Vec<(String, usize)>,
    /// Players whose last connection here was closed for being too slow: their seeks are
    /// withdrawn after the commit.
    pub(super) closed: Vec<String>,
    /// What to tell the other processes that stores nothing: who connected here or left.
    pub(super) to_announce: Vec<Change>,
}

impl Hub {
    /// Queues a write of this batch; its index.
    pub(super) fn write(&mut self, write: Write, origin: Option<ConnId>) -> usize {
        self.batch.writes.push(write);
        self.batch.origins.push(origin);
        self.batch.writes.len() - 1
    }
}
