//! Routes of the runner's own on a listener of their own (the Prometheus scrape of
//! `--metrics`), served with the endpoint's protections: the connection limits of
//! [`conn`](super::conn) (a cap on open connections, the header-read and idle timeouts) and the
//! `Host` and `Origin` checks of [`host`](super::host).
//!
//! Without them a second listener is the weak door of the process: it shares the process's
//! open files with the endpoint, so a thousand idle connections to it left the endpoint unable
//! to accept one.

use std::convert::Infallible;
use std::io;
use std::sync::Arc;

use axum::Router;
use axum::response::IntoResponse as _;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tower::ServiceExt as _;

use super::conn::{ConnLimits, ConnTracker, LimitedListener};
use super::{HostCheck, HttpOptions};
use crate::host::{HostPolicy, Refusal};

/// Serve `router` on `listener`: at most `max_connections` connections open at once (more are
/// answered `503` and closed, as the endpoint does), the endpoint's default header-read and
/// idle timeouts, and `hosts` checked as the endpoint checks them (with [`HostCheck::Auto`], a
/// loopback listener accepts only loopback names). Runs until the listener fails; a
/// connection's error ends that connection only.
pub async fn serve_routes(
    listener: TcpListener,
    router: Router,
    max_connections: usize,
    hosts: &HostCheck,
) -> io::Result<()> {
    let loopback = listener.local_addr()?.ip().is_loopback();
    let policy = Arc::new(HostPolicy::new(hosts, None, Some(loopback)));
    let defaults = HttpOptions::default();
    let limits = ConnLimits {
        header_read_timeout: defaults.header_read_timeout,
        idle_timeout: defaults.idle_timeout,
        max_connections,
    };
    let mut listener = LimitedListener::new(listener, limits);
    loop {
        let (io, remote) = listener.accept().await;
        let conn = ConnTracker::of(&io, remote);
        let (router, policy) = (router.clone(), policy.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                // In hand until answered: the connection is not idle, nor reading a head.
                let busy = conn.begin();
                let refused = policy.check(request.headers()).err();
                let router = router.clone();
                async move {
                    let response = match refused {
                        Some(refusal) => forbidden(refusal),
                        None => router.oneshot(request.map(axum::body::Body::new)).await?,
                    };
                    drop(busy);
                    Ok::<_, Infallible>(response)
                }
            });
            if let Err(e) = http1::Builder::new().serve_connection(TokioIo::new(io), service).await {
                tracing::trace!(target: "roundtrip::http", "connection ended: {e}");
            }
        });
    }
}

/// `403`, naming the header refused.
fn forbidden(refusal: Refusal) -> axum::response::Response {
    let message = match refusal {
        Refusal::Host => "Forbidden: invalid Host header\n",
        Refusal::Origin => "Forbidden: invalid Origin header\n",
    };
    (::http::StatusCode::FORBIDDEN, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio::net::TcpStream;

    async fn get(addr: std::net::SocketAddr, host: &str) -> String {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        let request = format!("GET /metrics HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut answer = String::new();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut answer)).await;
        assert!(read.is_ok(), "no answer in time");
        answer
    }

    #[tokio::test]
    async fn hosts_and_connections_are_limited() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("an address");
        let router = Router::new().route("/metrics", axum::routing::get(|| async { "up 1\n" }));
        tokio::spawn(async move { serve_routes(listener, router, 2, &HostCheck::Auto).await });
        let answer = get(addr, &format!("127.0.0.1:{}", addr.port())).await;
        assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("up 1\n"), "{answer}");
        let answer = get(addr, "attacker.example").await;
        assert!(answer.starts_with("HTTP/1.1 403"), "a loopback listener answers loopback names only: {answer}");
        // Two idle connections hold both slots; a third is refused, and served again once
        // they close.
        let idle = [TcpStream::connect(addr).await.expect("connect"), TcpStream::connect(addr).await.expect("connect")];
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(get(addr, "localhost").await.starts_with("HTTP/1.1 503"));
        drop(idle);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(get(addr, "localhost").await.starts_with("HTTP/1.1 200"));
    }
}
