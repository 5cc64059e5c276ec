//! A roundtrip [`Server`] as an AWS Lambda function: the streamable HTTP endpoint answering the
//! events of API Gateway (REST and HTTP APIs), function URLs and application load balancers,
//! through [`lambda_http`].
//!
//! Each invocation is one HTTP request with its answer, which is what a 2026-07-28 flow needs:
//! every leg carries its sealed `requestState`, so any instance of the function takes any leg,
//! as long as the instances seal with the same keys (`ROUNDTRIP_STATE_KEYS` through the runner,
//! or [`Server::security`](roundtrip_core::server::Server::security)). What a function cannot
//! do:
//!
//! - **Hold a stream open.** A `subscriptions/listen` request (and a 2025 session's `GET`
//!   stream) is refused (`501`, a JSON-RPC error saying the endpoint holds no long-lived
//!   streams), and the server announces no `listChanged` and no resource subscriptions. A
//!   call's notifications (progress, logs) come in its one response (an SSE body the client
//!   reads whole) rather than as they happen.
//! - **Keep a 2025 session.** A 2025-era session would live in the instance that started it,
//!   and its questions are requests sent mid-call, which a response the function returns
//!   whole cannot carry: `initialize` is answered `-32022`, offering 2026-07-28 (clients that
//!   speak both, as the official SDKs in their default mode, then use it).
//! - **Run a task past its answer.** Tasks need a store every instance reaches (Redis over TLS:
//!   `ROUNDTRIP_TASK_STORE=rediss://…`); a task body runs in the invocation that started it and
//!   is frozen with it.
//!
//! ```no_run
//! use roundtrip::prelude::*;
//!
//! /// Say hello.
//! #[tool(read_only)]
//! async fn hello(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), roundtrip_lambda::Error> {
//!     roundtrip_lambda::serve(Server::new("hello", "1.0.0").tools(tools![hello])).await
//! }
//! ```
//!
//! Most programs need not name this crate: `roundtrip::cli::run` serves the function itself
//! when it finds the Lambda environment (`AWS_LAMBDA_RUNTIME_API`), with roundtrip's `lambda`
//! feature, reading the same variables as on any other host.

use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::response::Response;
use lambda_http::request::RequestContext;
use lambda_http::{RequestExt, Service};
use roundtrip_core::server::Server;
use roundtrip_transport::http::{HttpOptions, ServeHttp};
use tower::ServiceExt;

pub use lambda_http::Error;

/// Serve `server` as the function, with the default [`HttpOptions`] (but for streams, which a
/// function cannot hold), until the Lambda runtime stops it.
pub async fn serve(server: Server) -> Result<(), Error> {
    serve_with(server, HttpOptions::default()).await
}

/// [`serve`] with `options` (limits, authorization, allowed hosts).
pub async fn serve_with(server: Server, options: HttpOptions) -> Result<(), Error> {
    lambda_http::run(Endpoint::new(&server, options)).await
}

/// The function's handler: a [`Service`] of Lambda's HTTP requests, which [`serve_with`] runs.
/// Drive it directly to test a function without the Lambda runtime.
#[derive(Debug, Clone)]
pub struct Endpoint {
    router: Router,
}

impl Endpoint {
    /// The handler of `server` with `options`. What a function cannot do is withdrawn: the
    /// server announces no `listChanged` and no resource subscriptions, the endpoint holds no
    /// long-lived stream (`max_streams` 0) and keeps no 2025-era session (`max_sessions` 0).
    ///
    /// # Panics
    /// As [`ServeHttp::router_with`]: when `server` fails its [`check`](Server::check), or
    /// `options` cannot be used.
    pub fn new(server: &Server, options: HttpOptions) -> Self {
        let server = roundtrip_transport::exchange::withdrawn(server);
        Self { router: server.router_with(options.max_streams(0).max_sessions(0)) }
    }
}

impl Service<lambda_http::Request> for Endpoint {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: lambda_http::Request) -> Self::Future {
        let peer = source_ip(&request);
        let unstaged = without_stage(&request);
        let (mut parts, body) = request.into_parts();
        if let Some(uri) = unstaged {
            parts.uri = uri;
        }
        // The caller's address, as a socket's peer would be: per-caller limits count by it.
        if let Some(ip) = peer {
            parts.extensions.insert(ConnectInfo(SocketAddr::new(ip, 0)));
        }
        let body = match body {
            lambda_http::Body::Empty => Body::empty(),
            lambda_http::Body::Text(text) => Body::from(text),
            lambda_http::Body::Binary(bytes) => Body::from(bytes),
            // A body kind this version does not know: refused as an empty one would be.
            _ => Body::empty(),
        };
        let router = self.router.clone();
        Box::pin(router.oneshot(http::Request::from_parts(parts, body)))
    }
}

/// The request's URI without the API Gateway stage lambda_http puts before its path
/// (`/prod/mcp` of stage `prod` is `/mcp`): the endpoint's path is the same on every stage.
fn without_stage(request: &lambda_http::Request) -> Option<http::Uri> {
    let stage = match request.request_context_ref()? {
        RequestContext::ApiGatewayV1(cx) => cx.stage.as_deref(),
        RequestContext::ApiGatewayV2(cx) => cx.stage.as_deref(),
        _ => None,
    }?;
    let uri = request.uri();
    let rest = uri.path().strip_prefix('/')?.strip_prefix(stage)?;
    if !rest.starts_with('/') {
        return None;
    }
    let mut unstaged = http::uri::Parts::default();
    unstaged.path_and_query = match uri.query() {
        Some(query) => format!("{rest}?{query}").parse().ok(),
        None => rest.parse().ok(),
    };
    http::Uri::from_parts(unstaged).ok()
}

/// The address the event source saw the request come from.
fn source_ip(request: &lambda_http::Request) -> Option<IpAddr> {
    let ip = match request.request_context_ref()? {
        RequestContext::ApiGatewayV1(cx) => cx.identity.source_ip.as_deref(),
        RequestContext::ApiGatewayV2(cx) => cx.http.source_ip.as_deref(),
        // An ALB forwards the client in `X-Forwarded-For`, which the endpoint reads when the
        // balancer is a trusted proxy (`HttpOptions::trusted_proxies`).
        _ => None,
    };
    ip?.parse().ok()
}
