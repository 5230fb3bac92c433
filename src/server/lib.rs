//! The game server (`gokata serve`): players pair up, play on the server's clock, and keep
//! their records. Layers, each its own module:
//!
//! - [`http`] and [`socket`]: HTTP routes and WebSocket connections (axum, tokio);
//! - [`hub`]: the state and its changes, one batch and one commit at a time;
//! - [`snapshot`] and [`reads`]: what the hub publishes after each commit, and the API's
//!   answers made from it and from a read connection of the store's, never waiting on the hub;
//! - [`answers`] and [`rooms`]: `sync` and `watch`, answered by each connection the same way,
//!   and the watchers of each game, whom the hub tells its news;
//! - [`game`], [`lobby`], [`auth`]: a game's rules and result, pairing, names and tokens;
//! - [`store`]: storage ([`store::Store`]): SQLite for one process, PostgreSQL for several
//!   processes serving one site;
//! - [`protocol`]: the wire format, documented in `docs/protocol.md`;
//! - [`resident`]: the server's own computer player (`--bot`), a player like any other.
//!
//! No Python here: the binding only starts and stops a [`RunningServer`].

pub mod accept;
pub mod answers;
pub mod auth;
pub mod game;
pub mod http;
pub mod hub;
pub mod limits;
pub mod listing;
pub mod lobby;
pub mod lobby_feed;
pub mod protocol;
pub mod rating;
pub mod reads;
pub mod resident;
pub mod rooms;
pub mod snapshot;
pub mod socket;
pub mod store;
pub mod terms;
pub mod time_control;

use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use accept::GuardedListener;
use answers::Answers;
use hub::{Event, Hub};
use limits::{ConnectionCounts, Limits};
use lobby_feed::LobbyFeed;
use reads::Reads;
use store::{is_postgres_address, Listener, PostgresStore, Reader, SqliteStore, Store, StoreError};

/// Events waiting for the hub before connections have to wait.
const EVENT_QUEUE: usize = 8192;
/// How long open connections get to receive their goodbye when the server stops.
const GOODBYE_TIME: Duration = Duration::from_secs(2);

#[derive(Clone, Debug)]
pub struct Config {
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// An SQLite file's path, or a PostgreSQL address (`postgresql://...` or `key=value ...`).
    pub database: String,
    /// The time the player to move has for each turn.
    pub move_time: Duration,
    pub limits: Limits,
    /// The server's own computer player, if it has one (`--bot`).
    pub resident: Option<resident::Resident>,
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("invalid setting: {0}")]
    Config(String),
    #[error("cannot listen on {address}: {source}")]
    Listen { address: String, source: std::io::Error },
    #[error("cannot use the database {database}: {source}")]
    Database { database: String, source: StoreError },
    #[error("the server stopped: {0}")]
    Stopped(#[from] StoreError),
    #[error("the server could not start its runtime: {0}")]
    Runtime(std::io::Error),
}

/// A server running on threads of its own until [`RunningServer::stop`].
pub struct RunningServer {
    address: SocketAddr,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    thread: Mutex<Option<JoinHandle<Result<(), ServerError>>>>,
    finished: Arc<(Mutex<bool>, Condvar)>,
}

impl RunningServer {
    /// Binds the address, opens the database, loads the unfinished games, and serves in the
    /// background. Every error of setting up is returned here; the address is bound first, so
    /// that a server that cannot listen leaves no database behind (no new SQLite file).
    pub fn start(config: Config) -> Result<RunningServer, ServerError> {
        config.limits.check().map_err(ServerError::Config)?;
        if config.move_time < Duration::from_millis(1) {
            return Err(ServerError::Config(format!(
                "the move time must be at least a millisecond, not {:?}",
                config.move_time
            )));
        }
        let database_error = |source| ServerError::Database {
            database: shown_address(&config.database),
            source,
        };
        let address = format!("{}:{}", config.host, config.port);
        let listen_error = |source| ServerError::Listen {
            address: address.clone(),
            source,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("gokata-server")
            .build()
            .map_err(ServerError::Runtime)?;
        let listener_socket = TcpListener::bind(&address).map_err(listen_error)?;
        listener_socket.set_nonblocking(true).map_err(listen_error)?;
        let local = listener_socket.local_addr().map_err(listen_error)?;
        let (store, changes) = runtime
            .block_on(open_store(&config.database))
            .map_err(database_error)?;
        // The hub loads games now, so a corrupt database is an error of starting.
        let mut hub = runtime
            .block_on(Hub::new(
                store,
                config.move_time,
                config.limits.registrations_per_hour,
            ))
            .map_err(database_error)?;
        if let Some(resident) = &config.resident {
            runtime
                .block_on(hub.claim_resident(&resident.name))
                .map_err(database_error)?
                .map_err(ServerError::Config)?;
        }
        let reader = Reader::open(&config.database).map_err(database_error)?;
        let reads = Arc::new(Reads::new(hub.snapshot(), reader));
        let (stop, stopped) = oneshot::channel();
        let finished = Arc::new((Mutex::new(false), Condvar::new()));
        let done = finished.clone();
        let thread = std::thread::Builder::new()
            .name("gokata-server".into())
            .spawn(move || {
                let result = runtime.block_on(serve(listener_socket, hub, reads, changes, &config, stopped));
                // Dropping the runtime ends whatever is left: connections have had their goodbye.
                runtime.shutdown_timeout(Duration::from_millis(100));
                let (lock, condvar) = &*done;
                *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
                condvar.notify_all();
                result
            })
            .map_err(ServerError::Runtime)?;
        Ok(RunningServer {
            address: local,
            stop: Mutex::new(Some(stop)),
            thread: Mutex::new(Some(thread)),
            finished,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Waits up to `timeout` (forever if `None`) for the server to stop; whether it has.
    pub fn wait(&self, timeout: Option<Duration>) -> bool {
        let (lock, condvar) = &*self.finished;
        let finished = lock.lock().unwrap_or_else(|e| e.into_inner());
        match timeout {
            None => *condvar
                .wait_while(finished, |f| !*f)
                .unwrap_or_else(|e| e.into_inner()),
            Some(timeout) => {
                *condvar
                    .wait_timeout_while(finished, timeout, |f| !*f)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        }
    }

    /// Stops the server: the last batch is committed and announced, every client gets a
    /// goodbye, the database is closed. Returns the error it stopped on, if any; a second call
    /// returns `Ok`.
    pub fn stop(&self) -> Result<(), ServerError> {
        if let Some(stop) = self.stop.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = stop.send(());
        }
        let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        match thread {
            Some(thread) => thread.join().unwrap_or_else(|_| {
                Err(ServerError::Runtime(std::io::Error::other(
                    "the server thread panicked",
                )))
            }),
            None => Ok(()),
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// The store `database` names, and for PostgreSQL the listener for other processes' changes.
async fn open_store(database: &str) -> Result<(Store, Option<Listener>), StoreError> {
    if is_postgres_address(database) {
        let store = PostgresStore::open(database).await?;
        let listener = store.listener();
        Ok((Store::Postgres(Box::new(store)), Some(listener)))
    } else {
        Ok((Store::Sqlite(SqliteStore::open(database.as_ref())?), None))
    }
}

/// The database as messages show it: a PostgreSQL address without its password.
pub fn shown_address(database: &str) -> String {
    match (database.find("://"), database.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &database[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &database[..scheme + 3], &database[at..]),
                None => database.to_string(),
            }
        }
        _ if is_postgres_address(database) => database
            .split_whitespace()
            .map(|pair| {
                if pair.starts_with("password=") {
                    "password=***"
                } else {
                    pair
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => database.to_string(),
    }
}

async fn serve(
    listener: TcpListener,
    mut hub: Hub,
    reads: Arc<Reads>,
    changes: Option<Listener>,
    config: &Config,
    stop: oneshot::Receiver<()>,
) -> Result<(), ServerError> {
    let limits = config.limits;
    let listener = tokio::net::TcpListener::from_std(listener).map_err(ServerError::Runtime)?;
    let (events, receiver) = mpsc::channel(EVENT_QUEUE);
    if let Some(changes) = changes {
        let (remote, mut received) = mpsc::channel(64);
        tokio::spawn(changes.run(remote));
        let events = events.clone();
        tokio::spawn(async move {
            while let Some(remote) = received.recv().await {
                if events.send(Event::Remote(remote)).await.is_err() {
                    break;
                }
            }
        });
    }
    let (stopping_now, stopping) = tokio::sync::watch::channel(false);
    hub.stop_with(stopping.clone());
    let healthy = hub.health();
    let answers = Arc::new(Answers::new(reads.clone(), hub.rooms()));
    let (hub_done, hub_stopped) = oneshot::channel();
    // The hub has a thread and a single-threaded runtime of its own: its store calls block
    // only it, and it is the one writer.
    let hub_thread = std::thread::Builder::new()
        .name("gokata-hub".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(ServerError::Runtime)?;
            let result = runtime.block_on(hub.run(receiver));
            let _ = hub_done.send(());
            Ok::<_, ServerError>(result?)
        })
        .map_err(ServerError::Runtime)?;
    let lobby = LobbyFeed::new(reads.clone());
    tokio::spawn(lobby.clone().run());
    if let Some(resident) = config.resident.clone() {
        tokio::spawn(resident::play(
            resident,
            events.clone(),
            lobby.clone(),
            config.move_time,
        ));
    }
    let alive = Arc::new(());
    let app = http::router(
        events.clone(),
        http::Readers {
            reads,
            answers,
            lobby,
        },
        alive.clone(),
        limits,
        healthy,
    );
    tokio::spawn(async move {
        tokio::select! {
            _ = stop => {},
            _ = hub_stopped => {},
        }
        let _ = stopping_now.send(true);
    });
    // Behind a proxy every connection is the proxy's: sockets are counted per client instead.
    let per_address = (!limits.behind_proxy).then_some(limits.connections_per_address);
    let listener = GuardedListener::new(listener, ConnectionCounts::default(), per_address);
    accept::serve(listener, app, stopping).await;
    // Upgraded WebSockets outlive the graceful shutdown: the hub says goodbye to each.
    let _ = events.send(Event::Shutdown).await;
    drop(events);
    let hub_result = tokio::task::spawn_blocking(move || hub_thread.join())
        .await
        .map_err(|e| ServerError::Runtime(std::io::Error::other(e)))?
        .unwrap_or_else(|_| {
            Err(ServerError::Runtime(std::io::Error::other(
                "the hub thread panicked",
            )))
        });
    let flushed = tokio::time::Instant::now() + GOODBYE_TIME;
    while Arc::strong_count(&alive) > 1 && tokio::time::Instant::now() < flushed {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    hub_result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_that_cannot_listen_makes_no_database_file() {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let path = std::env::temp_dir().join(format!("gokata-unbound-{}.sqlite3", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let config = Config {
            host: "127.0.0.1".into(),
            port,
            database: path.to_str().unwrap().into(),
            move_time: Duration::from_secs(60),
            limits: Limits::default(),
            resident: None,
        };
        let error = match RunningServer::start(config) {
            Err(error) => error.to_string(),
            Ok(_) => panic!("port {port} was bound twice"),
        };
        assert!(
            error.starts_with(&format!("cannot listen on 127.0.0.1:{port}: ")),
            "{error}"
        );
        assert!(!path.exists(), "{} was made", path.display());
    }
}
