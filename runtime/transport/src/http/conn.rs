//! Connection-level limits of a bound endpoint ([`HttpServer`](super::HttpServer)): how many
//! connections are open at once, how long a request head may take to arrive, how long a
//! connection may sit idle or stall a write.
//!
//! The listener refuses a connection beyond the limit without ever holding a slot for it:
//! `503` with `Retry-After: 1` as soon as its request head is in (at most a second later),
//! then closed. Every accepted connection is wrapped in [`ConnIo`], which keeps one timer: from
//! the first byte of a request head until the head reaches the router (the header-read
//! timeout), from the end of a response (or the connection's start) until the first byte of
//! the next request (the idle timeout), and while a write cannot make progress (the idle
//! timeout again). A request tells its connection it is in hand through [`ConnTracker`] (the
//! endpoint's service holds its connection's; other routes get it as their connect info); it
//! counts as in hand until its response has been written (a streamed body until it ends).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::task::AtomicWaker;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// The connection limits of one endpoint, from [`HttpOptions`](super::HttpOptions).
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnLimits {
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

/// How many refused connections are answered at once; beyond that a refused connection is
/// closed at once, without an answer.
const MAX_REFUSING: usize = 256;
/// How long a refused connection is given to send its request head before the `503` goes out
/// anyway, and then how long it lingers (reading what the client still sends, so that it reads
/// the `503` rather than a reset).
const REFUSAL_WAIT: Duration = Duration::from_secs(1);
/// How much of a refused connection's request is read at most.
const REFUSAL_READ_BYTES: usize = 64 * 1024;
/// The pause after an accept error that is not about one connection (e.g. no file
/// descriptor left), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// The answer to a connection beyond the limit.
static REFUSAL: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let body = "Too many open connections; retry later.\n";
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
});

/// The process's soft limit on open files, where the platform tells it without `unsafe`
/// (Linux: `/proc/self/limits`).
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Warn when `max_connections` cannot be reached: past the open-file limit, accepting fails
/// and new connections wait in the kernel's backlog instead of being served or refused.
pub(super) fn check_file_limit(max_connections: usize) {
    if let Some(limit) = open_file_limit()
        && u64::try_from(max_connections).unwrap_or(u64::MAX) >= limit
    {
        tracing::warn!(
            "max_connections is {max_connections} but this process may open only {limit} files: \
             raise the limit (ulimit -n) or lower max_connections"
        );
    }
}

/// A TCP listener that bounds the connections it hands out and times them.
#[derive(Debug)]
pub(super) struct LimitedListener {
    inner: TcpListener,
    slots: Arc<Semaphore>,
    refusing: Arc<Semaphore>,
    limits: ConnLimits,
    last_error_log: Option<Instant>,
}

impl LimitedListener {
    pub fn new(inner: TcpListener, limits: ConnLimits) -> Self {
        Self {
            inner,
            slots: Arc::new(Semaphore::new(limits.max_connections.clamp(1, Semaphore::MAX_PERMITS))),
            refusing: Arc::new(Semaphore::new(MAX_REFUSING)),
            limits,
            last_error_log: None,
        }
    }

    async fn accept_error(&mut self, e: io::Error) {
        // An error about one connection (it was reset before we took it): take the next.
        if matches!(
            e.kind(),
            io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
        ) {
            return;
        }
        // Anything else (EMFILE, ENFILE, ENOBUFS) lasts a while: log it now and then, pause.
        let now = Instant::now();
        if self.last_error_log.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(5)) {
            self.last_error_log = Some(now);
            tracing::error!("accepting a connection failed (is max_connections above the file limit?): {e}");
        }
        tokio::time::sleep(ACCEPT_BACKOFF).await;
    }

    /// The next connection within the limit (a connection beyond it is refused on the way).
    pub async fn accept(&mut self) -> (ConnIo, SocketAddr) {
        loop {
            let (stream, addr) = match self.inner.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    self.accept_error(e).await;
                    continue;
                }
            };
            match self.slots.clone().try_acquire_owned() {
                Ok(slot) => {
                    // A reply is written whole: no reason to hold its last segment back.
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!("could not set TCP_NODELAY: {e}");
                    }
                    return (ConnIo::new(stream, slot, self.limits), addr);
                }
                Err(_) => refuse(stream, &self.refusing),
            }
        }
    }
}

/// Answer `503` to a connection over the limit and close it. The request head is read first
/// (a client may not take an answer to a request it has not sent: hyper's client does not),
/// for at most [`REFUSAL_WAIT`]; with too many refusals under way, close it at once.
fn refuse(stream: TcpStream, refusing: &Arc<Semaphore>) {
    roundtrip_core::observe::limit("max_connections");
    let Ok(permit) = refusing.clone().try_acquire_owned() else {
        tracing::debug!("closing a connection: max_connections reached");
        return;
    };
    tracing::debug!("refusing a connection: max_connections reached");
    tokio::spawn(async move {
        let _permit = permit;
        let mut stream = stream;
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        let _ = tokio::time::timeout(REFUSAL_WAIT, async {
            while seen.len() < REFUSAL_READ_BYTES {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => seen.extend_from_slice(&buf[..n]),
                }
                if seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    return;
                }
            }
        })
        .await;
        let answered = tokio::time::timeout(REFUSAL_WAIT, async {
            stream.write_all(&REFUSAL).await?;
            stream.shutdown().await
        })
        .await;
        if !matches!(answered, Ok(Ok(()))) {
            return;
        }
        // Read (and discard) what the client still sends, e.g. its body, until it closes:
        // closing with unread data would reset the connection and could destroy the 503
        // before the client reads it.
        let mut total = 0;
        let _ = tokio::time::timeout(REFUSAL_WAIT, async {
            while total < REFUSAL_READ_BYTES {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => total += n,
                }
            }
        })
        .await;
    });
}

/// What a connection and the requests on it share.
#[derive(Debug, Default)]
struct Shared {
    /// Requests that reached the router, ever.
    started: AtomicU64,
    /// Requests in hand: from reaching the router until their response is written.
    active: AtomicUsize,
    /// The connection's task, woken when the last request in hand ends so its idle timer starts.
    waker: AtomicWaker,
}

/// The connect info of a connection served by [`LimitedListener`]: requests mark themselves
/// in hand with [`begin`](Self::begin); the client's address is what limits per caller count
/// against when there is no principal.
#[derive(Debug, Clone)]
pub(super) struct ConnTracker(Arc<Shared>, SocketAddr);

impl ConnTracker {
    /// The tracker of the connection `io`, from `remote`.
    pub fn of(io: &ConnIo, remote: SocketAddr) -> Self {
        ConnTracker(io.shared.clone(), remote)
    }

    /// A request reached the router; the connection is busy until the guard is dropped.
    pub fn begin(&self) -> Busy {
        self.0.started.fetch_add(1, Ordering::AcqRel);
        self.0.active.fetch_add(1, Ordering::AcqRel);
        Busy(self.0.clone())
    }

    /// The client's address.
    pub fn remote(&self) -> SocketAddr {
        self.1
    }
}

/// A request in hand on a connection.
#[derive(Debug)]
pub(super) struct Busy(Arc<Shared>);

impl Drop for Busy {
    fn drop(&mut self) {
        if self.0.active.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.waker.wake();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No request in hand and no byte of the next one, since then.
    Idle(Instant),
    /// Part of a request head arrived, at first then.
    Head(Instant),
    /// A request is in hand.
    Busy,
}

/// Why a connection is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expiry {
    Idle,
    Head,
    Write,
}

/// An accepted connection with its slot and its timer.
#[derive(Debug)]
pub(super) struct ConnIo {
    stream: TcpStream,
    shared: Arc<Shared>,
    limits: ConnLimits,
    phase: Phase,
    /// `shared.started` when last looked at.
    seen: u64,
    /// Since when writes have been refused (the client reads nothing).
    write_stalled: Option<Instant>,
    timer: Pin<Box<Sleep>>,
    armed: Option<Instant>,
    _slot: OwnedSemaphorePermit,
}

impl ConnIo {
    fn new(stream: TcpStream, slot: OwnedSemaphorePermit, limits: ConnLimits) -> Self {
        let now = Instant::now();
        Self {
            stream,
            shared: Arc::new(Shared::default()),
            limits,
            phase: Phase::Idle(now),
            seen: 0,
            write_stalled: None,
            timer: Box::pin(tokio::time::sleep_until(now)),
            armed: None,
            _slot: slot,
        }
    }

    /// Catch up with the requests: busy while one is in hand, idle from when the last ended.
    fn refresh(&mut self) {
        let started = self.shared.started.load(Ordering::Acquire);
        let active = self.shared.active.load(Ordering::Acquire);
        if active > 0 {
            self.phase = Phase::Busy;
        } else if started != self.seen || self.phase == Phase::Busy {
            self.phase = Phase::Idle(Instant::now());
        }
        self.seen = started;
    }

    fn deadline(&self) -> Option<(Instant, Expiry)> {
        let read = match self.phase {
            Phase::Idle(since) => Some((since + self.limits.idle_timeout, Expiry::Idle)),
            Phase::Head(since) => Some((since + self.limits.header_read_timeout, Expiry::Head)),
            Phase::Busy => None,
        };
        let write = self.write_stalled.map(|since| (since + self.limits.idle_timeout, Expiry::Write));
        match (read, write) {
            (Some(r), Some(w)) => Some(if w.0 < r.0 { w } else { r }),
            (r, w) => r.or(w),
        }
    }

    /// Before answering `Pending`: arm the timer for the current deadline and tell whether it
    /// passed.
    ///
    /// For speed, a later deadline leaves the timer armed for the earlier one, and is armed when
    /// that one fires: each request moves the idle deadline later, and resetting a timer takes
    /// the timer wheel's lock (several hundred instructions a request).
    fn poll_expired(&mut self, cx: &mut Context<'_>) -> Option<Expiry> {
        self.shared.waker.register(cx.waker());
        self.refresh();
        let (deadline, why) = self.deadline()?;
        if self.armed.is_none_or(|armed| deadline < armed) {
            self.arm(deadline);
        }
        loop {
            match self.timer.as_mut().poll(cx) {
                Poll::Pending => return None,
                Poll::Ready(()) if Instant::now() >= deadline => return Some(why),
                // It fired for a deadline that has moved on since.
                Poll::Ready(()) => self.arm(deadline),
            }
        }
    }

    fn arm(&mut self, deadline: Instant) {
        self.timer.as_mut().reset(deadline);
        self.armed = Some(deadline);
    }

    fn timed_out(why: Expiry) -> io::Error {
        let (limit, message) = match why {
            Expiry::Idle => ("idle_timeout", "the connection was idle too long"),
            Expiry::Head => ("header_read_timeout", "the request head did not arrive in time"),
            Expiry::Write => ("idle_timeout", "the client read nothing for too long"),
        };
        roundtrip_core::observe::limit(limit);
        io::Error::new(io::ErrorKind::TimedOut, message)
    }

    fn write_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        if self.write_stalled.is_none() {
            self.write_stalled = Some(Instant::now());
        }
        match self.poll_expired(cx) {
            Some(why) => Poll::Ready(Err(Self::timed_out(why))),
            None => Poll::Pending,
        }
    }
}

impl AsyncRead for ConnIo {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.refresh();
                    if let Phase::Idle(_) = this.phase {
                        this.phase = Phase::Head(Instant::now());
                    }
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.poll_expired(cx) {
                // An idle keep-alive connection ends like one the client closed.
                Some(Expiry::Idle) => Poll::Ready(Ok(())),
                Some(why) => Poll::Ready(Err(Self::timed_out(why))),
                None => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_write(cx, data) {
            Poll::Ready(result) => {
                this.write_stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => this.write_pending(cx),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_write_vectored(cx, bufs) {
            Poll::Ready(result) => {
                this.write_stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => this.write_pending(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
