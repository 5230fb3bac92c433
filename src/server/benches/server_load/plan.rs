//! The run plan: its settings (from the environment, or `--quick`), and its rounds on SQLite,
//! the echo ceiling and PostgreSQL, then those with readers and watchers.

use std::time::Duration;

use gokata_server::store::is_postgres_address;
use tokio::sync::Semaphore;

use crate::audience::Audience;
use crate::audience_rounds::{audience_rounds, report_audience, AudienceParams};
use crate::echo::echo_round;
use crate::games::players;
use crate::measure::{measure, Measured, Site};
use crate::postgres::Databases;
use crate::report::{print_heading, report};
use crate::servers::{Children, ServerProcess};
use crate::startup::{report_startup, startup_round};
use crate::{DRAIN_TIMEOUT, SEEKING_AT_ONCE, SERVER_START_TIMEOUT, SERVER_STOP_TIMEOUT, VERIFY_TIMEOUT};

/// The longest the start-up round may take (filling the database, and three starts).
const STARTUP_BUDGET: Duration = Duration::from_secs(300);

pub(crate) struct Params {
    pub(crate) games: usize,
    pub(crate) seconds: f64,
    pub(crate) warmup: f64,
    /// The moves per second offered in the paced runs (spread evenly over the games), if any,
    /// on SQLite and the echo ceiling.
    pub(crate) rate: Option<f64>,
    /// The same on PostgreSQL.
    pub(crate) pg_rate: Option<f64>,
    /// Whether to measure one process on SQLite and the echo ceiling.
    pub(crate) sqlite: bool,
    /// Server processes on PostgreSQL; none for no PostgreSQL rounds.
    pub(crate) processes: usize,
    /// A PostgreSQL server to make the databases on, instead of a throwaway cluster.
    database: Option<String>,
    /// Players seeking their first game at once: the first seeks are a ramp, as the
    /// connections are, so that they do not all reach the server in one batch.
    pub(crate) seeking_at_once: usize,
    pub(crate) audience: AudienceParams,
    /// The unfinished games on the database of the start-up round.
    pub(crate) startup_games: usize,
}

impl Params {
    pub(crate) fn read(quick: bool) -> Result<Params, String> {
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
                audience: AudienceParams::quick(),
                startup_games: 2000,
            });
        }
        let games = env_number("GAMES", 1000.0)?;
        let seconds = env_number("SECONDS", 10.0)?;
        let rate = env_number("RATE", 10_000.0)?;
        let pg_rate = env_number("PG_RATE", 5_000.0)?;
        let processes = env_number("PROCESSES", 3.0)?;
        let seeking_at_once = env_number("SEEKING_AT_ONCE", SEEKING_AT_ONCE as f64)?;
        let startup_games = env_number("STARTUP_GAMES", 100_000.0)?;
        if !(0.0..=1e7).contains(&startup_games) {
            return Err("STARTUP_GAMES must be 0 to 10,000,000".into());
        }
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
            audience: AudienceParams::read()?,
            startup_games: startup_games as usize,
        })
    }

    /// The paced runs' time from one turn of a game to the next.
    pub(crate) fn interval(&self, rate: Option<f64>) -> Option<Duration> {
        rate.map(|rate| Duration::from_secs_f64(self.games as f64 / rate))
    }

    pub(crate) fn setup_timeout(&self) -> Duration {
        Duration::from_secs(30) + Duration::from_millis(20 * self.games as u64)
    }

    /// The longest one measurement may take, from starting its server to stopping it.
    pub(crate) fn measurement_budget(&self) -> Duration {
        SERVER_START_TIMEOUT * self.processes.max(self.audience.watchers_processes).max(1) as u32
            + self.setup_timeout() * 2
            + Duration::from_secs_f64(self.warmup + self.seconds)
            + DRAIN_TIMEOUT
            + VERIFY_TIMEOUT
            + SERVER_STOP_TIMEOUT
    }
}

pub(crate) fn env_number(name: &str, default: f64) -> Result<f64, String> {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|_| format!("{name}={text:?} is not a number")),
        Err(_) => Ok(default),
    }
}
/// Flat out, then paced at `rate` if there is one.
pub(crate) fn loads(rate: Option<f64>) -> Vec<Option<f64>> {
    std::iter::once(None).chain(rate.map(Some)).collect()
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
            let game = measure(
                &site,
                rate,
                params,
                players(params.games, 1, None),
                Audience::Nobody,
            )?;
            server.stop()?;
            Ok((game, echo_round(params, rate, children)?))
        })
        .collect();
    let _ = std::fs::remove_dir_all(&directory);
    rounds
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
            let players = players(params.games, params.processes, None);
            let measured = measure(&site, rate, params, players, Audience::Nobody)?;
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

pub(crate) fn run(params: &Params) -> Result<(), String> {
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
        params.measurement_budget() * measurements as u32
            + params.audience.budget(params, databases.is_some())
            + STARTUP_BUDGET
            + Duration::from_secs(30),
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
    let audience = audience_rounds(params, databases.as_mut(), &children)?;
    let startup = match (&mut databases, params.startup_games) {
        (Some(databases), games) if games > 0 => Some(startup_round(databases, &children, games)?),
        _ => None,
    };
    drop(databases);
    report(params, &sqlite, &postgres);
    report_audience(params, &audience);
    if let Some(startup) = &startup {
        report_startup(startup);
    }
    Ok(())
}
