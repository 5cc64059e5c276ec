//! The standalone `GET` stream of a legacy session (2025-era streamable HTTP): server-initiated
//! messages that belong to no request. It carries the list changes the server announces
//! ([`Server::notify_list_changed`](roundtrip_core::server::Server::notify_list_changed)) and SSE keep-alive
//! comments; it ends when the session ends, when the client opens another one for the same
//! session, or when the server shuts down.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use bytes::Bytes;
use futures::Stream;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio_util::sync::CancellationToken;

use ::http::{HeaderMap, StatusCode};

use super::State;
use super::respond::{IdleTimer, error_response, sse_response, tick};
use super::sessions::{LegacySession, StreamGuard};
use crate::headers::{self, PROTOCOL_VERSION, SESSION_ID};
use crate::reply::frame;
use roundtrip_core::server::{ListChange, Server};
use roundtrip_wire::{ErrorObject, Notification, ProtocolVersion};

/// Why a `GET` or `DELETE` names no usable legacy session.
#[derive(Debug)]
pub(super) enum NoSession {
    /// A 2026-era request, or one from a client with no session yet: `405`.
    NotAllowed,
    /// A legacy revision without `Mcp-Session-Id`: `400`.
    Missing,
    /// An unsupported or unreadable `MCP-Protocol-Version`: `400`.
    BadVersion(String),
    /// An unknown or ended session: `404`.
    NotFound,
}

impl NoSession {
    pub fn response(self) -> Response {
        match self {
            Self::NotAllowed => super::method_not_allowed(),
            Self::Missing => {
                error_response(StatusCode::BAD_REQUEST, None, ErrorObject::invalid_request("missing Mcp-Session-Id"))
            }
            Self::BadVersion(message) => {
                error_response(StatusCode::BAD_REQUEST, None, ErrorObject::invalid_request(message))
            }
            Self::NotFound => error_response(
                StatusCode::NOT_FOUND,
                None,
                ErrorObject::invalid_request("Session not found or expired"),
            ),
        }
    }
}

/// The legacy session a `GET` or `DELETE` is about, with its id.
///
/// Without `Mcp-Session-Id` the request is a 2026-era one or one from a client that has no
/// session yet: `405`, unless its `MCP-Protocol-Version` names a legacy revision (`400`, the
/// session is missing). A 2026-07-28 version header means the session id is to be ignored
/// (`405`); an unknown one is `400`; an unknown or ended session is `404`.
pub(super) fn legacy_target(
    state: &State,
    headers: &HeaderMap,
    identity: Option<&str>,
) -> Result<(String, Arc<LegacySession>), NoSession> {
    let version = headers::raw(headers, &PROTOCOL_VERSION).map_err(|e| NoSession::BadVersion(e.message))?;
    let parsed = version.map(ProtocolVersion::parse);
    let Some(id) = headers.get(&SESSION_ID) else {
        return Err(match parsed {
            Some(Some(v)) if !v.is_modern() => NoSession::Missing,
            _ => NoSession::NotAllowed,
        });
    };
    match parsed {
        Some(Some(v)) if v.is_modern() => return Err(NoSession::NotAllowed),
        Some(None) => {
            let v = version.unwrap_or_default();
            return Err(NoSession::BadVersion(format!("Unsupported MCP-Protocol-Version header: {v}")));
        }
        _ => {}
    }
    let id = id.to_str().map(str::trim_ascii).map_err(|_| NoSession::NotFound)?;
    let session = state.sessions.get(id).filter(|s| s.owned_by(identity)).ok_or(NoSession::NotFound)?;
    Ok((id.to_owned(), session))
}

/// `GET` on the endpoint: open the session's standalone stream.
pub(super) fn get(state: &Arc<State>, headers: &HeaderMap, identity: Option<&str>) -> Response {
    let session = match legacy_target(state, headers, identity) {
        Ok((_, session)) => session,
        Err(no) => return no.response(),
    };
    if !headers::accepts_event_stream(headers) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            ErrorObject::invalid_request("Not Acceptable: the client must accept text/event-stream"),
        );
    }
    let guard = match session.open_stream(&state.streams) {
        Ok(guard) => guard,
        Err(full) => return full.response(),
    };
    let stream = GetStream {
        session: session.session.clone(),
        changes: state.server.subscribe_changes(),
        server: state.server.clone(),
        shutdown: state.shutdown.clone(),
        keep_alive: state.options.keep_alive,
        idle: IdleTimer::new(state.options.stream_idle_timeout),
        queued: VecDeque::new(),
        guard,
    };
    sse_response(stream.into_stream())
}

struct GetStream {
    session: Arc<roundtrip_core::server::Session>,
    changes: broadcast::Receiver<ListChange>,
    server: Server,
    shutdown: CancellationToken,
    keep_alive: Option<Duration>,
    idle: IdleTimer,
    /// Events decided but not yet sent (after a lag: one of each list).
    queued: VecDeque<Bytes>,
    guard: StreamGuard,
}

enum Step {
    Change(Result<ListChange, RecvError>),
    KeepAlive,
    End,
}

fn list_changed(change: &ListChange) -> Bytes {
    frame(&Notification::new(change.method(), None))
}

/// The event a change makes on this session's stream, if the session wants it.
fn event(change: &ListChange, session: &roundtrip_core::server::Session) -> Option<Bytes> {
    change.for_session(session).map(|n| frame(&n))
}

impl GetStream {
    fn into_stream(self) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
        let ticker = self.keep_alive.map(|period| {
            let mut t = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            t
        });
        futures::stream::unfold((self, ticker), |(mut s, mut ticker)| async move {
            loop {
                if let Some(event) = s.queued.pop_front() {
                    return Some((Ok(event), (s, ticker)));
                }
                let step = tokio::select! {
                    biased;
                    () = s.guard.stop().cancelled() => Step::End,
                    () = s.shutdown.cancelled() => Step::End,
                    change = s.changes.recv() => Step::Change(change),
                    () = tick(&mut ticker) => Step::KeepAlive,
                    () = s.idle.expired() => Step::End,
                };
                match step {
                    Step::End | Step::Change(Err(RecvError::Closed)) => return None,
                    Step::Change(Ok(change)) => match event(&change, &s.session) {
                        Some(event) => {
                            s.idle.reset();
                            return Some((Ok(event), (s, ticker)));
                        }
                        None => continue,
                    },
                    // Missed changes: say every list may have changed.
                    Step::Change(Err(RecvError::Lagged(_))) => {
                        let offered = [
                            (ListChange::Tools, s.server.offers_tools()),
                            (ListChange::Prompts, s.server.offers_prompts()),
                            (ListChange::Resources, s.server.offers_resources()),
                        ];
                        s.queued.extend(offered.iter().filter(|(_, on)| *on).map(|(c, _)| list_changed(c)));
                    }
                    Step::KeepAlive => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), (s, ticker))),
                }
            }
        })
    }
}
