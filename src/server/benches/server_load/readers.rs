//! Readers: clients of the HTTP API that read the lobby's two lists once a second, as a page
//! behind a proxy would, each from an address of its own (in `X-Forwarded-For`; the server runs
//! behind a proxy, so each has its own bucket of the API's requests a second).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::MissedTickBehavior;

use crate::driver::{tcp_to, Phase, Shared};
use crate::CONNECT_TIMEOUT;

/// The two lists, each with the key its answer starts with.
const READS: [(&str, &str); 2] = [
    ("/api/seeks", "{\"seeks\":"),
    ("/api/games?status=playing", "{\"games\":"),
];

/// Reader `index`'s address, as its proxy would forward it: one of 198.18.0.0/15, the range
/// kept for benchmarks (only a header: every connection goes to 127.0.0.1).
fn forwarded_address(index: usize) -> String {
    format!(
        "198.{}.{}.{}",
        18 + (index >> 16) % 2,
        (index >> 8) & 255,
        index & 255
    )
}

#[derive(Default)]
pub(crate) struct ReaderStats {
    /// From sending a request to having its whole answer, for requests sent in the window, in µs.
    pub(crate) latencies_us: Vec<u32>,
    /// Requests answered in the window.
    pub(crate) answered_in_window: u64,
    /// Seconds whose reads did not go, because the reads before had not finished.
    pub(crate) skipped: u64,
    /// Connections the server closed between requests (the reader reconnects).
    pub(crate) reconnects: u64,
}

impl ReaderStats {
    pub(crate) fn add(&mut self, other: ReaderStats) {
        self.latencies_us.extend(other.latencies_us);
        self.answered_in_window += other.answered_in_window;
        self.skipped += other.skipped;
        self.reconnects += other.reconnects;
    }
}

/// One keep-alive HTTP/1.1 connection.
struct Http {
    stream: TcpStream,
    buffer: Vec<u8>,
}

impl Http {
    async fn open(port: u16) -> Result<Http, String> {
        let stream = tcp_to(port).await?;
        Ok(Http {
            stream,
            buffer: Vec::with_capacity(64 * 1024),
        })
    }

    /// `GET path`: the status and body; `None` if the connection was closed before any answer
    /// (a keep-alive connection the server let go).
    async fn get(&mut self, request: &[u8]) -> Result<Option<(u16, Vec<u8>)>, String> {
        self.stream
            .write_all(request)
            .await
            .map_err(|e| format!("cannot send a request: {e}"))?;
        self.buffer.clear();
        loop {
            if let Some(answer) = self.answer()? {
                return Ok(Some(answer));
            }
            let read = tokio::time::timeout(CONNECT_TIMEOUT, self.stream.read_buf(&mut self.buffer))
                .await
                .map_err(|_| "no answer in time".to_string())?;
            match read {
                Ok(0) if self.buffer.is_empty() => return Ok(None),
                Ok(0) => return Err("the server closed the connection in an answer".into()),
                Ok(_) => {}
                Err(_) if self.buffer.is_empty() => return Ok(None),
                Err(e) => return Err(format!("the connection failed: {e}")),
            }
        }
    }

    /// The answer in the buffer, once whole.
    fn answer(&self) -> Result<Option<(u16, Vec<u8>)>, String> {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut headers);
        let head = match response.parse(&self.buffer) {
            Ok(httparse::Status::Complete(head)) => head,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(e) => return Err(format!("an unreadable answer: {e}")),
        };
        let length = response
            .headers
            .iter()
            .find(|header| header.name.eq_ignore_ascii_case("content-length"))
            .and_then(|header| {
                std::str::from_utf8(header.value)
                    .ok()?
                    .trim()
                    .parse::<usize>()
                    .ok()
            })
            .ok_or("an answer without Content-Length")?;
        if self.buffer.len() < head + length {
            return Ok(None);
        }
        let status = response.code.unwrap_or_default();
        Ok(Some((status, self.buffer[head..head + length].to_vec())))
    }
}

pub(crate) async fn read_lobby(
    index: usize,
    readers: usize,
    port: u16,
    shared: Arc<Shared>,
    phases: watch::Receiver<Phase>,
) -> Result<ReaderStats, String> {
    match read_each_second(index, readers, port, &shared, phases).await {
        Ok(stats) => Ok(stats),
        Err(message) => {
            let message = format!("reader {index}: {message}");
            shared.fail(message.clone());
            Err(message)
        }
    }
}

/// From when the players play until they stop: both lists each second, at the reader's own
/// moment of the second (the readers spread evenly over it).
async fn read_each_second(
    index: usize,
    readers: usize,
    port: u16,
    shared: &Shared,
    mut phases: watch::Receiver<Phase>,
) -> Result<ReaderStats, String> {
    let mut stats = ReaderStats::default();
    if phases.wait_for(|phase| *phase >= Phase::Run).await.is_err() {
        return Err("the generator stopped".into());
    }
    let address = forwarded_address(index);
    let requests: Vec<(Vec<u8>, &str, &str)> = READS
        .iter()
        .map(|(path, starts)| {
            let request = format!(
                "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Forwarded-For: {address}\r\n\r\n"
            );
            (request.into_bytes(), *path, *starts)
        })
        .collect();
    let offset = Duration::from_secs(1).mul_f64(index as f64 / readers as f64);
    let mut seconds = tokio::time::interval_at((Instant::now() + offset).into(), Duration::from_secs(1));
    seconds.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut http: Option<Http> = None;
    let mut last_tick: Option<Instant> = None;
    loop {
        tokio::select! {
            tick = seconds.tick() => {
                let tick: Instant = tick.into();
                if let Some(last) = last_tick {
                    stats.skipped += (tick.duration_since(last).as_secs_f64().round() as u64).saturating_sub(1);
                }
                last_tick = Some(tick);
            }
            changed = phases.changed() => {
                if changed.is_err() {
                    return Err("the generator stopped".into());
                }
                if *phases.borrow() >= Phase::Stop {
                    return Ok(stats);
                }
                continue;
            }
        }
        if *phases.borrow() >= Phase::Stop || shared.failure().is_some() {
            return Ok(stats);
        }
        for (request, path, starts) in &requests {
            let sent = Instant::now();
            let mut answer = None;
            for _ in 0..2 {
                let connection = match &mut http {
                    Some(connection) => connection,
                    None => http.insert(Http::open(port).await?),
                };
                answer = connection.get(request).await?;
                if answer.is_some() {
                    break;
                }
                stats.reconnects += 1;
                http = None;
            }
            let (status, body) =
                answer.ok_or("the server closed two connections in a row without answering")?;
            if status != 200 || !body.starts_with(starts.as_bytes()) {
                let shown = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
                return Err(format!("GET {path} as {address} was answered {status}: {shown}"));
            }
            if shared.in_window(Instant::now()) {
                stats.answered_in_window += 1;
            }
            if shared.in_window(sent) {
                let micros = sent.elapsed().as_micros();
                stats.latencies_us.push(micros.min(u32::MAX as u128) as u32);
            }
        }
    }
}
