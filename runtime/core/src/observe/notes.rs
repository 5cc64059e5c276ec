//! With the `otel` feature: the `SERVER` span and duration of every request handled (the
//! server says what it knows of the request's arrival), what the layers note on it (a leg's
//! questions and state, a refused state, a task) and in the metrics, and the span of a task's
//! body.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use web_time::Instant;

use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;

use super::instruments::instruments;
use super::names::*;
use crate::protocol::{META_PROTOCOL_VERSION, ProtocolVersion, Request, RequestId, Taken};

/// What a request's handling learns beyond its reply, read when the span ends.
#[derive(Debug, Default)]
struct Op {
    /// A tool answered with `isError: true`.
    tool_error: AtomicBool,
}

fn request_id(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => capped(s, MAX_ATTRIBUTE_BYTES),
    }
}

/// What the server knows of a request's arrival besides its body, for its span.
#[derive(Debug, Clone, Copy)]
pub struct Arrival<'a> {
    /// `network.transport` by the conventions: `tcp` under HTTP, `pipe` for stdio, `inproc`
    /// in memory.
    pub network_transport: &'static str,
    /// The HTTP request head, over HTTP.
    pub http: Option<&'a http::request::Parts>,
    /// The legacy session's id (if the transport gave it one) and revision.
    pub session: Option<(Option<&'a str>, &'a str)>,
    /// The client's network address, when known.
    pub client_addr: Option<std::net::IpAddr>,
    /// What the transport took out of the request's `params` (its `_meta` read typed, its
    /// `name`…), then not in them.
    pub taken: &'a Taken,
    /// Whether the request's target (the tool of a `tools/call`, the prompt of a
    /// `prompts/get`) is one the server declared: only then is its name a label and part of
    /// the span's name; otherwise they say [`OTHER`].
    pub declared: bool,
    /// Whether the caller is authenticated (an `AuthPrincipal` is present): a remote parent's
    /// sampled flag is followed only as [`RemoteCaller`] and the sampler say.
    pub authenticated: bool,
}

/// Who sent a request's remote parent, in the parent's context: what a sampler needs to
/// decide whether that parent's sampled flag is to be followed
/// (`otel::RemoteParentSampler` reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteCaller {
    /// An `AuthPrincipal` came with the request.
    pub authenticated: bool,
}

/// The `SERVER` span of one request being handled, and what its duration is recorded with.
pub struct RequestSpan {
    cx: Context,
    common: Vec<KeyValue>,
    started: Instant,
}

/// A protocol version a caller claimed, as a label: a version MCP defines, else [`OTHER`].
fn version_label(claimed: &str) -> &'static str {
    ProtocolVersion::parse(claimed).map_or(OTHER, ProtocolVersion::as_str)
}

impl std::fmt::Debug for RequestSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestSpan").field("started", &self.started).finish_non_exhaustive()
    }
}

impl RequestSpan {
    /// The span of `request`, started now; `None` while telemetry is off.
    ///
    /// Every label and the span's name come from what the server declared and what the
    /// protocol defines (any other method, target or version is [`OTHER`]), and every string
    /// attribute is cut to [`MAX_ATTRIBUTE_BYTES`]: what a caller sends cannot grow the
    /// series, the spans or the memory they take.
    pub fn start(request: &Request, arrival: Arrival<'_>) -> Option<Self> {
        let ins = instruments()?;
        let started = Instant::now();
        let params = request.params.as_ref();
        let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
        let method = method_label(request.method.as_str());
        let string = |key: &str| arrival.taken.param(params, key).and_then(Value::as_str);
        let target = |name: &str| if arrival.declared { capped(name, MAX_NAME_BYTES) } else { OTHER.to_owned() };
        // Low-cardinality attributes: on the span and on the metric.
        let mut common = vec![KeyValue::new(MCP_METHOD_NAME, method)];
        let target = match method {
            "tools/call" => string("name").map(target).inspect(|name| {
                common.push(KeyValue::new(GEN_AI_TOOL_NAME, name.clone()));
                common.push(KeyValue::new(GEN_AI_OPERATION_NAME, "execute_tool"));
            }),
            "prompts/get" => {
                string("name").map(target).inspect(|name| common.push(KeyValue::new(GEN_AI_PROMPT_NAME, name.clone())))
            }
            _ => None,
        };
        let version = meta
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(version_label)
            .or_else(|| arrival.taken.meta.as_deref().and_then(|m| m.protocol_version).map(ProtocolVersion::as_str))
            .or_else(|| arrival.session.map(|(_, version)| version_label(version)))
            .or_else(|| (method == "initialize").then(|| string("protocolVersion").map(version_label)).flatten());
        if let Some(version) = version {
            common.push(KeyValue::new(MCP_PROTOCOL_VERSION, version));
        }
        common.push(KeyValue::new(NETWORK_TRANSPORT, arrival.network_transport));
        if arrival.http.is_some() {
            common.push(KeyValue::new(NETWORK_PROTOCOL_NAME, "http"));
        }
        // The span's own.
        let mut attributes = common.clone();
        attributes.push(KeyValue::new(JSONRPC_REQUEST_ID, request_id(&request.id)));
        if let Some(uri) = method.starts_with("resources/").then(|| string("uri")).flatten() {
            attributes.push(KeyValue::new(MCP_RESOURCE_URI, capped(uri, MAX_ATTRIBUTE_BYTES)));
        }
        if let Some((Some(id), _)) = arrival.session {
            attributes.push(KeyValue::new(MCP_SESSION_ID, capped(id, MAX_ATTRIBUTE_BYTES)));
        }
        if let Some(http) = arrival.http {
            let version = match http.version {
                http::Version::HTTP_2 => "2",
                http::Version::HTTP_10 => "1.0",
                _ => "1.1",
            };
            attributes.push(KeyValue::new(NETWORK_PROTOCOL_VERSION, version));
        }
        if let Some(addr) = arrival.client_addr {
            attributes.push(KeyValue::new(CLIENT_ADDRESS, addr.to_string()));
        }
        // A remote parent carries who sent it, for the sampler to decide whether its sampled
        // flag counts.
        let parent = match super::propagate::extract(meta, arrival.http.map(|h| &h.headers)) {
            Some(remote) => remote.with_value(RemoteCaller { authenticated: arrival.authenticated }),
            None => Context::current(),
        };
        let name: Cow<'static, str> = match &target {
            Some(target) => format!("{method} {target}").into(),
            None => method.into(),
        };
        let span = ins
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(attributes)
            .start_with_context(&ins.tracer, &parent);
        Some(Self { cx: parent.with_span(span).with_value(Op::default()), common, started })
    }

    /// Run `handling` inside the span, then end it with the JSON-RPC error the reply carries
    /// (`error_of`: its code and message), or a tool's `isError`, and record the duration.
    pub async fn run<R>(
        mut self,
        handling: impl Future<Output = R>,
        error_of: impl FnOnce(&R) -> Option<(i64, String)>,
    ) -> R {
        let reply = handling.with_context(self.cx.clone()).await;
        let span = self.cx.span();
        match error_of(&reply) {
            Some((code, message)) => {
                let code = code.to_string();
                span.set_attribute(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.clone()));
                span.set_attribute(KeyValue::new(ERROR_TYPE, code.clone()));
                // The message may echo what the caller sent (an unknown name).
                span.set_status(Status::error(capped(&message, MAX_ATTRIBUTE_BYTES)));
                self.common.push(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.clone()));
                self.common.push(KeyValue::new(ERROR_TYPE, code));
            }
            None if self.cx.get::<Op>().is_some_and(|op| op.tool_error.load(Ordering::Relaxed)) => {
                span.set_attribute(KeyValue::new(ERROR_TYPE, "tool_error"));
                span.set_status(Status::error("tool_error"));
                self.common.push(KeyValue::new(ERROR_TYPE, "tool_error"));
            }
            None => {}
        }
        span.end();
        if let Some(ins) = instruments() {
            ins.server_duration.record(self.started.elapsed().as_secs_f64(), &self.common);
        }
        reply
    }
}

/// Run a task's body in an `INTERNAL` span, a child of the call that created the task (so
/// the body is in the caller's trace); its end is counted by status.
pub async fn traced_task<F: Future>(tool: &str, task_id: &str, parent: Context, body: F) -> F::Output {
    let Some(ins) = instruments() else { return body.await };
    let span = ins
        .tracer
        .span_builder(capped(&format!("task {tool}"), MAX_NAME_BYTES))
        .with_kind(SpanKind::Internal)
        .with_attributes([
            KeyValue::new(GEN_AI_TOOL_NAME, capped(tool, MAX_NAME_BYTES)),
            KeyValue::new(TASK_ID, capped(task_id, MAX_ATTRIBUTE_BYTES)),
        ])
        .start_with_context(&ins.tracer, &parent);
    let cx = parent.with_span(span);
    let out = body.with_context(cx.clone()).await;
    cx.span().end();
    out
}

/// The span of the request being handled, when there is one.
fn on_span(f: impl FnOnce(&opentelemetry::trace::SpanRef<'_>)) {
    if instruments().is_none() {
        return;
    }
    let cx = Context::current();
    if cx.has_active_span() {
        f(&cx.span());
    }
}

/// The round of a declared flow's leg: 0 for a first leg, n for the leg that carries the
/// answers of the n-th round.
pub fn round(round: u32) {
    on_span(|span| span.set_attribute(KeyValue::new(ROUND, i64::from(round))));
}

/// A leg asked questions: what it asked and answered, the state it carries.
pub fn leg(asked: usize, answered: usize, state_bytes: usize) {
    on_span(|span| {
        span.set_attribute(KeyValue::new(QUESTIONS_ASKED, asked as i64));
        span.set_attribute(KeyValue::new(QUESTIONS_ANSWERED, answered as i64));
        span.set_attribute(KeyValue::new(STATE_BYTES, state_bytes as i64));
    });
}

/// A leg finished a flow that asked `rounds` rounds of questions.
pub fn flow_completed(method: &'static str, rounds: u32) {
    let Some(ins) = instruments() else { return };
    on_span(|span| span.set_attribute(KeyValue::new(ROUND, i64::from(rounds))));
    let attributes = [KeyValue::new(MCP_METHOD_NAME, method)];
    ins.flows.add(1, &attributes);
    ins.flow_rounds.record(u64::from(rounds), &attributes);
}

/// Questions asked again because their answers did not fit.
pub fn reasked(count: usize) {
    let Some(ins) = instruments() else { return };
    on_span(|span| span.set_attribute(KeyValue::new(REASKED, count as i64)));
    ins.reasks.add(count as u64, &[]);
}

/// A `requestState` was refused, and why.
pub fn state_refused(reason: &'static str) {
    let Some(ins) = instruments() else { return };
    on_span(|span| span.set_attribute(KeyValue::new(STATE_REJECTED, reason)));
    ins.states_refused.add(1, &[KeyValue::new(STATE_REJECTED, reason)]);
}

/// The tool answered with `isError: true`.
pub fn tool_error() {
    if instruments().is_none() {
        return;
    }
    let cx = Context::current();
    if let Some(op) = cx.get::<Op>() {
        op.tool_error.store(true, Ordering::Relaxed);
    }
}

/// A task was created (`status` `created`), or ended with a terminal status after
/// `duration_s`.
pub fn task(task_id: &str, status: &'static str, duration_s: Option<f64>) {
    let Some(ins) = instruments() else { return };
    if status == "created" {
        on_span(|span| span.set_attribute(KeyValue::new(TASK_ID, task_id.to_owned())));
    }
    let attributes = [KeyValue::new(TASK_STATUS, status)];
    ins.tasks.add(1, &attributes);
    if let Some(duration) = duration_s {
        ins.task_duration.record(duration, &attributes);
    }
}

/// A limit refused something.
pub fn limit(limit: &'static str) {
    let Some(ins) = instruments() else { return };
    ins.limits.add(1, &[KeyValue::new(LIMIT, limit)]);
}

/// An event of the fleet's bus, or an outage ([`BUS_EVENT`]).
pub fn bus(event: &'static str) {
    let Some(ins) = instruments() else { return };
    ins.bus_events.add(1, &[KeyValue::new(BUS_EVENT, event)]);
}

/// The current context, to parent work that outlives the request (a task's body).
pub fn current_context() -> Context {
    Context::current()
}
