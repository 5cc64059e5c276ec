//! Running one request against the server and answering it: a JSON body when the reply comes
//! before anything else, an SSE stream as soon as a notification or a server-to-client request
//! has to go out first.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Poll;
use std::time::Duration;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::future::BoxFuture;
use futures::task::AtomicWaker;
use futures::{FutureExt, Stream};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use ::http::StatusCode;

use crate::pending::Pending;
use crate::reply::frame;
use roundtrip_core::server::{Inbound, Peer, Reply, Server};
use roundtrip_wire::{ErrorObject, Message, Notification, RequestId};

/// How many events may wait for a slow client before notifications are dropped
/// (server-to-client requests wait instead).
const EVENT_BUFFER: usize = 256;

/// The peer of one HTTP request: events go to the request's response stream. Events are boxed:
/// the channel allocates its slots in blocks, and most requests send no event at all, so its
/// first block stays small.
///
/// For speed, the channel is opened by the first event: most requests send none, and a
/// channel (two allocations, and its teardown) per request was most of what a request's
/// streaming machinery cost.
struct ChannelPeer {
    tx: OnceLock<mpsc::Sender<Box<Message>>>,
    /// The channel's receiving end, until the response takes it.
    rx: Mutex<Option<mpsc::Receiver<Box<Message>>>>,
    /// Woken when the channel opens (an `AtomicWaker`: a few atomic operations, where
    /// `Notify` takes a lock to wait).
    opened: AtomicWaker,
    /// Set once the response no longer listens: events are then dropped, as a closed channel
    /// drops them.
    closed: AtomicBool,
    pending: Option<Arc<Pending>>,
}

impl ChannelPeer {
    fn new(pending: Option<Arc<Pending>>) -> Self {
        Self {
            tx: OnceLock::new(),
            rx: Mutex::new(None),
            opened: AtomicWaker::new(),
            closed: AtomicBool::new(false),
            pending,
        }
    }

    /// The sending end, opening the channel on first use; `None` once the response no longer
    /// listens.
    fn sender(&self) -> Option<&mpsc::Sender<Box<Message>>> {
        if self.closed.load(Ordering::Acquire) {
            return None;
        }
        let mut opened = false;
        let tx = self.tx.get_or_init(|| {
            let (tx, rx) = mpsc::channel(EVENT_BUFFER);
            if let Ok(mut slot) = self.rx.lock() {
                *slot = Some(rx);
            }
            opened = true;
            tx
        });
        if opened {
            self.opened.wake();
        }
        Some(tx)
    }

    /// Ready once the channel is open.
    fn poll_opened(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.tx.get().is_none() {
            self.opened.register(cx.waker());
            if self.tx.get().is_none() {
                return std::task::Poll::Pending;
            }
        }
        std::task::Poll::Ready(())
    }

    /// The receiving end, if the channel is open and the response has not taken it yet.
    ///
    /// A channel never opened has none, found without the lock (for speed: most requests send
    /// nothing). The receiving end is in place before the channel is seen open.
    fn take_rx(&self) -> Option<mpsc::Receiver<Box<Message>>> {
        self.tx.get()?;
        self.rx.lock().ok()?.take()
    }

    /// The response no longer listens: what is sent from now on is dropped.
    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        drop(self.take_rx());
    }
}

impl Peer for ChannelPeer {
    fn notify(&self, notification: Notification) {
        let Some(tx) = self.sender() else { return };
        if let Err(mpsc::error::TrySendError::Full(_)) = tx.try_send(Box::new(Message::Notification(notification))) {
            tracing::warn!("dropping a notification: the client reads its stream too slowly");
        }
    }

    fn request(&self, method: &str, params: Value) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>> {
        let pending = self.pending.as_ref()?;
        let tx = self.sender().cloned();
        let (request, answer) = pending.request(method, params);
        Some(Box::pin(async move {
            let gone = || ErrorObject::internal("the client went away before the request could be sent");
            tx.ok_or_else(gone)?.send(Box::new(Message::Request(request))).await.map_err(|_| gone())?;
            answer.await
        }))
    }

    fn can_request(&self) -> bool {
        self.pending.is_some()
    }
}

/// Cancels the request when dropped, unless disarmed: a dropped response body is a client
/// that went away.
struct CancelOnDrop(Option<CancellationToken>);

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// The timers of a response stream: SSE keep-alive comments, and for a long-lived stream the
/// time it may carry nothing else before it is ended.
#[derive(Debug, Clone, Copy)]
pub(super) struct StreamTimers {
    pub keep_alive: Option<Duration>,
    pub idle: Option<Duration>,
}

impl StreamTimers {
    /// A request's stream: keep-alives, never ended for being quiet (its handler is working).
    pub fn request(options: &super::HttpOptions) -> Self {
        Self { keep_alive: options.keep_alive, idle: None }
    }

    /// A long-lived stream ([`HttpOptions::stream_idle_timeout`](super::HttpOptions::stream_idle_timeout)).
    pub fn long_lived(options: &super::HttpOptions) -> Self {
        Self { keep_alive: options.keep_alive, idle: options.stream_idle_timeout }
    }
}

/// Ends a long-lived stream that sent nothing but keep-alives for its idle period.
pub(super) struct IdleTimer {
    period: Option<Duration>,
    sleep: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl IdleTimer {
    pub fn new(period: Option<Duration>) -> Self {
        Self { period, sleep: period.map(|p| Box::pin(tokio::time::sleep(p))) }
    }

    /// Something was sent: the idle period starts again.
    pub fn reset(&mut self) {
        if let (Some(period), Some(sleep)) = (self.period, self.sleep.as_mut()) {
            sleep.as_mut().reset(tokio::time::Instant::now() + period);
        }
    }

    /// Completes when the stream has been idle for its period (never without one).
    pub async fn expired(&mut self) {
        match self.sleep.as_mut() {
            Some(sleep) => sleep.as_mut().await,
            None => std::future::pending().await,
        }
    }
}

/// What [`run`] produced.
pub(super) enum Answer {
    /// The reply came first: answer it as JSON (or 202).
    Done(Reply),
    /// An SSE stream is under way and ends with the reply.
    Streaming(Response),
}

impl Answer {
    /// The HTTP response: the reply as JSON, or the stream.
    pub(super) fn into_response(self) -> Response {
        match self {
            Self::Done(reply) => reply_response(reply),
            Self::Streaming(response) => response,
        }
    }
}

/// Run `request` with a peer whose events become this request's SSE stream.
///
/// The handler runs inside the request's own future (no task is spawned): when the reply
/// comes before any event, it is answered as JSON; otherwise the handler moves into the SSE
/// stream, which drives it to its end. Dropping the response (the client went away) drops
/// the handler and cancels the request. A handler that panics answers with an internal error.
///
/// `pending` is the back-channel of a legacy session; `hold` lives as long as the handler runs.
///
/// Not an `async fn`, for speed: what comes before the first wait is done here, so the future
/// returned holds only what the wait needs (an `async fn` keeps its arguments twice, and
/// anything borrowed before a wait, across it).
pub(super) fn run<H: Send + 'static>(
    server: &Server,
    request: roundtrip_wire::Request,
    mut inbound: Inbound,
    pending: Option<Arc<Pending>>,
    timers: StreamTimers,
    hold: H,
) -> impl Future<Output = Answer> + Send + use<H> {
    let peer = Arc::new(ChannelPeer::new(pending));
    inbound.peer = peer.clone();
    let mut guard = CancelOnDrop(Some(inbound.cancel.clone()));
    // `map`, not an `async` block that awaits the handling: that would keep its room twice.
    let mut handling: Handling = Box::pin(server.handle_caught(request, inbound).map(move |reply| {
        drop(hold);
        reply
    }));
    // The wait: the reply, or the first event and then the stream.
    async move {
        let (mut rx, mut opened) = (None, false);
        // The reply is polled first, for speed: a handler that answers at once registers no
        // other wait. Events it sent before its reply are found with the reply.
        let waited = std::future::poll_fn(|cx| {
            if let Poll::Ready(reply) = handling.as_mut().poll(cx) {
                return Poll::Ready(Waited::Reply(reply));
            }
            // The first event opened the channel: its receiving end joins the wait.
            if !opened && peer.poll_opened(cx).is_ready() {
                opened = true;
                rx = peer.take_rx();
            }
            match rx.as_mut() {
                Some(rx) => rx.poll_recv(cx).map(Waited::Event),
                None => Poll::Pending,
            }
        })
        .await;
        let first = match waited {
            Waited::Event(event) => event,
            Waited::Reply(reply) => {
                if rx.is_none() {
                    rx = peer.take_rx();
                }
                match rx.as_mut().and_then(|rx| rx.try_recv().ok()) {
                    // Nothing went out before the reply.
                    None => {
                        peer.close();
                        guard.disarm();
                        return Answer::Done(reply);
                    }
                    // Events were sent before the reply (in the same poll): they go first.
                    Some(event) => {
                        handling = Box::pin(std::future::ready(reply));
                        Some(event)
                    }
                }
            }
        };
        match first {
            Some(event) => {
                let stream = SseState {
                    first: Some(event),
                    rx,
                    handling: Some(handling),
                    guard,
                    keep_alive: timers.keep_alive,
                    idle: IdleTimer::new(timers.idle),
                };
                Answer::Streaming(sse_response(stream.into_stream()))
            }
            // Every peer handle is gone: only the reply is left to come.
            None => {
                peer.close();
                let reply = handling.await;
                guard.disarm();
                Answer::Done(reply)
            }
        }
    }
}

/// The handler of one request, run in place (a panic is answered as one).
type Handling = BoxFuture<'static, Reply>;

/// What [`run`]'s wait ended with: the reply, or an event (`None`: every peer handle is gone).
enum Waited {
    Reply(Reply),
    Event(Option<Box<Message>>),
}

struct SseState {
    first: Option<Box<Message>>,
    rx: Option<mpsc::Receiver<Box<Message>>>,
    handling: Option<Handling>,
    guard: CancelOnDrop,
    keep_alive: Option<Duration>,
    idle: IdleTimer,
}

impl SseState {
    fn into_stream(self) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
        let ticker = self.keep_alive.map(|period| {
            let mut t = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            t
        });
        futures::stream::unfold((self, ticker), |(mut s, mut ticker)| async move {
            if let Some(first) = s.first.take() {
                return Some((Ok(frame(&first)), (s, ticker)));
            }
            loop {
                let step = {
                    let handling = s.handling.as_mut()?;
                    tokio::select! {
                        biased;
                        event = recv(&mut s.rx) => Step::Event(event),
                        reply = handling => Step::Reply(reply),
                        () = tick(&mut ticker) => Step::KeepAlive,
                        // Ended: dropping the handler cancels the request.
                        () = s.idle.expired() => return None,
                    }
                };
                match step {
                    Step::Event(Some(event)) => {
                        s.idle.reset();
                        return Some((Ok(frame(&event)), (s, ticker)));
                    }
                    // Every peer handle is gone; the reply is still to come.
                    Step::Event(None) => s.rx = None,
                    Step::Reply(reply) => {
                        // Events sent in the poll that finished the handler go out first.
                        if let Some(event) = s.rx.as_mut().and_then(|rx| rx.try_recv().ok()) {
                            s.handling = Some(Box::pin(std::future::ready(reply)));
                            return Some((Ok(frame(&event)), (s, ticker)));
                        }
                        s.handling = None;
                        s.guard.disarm();
                        return Some((Ok(frame(&reply.response?)), (s, ticker)));
                    }
                    Step::KeepAlive => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), (s, ticker))),
                }
            }
        })
    }
}

enum Step {
    Event(Option<Box<Message>>),
    Reply(Reply),
    KeepAlive,
}

async fn recv(rx: &mut Option<mpsc::Receiver<Box<Message>>>) -> Option<Box<Message>> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

pub(super) async fn tick(ticker: &mut Option<tokio::time::Interval>) {
    match ticker {
        Some(t) => {
            t.tick().await;
        }
        None => std::future::pending().await,
    }
}

pub(super) fn sse_response(stream: impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static) -> Response {
    let mut response = Body::from_stream(stream).into_response();
    crate::reply::sse_headers(response.headers_mut());
    response
}

/// A reply as a response (see [`crate::reply::reply`]).
pub(super) fn reply_response(reply: Reply) -> Response {
    crate::reply::reply(reply).map(Body::from)
}

/// A JSON-RPC error with a status.
pub(super) fn error_response(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    crate::reply::error(status, id, error).map(Body::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress() -> Notification {
        Notification::new("notifications/progress", Some(serde_json::json!({"progressToken": 1, "progress": 1})))
    }

    #[tokio::test]
    async fn the_channel_opens_with_the_first_event_and_closes_with_the_response() {
        let peer = ChannelPeer::new(None);
        assert!(peer.take_rx().is_none(), "no event, no channel");
        peer.notify(progress());
        let mut rx = peer.take_rx().expect("the first event opened the channel");
        std::future::poll_fn(|cx| peer.poll_opened(cx)).await;
        assert!(
            matches!(rx.try_recv().as_deref(), Ok(Message::Notification(n)) if n.method == "notifications/progress")
        );
        drop(rx);

        let done = ChannelPeer::new(None);
        done.close();
        done.notify(progress());
        assert!(done.take_rx().is_none() && done.tx.get().is_none(), "after the response, nothing is kept");
    }
}
