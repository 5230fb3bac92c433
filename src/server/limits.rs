//! Limits per client address, so that one client cannot crowd out the rest: open connections,
//! HTTP API requests, and new names. A client over a limit is refused (a dropped connection,
//! HTTP 429, `rate_limited`); nobody else notices.
//!
//! The address is the connection's peer, or behind a proxy (when the operator says so) the last
//! address of `X-Forwarded-For`: the one the proxy itself saw.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::HeaderMap;
use tokio::time::Instant;

/// The operator's limits (`gokata serve --max-connections-per-address` and the rest).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Open connections (TCP, and so WebSockets) from one address.
    pub connections_per_address: usize,
    /// New names one address may register in an hour (all of them at once, at most).
    pub registrations_per_hour: u32,
    /// HTTP API requests a second from one address (twice as many at once).
    pub api_requests_per_second: u32,
    /// The server is behind a proxy that appends the client's address to `X-Forwarded-For`.
    pub behind_proxy: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections_per_address: 64,
            registrations_per_hour: 20,
            api_requests_per_second: 20,
            behind_proxy: false,
        }
    }
}

impl Limits {
    pub fn check(&self) -> Result<(), String> {
        if self.connections_per_address == 0 {
            return Err("the connections per address must be at least 1".into());
        }
        if self.api_requests_per_second == 0 {
            return Err("the API requests a second per address must be at least 1".into());
        }
        Ok(())
    }
}

/// The client's address: the peer's, or behind a proxy the last in `X-Forwarded-For` (a header
/// the client could forge, but the proxy appends what it saw last).
pub fn client_address(peer: IpAddr, headers: &HeaderMap, behind_proxy: bool) -> IpAddr {
    if !behind_proxy {
        return peer;
    }
    // Only the very last entry: an earlier one is whatever the client sent.
    headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.rsplit(',').next())
        .and_then(|address| address.trim().parse::<IpAddr>().ok())
        .unwrap_or(peer)
}

/// A token bucket: `burst` at once, refilled at `per_second`.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    tokens: f64,
    burst: f64,
    per_second: f64,
    updated: Instant,
}

impl TokenBucket {
    pub fn new(burst: f64, per_second: f64, now: Instant) -> TokenBucket {
        TokenBucket {
            tokens: burst,
            burst,
            per_second,
            updated: now,
        }
    }

    pub fn allow(&mut self, now: Instant) -> bool {
        self.refill(now);
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }

    /// How long until the next token.
    pub fn wait(&mut self, now: Instant) -> Duration {
        self.refill(now);
        if self.tokens >= 1.0 || self.per_second <= 0.0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64((1.0 - self.tokens) / self.per_second)
    }

    fn full(&mut self, now: Instant) -> bool {
        self.refill(now);
        self.tokens >= self.burst
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.updated = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
    }
}

/// Token buckets by address; buckets back at full are forgotten now and then, so the map holds
/// only the addresses that spent recently.
pub struct BucketsByAddress {
    buckets: HashMap<IpAddr, TokenBucket>,
    burst: f64,
    per_second: f64,
    checks: u32,
}

impl BucketsByAddress {
    pub fn new(burst: f64, per_second: f64) -> BucketsByAddress {
        BucketsByAddress {
            buckets: HashMap::new(),
            burst,
            per_second,
            checks: 0,
        }
    }

    /// Spends one token of `address`'s bucket; `Err` with the wait until the next if none is left.
    pub fn spend(&mut self, address: IpAddr) -> Result<(), Duration> {
        let now = Instant::now();
        self.checks = self.checks.wrapping_add(1);
        if self.checks % 1024 == 0 {
            self.buckets.retain(|_, bucket| !bucket.full(now));
        }
        let (burst, per_second) = (self.burst, self.per_second);
        let bucket = self
            .buckets
            .entry(address)
            .or_insert_with(|| TokenBucket::new(burst, per_second, now));
        if bucket.allow(now) {
            Ok(())
        } else {
            Err(bucket.wait(now))
        }
    }
}

/// Open connections by address, shared by the accepting loop and the connections' guards.
#[derive(Clone, Default)]
pub struct ConnectionCounts {
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl ConnectionCounts {
    /// A guard for one more connection from `address`, or `None` if it has `limit` open.
    pub fn open(&self, address: IpAddr, limit: usize) -> Option<ConnectionGuard> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(address).or_insert(0);
        if *count >= limit {
            return None;
        }
        *count += 1;
        Some(ConnectionGuard {
            counts: self.clone(),
            address,
        })
    }

    #[cfg(test)]
    fn count(&self, address: IpAddr) -> usize {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.get(&address).copied().unwrap_or(0)
    }
}

/// Counts one open connection until it is dropped.
pub struct ConnectionGuard {
    counts: ConnectionCounts,
    address: IpAddr,
}

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        let mut counts = self.counts.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_a_burst_then_the_steady_rate() {
        let start = Instant::now();
        let mut bucket = TokenBucket::new(200.0, 100.0, start);
        assert!((0..200).all(|_| bucket.allow(start)));
        assert!(!bucket.allow(start));
        assert_eq!(bucket.wait(start), Duration::from_millis(10));
        let later = start + Duration::from_millis(100);
        assert_eq!((0..100).filter(|_| bucket.allow(later)).count(), 10);
    }

    #[test]
    fn connections_are_counted_per_address_until_their_guards_drop() {
        let counts = ConnectionCounts::default();
        let one: IpAddr = "127.0.0.2".parse().unwrap();
        let two: IpAddr = "127.0.0.3".parse().unwrap();
        let first = counts.open(one, 2).unwrap();
        let _second = counts.open(one, 2).unwrap();
        assert!(counts.open(one, 2).is_none(), "a third from one address");
        let _other = counts.open(two, 2).expect("another address is not affected");
        drop(first);
        assert_eq!(counts.count(one), 1);
        assert!(counts.open(one, 2).is_some());
    }

    #[test]
    fn behind_a_proxy_the_last_forwarded_address_counts() {
        let peer: IpAddr = "10.0.0.1".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", "1.2.3.4, 5.6.7.8".parse().unwrap());
        assert_eq!(client_address(peer, &headers, false), peer);
        assert_eq!(
            client_address(peer, &headers, true),
            "5.6.7.8".parse::<IpAddr>().unwrap()
        );
        headers.append("x-forwarded-for", "9.9.9.9, not-an-address".parse().unwrap());
        assert_eq!(
            client_address(peer, &headers, true),
            peer,
            "an entry the proxy did not write is not taken"
        );
        assert_eq!(client_address(peer, &HeaderMap::new(), true), peer);
    }
}
