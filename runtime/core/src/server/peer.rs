//! What a transport gives the server for one inbound request besides its body: the
//! request's peer and session (the request layer's), who is calling, and the HTTP head.

use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::request::{AuthPrincipal, Peer, Session, Transport};

/// Everything about one inbound request besides its JSON-RPC body.
#[derive(Clone)]
pub struct Inbound {
    /// Where notifications and server-to-client requests go.
    pub peer: Arc<dyn Peer>,
    /// The legacy session, when the request belongs to one.
    pub session: Option<Arc<Session>>,
    /// The transport already knows this is a 2026-era request (e.g. its HTTP header says so).
    pub modern_hint: bool,
    /// Who the caller is, when it is authenticated: what the resource server of
    /// [`roundtrip::auth`](https://docs.rs/roundtrip/latest/roundtrip/auth/index.html) verified, or what the application's own layer or a trusted identity
    /// header says. Sealed state, tasks, [`PerCaller`](crate::server::PerCaller) values and the limits
    /// per caller are all keyed on its [`identity`](AuthPrincipal::identity).
    pub auth: Option<Arc<AuthPrincipal>>,
    /// List in `tools/list` only the tools whose scopes `auth` grants (a tool it could not
    /// call is not shown). The HTTP endpoint sets it from
    /// [`ResourceServer::hide_tools_out_of_scope`](https://docs.rs/roundtrip/latest/roundtrip/auth/struct.ResourceServer.html#method.hide_tools_out_of_scope)
    /// (on by default); without `auth` there is nothing to filter by.
    pub tools_by_scope: bool,
    /// The HTTP request head, on HTTP.
    pub http: Option<Arc<http::request::Parts>>,
    /// The client's network address, when the transport knows it (HTTP served by
    /// [`Server::bind_http`](https://docs.rs/roundtrip/latest/roundtrip/transport/http/trait.ServeHttp.html#tymethod.bind_http); behind a trusted proxy, the address the
    /// proxy forwarded): whom an anonymous caller's state and limits are keyed on.
    pub client_addr: Option<std::net::IpAddr>,
    /// Cancelled when the client cancels the request or goes away.
    pub cancel: CancellationToken,
    /// How the request arrived.
    pub transport: Transport,
    /// What the transport took out of the request's `params` (its `_meta` typed, its answers,
    /// state, `name` and `arguments`; then they are not in `params`; see `Message::read`).
    #[doc(hidden)]
    pub taken: crate::protocol::Taken,
    /// The request's way past the server's interceptors, when it has any.
    pub(crate) gate: Option<Arc<super::intercept::Gate>>,
}

impl fmt::Debug for Inbound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbound")
            .field("session", &self.session)
            .field("modern_hint", &self.modern_hint)
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

impl Inbound {
    /// An inbound request on `peer`, with no session, caller or HTTP head.
    pub fn new(peer: Arc<dyn Peer>) -> Self {
        Self {
            peer,
            session: None,
            modern_hint: false,
            auth: None,
            tools_by_scope: false,
            http: None,
            client_addr: None,
            cancel: CancellationToken::new(),
            transport: Transport::Memory,
            taken: crate::protocol::Taken::default(),
            gate: None,
        }
    }

    /// The caller's identity, when it is authenticated.
    pub(crate) fn identity(&self) -> Option<String> {
        self.auth.as_deref().map(AuthPrincipal::identity)
    }
}
