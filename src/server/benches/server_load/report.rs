//! The report: the tables, the ratios between setups, the checks and the targets.

use crate::measure::{load_average, Measured, Stats};
use crate::plan::Params;
use crate::postgres::Databases;
use crate::STRANDED_AFTER;

pub(crate) fn print_heading(params: &Params, databases: Option<&Databases>) {
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

pub(crate) fn report(params: &Params, sqlite: &[(Measured, Measured)], postgres: &[Measured]) {
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
