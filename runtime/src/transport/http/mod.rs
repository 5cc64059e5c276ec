//! Streamable HTTP: one endpoint for both eras.
//!
//! Each POST carries one JSON-RPC message. A request that claims a 2026-07-28 version (in
//! `params._meta` or the `MCP-Protocol-Version` header) is served statelessly after its headers
//! are checked against its body; any other request belongs to a legacy session started by
//! `initialize` and named by `Mcp-Session-Id`. A request is answered with one JSON body when
//! its reply is ready before anything else has to be sent, otherwise with an SSE stream of its
//! notifications (and, on legacy sessions, server-to-client requests) ending with the reply.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let server = roundtrip::Server::new("demo", "1.0.0");
//! let http = server.bind_http("127.0.0.1:0").await?;
//! eprintln!("listening on {}", http.local_addr());
//! http.run().await
//! # }
//! ```

mod headers;
mod host;
mod post;
mod respond;
mod sessions;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State as AxumState};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

use ::http::{HeaderValue, Method, StatusCode, header};

pub use host::HostCheck;

use crate::protocol::ErrorObject;
use crate::server::Server;
use host::{HostPolicy, Refusal};
use respond::error_response;
use sessions::SessionStore;

/// How the HTTP endpoint behaves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The endpoint's path (default `/mcp`).
    pub path: String,
    /// The largest request body accepted; larger ones get `413` (default 4 MiB).
    pub max_body_bytes: usize,
    /// Which `Host` headers are accepted (default [`HostCheck::Auto`]).
    pub allowed_hosts: HostCheck,
    /// Which `Origin`s are accepted when the header is present (`scheme://host[:port]`).
    /// `None` (default): an origin whose host passes the host check, or any origin when hosts
    /// are not checked.
    pub allowed_origins: Option<Vec<String>>,
    /// The most legacy sessions kept at once; a new one evicts an idle or the least recently
    /// used one (default 10 000).
    pub max_sessions: usize,
    /// A legacy session unused this long, with no request in flight, is forgotten
    /// (default 30 minutes).
    pub session_idle_timeout: Duration,
    /// The interval of SSE keep-alive comments; `None` sends none (default 15 s).
    pub keep_alive: Option<Duration>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".into(),
            max_body_bytes: 4 * 1024 * 1024,
            allowed_hosts: HostCheck::Auto,
            allowed_origins: None,
            max_sessions: 10_000,
            session_idle_timeout: Duration::from_secs(30 * 60),
            keep_alive: Some(Duration::from_secs(15)),
        }
    }
}

impl HttpOptions {
    /// Serve at `path` (it must start with `/`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Refuse bodies over `bytes`.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Set the `Host` policy.
    pub fn allowed_hosts(mut self, check: HostCheck) -> Self {
        self.allowed_hosts = check;
        self
    }

    /// Accept only these origins (`scheme://host[:port]`) when an `Origin` header is present.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// Keep at most `max` legacy sessions.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Forget legacy sessions idle for `timeout`.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Send SSE keep-alive comments every `interval` (`None`: never).
    pub fn keep_alive(mut self, interval: Option<Duration>) -> Self {
        self.keep_alive = interval;
        self
    }
}

/// The shared state of one endpoint.
struct State {
    server: Server,
    options: HttpOptions,
    policy: HostPolicy,
    sessions: SessionStore,
    /// Parent of every request's cancellation token.
    shutdown: CancellationToken,
}

impl Server {
    /// The endpoint at `/mcp` as an axum router, with default [`HttpOptions`].
    ///
    /// The router checks no `Host` header (it cannot know where it is served): mount
    /// [`router_with`](Self::router_with) and [`HostCheck::Loopback`] on a local server, or
    /// use [`serve_http`](Self::serve_http), which decides by the bound address.
    pub fn router(&self) -> Router {
        self.router_with(HttpOptions::default())
    }

    /// The endpoint as an axum router; [`HostCheck::Auto`] checks nothing here.
    ///
    /// # Panics
    /// When a declaration takes a `State<T>` that is not registered (see [`Server::check`]).
    pub fn router_with(&self, options: HttpOptions) -> Router {
        if let Err(e) = self.check() {
            panic!("roundtrip: {e}");
        }
        self.build_router(options, None, CancellationToken::new())
    }

    fn build_router(&self, options: HttpOptions, loopback: Option<bool>, shutdown: CancellationToken) -> Router {
        let policy = HostPolicy::new(&options.allowed_hosts, options.allowed_origins.as_deref(), loopback);
        let path = endpoint_path(&options.path);
        let state = Arc::new(State {
            server: self.clone(),
            sessions: SessionStore::new(options.max_sessions, options.session_idle_timeout),
            options,
            policy,
            shutdown,
        });
        Router::new().route(&path, any(endpoint)).with_state(state)
    }

    /// Serve at `http://{addr}/mcp` until an I/O error.
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> io::Result<()> {
        self.bind_http(addr).await?.run().await
    }

    /// Serve with `options` until an I/O error.
    pub async fn serve_http_with(self, addr: impl ToSocketAddrs, options: HttpOptions) -> io::Result<()> {
        self.bind_http_with(addr, options).await?.run().await
    }

    /// Bind `addr` (port 0 picks a free port) and return the server, ready to run.
    pub async fn bind_http(self, addr: impl ToSocketAddrs) -> io::Result<HttpServer> {
        self.bind_http_with(addr, HttpOptions::default()).await
    }

    /// Bind `addr` with `options`.
    pub async fn bind_http_with(self, addr: impl ToSocketAddrs, options: HttpOptions) -> io::Result<HttpServer> {
        self.check_io()?;
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let shutdown = CancellationToken::new();
        let path = endpoint_path(&options.path);
        let router = self.build_router(options, Some(local_addr.ip().is_loopback()), shutdown.clone());
        Ok(HttpServer { listener, router, local_addr, path, shutdown })
    }
}

/// A bound HTTP endpoint, not yet serving.
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    router: Router,
    local_addr: SocketAddr,
    path: String,
    shutdown: CancellationToken,
}

impl HttpServer {
    /// The address it is bound to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL, e.g. `http://127.0.0.1:41234/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.path)
    }

    /// Serve until an I/O error.
    pub async fn run(self) -> io::Result<()> {
        axum::serve(self.listener, self.router).await
    }

    /// Serve until `signal` completes, then cancel every request in flight (ending open
    /// streams) and finish once the connections are closed.
    pub async fn run_until(self, signal: impl Future<Output = ()> + Send + 'static) -> io::Result<()> {
        let shutdown = self.shutdown.clone();
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move {
                signal.await;
                shutdown.cancel();
            })
            .await
    }
}

fn endpoint_path(path: &str) -> String {
    if path.starts_with('/') { path.to_owned() } else { format!("/{path}") }
}

pub(super) fn method_not_allowed() -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

async fn endpoint(AxumState(state): AxumState<Arc<State>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(refusal) = state.policy.check(&parts.headers) {
        let message = match refusal {
            Refusal::Host => "Forbidden: invalid Host header",
            Refusal::Origin => "Forbidden: invalid Origin header",
        };
        return error_response(StatusCode::FORBIDDEN, None, ErrorObject::new(-32000, message));
    }
    match parts.method {
        Method::POST => post::post(state, parts, body).await,
        Method::DELETE => post::delete(&state, &parts.headers),
        _ => method_not_allowed(),
    }
}
