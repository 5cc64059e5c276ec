//! What a handler sees of the request it answers.

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::caller::AuthPrincipal;
use super::peer::{Peer, Session, Transport};
use crate::protocol::{
    AnswerRef, Answers, ClientCapabilities, CreateMessageResult, ElicitResult, JsonObject, ListRootsResult,
    LoggingLevel, Notification, ProgressToken, ProtocolVersion, RequestMeta,
};

/// Which log notifications a request gets.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LogFilter {
    /// 2026-07-28: only at or above the level the request set in `_meta` (none without one).
    Requested(Option<LoggingLevel>),
    /// Legacy: at or above the session's `logging/setLevel` (everything before one).
    Session(Option<LoggingLevel>),
}

/// The request a handler answers: arguments, answers of the previous round, the verified
/// plaintext state, the client's capabilities, and ways to report progress and logs.
pub struct RequestContext {
    /// The server answering.
    pub(crate) server: crate::server::Server,
    pub(crate) method: &'static str,
    pub(crate) target: Arc<str>,
    pub(crate) arguments: Arc<JsonObject>,
    pub(crate) uri_variables: Arc<[(String, String)]>,
    pub(crate) input_responses: Answers,
    pub(crate) state: Option<Vec<u8>>,
    pub(crate) meta: Arc<RequestMeta>,
    pub(crate) version: ProtocolVersion,
    pub(crate) log: LogFilter,
    pub(crate) peer: Arc<dyn Peer>,
    pub(crate) cancel: CancellationToken,
    /// The caller, as a salted digest, when the server binds state and tasks to one.
    pub(crate) owner: Option<String>,
    /// The caller's verified bearer token, on a protected HTTP endpoint.
    pub(crate) auth: Option<Arc<AuthPrincipal>>,
    /// The client's network address, when the transport knows it.
    pub(crate) client_addr: Option<std::net::IpAddr>,
    /// The HTTP request head (headers, and the extensions the application's layers added),
    /// over HTTP.
    pub(crate) http: Option<Arc<http::request::Parts>>,
    /// The legacy session the request belongs to, if any.
    pub(crate) session: Option<Arc<Session>>,
    /// How the request arrived.
    pub(crate) transport: Transport,
    /// The task this body runs as, if it runs as one.
    pub(crate) task: Option<Arc<crate::task::TaskLink>>,
    /// What the server's interceptors attached ([`Call::annotate`](crate::server::Call::annotate)).
    pub(crate) annotations: Option<Arc<http::Extensions>>,
}

impl fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestContext")
            .field("method", &self.method)
            .field("target", &self.target)
            .field("arguments", &self.arguments)
            .field("input_responses", &self.input_responses)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    /// Who the authenticated caller is (subject, client, scopes): set by an HTTP endpoint
    /// protected by a [`ResourceServer`](https://docs.rs/roundtrip/latest/roundtrip/auth/struct.ResourceServer.html) (feature `auth`), by the
    /// application's own layer that put an [`AuthPrincipal`](crate::request::AuthPrincipal) into the
    /// request's extensions, or from a trusted identity header; `None` for an anonymous caller
    /// (see [`caller`](Self::caller)).
    pub fn auth(&self) -> Option<&AuthPrincipal> {
        self.auth.as_deref()
    }

    /// How the request arrived: HTTP, stdio, or in this process.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The HTTP request's headers, when the request came over HTTP (`None` over stdio and in
    /// memory). For a request of a multi-round flow, the headers of this leg.
    ///
    /// ```
    /// use roundtrip::prelude::*;
    ///
    /// /// Who is asking, by the tenant header a gateway in front sets.
    /// #[tool(read_only)]
    /// async fn tenant(cx: &RequestContext) -> String {
    ///     cx.header("x-tenant").unwrap_or("no tenant (not over HTTP, or no header)").to_owned()
    /// }
    /// ```
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.http.as_deref().map(|p| &p.headers)
    }

    /// One header's value, when the request came over HTTP with it (and it is visible ASCII).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers()?.get(name)?.to_str().ok()
    }

    /// The HTTP request's extensions: what the application's own tower layers in front of
    /// [`Server::router`](https://docs.rs/roundtrip/latest/roundtrip/transport/http/trait.ServeHttp.html#tymethod.router) put there (an authenticated user, a tenant, a
    /// request id), when the request came over HTTP.
    pub fn extensions(&self) -> Option<&http::Extensions> {
        self.http.as_deref().map(|p| &p.extensions)
    }

    /// A value of type `T` attached to the request: by one of the server's interceptors
    /// ([`Call::annotate`](crate::server::Call::annotate)), or else by the application's own
    /// layers in front of the HTTP endpoint (see [`extensions`](Self::extensions)).
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let annotated = self.annotations.as_deref().and_then(http::Extensions::get::<T>);
        annotated.or_else(|| self.extensions()?.get::<T>())
    }

    /// The legacy (2025-era) session the request belongs to: its `Mcp-Session-Id` over HTTP.
    /// A 2026-07-28 request belongs to none: the protocol has no sessions.
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_ref()?.id.as_deref()
    }

    /// The client's network address, when the request came over HTTP served by
    /// [`Server::bind_http`](https://docs.rs/roundtrip/latest/roundtrip/transport/http/trait.ServeHttp.html#tymethod.bind_http): behind a proxy listed in
    /// [`HttpOptions::trusted_proxies`](https://docs.rs/roundtrip/latest/roundtrip/transport/http/struct.HttpOptions.html#method.trusted_proxies), the
    /// address it forwarded; behind any other proxy, the proxy's.
    pub fn client_addr(&self) -> Option<std::net::IpAddr> {
        self.client_addr
    }

    /// Who is calling, as per-caller state and the limits per caller key it: `principal:` and
    /// the [identity](AuthPrincipal::identity) of an authenticated caller, else `address:` and
    /// the client's address (an IPv6 address by its /64; behind a trusted proxy, the address
    /// it forwarded), else `local` (the one client of a stdio or in-memory server). Use it to
    /// keep a caller's data in your own store under the same key [`PerCaller`](crate::server::PerCaller)
    /// uses.
    pub fn caller(&self) -> String {
        super::caller_key(self.auth.as_deref(), self.client_addr).unwrap_or_else(|| "local".to_owned())
    }

    /// `tools/call`, `prompts/get` or `resources/read`.
    pub fn method(&self) -> &'static str {
        self.method
    }

    /// The tool or prompt name, or the resource URI.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The arguments (`{}` when the request had none; empty for resources).
    pub fn arguments(&self) -> &JsonObject {
        &self.arguments
    }

    /// One argument, deserialized; a missing or ill-typed one is `-32602` naming it.
    pub fn argument<T: DeserializeOwned>(&self, name: &str) -> Result<T, crate::error::Error> {
        let value = self.arguments.get(name).cloned().unwrap_or(Value::Null);
        serde_json::from_value(value)
            .map_err(|e| crate::error::Error::invalid_params(format!("Invalid argument `{name}`: {e}")))
    }

    /// What a declared item's parameters are read from: the arguments, or for a resource
    /// template, its URI variables (as strings).
    pub fn inputs(&self) -> std::borrow::Cow<'_, JsonObject> {
        if self.uri_variables.is_empty() {
            std::borrow::Cow::Borrowed(&self.arguments)
        } else {
            let vars = self.uri_variables.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
            std::borrow::Cow::Owned(vars)
        }
    }

    /// A variable of the matched resource template.
    pub fn uri_variable(&self, name: &str) -> Option<&str> {
        self.uri_variables.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The raw answers of the previous round, by key (empty on a first leg).
    pub fn input_responses(&self) -> &JsonObject {
        self.input_responses.map()
    }

    /// The raw answer under `key`.
    pub fn input_response(&self, key: &str) -> Option<&Value> {
        self.input_responses.map().get(key)
    }

    /// The answer under `key` where it lies (read into its type without a `Value` of it).
    pub(crate) fn answer(&self, key: &str) -> Option<AnswerRef<'_>> {
        self.input_responses.get(key)
    }

    /// The answer under `key` as an elicitation result, if it is one.
    pub fn elicit_result(&self, key: &str) -> Option<ElicitResult> {
        self.parsed(key)
    }

    /// The answer under `key` as a sampling result, if it is one.
    pub fn sampling_result(&self, key: &str) -> Option<CreateMessageResult> {
        self.parsed(key)
    }

    /// The answer under `key` as a roots listing, if it is one whose roots are all `file://`
    /// URIs (the only roots the specification allows; see [`ListRootsResult::check`]): a
    /// listing with any other root is no answer, and is asked again.
    pub fn roots_result(&self, key: &str) -> Option<ListRootsResult> {
        self.parsed::<ListRootsResult>(key).filter(|result| result.check().is_ok())
    }

    fn parsed<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.input_responses.get(key)?.read()
    }

    /// The verified state of the previous round as the type it was stored with.
    ///
    /// `None` on a first leg, or when the bytes do not decode as `T` (a state written by
    /// another version of the handler).
    pub fn state<T: DeserializeOwned>(&self) -> Option<T> {
        serde_json::from_slice(self.state.as_deref()?).ok()
    }

    /// The verified plaintext state bytes of the previous round.
    pub fn raw_state(&self) -> Option<&[u8]> {
        self.state.as_deref()
    }

    /// Whether the retry carried a (verified) state.
    pub fn has_state(&self) -> bool {
        self.state.is_some()
    }

    /// The capabilities the client declared for this request (or its legacy session).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.meta.client_capabilities
    }

    /// The revision this request speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// The progress token, when the client opted in to progress.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.meta.progress_token.as_ref()
    }

    /// Report progress; a no-op unless the client sent a progress token.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.meta.progress_token else { return };
        let mut params = json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(message) = message {
            params["message"] = json!(message);
        }
        self.peer.notify(Notification::new("notifications/progress", Some(params)));
    }

    /// Send a log notification for this request, if the client asked for this level.
    ///
    /// On 2026-07-28 logs are sent only when the request set a log level in `_meta`; on a
    /// legacy session, at or above the level of `logging/setLevel` (everything before one).
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        let wanted = match self.log {
            LogFilter::Requested(min) => min.is_some_and(|min| level >= min),
            LogFilter::Session(min) => min.is_none_or(|min| level >= min),
        };
        if !wanted {
            return;
        }
        let mut params = json!({ "level": level, "data": data });
        if let Some(logger) = logger {
            params["logger"] = json!(logger);
        }
        self.peer.notify(Notification::new("notifications/message", Some(params)));
    }

    /// The lowest level of log message the client wants for this request ([`log`](Self::log)
    /// drops the others), or `None` when it wants none: what a request relayed for it should
    /// ask for.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        match self.log {
            LogFilter::Requested(min) => min,
            LogFilter::Session(min) => Some(min.unwrap_or(LoggingLevel::Debug)),
        }
    }

    /// Cancelled when the client cancels this request or goes away (for a task: when
    /// `tasks/cancel` arrives).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the client declared the tasks extension on this request.
    pub fn accepts_tasks(&self) -> bool {
        self.version.is_modern() && self.meta.client_capabilities.has_extension(roundtrip_wire::TASKS_EXTENSION)
    }
}
