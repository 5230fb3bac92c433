//! Load benchmark of the game server. Run:
//! `cargo bench --bench server_load [-- --quick]`, with in the environment
//! `GAMES` (default 1000), `SECONDS` (default 10), `RATE` (default 10000; 0 for none), and for
//! the PostgreSQL rounds `PROCESSES` (default 3; 0 for no PostgreSQL rounds), `PG_RATE` (default
//! 5000; 0 for none) and `DB` (a PostgreSQL address, `postgresql://...` or `key=value ...`,
//! whose user may create databases; without it, a throwaway cluster). `SQLITE=0` leaves out the
//! SQLite and echo rounds, `SEEKING_AT_ONCE` sets how many players seek their first game at once
//! (default 64; 0 for all at once). `READERS` (default 500; 0 for none) and `READERS_RATE`
//! (default 5000), `WATCHERS` on each game (default 10; 0 for none), `WATCHERS_RATE` (default
//! 2000) and `WATCHERS_PROCESSES` (default 3) set the rounds with an audience (below). `--quick`
//! (20 games, 2 s, 400 moves/s, 2 processes on a throwaway cluster, 5 readers, 2 watchers a game
//! at 1500 moves/s) only checks that everything works. `STARTUP_GAMES` (default 100000; 2000
//! with `--quick`) sets the start-up round (below).
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
//! Then the rounds with an audience, each on a fresh server started behind a proxy
//! (`--behind-proxy`), on one process on SQLite, then on PostgreSQL:
//! - readers: `GAMES` games at `READERS_RATE` moves/s offered on one process, measured without
//!   and then with `READERS` clients of the HTTP API, each reading `/api/seeks` and
//!   `/api/games?status=playing` once a second (at its own moment of the second, so they spread
//!   over it) on a keep-alive connection, each with an address of its own in `X-Forwarded-For`
//!   (the API's limit of requests a second per address stays as by default). Printed: the
//!   movers' acknowledgement latency (sending a move to its own `played`) without and with the
//!   readers, and the readers' own latency;
//! - watchers: `WATCHERS` connections without a name on each game besides its players, at
//!   `WATCHERS_RATE` moves/s offered, on one process on SQLite and on `WATCHERS_PROCESSES` on
//!   PostgreSQL (watcher `i` on process `i % n`, so many follow a game played through another
//!   process). A game is offered to its watchers when it starts; a watcher whose game ends takes
//!   the next offer. Every watcher must get every turn of each game it watches once, in order,
//!   as the players had it acknowledged, and its end (else the run fails). Printed: from a
//!   turn's acknowledgement to its last watcher's copy, and the servers' resident memory (VmRSS)
//!   per idle connection: before the players play, the watchers connect, watch the lobby once
//!   and stop (a connection without a name is closed unless it watches within 10 s), and the
//!   servers' memory is read before and after. All connections come from 127.0.0.1: the
//!   servers' connections per address are raised (as `--max-connections-per-address`).
//!
//! This process raises its limit of open files (RLIMIT_NOFILE) to the hard limit at the start;
//! the server processes inherit it.
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
//!
//! Last, the start-up round on PostgreSQL: one process started on an empty database, then on
//! one holding `STARTUP_GAMES` unfinished correspondence games (three days a move, ten turns
//! each, made directly in the database): the time until it serves, and its resident memory.

#[path = "server_load/audience.rs"]
mod audience;
#[path = "server_load/audience_rounds.rs"]
mod audience_rounds;
#[path = "server_load/driver.rs"]
mod driver;
#[path = "server_load/echo.rs"]
mod echo;
#[path = "server_load/games.rs"]
mod games;
#[path = "server_load/measure.rs"]
mod measure;
#[path = "server_load/plan.rs"]
mod plan;
#[path = "server_load/postgres.rs"]
mod postgres;
#[path = "server_load/readers.rs"]
mod readers;
#[path = "server_load/report.rs"]
mod report;
#[path = "server_load/servers.rs"]
mod servers;
#[path = "server_load/startup.rs"]
mod startup;
#[path = "server_load/watchers.rs"]
mod watchers;

use std::process::ExitCode;
use std::time::Duration;

use echo::serve_echo;
use plan::{run, Params};
use servers::serve_game;

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

/// Raises this process's limit of open files (RLIMIT_NOFILE) to its hard limit, which the
/// server processes started after inherit: 10,000 watchers are 10,000 sockets on each side.
/// The limits before and after.
fn raise_open_files_limit() -> Result<(u64, u64), String> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed, which lives here.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(format!(
            "cannot read the open files limit: {}",
            std::io::Error::last_os_error()
        ));
    }
    let before = limit.rlim_cur;
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: as above.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
        return Err(format!(
            "cannot raise the open files limit from {before} to {}: {}",
            limit.rlim_max,
            std::io::Error::last_os_error()
        ));
    }
    Ok((before, limit.rlim_cur))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        return match args.get(i + 1) {
            Some(db) => serve_game(db.to_string(), args.iter().any(|a| a == "--behind-proxy")),
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
    match raise_open_files_limit() {
        Ok((before, after)) => println!("open files: the soft limit raised from {before} to the hard limit {after} (the servers inherit it)"),
        Err(message) => eprintln!("server_load: {message}"),
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
