//! Reaching the database: which `--db` addresses are PostgreSQL's, the settings of a
//! connection, and where it connects, as messages name it.

use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::config::Host;
use tokio_postgres::{Client, Config, NoTls};

use crate::store::StoreError;

/// Whether `--db` names a PostgreSQL database rather than an SQLite file: a URL
/// (`postgresql://`, `postgres://`) or libpq's `key=value` form.
pub fn is_postgres_address(address: &str) -> bool {
    let address = address.trim_start();
    address.starts_with("postgresql://")
        || address.starts_with("postgres://")
        || address
            .split_whitespace()
            .next()
            .and_then(|word| word.split_once('='))
            .is_some_and(|(key, _)| {
                !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
}

/// Parses a database address, naming what is wrong with it.
pub fn parse_address(address: &str) -> Result<Config, String> {
    let mut config = Config::from_str(address).map_err(|error| format!("{error}"))?;
    if config.get_application_name().is_none() {
        config.application_name("gokata serve");
    }
    config.connect_timeout(Duration::from_secs(5));
    // A database gone without a word (its machine, the network) is noticed in seconds.
    config.keepalives_idle(Duration::from_secs(5));
    config.keepalives_interval(Duration::from_secs(2));
    config.keepalives_retries(3);
    config.tcp_user_timeout(Duration::from_secs(15));
    Ok(config)
}

pub(crate) async fn connect(config: &Config) -> Result<Client, StoreError> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|source| StoreError::Connect {
            address: targets(config),
            source,
        })?;
    tokio::spawn(async move {
        // Ends when the connection does; the next call on the client then fails, and the hub
        // reconnects.
        let _ = connection.await;
    });
    // Acknowledged means durable, whatever the database's default. No statement, lock wait or
    // open transaction may hold a process (or, if the process died, other processes' rows)
    // for long.
    client
        .batch_execute(
            "SET synchronous_commit = on; SET statement_timeout = '15s'; SET lock_timeout = '10s';
             SET idle_in_transaction_session_timeout = '15s'",
        )
        .await?;
    Ok(client)
}

/// Where `config` connects, as messages name it: `HOST:PORT` for each host tried (its
/// `hostaddr` if it has one, a socket's directory for a Unix socket), as tokio-postgres pairs
/// hosts and ports (one port for all, one for each, or 5432).
pub(super) fn targets(config: &Config) -> String {
    let (hosts, addresses, ports) = (config.get_hosts(), config.get_hostaddrs(), config.get_ports());
    let count = hosts.len().max(addresses.len());
    if count == 0 {
        return "no host (give a host or hostaddr)".into();
    }
    (0..count)
        .map(|i| {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            let host = match (addresses.get(i), hosts.get(i)) {
                (Some(address), _) => address.to_string(),
                (None, Some(Host::Tcp(name))) => name.clone(),
                #[cfg(unix)]
                (None, Some(Host::Unix(directory))) => directory.display().to_string(),
                (None, None) => unreachable!("the count is that of the longer list"),
            };
            if host.contains(':') && !host.starts_with('/') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
