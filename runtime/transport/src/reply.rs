//! Replies as HTTP responses with the body in memory: the status each way a request can end
//! gets, and JSON-RPC errors with theirs. The HTTP endpoint streams these bodies; the
//! one-exchange handler ([`crate::exchange`]) returns them as they are.

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use serde::Serialize;

use roundtrip_core::server::{Reply, ReplyMessage, STORE_RETRY_AFTER_SECS, Settled};
use roundtrip_wire::{ErrorObject, Notification, RequestId, Response as RpcResponse};

/// The status of a reply that ended so.
fn status(settled: Settled) -> StatusCode {
    match settled {
        Settled::Rejected => StatusCode::BAD_REQUEST,
        Settled::UnknownMethod => StatusCode::NOT_FOUND,
        Settled::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Settled::Crashed => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::OK,
    }
}

/// A reply as a response: JSON with its status, or `202` with no body when it has nothing to
/// say (a cancelled request).
pub(crate) fn reply(reply: Reply) -> Response<Bytes> {
    let Some(response) = reply.response else { return empty(StatusCode::ACCEPTED) };
    let status = status(reply.settled);
    let mut answer = match response {
        // Written around the result where it lies, without a copy.
        ReplyMessage::Result { id, json } => json_bytes(status, json.into_message(&id)),
        ReplyMessage::Response(response) => json(status, &response),
    };
    if reply.settled == Settled::Unavailable {
        // A store did not answer: say when to try again.
        answer.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(STORE_RETRY_AFTER_SECS));
    }
    answer
}

/// A JSON body with a status.
pub(crate) fn json<T: Serialize>(status: StatusCode, body: &T) -> Response<Bytes> {
    let mut buf = Vec::with_capacity(256);
    let bytes = match serde_json::to_writer(&mut buf, body) {
        Ok(()) => Bytes::from(buf),
        Err(_) => Bytes::from_static(b"{}"),
    };
    json_bytes(status, bytes)
}

/// A JSON body, already serialized, with a status.
fn json_bytes(status: StatusCode, bytes: Bytes) -> Response<Bytes> {
    let mut response = Response::new(bytes);
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC error with a status.
pub(crate) fn error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response<Bytes> {
    json(status, &RpcResponse::error(id, error))
}

/// `403` for a request whose `Host` or `Origin` the endpoint does not accept.
pub(crate) fn forbidden(refusal: crate::host::Refusal) -> Response<Bytes> {
    let message = match refusal {
        crate::host::Refusal::Host => "Forbidden: invalid Host header",
        crate::host::Refusal::Origin => "Forbidden: invalid Origin header",
    };
    error(StatusCode::FORBIDDEN, None, ErrorObject::new(-32000, message))
}

/// A status with no body.
pub(crate) fn empty(status: StatusCode) -> Response<Bytes> {
    let mut response = Response::new(Bytes::new());
    *response.status_mut() = status;
    response
}

/// `501` for `subscriptions/listen` or a `GET` stream where no stream is ever held (a
/// serverless function, whose instance may be frozen or gone once it has answered).
pub(crate) fn no_streams() -> Response<Bytes> {
    let message = "This endpoint holds no long-lived streams (a serverless function, or HttpOptions::max_streams \
                   0): subscriptions/listen and GET streams are not served here";
    let error = ErrorObject::new(roundtrip_wire::codes::METHOD_NOT_FOUND, message);
    self::error(StatusCode::NOT_IMPLEMENTED, None, error)
}

/// What `initialize` gets where no session is kept (a serverless function, whose instances
/// share nothing): `-32022`, offering 2026-07-28, which keeps none.
pub(crate) fn no_sessions(id: RequestId) -> Response<Bytes> {
    let error = ErrorObject::new(
        roundtrip_wire::codes::UNSUPPORTED_PROTOCOL_VERSION,
        "This endpoint keeps no sessions (a serverless function, or HttpOptions::max_sessions 0): \
         2025-era sessions are not served here; connect with protocol version 2026-07-28",
    )
    .with_data(serde_json::json!({ "supported": roundtrip_wire::ProtocolVersion::MODERN }));
    self::error(StatusCode::BAD_REQUEST, Some(id), error)
}

/// One SSE event carrying one JSON-RPC message.
pub(crate) fn frame<T: Serialize>(message: &T) -> Bytes {
    let json = serde_json::to_string(message).unwrap_or_else(|e| {
        // Only a non-string map key or a failing Serialize impl gets here.
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "error", "data": format!("could not serialize an event: {e}")}})
        .to_string()
    });
    Bytes::from(format!("data: {json}\n\n"))
}

/// The headers of an SSE body.
pub(crate) fn sse_headers(headers: &mut HeaderMap) {
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
}

/// A reply after the notifications sent while it ran, as one SSE body: what a client reading
/// a stream gets, written whole once the request is done (where no stream can be held open).
pub(crate) fn events(notifications: &[Notification], reply: Reply) -> Response<Bytes> {
    let mut body = Vec::new();
    for notification in notifications {
        body.extend_from_slice(&frame(notification));
    }
    if let Some(message) = &reply.response {
        body.extend_from_slice(&frame(message));
    }
    let mut response = Response::new(Bytes::from(body));
    sse_headers(response.headers_mut());
    response
}
