//! Refusing, before anything is allocated, a batch the machine could not hold: a huge
//! `num_envs` should be an error naming it, not a process killed for want of memory.

use super::config::{Config, Rules};

/// About how many bytes one board of `config` takes once its game has run to the step limit,
/// with its rows of the two latest steps' output arrays (a caller holds one step's while the
/// next is written). Fitted to the resident memory of 20,000 boards stepped at random past
/// the default limit: 11.0 KB a board on 9x9 and 40.5 KB on 19x19 under pgx's rules, for
/// which this gives 11.0 and 46.8.
pub fn bytes_per_board(config: &Config) -> usize {
    let points = config.points();
    // The board, its cells, mask and accepted actions, and four bytes a point of history
    // planes for up to 16 planes (wider words beyond).
    let planes_word = (2 * config.history).div_ceil(32).next_power_of_two() * 4;
    let state = 640 + points * (24 + planes_word);
    let outputs = 2 * (config.observation_len() + config.actions() + 8);
    let final_observation = match config.autoreset {
        super::Autoreset::SameStep => 2 * config.observation_len(),
        super::Autoreset::NextStep => 0,
    };
    // A move record a turn, and a position hash under pgx's rules, up to the step limit
    // (or what a game of the default limit reaches, for a limit set very high).
    let turns = config.max_steps.min(2 * points);
    let per_turn = 24 + if config.rules == Rules::Pgx { 8 } else { 0 };
    state + outputs + final_observation + turns * per_turn
}

/// Bytes of memory the system could still give, if it says (Linux's `MemAvailable`).
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|line| line.starts_with("MemAvailable:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

/// Whether `num_envs` boards of `config` fit in `available` bytes; the error says what they
/// would take.
pub fn check_fits(config: &Config, num_envs: usize, available: Option<u64>) -> Result<(), String> {
    let needed = (num_envs as u64).saturating_mul(bytes_per_board(config) as u64);
    match available {
        Some(available) if needed > available => Err(format!(
            "num_envs={num_envs} boards of {size}x{size} would take about {needed} of memory, more than the {available} this machine has free",
            size = config.size,
            needed = gigabytes(needed),
            available = gigabytes(available),
        )),
        _ => Ok(()),
    }
}

fn gigabytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Autoreset, Layout};

    fn config(size: usize, rules: Rules) -> Config {
        Config::new(size, 7.5, 8, None, rules, Autoreset::NextStep, Layout::Nhwc).unwrap()
    }

    #[test]
    fn the_estimate_matches_the_measured_boards() {
        let nine = bytes_per_board(&config(9, Rules::Pgx));
        let nineteen = bytes_per_board(&config(19, Rules::Pgx));
        assert!((10_500..12_500).contains(&nine), "{nine}");
        assert!((40_500..50_000).contains(&nineteen), "{nineteen}");
        assert!(bytes_per_board(&config(19, Rules::Gokata)) < nineteen);
    }

    #[test]
    fn a_batch_beyond_the_free_memory_is_refused_naming_its_size() {
        let nineteen = config(19, Rules::Pgx);
        let error = check_fits(&nineteen, 1 << 24, Some(24 << 30)).unwrap_err();
        assert!(
            error.contains("num_envs=16777216") && error.contains("GB"),
            "{error}"
        );
        assert_eq!(check_fits(&nineteen, 1024, Some(24 << 30)), Ok(()));
        assert_eq!(check_fits(&nineteen, 1 << 24, None), Ok(()));
    }
}
