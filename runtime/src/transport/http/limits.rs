//! The router's own limits: requests in flight are bounded and the excess is refused at once
//! (`503` with `Retry-After`), never queued; every request marks its connection busy (when
//! served by [`HttpServer`](super::HttpServer)) until its response has been written.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, HttpBody as _};
use axum::extract::{ConnectInfo, Request, State as AxumState};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use futures::Stream;

use ::http::{HeaderValue, Method, StatusCode, header};

use super::State;
use super::conn::ConnTracker;
use super::respond::error_response;
use crate::protocol::ErrorObject;

/// `503 Service Unavailable` with `Retry-After: 1` and a JSON-RPC error saying why.
pub(super) fn unavailable(message: &str) -> Response {
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, None, ErrorObject::new(-32000, message));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// Count the request in flight (standalone `GET` streams have their own bound) and mark its
/// connection busy, both until the response has been written.
pub(super) async fn limit(AxumState(state): AxumState<Arc<State>>, request: Request, next: Next) -> Response {
    let busy = request.extensions().get::<ConnectInfo<ConnTracker>>().map(|info| info.0.begin());
    let permit = if request.method() == Method::GET {
        None
    } else {
        match state.in_flight.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                tracing::debug!("refusing a request: max_in_flight reached");
                return unavailable("Server busy: too many requests in flight; retry later");
            }
        }
    };
    let response = next.run(request).await;
    hold_until_written(response, (busy, permit))
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
