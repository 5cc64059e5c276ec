//! The router's own limits: requests in flight are bounded and the excess is refused at once
//! (`503` with `Retry-After`), never queued; every request marks its connection busy (when
//! served by [`HttpServer`](super::HttpServer)) until its response has been written.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, HttpBody as _};
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use bytes::Bytes;
use futures::Stream;
use tokio::sync::OwnedSemaphorePermit;
use tower::{Layer, Service};

use ::http::{HeaderValue, Method, StatusCode, header};

use super::State;
use super::conn::{Busy, ConnTracker};
use super::respond::error_response;
use roundtrip_wire::ErrorObject;

/// `503 Service Unavailable` with `Retry-After: 1` and a JSON-RPC error saying why and naming
/// the limit (`data.limit`, `data.max`).
pub(super) fn unavailable(limit: &'static str, max: usize, message: &str) -> Response {
    roundtrip_core::observe::limit(limit);
    let error = ErrorObject::limit_reached(limit, max, message);
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, None, error);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// The router's limits as a tower layer: count the request in flight (standalone `GET`
/// streams have their own bound) and mark its connection busy, both until the response has
/// been written.
///
/// Written out rather than with `axum::middleware::from_fn`, which clones and boxes the inner
/// service and boxes its future on every request (about 4% of a leg's instructions).
#[derive(Clone)]
pub(super) struct LimitLayer(pub(super) Arc<State>);

impl<S> Layer<S> for LimitLayer {
    type Service = Limit<S>;

    fn layer(&self, inner: S) -> Limit<S> {
        Limit { inner, state: self.0.clone() }
    }
}

/// The service of [`LimitLayer`].
#[derive(Clone)]
pub(super) struct Limit<S> {
    inner: S,
    state: Arc<State>,
}

/// What a request holds until its response is written.
pub(super) type Guard = (Option<Busy>, Option<OwnedSemaphorePermit>);

/// Admit a request: mark its connection (if known) busy and take a slot of the requests in
/// flight (a `GET` stream has its own bound instead); `None` when no slot is left (answer
/// [`refusal`]).
pub(super) fn admit(state: &State, conn: Option<&ConnTracker>, method: &Method) -> Option<Guard> {
    let busy = conn.map(ConnTracker::begin);
    if method == Method::GET {
        return Some((busy, None));
    }
    let permit = state.in_flight.clone().try_acquire_owned().ok()?;
    Some((busy, Some(permit)))
}

/// The answer to a request [`admit`] turned away.
pub(super) fn refusal(state: &State) -> Response {
    let max = state.options.max_in_flight;
    tracing::debug!(target: "roundtrip::limits", limit = "max_in_flight", max, "request refused");
    unavailable(
        "max_in_flight",
        max,
        "Server busy: too many requests in flight (HttpOptions::max_in_flight); retry later",
    )
}

impl<S> Service<Request> for Limit<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = LimitFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let conn = request.extensions().get::<ConnectInfo<ConnTracker>>().map(|info| &info.0);
        match admit(&self.state, conn, request.method()) {
            Some(guard) => LimitFuture::running(self.inner.call(request), guard),
            None => LimitFuture::refused(refusal(&self.state)),
        }
    }
}

/// Marks a response as a long-lived stream (`subscriptions/listen`) that holds a slot of the
/// stream budget instead: the request gives its in-flight slot back once its response starts.
#[derive(Debug, Clone, Copy)]
pub(super) struct LongLived;

pin_project_lite::pin_project! {
    /// The future of a request admitted by [`admit`] (or refused by it).
    #[project = LimitProj]
    pub(super) enum LimitFuture<F> {
        Refused { refusal: Option<Response> },
        Running { #[pin] inner: F, guard: Option<Guard> },
    }
}

impl<F> LimitFuture<F> {
    pub(super) fn running(inner: F, guard: Guard) -> Self {
        Self::Running { inner, guard: Some(guard) }
    }

    pub(super) fn refused(refusal: Response) -> Self {
        Self::Refused { refusal: Some(refusal) }
    }
}

impl<F> Future for LimitFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            // Taken once; a future polled again after it completed gets an empty response.
            LimitProj::Refused { refusal } => Poll::Ready(Ok(refusal.take().unwrap_or_default())),
            LimitProj::Running { inner, guard } => {
                let response = match std::task::ready!(inner.poll(cx)) {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                let mut guard = guard.take();
                if response.extensions().get::<LongLived>().is_some()
                    && let Some((_, permit)) = guard.as_mut()
                {
                    *permit = None;
                }
                Poll::Ready(Ok(hold_until_written(response, guard)))
            }
        }
    }
}

/// Keep `guard` until the response body is done. A body of known size is written at once, so
/// the guard goes now; a streamed one (SSE) carries it until it ends or is dropped.
pub(super) fn hold_until_written<G: Send + Unpin + 'static>(response: Response, guard: G) -> Response {
    if response.body().size_hint().exact().is_some() {
        return response;
    }
    let (parts, body) = response.into_parts();
    let stream = Holding { inner: body.into_data_stream(), guard: Some(guard) };
    Response::from_parts(parts, Body::from_stream(stream))
}

/// A body stream that keeps a guard until it ends.
struct Holding<S, G> {
    inner: S,
    guard: Option<G>,
}

impl<S, G> Stream for Holding<S, G>
where
    S: Stream<Item = Result<Bytes, axum::Error>> + Unpin,
    G: Unpin,
{
    type Item = Result<Bytes, axum::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = Pin::new(&mut self.inner).poll_next(cx);
        if let Poll::Ready(None) = polled {
            self.guard = None;
        }
        polled
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}
