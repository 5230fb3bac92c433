//! Load benchmark of the game server. Run:
//! `cargo bench --bench server_load [-- --quick]`, with in the environment
//! `GAMES` (default 1000), `SECONDS` (default 10), `RATE` (default 10000; 0 for none), and for
//! the PostgreSQL rounds `PROCESSES` (default 3; 0 for no PostgreSQL rounds), `PG_RATE` (default
//! 5000; 0 for none) and `DB` (a PostgreSQL address, `postgresql://...` or `key=value ...`,
//! whose user may create databases; without it, a throwaway cluster). `SQLITE=0` leaves out the
//! SQLite and echo rounds, `SEEKING_AT_ONCE` sets how many players seek their first game at once
//! (default 64; 0 for all at once). `--quick` (20 games, 2 s, 400 moves/s, 2 processes on a
//! throwaway cluster) only checks that everything works.
//!
//! Two setups in one run, each printed as a table, with ratios between them:
//! - one server process on SQLite (`synchronous=FULL`), and the echo ceiling (below);
//! - `PROCESSES` server processes on one PostgreSQL database, the players spread over them
//!   (player `i` on process `i % PROCESSES`, so a game's two players are usually on different
//!   processes, and a turn reaches the opponent through the database's `NOTIFY`). Without
//!   `DB`, the benchmark starts a throwaway PostgreSQL cluster as python_tests does (initdb and
//!   pg_ctl from Debian's `postgresql`, as the postgres user when run as root) with fsync on,
//!   since the point is to measure durable commits, and removes it at the end (a guard process
//!   does if the benchmark is killed).
//!
//! Two loads, each on every setup: flat out (every game moves as soon as the opponent's turn
//! arrives, for the most moves per second; latency is then queueing), and paced (`RATE`, or
//! `PG_RATE` on PostgreSQL, moves per second offered, spread evenly over the games on a fixed
//! schedule, for the latency at that rate). Each measurement has fresh server processes and a
//! fresh database (a new SQLite file; `CREATE DATABASE` on PostgreSQL). Its window starts a
//! warm-up after every player's first game has started. The CPU that the servers, PostgreSQL
//! (when the cluster is ours), the generator and the rest of the machine used in the window is
//! printed with the figures: other builds and tests on a shared machine skew them.
//!
//! A Rust load generator plays `GAMES` concurrent random 9x9 games over loopback against the
//! real server, run as separate processes (this binary re-executed with `--serve DB`), and
//! measures moves per second (turns acknowledged by `played`) and the latency from sending a
//! move to the opponent receiving its `played`. The ceiling is an echo relay on the same stack
//! (axum 0.8 WebSocket on tokio, this binary with `--echo`), driven by the same generator in the
//! same run: each "move" is a frame the size of `played`, relayed by the server to both
//! connections of the pair.
//!
//! The echo server is the stack at its best: TCP_NODELAY on its sockets, as axum recommends
//! (`ECHO_NODELAY=0` leaves Nagle's algorithm on, for comparison), and a 4 KiB WebSocket read
//! buffer instead of tungstenite's 128 KiB, which is zeroed on every read.
//!
//! Every player is one connection that signs in, seeks a 9x9 game (any colour), plays random
//! legal moves that do not fill its own simple eye (tracked with `gokata_engine::Game`), passes
//! when there is none or after 150 turns, and seeks again when the game is over. The first seeks
//! go `SEEKING_AT_ONCE` at a time, as connections do. Anything wrong fails the run with a nonzero
//! exit: an `error` frame, a `played` out of order or not matching the engine, a closed
//! connection, a game result the engine disagrees with, a turn acknowledged to its player that
//! never reaches the opponent, or a game whose stored turns (re-read by `sync` at the end)
//! differ from the turns acknowledged (a lost or a duplicated turn). A player still waiting for
//! a game over 5 s after seeking is counted as stranded, and fails the "held" target. Frames are
//! paced below the server's per-connection rate limit (100 frames a second), which only binds
//! with very few games.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::ws::{Message as AxumMessage, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use gokata_engine::{area_score, coord, Color, Game, Rng};
use gokata_server::limits::Limits;
use gokata_server::store::is_postgres_address;
use gokata_server::{shown_address, Config, RunningServer};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch, Semaphore};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

#[path = "server_load/postgres.rs"]
mod postgres;

use postgres::Databases;

const SIZE: usize = 9;
const KOMI: f64 = 0.5;
/// A player passes from this turn on, so every game ends.
const TURN_CAP: usize = 150;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections being opened (and signed in) at once.
const CONNECTING_AT_ONCE: usize = 64;
/// Players seeking their first game at once, by default.
const SEEKING_AT_ONCE: usize = 64;
/// A player that has waited this long for a game after seeking is taken for stranded (its seek
/// lost): pairing is otherwise a matter of milliseconds.
const STRANDED_AFTER: Duration = Duration::from_secs(5);
/// Time for the turns in flight to be acknowledged after the measured window.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(20);
const VERIFY_TIMEOUT: Duration = Duration::from_secs(60);
/// Games each player re-reads by `sync` at the end, at most (its latest, where it is black).
const VERIFY_PER_PLAYER: usize = 100;
/// Client-side pacing below the server's limit (a burst of 200, then 100 frames a second).
const PACE_BURST: f64 = 150.0;
const PACE_PER_SECOND: f64 = 90.0;
const SERVER_START_TIMEOUT: Duration = Duration::from_secs(30);
const SERVER_STOP_TIMEOUT: Duration = Duration::from_secs(15);
/// The WebSocket read buffer of the generator and the echo server. tungstenite zeroes the free
/// part of its read buffer on every read, 128 KiB by default, which costs more than the rest.
const READ_BUFFER: usize = 4096;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        return match args.get(i + 1) {
            Some(db) => serve_game(db.to_string()),
            None => {
                eprintln!("server_load: --serve needs a database path");
                ExitCode::from(2)
            }
        };
    }
    if let Some(i) = args.iter().position(|a| a == "--guard-cluster") {
        return postgres::guard(args.get(i + 1).map_or("", String::as_str));
    }
    if args.iter().any(|a| a == "--echo") {
        return serve_echo();
    }
    let params = match Params::read(args.iter().any(|a| a == "--quick")) {
        Ok(params) => params,
        Err(message) => {
            eprintln!("server_load: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&params) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("server_load: FAILED: {message}");
            ExitCode::from(1)
        }
    }
}

struct Params {
    games: usize,
    seconds: f64,
    warmup: f64,
    /// The moves per second offered in the paced runs (spread evenly over the games), if any,
    /// on SQLite and the echo ceiling.
    rate: Option<f64>,
    /// The same on PostgreSQL.
    pg_rate: Option<f64>,
    /// Whether to measure one process on SQLite and the echo ceiling.
    sqlite: bool,
    /// Server processes on PostgreSQL; none for no PostgreSQL rounds.
    processes: usize,
    /// A PostgreSQL server to make the databases on, instead of a throwaway cluster.
    database: Option<String>,
    /// Players seeking their first game at once: the first seeks are a ramp, as the
    /// connections are, so that they do not all reach the server in one batch.
    seeking_at_once: usize,
}

impl Params {
    fn read(quick: bool) -> Result<Params, String> {
        if quick {
            return Ok(Params {
                games: 20,
                seconds: 2.0,
                warmup: 0.5,
                rate: Some(400.0),
                pg_rate: Some(400.0),
                sqlite: true,
                processes: 2,
                database: None,
                seeking_at_once: SEEKING_AT_ONCE,
            });
        }
        let games = env_number("GAMES", 1000.0)?;
        let seconds = env_number("SECONDS", 10.0)?;
        let rate = env_number("RATE", 10_000.0)?;
        let pg_rate = env_number("PG_RATE", 5_000.0)?;
        let processes = env_number("PROCESSES", 3.0)?;
        let seeking_at_once = env_number("SEEKING_AT_ONCE", SEEKING_AT_ONCE as f64)?;
        if !(1.0..=5000.0).contains(&games)
            || !(0.5..=600.0).contains(&seconds)
            || !(0.0..=1e6).contains(&rate)
            || !(0.0..=1e6).contains(&pg_rate)
            || !(0.0..=16.0).contains(&processes)
            || !(0.0..=1e6).contains(&seeking_at_once)
        {
            return Err("GAMES must be 1 to 5000, SECONDS 0.5 to 600, RATE, PG_RATE and \
                 SEEKING_AT_ONCE 0 to 1e6, and PROCESSES 0 to 16"
                .into());
        }
        let database = std::env::var("DB").ok().filter(|db| !db.trim().is_empty());
        if database.as_deref().is_some_and(|db| !is_postgres_address(db)) {
            return Err("DB must be a PostgreSQL address (postgresql://... or key=value ...)".into());
        }
        Ok(Params {
            games: games as usize,
            seconds,
            warmup: 1.0,
            rate: (rate > 0.0).then_some(rate),
            pg_rate: (pg_rate > 0.0).then_some(pg_rate),
            sqlite: std::env::var("SQLITE").map_or(true, |value| value.trim() != "0"),
            processes: processes as usize,
            database,
            seeking_at_once: match seeking_at_once as usize {
                0 => Semaphore::MAX_PERMITS,
                n => n,
            },
        })
    }

    /// The paced runs' time from one turn of a game to the next.
    fn interval(&self, rate: Option<f64>) -> Option<Duration> {
        rate.map(|rate| Duration::from_secs_f64(self.games as f64 / rate))
    }

    fn setup_timeout(&self) -> Duration {
        Duration::from_secs(30) + Duration::from_millis(20 * self.games as u64)
    }

    /// The longest one measurement may take, from starting its server to stopping it.
    fn measurement_budget(&self) -> Duration {
        SERVER_START_TIMEOUT * self.processes.max(1) as u32
            + self.setup_timeout() * 2
            + Duration::from_secs_f64(self.warmup + self.seconds)
            + DRAIN_TIMEOUT
            + VERIFY_TIMEOUT
            + SERVER_STOP_TIMEOUT
    }
}

fn env_number(name: &str, default: f64) -> Result<f64, String> {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|_| format!("{name}={text:?} is not a number")),
        Err(_) => Ok(default),
    }
}

// ---------------------------------------------------------------------------------------------
// The server processes.

/// `--serve DB`: the real server on a free loopback port, printed on stdout; it serves until
/// stdin closes, then stops cleanly (exit 0) or says why not (exit 1).
fn serve_game(database: String) -> ExitCode {
    let server = match RunningServer::start(Config {
        host: "127.0.0.1".into(),
        port: 0,
        database,
        move_time: Duration::from_secs(300),
        // Every player of the generator is on 127.0.0.1.
        limits: Limits {
            connections_per_address: 1_000_000,
            registrations_per_hour: 1_000_000_000,
            ..Limits::default()
        },
        resident: None,
    }) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("server_load --serve: {error}");
            return ExitCode::from(1);
        }
    };
    println!("{}", server.address().port());
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    match server.stop() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("server_load --serve: the server stopped on an error: {error}");
            ExitCode::from(1)
        }
    }
}

type Peers = Arc<Mutex<HashMap<u64, [Option<mpsc::Sender<Utf8Bytes>>; 2]>>>;

/// `--echo`: the ceiling, an axum WebSocket relay on a multi-threaded tokio runtime like the
/// server's. A connection's first frame `{"pair":K,"side":0|1}` is answered by `welcome`; every
/// later frame goes out unchanged to both connections of the pair, each through its own writer
/// task and queue as in the server.
fn serve_echo() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("server_load --echo: {error}");
            return ExitCode::from(1);
        }
    };
    let listener = match runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("server_load --echo: cannot listen: {error}");
            return ExitCode::from(1);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let nodelay = !std::env::args().any(|a| a == "--nagle");
    let listener = listener.tap_io(move |stream| {
        let _ = stream.set_nodelay(nodelay);
    });
    println!("{port}");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        let _ = stop.send(());
    });
    let peers: Peers = Arc::default();
    let app = Router::new()
        .route(
            "/ws",
            get(
                |State(peers): State<Peers>, upgrade: WebSocketUpgrade| async move {
                    upgrade
                        .read_buffer_size(READ_BUFFER)
                        .on_upgrade(move |socket| echo_connection(socket, peers))
                },
            ),
        )
        .with_state(peers);
    let served = runtime.block_on(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    runtime.shutdown_timeout(Duration::from_millis(500));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("server_load --echo: {error}");
            ExitCode::from(1)
        }
    }
}

async fn echo_connection(socket: WebSocket, peers: Peers) {
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut outgoing) = mpsc::channel::<Utf8Bytes>(1024);
    let writer = tokio::spawn(async move {
        while let Some(text) = outgoing.recv().await {
            if sink.send(AxumMessage::Text(text)).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let mut me: Option<(u64, usize)> = None;
    let mut partner: Option<mpsc::Sender<Utf8Bytes>> = None;
    while let Some(Ok(message)) = stream.next().await {
        let text = match message {
            AxumMessage::Text(text) => text,
            AxumMessage::Close(_) => break,
            _ => continue,
        };
        let Some((pair, side)) = me else {
            let hello: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
            let (Some(pair), Some(side)) = (hello["pair"].as_u64(), hello["side"].as_u64()) else {
                let _ = outbox
                    .send(r#"{"type":"error","code":"bad_request"}"#.into())
                    .await;
                continue;
            };
            let side = (side & 1) as usize;
            peers.lock().unwrap().entry(pair).or_default()[side] = Some(outbox.clone());
            me = Some((pair, side));
            let _ = outbox.send(r#"{"type":"welcome"}"#.into()).await;
            continue;
        };
        if partner.is_none() {
            partner = peers.lock().unwrap()[&pair][1 - side].clone();
        }
        match &partner {
            Some(partner) => {
                // Own echo first: a connection sees its frame before the partner's answer.
                let _ = outbox.send(text.clone()).await;
                let _ = partner.send(text).await;
            }
            None => {
                let _ = outbox
                    .send(r#"{"type":"error","code":"no_partner"}"#.into())
                    .await;
            }
        }
    }
    drop(outbox);
    let _ = writer.await;
}

/// The running server processes by pid, which the watchdog kills if the run hangs.
type Children = Arc<Mutex<HashMap<u32, Child>>>;

/// A server process: this binary re-executed.
struct ServerProcess {
    children: Children,
    stdin: Option<ChildStdin>,
    port: u16,
    pid: u32,
}

impl ServerProcess {
    fn start(args: &[&str], children: &Children) -> Result<ServerProcess, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let mut child = Command::new(exe)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the server process: {e}"))?;
        let pid = child.id();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        children.lock().unwrap().insert(pid, child);
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let mut process = ServerProcess {
            children: children.clone(),
            stdin,
            port: 0,
            pid,
        };
        let shown: Vec<String> = args.iter().map(|arg| shown_address(arg)).collect();
        let line = receiver
            .recv_timeout(SERVER_START_TIMEOUT)
            .map_err(|_| format!("the server process {shown:?} did not say its port in time"))?;
        process.port = line
            .trim()
            .parse()
            .map_err(|_| format!("the server process {shown:?} did not start (said {line:?})"))?;
        Ok(process)
    }

    /// Closes its stdin, which stops it; it must exit cleanly in time.
    fn stop(mut self) -> Result<(), String> {
        drop(self.stdin.take());
        let deadline = Instant::now() + SERVER_STOP_TIMEOUT;
        loop {
            let mut children = self.children.lock().unwrap();
            let Some(child) = children.get_mut(&self.pid) else {
                return Err("the server process is gone".into());
            };
            match child.try_wait() {
                Ok(Some(status)) => {
                    children.remove(&self.pid);
                    return if status.success() {
                        Ok(())
                    } else {
                        Err(format!("the server process ended with {status}"))
                    };
                }
                Ok(None) if Instant::now() < deadline => {}
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    children.remove(&self.pid);
                    return Err("the server process did not stop in time: killed".into());
                }
            }
            drop(children);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops every one (all told at once, so they stop together); the first error, if any.
    fn stop_all(mut servers: Vec<ServerProcess>) -> Result<(), String> {
        for server in &mut servers {
            drop(server.stdin.take());
        }
        servers
            .into_iter()
            .map(ServerProcess::stop)
            .fold(Ok(()), Result::and)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let child = self.children.lock().unwrap().remove(&self.pid);
        if let Some(mut child) = child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// CPU seconds (user and system) a process has used, from /proc (0 where there is none).
fn cpu_seconds(pid: &str) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    let Some(after) = stat.rsplit_once(") ").map(|(_, rest)| rest) else {
        return 0.0;
    };
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of stat (utime, stime), in ticks of 1/100 s.
    (ticks(11) + ticks(12)) / 100.0
}

/// CPU seconds of a process and its children (PostgreSQL's postmaster and its backends).
fn tree_cpu_seconds(root: u32) -> f64 {
    let children = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| parent_pid(pid) == Some(root));
    std::iter::once(root)
        .chain(children)
        .map(|pid| cpu_seconds(&pid.to_string()))
        .sum()
}

fn parent_pid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after) = stat.rsplit_once(") ")?;
    after.split_whitespace().nth(1)?.parse().ok()
}

/// CPU seconds the whole machine has been busy (all but idle and I/O wait), from /proc/stat.
fn machine_busy_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/stat") else {
        return 0.0;
    };
    let Some(line) = stat.lines().next() else {
        return 0.0;
    };
    let ticks: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user already).
    let busy: f64 = ticks
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, t)| t)
        .sum();
    busy / 100.0
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

// ---------------------------------------------------------------------------------------------
// The generator: one task per connection, driven through phases.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// Connecting and signing in.
    Setup,
    /// Playing.
    Run,
    /// No new turn or seek; the turns in flight are acknowledged.
    Stop,
    /// Re-reading the games.
    Verify,
    /// Closing.
    Done,
}

struct Shared {
    ready: AtomicUsize,
    /// Connections whose first game has started (an echo peer's at once).
    started: AtomicUsize,
    quiet: AtomicUsize,
    verified: AtomicUsize,
    failed: AtomicBool,
    failures: Mutex<Vec<String>>,
    /// The measured window.
    window: OnceLock<(Instant, Instant)>,
    connecting: Semaphore,
    /// Players seeking their first game at once (the ramp; see `Params::seeking_at_once`).
    seeking: Semaphore,
    /// Players in a game now.
    in_game: AtomicUsize,
    /// Turns acknowledged to their players less turns received by the opponents: every
    /// acknowledged turn must reach the opponent (on another process, it may do so before the
    /// acknowledgement, so this can be negative for a while).
    undelivered: AtomicI64,
    /// The time from one turn of a game to the next when the load is paced; `None` flat out.
    interval: Option<Duration>,
}

impl Shared {
    fn new(interval: Option<Duration>, seeking_at_once: usize) -> Shared {
        Shared {
            ready: AtomicUsize::new(0),
            started: AtomicUsize::new(0),
            quiet: AtomicUsize::new(0),
            verified: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            failures: Mutex::new(Vec::new()),
            window: OnceLock::new(),
            connecting: Semaphore::new(CONNECTING_AT_ONCE),
            seeking: Semaphore::new(seeking_at_once),
            in_game: AtomicUsize::new(0),
            undelivered: AtomicI64::new(0),
            interval,
        }
    }

    fn fail(&self, message: String) {
        self.failed.store(true, Ordering::SeqCst);
        self.failures.lock().unwrap().push(message);
    }

    fn failure(&self) -> Option<String> {
        if !self.failed.load(Ordering::SeqCst) {
            return None;
        }
        let failures = self.failures.lock().unwrap();
        let mut message = failures.iter().take(5).cloned().collect::<Vec<_>>().join("; ");
        if failures.len() > 5 {
            message += &format!("; and {} more", failures.len() - 5);
        }
        Some(message)
    }

    /// When turn `ply` of a paced game may go: on a fixed schedule from the game's first turn,
    /// which the first game of a player puts off by a random part of the interval (so games do
    /// not move in step). A late turn goes at once: turns never wait for a missed slot.
    fn not_before(
        &self,
        game: &Sent,
        ply: usize,
        now: Instant,
        first: bool,
        rng: &mut Rng,
    ) -> Option<Instant> {
        let interval = self.interval?;
        let origin = *game.origin.get_or_init(|| match first {
            true => now + interval.mul_f64(rng.below(1000) as f64 / 1000.0),
            false => now,
        });
        let at = origin + interval.mul_f64(ply as f64);
        (at > now).then_some(at)
    }

    fn in_window(&self, at: Instant) -> bool {
        self.window
            .get()
            .is_some_and(|&(start, end)| at >= start && at < end)
    }
}

/// When a game's last turn was sent, so the opponent's connection can time its `played`; and
/// when its turns are due when the load is paced.
#[derive(Default)]
struct Sent {
    last: Mutex<Option<(usize, Instant)>>,
    /// When turn 0 is due: turn `n` is due `n` intervals later.
    origin: OnceLock<Instant>,
}

impl Sent {
    fn stamp(&self, ply: usize, at: Instant) {
        *self.last.lock().unwrap() = Some((ply, at));
    }

    fn at(&self, ply: usize) -> Option<Instant> {
        match *self.last.lock().unwrap() {
            Some((sent, at)) if sent == ply => Some(at),
            _ => None,
        }
    }
}

/// A frame to send, not before `not_before`; a turn is stamped with its time just before it goes.
struct Out {
    text: String,
    stamp: Option<(Arc<Sent>, usize)>,
    not_before: Option<Instant>,
}

/// When a connection acts (on a frame, or as playing begins), whether playing goes on, and where
/// its frames to send go.
struct Moment<'a> {
    now: Instant,
    running: bool,
    shared: &'a Shared,
    out: &'a mut Vec<Out>,
}

#[derive(Default)]
struct Stats {
    /// Own turns acknowledged inside the window.
    acked_in_window: u64,
    /// Sending a turn to the opponent's `played`, received inside the window, in µs.
    latencies_us: Vec<u32>,
    /// Own turns acknowledged in all.
    turns: u64,
    /// Games started and finished as black (so each is counted once).
    games_started: u64,
    games_finished: u64,
    /// Games started whose players are connected to different server processes.
    games_across: u64,
    /// Games whose `start` already carried the opponent's first turn (see `Player::start`).
    late_starts: u64,
    /// The longest a player waited for a game after seeking (or still waits, at the end).
    longest_wait: Duration,
    /// Players that still wait for a game at the end, for longer than `STRANDED_AFTER`.
    stranded: u64,
    verified_games: u64,
    verified_turns: u64,
    paced: u64,
}

impl Stats {
    fn note_wait(&mut self, waited: Duration) {
        self.longest_wait = self.longest_wait.max(waited);
    }

    fn add(&mut self, other: Stats) {
        self.acked_in_window += other.acked_in_window;
        self.latencies_us.extend(other.latencies_us);
        self.turns += other.turns;
        self.games_started += other.games_started;
        self.games_finished += other.games_finished;
        self.games_across += other.games_across;
        self.late_starts += other.late_starts;
        self.longest_wait = self.longest_wait.max(other.longest_wait);
        self.stranded += other.stranded;
        self.verified_games += other.verified_games;
        self.verified_turns += other.verified_turns;
        self.paced += other.paced;
    }
}

/// A connection's side of the exchange of turns, the same for a player and an echo peer: the
/// stamps of its current game (shared with the opponent's connection), its own turn sent and not
/// yet acknowledged, and what it counted.
struct Turns {
    sent: Arc<Sent>,
    awaiting: Option<usize>,
    stats: Stats,
}

impl Turns {
    fn new(sent: Arc<Sent>) -> Turns {
        Turns {
            sent,
            awaiting: None,
            stats: Stats::default(),
        }
    }

    /// Sends own turn `ply` as `text`, not before `not_before`; it is stamped as it goes and
    /// awaits its acknowledgement.
    fn send(&mut self, ply: usize, text: String, not_before: Option<Instant>, out: &mut Vec<Out>) {
        self.awaiting = Some(ply);
        out.push(Out {
            text,
            stamp: Some((self.sent.clone(), ply)),
            not_before,
        });
    }

    /// Own turn `ply` came back at `now`; false (and nothing counted) if it is not the one sent.
    fn on_my_turn_acknowledged(&mut self, ply: usize, now: Instant, shared: &Shared) -> bool {
        if self.awaiting != Some(ply) {
            return false;
        }
        self.awaiting = None;
        self.stats.turns += 1;
        shared.undelivered.fetch_add(1, Ordering::SeqCst);
        if shared.in_window(now) {
            self.stats.acked_in_window += 1;
        }
        true
    }

    /// The opponent's turn `ply` arrived at `now`: its latency from the opponent's stamp; false
    /// if the opponent did not stamp it.
    fn on_opponent_turn(&mut self, ply: usize, now: Instant, shared: &Shared) -> bool {
        let Some(sent) = self.sent.at(ply) else {
            return false;
        };
        shared.undelivered.fetch_sub(1, Ordering::SeqCst);
        if shared.in_window(now) {
            let micros = now.duration_since(sent).as_micros();
            self.stats.latencies_us.push(micros.min(u32::MAX as u128) as u32);
        }
        true
    }
}

/// What a connection does; the driver owns the socket, the phases and the pacing.
trait Role: Send + 'static {
    fn name(&self) -> String;
    fn hello(&self) -> String;
    fn welcomed(&mut self, frame: &Value) -> Result<(), String>;
    /// Playing begins.
    fn run(&mut self, at: &mut Moment);
    fn frame(&mut self, frame: Value, at: &mut Moment) -> Result<(), String>;
    /// Its first game has started.
    fn started(&self) -> bool {
        true
    }
    /// Re-reading begins (a role without games has nothing to re-read).
    fn verify(&mut self, _out: &mut Vec<Out>) {}
    fn is_verified(&self) -> bool {
        true
    }
    fn turns(&mut self) -> &mut Turns;
}

struct Pacer {
    tokens: f64,
    updated: Instant,
    waits: u64,
}

impl Pacer {
    fn new() -> Pacer {
        Pacer {
            tokens: PACE_BURST,
            updated: Instant::now(),
            waits: 0,
        }
    }

    async fn take(&mut self) {
        let refill = |pacer: &mut Pacer| {
            let now = Instant::now();
            let elapsed = now.duration_since(pacer.updated).as_secs_f64();
            pacer.updated = now;
            pacer.tokens = (pacer.tokens + elapsed * PACE_PER_SECOND).min(PACE_BURST);
        };
        refill(self);
        if self.tokens < 1.0 {
            self.waits += 1;
            tokio::time::sleep(Duration::from_secs_f64((1.0 - self.tokens) / PACE_PER_SECOND)).await;
            refill(self);
        }
        self.tokens -= 1.0;
    }
}

type Socket = WebSocketStream<TcpStream>;

async fn connect(port: u16) -> Result<Socket, String> {
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(("127.0.0.1", port)))
        .await
        .map_err(|_| "connecting timed out".to_string())?
        .map_err(|e| format!("cannot connect: {e}"))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("cannot set TCP_NODELAY: {e}"))?;
    let url = format!("ws://127.0.0.1:{port}/ws");
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let handshake = tokio_tungstenite::client_async_with_config(url, stream, Some(config));
    let (socket, _) = tokio::time::timeout(CONNECT_TIMEOUT, handshake)
        .await
        .map_err(|_| "the WebSocket handshake timed out".to_string())?
        .map_err(|e| format!("the WebSocket handshake failed: {e}"))?;
    Ok(socket)
}

/// The JSON of a text frame; `None` for a frame of another kind, which is passed over.
fn received(message: Option<Result<Message, WsError>>) -> Result<Option<Value>, String> {
    match message {
        Some(Ok(Message::Text(text))) => serde_json::from_str(text.as_str())
            .map(Some)
            .map_err(|e| format!("not JSON ({e}): {text}")),
        Some(Ok(Message::Close(frame))) => Err(format!("the server closed the connection: {frame:?}")),
        Some(Ok(_)) => Ok(None),
        Some(Err(e)) => Err(format!("the connection failed: {e}")),
        None => Err("the server closed the connection".into()),
    }
}

async fn next_frame(socket: &mut Socket) -> Result<Value, String> {
    loop {
        let message = tokio::time::timeout(CONNECT_TIMEOUT, socket.next())
            .await
            .map_err(|_| "no answer in time".to_string())?;
        if let Some(frame) = received(message)? {
            return Ok(frame);
        }
    }
}

async fn drive<R: Role>(
    mut role: R,
    port: u16,
    shared: Arc<Shared>,
    phases: watch::Receiver<Phase>,
) -> Result<Stats, String> {
    let mut pacer = Pacer::new();
    match drive_socket(&mut role, port, &shared, phases, &mut pacer).await {
        Ok(()) => {
            let mut stats = std::mem::take(&mut role.turns().stats);
            stats.paced = pacer.waits;
            Ok(stats)
        }
        Err(message) => {
            let message = format!("{}: {message}", role.name());
            shared.fail(message.clone());
            Err(message)
        }
    }
}

async fn drive_socket<R: Role>(
    role: &mut R,
    port: u16,
    shared: &Shared,
    mut phases: watch::Receiver<Phase>,
    pacer: &mut Pacer,
) -> Result<(), String> {
    let mut socket = {
        let _permit = shared.connecting.acquire().await.map_err(|e| e.to_string())?;
        let mut socket = connect(port).await?;
        socket
            .send(Message::text(role.hello()))
            .await
            .map_err(|e| format!("cannot send hello: {e}"))?;
        let answer = next_frame(&mut socket).await?;
        role.welcomed(&answer)?;
        socket
    };
    shared.ready.fetch_add(1, Ordering::SeqCst);
    let mut phase = Phase::Setup;
    let (mut started, mut quiet, mut verified) = (false, false, false);
    let mut ramp = None;
    let mut out = Vec::new();
    loop {
        let now_phase = *phases.borrow_and_update();
        if now_phase != phase {
            if phase < Phase::Run && now_phase == Phase::Run {
                if !role.started() {
                    ramp = Some(shared.seeking.acquire().await.map_err(|e| e.to_string())?);
                }
                let now = Instant::now();
                role.run(&mut Moment {
                    now,
                    running: true,
                    shared,
                    out: &mut out,
                });
            }
            if phase < Phase::Verify && now_phase == Phase::Verify {
                role.verify(&mut out);
            }
            phase = now_phase;
        }
        if phase == Phase::Done {
            let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
            return Ok(());
        }
        for Out {
            text,
            stamp,
            not_before,
        } in out.drain(..)
        {
            if let Some(at) = not_before {
                tokio::time::sleep_until(at.into()).await;
            }
            pacer.take().await;
            if let Some((sent, ply)) = stamp {
                sent.stamp(ply, Instant::now());
            }
            socket
                .send(Message::text(text))
                .await
                .map_err(|e| format!("cannot send: {e}"))?;
        }
        if phase >= Phase::Run && !started && role.started() {
            started = true;
            drop(ramp.take());
            shared.started.fetch_add(1, Ordering::SeqCst);
        }
        if phase >= Phase::Stop && !quiet && role.turns().awaiting.is_none() {
            quiet = true;
            shared.quiet.fetch_add(1, Ordering::SeqCst);
        }
        if phase >= Phase::Verify && !verified && role.is_verified() {
            verified = true;
            shared.verified.fetch_add(1, Ordering::SeqCst);
        }
        tokio::select! {
            message = socket.next() => {
                let now = Instant::now();
                if let Some(frame) = received(message)? {
                    let running = phase == Phase::Run;
                    role.frame(frame, &mut Moment { now, running, shared, out: &mut out })?;
                }
            }
            changed = phases.changed() => {
                if changed.is_err() {
                    return Err("the generator stopped".into());
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The game player.

struct GameLog {
    id: String,
    moves: Vec<Option<String>>,
    over: bool,
    black: bool,
}

struct Current {
    log: GameLog,
    me: Color,
    engine: Game,
}

impl Current {
    /// Plays the next turn, `point` (a JSON point or null), on the engine and logs it; with
    /// `captured`, the number of stones the server says it took, which must be the engine's.
    fn apply(&mut self, point: &Value, captured: Option<usize>) -> Result<(), String> {
        let (id, ply) = (&self.log.id, self.log.moves.len());
        let color = self.engine.to_move();
        let taken = match point {
            Value::Null => {
                self.engine.pass();
                0
            }
            Value::String(text) => {
                let (row, col) =
                    coord::parse(text, SIZE, SIZE).map_err(|e| format!("game {id} ply {ply}: {e}"))?;
                let p = self.engine.board().point(row, col);
                let before = self.engine.board().stone_count(color.opponent());
                self.engine
                    .play_as(color, p)
                    .map_err(|e| format!("game {id} ply {ply}: the engine refuses {text}: {e}"))?;
                before - self.engine.board().stone_count(color.opponent())
            }
            _ => return Err(format!("game {id} ply {ply}: a bad point {point}")),
        };
        if captured.is_some_and(|captured| captured != taken) {
            return Err(format!(
                "game {id} ply {ply}: {point} captures {taken} stones, the server says {captured:?}"
            ));
        }
        self.log.moves.push(point.as_str().map(str::to_string));
        Ok(())
    }

    fn two_passes(&self) -> bool {
        let moves = &self.log.moves;
        moves.len() >= 2 && moves[moves.len() - 2..].iter().all(Option::is_none)
    }
}

/// The stamps of every game, by id, shared by its two players.
type Registry = Arc<Mutex<HashMap<String, Arc<Sent>>>>;

struct Player {
    name: String,
    rng: Rng,
    /// The server processes players are spread over; player `i` is on process `i % processes`.
    processes: usize,
    first_game: bool,
    /// When the player sought the game it waits for, if it waits for one.
    seeking_since: Option<Instant>,
    registry: Registry,
    current: Option<Current>,
    done: Vec<GameLog>,
    /// Games asked for by `sync`, not yet answered.
    syncing: HashSet<String>,
    /// Of the current game; of none before the first.
    turns: Turns,
}

impl Player {
    fn new(index: usize, processes: usize, registry: Registry) -> Player {
        Player {
            name: format!("load{index}"),
            rng: Rng::new(0x5EED_0000 + index as u64),
            processes,
            first_game: true,
            seeking_since: None,
            registry,
            current: None,
            done: Vec::new(),
            syncing: HashSet::new(),
            turns: Turns::new(Arc::default()),
        }
    }

    /// The server process of the player named `name`.
    fn process_of(&self, name: &str) -> Option<usize> {
        let index: usize = name.strip_prefix("load")?.parse().ok()?;
        Some(index % self.processes)
    }

    fn seek(&mut self, at: &mut Moment) {
        self.seeking_since = Some(at.now);
        at.out.push(Out {
            text: r#"{"type":"seek","size":9,"color":"any"}"#.into(),
            stamp: None,
            not_before: None,
        });
    }

    /// The player to move sends a random light move, or a pass, when it is due.
    fn play_turn(&mut self, at: &mut Moment, first: bool) {
        let current = self.current.as_mut().expect("a game");
        let ply = current.log.moves.len();
        let not_before = at
            .shared
            .not_before(&self.turns.sent, ply, at.now, first, &mut self.rng);
        let board = current.engine.board();
        let me = current.me;
        let point = if ply >= TURN_CAP {
            None
        } else {
            let candidates: Vec<_> = board
                .legal_moves(me)
                .filter(|&p| !board.is_simple_eye(p, me))
                .collect();
            (!candidates.is_empty()).then(|| {
                let (row, col) = board.row_col(candidates[self.rng.below(candidates.len())]);
                coord::format(row, col, SIZE)
            })
        };
        let id = &current.log.id;
        let text = match point {
            Some(point) => json!({"type": "move", "game": id, "ply": ply, "point": point}),
            None => json!({"type": "pass", "game": id, "ply": ply}),
        }
        .to_string();
        self.turns.send(ply, text, not_before, at.out);
    }

    fn start(&mut self, frame: &Value, at: &mut Moment) -> Result<(), String> {
        if let Some(current) = &self.current {
            return Err(format!("a start while game {} goes on", current.log.id));
        }
        let state = &frame["game"];
        let id = state["id"]
            .as_str()
            .ok_or("a start without a game id")?
            .to_string();
        let me = if state["black"] == self.name.as_str() {
            Color::Black
        } else if state["white"] == self.name.as_str() {
            Color::White
        } else {
            return Err(format!("a start of game {id} that is not mine: {state}"));
        };
        let carried = match state["moves"].as_array() {
            Some(moves) if state["size"] == SIZE => moves,
            _ => return Err(format!("game {id} does not start as a 9x9 game: {state}")),
        };
        // Only the opponent's first turn can be played before this player hears of the game.
        if !carried.is_empty() && (carried.len() > 1 || me == Color::Black) {
            return Err(format!(
                "game {id} starts with turns I could not have seen: {state}"
            ));
        }
        self.turns.sent = self
            .registry
            .lock()
            .unwrap()
            .entry(id.clone())
            .or_default()
            .clone();
        if let Some(since) = self.seeking_since.take() {
            self.turns.stats.note_wait(at.now - since);
        }
        at.shared.in_game.fetch_add(1, Ordering::SeqCst);
        if me == Color::Black {
            self.turns.stats.games_started += 1;
            let white = state["white"].as_str().unwrap_or_default();
            if self.process_of(white) != self.process_of(&self.name) {
                self.turns.stats.games_across += 1;
            }
        }
        let mut current = Current {
            log: GameLog {
                id,
                moves: Vec::new(),
                over: false,
                black: me == Color::Black,
            },
            me,
            engine: Game::new(SIZE, SIZE).expect("a 9x9 board"),
        };
        // On several processes, the opponent's process may store the first turn before this
        // player's process announces the game: `start` then carries it, and no `played` does.
        for point in carried {
            current.apply(point, None)?;
        }
        let my_turn = current.engine.to_move() == me;
        let id = current.log.id.clone();
        self.current = Some(current);
        if !carried.is_empty() {
            self.turns.stats.late_starts += 1;
            if !self.turns.on_opponent_turn(0, at.now, at.shared) {
                return Err(format!(
                    "game {id}: start carries ply 0, which the opponent did not stamp"
                ));
            }
        }
        if at.running && my_turn {
            self.play_turn(at, self.first_game);
        }
        self.first_game = false;
        Ok(())
    }

    fn played(&mut self, frame: &Value, at: &mut Moment) -> Result<(), String> {
        let current = self
            .current
            .as_mut()
            .ok_or_else(|| format!("played outside a game: {frame}"))?;
        let id = &current.log.id;
        if frame["game"] != id.as_str() {
            return Err(format!("played of another game than {id}: {frame}"));
        }
        let ply = current.log.moves.len();
        if frame["ply"] != ply {
            return Err(format!("game {id}: expected played of ply {ply}, got {frame}"));
        }
        let color = current.engine.to_move();
        if frame["color"] != color.name() || frame["to_move"] != color.opponent().name() {
            return Err(format!(
                "game {id} ply {ply}: {} was to move, got {frame}",
                color.name()
            ));
        }
        let captured = frame["captured"].as_array().map_or(usize::MAX, Vec::len);
        current.apply(&frame["point"], Some(captured))?;
        let id = &current.log.id;
        if color == current.me {
            if !self.turns.on_my_turn_acknowledged(ply, at.now, at.shared) {
                return Err(format!("game {id}: played of my ply {ply}, which I did not send"));
            }
            return Ok(());
        }
        if !self.turns.on_opponent_turn(ply, at.now, at.shared) {
            return Err(format!(
                "game {id}: played of ply {ply}, which the opponent did not stamp"
            ));
        }
        if at.running && !current.two_passes() {
            self.play_turn(at, false);
        }
        Ok(())
    }

    fn over(&mut self, frame: &Value, at: &mut Moment) -> Result<(), String> {
        let mut current = self
            .current
            .take()
            .ok_or_else(|| format!("over outside a game: {frame}"))?;
        let id = &current.log.id;
        if frame["game"] != id.as_str() {
            return Err(format!("over of another game than {id}: {frame}"));
        }
        if frame["reason"] != "passes" || !current.two_passes() || self.turns.awaiting.is_some() {
            return Err(format!(
                "game {id} is over unexpectedly after {} turns: {frame}",
                current.log.moves.len()
            ));
        }
        let score = area_score(current.engine.board(), KOMI);
        let winner = score.winner().map(Color::name);
        if frame["winner"].as_str() != winner
            || frame["score"]["black"] != score.black
            || frame["score"]["white"] != score.white
        {
            return Err(format!(
                "game {id}: the engine scores {score:?}, the server says {frame}"
            ));
        }
        current.log.over = true;
        at.shared.in_game.fetch_sub(1, Ordering::SeqCst);
        if current.me == Color::Black {
            self.turns.stats.games_finished += 1;
        }
        self.done.push(current.log);
        if at.running {
            self.seek(at);
        }
        Ok(())
    }

    fn state(&mut self, frame: &Value) -> Result<(), String> {
        let state = &frame["game"];
        let id = state["id"].as_str().unwrap_or_default();
        if !self.syncing.remove(id) {
            return Err(format!("a state I did not ask for: {frame}"));
        }
        // Every `played` of the game came before this answer, so the log is complete.
        let log = match &self.current {
            Some(current) if current.log.id == id => &current.log,
            _ => self.done.iter().find(|log| log.id == id).expect("a game of mine"),
        };
        let moves: Vec<Option<String>> = state["moves"]
            .as_array()
            .ok_or_else(|| format!("a state without moves: {frame}"))?
            .iter()
            .map(|m| m.as_str().map(str::to_string))
            .collect();
        let status = if log.over { "over" } else { "playing" };
        if moves != log.moves || state["status"] != status {
            return Err(format!(
                "game {id}: {} turns acknowledged ({status}), the server has {} ({}): lost or extra turns",
                log.moves.len(),
                moves.len(),
                state["status"]
            ));
        }
        self.turns.stats.verified_games += 1;
        self.turns.stats.verified_turns += moves.len() as u64;
        Ok(())
    }
}

impl Role for Player {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn hello(&self) -> String {
        json!({"type": "hello", "name": self.name}).to_string()
    }

    fn welcomed(&mut self, frame: &Value) -> Result<(), String> {
        if frame["type"] != "welcome" || frame["name"] != self.name.as_str() {
            return Err(format!("hello was answered by {frame}"));
        }
        Ok(())
    }

    fn run(&mut self, at: &mut Moment) {
        self.seek(at);
    }

    fn frame(&mut self, frame: Value, at: &mut Moment) -> Result<(), String> {
        match frame["type"].as_str().unwrap_or_default() {
            "seeking" => Ok(()),
            "start" => self.start(&frame, at),
            "played" => self.played(&frame, at),
            "over" => self.over(&frame, at),
            "state" => self.state(&frame),
            "error" | "goodbye" | "welcome" | "pong" | "cancelled" => Err(format!("unexpected: {frame}")),
            _ => Ok(()),
        }
    }

    fn started(&self) -> bool {
        !self.first_game
    }

    fn verify(&mut self, out: &mut Vec<Out>) {
        if let Some(since) = self.seeking_since {
            let waited = since.elapsed();
            self.turns.stats.note_wait(waited);
            if waited > STRANDED_AFTER {
                self.turns.stats.stranded += 1;
            }
        }
        let logs = self.done.iter().chain(self.current.as_ref().map(|c| &c.log));
        let mine: Vec<&GameLog> = logs.filter(|log| log.black).collect();
        let skip = mine.len().saturating_sub(VERIFY_PER_PLAYER);
        for log in mine.into_iter().skip(skip) {
            out.push(Out {
                text: json!({"type": "sync", "game": log.id}).to_string(),
                stamp: None,
                not_before: None,
            });
            self.syncing.insert(log.id.clone());
        }
    }

    fn is_verified(&self) -> bool {
        self.syncing.is_empty()
    }

    fn turns(&mut self) -> &mut Turns {
        &mut self.turns
    }
}

// ---------------------------------------------------------------------------------------------
// The echo peer: the same exchange without a game.

struct EchoPeer {
    pair: usize,
    side: usize,
    /// The ply of the next frame to arrive.
    next: usize,
    rng: Rng,
    turns: Turns,
}

impl EchoPeer {
    fn new(pair: usize, side: usize, sent: Arc<Sent>) -> EchoPeer {
        EchoPeer {
            pair,
            side,
            next: 0,
            rng: Rng::new(0xEC40_0000 + 2 * pair as u64 + side as u64),
            turns: Turns::new(sent),
        }
    }

    /// Sends the next frame when it is due.
    fn send_turn(&mut self, at: &mut Moment, first: bool) {
        let ply = self.next;
        let not_before = at
            .shared
            .not_before(&self.turns.sent, ply, at.now, first, &mut self.rng);
        let (color, to_move) = if self.side == 0 {
            ("black", "white")
        } else {
            ("white", "black")
        };
        // The size of a `played` frame.
        let text = format!(
            r#"{{"type":"played","game":"echo{:08}","ply":{ply},"color":"{color}","point":"5E","captured":[],"to_move":"{to_move}","remaining_ms":300000}}"#,
            self.pair
        );
        self.turns.send(ply, text, not_before, at.out);
    }
}

impl Role for EchoPeer {
    fn name(&self) -> String {
        format!("echo pair {} side {}", self.pair, self.side)
    }

    fn hello(&self) -> String {
        json!({"type": "hello", "pair": self.pair, "side": self.side}).to_string()
    }

    fn welcomed(&mut self, frame: &Value) -> Result<(), String> {
        if frame["type"] != "welcome" {
            return Err(format!("hello was answered by {frame}"));
        }
        Ok(())
    }

    fn run(&mut self, at: &mut Moment) {
        if self.side == 0 {
            self.send_turn(at, true);
        }
    }

    fn frame(&mut self, frame: Value, at: &mut Moment) -> Result<(), String> {
        if frame["type"] != "played" || frame["ply"] != self.next {
            return Err(format!("expected frame {}, got {frame}", self.next));
        }
        let ply = self.next;
        self.next += 1;
        let mine = frame["color"] == if self.side == 0 { "black" } else { "white" };
        if mine {
            if !self.turns.on_my_turn_acknowledged(ply, at.now, at.shared) {
                return Err(format!("an echo of frame {ply}, which I did not send"));
            }
            return Ok(());
        }
        if !self.turns.on_opponent_turn(ply, at.now, at.shared) {
            return Err(format!("frame {ply} was not stamped"));
        }
        if at.running {
            self.send_turn(at, false);
        }
        Ok(())
    }

    fn turns(&mut self) -> &mut Turns {
        &mut self.turns
    }
}

// ---------------------------------------------------------------------------------------------
// A measurement and the report.

/// Where a measurement's connections go (spread over its server processes) and whose CPU it
/// counts.
struct Site<'a> {
    /// `sqlite`, `echo` or `postgres xN`.
    name: String,
    servers: &'a [ServerProcess],
    /// PostgreSQL's postmaster, when the database is ours to watch.
    postmaster: Option<u32>,
}

/// CPU seconds used so far.
#[derive(Clone, Copy)]
struct CpuSample {
    servers: f64,
    database: f64,
    generator: f64,
    machine: f64,
}

impl Site<'_> {
    fn sample(&self) -> CpuSample {
        CpuSample {
            servers: self
                .servers
                .iter()
                .map(|server| cpu_seconds(&server.pid.to_string()))
                .sum(),
            database: self.postmaster.map_or(0.0, tree_cpu_seconds),
            generator: cpu_seconds("self"),
            machine: machine_busy_seconds(),
        }
    }
}

/// Shares of one core over the measured window.
struct CpuUse {
    servers: f64,
    /// PostgreSQL's processes, when the database is ours (SQLite runs inside the server).
    database: Option<f64>,
    generator: f64,
    /// The rest of the machine (other builds and tests may share it).
    other: f64,
}

impl CpuUse {
    fn between(before: CpuSample, after: CpuSample, seconds: f64, database: bool) -> CpuUse {
        let servers = after.servers - before.servers;
        let db = after.database - before.database;
        let generator = after.generator - before.generator;
        let other = (after.machine - before.machine) - servers - db - generator;
        CpuUse {
            servers: servers / seconds,
            database: database.then_some(db / seconds),
            generator: generator / seconds,
            other: other.max(0.0) / seconds,
        }
    }
}

struct Measured {
    site: String,
    processes: usize,
    /// `flat out` or `N/s offered`.
    load: String,
    games: usize,
    connections: usize,
    seconds: f64,
    /// From the first seeks to every player's first game started.
    pairing_seconds: f64,
    /// The games in progress in the window (players in a game, halved): least and mean.
    held: (f64, f64),
    stats: Stats,
    cpu: CpuUse,
    load_after: String,
}

impl Measured {
    fn moves_per_second(&self) -> f64 {
        self.stats.acked_in_window as f64 / self.seconds
    }

    /// The latency at quantile `q`, in ms.
    fn latency(&self, q: f64) -> f64 {
        let sorted = &self.stats.latencies_us;
        if sorted.is_empty() {
            return f64::NAN;
        }
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1] as f64 / 1000.0
    }
}

async fn wait_for(
    shared: &Shared,
    count: &AtomicUsize,
    target: usize,
    timeout: Duration,
    what: &str,
) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(failure) = shared.failure() {
            return Err(failure);
        }
        let now = count.load(Ordering::SeqCst);
        if now >= target {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "{what}: only {now} of {target} connections in {timeout:?}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Until every acknowledged turn has reached the opponent.
async fn wait_delivered(shared: &Shared) -> Result<(), String> {
    let deadline = Instant::now() + DRAIN_TIMEOUT;
    loop {
        let undelivered = shared.undelivered.load(Ordering::SeqCst);
        if undelivered == 0 {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "{undelivered} turns acknowledged to their players never reached the opponents \
                 (in {DRAIN_TIMEOUT:?}): lost turns"
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn sleep_watching(shared: &Shared, until: Instant) -> Result<(), String> {
    loop {
        if let Some(failure) = shared.failure() {
            return Err(failure);
        }
        let now = Instant::now();
        if now >= until {
            return Ok(());
        }
        tokio::time::sleep((until - now).min(Duration::from_millis(50))).await;
    }
}

/// Sleeps until `end`, watching the games in progress; their least and mean number.
async fn watch_games(shared: &Shared, end: Instant) -> Result<(f64, f64), String> {
    let (mut least, mut sum, mut samples) = (usize::MAX, 0, 0);
    loop {
        if let Some(failure) = shared.failure() {
            return Err(failure);
        }
        let players = shared.in_game.load(Ordering::SeqCst);
        (least, sum, samples) = (least.min(players), sum + players, samples + 1);
        let now = Instant::now();
        if now >= end {
            return Ok((least as f64 / 2.0, sum as f64 / samples as f64 / 2.0));
        }
        tokio::time::sleep((end - now).min(Duration::from_millis(50))).await;
    }
}

/// Drives `roles` against the site's servers (role `i` on server `i % n`) through every
/// phase, flat out or paced at `rate`. The window starts a warm-up after every player's first
/// game has started.
fn measure<R: Role>(
    site: &Site,
    rate: Option<f64>,
    params: &Params,
    roles: Vec<R>,
) -> Result<Measured, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the generator's runtime: {e}"))?;
    let connections = roles.len();
    let ports: Vec<u16> = site.servers.iter().map(|server| server.port).collect();
    runtime.block_on(async {
        let shared = Arc::new(Shared::new(params.interval(rate), params.seeking_at_once));
        let (phase, phases) = watch::channel(Phase::Setup);
        let tasks: Vec<_> = roles
            .into_iter()
            .enumerate()
            .map(|(i, role)| {
                let port = ports[i % ports.len()];
                tokio::spawn(drive(role, port, shared.clone(), phases.clone()))
            })
            .collect();
        let setup = params.setup_timeout();
        wait_for(
            &shared,
            &shared.ready,
            connections,
            setup,
            "connecting and signing in",
        )
        .await?;
        let _ = phase.send(Phase::Run);
        let seeking = Instant::now();
        wait_for(
            &shared,
            &shared.started,
            connections,
            setup,
            "first games started",
        )
        .await?;
        let pairing_seconds = seeking.elapsed().as_secs_f64();
        let begin = Instant::now() + Duration::from_secs_f64(params.warmup);
        let end = begin + Duration::from_secs_f64(params.seconds);
        let _ = shared.window.set((begin, end));
        sleep_watching(&shared, begin).await?;
        let before = site.sample();
        let held = watch_games(&shared, end).await?;
        let cpu = CpuUse::between(before, site.sample(), params.seconds, site.postmaster.is_some());
        let load_after = load_average();
        wind_down(&shared, &phase, connections).await?;
        Ok(Measured {
            site: site.name.clone(),
            processes: site.servers.len(),
            load: load_name(rate),
            games: connections / 2,
            connections,
            seconds: params.seconds,
            pairing_seconds,
            held,
            stats: collect(tasks).await?,
            cpu,
            load_after,
        })
    })
}

/// After the window: the turns in flight are acknowledged, the games re-read, and the
/// connections closed.
async fn wind_down(shared: &Shared, phase: &watch::Sender<Phase>, connections: usize) -> Result<(), String> {
    for (next, count, timeout, what) in [
        (
            Phase::Stop,
            &shared.quiet,
            DRAIN_TIMEOUT,
            "turns in flight acknowledged",
        ),
        (
            Phase::Verify,
            &shared.verified,
            VERIFY_TIMEOUT,
            "games re-read by sync",
        ),
    ] {
        let _ = phase.send(next);
        wait_for(shared, count, connections, timeout, what).await?;
        if next == Phase::Stop {
            wait_delivered(shared).await?;
        }
    }
    let _ = phase.send(Phase::Done);
    Ok(())
}

async fn collect(tasks: Vec<tokio::task::JoinHandle<Result<Stats, String>>>) -> Result<Stats, String> {
    let mut total = Stats::default();
    for task in tasks {
        total.add(
            task.await
                .map_err(|e| format!("a generator task failed: {e}"))??,
        );
    }
    total.latencies_us.sort_unstable();
    Ok(total)
}

/// Flat out, then paced at `rate` if there is one.
fn loads(rate: Option<f64>) -> Vec<Option<f64>> {
    std::iter::once(None).chain(rate.map(Some)).collect()
}

fn load_name(rate: Option<f64>) -> String {
    match rate {
        None => "flat out".into(),
        Some(rate) => format!("{rate:.0}/s offered"),
    }
}

fn players(games: usize, processes: usize) -> Vec<Player> {
    let registry: Registry = Arc::default();
    (0..games * 2)
        .map(|i| Player::new(i, processes, registry.clone()))
        .collect()
}

/// One server process on SQLite, each load followed by the echo ceiling at the same load.
fn sqlite_rounds(params: &Params, children: &Children) -> Result<Vec<(Measured, Measured)>, String> {
    let directory = std::env::temp_dir().join(format!("gokata-server-load-{}", std::process::id()));
    std::fs::create_dir_all(&directory).map_err(|e| format!("cannot make {}: {e}", directory.display()))?;
    let rounds = loads(params.rate)
        .into_iter()
        .enumerate()
        .map(|(number, rate)| {
            let database = directory.join(format!("load{number}.sqlite3"));
            let database = database.to_str().ok_or("a non-UTF-8 temp path")?;
            let server = ServerProcess::start(&["--serve", database], children)?;
            let site = Site {
                name: "sqlite".into(),
                servers: std::slice::from_ref(&server),
                postmaster: None,
            };
            let game = measure(&site, rate, params, players(params.games, 1))?;
            server.stop()?;
            Ok((game, echo_round(params, rate, children)?))
        })
        .collect();
    let _ = std::fs::remove_dir_all(&directory);
    rounds
}

fn echo_round(params: &Params, rate: Option<f64>, children: &Children) -> Result<Measured, String> {
    let nagle = std::env::var("ECHO_NODELAY").is_ok_and(|v| v == "0");
    let args: &[&str] = if nagle {
        &["--echo", "--nagle"]
    } else {
        &["--echo"]
    };
    let echo = ServerProcess::start(args, children)?;
    let site = Site {
        name: "echo".into(),
        servers: std::slice::from_ref(&echo),
        postmaster: None,
    };
    let peers = (0..params.games)
        .flat_map(|pair| {
            let sent = Arc::new(Sent::default());
            (0..2).map(move |side| EchoPeer::new(pair, side, sent.clone()))
        })
        .collect();
    let ceiling = measure(&site, rate, params, peers)?;
    echo.stop()?;
    Ok(ceiling)
}

/// `PROCESSES` server processes on one PostgreSQL database, a fresh one for each load.
fn postgres_rounds(
    params: &Params,
    databases: &mut Databases,
    children: &Children,
) -> Result<Vec<Measured>, String> {
    loads(params.pg_rate)
        .into_iter()
        .map(|rate| {
            let database = databases.fresh()?;
            let servers = (0..params.processes)
                .map(|_| ServerProcess::start(&["--serve", &database], children))
                .collect::<Result<Vec<_>, _>>()?;
            let site = Site {
                name: format!("postgres x{}", params.processes),
                servers: &servers,
                postmaster: databases.postmaster(),
            };
            let measured = measure(&site, rate, params, players(params.games, params.processes))?;
            ServerProcess::stop_all(servers)?;
            Ok(measured)
        })
        .collect()
}

/// Past `budget`, kills the server processes and fails the run (the throwaway cluster's guard
/// then removes it).
fn start_watchdog(budget: Duration, children: Children) {
    std::thread::spawn(move || {
        std::thread::sleep(budget);
        eprintln!("server_load: FAILED: the run took more than {budget:?}");
        for (_, mut child) in children.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            let _ = child.kill();
        }
        std::process::exit(3);
    });
}

fn run(params: &Params) -> Result<(), String> {
    // Before the SQLite rounds, so that a missing PostgreSQL fails the run at once.
    let mut databases = match (params.processes, &params.database) {
        (0, _) => None,
        (_, Some(address)) => Some(Databases::on(address.clone())?),
        (_, None) => Some(Databases::throwaway()?),
    };
    let children = Children::default();
    let sqlite_measurements = if params.sqlite {
        2 * loads(params.rate).len()
    } else {
        0
    };
    let measurements = sqlite_measurements + databases.as_ref().map_or(0, |_| loads(params.pg_rate).len());
    start_watchdog(
        params.measurement_budget() * measurements as u32 + Duration::from_secs(30),
        children.clone(),
    );
    print_heading(params, databases.as_ref());
    let sqlite = match params.sqlite {
        true => sqlite_rounds(params, &children)?,
        false => Vec::new(),
    };
    let postgres = match &mut databases {
        Some(databases) => postgres_rounds(params, databases, &children)?,
        None => Vec::new(),
    };
    drop(databases);
    report(params, &sqlite, &postgres);
    Ok(())
}

fn print_heading(params: &Params, databases: Option<&Databases>) {
    let loads = |rate: Option<f64>| match rate {
        Some(rate) => format!("flat out, then paced at {rate:.0} moves/s offered"),
        None => "flat out".to_string(),
    };
    println!(
        "gokata server load: {} concurrent 9x9 random games ({} connections) over loopback, {} s \
         measured after {} s of warm-up from when every player's first game has started",
        params.games,
        params.games * 2,
        params.seconds,
        params.warmup,
    );
    if params.sqlite {
        println!(
            "- one server process on SQLite (synchronous=FULL), and the echo ceiling: {}",
            loads(params.rate)
        );
    }
    if let Some(databases) = databases {
        println!(
            "- {} server processes on one database, {}, players spread over them: {}",
            params.processes,
            databases.describe(),
            loads(params.pg_rate)
        );
    }
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("{cpus} CPUs; load average before: {}", load_average());
}

fn report(params: &Params, sqlite: &[(Measured, Measured)], postgres: &[Measured]) {
    println!();
    print_table(sqlite.iter().flat_map(|(game, echo)| [game, echo]));
    if !postgres.is_empty() {
        println!();
        print_table(postgres.iter());
    }
    println!();
    for (game, echo) in sqlite {
        print_ratio(game, echo);
    }
    for (postgres, (sqlite, _)) in postgres.iter().zip(sqlite) {
        print_ratio(postgres, sqlite);
    }
    println!(
        "(cpu: % of one core over the measured window; db = PostgreSQL's processes (SQLite runs \
         in the server); other = the rest of the machine, which other builds and tests may share)"
    );
    println!(
        "(flat out, every game always has a turn in flight, so latency there is queueing: about \
         games / moves per second)"
    );
    print_checks(sqlite.iter().map(|(game, _)| game));
    print_checks(postgres.iter());
    let paced: u64 = sqlite
        .iter()
        .flat_map(|(game, echo)| [game, echo])
        .chain(postgres)
        .map(|m| m.stats.paced)
        .sum();
    if paced > 0 {
        println!(
            "note: frames were held back {paced} times to stay under the server's limit of 100 \
             frames a second per connection (it binds only with very few games)"
        );
    }
    if params.games < 1000 {
        println!(
            "targets (issues 8 and 19) are for GAMES=1000: no verdict at {} games",
            params.games
        );
        return;
    }
    sqlite_verdicts(params, sqlite);
    postgres_verdicts(params, postgres);
}

fn print_table<'a>(rows: impl Iterator<Item = &'a Measured>) {
    println!(
        "{:<28} {:>6} {:>6} {:>5} {:>9} {:>7} {:>7} {:>7} {:>7} {:>10} {:>7} {:>8} {:>9}  load after",
        "",
        "games",
        "conns",
        "secs",
        "moves/s",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
        "server cpu",
        "db cpu",
        "gen cpu",
        "other cpu"
    );
    let percent = |share: f64| format!("{:.0}%", share * 100.0);
    for m in rows {
        println!(
            "{:<28} {:>6} {:>6} {:>5.1} {:>9.0} {:>7.2} {:>7.2} {:>7.2} {:>7.2} {:>10} {:>7} {:>8} {:>9}  {}",
            format!("{}, {}", m.site, m.load),
            m.games,
            m.connections,
            m.seconds,
            m.moves_per_second(),
            m.latency(0.50),
            m.latency(0.90),
            m.latency(0.99),
            m.latency(1.0),
            percent(m.cpu.servers),
            m.cpu.database.map_or("-".into(), percent),
            percent(m.cpu.generator),
            percent(m.cpu.other),
            m.load_after
        );
    }
}

fn print_ratio(a: &Measured, b: &Measured) {
    let loads = if a.load == b.load {
        a.load.clone()
    } else {
        format!("{} / {}", a.load, b.load)
    };
    println!(
        "ratio {}/{} ({loads}): moves/s {:.2}; p50 latency x{:.1}, p99 latency x{:.1}",
        a.site,
        b.site,
        a.moves_per_second() / b.moves_per_second(),
        a.latency(0.5) / b.latency(0.5),
        a.latency(0.99) / b.latency(0.99)
    );
}

fn print_checks<'a>(rows: impl Iterator<Item = &'a Measured> + Clone) {
    let Some(first) = rows.clone().next() else {
        return;
    };
    let site = &first.site;
    let sum = |f: fn(&Stats) -> u64| rows.clone().map(|m| f(&m.stats)).sum::<u64>();
    let across = match first.processes {
        1 => String::new(),
        _ => format!(
            ", {} between players on different processes",
            sum(|s| s.games_across)
        ),
    };
    println!(
        "checks ({site} runs): {} turns acknowledged in {} games ({} finished, results agree with \
         the engine{across}); {} games with {} turns re-read by sync, all as acknowledged; no \
         error frame, no closed connection",
        sum(|s| s.turns),
        sum(|s| s.games_started),
        sum(|s| s.games_finished),
        sum(|s| s.verified_games),
        sum(|s| s.verified_turns),
    );
    let each = |f: &dyn Fn(&Measured) -> String| {
        rows.clone()
            .map(|m| format!("{} ({})", f(m), m.load))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let longest_wait = rows
        .clone()
        .map(|m| m.stats.longest_wait)
        .max()
        .unwrap_or_default();
    println!(
        "games ({site} runs): every player's first game started within {} of seeking; games in \
         progress in the window at least {}, on average {}; the longest wait for a game {:.2} s; \
         {} players stranded (still waiting after {STRANDED_AFTER:?} at the end)",
        each(&|m| format!("{:.1} s", m.pairing_seconds)),
        each(&|m| format!("{:.0}", m.held.0)),
        each(&|m| format!("{:.1}", m.held.1)),
        longest_wait.as_secs_f64(),
        sum(|s| s.stranded),
    );
    let late = sum(|s| s.late_starts);
    if late > 0 {
        println!(
            "note ({site} runs): {late} games' `start` already carried the opponent's first turn, \
             which no `played` announced (its process stored it before this player's process \
             announced the game)"
        );
    }
}

fn yes(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

/// Issue 8's targets, for the one process on SQLite.
fn sqlite_verdicts(params: &Params, rows: &[(Measured, Measured)]) {
    if rows.is_empty() {
        return;
    }
    let games: Vec<&Measured> = rows.iter().map(|(game, _)| game).collect();
    println!("targets (issue 8, one process on SQLite):");
    print_held_verdict(params, &games);
    print_flat_verdict(games[0]);
    if let (Some(rate), Some(paced)) = (params.rate, games.get(1)) {
        print_paced_verdict(rate, paced, 20.0);
    }
}

/// Issue 19's targets, for the processes on PostgreSQL.
fn postgres_verdicts(params: &Params, rows: &[Measured]) {
    if rows.is_empty() {
        return;
    }
    let processes = match params.processes {
        3 => String::new(),
        n => format!(", here with {n} processes"),
    };
    println!("targets (issue 19, 3 processes on PostgreSQL{processes}):");
    print_held_verdict(params, &rows.iter().collect::<Vec<_>>());
    print_flat_verdict(&rows[0]);
    if let (Some(rate), Some(paced)) = (params.pg_rate, rows.get(1)) {
        print_paced_verdict(rate, paced, 50.0);
    }
}

/// Held: every player got a game, and none was left waiting for one (a run with an error, or
/// a lost or duplicated turn, has failed before this).
fn print_held_verdict(params: &Params, rows: &[&Measured]) {
    let stranded: u64 = rows.iter().map(|m| m.stats.stranded).sum();
    let least = rows.iter().map(|m| m.held.0).fold(f64::INFINITY, f64::min);
    println!(
        "  {} concurrent games held, no error, no lost or duplicated turn: {} (at least {least:.0} \
         in progress in the windows; {stranded} players stranded without a game)",
        params.games,
        yes(stranded == 0),
    );
}

fn print_flat_verdict(flat: &Measured) {
    println!(
        "  >= 10,000 moves/s flat out: {} ({:.0})",
        yes(flat.moves_per_second() >= 10_000.0),
        flat.moves_per_second()
    );
}

fn print_paced_verdict(rate: f64, paced: &Measured, p99_target_ms: f64) {
    let kept = paced.moves_per_second() >= 0.98 * rate;
    println!(
        "  at {rate:.0} moves/s offered: kept up {} ({:.0}/s), p99 < {p99_target_ms:.0} ms {} ({:.2} \
         ms)",
        yes(kept),
        paced.moves_per_second(),
        yes(paced.latency(0.99) < p99_target_ms),
        paced.latency(0.99)
    );
}
