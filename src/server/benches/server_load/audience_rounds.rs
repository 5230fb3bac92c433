//! The rounds with an audience, and their report: readers of the lobby's HTTP API beside the
//! players (the same load measured without and with them), and watchers of every game.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::audience::{Audience, AudienceFigures, ReadersSeen, WatchersSeen};
use crate::games::players;
use crate::measure::{measure, quantile_ms, Measured, Site};
use crate::plan::{env_number, Params};
use crate::postgres::Databases;
use crate::servers::{Children, ServerProcess};
use crate::watchers::Feeds;

/// The worst the movers' p99 may get with the readers, and the targets of the watchers.
const READERS_P99_TARGET_MS: f64 = 5.0;
const WATCHERS_P99_TARGET_MS: f64 = 100.0;
const IDLE_CONNECTION_TARGET_KIB: f64 = 16.0;

pub(crate) struct AudienceParams {
    /// Readers of the lobby, each reading its two lists once a second; none for no such rounds.
    pub(crate) readers: usize,
    pub(crate) readers_rate: f64,
    /// Watchers on each game; none for no such rounds.
    pub(crate) watchers_per_game: usize,
    pub(crate) watchers_rate: f64,
    /// Server processes of the watchers' round on PostgreSQL.
    pub(crate) watchers_processes: usize,
}

impl AudienceParams {
    pub(crate) fn quick() -> AudienceParams {
        AudienceParams {
            readers: 5,
            readers_rate: 400.0,
            watchers_per_game: 2,
            // Fast enough that games end and their watchers take new ones.
            watchers_rate: 1500.0,
            watchers_processes: 2,
        }
    }

    pub(crate) fn read() -> Result<AudienceParams, String> {
        let readers = env_number("READERS", 500.0)?;
        let readers_rate = env_number("READERS_RATE", 5000.0)?;
        let watchers = env_number("WATCHERS", 10.0)?;
        let watchers_rate = env_number("WATCHERS_RATE", 2000.0)?;
        let watchers_processes = env_number("WATCHERS_PROCESSES", 3.0)?;
        if !(0.0..=5000.0).contains(&readers)
            || !(1.0..=1e6).contains(&readers_rate)
            || !(0.0..=20.0).contains(&watchers)
            || !(1.0..=1e6).contains(&watchers_rate)
            || !(1.0..=16.0).contains(&watchers_processes)
        {
            return Err(format!(
                "READERS must be 0 to 5000 (is {readers}), WATCHERS 0 to 20 (is {watchers}), \
                 READERS_RATE and WATCHERS_RATE 1 to 1e6 (are {readers_rate} and \
                 {watchers_rate}), WATCHERS_PROCESSES 1 to 16 (is {watchers_processes})"
            ));
        }
        Ok(AudienceParams {
            readers: readers as usize,
            readers_rate,
            watchers_per_game: watchers as usize,
            watchers_rate,
            watchers_processes: watchers_processes as usize,
        })
    }

    fn watchers(&self, games: usize) -> usize {
        self.watchers_per_game * games
    }

    /// The sites measured: SQLite (when its rounds are on) and PostgreSQL (when there is one).
    fn sites(params: &Params, postgres: bool) -> usize {
        usize::from(params.sqlite) + usize::from(postgres)
    }

    /// The longest the rounds may take.
    pub(crate) fn budget(&self, params: &Params, postgres: bool) -> Duration {
        let sites = AudienceParams::sites(params, postgres) as u32;
        let readers = if self.readers > 0 { 2 * sites } else { 0 };
        let watchers = if self.watchers_per_game > 0 { sites } else { 0 };
        params.measurement_budget() * (readers + watchers)
            + Audience::setup_timeout(self.watchers(params.games)) * watchers
    }
}

pub(crate) struct AudienceRounds {
    /// By site: without the readers, then with them.
    readers: Vec<(Measured, Measured)>,
    watchers: Vec<Measured>,
}

/// Where a round's database is made.
enum Store<'a> {
    Sqlite(PathBuf),
    Postgres(&'a mut Databases),
}

/// One measurement with an audience on fresh servers (behind a proxy, as the readers need) and
/// a fresh database.
struct Rounds<'a> {
    params: &'a Params,
    children: &'a Children,
    made: usize,
}

impl Rounds<'_> {
    fn measure(
        &mut self,
        store: &mut Store,
        processes: usize,
        rate: f64,
        audience: Audience,
    ) -> Result<Measured, String> {
        self.made += 1;
        let (database, postmaster, name) = match store {
            Store::Sqlite(folder) => {
                let path = folder.join(format!("audience{}.sqlite3", self.made));
                let path = path.to_str().ok_or("a non-UTF-8 temp path")?.to_string();
                (path, None, "sqlite".to_string())
            }
            Store::Postgres(databases) => (
                databases.fresh()?,
                databases.postmaster(),
                format!("postgres x{processes}"),
            ),
        };
        let servers = (0..processes)
            .map(|_| ServerProcess::start(&["--serve", &database, "--behind-proxy"], self.children))
            .collect::<Result<Vec<_>, _>>()?;
        let site = Site {
            name,
            servers: &servers,
            postmaster,
        };
        let feeds = match &audience {
            Audience::Watchers { feeds, .. } => Some(feeds),
            _ => None,
        };
        let players = players(self.params.games, processes, feeds);
        let measured = measure(&site, Some(rate), self.params, players, audience)?;
        ServerProcess::stop_all(servers)?;
        Ok(measured)
    }

    fn on(&mut self, store: &mut Store, results: &mut AudienceRounds) -> Result<(), String> {
        let audience = &self.params.audience;
        if audience.readers > 0 {
            let rate = audience.readers_rate;
            let alone = self.measure(store, 1, rate, Audience::Nobody)?;
            let read = self.measure(store, 1, rate, Audience::Readers(audience.readers))?;
            results.readers.push((alone, read));
        }
        if audience.watchers_per_game > 0 {
            let processes = match store {
                Store::Sqlite(_) => 1,
                Store::Postgres(_) => audience.watchers_processes,
            };
            let feeds = Arc::new(Feeds::new(audience.watchers_per_game));
            let count = audience.watchers(self.params.games);
            let watchers = Audience::Watchers { feeds, count };
            results
                .watchers
                .push(self.measure(store, processes, audience.watchers_rate, watchers)?);
        }
        Ok(())
    }
}

/// The readers' rounds (the same load without them, then with them) and the watchers', on one
/// process on SQLite, then on PostgreSQL.
pub(crate) fn audience_rounds(
    params: &Params,
    databases: Option<&mut Databases>,
    children: &Children,
) -> Result<AudienceRounds, String> {
    let mut results = AudienceRounds {
        readers: Vec::new(),
        watchers: Vec::new(),
    };
    let mut rounds = Rounds {
        params,
        children,
        made: 0,
    };
    if params.sqlite {
        let folder = std::env::temp_dir().join(format!("gokata-audience-{}", std::process::id()));
        std::fs::create_dir_all(&folder).map_err(|e| format!("cannot make {}: {e}", folder.display()))?;
        let done = rounds.on(&mut Store::Sqlite(folder.clone()), &mut results);
        let _ = std::fs::remove_dir_all(Path::new(&folder));
        done?;
    }
    if let Some(databases) = databases {
        rounds.on(&mut Store::Postgres(databases), &mut results)?;
    }
    Ok(results)
}

fn ms(value: f64) -> String {
    format!("{value:.2}")
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

fn cpu(m: &Measured) -> String {
    format!(
        "{:>10} {:>7} {:>8} {:>9}",
        percent(m.cpu.servers),
        m.cpu.database.map_or("-".into(), percent),
        percent(m.cpu.generator),
        percent(m.cpu.other)
    )
}

fn yes(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

pub(crate) fn report_audience(params: &Params, rounds: &AudienceRounds) {
    let verdicts = params.games >= 1000;
    if !rounds.readers.is_empty() {
        report_readers(params, &rounds.readers, verdicts);
    }
    if !rounds.watchers.is_empty() {
        report_watchers(params, &rounds.watchers, verdicts);
    }
    let measured = !(rounds.readers.is_empty() && rounds.watchers.is_empty());
    if measured && !verdicts {
        println!(
            "targets of the readers and watchers are for GAMES=1000: no verdict at {} games",
            params.games
        );
    }
}

fn readers_seen(m: &Measured) -> Option<&ReadersSeen> {
    match &m.audience {
        Some(AudienceFigures::Readers(seen)) => Some(seen),
        _ => None,
    }
}

fn report_readers(params: &Params, rows: &[(Measured, Measured)], verdicts: bool) {
    let audience = &params.audience;
    println!();
    println!(
        "readers: {} games at {:.0} moves/s offered on one process, measured without and with {} \
         readers, each reading GET /api/seeks and GET /api/games?status=playing once a second \
         (spread over the second) from an address of its own (X-Forwarded-For; the server behind \
         a proxy, --behind-proxy, its limit of API requests a second per address as by default)",
        params.games, audience.readers_rate, audience.readers
    );
    println!(
        "{:<26} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10} {:>7} {:>8} {:>9}",
        "",
        "moves/s",
        "ack p50",
        "ack p99",
        "opp p99",
        "reads/s",
        "read p50",
        "read p99",
        "read max",
        "skipped",
        "server cpu",
        "db cpu",
        "gen cpu",
        "other cpu"
    );
    for m in rows.iter().flat_map(|(alone, read)| [alone, read]) {
        let seen = readers_seen(m);
        let reads = |f: &dyn Fn(&ReadersSeen) -> String| seen.map_or("-".into(), f);
        println!(
            "{:<26} {:>8.0} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {}",
            format!(
                "{}, {}",
                m.site,
                seen.map_or("no readers".into(), |s| format!("{} readers", s.readers))
            ),
            m.moves_per_second(),
            ms(m.ack_latency(0.5)),
            ms(m.ack_latency(0.99)),
            ms(m.latency(0.99)),
            reads(&|s| format!("{:.0}", s.stats.answered_in_window as f64 / m.seconds)),
            reads(&|s| ms(quantile_ms(&s.stats.latencies_us, 0.5))),
            reads(&|s| ms(quantile_ms(&s.stats.latencies_us, 0.99))),
            reads(&|s| ms(quantile_ms(&s.stats.latencies_us, 1.0))),
            reads(&|s| s.stats.skipped.to_string()),
            cpu(m)
        );
    }
    println!(
        "(ack: from sending a move to its own played; opp: to the opponent's; reads/s: answered in \
         the window; read: from sending a request to its whole answer; skipped: a reader's seconds without reads, its reads before \
         not yet answered)"
    );
    for (alone, read) in rows {
        let p99 = read.ack_latency(0.99) - alone.ack_latency(0.99);
        let p50 = read.ack_latency(0.5) - alone.ack_latency(0.5);
        let reconnects = readers_seen(read).map_or(0, |s| s.stats.reconnects);
        let verdict = match verdicts {
            true => format!(
                " (target: at most {READERS_P99_TARGET_MS:.0} ms worse: {})",
                yes(p99 <= READERS_P99_TARGET_MS)
            ),
            false => String::new(),
        };
        println!(
            "with the readers ({}): the movers' ack p99 {p99:+.2} ms{verdict}, p50 {p50:+.2} ms; \
             moves/s {:.0} against {:.0}; every read answered 200 with its list, {reconnects} \
             connections reopened",
            read.site,
            read.moves_per_second(),
            alone.moves_per_second(),
        );
    }
}

fn watchers_seen(m: &Measured) -> Option<&WatchersSeen> {
    match &m.audience {
        Some(AudienceFigures::Watchers(seen)) => Some(seen),
        _ => None,
    }
}

fn report_watchers(params: &Params, rows: &[Measured], verdicts: bool) {
    let audience = &params.audience;
    println!();
    println!(
        "watchers: {} watchers ({} on each game, a new game when theirs ends) besides {} players, \
         at {:.0} moves/s offered, spread over the processes as the players are (watcher i on \
         process i % n); every connection from 127.0.0.1, the server's connections per address \
         raised (--max-connections-per-address)",
        audience.watchers(params.games),
        audience.watchers_per_game,
        params.games * 2,
        audience.watchers_rate
    );
    println!(
        "{:<14} {:>8} {:>8} {:>8} {:>8} {:>14} {:>8} {:>8} {:>8} {:>8} {:>16} {:>10} {:>10} {:>7} {:>8} {:>9}",
        "",
        "moves/s",
        "ack p50",
        "ack p99",
        "watched",
        "via other proc",
        "copies",
        "last p50",
        "last p99",
        "last max",
        "RSS MiB bef/aft",
        "KiB/idle",
        "server cpu",
        "db cpu",
        "gen cpu",
        "other cpu"
    );
    for m in rows {
        let Some(seen) = watchers_seen(m) else {
            continue;
        };
        let latency = |q| ms(quantile_ms(&seen.latencies_us, q));
        println!(
            "{:<14} {:>8.0} {:>8} {:>8} {:>8} {:>14} {:>8} {:>8} {:>8} {:>8} {:>16} {:>10.1} {}",
            m.site,
            m.moves_per_second(),
            ms(m.ack_latency(0.5)),
            ms(m.ack_latency(0.99)),
            seen.stats.games,
            seen.stats.across,
            seen.latencies_us.len(),
            latency(0.5),
            latency(0.99),
            latency(1.0),
            format!(
                "{:.1}/{:.1}",
                seen.memory.before_kib as f64 / 1024.0,
                seen.memory.after_kib as f64 / 1024.0
            ),
            seen.memory.kib_per_connection(),
            cpu(m)
        );
    }
    println!(
        "(watched: games watched, via other proc: of them through a process neither player is on; \
         copies: turns acknowledged in the window that watchers got as played; last: from the \
         mover's acknowledgement to the last watcher's copy, 0 for a copy before it; KiB/idle: the \
         servers' resident memory (VmRSS) after the watchers' connections opened, idle, less \
         before, a connection)"
    );
    for m in rows {
        let Some(seen) = watchers_seen(m) else {
            continue;
        };
        println!(
            "checks (watchers, {}): each of the {} watchers got every turn of each game it \
             watched once, in order, as the players had it acknowledged: {} turns in {} games ({} \
             already over when watched), {} as played; no gap, no duplicate, no error",
            m.site,
            seen.watchers,
            seen.stats.turns_checked,
            seen.stats.games,
            seen.stats.over_when_watched,
            seen.stats.copies
        );
        if verdicts {
            let p99 = quantile_ms(&seen.latencies_us, 0.99);
            let idle = seen.memory.kib_per_connection();
            println!(
                "targets (watchers, {}): p99 from the acknowledgement to the last watcher < \
                 {WATCHERS_P99_TARGET_MS:.0} ms: {} ({p99:.2} ms); an idle connection < \
                 {IDLE_CONNECTION_TARGET_KIB:.0} KiB: {} ({idle:.1} KiB)",
                m.site,
                yes(p99 < WATCHERS_P99_TARGET_MS),
                yes(idle < IDLE_CONNECTION_TARGET_KIB)
            );
        }
    }
}
