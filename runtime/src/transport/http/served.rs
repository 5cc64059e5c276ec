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
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::Request;
use axum::response::Response;
use axum::routing::future::RouteFuture;
use futures::future::{BoxFuture, Either};
use tower::{Layer as _, Service};

use super::State;
use super::limits::{Limit, LimitFuture, LimitLayer};

/// The endpoint as a service.
#[derive(Clone)]
pub(super) struct Endpoint(Arc<State>);

impl Service<Request> for Endpoint {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move { Ok(super::endpoint(state, request).await) })
    }
}

/// The service of a bound server (see the module's docs).
#[derive(Clone)]
pub(super) struct Served {
    path: Arc<str>,
    endpoint: Limit<Endpoint>,
    pub(super) router: Router,
}

impl Served {
    /// The endpoint at `path`, with the limits of `state`, beside `router`.
    pub(super) fn new(path: &str, state: Arc<State>, router: Router) -> Self {
        let endpoint = LimitLayer(state.clone()).layer(Endpoint(state));
        Self { path: path.into(), endpoint, router }
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

    fn call(&mut self, request: Request) -> Self::Future {
        if request.uri().path() == &*self.path {
            Either::Left(self.endpoint.call(request))
        } else {
            Either::Right(self.router.call(request))
        }
    }
}
