//! What a bound server serves ([`HttpServer::run`](super::HttpServer::run)): a request for the
//! endpoint's path goes straight to the endpoint; any other path (the playground, the
//! authorization metadata, routes merged in with [`HttpServer::merge`](super::HttpServer::merge))
//! goes through the axum router.
//!
//! Written for speed: axum's router matches the path, stores the URL parameters and the matched
//! path in the request's extensions and boxes the route's future, on every request (about six
//! of a leg's allocations). The endpoint has one path and no parameters, so comparing the path
//! routes it. [`Server::router`](crate::server::Server::router) keeps the endpoint as an ordinary
//! route, for mounting in an application.

use std::convert::Infallible;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::connect_info::Connected as _;
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use axum::routing::future::RouteFuture;
use axum::serve::IncomingStream;
use futures::FutureExt as _;
use futures::future::{BoxFuture, Either};
use tower::{Layer as _, Service};

use super::State;
use super::conn::{ConnTracker, LimitedListener};
use super::limits::{Limit, LimitFuture, LimitLayer};

/// The endpoint as a service; `addr` is the client's address on a connection of a bound server.
#[derive(Clone)]
pub(super) struct Endpoint {
    state: Arc<State>,
    addr: Option<IpAddr>,
}

impl Service<Request> for Endpoint {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // `map`, not an `async` block around the call: a block would be one more level of
        // future, the endpoint's copied into it whole when it starts.
        Box::pin(super::endpoint(self.state.clone(), request, self.addr).map(Ok))
    }
}

/// The service of a bound server (see the module's docs).
#[derive(Clone)]
pub(super) struct Served {
    path: Arc<str>,
    endpoint: Limit<Endpoint>,
    pub(super) router: Router,
    /// The connection served, when there is one ([`PerConnection`]).
    conn: Option<ConnTracker>,
}

impl Served {
    /// The endpoint at `path`, with the limits of `state`, beside `router`.
    pub(super) fn new(path: &str, state: Arc<State>, router: Router) -> Self {
        let endpoint = LimitLayer(state.clone()).layer(Endpoint { state, addr: None });
        Self { path: path.into(), endpoint, router, conn: None }
    }
}

/// Makes the [`Served`] of each connection accepted, which knows its connection.
///
/// For speed: axum's `into_make_service_with_connect_info` puts the connection's info into
/// every request's extensions, which allocates their map (three allocations a request). The
/// endpoint reads it from its service instead; other routes still get it as an extension.
#[derive(Clone)]
pub(super) struct PerConnection(pub(super) Served);

impl Service<IncomingStream<'_, LimitedListener>> for PerConnection {
    type Response = Served;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Served, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, stream: IncomingStream<'_, LimitedListener>) -> Self::Future {
        let conn = ConnTracker::connect_info(stream);
        let mut served = self.0.clone();
        served.endpoint.conn = Some(conn.clone());
        served.endpoint.inner_mut().addr = Some(conn.remote().ip());
        served.conn = Some(conn);
        std::future::ready(Ok(served))
    }
}

impl fmt::Debug for Served {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Served").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Service<Request> for Served {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<LimitFuture<BoxFuture<'static, Result<Response, Infallible>>>, RouteFuture<Infallible>>;

    /// Always ready: the endpoint and axum's router both are.
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        if request.uri().path() == &*self.path {
            Either::Left(self.endpoint.call(request))
        } else {
            if let Some(conn) = &self.conn {
                request.extensions_mut().insert(ConnectInfo(conn.clone()));
            }
            Either::Right(self.router.call(request))
        }
    }
}
