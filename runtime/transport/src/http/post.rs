//! One POST: read the body within its limit, classify it (wire-spec 4.3) and serve it on the
//! 2026 stateless path or the legacy session path.

use std::net::IpAddr;
use std::sync::Arc;

use axum::body::HttpBody;
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};

use ::http::{HeaderMap, HeaderValue, StatusCode, request::Parts};

use super::State;
use super::limits::LongLived;
use super::respond::{Answer, StreamTimers, error_response, reply_response, run};
use super::sessions::LegacySession;
use super::stream::{NoSession, legacy_target};
use crate::headers::{self, SESSION_ID};
use roundtrip_core::request::AuthPrincipal;
use roundtrip_core::server::{Inbound, NullPeer, Peer, Session};
use roundtrip_wire::{
    ClientCapabilities, ErrorObject, Implementation, Message, Notification, ProtocolVersion, Request, RequestId,
    RequestMeta, Response as RpcResponse,
};

enum BodyError {
    TooLarge,
    Broken,
}

/// A request body the endpoint reads: hyper's own on a connection of a bound server, axum's
/// through a router.
pub(super) trait RequestBody:
    HttpBody<Data = Bytes, Error: Into<axum::BoxError>> + Send + Unpin + 'static
{
}

impl<B: HttpBody<Data = Bytes, Error: Into<axum::BoxError>> + Send + Unpin + 'static> RequestBody for B {}

/// Read at most `limit` bytes of the body. A body that arrives in one chunk (the usual case)
/// is kept as it came, without a copy.
async fn read_limited<B: RequestBody>(mut body: B, limit: usize) -> Result<Bytes, BodyError> {
    let mut first = Bytes::new();
    let mut joined: Option<BytesMut> = None;
    while let Some(frame) = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await {
        // Trailers are not part of the message.
        let Ok(chunk) = frame.map_err(|_| BodyError::Broken)?.into_data() else { continue };
        let so_far = joined.as_ref().map_or(first.len(), BytesMut::len);
        if so_far + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        match &mut joined {
            Some(joined) => joined.extend_from_slice(&chunk),
            None if first.is_empty() => first = chunk,
            None => {
                let mut both = BytesMut::with_capacity(first.len() + chunk.len());
                both.extend_from_slice(&first);
                both.extend_from_slice(&chunk);
                joined = Some(both);
            }
        }
    }
    Ok(joined.map_or(first, BytesMut::freeze))
}

fn bad_request(id: Option<RequestId>, error: ErrorObject) -> Response {
    error_response(StatusCode::BAD_REQUEST, id, error)
}

/// One POST: the body read, then the message served.
///
/// Not an `async fn`, for speed, and in parts: what can be refused from the head is refused
/// here, the body is read, then [`dispatch`] classifies the message and returns what is
/// left to wait for. So the future holds neither the parsed message nor the request's parts
/// twice (an `async fn` keeps its arguments twice, and anything borrowed before a wait,
/// across it).
pub(super) fn post<B: RequestBody>(
    state: Arc<State>,
    parts: Parts,
    body: B,
    addr: Option<IpAddr>,
) -> impl Future<Output = Response> + Send + use<B> {
    if let Some(refusal) = refuse_head(&state, &parts, &body) {
        return futures::future::Either::Left(std::future::ready(refusal));
    }
    futures::future::Either::Right(async move {
        let bytes = match read_body(&state, body).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        let answer = dispatch(state, parts, &bytes, addr);
        // The body is not kept while the request runs (a stream may run for hours).
        drop(bytes);
        answer.await
    })
}

/// A POST refused by its head: a body that is not JSON, or declared larger than the limit.
fn refuse_head(state: &State, parts: &Parts, body: &impl RequestBody) -> Option<Response> {
    if !headers::is_json(&parts.headers) {
        return Some(error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            ErrorObject::invalid_request("Content-Type must be application/json"),
        ));
    }
    // The declared length, as hyper read (and checked) `Content-Length`: no need to read the
    // header again.
    (body.size_hint().lower() > state.options.max_body_bytes as u64).then(too_large)
}

/// `413`.
fn too_large() -> Response {
    roundtrip_core::observe::limit("max_body_bytes");
    error_response(StatusCode::PAYLOAD_TOO_LARGE, None, ErrorObject::invalid_request("request body too large"))
}

/// The body of a POST, within its limit and its time; `Err` is the answer when it is not
/// acceptable.
async fn read_body(state: &State, body: impl RequestBody) -> Result<Bytes, Response> {
    // A body that came with its head (the usual case) is read at the first poll, so the
    // timeout's timer is only set up when it did not (for speed: setting one up reads the
    // clock and takes a handle on the timer wheel, on every request).
    let mut reading = std::pin::pin!(read_limited(body, state.options.max_body_bytes));
    // A shutdown does not wait for a body still arriving (a client trickling it would hold the
    // drain for the whole body timeout): it is answered as one that took too long.
    let read = match futures::poll!(reading.as_mut()) {
        std::task::Poll::Ready(read) => Ok(read),
        std::task::Poll::Pending => tokio::select! {
            read = tokio::time::timeout(state.options.request_body_timeout, reading) => read.map_err(|_| false),
            () = state.shutdown.cancelled() => Err(true),
        },
    };
    match read {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(BodyError::TooLarge)) => Err(too_large()),
        Ok(Err(BodyError::Broken)) => {
            Err(bad_request(None, ErrorObject::invalid_request("the request body could not be read")))
        }
        Err(shutting_down) => {
            let message = if shutting_down {
                "the server is shutting down and the request body had not arrived; retry"
            } else {
                roundtrip_core::observe::limit("request_body_timeout");
                "the request body did not arrive in time"
            };
            let mut response = error_response(StatusCode::REQUEST_TIMEOUT, None, ErrorObject::invalid_request(message));
            response.headers_mut().insert(::http::header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
    }
}

/// What a POST's body asks: answered here, or the future that answers it.
///
/// The paths other than a 2026-07-28 request are boxed: the legacy path's future (sessions,
/// `initialize`) and the long-lived stream's are larger, and would otherwise size the future
/// every request allocates.
fn dispatch(
    state: Arc<State>,
    parts: Parts,
    bytes: &[u8],
    addr: Option<IpAddr>,
) -> impl Future<Output = Response> + Send + use<> {
    use futures::future::{BoxFuture, Either, FutureExt as _, Ready, ready};
    type Answered = Either<Ready<Response>, BoxFuture<'static, Response>>;
    let now = |response| -> Answered { Either::Left(ready(response)) };
    let boxed = |future: BoxFuture<'static, Response>| -> Answered { Either::Right(future) };
    let read = match Message::read(bytes) {
        Ok(read) => read,
        Err(e) => {
            let (id, error) = e.into_error();
            return Either::Left(now(bad_request(id, error)));
        }
    };
    let (request, taken) = match read.message {
        Message::Response(response) => return Either::Left(now(client_response(&state, &parts, response))),
        Message::Notification(notification) => {
            return Either::Left(now(notification_post(&state, &parts, &notification)));
        }
        Message::Request(request) => (request, read.taken),
    };
    #[cfg(feature = "auth")]
    if let Some(refusal) = tool_scopes(&state, &parts, &request, &taken) {
        return Either::Left(now(refusal));
    }
    // `taken`: what `Message::read` took out of `params` (a `_meta` it took claims 2026-07-28).
    let claims_modern = RequestMeta::claims_version(request.params.as_ref(), taken.meta.as_deref());
    if !claims_modern && !headers::is_modern_header(&parts.headers) {
        return Either::Left(boxed(boxed_path(legacy, state, parts, request, addr)));
    }
    // The 2026-07-28 stateless path: headers must agree with the body; no session.
    // The caller's tools: a tenant's own may mark headers too.
    let catalog = state.server.catalog(parts.extensions.get());
    if let Err(e) = headers::check_modern(&parts.headers, &request, &taken, |name| catalog.tool(name)) {
        return Either::Left(now(bad_request(Some(request.id), e)));
    }
    if request.method == "subscriptions/listen" {
        return Either::Left(boxed(boxed_path(listen, state, parts, request, addr)));
    }
    let mut inbound = inbound(&state, parts, addr, true, &request.method);
    inbound.taken = taken;
    let running = run(&state.server, request, inbound, None, StreamTimers::request(&state.options), ());
    Either::Right(running.map(Answer::into_response))
}

/// The future of a path other than a 2026-07-28 request (`legacy`, `listen`), boxed. Its own
/// function, never inlined: the future is made in this frame, and [`dispatch`]'s (every
/// request's) then keeps no room for it.
#[inline(never)]
fn boxed_path<F: Future<Output = Response> + Send + 'static>(
    path: impl FnOnce(Arc<State>, Parts, Request, Option<IpAddr>) -> F,
    state: Arc<State>,
    parts: Parts,
    request: Request,
    addr: Option<IpAddr>,
) -> futures::future::BoxFuture<'static, Response> {
    Box::pin(path(state, parts, request, addr))
}

/// Why a request names no usable session.
#[derive(Debug)]
struct UnknownSession;

impl UnknownSession {
    fn response(self) -> Response {
        error_response(StatusCode::NOT_FOUND, None, ErrorObject::invalid_request("Session not found or expired"))
    }
}

/// The session named by `Mcp-Session-Id`: `Ok(None)` when the header is absent. A session
/// started by another principal is not found.
fn session_of(state: &State, parts: &Parts) -> Result<Option<Arc<LegacySession>>, UnknownSession> {
    let Some(id) = parts.headers.get(&SESSION_ID) else { return Ok(None) };
    let id = id.to_str().map_err(|_| UnknownSession)?.trim_ascii();
    let identity = super::identity(parts);
    state.sessions.get(id).filter(|s| s.owned_by(identity.as_deref())).map(Some).ok_or(UnknownSession)
}

/// A client's answer to a server-to-client request (legacy back-channel).
fn client_response(state: &State, parts: &Parts, response: RpcResponse) -> Response {
    match session_of(state, parts) {
        Err(e) => e.response(),
        Ok(None) => bad_request(None, ErrorObject::invalid_request("missing Mcp-Session-Id")),
        Ok(Some(session)) => {
            if !session.pending.resolve(response) {
                tracing::debug!("a client response matched no request in flight");
            }
            StatusCode::ACCEPTED.into_response()
        }
    }
}

fn notification_post(state: &State, parts: &Parts, notification: &Notification) -> Response {
    let session = match session_of(state, parts) {
        Err(e) => return e.response(),
        Ok(s) => s,
    };
    if notification.method == "notifications/cancelled"
        && let Some(session) = session
        && let Some(id) = notification
            .params
            .as_ref()
            .and_then(|p| p.get("requestId"))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
    {
        session.cancel(&id);
    }
    StatusCode::ACCEPTED.into_response()
}

/// Refuse a `tools/call` whose bearer token lacks the tool's scopes (`403 insufficient_scope`).
///
/// This happens here, in the transport, rather than in the HTTP layer that verified the token
/// or in the dispatcher: the layer cannot know the tool without parsing the body (a 2026
/// request names it in `Mcp-Name`, a legacy one only in the body), and this is where the body
/// has just been parsed, once; the dispatcher knows no HTTP, and a step-up is an HTTP answer
/// (a `403` with a `WWW-Authenticate` challenge the client's OAuth code acts on), not a JSON-RPC
/// error. Refusing before the request is dispatched means no check runs, no question is asked,
/// no task is created and no state is unsealed for a caller who may not call the tool.
#[cfg(feature = "auth")]
fn tool_scopes(state: &State, parts: &Parts, request: &Request, taken: &roundtrip_wire::Taken) -> Option<Response> {
    let auth = state.options.auth.as_ref()?;
    if request.method != "tools/call" {
        return None;
    }
    let name = taken.param(request.params.as_ref(), "name").and_then(serde_json::Value::as_str)?;
    let principal = parts.extensions.get::<AuthPrincipal>();
    let catalog = state.server.catalog(principal);
    let scopes = catalog.tool(name).map_or(&[][..], |t| t.required_scopes());
    if scopes.is_empty() {
        return None;
    }
    // The endpoint verified the token before the body was read; without a principal here
    // the request did not come through it, so refuse rather than run unchecked.
    let Some(principal) = principal else {
        return Some(auth.refuse(roundtrip_auth::http::Refusal::Missing));
    };
    let refusal = auth.check_scopes(principal, scopes).err()?;
    tracing::info!(target: "roundtrip::auth", tool = name, subject = %principal.subject, "insufficient scope");
    Some(auth.refuse(refusal))
}

/// The inbound side of one request. A graceful shutdown ends the long-lived
/// `subscriptions/listen` streams at once; every other request in flight finishes (it is
/// cancelled only when its client goes away), so a rolling restart answers what it took.
fn inbound(state: &State, mut parts: Parts, addr: Option<IpAddr>, modern_hint: bool, method: &str) -> Inbound {
    let auth = parts.extensions.remove::<AuthPrincipal>().map(Arc::new);
    let mut inbound = Inbound::new(null_peer());
    inbound.modern_hint = modern_hint;
    inbound.auth = auth;
    #[cfg(feature = "auth")]
    {
        inbound.tools_by_scope = state.options.auth.as_ref().is_some_and(|a| a.hides_tools_out_of_scope());
    }
    inbound.client_addr = addr;
    inbound.transport = roundtrip_core::server::Transport::Http;
    inbound.http = Some(Arc::new(parts));
    if method == "subscriptions/listen" {
        inbound.cancel = state.shutdown.child_token();
    }
    inbound
}

/// The peer an [`Inbound`] starts with (`run` gives it the request's own), shared.
fn null_peer() -> Arc<dyn Peer> {
    static NULL: std::sync::LazyLock<Arc<dyn Peer>> = std::sync::LazyLock::new(|| Arc::new(NullPeer));
    NULL.clone()
}

/// `subscriptions/listen`: a long-lived stream. It holds a slot of the stream budget (in all
/// and per caller) for as long as it is open, and gives its in-flight slot back once it has
/// started; it ends when it has carried nothing but keep-alives for the idle timeout.
async fn listen(state: Arc<State>, parts: Parts, request: Request, addr: Option<IpAddr>) -> Response {
    let slot = match state.streams.open(super::caller(&parts, addr).as_deref()) {
        Ok(slot) => slot,
        Err(full) => return full.response(),
    };
    let inbound = inbound(&state, parts, addr, true, &request.method);
    match run(&state.server, request, inbound, None, StreamTimers::long_lived(&state.options), slot).await {
        Answer::Done(reply) => reply_response(reply),
        Answer::Streaming(mut response) => {
            response.extensions_mut().insert(LongLived);
            response
        }
    }
}

/// The legacy path: `initialize` starts a session, everything else needs one.
async fn legacy(state: Arc<State>, parts: Parts, request: Request, addr: Option<IpAddr>) -> Response {
    if let Err(e) = headers::check_legacy(&parts.headers) {
        return bad_request(Some(request.id), e);
    }
    if request.method == "initialize" {
        if state.options.max_sessions == 0 {
            return no_sessions(request.id);
        }
        return initialize(state, parts, request, addr).await;
    }
    let session = match session_of(&state, &parts) {
        Err(e) => return e.response(),
        Ok(None) => return bad_request(Some(request.id), ErrorObject::invalid_request("missing Mcp-Session-Id")),
        Ok(Some(s)) => s,
    };
    let mut inbound = inbound(&state, parts, addr, false, &request.method);
    inbound.session = Some(session.session.clone());
    let in_flight = session.begin(request.id.clone(), inbound.cancel.clone());
    let pending = Some(session.pending.clone());
    run(&state.server, request, inbound, pending, StreamTimers::request(&state.options), in_flight)
        .await
        .into_response()
}

/// `initialize` where no session is kept ([`HttpOptions::max_sessions`](super::HttpOptions::max_sessions)
/// 0): see [`crate::reply::no_sessions`].
fn no_sessions(id: RequestId) -> Response {
    crate::reply::no_sessions(id).map(axum::body::Body::from)
}

async fn initialize(state: Arc<State>, parts: Parts, request: Request, addr: Option<IpAddr>) -> Response {
    let id = uuid::Uuid::new_v4().to_string();
    // The server copies the id of the session it is given into the one it creates.
    let placeholder = Session::new(
        Some(id.clone()),
        ProtocolVersion::LATEST_LEGACY,
        ClientCapabilities::default(),
        Implementation::new("", ""),
    );
    let owner = super::identity(&parts);
    let caller = super::caller(&parts, addr);
    let mut inbound = inbound(&state, parts, addr, false, &request.method);
    inbound.session = Some(Arc::new(placeholder));
    match run(&state.server, request, inbound, None, StreamTimers::request(&state.options), ()).await {
        Answer::Streaming(response) => response,
        Answer::Done(mut reply) => {
            let session = reply.session.take();
            let mut response = reply_response(reply);
            if let Some(session) = session {
                if let Err(full) = state.sessions.insert(id.clone(), session, owner, caller) {
                    return full.response();
                }
                if let Ok(v) = HeaderValue::from_str(&id) {
                    response.headers_mut().insert(SESSION_ID.clone(), v);
                }
            }
            response
        }
    }
}

/// `DELETE` ends a legacy session (`200`); see [`legacy_target`] for the other answers.
pub(super) fn delete(state: &State, headers: &HeaderMap, identity: Option<&str>) -> Response {
    match legacy_target(state, headers, identity) {
        Ok((id, _)) if state.sessions.remove(&id) => StatusCode::OK.into_response(),
        // Ended between the lookup and now.
        Ok(_) => NoSession::NotFound.response(),
        Err(no) => no.response(),
    }
}
