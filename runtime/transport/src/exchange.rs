//! One HTTP exchange with no listener, stream or session: the 2026-07-28 stateless path of
//! streamable HTTP, for a platform that calls a function with each request and sends back what
//! it returns (Cloudflare Workers: roundtrip-workers adapts its types to these).
//!
//! It answers as the HTTP endpoint does with
//! [`max_sessions(0)`](crate::http::HttpOptions::max_sessions) and
//! [`max_streams(0)`](crate::http::HttpOptions::max_streams): a `POST` of a 2026-07-28 request
//! gets its reply (the headers checked against the body first; JSON, or an SSE body with the
//! call's notifications first when the client reads SSE and there were any), `initialize` gets
//! `-32022` offering 2026-07-28, `subscriptions/listen` and `GET` get `501`, a notification or
//! a response `202`; a browser's `Origin` must name the request's own host, and with
//! [`Exchange::allowed_hosts`] `Host` one of those (`403` otherwise).
//! Nothing here needs a runtime: no timer, task or socket.

use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use serde_json::Value;

use crate::headers;
use crate::host::{HostCheck, HostPolicy};
use crate::reply;
use roundtrip_core::server::{Capability, CheckError, Inbound, NullPeer, Peer, Problem, Server, Transport};
use roundtrip_wire::{ErrorObject, Message, Notification, Request as RpcRequest, RequestMeta, Taken, TaskSupport};

/// The largest request body taken, in bytes (as the HTTP endpoint's default
/// [`max_body_bytes`](crate::http::HttpOptions::max_body_bytes)).
pub const MAX_BODY_BYTES: usize = 4 << 20;

/// `413`, for a body declared or found larger than [`MAX_BODY_BYTES`].
pub fn too_large() -> Response<Bytes> {
    roundtrip_core::observe::limit("max_body_bytes");
    reply::error(StatusCode::PAYLOAD_TOO_LARGE, None, ErrorObject::invalid_request("request body too large"))
}

/// `server` as a function serves it: what an instance that answers one request and may then
/// be frozen or gone cannot do is withdrawn (the server announces no `listChanged` and no
/// resource subscriptions).
pub fn withdrawn(server: &Server) -> Server {
    server.clone().without(Capability::ListChanged).without(Capability::ResourceSubscriptions)
}

/// A server ready to answer exchanges.
#[derive(Debug, Clone)]
pub struct Exchange {
    server: Server,
    /// Which `Host` and `Origin` headers are accepted: by default any host, and a browser's
    /// `Origin` must name the request's own host.
    hosts: HostPolicy,
}

impl Exchange {
    /// `server`, [`withdrawn`], once it passes its [`check`](Server::check). A server with a
    /// tool that may run as a task is refused ([`Problem::NoTasksOn`]): a task's body runs on
    /// after its call is answered, and an instance that answers one exchange may stop then.
    pub fn new(server: &Server) -> Result<Self, CheckError> {
        if let Some(def) = server.tool_defs().iter().find(|d| d.tool.task_support() != TaskSupport::Forbidden) {
            let problem = Problem::NoTasksOn { platform: "a Cloudflare Worker" };
            return Err(CheckError { kind: "tool", name: def.tool.name.clone(), problem });
        }
        let server = withdrawn(server);
        server.check()?;
        Ok(Self { server, hosts: HostPolicy::new(&HostCheck::Off, None, None) })
    }

    /// Answer only requests whose `Host` is one of `hosts` (a name, any port, or `host:port`
    /// exactly; case-insensitive), and whose `Origin`, when present, names one of them:
    /// `403` otherwise. Without it any `Host` is taken, as where the platform routes by host.
    /// An empty list leaves the default.
    pub fn allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        if !hosts.is_empty() {
            self.hosts = HostPolicy::new(&HostCheck::Allow(hosts), None, None);
        }
        self
    }

    /// Answer one request. `caller` is the client's address as the platform saw it (what
    /// `RequestContext::caller` and per-caller limits go by).
    pub async fn answer(&self, request: Request<Bytes>, caller: Option<IpAddr>) -> Response<Bytes> {
        let (parts, body) = request.into_parts();
        match self.admit(&parts, body) {
            Ok((request, taken)) => self.run(request, taken, parts, caller).await,
            Err(answered) => *answered,
        }
    }

    /// What the HTTP endpoint checks before anything runs: the hosts, the method, the media
    /// type and size, the message, its era, and the headers against the body. The request to
    /// run, or the answer already given (a refusal; `202` for a notification or a response),
    /// boxed: it is much larger than the request.
    fn admit(&self, parts: &http::request::Parts, body: Bytes) -> Result<(RpcRequest, Taken), Box<Response<Bytes>>> {
        // As the HTTP endpoint checks them: the allowed hosts when there are some, and a browser's
        // `Origin` must name an allowed host, or the host the request was sent to (a page of
        // another site calling the Worker from a user's browser is refused).
        self.hosts.check(&parts.headers).map_err(|refusal| Box::new(reply::forbidden(refusal)))?;
        match parts.method {
            Method::POST => {}
            Method::GET => return Err(Box::new(reply::no_streams())),
            _ => {
                let mut response = reply::empty(StatusCode::METHOD_NOT_ALLOWED);
                response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
                return Err(Box::new(response));
            }
        }
        if !headers::is_json(&parts.headers) {
            let error = ErrorObject::invalid_request("Content-Type must be application/json");
            return Err(Box::new(reply::error(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, error)));
        }
        if body.len() > MAX_BODY_BYTES {
            return Err(Box::new(too_large()));
        }
        let read = Message::read(&body).map_err(|e| {
            let (id, error) = e.into_error();
            Box::new(reply::error(StatusCode::BAD_REQUEST, id, error))
        })?;
        let (request, taken) = match read.message {
            // No request of the server's is ever in flight here, and no session to cancel in.
            Message::Response(_) | Message::Notification(_) => {
                return Err(Box::new(reply::empty(StatusCode::ACCEPTED)));
            }
            Message::Request(request) => (request, read.taken),
        };
        let bad_request = |error| Box::new(reply::error(StatusCode::BAD_REQUEST, Some(request.id.clone()), error));
        let modern = RequestMeta::claims_version(request.params.as_ref(), taken.meta.as_deref())
            || headers::is_modern_header(&parts.headers);
        if !modern {
            headers::check_legacy(&parts.headers).map_err(bad_request)?;
            if request.method == "initialize" {
                return Err(Box::new(reply::no_sessions(request.id)));
            }
            return Err(bad_request(ErrorObject::invalid_request("missing Mcp-Session-Id")));
        }
        let catalog = self.server.catalog(parts.extensions.get());
        headers::check_modern(&parts.headers, &request, &taken, |name| catalog.tool(name)).map_err(bad_request)?;
        if request.method == "subscriptions/listen" {
            return Err(Box::new(reply::no_streams()));
        }
        Ok((request, taken))
    }

    /// Run an admitted request. A client that reads SSE gets the call's notifications
    /// (progress, logs) before its reply, in one body written once the call is done; another
    /// only the reply.
    async fn run(
        &self,
        request: RpcRequest,
        taken: Taken,
        parts: http::request::Parts,
        caller: Option<IpAddr>,
    ) -> Response<Bytes> {
        let collected = headers::accepts_event_stream(&parts.headers).then(|| Arc::new(Collected::default()));
        let peer: Arc<dyn Peer> = match &collected {
            Some(collected) => collected.clone(),
            None => Arc::new(NullPeer),
        };
        let mut inbound = Inbound::new(peer);
        inbound.modern_hint = true;
        inbound.taken = taken;
        inbound.client_addr = caller;
        inbound.transport = Transport::Http;
        inbound.http = Some(Arc::new(parts));
        let done = self.server.handle_caught(request, inbound).await;
        let notifications = match collected {
            Some(collected) => {
                std::mem::take(&mut *collected.notifications.lock().unwrap_or_else(PoisonError::into_inner))
            }
            None => Vec::new(),
        };
        match notifications.is_empty() {
            true => reply::reply(done),
            false => reply::events(&notifications, done),
        }
    }
}

/// The most notifications one call keeps for its answer; later ones are dropped (a call that
/// reports progress in a loop cannot grow the answer without bound).
const MAX_NOTIFICATIONS: usize = 256;

/// The notifications a call sends, kept for its answer: there is no stream to send them on
/// while it runs.
#[derive(Default)]
struct Collected {
    notifications: Mutex<Vec<Notification>>,
}

impl Peer for Collected {
    fn notify(&self, notification: Notification) {
        let mut kept = self.notifications.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() < MAX_NOTIFICATIONS {
            kept.push(notification);
        }
    }

    fn request(&self, _: &str, _: Value) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>> {
        None
    }

    fn can_request(&self) -> bool {
        false
    }
}
