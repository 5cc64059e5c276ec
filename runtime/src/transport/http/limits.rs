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
use crate::protocol::ErrorObject;

/// `503 Service Unavailable` with `Retry-After: 1` and a JSON-RPC error saying why and naming
/// the limit (`data.limit`, `data.max`).
pub(super) fn unavailable(limit: &'static str, max: usize, message: &str) -> Response {
    crate::observe::limit(limit);
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
        Limit { inner, state: self.0.clone(), conn: None }
    }
}

/// The service of [`LimitLayer`].
#[derive(Clone)]
pub(super) struct Limit<S> {
    inner: S,
    state: Arc<State>,
    /// The connection, when this service serves one (else it is read from the request's
    /// connect info).
    pub(super) conn: Option<ConnTracker>,
}

impl<S> Limit<S> {
    /// The service limited.
    pub(super) fn inner_mut(&mut self) -> &mut S {
        &mut self.inner
    }
}

/// What a request holds until its response is written.
type Guard = (Option<Busy>, Option<OwnedSemaphorePermit>);

impl<S> Service<Request> for Limit<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
    S::Future: Unpin,
{
    type Response = Response;
    type Error = Infallible;
    type Future = LimitFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let busy = match &self.conn {
            Some(conn) => Some(conn.begin()),
            None => request.extensions().get::<ConnectInfo<ConnTracker>>().map(|info| info.0.begin()),
        };
        let permit = if request.method() == Method::GET {
            None
        } else {
            match self.state.in_flight.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    let max = self.state.options.max_in_flight;
                    tracing::debug!(target: "roundtrip::limits", limit = "max_in_flight", max, "request refused");
                    let refusal = unavailable(
                        "max_in_flight",
                        max,
                        "Server busy: too many requests in flight (HttpOptions::max_in_flight); retry later",
                    );
                    return LimitFuture::Refused(Some(refusal));
                }
            }
        };
        LimitFuture::Running(self.inner.call(request), Some((busy, permit)))
    }
}

/// Marks a response as a long-lived stream (`subscriptions/listen`) that holds a slot of the
/// stream budget instead: the request gives its in-flight slot back once its response starts.
#[derive(Debug, Clone, Copy)]
pub(super) struct LongLived;

/// The future of [`Limit`].
pub(super) enum LimitFuture<F> {
    Refused(Option<Response>),
    Running(F, Option<Guard>),
}

impl<F> Future for LimitFuture<F>
where
    F: Future<Output = Result<Response, Infallible>> + Unpin,
{
    type Output = Result<Response, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut *self {
            // Taken once; a future polled again after it completed gets an empty response.
            Self::Refused(refusal) => Poll::Ready(Ok(refusal.take().unwrap_or_default())),
            Self::Running(inner, guard) => {
                let response = match std::task::ready!(Pin::new(inner).poll(cx)) {
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
