//! What a transport gives the server for one inbound request: a way to send notifications on
//! the request's stream, a back-channel for server-to-client requests (legacy sessions only),
//! and the legacy session the request belongs to.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::protocol::{ClientCapabilities, ErrorObject, Implementation, LoggingLevel, Notification, ProtocolVersion};

/// The transport's side of one inbound request.
pub trait Peer: Send + Sync {
    /// Send a notification that belongs to this request (progress, log, subscription events).
    fn notify(&self, notification: Notification);

    /// Send a server-to-client request and wait for the client's answer.
    ///
    /// `None` when the transport has no back-channel for this request (every 2026 request,
    /// and legacy HTTP without a session).
    fn request(&self, method: &str, params: Value) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>>;

    /// Whether [`request`](Self::request) has a back-channel to use.
    fn can_request(&self) -> bool {
        true
    }
}

/// A peer that drops notifications and has no back-channel.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullPeer;

impl Peer for NullPeer {
    fn notify(&self, _: Notification) {}

    fn request(&self, _: &str, _: Value) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>> {
        None
    }

    fn can_request(&self) -> bool {
        false
    }
}

// The principal is the seal's (a sealed state is bound to it), re-exported where a request's
// parts are.
pub use crate::seal::Principal;

/// A legacy (2025-era) session: the revision and capabilities fixed by `initialize`.
pub struct Session {
    /// The transport's id for it (`Mcp-Session-Id` on HTTP).
    pub id: Option<String>,
    /// The negotiated revision.
    pub version: ProtocolVersion,
    /// The capabilities the client declared.
    pub client_capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    pub(crate) log_level: Mutex<Option<LoggingLevel>>,
    pub(crate) subscriptions: Mutex<HashSet<String>>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("version", &self.version).finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new(
        id: Option<String>,
        version: ProtocolVersion,
        client_capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            id,
            version,
            client_capabilities,
            client_info,
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(HashSet::new()),
        }
    }

    /// The level set with `logging/setLevel`, if any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.log_level.lock().map(|g| *g).unwrap_or(None)
    }
}

/// How a request reached the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Transport {
    /// In this process ([`Server::serve_in_memory`](super::Server::serve_in_memory), the test
    /// kit, or a caller of [`Server::handle`](super::Server::handle)).
    #[default]
    Memory,
    /// A stream of newline-delimited messages: stdio, or
    /// [`serve_connection`](crate::transport::serve_connection).
    Stdio,
    /// Streamable HTTP.
    Http,
}

impl Transport {
    /// `memory`, `stdio` or `http`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::Stdio => "stdio",
            Self::Http => "http",
        }
    }
}

/// Everything about one inbound request besides its JSON-RPC body.
#[derive(Clone)]
pub struct Inbound {
    /// Where notifications and server-to-client requests go.
    pub peer: Arc<dyn Peer>,
    /// The legacy session, when the request belongs to one.
    pub session: Option<Arc<Session>>,
    /// The transport already knows this is a 2026-era request (e.g. its HTTP header says so).
    pub modern_hint: bool,
    /// The authenticated identity, if an auth layer set one.
    pub principal: Option<Principal>,
    /// What the caller's verified bearer token says (subject, client, scopes), if an auth
    /// layer set it (see [`crate::auth`]).
    pub auth: Option<Arc<crate::auth::AuthPrincipal>>,
    /// List in `tools/list` only the tools whose scopes `auth` grants (a tool it could not
    /// call is not shown). The HTTP endpoint sets it from
    /// [`ResourceServer::hide_tools_out_of_scope`](crate::auth::ResourceServer::hide_tools_out_of_scope)
    /// (on by default); without `auth` there is nothing to filter by.
    pub tools_by_scope: bool,
    /// The HTTP request head, on HTTP.
    pub http: Option<Arc<http::request::Parts>>,
    /// The client's network address, when the transport knows it (HTTP served by
    /// [`Server::bind_http`](super::Server::bind_http)): what limits per caller count against
    /// when there is no principal.
    pub client_addr: Option<std::net::IpAddr>,
    /// Cancelled when the client cancels the request or goes away.
    pub cancel: CancellationToken,
    /// How the request arrived.
    pub transport: Transport,
}

impl fmt::Debug for Inbound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbound")
            .field("session", &self.session)
            .field("modern_hint", &self.modern_hint)
            .field("principal", &self.principal)
            .finish_non_exhaustive()
    }
}

impl Inbound {
    /// An inbound request on `peer`, with no session, principal or HTTP head.
    pub fn new(peer: Arc<dyn Peer>) -> Self {
        Self {
            peer,
            session: None,
            modern_hint: false,
            principal: None,
            auth: None,
            tools_by_scope: false,
            http: None,
            client_addr: None,
            cancel: CancellationToken::new(),
            transport: Transport::Memory,
        }
    }
}
