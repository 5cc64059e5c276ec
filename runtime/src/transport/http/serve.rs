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

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::sync::{Notify, watch};

use super::conn::{ConnIo, ConnTracker, LimitedListener};
use super::served::Served;

/// Accept connections from `listener` and serve each with `served`, until `signal` completes;
/// then accept no more, let each connection finish the request it has in hand, and return
/// once every connection is closed.
pub(super) async fn serve(
    mut listener: LimitedListener,
    served: Served,
    signal: impl Future<Output = ()> + Send,
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
    open_tx.closed().await;
    Ok(())
}

/// The graceful-shutdown signal of every connection.
#[derive(Default)]
struct Stop {
    fired: AtomicBool,
    notify: Notify,
}

impl Stop {
    fn fire(&self) {
        self.fired.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }
}

/// Serve one connection until it closes, or until the shutdown closes it gracefully (the
/// request in hand is answered first).
async fn connection(io: ConnIo, served: Served, stop: Arc<Stop>, _open: watch::Receiver<()>) {
    let service = hyper::service::service_fn(move |request| served.serve(request));
    // With upgrades: a route merged in beside the endpoint may take the connection over.
    let mut conn = pin!(http1::Builder::new().serve_connection(TokioIo::new(io), service).with_upgrades());
    // Registered with this task's waker at the first poll; after that, the flag says whether
    // it fired (for speed: polling it on every wake takes its lock).
    let mut stopped = pin!(stop.notify.notified());
    let (mut watching, mut closing) = (false, false);
    let served = std::future::poll_fn(|cx| {
        if !closing {
            let first = !std::mem::replace(&mut watching, true);
            if (first && stopped.as_mut().poll(cx).is_ready()) || stop.fired.load(Ordering::Acquire) {
                closing = true;
                conn.as_mut().graceful_shutdown();
            }
        }
        conn.as_mut().poll(cx)
    })
    .await;
    if let Err(e) = served {
        tracing::trace!(target: "roundtrip::http", "connection ended: {e}");
    }
}
