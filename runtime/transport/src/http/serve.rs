//! Serving a bound endpoint's connections ([`HttpServer::run`](super::HttpServer::run)): the
//! accept loop, one task per connection speaking HTTP/1.1 with hyper, and the graceful
//! shutdown.
//!
//! Written out rather than with `axum::serve`, for speed. That turns every request's body into
//! axum's (an allocation), passes each request through two tower adapters into a boxed future,
//! and polls the shutdown signal on every wake of a connection (a lock each time). Here hyper
//! holds the endpoint's future as it is, and a connection looks at the shutdown signal only once
//! it has fired.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::sync::{Notify, watch};

use super::conn::{ConnIo, ConnTracker, LimitedListener};
use super::served::Served;

/// Accept connections from `listener` and serve each with `served`, until `signal` completes;
/// then accept no more, let each connection finish the request it has in hand, and return
/// once every connection is closed, or once `drain` has passed since `signal` completed: the
/// connections still open are then closed without their answers.
pub(super) async fn serve(
    mut listener: LimitedListener,
    served: Served,
    signal: impl Future<Output = ()> + Send,
    drain: Duration,
) -> io::Result<()> {
    let stop = Arc::new(Stop::default());
    // Each connection holds a receiver; the sender sees them all gone once they are closed.
    let (open_tx, open_rx) = watch::channel(());
    let mut signal = pin!(signal);
    loop {
        let (io, remote) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut signal => break,
        };
        let served = served.for_connection(ConnTracker::of(&io, remote));
        tokio::spawn(connection(io, served, stop.clone(), open_rx.clone()));
    }
    tracing::debug!(target: "roundtrip::http", "shutting down: no new connections; closing the open ones");
    drop(listener);
    drop(open_rx);
    stop.fire();
    if tokio::time::timeout(drain, open_tx.closed()).await.is_err() {
        let open = open_tx.receiver_count();
        tracing::warn!(
            target: "roundtrip::http",
            open,
            "shutting down: {open} connection(s) still open after the drain deadline of {drain:?} \
             (HttpOptions::shutdown_timeout); closing them without their answers"
        );
        stop.kill();
    }
    Ok(())
}

/// The graceful-shutdown signal of every connection, and the end of its drain.
#[derive(Default)]
struct Stop {
    fired: AtomicBool,
    notify: Notify,
    /// The drain deadline passed: connections still open close at once.
    killed: AtomicBool,
    kill: Notify,
}

impl Stop {
    fn fire(&self) {
        self.fired.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }

    fn kill(&self) {
        self.killed.store(true, Ordering::Release);
        self.kill.notify_waiters();
    }
}

/// Serve one connection until it closes, or until the shutdown closes it gracefully (the
/// request in hand is answered first), or until the drain deadline drops it.
async fn connection(io: ConnIo, served: Served, stop: Arc<Stop>, _open: watch::Receiver<()>) {
    let service = hyper::service::service_fn(move |request| served.serve(request));
    // With upgrades: a route merged in beside the endpoint may take the connection over.
    let mut conn = pin!(http1::Builder::new().serve_connection(TokioIo::new(io), service).with_upgrades());
    // Registered with this task's waker at the first poll; after that, the flag says whether
    // it fired (for speed: polling it on every wake takes its lock).
    let mut stopped = pin!(stop.notify.notified());
    // Created now, before any kill, so that `notify_waiters` reaches it; polled only once the
    // connection is closing, so a connection at work never pays for it.
    let mut killed = pin!(stop.kill.notified());
    let (mut watching, mut closing) = (false, false);
    let served = std::future::poll_fn(|cx| {
        if !closing {
            let first = !std::mem::replace(&mut watching, true);
            if (first && stopped.as_mut().poll(cx).is_ready()) || stop.fired.load(Ordering::Acquire) {
                closing = true;
                conn.as_mut().graceful_shutdown();
            }
        }
        if closing && (killed.as_mut().poll(cx).is_ready() || stop.killed.load(Ordering::Acquire)) {
            // Dropping the connection drops the request it had in hand.
            return Poll::Ready(None);
        }
        conn.as_mut().poll(cx).map(Some)
    })
    .await;
    match served {
        Some(Err(e)) => tracing::trace!(target: "roundtrip::http", "connection ended: {e}"),
        Some(Ok(())) => {}
        None => tracing::debug!(target: "roundtrip::http", "connection dropped at the drain deadline"),
    }
}
