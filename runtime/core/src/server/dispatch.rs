//! Routing of one JSON-RPC request: which era it speaks, which method, and how errors map to
//! HTTP statuses.

use std::sync::Arc;

use futures::FutureExt as _;
use futures::future::{BoxFuture, Either};
use serde::Serialize;
use serde_json::{Value, json};

use super::catalog::Kind;
use super::peer::Inbound;
use super::result_json::ResultJson;
use super::{Server, subscriptions};
#[cfg(feature = "otel")]
use crate::protocol::ResponseBody;
use crate::protocol::{
    CompleteParams, CompleteResult, CompletionRef, DiscoverResult, ErrorObject, InitializeParams, InitializeResult,
    JsonObject, ListChangedCapability, LoggingLevel, META_SERVER_INFO, Method, ProtocolVersion, Request, RequestId,
    RequestMeta, ResourcesCapability, Response, ResultType, ServerCapabilities, TASKS_EXTENSION, Taken, TaskIdParams,
    UI_EXTENSION, UpdateTaskParams, codes,
};
use crate::request::Session;
#[cfg(feature = "otel")]
use crate::request::Transport;

/// How long a caller answered `503` because a store did not answer should wait before it
/// retries (`Retry-After`, seconds): long enough that the client's retries (six) span a store
/// restart or a failover of ten seconds or so.
pub const STORE_RETRY_AFTER_SECS: u32 = 2;

/// The answer to one request.
#[derive(Debug)]
pub struct Reply {
    /// The response; `None` when the request was cancelled and nothing may be sent.
    pub response: Option<ReplyMessage>,
    /// How the request ended, for a transport with statuses of its own (HTTP maps each to
    /// one); stdio has none and writes the response alone.
    pub settled: Settled,
    /// A legacy session the request created (`initialize`).
    pub session: Option<Arc<Session>>,
}

/// How a request ended, apart from its JSON-RPC response: what a transport with statuses of
/// its own says beside it (streamable HTTP: 200, 400, 404, 503 with `Retry-After`, 500).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Settled {
    /// Answered: a result, or an error of the processing in the response.
    Answered,
    /// The request itself was refused before any handler ran (bad params, a header that
    /// contradicts the body, a capability or version the request lacks).
    Rejected,
    /// The method is not one this server answers.
    UnknownMethod,
    /// A store the request needs did not answer: nothing was carried out, and the caller may
    /// retry after [`STORE_RETRY_AFTER_SECS`].
    Unavailable,
    /// The handler panicked.
    Crashed,
}

/// A response ready to write: a message, or a result the handler serialized once (straight
/// from its typed form, with no `Value` tree in between).
#[derive(Debug)]
pub enum ReplyMessage {
    /// A response message.
    Response(Response),
    /// A successful result, already serialized.
    Result {
        /// The request answered.
        id: RequestId,
        /// The `result` member.
        json: ResultJson,
    },
}

impl Reply {
    /// The answer to request `id` when its handler panicked: an internal error, HTTP 500.
    pub(crate) fn crashed(id: RequestId) -> Self {
        Self {
            response: Some(ReplyMessage::Response(Response::error(
                Some(id),
                ErrorObject::internal("the request handler panicked"),
            ))),
            settled: Settled::Crashed,
            session: None,
        }
    }
}

impl ReplyMessage {
    /// As a [`Response`] (a serialized result is parsed back; for tests and inspection).
    pub fn into_response(self) -> Response {
        match self {
            Self::Response(r) => r,
            Self::Result { id, json } => Response::result(id, serde_json::from_str(json.get()).unwrap_or(Value::Null)),
        }
    }
}

impl Serialize for ReplyMessage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match self {
            Self::Response(r) => r.serialize(s),
            Self::Result { id, json } => {
                let mut st = s.serialize_struct("Response", 3)?;
                st.serialize_field("jsonrpc", "2.0")?;
                st.serialize_field("id", id)?;
                st.serialize_field("result", json)?;
                st.end()
            }
        }
    }
}

/// A failed request: the JSON-RPC error, and whether it is a rejection of the request itself
/// or an in-band error of its processing.
#[derive(Debug)]
pub(crate) struct Failure {
    pub error: ErrorObject,
    pub rejected: bool,
}

impl Failure {
    /// The request itself is unacceptable.
    pub fn rejected(error: ErrorObject) -> Self {
        Self { error, rejected: true }
    }

    /// Processing failed: the error is the answer.
    pub fn in_band(error: ErrorObject) -> Self {
        Self { error, rejected: false }
    }

    fn settled(&self) -> Settled {
        if self.error.is_unavailable() {
            // A store did not answer: nothing was carried out, and the caller may retry.
            return Settled::Unavailable;
        }
        match (self.rejected, self.error.code) {
            (_, codes::METHOD_NOT_FOUND) => Settled::UnknownMethod,
            (
                _,
                codes::HEADER_MISMATCH
                | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
                | codes::UNSUPPORTED_PROTOCOL_VERSION,
            )
            | (true, _) => Settled::Rejected,
            (false, _) => Settled::Answered,
        }
    }
}

impl From<ErrorObject> for Failure {
    fn from(error: ErrorObject) -> Self {
        Self::in_band(error)
    }
}

pub(crate) enum Routed {
    Value(Value),
    /// A result serialized once, from its typed form.
    Json(ResultJson),
    NewSession(Value, Arc<Session>),
    /// Cancelled: send nothing.
    Silent,
}

/// The era of one request.
pub(crate) enum Era<'a> {
    Modern(&'a RequestMeta),
    Legacy(&'a Arc<Session>),
}

/// Where [`Server::route`] sends a request: answered already, or to a future of its own.
enum Route {
    Now(Routed),
    Later(BoxFuture<'static, Result<Routed, Failure>>),
}

/// The reply to request `id`, by how it was routed.
fn reply(id: RequestId, routed: Result<Routed, Failure>) -> Reply {
    match routed {
        Ok(Routed::Value(v)) => Reply {
            response: Some(ReplyMessage::Response(Response::result(id, v))),
            settled: Settled::Answered,
            session: None,
        },
        Ok(Routed::Json(json)) => {
            Reply { response: Some(ReplyMessage::Result { id, json }), settled: Settled::Answered, session: None }
        }
        Ok(Routed::NewSession(v, s)) => Reply {
            response: Some(ReplyMessage::Response(Response::result(id, v))),
            settled: Settled::Answered,
            session: Some(s),
        },
        Ok(Routed::Silent) => Reply { response: None, settled: Settled::Answered, session: None },
        Err(failure) => {
            let settled = failure.settled();
            let response = ReplyMessage::Response(Response::error(Some(id), failure.error));
            Reply { response: Some(response), settled, session: None }
        }
    }
}

impl Server {
    /// Answer one request.
    ///
    /// The era comes from the request: a `_meta` protocol version claim (or a transport that
    /// knows, see [`Inbound::modern_hint`]) makes it a 2026-07-28 request; otherwise it belongs
    /// to the legacy session in `inbound`, or starts one with `initialize`.
    ///
    /// With telemetry on (feature `otel`, [`roundtrip::otel::init`](https://docs.rs/roundtrip/latest/roundtrip/otel/fn.init.html)) the request is a `SERVER`
    /// span, and its duration is recorded.
    ///
    /// Not an `async fn`, for speed: each `async fn` between a request and its handler is one
    /// more level of future, copied whole into its caller's when it starts, and keeps its
    /// arguments twice. So the request is routed when `handle` is called (its state unsealed,
    /// its handler called for its future, except with telemetry on), and the future returned
    /// holds only what waits. A transport that catches a handler's panics catches them around
    /// this call as well as around the future (roundtrip's own transports do).
    ///
    /// Hidden: the entry point of roundtrip's transports (`ServeHttp`, `ServeStream`,
    /// `serve_connection`), which an application serves through.
    #[doc(hidden)]
    pub fn handle(&self, request: Request, inbound: Inbound) -> impl Future<Output = Reply> + Send + '_ {
        self.handle_owned(request, inbound)
    }

    /// [`handle_owned`](Self::handle_owned), with a panic of the handler caught, whether it
    /// came as the handler was called or as it ran, and answered (see [`Reply::crashed`]).
    #[doc(hidden)]
    pub fn handle_caught(&self, request: Request, inbound: Inbound) -> impl Future<Output = Reply> + Send + use<> {
        use std::panic::AssertUnwindSafe;
        let id = request.id.clone();
        let handling = match std::panic::catch_unwind(AssertUnwindSafe(|| self.handle_owned(request, inbound))) {
            Ok(handle) => Either::Left(AssertUnwindSafe(handle).catch_unwind()),
            Err(panic) => Either::Right(std::future::ready(Err(panic))),
        };
        handling.map(move |reply| reply.unwrap_or_else(|_| Reply::crashed(id)))
    }

    /// [`handle`](Self::handle), as a future that owns what it needs (the server included).
    pub(crate) fn handle_owned(
        &self,
        request: Request,
        inbound: Inbound,
    ) -> impl Future<Output = Reply> + Send + use<> {
        self.attach_bus();
        // Telemetry off, nothing is looked at (the target's name is looked up for its span).
        #[cfg(feature = "otel")]
        if crate::observe::instruments().is_some()
            && let Some(span) = crate::observe::RequestSpan::start(&request, self.arrival(&request, &inbound))
        {
            // Boxed: the traced future is larger, and would otherwise size every request's.
            // The route is chosen at the first poll, inside the span: choosing it does work
            // (unsealing the state) that notes on the span.
            let server = self.clone();
            let untraced = async move { server.handle_untraced(request, inbound).await };
            let traced: BoxFuture<'static, Reply> = Box::pin(span.run(untraced, Reply::error));
            return Either::Left(traced);
        }
        Either::<BoxFuture<'static, Reply>, _>::Right(self.handle_untraced(request, inbound))
    }

    /// [`handle`](Self::handle), without telemetry: past the interceptors, when the server
    /// has any (boxed: the path without them stays as small as it was).
    fn handle_untraced(&self, request: Request, mut inbound: Inbound) -> impl Future<Output = Reply> + Send + use<> {
        let Some(gate) = self.gate(&request, &inbound) else {
            return Either::Left(self.route(request, inbound));
        };
        inbound.gate = Some(Arc::clone(&gate));
        let server = self.clone();
        let intercepted: BoxFuture<'static, Reply> = Box::pin(async move {
            // A leg of a flow passes the interceptors once its state is verified (carrier.rs,
            // legacy.rs): then they know its flow.
            let leg = matches!(
                Method::parse(&request.method),
                Some(Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead)
            );
            let refused = if leg { None } else { gate.before(None).await.err() };
            let reply = match refused {
                Some(refused) => reply(request.id, Err(Failure::in_band(refused))),
                None => {
                    // A handler that panics is answered as the transports answer it, and the
                    // interceptors see that answer.
                    let id = request.id.clone();
                    let routing = std::panic::AssertUnwindSafe(async { server.route(request, inbound).await });
                    routing.catch_unwind().await.unwrap_or_else(|_| Reply::crashed(id))
                }
            };
            gate.after(&reply);
            reply
        });
        Either::Right(intercepted)
    }

    /// Route one request: the era and the route are chosen here, before the future is made,
    /// and the future returned is the route's (see [`handle`](Self::handle)). `inbound.taken`
    /// is what the transport took out of `params`, typed (a `_meta` taken claims 2026-07-28).
    fn route(&self, request: Request, mut inbound: Inbound) -> impl Future<Output = Reply> + Send + use<> {
        let id = request.id.clone();
        let taken = std::mem::take(&mut inbound.taken);
        let claims_modern = RequestMeta::claims_version(request.params.as_ref(), taken.meta.as_deref());
        let legacy = !claims_modern && !inbound.modern_hint;
        // The method, parsed once: every route below matches the variant.
        let method = Method::parse(&request.method);
        let route = match (&inbound.session, method) {
            (_, Some(Method::Initialize)) if legacy => {
                self.initialize(request.params.as_ref(), &inbound).map(Route::Now)
            }
            (Some(session), _) if legacy => {
                let session = Arc::clone(session);
                Ok(Route::Later(self.legacy_later(method, request, session, inbound)))
            }
            _ => self.route_modern(method, request, inbound, taken),
        };
        let routing = match route {
            Ok(Route::Now(routed)) => Either::Left(std::future::ready(Ok(routed))),
            Err(failure) => Either::Left(std::future::ready(Err(failure))),
            Ok(Route::Later(later)) => Either::Right(later),
        };
        // `map`, not an `async` block: awaiting the route inside one would keep its room twice.
        routing.map(move |routed| reply(id, routed))
    }

    /// A request on a legacy session, boxed. Its own function, never inlined, for the reason
    /// [`route_modern_other`](Self::route_modern_other) gives.
    #[inline(never)]
    fn legacy_later(
        &self,
        method: Option<Method>,
        mut request: Request,
        session: Arc<Session>,
        inbound: Inbound,
    ) -> BoxFuture<'static, Result<Routed, Failure>> {
        let server = self.clone();
        Box::pin(async move { server.route_legacy(method, &mut request, &session, &inbound).await })
    }

    /// A 2026-07-28 request (or one outside any session), routed by its method.
    ///
    /// Every route that waits is boxed, a carrier's leg too: the future each layer above
    /// returns (and so moves) is then 80 bytes, not the leg's 1 048. Against the leg held
    /// unboxed in an `Either`, a request runs 0.4 k fewer instructions (67.5 k against 67.9 k)
    /// and misses the first-level data cache on 60 fewer writes (448 against 508), under
    /// `scripts/callgrind-flow.sh` with the cache simulated: the allocation costs less than
    /// the copies it saves.
    fn route_modern(
        &self,
        method: Option<Method>,
        mut request: Request,
        inbound: Inbound,
        mut taken: Taken,
    ) -> Result<Route, Failure> {
        let Some(method) = method.filter(|m| m.is_served_modern()) else {
            return Err(Failure::rejected(ErrorObject::method_not_found(&request.method)));
        };
        self.check_offered(method)?;
        let meta = match taken.meta.take() {
            Some(meta) => meta,
            None => Arc::new(RequestMeta::parse_modern(request.params.as_ref()).map_err(Failure::rejected)?),
        };
        match method {
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead => {
                let params = request.params.take();
                Ok(Route::Later(self.modern_carrier(method, params, meta, inbound, taken)?))
            }
            _ => self.route_modern_other(method, request, inbound, meta),
        }
    }

    /// A 2026-07-28 request that is not a carrier's. Its own function, never inlined: the
    /// futures its methods box are made in its frame, and a carrier's leg (most requests)
    /// then runs on a frame that does not keep room for them.
    #[inline(never)]
    fn route_modern_other(
        &self,
        method: Method,
        request: Request,
        inbound: Inbound,
        meta: Arc<RequestMeta>,
    ) -> Result<Route, Failure> {
        let params = request.params.as_ref();
        let v = ProtocolVersion::V2026_07_28;
        let value = match method {
            Method::ServerDiscover => to_value(self.discover())?,
            Method::ToolsList | Method::PromptsList | Method::ResourcesList | Method::ResourcesTemplatesList => {
                let catalog = self.catalog(inbound.auth.as_deref());
                if method == Method::ToolsList
                    && let Some(scoped) = self.tools_in_scope(&catalog, &inbound, v, &meta.client_capabilities)?
                {
                    return Ok(Route::Now(Routed::Json(scoped)));
                }
                return Ok(Route::Now(Routed::Json(self.list(&catalog, method, v, &meta.client_capabilities)?)));
            }
            Method::CompletionComplete => {
                let server = self.clone();
                return Ok(Route::Later(Box::pin(async move {
                    Ok(Routed::Value(to_value(server.complete(request.params.as_ref(), v).await?)?))
                })));
            }
            Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead => {
                return Ok(Route::Now(Routed::Json(self.skills_method(method, params, v)?)));
            }
            Method::SubscriptionsListen => {
                let server = self.clone();
                return Ok(Route::Later(Box::pin(async move {
                    subscriptions::listen(&server, &request.id, request.params.as_ref(), &meta, &inbound).await
                })));
            }
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => {
                let server = self.clone();
                return Ok(Route::Later(Box::pin(async move {
                    let params = request.params.as_ref();
                    Ok(Routed::Value(to_value(server.task_method(method, params, &meta, &inbound).await?)?))
                })));
            }
            // `is_served_modern` let only the methods above and the carriers through.
            _ => return Err(Failure::rejected(ErrorObject::method_not_found(method.as_str()))),
        };
        Ok(Route::Now(Routed::Value(value)))
    }

    async fn route_legacy(
        &self,
        method: Option<Method>,
        request: &mut Request,
        session: &Arc<Session>,
        inbound: &Inbound,
    ) -> Result<Routed, Failure> {
        let Some(method) = method else {
            return Err(Failure::rejected(ErrorObject::method_not_found(&request.method)));
        };
        let params = request.params.as_ref();
        let v = session.version;
        let value = match method {
            Method::Ping => json!({}),
            Method::LoggingSetLevel => {
                let level: LoggingLevel = params
                    .and_then(|p| p.get("level"))
                    .and_then(|l| serde_json::from_value(l.clone()).ok())
                    .ok_or_else(|| ErrorObject::invalid_params("params.level must be a log level"))?;
                if let Ok(mut g) = session.log_level.lock() {
                    *g = Some(level);
                }
                json!({})
            }
            Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => {
                self.check_offered(Method::ResourcesRead)?;
                let uri = params
                    .and_then(|p| p.get("uri"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| ErrorObject::invalid_params("params.uri must be a string"))?;
                if let Ok(mut subs) = session.subscriptions.lock() {
                    if method == Method::ResourcesSubscribe {
                        subs.insert(uri.to_owned());
                    } else {
                        subs.remove(uri);
                    }
                }
                json!({})
            }
            Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::ResourcesTemplatesList
            | Method::CompletionComplete => {
                self.check_offered(method)?;
                let catalog = self.catalog(inbound.auth.as_deref());
                if method == Method::ToolsList
                    && let Some(scoped) = self.tools_in_scope(&catalog, inbound, v, &session.client_capabilities)?
                {
                    return Ok(Routed::Json(scoped));
                }
                match method {
                    Method::CompletionComplete => to_value(self.complete(params, v).await?)?,
                    _ => return Ok(Routed::Json(self.list(&catalog, method, v, &session.client_capabilities)?)),
                }
            }
            Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead => {
                self.check_offered(method)?;
                return Ok(Routed::Json(self.skills_method(method, params, v)?));
            }
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead => {
                self.check_offered(method)?;
                let params = request.params.take();
                return self.legacy_carrier(method, params, session, inbound).await;
            }
            _ => return Err(Failure::rejected(ErrorObject::method_not_found(method.as_str()))),
        };
        Ok(Routed::Value(value))
    }

    fn initialize(&self, params: Option<&Value>, inbound: &Inbound) -> Result<Routed, Failure> {
        let params: InitializeParams =
            params.cloned().and_then(|p| serde_json::from_value(p).ok()).ok_or_else(|| {
                Failure::rejected(ErrorObject::invalid_params(
                    "initialize needs protocolVersion, capabilities and clientInfo",
                ))
            })?;
        let version = ProtocolVersion::parse(&params.protocol_version)
            .filter(|v| !v.is_modern())
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let session_id = inbound.session.as_ref().and_then(|s| s.id.clone());
        let session = Arc::new(Session::new(session_id, version, params.capabilities, params.client_info));
        let mut result = InitializeResult::new(version.as_str(), self.capabilities(version), self.inner.info.clone());
        result.instructions = self.inner.instructions.clone();
        Ok(Routed::NewSession(to_value(result)?, session))
    }

    /// `-32601` for a method whose capability this server does not offer.
    fn check_offered(&self, method: Method) -> Result<(), Failure> {
        let offered = match method {
            Method::ToolsList | Method::ToolsCall => self.offers_tools(),
            Method::PromptsList | Method::PromptsGet => self.offers_prompts(),
            Method::ResourcesList | Method::ResourcesTemplatesList | Method::ResourcesRead => self.offers_resources(),
            Method::CompletionComplete => self.offers_completions(),
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => self.offers_tasks(),
            Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead => self.skill_count() > 0,
            _ => true,
        };
        if offered {
            Ok(())
        } else {
            let what = method.as_str().split('/').next().unwrap_or_default();
            Err(Failure::rejected(
                ErrorObject::new(codes::METHOD_NOT_FOUND, format!("Method not found: {method}"))
                    .with_data(json!({ "reason": format!("this server offers no {what}") })),
            ))
        }
    }

    #[doc(hidden)]
    pub fn offers_tools(&self) -> bool {
        !self.shared().tools.is_empty() || self.inner.catalog.has_tenants() || self.inner.catalog.holds(Kind::Tool)
    }

    #[doc(hidden)]
    pub fn offers_prompts(&self) -> bool {
        !self.shared().prompts.is_empty() || self.inner.catalog.holds(Kind::Prompt)
    }

    #[doc(hidden)]
    pub fn offers_resources(&self) -> bool {
        let catalog = self.shared();
        !catalog.resources.is_empty()
            || !catalog.templates.is_empty()
            || self.skill_count() > 0
            || self.inner.catalog.holds(Kind::Resource)
    }

    /// Whether something completes arguments: a prompt's or template's completer, or the
    /// server's own.
    fn offers_completions(&self) -> bool {
        !self.withholds(super::Capability::Completions)
            && (self.shared().prompts.iter().any(|p| p.completer.is_some())
                || self.shared().templates.iter().any(|t| t.completer.is_some())
                || self.inner.completer.is_some())
    }

    /// The capabilities this server declares at `version`.
    pub fn capabilities(&self, version: ProtocolVersion) -> ServerCapabilities {
        let changes = (!self.withholds(super::Capability::ListChanged)).then_some(true);
        let mut list_changed = ListChangedCapability::default();
        list_changed.list_changed = changes;
        let mut resources = ResourcesCapability::default();
        resources.subscribe =
            (!version.is_modern() && !self.withholds(super::Capability::ResourceSubscriptions)).then_some(true);
        resources.list_changed = changes;
        let mut capabilities = ServerCapabilities::default();
        capabilities.tools = self.offers_tools().then(|| list_changed.clone());
        capabilities.prompts = self.offers_prompts().then_some(list_changed);
        capabilities.resources = self.offers_resources().then_some(resources);
        capabilities.completions = self.offers_completions().then(JsonObject::new);
        capabilities.logging = (self.may_log() && !self.withholds(super::Capability::Logging)).then(JsonObject::new);
        capabilities.extensions = self.extensions(version);
        capabilities
    }

    /// The extensions this server declares at `version`: the tasks extension (2026-07-28
    /// only: a legacy session runs task tools synchronously) when a tool may run as a task,
    /// MCP Apps (`io.modelcontextprotocol/ui`, both eras: its hosts declare it at
    /// `initialize` too) when the server has a view, and skills (every era: a 2025 client
    /// finds it in `initialize`) when it serves some.
    fn extensions(&self, version: ProtocolVersion) -> Option<JsonObject> {
        let mut extensions = JsonObject::new();
        if version.is_modern() && self.offers_tasks() {
            extensions.insert(TASKS_EXTENSION.into(), json!({}));
        }
        if self.offers_apps() {
            extensions.insert(UI_EXTENSION.into(), json!({}));
        }
        if self.skill_count() > 0 {
            extensions.insert(roundtrip_wire::SKILLS_EXTENSION.into(), json!({ "directoryRead": true }));
        }
        (!extensions.is_empty()).then_some(extensions)
    }

    /// `skills/list`, `skills/get` and `resources/directory/read`.
    fn skills_method(
        &self,
        method: Method,
        params: Option<&Value>,
        version: ProtocolVersion,
    ) -> Result<ResultJson, Failure> {
        #[cfg(feature = "skills")]
        if let Some(skills) = self.skill_set() {
            let hints = crate::skills::Hints {
                modern: version.is_modern(),
                ttl_ms: self.inner.caching.list_ttl_ms,
                cache_scope: self.inner.caching.list_scope,
            };
            let answer = match method {
                Method::SkillsList => skills.list(params, hints),
                Method::SkillsGet => skills.get(params, hints),
                _ => skills.read_directory(params, hints),
            };
            return answer.map(|raw| ResultJson::from(&*raw)).map_err(Failure::in_band);
        }
        let _ = (params, version);
        Err(Failure::rejected(ErrorObject::method_not_found(method.as_str())))
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel`, for a client that declared the
    /// extension, on the caller's own tasks.
    async fn task_method(
        &self,
        method: Method,
        params: Option<&Value>,
        meta: &RequestMeta,
        inbound: &Inbound,
    ) -> Result<Value, Failure> {
        if !meta.client_capabilities.has_extension(TASKS_EXTENSION) {
            return Err(Failure::rejected(super::carrier::tasks_required()));
        }
        let owner = self.owner(inbound);
        let tasks = self.tasks();
        if method == Method::TasksUpdate {
            let update: UpdateTaskParams =
                params.cloned().and_then(|p| serde_json::from_value(p).ok()).ok_or_else(|| {
                    Failure::rejected(ErrorObject::invalid_params(
                        "tasks/update needs taskId (a string) and inputResponses (an object)",
                    ))
                })?;
            if let Some((key, _)) = update.input_responses.iter().find(|(_, v)| !v.is_object()) {
                return Err(Failure::rejected(ErrorObject::invalid_params(format!(
                    "inputResponses[\"{key}\"] must be an object (an elicitation, sampling or roots result)"
                ))));
            }
            tasks.update(&update.task_id, owner.as_deref(), &update.input_responses).await?;
            return Ok(json!({ "resultType": "complete" }));
        }
        let TaskIdParams { task_id, .. } =
            params.cloned().and_then(|p| serde_json::from_value(p).ok()).ok_or_else(|| {
                Failure::rejected(ErrorObject::invalid_params(format!("{method} needs taskId (a string)")))
            })?;
        if method == Method::TasksCancel {
            tasks.cancel(&task_id, owner.as_deref()).await?;
            return Ok(json!({ "resultType": "complete" }));
        }
        to_value(tasks.get(&task_id, owner.as_deref()).await?.get_result())
    }

    fn discover(&self) -> DiscoverResult {
        let mut meta = JsonObject::new();
        meta.insert(META_SERVER_INFO.into(), json!(self.inner.info));
        let mut result = DiscoverResult::new(
            ProtocolVersion::MODERN.iter().map(|v| v.as_str().to_owned()).collect(),
            self.capabilities(ProtocolVersion::LATEST),
            self.inner.caching.list_ttl_ms,
            self.inner.caching.list_scope,
        );
        result.instructions = self.inner.instructions.clone();
        result.meta = meta;
        result
    }

    async fn complete(&self, params: Option<&Value>, version: ProtocolVersion) -> Result<CompleteResult, Failure> {
        let params: CompleteParams = params
            .cloned()
            .and_then(|p| serde_json::from_value(p).ok())
            .ok_or_else(|| ErrorObject::invalid_params("completion/complete needs ref and argument"))?;
        let catalog = self.shared();
        let own = match &params.reference {
            CompletionRef::Prompt { name } => catalog.prompt(name).and_then(|p| p.completer.clone()),
            CompletionRef::Resource { uri } => {
                catalog.templates.iter().find(|t| t.template.uri_template == *uri).and_then(|t| t.completer.clone())
            }
            _ => None,
        };
        let mut completion = match own {
            Some(completer) => completer.complete(params).await.map_err(Failure::in_band)?,
            None => self.inner.completer.as_ref().map(|c| c(&params)).unwrap_or_default(),
        };
        completion.values.truncate(100);
        if completion.total.is_none() {
            completion.total = Some(completion.values.len() as u64);
        }
        if completion.has_more.is_none() {
            completion.has_more = Some(false);
        }
        let mut result = CompleteResult::new(completion);
        result.result_type = version.is_modern().then_some(ResultType::Complete);
        Ok(result)
    }
}

/// Serialize a result once, for the wire.
pub(crate) fn to_json<T: Serialize>(value: &T) -> Result<ResultJson, Failure> {
    ResultJson::serialize(value).map_err(serialize_failure)
}

/// A result that could not be serialized.
pub(crate) fn serialize_failure(e: serde_json::Error) -> Failure {
    Failure::in_band(ErrorObject::internal(format!("could not serialize the result: {e}")))
}

pub(crate) fn to_value<T: Serialize>(value: T) -> Result<Value, Failure> {
    serde_json::to_value(value)
        .map_err(|e| Failure::in_band(ErrorObject::internal(format!("could not serialize the result: {e}"))))
}

#[cfg(feature = "otel")]
impl Server {
    /// What a request's span says of how it arrived, and whether its target is declared.
    fn arrival<'a>(&self, request: &Request, inbound: &'a Inbound) -> crate::observe::Arrival<'a> {
        let name = || inbound.taken.param(request.params.as_ref(), "name").and_then(Value::as_str);
        let declared = match request.method.as_str() {
            "tools/call" => name().is_some_and(|n| self.shared().tool(n).is_some()),
            "prompts/get" => name().is_some_and(|n| self.shared().prompt(n).is_some()),
            _ => false,
        };
        arrival(inbound, declared)
    }
}

/// What a request's span says of how it arrived.
#[cfg(feature = "otel")]
fn arrival(inbound: &Inbound, declared: bool) -> crate::observe::Arrival<'_> {
    crate::observe::Arrival {
        network_transport: match inbound.transport {
            Transport::Http => "tcp",
            Transport::Stdio => "pipe",
            _ => "inproc",
        },
        http: inbound.http.as_deref(),
        session: inbound.session.as_ref().map(|s| (s.id.as_deref(), s.version.as_str())),
        client_addr: inbound.client_addr,
        taken: &inbound.taken,
        declared,
        authenticated: inbound.auth.is_some(),
    }
}

#[cfg(feature = "otel")]
impl Reply {
    /// The JSON-RPC error the reply carries, as its code and message.
    fn error(&self) -> Option<(i64, String)> {
        match self.response.as_ref()? {
            ReplyMessage::Response(r) => match &r.body {
                ResponseBody::Error(e) => Some((e.code, e.message.clone())),
                ResponseBody::Result(_) => None,
            },
            _ => None,
        }
    }
}
