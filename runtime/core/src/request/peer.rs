//! Where a request came from: the transport's side of it (a way to send notifications on the
//! request's stream, a back-channel for server-to-client requests on legacy sessions), the
//! legacy session it belongs to, and how it arrived.

use std::collections::HashSet;
use std::fmt;
use std::sync::Mutex;

use futures::future::BoxFuture;
use serde_json::Value;

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
    #[doc(hidden)]
    pub fn new(
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
    /// In this process ([`Server::serve_in_memory`](https://docs.rs/roundtrip/latest/roundtrip/transport/trait.ServeStream.html#tymethod.serve_in_memory), the test
    /// kit, or a caller of [`Server::handle`](crate::server::Server::handle)).
    #[default]
    Memory,
    /// A stream of newline-delimited messages: stdio, or
    /// [`serve_connection`](https://docs.rs/roundtrip/latest/roundtrip/transport/fn.serve_connection.html).
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
