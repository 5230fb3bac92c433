//! The start-up round (PostgreSQL): how long a server process takes to start serving, and how
//! much memory it holds, on an empty database and on one with `STARTUP_GAMES` unfinished
//! correspondence games (three days a move, ten turns each, made directly in the database). A
//! process holds only the games its connections need, so neither should grow with them.

use std::time::{Duration, Instant};

use tokio_postgres::NoTls;

use crate::postgres::Databases;
use crate::servers::{resident_kib, Children, ServerProcess};

/// How long a process is left after it starts serving, before its memory is read.
const SETTLE: Duration = Duration::from_millis(500);
/// The turns of each game: a line of stones, black and white in turn, none ever captured.
const TURNS: [&str; 10] = ["1A", "2A", "3A", "4A", "5A", "6A", "7A", "8A", "9A", "1B"];
/// The players of the correspondence games (each plays many).
const PLAYERS: usize = 2000;

pub(crate) struct Startup {
    pub(crate) games: usize,
    /// Seconds to start serving, and resident KiB after, on the empty database and on the
    /// full one.
    pub(crate) empty: (f64, u64),
    pub(crate) full: (f64, u64),
    /// Seconds to fill the database (not measured against anything).
    pub(crate) fill_seconds: f64,
}

pub(crate) fn startup_round(
    databases: &mut Databases,
    children: &Children,
    games: usize,
) -> Result<Startup, String> {
    let empty_database = databases.fresh()?;
    let empty = start_and_measure(&empty_database, children)?;
    let full_database = databases.fresh()?;
    // The first start makes the schema; the games come after.
    ServerProcess::start(&["--serve", &full_database], children)?.stop()?;
    let filling = Instant::now();
    fill(&full_database, games)?;
    let fill_seconds = filling.elapsed().as_secs_f64();
    let full = start_and_measure(&full_database, children)?;
    Ok(Startup {
        games,
        empty,
        full,
        fill_seconds,
    })
}

fn start_and_measure(database: &str, children: &Children) -> Result<(f64, u64), String> {
    let started = Instant::now();
    // The port is printed once the server serves: after its hub has read what it reads.
    let server = ServerProcess::start(&["--serve", database], children)?;
    let seconds = started.elapsed().as_secs_f64();
    std::thread::sleep(SETTLE);
    let kib = resident_kib(server.pid)?;
    server.stop()?;
    Ok((seconds, kib))
}

/// `games` unfinished 9x9 games of ten turns between [`PLAYERS`] players, each with three days
/// for its next turn (ids of the server's form: 12 characters, no 0 or 1).
fn fill(database: &str, games: usize) -> Result<(), String> {
    let points: Vec<String> = TURNS.iter().map(|point| format!("'{point}'")).collect();
    let sql = format!(
        "INSERT INTO players (name, token_hash)
             SELECT 'corr' || i, '\\x00'::bytea FROM generate_series(1, {PLAYERS}) AS i;
         INSERT INTO games (id, size, black, white, komi, move_time_ms, status, plies, deadline)
             SELECT 'c' || translate(lpad(i::text, 11, '0'), '01', 'xy'), 9, 'corr' || (i % {PLAYERS} + 1),
                    'corr' || ((i + 1) % {PLAYERS} + 1), 6.5, 259200000, 'playing', {turns},
                    clock_timestamp() + interval '3 days'
             FROM generate_series(1, {games}) AS i;
         INSERT INTO turns (game, ply, point)
             SELECT 'c' || translate(lpad(i::text, 11, '0'), '01', 'xy'), ply - 1, (ARRAY[{points}])[ply]
             FROM generate_series(1, {games}) AS i, generate_series(1, {turns}) AS ply;
         ANALYZE;",
        turns = TURNS.len(),
        points = points.join(", "),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a runtime: {e}"))?;
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(database, NoTls)
            .await
            .map_err(|e| format!("cannot connect to the start-up database: {e}"))?;
        tokio::spawn(connection);
        client
            .batch_execute(&sql)
            .await
            .map_err(|e| format!("cannot fill the start-up database: {e}"))
    })
}

/// The round's figures, against its targets (start serving in under 5 s; resident memory
/// within 50 MiB of the empty database's) when there are 100,000 games or more.
pub(crate) fn report_startup(startup: &Startup) {
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "\nstart-up (PostgreSQL, one process): {} unfinished correspondence games (10 turns each, 3 days a move) \
         made in the database in {:.1} s",
        startup.games, startup.fill_seconds
    );
    println!("                      serving after s   resident MiB");
    println!(
        "empty database        {:>15.2}   {:>12.1}",
        startup.empty.0,
        mib(startup.empty.1)
    );
    println!(
        "{:<21} {:>15.2}   {:>12.1}",
        format!("{} games", startup.games),
        startup.full.0,
        mib(startup.full.1)
    );
    let grown = mib(startup.full.1) - mib(startup.empty.1);
    if startup.games < 100_000 {
        println!(
            "targets (serving in under 5 s, memory within 50 MiB of empty) are for 100,000 games: no verdict"
        );
        return;
    }
    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    println!(
        "serving in under 5 s: {} ({:.2} s); memory within 50 MiB of the empty database's: {} ({grown:+.1} MiB)",
        verdict(startup.full.0 < 5.0),
        startup.full.0,
        verdict(grown <= 50.0)
    );
}
