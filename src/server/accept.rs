//! Accepting and serving connections: at most so many open from one address, and none held open
//! by a client that says nothing or says it too slowly. A connection must send its first
//! request within [`REQUEST_TIME`], the head of every request must arrive whole within it
//! (hyper's header timeout, which needs the timer that `axum::serve` does not give it, so
//! connections are served here), and once answered a connection may be silent for at most
//! [`IDLE_TIME`]: the server pings every upgraded WebSocket more often than that, and live
//! clients answer.

use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

use super::http::too_many_connections;
use super::limits::{ConnectionCounts, ConnectionGuard};

/// The time a new connection has to send its first request whole.
pub const REQUEST_TIME: Duration = Duration::from_secs(10);
/// The longest a connection may send nothing once it has been answered.
pub const IDLE_TIME: Duration = Duration::from_secs(75);

/// A TCP listener that refuses connections over the per-address limit (`None`: no limit, as
/// behind a proxy, where every connection comes from the proxy's address).
pub struct GuardedListener {
    listener: TcpListener,
    counts: ConnectionCounts,
    /// Connections over the limit being told so: as many more per address at most, and any
    /// beyond those dropped unanswered.
    refusals: ConnectionCounts,
    per_address: Option<usize>,
}

/// Whether an accepted connection is served, or told that its address is over the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Admitted,
    OverLimit(usize),
}

impl GuardedListener {
    pub fn new(
        listener: TcpListener,
        counts: ConnectionCounts,
        per_address: Option<usize>,
    ) -> GuardedListener {
        GuardedListener {
            listener,
            counts,
            refusals: ConnectionCounts::default(),
            per_address,
        }
    }
}

impl GuardedListener {
    pub async fn accept(&mut self) -> (GuardedStream, SocketAddr, Admission) {
        loop {
            let (stream, peer) = match self.listener.accept().await {
                Ok(accepted) => accepted,
                Err(_) => {
                    // Out of file descriptors, say: give the others time to close.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let (guard, admission) = match self.per_address {
                Some(limit) => match self.counts.open(peer.ip(), limit) {
                    Some(guard) => (Some(guard), Admission::Admitted),
                    None => match self.refusals.open(peer.ip(), limit) {
                        Some(refusing) => (Some(refusing), Admission::OverLimit(limit)),
                        None => continue, // dropped: refusing as many already
                    },
                },
                None => (None, Admission::Admitted),
            };
            // No Nagle: a `played` must not wait for the client's delayed ACK of the last frame.
            let _ = stream.set_nodelay(true);
            return (GuardedStream::new(stream, guard), peer, admission);
        }
    }
}

/// The peer's address, for handlers (`ConnectInfo<Peer>`).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub IpAddr);

/// Serves `app` on every connection `listener` accepts, until `stopping` turns true; then
/// accepts no more and asks each connection to finish what it is answering (upgraded
/// WebSockets are the hub's to close).
pub async fn serve(mut listener: GuardedListener, app: Router, mut stopping: watch::Receiver<bool>) {
    loop {
        let (stream, peer, admission) = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopping.wait_for(|stopping| *stopping) => return,
        };
        match admission {
            Admission::Admitted => {
                let app = app.clone();
                let stopping = stopping.clone();
                tokio::spawn(serve_connection(stream, Peer(peer.ip()), app, stopping));
            }
            Admission::OverLimit(limit) => {
                tokio::spawn(refuse_connection(stream, peer.ip(), limit));
            }
        }
    }
}

/// Answers a connection over its address's limit with HTTP 429 and `Retry-After` (whatever it
/// asks, an upgrade to WebSocket included), then closes it.
async fn refuse_connection(stream: GuardedStream, address: IpAddr, limit: usize) {
    let service = hyper::service::service_fn(move |_request: Request<Incoming>| async move {
        Ok::<_, std::convert::Infallible>(too_many_connections(address, limit))
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(REQUEST_TIME)
        .keep_alive(false);
    let _ = builder.serve_connection(TokioIo::new(stream), service).await;
}

async fn serve_connection(
    stream: GuardedStream,
    peer: Peer,
    app: Router,
    mut stopping: watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        app.clone().oneshot(request.map(Body::new))
    });
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(REQUEST_TIME);
    let connection = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    let stopped = tokio::select! {
        _ = connection.as_mut() => false,
        _ = stopping.wait_for(|stopping| *stopping) => true,
    };
    if stopped {
        connection.as_mut().graceful_shutdown();
        let _ = connection.await;
    }
}

/// A connection that ends itself when its client is too slow or silent, and counts against its
/// address until it ends (through an upgrade to WebSocket too: the stream moves with it).
pub struct GuardedStream {
    stream: TcpStream,
    _guard: Option<ConnectionGuard>,
    /// When reading gives up: the first request's deadline, then the silence's.
    deadline: Pin<Box<Sleep>>,
    answered: bool,
}

impl GuardedStream {
    fn new(stream: TcpStream, guard: Option<ConnectionGuard>) -> GuardedStream {
        GuardedStream {
            stream,
            _guard: guard,
            deadline: Box::pin(tokio::time::sleep(REQUEST_TIME)),
            answered: false,
        }
    }
}

impl AsyncRead for GuardedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if self.answered && buf.filled().len() > before {
                    self.deadline.as_mut().reset(Instant::now() + IDLE_TIME);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    if self.answered {
                        "the client was silent too long"
                    } else {
                        "the client did not send its request in time"
                    },
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, data);
        if !self.answered && matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.answered = true;
            self.deadline.as_mut().reset(Instant::now() + IDLE_TIME);
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, buffers);
        if !self.answered && matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.answered = true;
            self.deadline.as_mut().reset(Instant::now() + IDLE_TIME);
        }
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    async fn accepted(per_address: Option<usize>) -> (GuardedListener, TcpStream, GuardedStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut guarded = GuardedListener::new(listener, ConnectionCounts::default(), per_address);
        let client = TcpStream::connect(address).await.unwrap();
        let (stream, _, admission) = guarded.accept().await;
        assert_eq!(admission, Admission::Admitted);
        (guarded, client, stream)
    }

    async fn read_error_after(stream: &mut GuardedStream) -> (io::ErrorKind, Duration) {
        let started = Instant::now();
        let mut buffer = [0u8; 64];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) => panic!("the client closed"),
                Ok(_) => continue,
                Err(error) => return (error.kind(), started.elapsed()),
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_not_sent_whole_in_time_ends_the_connection() {
        let (_listener, mut client, mut stream) = accepted(None).await;
        client.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        let (kind, after) = read_error_after(&mut stream).await;
        assert_eq!(kind, io::ErrorKind::TimedOut);
        assert!(
            after >= REQUEST_TIME - Duration::from_millis(5) && after <= REQUEST_TIME,
            "{after:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn once_answered_a_connection_may_be_silent_for_the_idle_time() {
        let (_listener, mut client, mut stream) = accepted(None).await;
        stream
            .write_all(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")
            .await
            .unwrap();
        tokio::time::advance(IDLE_TIME / 2).await;
        client.write_all(b"pong").await.unwrap();
        let mut buffer = [0u8; 4];
        stream.read_exact(&mut buffer).await.unwrap();
        let (kind, after) = read_error_after(&mut stream).await;
        assert_eq!(kind, io::ErrorKind::TimedOut);
        assert!(
            after >= IDLE_TIME - Duration::from_millis(5) && after <= IDLE_TIME,
            "{after:?}"
        );
    }

    #[tokio::test]
    async fn connections_over_the_limit_are_refused_as_many_more_at_most() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut guarded = GuardedListener::new(listener, ConnectionCounts::default(), Some(1));
        let _first_client = TcpStream::connect(address).await.unwrap();
        let (first, _, admission) = guarded.accept().await;
        assert_eq!(admission, Admission::Admitted);
        // The second is over the limit: accepted to be told so.
        let _second_client = TcpStream::connect(address).await.unwrap();
        let (second, _, admission) = guarded.accept().await;
        assert_eq!(admission, Admission::OverLimit(1));
        // The third finds the refusals full too: dropped unread while the others are open.
        let mut third_client = TcpStream::connect(address).await.unwrap();
        let accepting = tokio::spawn(async move {
            let accepted = guarded.accept().await;
            (guarded, accepted)
        });
        let mut buffer = [0u8; 1];
        assert_eq!(third_client.read(&mut buffer).await.unwrap_or(0), 0);
        drop((first, second));
        let _fourth_client = TcpStream::connect(address).await.unwrap();
        let (_guarded, (_fourth, peer, admission)) = accepting.await.unwrap();
        assert!(peer.ip().is_loopback());
        assert_eq!(admission, Admission::Admitted);
    }
}
