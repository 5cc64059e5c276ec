//! Streamable HTTP: one endpoint for both eras.
//!
//! Each POST carries one JSON-RPC message. A request that claims a 2026-07-28 version (in
//! `params._meta` or the `MCP-Protocol-Version` header) is served statelessly after its headers
//! are checked against its body; any other request belongs to a legacy session started by
//! `initialize` and named by `Mcp-Session-Id`. A request is answered with one JSON body when
//! its reply is ready before anything else has to be sent, otherwise with an SSE stream of its
//! notifications (and, on legacy sessions, server-to-client requests) ending with the reply.
//!
//! Every limit has a safe default and is set in [`HttpOptions`]: a request head must arrive
//! within [`header_read_timeout`](HttpOptions::header_read_timeout) and its body within
//! [`request_body_timeout`](HttpOptions::request_body_timeout); a connection with nothing to
//! do is closed after [`idle_timeout`](HttpOptions::idle_timeout); at most
//! [`max_connections`](HttpOptions::max_connections) connections,
//! [`max_in_flight`](HttpOptions::max_in_flight) requests,
//! [`max_streams`](HttpOptions::max_streams) long-lived streams (`subscriptions/listen` and
//! standalone `GET`) and [`max_sessions`](HttpOptions::max_sessions) legacy sessions exist at
//! once, and one caller (its principal, or its address without one) holds at most
//! [`max_streams_per_caller`](HttpOptions::max_streams_per_caller) streams and
//! [`max_sessions_per_caller`](HttpOptions::max_sessions_per_caller) sessions, so that it
//! cannot take what the others need. What is over a limit is refused at once
//! (`503 Service Unavailable` with `Retry-After` and a JSON-RPC error naming the limit), never
//! queued.
//!
//! ```no_run
//! use roundtrip::ServeHttp;
//!
//! # async fn demo() -> std::io::Result<()> {
//! let server = roundtrip::Server::new("demo", "1.0.0");
//! let http = server.bind_http("127.0.0.1:0").await?;
//! eprintln!("listening on {}", http.local_addr());
//! http.run().await
//! # }
//! ```

mod conn;
mod limits;
#[cfg(feature = "playground")]
mod playground;
mod post;
mod proxies;
mod respond;
mod routes;
mod serve;
mod served;
mod sessions;
mod stream;
mod streams;

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
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use ::http::{HeaderValue, Method, StatusCode, header};

pub use crate::host::HostCheck;
pub use proxies::ForwardedHeader;
// The runner's metrics listener is its only user.
#[doc(hidden)]
pub use routes::serve_routes;

use crate::host::HostPolicy;
use conn::{ConnLimits, ConnTracker, LimitedListener};
use roundtrip_core::request::AuthPrincipal;
use roundtrip_core::server::Server;
use sessions::SessionStore;

/// How the HTTP endpoint behaves, limits included.
///
/// Connection-level limits ([`header_read_timeout`](Self::header_read_timeout),
/// [`idle_timeout`](Self::idle_timeout), [`max_connections`](Self::max_connections)) apply
/// where roundtrip owns the connections: [`Server::bind_http`](crate::http::ServeHttp::bind_http), [`Server::serve_http`](crate::http::ServeHttp::serve_http) and
/// their `_with` forms. Request-level limits ([`max_in_flight`](Self::max_in_flight),
/// [`max_streams`](Self::max_streams),
/// [`request_body_timeout`](Self::request_body_timeout), [`max_body_bytes`](Self::max_body_bytes),
/// [`max_sessions`](Self::max_sessions) and their per-caller forms) live in the router and apply to
/// [`Server::router_with`](crate::http::ServeHttp::router_with) mounted in an application too; that application's server then owns
/// the connection limits.
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
    /// The most legacy sessions kept at once (default 10 000). When the store is full, expired
    /// sessions are dropped; if none is, `initialize` is answered `503` naming the limit:
    /// another caller's session is never evicted to make room.
    pub max_sessions: usize,
    /// The most legacy sessions one caller (its identity, or its address without one) keeps
    /// at once (default 100). Its next `initialize` ends its own least recently used idle
    /// session, or is answered `503` when every one of its sessions is busy.
    pub max_sessions_per_caller: usize,
    /// A legacy session unused this long, with no request in flight and no open `GET` stream,
    /// is forgotten (default 30 minutes).
    pub session_idle_timeout: Duration,
    /// The interval of SSE keep-alive comments, on request streams and standalone `GET`
    /// streams; `None` sends none (default 15 s).
    pub keep_alive: Option<Duration>,
    /// How long a request head (request line and headers) may take, from its first byte until
    /// its last; a connection that has not sent a whole head by then is closed without an
    /// answer (default 10 s). This is what ends slow-loris connections that trickle headers:
    /// honest clients send a head in one packet. Connection level.
    pub header_read_timeout: Duration,
    /// How long a connection may have nothing to do before it is closed: since it opened or
    /// since its last response, with no byte of a new request (an idle keep-alive connection,
    /// or one opened and left silent), and how long a write may stall because the client reads
    /// nothing (default 60 s). A connection whose request is in hand (a running handler, an
    /// open SSE stream) is never idle, however quiet. Connection level.
    pub idle_timeout: Duration,
    /// How long a request body may take to arrive once its head is in; a slower one is
    /// answered `408 Request Timeout` and its connection closed (default 30 s), so a client
    /// cannot hold a request slot by never finishing its body.
    pub request_body_timeout: Duration,
    /// The most connections open at once (default 10 000). A connection beyond it holds no
    /// slot: it is answered `503 Service Unavailable` with `Retry-After: 1` and
    /// `Connection: close` as soon as its request head has arrived (at most a second later;
    /// HTTP clients take no answer to a request they have not sent) and closed; when 256
    /// refusals are already under way, it is closed at once. Service resumes as soon as
    /// connections close. Keep it below the process's open-file limit (`ulimit -n`), which
    /// also counts the server's other files: past that limit new connections wait in the
    /// kernel's backlog until one closes. Connection level.
    pub max_connections: usize,
    /// The most requests in flight at once, each from its arrival until its response is
    /// written (an SSE response until its stream ends); the excess is answered at once with
    /// `503 Service Unavailable`, `Retry-After: 1` and a JSON-RPC error, never queued
    /// (default 4096). Long-lived streams (`subscriptions/listen`, standalone `GET`) are
    /// bounded by [`max_streams`](Self::max_streams) instead once they have started.
    pub max_in_flight: usize,
    /// The most long-lived streams open at once (default 4096): `subscriptions/listen`
    /// responses and the standalone `GET` streams of legacy sessions. The excess is answered
    /// `503` with `Retry-After: 1`. A legacy session has at most one `GET` stream: a new `GET`
    /// on a session ends the stream it had, so a client that reconnects is never locked out
    /// by a stream it lost.
    pub max_streams: usize,
    /// The most long-lived streams one caller holds at once (default 32): its identity, or,
    /// without one, its client address (behind a proxy, list it in
    /// [`trusted_proxies`](Self::trusted_proxies), or every client has the proxy's address). A
    /// router mounted without
    /// [`bind_http`](crate::http::ServeHttp::bind_http)'s connection info knows no address: anonymous streams
    /// then count against [`max_streams`](Self::max_streams) only.
    pub max_streams_per_caller: usize,
    /// How long a long-lived stream may carry nothing but keep-alives before the server ends
    /// it (default 1 hour; `None`: never). A client that still wants it opens it again; one
    /// that went away without closing its connection gives its slot back.
    pub stream_idle_timeout: Option<Duration>,
    /// The reverse proxies in front of the server, as addresses or CIDR networks
    /// (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`; default none). On a connection from one of them,
    /// the [`forwarded_header`](Self::forwarded_header) says who the client is: the first
    /// address, from the nearest hop back, that is not a trusted proxy. That address is what an
    /// anonymous caller's state and limits are keyed on
    /// ([`RequestContext::caller`](roundtrip_core::server::RequestContext::caller)). From anyone else the header
    /// is ignored: a client could write any address there.
    pub trusted_proxies: Vec<String>,
    /// The header the trusted proxies name their clients in (default `X-Forwarded-For`). Set
    /// the one your proxy writes: a header it passes through unchanged would carry whatever the
    /// client wrote.
    pub forwarded_header: ForwardedHeader,
    /// A header in which a trusted proxy names the authenticated caller (default none), for a
    /// gateway that authenticates users itself: its value becomes the request's
    /// [`AuthPrincipal`] (subject the value, issuer `header:` and the header's name). Read only
    /// on connections from [`trusted_proxies`](Self::trusted_proxies) (the server refuses to
    /// start with the header and no proxies), and only when no layer of the application set
    /// an `AuthPrincipal`; a resource server's token replaces it.
    pub identity_header: Option<String>,
    /// How long [`HttpServer::run_until`] waits, once its signal has come, for the requests in
    /// hand to be answered and their connections to close (default 20 s, which leaves room
    /// within Kubernetes' default grace period of 30 s to finish tasks and flush telemetry).
    /// After it, the connections still open are closed without their answers and `run_until`
    /// returns. A request whose body is still arriving when the signal comes is answered
    /// `408 Request Timeout` at once. Connection level.
    pub shutdown_timeout: Duration,
    /// Serve the playground beside the endpoint (default `false`; see
    /// [`playground`](Self::playground)).
    #[cfg(feature = "playground")]
    pub playground: bool,
    /// Serve the playground on any address, not only loopback (default `false`; see
    /// [`playground_public`](Self::playground_public)).
    #[cfg(feature = "playground")]
    pub playground_public: bool,
    /// Protect the endpoint as an OAuth 2.1 resource server (feature `auth`): bearer tokens,
    /// Protected Resource Metadata, scopes per tool (see [`roundtrip_auth`]). `None` (default):
    /// no authorization.
    #[cfg(feature = "auth")]
    pub auth: Option<roundtrip_auth::ResourceServer>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".into(),
            max_body_bytes: 4 * 1024 * 1024,
            allowed_hosts: HostCheck::Auto,
            allowed_origins: None,
            max_sessions: 10_000,
            max_sessions_per_caller: 100,
            session_idle_timeout: Duration::from_secs(30 * 60),
            keep_alive: Some(Duration::from_secs(15)),
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            request_body_timeout: Duration::from_secs(30),
            max_connections: 10_000,
            max_in_flight: 4096,
            max_streams: 4096,
            max_streams_per_caller: 32,
            stream_idle_timeout: Some(Duration::from_secs(3600)),
            trusted_proxies: Vec::new(),
            forwarded_header: ForwardedHeader::XForwardedFor,
            identity_header: None,
            shutdown_timeout: Duration::from_secs(20),
            #[cfg(feature = "playground")]
            playground: false,
            #[cfg(feature = "playground")]
            playground_public: false,
            #[cfg(feature = "auth")]
            auth: None,
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

    /// Keep at most `max` legacy sessions. `0` keeps none, as on a serverless function whose
    /// instances share nothing: a 2025-era `initialize` is answered `-32022` offering
    /// 2026-07-28.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Keep at most `max` legacy sessions per caller
    /// (see [`max_sessions_per_caller`](Self::max_sessions_per_caller)).
    pub fn max_sessions_per_caller(mut self, max: usize) -> Self {
        self.max_sessions_per_caller = max;
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

    /// Close a connection whose request head is not complete `timeout` after its first byte
    /// (see [`header_read_timeout`](Self::header_read_timeout)).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// Close a connection with nothing to do for `timeout`
    /// (see [`idle_timeout`](Self::idle_timeout)).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Answer `408` to a request whose body takes longer than `timeout`
    /// (see [`request_body_timeout`](Self::request_body_timeout)).
    pub fn request_body_timeout(mut self, timeout: Duration) -> Self {
        self.request_body_timeout = timeout;
        self
    }

    /// Keep at most `max` connections open (at least 1); refuse the others with `503`
    /// (see [`max_connections`](Self::max_connections)).
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// Serve at most `max` requests at once (at least 1); refuse the others with `503`
    /// (see [`max_in_flight`](Self::max_in_flight)).
    pub fn max_in_flight(mut self, max: usize) -> Self {
        self.max_in_flight = max;
        self
    }

    /// Keep at most `max` long-lived streams open; refuse the others with `503` (see
    /// [`max_streams`](Self::max_streams)). `0` serves none, as on a serverless function that
    /// answers each request and ends: `subscriptions/listen` and `GET` streams are refused
    /// with an error that says so (`501 Not Implemented`).
    pub fn max_streams(mut self, max: usize) -> Self {
        self.max_streams = max;
        self
    }

    /// Let one caller hold at most `max` long-lived streams (at least 1)
    /// (see [`max_streams_per_caller`](Self::max_streams_per_caller)).
    pub fn max_streams_per_caller(mut self, max: usize) -> Self {
        self.max_streams_per_caller = max;
        self
    }

    /// End a long-lived stream that carried nothing but keep-alives for `timeout`
    /// (see [`stream_idle_timeout`](Self::stream_idle_timeout)).
    pub fn stream_idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.stream_idle_timeout = timeout;
        self
    }

    /// Trust `proxies` (addresses or CIDR networks) to say who their clients are (see
    /// [`trusted_proxies`](Self::trusted_proxies)).
    ///
    /// ```
    /// use roundtrip::transport::http::HttpOptions;
    /// // nginx on the same machine, forwarding with `proxy_set_header X-Forwarded-For $remote_addr;`
    /// let options = HttpOptions::default().trusted_proxies(["127.0.0.1", "::1"]);
    /// ```
    pub fn trusted_proxies(mut self, proxies: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.trusted_proxies = proxies.into_iter().map(Into::into).collect();
        self
    }

    /// Read the trusted proxies' clients from `header` (see
    /// [`forwarded_header`](Self::forwarded_header)).
    pub fn forwarded_header(mut self, header: ForwardedHeader) -> Self {
        self.forwarded_header = header;
        self
    }

    /// Take the authenticated caller from `header`, when a trusted proxy sets it (see
    /// [`identity_header`](Self::identity_header)).
    pub fn identity_header(mut self, header: impl Into<String>) -> Self {
        self.identity_header = Some(header.into());
        self
    }

    /// Stop waiting for the requests in hand `timeout` after the shutdown signal
    /// (see [`shutdown_timeout`](Self::shutdown_timeout)).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Serve the playground: a page beside the endpoint (`/playground` for `/mcp`) that lists
    /// the server's tools, prompts and resources, calls them over the 2026-07-28 wire from a
    /// browser, renders every question as an HTML form round by round, and draws each tool's
    /// question graph. Cargo feature `playground`.
    ///
    /// It is for development: [`Server::bind_http_with`](crate::http::ServeHttp::bind_http_with) refuses to start with it on an
    /// address that is not loopback unless [`playground_public`](Self::playground_public) is
    /// set, and a [`router_with`](crate::http::ServeHttp::router_with) mounted elsewhere serves it only to
    /// loopback `Host` names.
    ///
    /// ```no_run
    /// # async fn demo() -> std::io::Result<()> {
    /// use roundtrip::ServeHttp;
    /// use roundtrip::transport::http::HttpOptions;
    /// let server = roundtrip::Server::new("demo", "1.0.0");
    /// let http = server.bind_http_with("127.0.0.1:8080", HttpOptions::default().playground(true)).await?;
    /// eprintln!("playground at {}", http.playground_url().unwrap_or_default());
    /// http.run().await
    /// # }
    /// ```
    #[cfg(feature = "playground")]
    pub fn playground(mut self, on: bool) -> Self {
        self.playground = on;
        self
    }

    /// Let the playground be served on a non-loopback address too. Anyone who reaches the
    /// address can then call every tool from a browser, as they could with any MCP client;
    /// put it behind the same authentication as the endpoint.
    #[cfg(feature = "playground")]
    pub fn playground_public(mut self, public: bool) -> Self {
        self.playground_public = public;
        self
    }

    /// Require a bearer token that `resource_server` accepts on every request to the endpoint,
    /// and serve its Protected Resource Metadata (see [`roundtrip_auth`]).
    #[cfg(feature = "auth")]
    pub fn auth(mut self, resource_server: roundtrip_auth::ResourceServer) -> Self {
        self.auth = Some(resource_server);
        self
    }

    fn conn_limits(&self) -> ConnLimits {
        ConnLimits {
            header_read_timeout: self.header_read_timeout,
            idle_timeout: self.idle_timeout,
            max_connections: self.max_connections,
        }
    }
}

/// The shared state of one endpoint.
struct State {
    server: Server,
    options: HttpOptions,
    policy: HostPolicy,
    proxies: proxies::Proxies,
    sessions: SessionStore,
    /// Parent of every request's cancellation token.
    shutdown: CancellationToken,
    /// One permit a request in flight ([`HttpOptions::max_in_flight`]).
    in_flight: Arc<Semaphore>,
    /// The long-lived streams open ([`HttpOptions::max_streams`]).
    streams: Arc<streams::Streams>,
    /// Whether the listening address is loopback (`None`: a router mounted elsewhere).
    #[cfg(feature = "playground")]
    bound_to_loopback: Option<bool>,
    /// The playground's page and description, when it is served.
    #[cfg(feature = "playground")]
    playground: Option<playground::Assets>,
}

fn semaphore(max: usize) -> Arc<Semaphore> {
    Arc::new(Semaphore::new(max.clamp(1, Semaphore::MAX_PERMITS)))
}

/// Serving a [`Server`] over streamable HTTP (feature `http`): as an axum router to mount, or
/// bound to an address. In the prelude; implemented by [`Server`] only (sealed).
///
/// ```no_run
/// use roundtrip::prelude::*;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// Server::new("demo", "1.0.0").serve_http("127.0.0.1:8080").await
/// # }
/// ```
pub trait ServeHttp: super::sealed::Sealed + Sized {
    /// The endpoint at `/mcp` as an axum router, with default [`HttpOptions`].
    ///
    /// The router checks no `Host` header (it cannot know where it is served): mount
    /// [`router_with`](Self::router_with) and [`HostCheck::Loopback`] on a local server, or
    /// use [`serve_http`](Self::serve_http), which decides by the bound address.
    fn router(&self) -> Router;

    /// The endpoint as an axum router; [`HostCheck::Auto`] checks nothing here.
    ///
    /// # Panics
    /// When a declaration takes a `State<T>` that is not registered (see [`Server::check`]), or
    /// the options cannot be used (a trusted proxy that is not an address or network, an
    /// identity header without trusted proxies).
    fn router_with(&self, options: HttpOptions) -> Router;

    /// Serve at `http://{addr}/mcp` until an I/O error.
    fn serve_http(self, addr: impl ToSocketAddrs + Send) -> impl Future<Output = io::Result<()>> + Send;

    /// Serve with `options` until an I/O error.
    fn serve_http_with(
        self,
        addr: impl ToSocketAddrs + Send,
        options: HttpOptions,
    ) -> impl Future<Output = io::Result<()>> + Send;

    /// Bind `addr` (port 0 picks a free port) and return the server, ready to run.
    fn bind_http(self, addr: impl ToSocketAddrs + Send) -> impl Future<Output = io::Result<HttpServer>> + Send;

    /// Bind `addr` with `options`.
    fn bind_http_with(
        self,
        addr: impl ToSocketAddrs + Send,
        options: HttpOptions,
    ) -> impl Future<Output = io::Result<HttpServer>> + Send;
}

impl ServeHttp for Server {
    fn router(&self) -> Router {
        self.router_with(HttpOptions::default())
    }

    fn router_with(&self, options: HttpOptions) -> Router {
        if let Err(e) = self.check() {
            panic!("roundtrip: {e}");
        }
        match build_router(self, options, None, CancellationToken::new()) {
            Ok((router, _)) => router,
            Err(e) => panic!("roundtrip: {e}"),
        }
    }

    async fn serve_http(self, addr: impl ToSocketAddrs + Send) -> io::Result<()> {
        self.bind_http(addr).await?.run().await
    }

    async fn serve_http_with(self, addr: impl ToSocketAddrs + Send, options: HttpOptions) -> io::Result<()> {
        self.bind_http_with(addr, options).await?.run().await
    }

    async fn bind_http(self, addr: impl ToSocketAddrs + Send) -> io::Result<HttpServer> {
        self.bind_http_with(addr, HttpOptions::default()).await
    }

    async fn bind_http_with(self, addr: impl ToSocketAddrs + Send, options: HttpOptions) -> io::Result<HttpServer> {
        self.check_io()?;
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        #[cfg(feature = "playground")]
        if options.playground && !options.playground_public && !local_addr.ip().is_loopback() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the playground is served only on a loopback address, and {local_addr} is not; \
                     bind 127.0.0.1 or [::1], or opt in with HttpOptions::playground_public(true)"
                ),
            ));
        }
        // A refusal to start, not a warning: on an open bind without allowed hosts, a page of
        // any site whose name resolves to this machine (DNS rebinding) names its own host in both
        // `Host` and `Origin`, so nothing would tell it from a legitimate client. Only the
        // operator knows the names the server is reached by; opting out is explicit.
        if !local_addr.ip().is_loopback()
            && options.allowed_hosts == HostCheck::Auto
            && options.allowed_origins.is_none()
        {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, open_bind_refusal(local_addr)));
        }
        #[cfg(feature = "playground")]
        let playground = options.playground.then(|| playground::path_for(&endpoint_path(&options.path)));
        let shutdown = CancellationToken::new();
        let path = endpoint_path(&options.path);
        let limits = options.conn_limits();
        conn::check_file_limit(limits.max_connections);
        let shutdown_timeout = options.shutdown_timeout;
        let (router, state) = build_router(&self, options, Some(local_addr.ip().is_loopback()), shutdown.clone())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        Ok(HttpServer {
            listener,
            service: served::Served::new(&path, state, router),
            local_addr,
            path,
            shutdown,
            limits,
            shutdown_timeout,
            #[cfg(feature = "playground")]
            playground,
        })
    }
}

/// The endpoint's router and the state it shares with [`Served`](served::Served).
fn build_router(
    server: &Server,
    options: HttpOptions,
    loopback: Option<bool>,
    shutdown: CancellationToken,
) -> Result<(Router, Arc<State>), String> {
    let policy = HostPolicy::new(&options.allowed_hosts, options.allowed_origins.as_deref(), loopback);
    let proxies =
        proxies::Proxies::new(&options.trusted_proxies, options.forwarded_header, options.identity_header.as_deref())?;
    let path = endpoint_path(&options.path);
    #[cfg(feature = "playground")]
    let playground = options.playground.then(|| playground::Assets::new(server, &path));
    #[cfg(feature = "auth")]
    let metadata = options.auth.as_ref().map(|auth| {
        let tools = server.tool_defs();
        let scopes: Vec<&str> = tools.iter().flat_map(|t| t.required_scopes()).map(String::as_str).collect();
        auth.metadata_routes(&path, &scopes)
    });
    let state = Arc::new(State {
        server: server.clone(),
        #[cfg(feature = "playground")]
        bound_to_loopback: loopback,
        #[cfg(feature = "playground")]
        playground,
        sessions: SessionStore::new(
            options.max_sessions,
            options.max_sessions_per_caller,
            options.session_idle_timeout,
        ),
        in_flight: semaphore(options.max_in_flight),
        streams: streams::Streams::new(options.max_streams, options.max_streams_per_caller),
        options,
        policy,
        proxies,
        shutdown,
    });
    let router = Router::new()
        .route(&path, any(|AxumState(state): AxumState<Arc<State>>, request| endpoint(state, request, None)));
    #[cfg(feature = "playground")]
    let router = if state.playground.is_some() { playground::mount(router, &path) } else { router };
    let router = router.layer(limits::LimitLayer(state.clone()));
    #[cfg(feature = "auth")]
    let router = match metadata {
        Some(metadata) => router.merge(metadata),
        None => router,
    };
    Ok((router.with_state(state.clone()), state))
}

/// A bound HTTP endpoint, not yet serving.
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    service: served::Served,
    local_addr: SocketAddr,
    path: String,
    shutdown: CancellationToken,
    limits: ConnLimits,
    /// [`HttpOptions::shutdown_timeout`].
    shutdown_timeout: Duration,
    /// The playground's path, when it is served.
    #[cfg(feature = "playground")]
    playground: Option<String>,
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

    /// The playground's URL, e.g. `http://127.0.0.1:41234/playground`, when
    /// [`HttpOptions::playground`] is on.
    #[cfg(feature = "playground")]
    pub fn playground_url(&self) -> Option<String> {
        self.playground.as_ref().map(|p| format!("http://{}{p}", self.local_addr))
    }

    /// Serve `routes` beside the endpoint, on the same address and connections: health and
    /// readiness checks, metrics. They pass none of the endpoint's own checks (`Host`,
    /// `Origin`, authorization, the bound on requests in flight), so what they answer must be
    /// fit for anyone who can reach the address.
    ///
    /// # Panics
    /// When a route of `routes` is one the endpoint serves (axum's `Router::merge`).
    pub fn merge(mut self, routes: Router) -> Self {
        self.service.router = self.service.router.merge(routes);
        self
    }

    /// The service [`run`](Self::run) serves, to drive the server in process (a test, a
    /// benchmark, a connection loop of your own) without its socket: the endpoint, and the
    /// playground and routes merged in beside it. The connection limits, which belong to the
    /// socket, do not apply; everything else does.
    ///
    /// ```
    /// # async fn demo() -> std::io::Result<()> {
    /// use roundtrip::prelude::*;
    /// use tower::ServiceExt;
    ///
    /// let bound = Server::new("demo", "1.0.0").bind_http("127.0.0.1:0").await?;
    /// let request = http::Request::get("/mcp").body(axum::body::Body::empty()).expect("a request");
    /// let response = bound.service().oneshot(request).await.expect("infallible");
    /// assert_eq!(response.status(), 400); // a GET stream needs a legacy session
    /// # Ok(()) }
    /// ```
    pub fn service(
        &self,
    ) -> impl tower::Service<Request, Response = Response, Error = std::convert::Infallible, Future: Send + 'static>
    + Clone
    + Send
    + Sync
    + 'static {
        self.service.clone()
    }

    /// Serve until an I/O error, with the connection limits of its [`HttpOptions`].
    pub async fn run(self) -> io::Result<()> {
        let listener = LimitedListener::new(self.listener, self.limits);
        serve::serve(listener, self.service, std::future::pending(), self.shutdown_timeout).await
    }

    /// Serve until `signal` completes, then accept no more connections, end the long-lived
    /// streams, answer a request whose body is still arriving `408 Request Timeout`, and
    /// finish once the connections are closed (a connection still reading a request head
    /// closes within the header-read timeout), or once
    /// [`shutdown_timeout`](HttpOptions::shutdown_timeout) has passed: the connections still
    /// open are then closed without their answers.
    pub async fn run_until(self, signal: impl Future<Output = ()> + Send + 'static) -> io::Result<()> {
        let shutdown = self.shutdown.clone();
        let listener = LimitedListener::new(self.listener, self.limits);
        let signal = async move {
            signal.await;
            shutdown.cancel();
        };
        serve::serve(listener, self.service, signal, self.shutdown_timeout).await
    }
}

/// Why a server bound to `addr` (not loopback) without allowed hosts does not start, and how
/// to fix it, by runner flag, variable and option.
fn open_bind_refusal(addr: SocketAddr) -> String {
    format!(
        "refusing to serve on {addr}, which is not a loopback address, without a list of allowed Host names: any web \
         page whose name resolves to this machine could call the server from a user's browser (DNS rebinding). \
         Name the hosts clients use (--allowed-host mcp.example.com, ROUNDTRIP_ALLOWED_HOSTS, or \
         HttpOptions::allowed_hosts(HostCheck::Allow(..))), or, behind a proxy that checks them, opt out with \
         --allow-any-host (ROUNDTRIP_ALLOW_ANY_HOST=1, HttpOptions::allowed_hosts(HostCheck::Off))"
    )
}

fn endpoint_path(path: &str) -> String {
    if path.starts_with('/') { path.to_owned() } else { format!("/{path}") }
}

/// The client's address: the peer of a connection of [`HttpServer`]'s, or, for a router
/// served by something else, the `ConnectInfo<SocketAddr>` it gives (axum's
/// `into_make_service_with_connect_info`, or a serverless adapter's event).
pub(super) fn client_addr(parts: &::http::request::Parts) -> Option<std::net::IpAddr> {
    match parts.extensions.get::<axum::extract::ConnectInfo<ConnTracker>>() {
        Some(info) => Some(info.0.remote().ip()),
        None => parts.extensions.get::<axum::extract::ConnectInfo<SocketAddr>>().map(|info| info.0.ip()),
    }
}

/// Whom limits per caller count a request against (see [`roundtrip_core::request::caller_key`]).
pub(super) fn caller(parts: &::http::request::Parts, addr: Option<std::net::IpAddr>) -> Option<String> {
    roundtrip_core::request::caller_key(parts.extensions.get::<AuthPrincipal>(), addr)
}

/// The authenticated caller's identity, when there is one.
pub(super) fn identity(parts: &::http::request::Parts) -> Option<String> {
    parts.extensions.get::<AuthPrincipal>().map(AuthPrincipal::identity)
}

/// `405`. `Allow` lists what the endpoint serves (RFC 9110 §10.2.1): `POST`, and `GET` and
/// `DELETE` for legacy sessions, although a request without one is refused them.
pub(super) fn method_not_allowed() -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    response
}

/// `addr`: the client's address, when the connection gave it (a bound server's); otherwise it
/// is read from the request's connect info, if any.
///
/// Not an `async fn`, for speed: without authentication nothing here waits, and the future
/// returned is the method's own (see [`post::post`]).
fn endpoint<B: post::RequestBody>(
    state: Arc<State>,
    request: ::http::Request<B>,
    addr: Option<std::net::IpAddr>,
) -> impl Future<Output = Response> + Send + use<B> {
    use futures::future::{BoxFuture, Either, ready};
    type Authenticated = BoxFuture<'static, Response>;
    let (mut parts, body) = request.into_parts();
    // Behind a trusted proxy, the client it forwarded; and the caller it vouches for, unless a
    // layer of the application already said who the caller is.
    let origin = state.proxies.origin(addr.or_else(|| client_addr(&parts)), &parts.headers);
    let addr = origin.client;
    if let Some((header, who)) = state.proxies.identity(origin, &parts.headers)
        && parts.extensions.get::<AuthPrincipal>().is_none()
    {
        let principal = AuthPrincipal::new(who).issuer(format!("header:{header}"));
        parts.extensions.insert(principal);
    }
    if let Err(refusal) = state.policy.check(&parts.headers) {
        return Either::Left(ready(crate::reply::forbidden(refusal).map(axum::body::Body::from)));
    }
    // Every method of the endpoint needs a token (a GET stream and a DELETE name a session
    // that holds the caller's work). The token's principal replaces any set before: state and
    // tasks are bound to who the token says the caller is. Boxed: checking a token may wait
    // (for the issuer's keys), and that future would size every request's.
    #[cfg(feature = "auth")]
    if state.options.auth.is_some() {
        let authenticated: Authenticated = Box::pin(authenticated(state, parts, body, addr));
        return Either::Right(Either::Left(authenticated));
    }
    Either::Right(Either::<Authenticated, _>::Right(by_method(state, parts, body, addr)))
}

/// The endpoint's answer to a caller whose bearer token is accepted; the token's principal
/// replaces any set before.
#[cfg(feature = "auth")]
async fn authenticated<B: post::RequestBody>(
    state: Arc<State>,
    mut parts: ::http::request::Parts,
    body: B,
    addr: Option<std::net::IpAddr>,
) -> Response {
    if let Some(auth) = &state.options.auth {
        match auth.authenticate(&parts.headers).await {
            Ok(principal) => {
                parts.extensions.insert(principal);
            }
            Err(refusal) => return auth.refuse(refusal),
        }
    }
    by_method(state, parts, body, addr).await
}

/// The endpoint's answer by the request's method.
fn by_method<B: post::RequestBody>(
    state: Arc<State>,
    parts: ::http::request::Parts,
    body: B,
    addr: Option<std::net::IpAddr>,
) -> impl Future<Output = Response> + Send + use<B> {
    use futures::future::{Either, ready};
    match parts.method {
        Method::POST => Either::Left(post::post(state, parts, body, addr)),
        Method::GET => Either::Right(ready(stream::get(&state, &parts.headers, identity(&parts).as_deref()))),
        Method::DELETE => Either::Right(ready(post::delete(&state, &parts.headers, identity(&parts).as_deref()))),
        _ => Either::Right(ready(method_not_allowed())),
    }
}
