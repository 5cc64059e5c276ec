//! The three methods that may answer `input_required` (`tools/call`, `prompts/get`,
//! `resources/read`): parameter checks, the requestState boundary, capability gating, and the
//! shape of each outcome on the wire.

use std::sync::Arc;
use std::task::Poll;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Server;
use super::dispatch::{Era, Failure, Routed, serialize_failure, to_json};
use super::handler::{Handler, HandlerResult, Outcome};
use super::intercept::Gate;
use super::peer::Inbound;
use super::result_json::ResultJson;
use crate::protocol::{
    Answers, CallToolResult, CreateTaskResult, ErrorObject, GetPromptResult, InputRequests, InputRequiredResult,
    JsonObject, META_PROGRESS_TOKEN, Method, ProgressToken, ProtocolVersion, ReadResourceResult, RequestMeta,
    ResultType, TASKS_EXTENSION, Taken, TaskSupport, codes,
};
use crate::request::{Answerable, LogFilter, RequestContext, Session};
use crate::seal::{Binding, Flow};

/// A carrier request, parsed. The target, arguments and URI variables are shared with the
/// context of each leg's handler (the state is sealed to them after the handler ran).
pub(crate) struct Carrier {
    pub method: &'static str,
    pub target: Arc<str>,
    pub arguments: Arc<JsonObject>,
    pub uri_variables: Arc<[(String, String)]>,
    pub input_responses: Answers,
    pub request_state: Option<Value>,
    /// The request's own progress token (legacy requests carry it outside any envelope).
    pub progress_token: Option<ProgressToken>,
    /// Each sealed state is accepted once.
    pub single_use: bool,
}

/// A complete result that knows which era-specific fields to carry.
pub(crate) trait CompleteResult: Serialize + Send + 'static {
    fn mark_modern(&mut self, server: &Server);

    /// A tool's result that says `isError`.
    fn is_error(&self) -> bool {
        false
    }

    /// What a handler's refusal ([`Error::new`](crate::error::Error::new)) becomes, if not an error: a tool's is an
    /// `isError` result the model reads.
    fn refusal(_message: &str) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

impl CompleteResult for CallToolResult {
    fn mark_modern(&mut self, _: &Server) {
        self.result_type = Some(ResultType::Complete);
    }

    fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    fn refusal(message: &str) -> Option<Self> {
        Some(Self::error(message))
    }
}

impl Carrier {
    /// A handler's result as the protocol answers it at `version`: a refusal a tool's
    /// `isError` result, any other error the JSON-RPC error for this method and target.
    pub(crate) fn settle<T: CompleteResult>(
        &self,
        result: HandlerResult<T>,
        version: ProtocolVersion,
    ) -> Result<Outcome<T>, ErrorObject> {
        let error = match result {
            Ok(outcome) => return Ok(outcome),
            Err(error) => error,
        };
        let kind = error.kind();
        if kind == crate::error::ErrorKind::Refused
            && let Some(result) = T::refusal(error.message())
        {
            self.log_refusal(version, error.message());
            return Ok(Outcome::Complete(result));
        }
        // An internal error is logged with its cause where it becomes one (`Error::to_rpc`).
        if kind != crate::error::ErrorKind::Internal {
            self.log_refusal(version, error.message());
        }
        Err(error.to_rpc(self.method, &self.target, version))
    }

    /// Say in the log why a call ended without its result (the client is told too, in its
    /// own words); never anything about a `requestState`, whose reasons stay in `roundtrip::seal`.
    /// The target (a resource's URI) and the reason may echo what the caller sent: both are
    /// capped.
    pub(crate) fn log_refusal(&self, version: ProtocolVersion, why: &str) {
        use crate::observe::{MAX_ATTRIBUTE_BYTES, capped};
        tracing::info!(
            target: "roundtrip::server",
            method = self.method,
            target_name = %capped(&self.target, MAX_ATTRIBUTE_BYTES),
            %version,
            "refused: {}",
            capped(why, MAX_ATTRIBUTE_BYTES)
        );
    }
}

impl CompleteResult for GetPromptResult {
    fn mark_modern(&mut self, _: &Server) {
        self.result_type = Some(ResultType::Complete);
    }
}

impl CompleteResult for ReadResourceResult {
    fn mark_modern(&mut self, server: &Server) {
        self.result_type = Some(ResultType::Complete);
        let caching = server.inner.caching;
        self.ttl_ms.get_or_insert(caching.read_ttl_ms);
        self.cache_scope.get_or_insert(caching.read_scope);
    }
}

/// A carrier request matched to its handler, or already answered (a skill's resource).
pub(crate) enum Target {
    Tool(Handler<CallToolResult>, Carrier),
    Prompt(Handler<GetPromptResult>, Carrier),
    Resource(Handler<ReadResourceResult>, Carrier),
    #[cfg(feature = "skills")]
    Answered(Routed),
}

impl Server {
    /// Match a carrier request to its handler: the checks of its parameters, and the
    /// [`Carrier`] each era runs.
    pub(crate) fn target(
        &self,
        catalog: &super::Catalog,
        method: Method,
        params: Option<Value>,
        era: Era<'_>,
        mut taken: Taken,
    ) -> Result<Target, Failure> {
        let mut params = match params {
            None => JsonObject::new(),
            Some(Value::Object(p)) => p,
            Some(_) => return Err(Failure::rejected(ErrorObject::invalid_params("params must be an object"))),
        };
        let name = taken.name.take().or_else(|| params.remove("name"));
        let arguments = taken.arguments.take().or_else(|| params.remove("arguments"));
        let (input_responses, request_state) = input_fields(&mut params, taken)?;
        let params = &params;
        let progress_token = match &era {
            Era::Modern(meta) => meta.progress_token.clone(),
            Era::Legacy(_) => params
                .get("_meta")
                .and_then(|m| m.get(META_PROGRESS_TOKEN))
                .and_then(|t| ProgressToken::deserialize(t).ok()),
        };
        let version = match &era {
            Era::Modern(_) => ProtocolVersion::V2026_07_28,
            Era::Legacy(s) => s.version,
        };
        let carrier = |method, target: Arc<str>, arguments, uri_variables: Vec<(String, String)>| Carrier {
            method,
            target,
            arguments: Arc::new(arguments),
            uri_variables: if uri_variables.is_empty() { no_variables() } else { uri_variables.into() },
            input_responses,
            request_state,
            progress_token,
            single_use: false,
        };
        match method {
            Method::ToolsCall => {
                let name = required_str(name.as_ref(), "name")?;
                let Some((name, &i)) = catalog.tool_index.get_key_value(name) else {
                    return Err(Failure::in_band(ErrorObject::invalid_params(format!("Unknown tool: {name}"))));
                };
                let arguments = match arguments {
                    None | Some(Value::Null) => JsonObject::new(),
                    Some(Value::Object(a)) => a,
                    Some(_) => return Err(ErrorObject::invalid_params("params.arguments must be an object").into()),
                };
                let def = &catalog.tools[i];
                if let Era::Modern(meta) = &era
                    && def.tool.task_support() == TaskSupport::Required
                    && !meta.client_capabilities.has_extension(TASKS_EXTENSION)
                {
                    return Err(Failure::rejected(tasks_required()));
                }
                let handler = def.handler.clone();
                let carrier = Carrier {
                    single_use: def.single_use,
                    ..carrier("tools/call", Arc::clone(name), arguments, Vec::new())
                };
                Ok(Target::Tool(handler, carrier))
            }
            Method::PromptsGet => {
                let name = required_str(name.as_ref(), "name")?;
                let Some((name, &i)) = catalog.prompt_index.get_key_value(name) else {
                    return Err(Failure::in_band(ErrorObject::invalid_params(format!("Unknown prompt: {name}"))));
                };
                let def = &catalog.prompts[i];
                let arguments = match arguments {
                    None | Some(Value::Null) => JsonObject::new(),
                    Some(Value::Object(a)) if a.values().all(Value::is_string) => a,
                    Some(_) => {
                        return Err(ErrorObject::invalid_params("params.arguments must be an object of strings").into());
                    }
                };
                for arg in def.prompt.arguments.iter().flatten() {
                    if arg.required == Some(true) && !arguments.contains_key(&arg.name) {
                        return Err(
                            ErrorObject::invalid_params(format!("Missing required argument: {}", arg.name)).into()
                        );
                    }
                }
                let handler = def.handler.clone();
                Ok(Target::Prompt(handler, carrier("prompts/get", Arc::clone(name), arguments, Vec::new())))
            }
            _ => {
                let uri = required_str(params.get("uri"), "uri")?;
                #[cfg(feature = "skills")]
                if let Some(read) = self.skill_set().and_then(|s| s.read(uri)) {
                    let mut result = read?;
                    if version.is_modern() {
                        result.mark_modern(self);
                        let caching = self.inner.caching;
                        result.ttl_ms = Some(caching.list_ttl_ms);
                        result.cache_scope = Some(caching.list_scope);
                    }
                    return Ok(Target::Answered(Routed::Json(to_json(&result)?)));
                }
                let found = catalog
                    .resources
                    .iter()
                    .find(|d| d.resource.uri == uri)
                    .map(|d| (d.handler.clone(), Vec::new()))
                    .or_else(|| {
                        catalog
                            .templates
                            .iter()
                            .find_map(|d| d.matcher.matches(uri).map(|vars| (d.handler.clone(), vars)))
                    });
                let Some((handler, uri_variables)) = found else {
                    let code =
                        if version.is_modern() { codes::INVALID_PARAMS } else { codes::LEGACY_RESOURCE_NOT_FOUND };
                    return Err(ErrorObject::new(code, "Resource not found").with_data(json!({ "uri": uri })).into());
                };
                let carrier = carrier("resources/read", uri.into(), JsonObject::new(), uri_variables);
                Ok(Target::Resource(handler, carrier))
            }
        }
    }

    /// A 2026-07-28 carrier request, routed to its target, and its leg (see [`leg`](Self::leg))
    /// started: the future returned is the leg's own, boxed.
    ///
    /// Not an `async` block around the leg: that one would hold the target and the inbound
    /// request beside the leg's future, which holds them again (1 040 bytes, over the 1 032
    /// the allocator's per-thread cache serves; the leg's alone is 544).
    pub(crate) fn modern_carrier(
        &self,
        method: Method,
        params: Option<Value>,
        meta: Arc<RequestMeta>,
        inbound: Inbound,
        taken: Taken,
    ) -> Result<BoxFuture<'static, Result<Routed, Failure>>, Failure> {
        let target = self.target(&self.catalog(inbound.auth.as_deref()), method, params, Era::Modern(&meta), taken)?;
        self.within_rate(&target, &inbound)?;
        Ok(match target {
            Target::Tool(handler, carrier) => Box::pin(self.leg(handler, carrier, meta, inbound)),
            Target::Prompt(handler, carrier) => Box::pin(self.leg(handler, carrier, meta, inbound)),
            Target::Resource(handler, carrier) => Box::pin(self.leg(handler, carrier, meta, inbound)),
            #[cfg(feature = "skills")]
            Target::Answered(routed) => Box::pin(std::future::ready(Ok(routed))),
        })
    }

    /// Whether the caller may call this tool now ([`Server::rate_limit`]): one token of its
    /// bucket for the tool, taken; a legacy request is one call however many rounds it runs.
    fn within_rate(&self, target: &Target, inbound: &Inbound) -> Result<(), Failure> {
        let rates = &self.inner.rates;
        let Target::Tool(_, carrier) = target else { return Ok(()) };
        if !rates.any() {
            return Ok(());
        }
        let caller = crate::request::CallerId::new(inbound.auth.as_deref(), inbound.client_addr);
        rates.take(&caller, &carrier.target, crate::clock::now_ms()).map_err(Failure::in_band)
    }

    /// A carrier request on a legacy session, run until it completes (legacy.rs).
    pub(crate) async fn legacy_carrier(
        &self,
        method: Method,
        params: Option<Value>,
        session: &Arc<Session>,
        inbound: &Inbound,
    ) -> Result<Routed, Failure> {
        fn routed<T: CompleteResult>(result: Option<T>) -> Result<Routed, Failure> {
            result.map_or(Ok(Routed::Silent), |r| to_json(&r).map(Routed::Json))
        }
        let catalog = self.catalog(inbound.auth.as_deref());
        let target = self.target(&catalog, method, params, Era::Legacy(session), Taken::default())?;
        self.within_rate(&target, inbound)?;
        match target {
            Target::Tool(handler, carrier) => routed(self.run_legacy(&handler, carrier, session, inbound).await?),
            Target::Prompt(handler, carrier) => routed(self.run_legacy(&handler, carrier, session, inbound).await?),
            Target::Resource(handler, carrier) => routed(self.run_legacy(&handler, carrier, session, inbound).await?),
            #[cfg(feature = "skills")]
            Target::Answered(routed) => Ok(routed),
        }
    }

    /// One leg of a 2026-07-28 carrier request. The state is unsealed and the handler's
    /// context made here; the future returned runs the handler and shapes its outcome for
    /// the wire (sealing the state of the next leg).
    ///
    /// Not an `async fn`, for speed: the future holds only what comes after the handler (an
    /// `async fn` would keep its arguments, and the context, across every wait).
    fn leg<T: CompleteResult>(
        &self,
        handler: Handler<T>,
        mut carrier: Carrier,
        meta: Arc<RequestMeta>,
        inbound: Inbound,
    ) -> impl Future<Output = Result<Routed, Failure>> + Send + use<T> {
        let server = self.clone();
        let started = self.start_leg(handler, &mut carrier, meta, &inbound);
        let cancel = inbound.cancel;
        // What the future holds across its waits is small: the handler's future is boxed, and
        // nothing large is moved inside it (a value moved in an `async` block takes its room
        // twice).
        async move {
            let Started { calling, principal, answerable, answered, flow, gate } = started?;
            let mut calling = std::pin::pin!(async {
                let result = match calling {
                    Calling::Now(calling) => calling.await,
                    Calling::AfterUse(calling) => calling.await?,
                };
                carrier.settle(result, ProtocolVersion::V2026_07_28).map_err(Failure::from)
            });
            // A cancelled request is not run further, and no draw decides it (a seeded
            // simulation replays exactly). For speed, the handler is polled before waiting for
            // the cancellation: a handler that answers at once never registers that wait (a
            // lock and a waiter in the token's list, taken and given back every request).
            let mut cancelled = std::pin::pin!(cancel.cancelled());
            let outcome = std::future::poll_fn(|cx| {
                if cancel.is_cancelled() {
                    return Poll::Ready(None);
                }
                if let Poll::Ready(outcome) = calling.as_mut().poll(cx) {
                    return Poll::Ready(Some(outcome));
                }
                cancelled.as_mut().poll(cx).map(|()| None)
            })
            .await;
            match outcome {
                None => Ok(Routed::Silent),
                Some(outcome) => server.shape(outcome?, &carrier, Leg { principal, answerable, answered, flow, gate }),
            }
        }
    }

    /// What a leg does before its handler runs: the caller as the seal binds it, the state
    /// unsealed, and the handler's context.
    fn start_leg<T: CompleteResult>(
        &self,
        handler: Handler<T>,
        carrier: &mut Carrier,
        meta: Arc<RequestMeta>,
        inbound: &Inbound,
    ) -> Result<Started<T>, Failure> {
        let sealer = &self.inner.sealer;
        // The caller's identity: what the state is bound to, and the owner of the tasks it creates.
        let owner = inbound.identity();
        let (state, flow) = match &carrier.request_state {
            None => (None, None),
            Some(token) => {
                let binding = binding(carrier, owner.as_deref());
                let opened = sealer.open(&binding, token).map_err(Failure::rejected)?;
                // A state of claims format 1 carried no flow: this leg starts one, past round 0.
                (opened.state, Some(opened.flow.unwrap_or(Flow { round: 1, ..Flow::start() })))
            }
        };
        let gate = inbound.gate.clone();
        // Interceptors see the flow from its first leg; otherwise it is minted when a state is sealed.
        let flow = if gate.is_some() { Some(flow.unwrap_or_else(Flow::start)) } else { flow };
        let log = LogFilter::Requested(meta.log_level);
        let answered = carrier.input_responses.len();
        let answers = (std::mem::take(&mut carrier.input_responses), state);
        let principal = owner.clone();
        let mut cx = carrier.context(self, inbound, answers, (meta, owner), ProtocolVersion::V2026_07_28, log);
        let answerable = Answerable::of(&cx.meta.client_capabilities);
        // A single-use state is recorded as used before the handler is called (its closure
        // may do work before its future is first polled), and after the interceptors let the
        // leg through (a refused leg leaves its state unused).
        let single_use = carrier.single_use.then(|| carrier.request_state.clone()).flatten();
        let calling = match (&gate, single_use) {
            (None, None) => Calling::Now(handler.call(cx)),
            (gate, token) => {
                let (server, gate) = (self.clone(), gate.clone());
                Calling::AfterUse(Box::pin(async move {
                    if let Some(gate) = gate {
                        cx.annotations = gate.before(flow).await.map_err(Failure::in_band)?;
                    }
                    if let Some(token) = token {
                        server.use_once(&token).await.map_err(Failure::rejected)?;
                    }
                    Ok(handler.call(cx).await)
                }))
            }
        };
        Ok(Started { calling, principal, answerable, answered, flow, gate })
    }

    /// A leg's outcome as the wire carries it: a complete result, a task, or the input
    /// requests with the next leg's state sealed.
    fn shape<T: CompleteResult>(&self, outcome: Outcome<T>, carrier: &Carrier, leg: Leg) -> Result<Routed, Failure> {
        let Leg { principal, answerable, answered, flow, gate } = leg;
        match outcome {
            Outcome::Complete(mut result) => {
                if result.is_error() {
                    crate::observe::tool_error();
                }
                result.mark_modern(self);
                Ok(Routed::Json(to_json(&result)?))
            }
            Outcome::Task(task) => Ok(Routed::Json(to_json(&CreateTaskResult::new(task))?)),
            Outcome::InputRequired(round) => {
                let (requests, state) = round.into_parts();
                crate::observe::leg(requests.len(), answered, state.as_ref().map_or(0, Vec::len));
                check_capabilities(&requests, answerable).map_err(|e| {
                    carrier.log_refusal(ProtocolVersion::V2026_07_28, &e.message);
                    Failure::rejected(e)
                })?;
                if requests.is_empty() && state.is_none() {
                    return Err(ErrorObject::internal(format!(
                        "{} `{}` answered input_required with neither input requests nor state",
                        carrier.method, carrier.target
                    ))
                    .into());
                }
                // With interceptors, every round carries its flow, also one with no state of its own.
                let request_state = match (state, gate) {
                    (None, None) => None,
                    (state, gate) => {
                        let next = flow.unwrap_or_else(Flow::start).next();
                        let binding = binding(carrier, principal.as_deref());
                        let sealed = self.inner.sealer.seal_leg(&binding, next, state.as_deref())?;
                        if let Some(gate) = gate {
                            gate.asked();
                        }
                        Some(sealed)
                    }
                };
                // The state is written into the text as it is (see `serialize_with_state`).
                let result = InputRequiredResult::new((!requests.is_empty()).then_some(requests), None);
                let json = ResultJson::serialize_with_state(&result, request_state.as_deref());
                Ok(Routed::Json(json.map_err(serialize_failure)?))
            }
        }
    }
}

/// A leg whose handler is ready to run ([`Server::start_leg`]).
struct Started<T> {
    calling: Calling<T>,
    principal: Option<String>,
    answerable: Answerable,
    answered: usize,
    flow: Option<Flow>,
    gate: Option<Arc<Gate>>,
}

/// What shaping a leg's outcome needs to know of the leg ([`Server::shape`]).
struct Leg {
    principal: Option<String>,
    answerable: Answerable,
    answered: usize,
    /// Where the leg stands in its flow (`None`: a first leg nobody watched).
    flow: Option<Flow>,
    gate: Option<Arc<Gate>>,
}

/// The handler's future; first, the interceptors' `before` and, for a single-use state,
/// recording the state as used.
enum Calling<T> {
    Now(BoxFuture<'static, HandlerResult<T>>),
    AfterUse(BoxFuture<'static, Result<HandlerResult<T>, Failure>>),
}

impl Server {
    /// Record a verified state as used; a replay gets the frozen error. A cache that cannot
    /// answer (within [`REPLAY_CACHE_TIMEOUT`]) fails closed, the state is not accepted, but
    /// the caller is told to retry (`503`): the state may well be good. Why the cache failed
    /// goes to the log only.
    async fn use_once(&self, token: &Value) -> Result<(), ErrorObject> {
        let digest = crate::seal::token_digest(token.as_str().unwrap_or_default());
        let expires = self.tasks().now() + self.inner.sealer.acceptable_for_ms();
        let answer = crate::clock::within(REPLAY_CACHE_TIMEOUT, self.replay().first_use(&digest, expires)).await;
        match answer.ok_or(()) {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => {
                tracing::debug!(target: "roundtrip::seal", "requestState rejected: replayed (single use)");
                crate::observe::state_refused("replayed");
                Err(ErrorObject::invalid_request_state())
            }
            Ok(Err(e)) => Err(replay_cache_unavailable(&crate::protocol::error_chain(&*e))),
            Err(_) => Err(replay_cache_unavailable(&format!("no answer within {REPLAY_CACHE_TIMEOUT:?}"))),
        }
    }
}

/// The longest a single-use state waits for the replay cache before the caller is told to
/// retry.
const REPLAY_CACHE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

fn replay_cache_unavailable(why: &str) -> ErrorObject {
    tracing::warn!(target: "roundtrip::seal", "requestState not accepted for now: the replay cache failed: {why}");
    crate::observe::state_refused("replay_cache_unavailable");
    ErrorObject::unavailable("replay_cache", "requestState cannot be checked right now; retry later")
}

impl Carrier {
    /// The context a handler sees for one leg: this request, the answers and verified state
    /// of the leg, and the era's envelope.
    pub(crate) fn context(
        &self,
        server: &Server,
        inbound: &Inbound,
        (input_responses, state): (Answers, Option<Vec<u8>>),
        (meta, owner): (Arc<RequestMeta>, Option<String>),
        version: ProtocolVersion,
        log: LogFilter,
    ) -> RequestContext {
        RequestContext {
            server: server.clone(),
            method: self.method,
            target: Arc::clone(&self.target),
            arguments: Arc::clone(&self.arguments),
            uri_variables: Arc::clone(&self.uri_variables),
            input_responses,
            state,
            meta,
            version,
            log,
            peer: inbound.peer.clone(),
            cancel: inbound.cancel.clone(),
            owner,
            auth: inbound.auth.clone(),
            client_addr: inbound.client_addr,
            http: inbound.http.clone(),
            session: inbound.session.clone(),
            transport: inbound.transport,
            task: None,
            annotations: None,
        }
    }
}

/// The URI variables of what is not a resource template, shared: none.
fn no_variables() -> Arc<[(String, String)]> {
    static NONE: std::sync::LazyLock<Arc<[(String, String)]>> = std::sync::LazyLock::new(|| Arc::from([]));
    NONE.clone()
}

/// `-32021` naming the tasks extension.
pub(crate) fn tasks_required() -> ErrorObject {
    ErrorObject::missing_capability("tasks extension", json!({ "extensions": { TASKS_EXTENSION: {} } }))
}

fn binding<'a>(carrier: &'a Carrier, principal: Option<&'a str>) -> Binding<'a> {
    Binding { method: carrier.method, target: &carrier.target, arguments: &carrier.arguments, principal }
}

/// `inputResponses` (absent or `null`: none; otherwise an object of objects) and
/// `requestState` (absent or `null`: none; otherwise it must be a string, checked when it is
/// unsealed so that every malformed state gets the same answer), from `params` or as the
/// transport took them (answers only when they are an object of objects; its `_meta` is in
/// the era by now).
fn input_fields(params: &mut JsonObject, taken: Taken) -> Result<(Answers, Option<Value>), Failure> {
    let input_responses = match (taken.answers, params.remove("inputResponses")) {
        (Some(answers), _) => answers,
        (None, None | Some(Value::Null)) => Answers::default(),
        (None, Some(Value::Object(map))) => {
            if let Some((key, _)) = map.iter().find(|(_, v)| !v.is_object()) {
                return Err(Failure::rejected(ErrorObject::invalid_params(format!(
                    "inputResponses[\"{key}\"] must be an object (an elicitation, sampling or roots result)"
                ))));
            }
            Answers::from_map(map)
        }
        (None, Some(_)) => {
            return Err(Failure::rejected(ErrorObject::invalid_params("inputResponses must be an object")));
        }
    };
    let request_state = match taken.state.or_else(|| params.remove("requestState")) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    };
    Ok((input_responses, request_state))
}

fn required_str<'a>(value: Option<&'a Value>, key: &str) -> Result<&'a str, Failure> {
    value
        .and_then(Value::as_str)
        .ok_or_else(|| Failure::rejected(ErrorObject::invalid_params(format!("params.{key} must be a string"))))
}

/// `-32021` for the first input request the client did not declare support for.
pub(crate) fn check_capabilities(requests: &InputRequests, caps: Answerable) -> Result<(), ErrorObject> {
    match requests.values().find_map(|request| caps.lacks(request)) {
        Some(lack) => Err(lack.error()),
        None => Ok(()),
    }
}
