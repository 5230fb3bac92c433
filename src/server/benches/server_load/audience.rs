//! A measurement's audience besides its players: readers of the lobby's HTTP API, or watchers of
//! the games; how they join a measurement, and what they saw.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::driver::{Phase, Shared};
use crate::measure::{wait_for, Site};
use crate::readers::{read_lobby, ReaderStats};
use crate::servers::resident_kib;
use crate::watchers::{watch_games, Feeds, Watcher, WatcherCounters, WatcherStats};
use crate::DRAIN_TIMEOUT;

pub(crate) enum Audience {
    Nobody,
    /// Each reads `/api/seeks` and `/api/games?status=playing` once a second.
    Readers(usize),
    /// `count` watchers, each following one game at a time, as the players announce them on
    /// `feeds`.
    Watchers {
        feeds: Arc<Feeds>,
        count: usize,
    },
}

/// The servers' resident memory before and after the watchers' idle connections opened.
pub(crate) struct IdleMemory {
    pub(crate) before_kib: u64,
    pub(crate) after_kib: u64,
    pub(crate) connections: usize,
}

impl IdleMemory {
    pub(crate) fn kib_per_connection(&self) -> f64 {
        (self.after_kib as f64 - self.before_kib as f64) / self.connections as f64
    }
}

pub(crate) struct ReadersSeen {
    pub(crate) readers: usize,
    pub(crate) stats: ReaderStats,
}

pub(crate) struct WatchersSeen {
    pub(crate) watchers: usize,
    pub(crate) memory: IdleMemory,
    pub(crate) stats: WatcherStats,
    /// From a turn's acknowledgement to its last watcher's copy, in µs, sorted.
    pub(crate) latencies_us: Vec<u32>,
}

pub(crate) enum AudienceFigures {
    Readers(ReadersSeen),
    Watchers(WatchersSeen),
}

/// An audience at a measurement: its tasks.
pub(crate) enum Present {
    Nobody,
    Readers(Vec<JoinHandle<Result<ReaderStats, String>>>),
    Watchers {
        tasks: Vec<JoinHandle<Result<WatcherStats, String>>>,
        counters: Arc<WatcherCounters>,
        feeds: Arc<Feeds>,
        memory: IdleMemory,
    },
}

fn servers_resident_kib(site: &Site) -> Result<u64, String> {
    site.servers.iter().map(|server| resident_kib(server.pid)).sum()
}

impl Audience {
    /// How long the watchers may take to connect: 10,000 take seconds.
    pub(crate) fn setup_timeout(count: usize) -> Duration {
        Duration::from_secs(30) + Duration::from_millis(5 * count as u64)
    }

    /// Joins the measurement once its players are signed in, before they play: readers wait
    /// for the play; watchers connect (spread over the servers as the players are) and stay
    /// idle, the servers' memory measured before and after.
    pub(crate) async fn arrive(
        self,
        site: &Site<'_>,
        shared: &Arc<Shared>,
        phases: &watch::Receiver<Phase>,
    ) -> Result<Present, String> {
        let ports: Vec<u16> = site.servers.iter().map(|server| server.port).collect();
        match self {
            Audience::Nobody => Ok(Present::Nobody),
            Audience::Readers(count) => Ok(Present::Readers(
                (0..count)
                    .map(|i| {
                        let port = ports[i % ports.len()];
                        tokio::spawn(read_lobby(i, count, port, shared.clone(), phases.clone()))
                    })
                    .collect(),
            )),
            Audience::Watchers { feeds, count } => {
                // Settled: what the players' connections took is in place.
                tokio::time::sleep(Duration::from_millis(500)).await;
                let before_kib = servers_resident_kib(site)?;
                let counters = Arc::new(WatcherCounters::default());
                let tasks = (0..count)
                    .map(|i| {
                        let watcher = Watcher::new(i, ports.len(), feeds.clone());
                        let port = ports[i % ports.len()];
                        let (shared, counters) = (shared.clone(), counters.clone());
                        tokio::spawn(watch_games(watcher, port, shared, counters, phases.clone()))
                    })
                    .collect();
                let timeout = Audience::setup_timeout(count);
                wait_for(shared, &counters.ready, count, timeout, "watchers connected").await?;
                tokio::time::sleep(Duration::from_millis(500)).await;
                let memory = IdleMemory {
                    before_kib,
                    after_kib: servers_resident_kib(site)?,
                    connections: count,
                };
                Ok(Present::Watchers {
                    tasks,
                    counters,
                    feeds,
                    memory,
                })
            }
        }
    }
}

impl Present {
    /// At the end, once the players' turns are all acknowledged and delivered: until every
    /// watcher has every turn of its game.
    pub(crate) async fn settle(&self, shared: &Shared) -> Result<(), String> {
        let Present::Watchers { tasks, counters, .. } = self else {
            return Ok(());
        };
        let settled: &AtomicUsize = &counters.settled;
        let caught_up = wait_for(shared, settled, tasks.len(), DRAIN_TIMEOUT, "watchers caught up").await;
        caught_up.map_err(|message| match counters.behind.lock().unwrap().take() {
            Some(behind) => format!("{message}: turns lost to watchers, as {behind}"),
            None => message,
        })
    }

    /// What the audience saw; the turns' copies from the feeds' acknowledgements in `window`.
    pub(crate) async fn depart(
        self,
        window: (std::time::Instant, std::time::Instant),
    ) -> Result<Option<AudienceFigures>, String> {
        match self {
            Present::Nobody => Ok(None),
            Present::Readers(tasks) => {
                let readers = tasks.len();
                let mut stats = ReaderStats::default();
                for task in tasks {
                    stats.add(task.await.map_err(|e| format!("a reader failed: {e}"))??);
                }
                stats.latencies_us.sort_unstable();
                Ok(Some(AudienceFigures::Readers(ReadersSeen { readers, stats })))
            }
            Present::Watchers {
                tasks, feeds, memory, ..
            } => {
                let watchers = tasks.len();
                let mut stats = WatcherStats::default();
                for task in tasks {
                    stats.add(task.await.map_err(|e| format!("a watcher failed: {e}"))??);
                }
                Ok(Some(AudienceFigures::Watchers(WatchersSeen {
                    watchers,
                    memory,
                    stats,
                    latencies_us: feeds.copy_latencies(window),
                })))
            }
        }
    }
}
