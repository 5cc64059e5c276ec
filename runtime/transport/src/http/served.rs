//! What a bound server serves ([`HttpServer::run`](super::HttpServer::run)): a request for the
//! endpoint's path goes straight to the endpoint; any other path (the playground, the
//! authorization metadata, routes merged in with [`HttpServer::merge`](super::HttpServer::merge))
//! goes through the axum router.
//!
//! Written for speed: axum's router matches the path, stores the URL parameters and the matched
//! path in the request's extensions and boxes the route's future, on every request (about six
//! of a leg's allocations). The endpoint has one path and no parameters, so comparing the path
//! routes it. [`Server::router`](crate::http::ServeHttp::router)(crate::http::ServeHttp::router) keeps the endpoint as an ordinary
//! route, for mounting in an application.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use futures::FutureExt as _;
use futures::future::{BoxFuture, Either};
use tower::{Service, ServiceExt as _};

use super::State;
use super::conn::ConnTracker;
use super::limits::{LimitFuture, admit, refusal};
use super::post::RequestBody;

/// The service of a bound server (see the module's docs), for one connection once
/// [`for_connection`](Self::for_connection) has said which.
#[derive(Clone)]
pub(super) struct Served {
    path: Arc<str>,
    state: Arc<State>,
    pub(super) router: Router,
    /// The connection served, when there is one: the endpoint marks it busy and counts limits
    /// per caller against its address; other routes get it as their connect info.
    conn: Option<ConnTracker>,
}

impl Served {
    /// The endpoint at `path`, with the limits of `state`, beside `router`.
    pub(super) fn new(path: &str, state: Arc<State>, router: Router) -> Self {
        Self { path: path.into(), state, router, conn: None }
    }

    /// The service of the connection `conn`.
    ///
    /// For speed: axum's `into_make_service_with_connect_info` puts the connection's info into
    /// every request's extensions, which allocates their map (three allocations a request). The
    /// endpoint reads it from here instead; other routes still get it as an extension.
    pub(super) fn for_connection(&self, conn: ConnTracker) -> Self {
        Self { conn: Some(conn), ..self.clone() }
    }

    /// Serve one request. The endpoint's future is returned as it is (not boxed): the
    /// connection's task holds it.
    pub(super) fn serve<B: RequestBody>(
        &self,
        mut request: ::http::Request<B>,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<B> {
        if request.uri().path() == &*self.path {
            // In process (no connection of ours), a connection may still come as connect info.
            let from_request = || request.extensions().get::<ConnectInfo<ConnTracker>>().map(|info| &info.0);
            let conn = self.conn.as_ref().or_else(from_request);
            let addr = conn.map(|conn| conn.remote().ip());
            return Either::Left(match admit(&self.state, conn, request.method()) {
                Some(guard) => LimitFuture::running(super::endpoint(self.state.clone(), request, addr).map(Ok), guard),
                None => LimitFuture::refused(refusal(&self.state)),
            });
        }
        if let Some(conn) = &self.conn {
            request.extensions_mut().insert(ConnectInfo(conn.clone()));
        }
        Either::Right(self.router.clone().oneshot(request.map(axum::body::Body::new)))
    }
}

impl fmt::Debug for Served {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Served").field("path", &self.path).finish_non_exhaustive()
    }
}

/// As a tower service, for [`HttpServer::service`](super::HttpServer::service): the future is
/// boxed, to be nameable.
impl Service<Request> for Served {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    /// Always ready: the endpoint and axum's router both are.
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        Box::pin(self.serve(request))
    }
}
