//! A measurement: the phases of one run against a site's servers, what the connections counted,
//! and the CPU used in the window.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::audience::{Audience, AudienceFigures, Present};
use crate::driver::{drive, Phase, Role, Shared};
use crate::plan::Params;
use crate::servers::ServerProcess;
use crate::{DRAIN_TIMEOUT, VERIFY_TIMEOUT};

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

pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
#[derive(Default)]
pub(crate) struct Stats {
    /// Own turns acknowledged inside the window.
    pub(crate) acked_in_window: u64,
    /// Sending a turn to the opponent's `played`, received inside the window, in µs.
    pub(crate) latencies_us: Vec<u32>,
    /// Sending a turn to its own `played` (the acknowledgement), received inside the window.
    pub(crate) ack_latencies_us: Vec<u32>,
    /// Own turns acknowledged in all.
    pub(crate) turns: u64,
    /// Games started and finished as black (so each is counted once).
    pub(crate) games_started: u64,
    pub(crate) games_finished: u64,
    /// Games started whose players are connected to different server processes.
    pub(crate) games_across: u64,
    /// Games whose `start` already carried the opponent's first turn (see `Player::start`).
    pub(crate) late_starts: u64,
    /// The longest a player waited for a game after seeking (or still waits, at the end).
    pub(crate) longest_wait: Duration,
    /// Players that still wait for a game at the end, for longer than `STRANDED_AFTER`.
    pub(crate) stranded: u64,
    pub(crate) verified_games: u64,
    pub(crate) verified_turns: u64,
    pub(crate) paced: u64,
}

impl Stats {
    pub(crate) fn note_wait(&mut self, waited: Duration) {
        self.longest_wait = self.longest_wait.max(waited);
    }

    fn add(&mut self, other: Stats) {
        self.acked_in_window += other.acked_in_window;
        self.latencies_us.extend(other.latencies_us);
        self.ack_latencies_us.extend(other.ack_latencies_us);
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
/// Where a measurement's connections go (spread over its server processes) and whose CPU it
/// counts.
pub(crate) struct Site<'a> {
    /// `sqlite`, `echo` or `postgres xN`.
    pub(crate) name: String,
    pub(crate) servers: &'a [ServerProcess],
    /// PostgreSQL's postmaster, when the database is ours to watch.
    pub(crate) postmaster: Option<u32>,
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
pub(crate) struct CpuUse {
    pub(crate) servers: f64,
    /// PostgreSQL's processes, when the database is ours (SQLite runs inside the server).
    pub(crate) database: Option<f64>,
    pub(crate) generator: f64,
    /// The rest of the machine (other builds and tests may share it).
    pub(crate) other: f64,
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

pub(crate) struct Measured {
    pub(crate) site: String,
    pub(crate) processes: usize,
    /// `flat out` or `N/s offered`.
    pub(crate) load: String,
    pub(crate) games: usize,
    pub(crate) connections: usize,
    pub(crate) seconds: f64,
    /// From the first seeks to every player's first game started.
    pub(crate) pairing_seconds: f64,
    /// The games in progress in the window (players in a game, halved): least and mean.
    pub(crate) held: (f64, f64),
    pub(crate) stats: Stats,
    pub(crate) cpu: CpuUse,
    pub(crate) load_after: String,
    pub(crate) audience: Option<AudienceFigures>,
}

impl Measured {
    pub(crate) fn moves_per_second(&self) -> f64 {
        self.stats.acked_in_window as f64 / self.seconds
    }

    /// The latency at quantile `q`, in ms.
    pub(crate) fn latency(&self, q: f64) -> f64 {
        quantile_ms(&self.stats.latencies_us, q)
    }

    /// The acknowledgement's latency at quantile `q`, in ms.
    pub(crate) fn ack_latency(&self, q: f64) -> f64 {
        quantile_ms(&self.stats.ack_latencies_us, q)
    }
}

/// Quantile `q` of `sorted` µs, in ms (NaN for none).
pub(crate) fn quantile_ms(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1000.0
}

pub(crate) async fn wait_for(
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
/// phase, flat out or paced at `rate`, with `audience` besides. The window starts a warm-up
/// after every player's first game has started.
pub(crate) fn measure<R: Role>(
    site: &Site,
    rate: Option<f64>,
    params: &Params,
    roles: Vec<R>,
    audience: Audience,
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
        let audience = audience.arrive(site, &shared, &phases).await?;
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
        wind_down(&shared, &phase, connections, &audience).await?;
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
            audience: audience.depart((begin, end)).await?,
        })
    })
}

/// After the window: the turns in flight are acknowledged, the games re-read, the watchers
/// caught up, and the connections closed.
async fn wind_down(
    shared: &Shared,
    phase: &watch::Sender<Phase>,
    connections: usize,
    audience: &Present,
) -> Result<(), String> {
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
    audience.settle(shared).await?;
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
    total.ack_latencies_us.sort_unstable();
    Ok(total)
}
fn load_name(rate: Option<f64>) -> String {
    match rate {
        None => "flat out".into(),
        Some(rate) => format!("{rate:.0}/s offered"),
    }
}
