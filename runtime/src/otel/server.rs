//! The server's side: a `SERVER` span and a duration for every request handled, what the
//! layers below note on it (a leg's questions and state, a refused state, a task), and the
//! span of a task's body.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;

use super::instruments;
use super::names::*;
use crate::protocol::{META_PROTOCOL_VERSION, Request, RequestId, ResponseBody};
use crate::server::{Inbound, Reply, ReplyMessage, Server, Transport};

/// What a request's handling learns beyond its reply, read when the span ends.
#[derive(Debug, Default)]
struct Op {
    /// A tool answered with `isError: true`.
    tool_error: AtomicBool,
}

/// The `network.transport` of a transport, by the conventions: `tcp` under HTTP, `pipe` for
/// stdio, `inproc` in memory.
fn network_transport(transport: Transport) -> &'static str {
    match transport {
        Transport::Http => "tcp",
        Transport::Stdio => "pipe",
        _ => "inproc",
    }
}

fn request_id(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => s.clone(),
    }
}

/// Handle `request` inside a `SERVER` span, and record its duration.
pub(crate) async fn traced(server: &Server, request: Request, inbound: Inbound) -> Reply {
    let Some(ins) = instruments() else { return server.handle_untraced(request, inbound).await };
    let started = Instant::now();
    let params = request.params.as_ref();
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
    let method = request.method.clone();
    let string = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str).map(str::to_owned);
    // Low-cardinality attributes: on the span and on the metric.
    let mut common = vec![KeyValue::new(MCP_METHOD_NAME, method.clone())];
    let target = match method.as_str() {
        "tools/call" => string("name").inspect(|name| {
            common.push(KeyValue::new(GEN_AI_TOOL_NAME, name.clone()));
            common.push(KeyValue::new(GEN_AI_OPERATION_NAME, "execute_tool"));
        }),
        "prompts/get" => string("name").inspect(|name| common.push(KeyValue::new(GEN_AI_PROMPT_NAME, name.clone()))),
        _ => None,
    };
    let version = meta
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| inbound.session.as_ref().map(|s| s.version.as_str().to_owned()))
        .or_else(|| (method == "initialize").then(|| string("protocolVersion")).flatten());
    if let Some(version) = version {
        common.push(KeyValue::new(MCP_PROTOCOL_VERSION, version));
    }
    common.push(KeyValue::new(NETWORK_TRANSPORT, network_transport(inbound.transport)));
    if inbound.transport == Transport::Http {
        common.push(KeyValue::new(NETWORK_PROTOCOL_NAME, "http"));
    }
    // The span's own.
    let mut attributes = common.clone();
    attributes.push(KeyValue::new(JSONRPC_REQUEST_ID, request_id(&request.id)));
    if let Some(uri) = method.starts_with("resources/").then(|| string("uri")).flatten() {
        attributes.push(KeyValue::new(MCP_RESOURCE_URI, uri));
    }
    if let Some(id) = inbound.session.as_ref().and_then(|s| s.id.clone()) {
        attributes.push(KeyValue::new(MCP_SESSION_ID, id));
    }
    if let Some(http) = &inbound.http {
        let version = match http.version {
            http::Version::HTTP_2 => "2",
            http::Version::HTTP_10 => "1.0",
            _ => "1.1",
        };
        attributes.push(KeyValue::new(NETWORK_PROTOCOL_VERSION, version));
    }
    if let Some(addr) = inbound.client_addr {
        attributes.push(KeyValue::new(CLIENT_ADDRESS, addr.to_string()));
    }
    let parent = super::extract(meta, inbound.http.as_ref().map(|h| &h.headers)).unwrap_or_else(Context::current);
    let name: Cow<'static, str> = match &target {
        Some(target) => format!("{method} {target}").into(),
        None => method.clone().into(),
    };
    let span = ins
        .tracer
        .span_builder(name)
        .with_kind(SpanKind::Server)
        .with_attributes(attributes)
        .start_with_context(&ins.tracer, &parent);
    let cx = parent.with_span(span).with_value(Op::default());
    let reply = server.handle_untraced(request, inbound).with_context(cx.clone()).await;
    let error = match reply.response.as_ref() {
        Some(ReplyMessage::Response(r)) => match &r.body {
            ResponseBody::Error(e) => Some((e.code.to_string(), e.message.clone())),
            ResponseBody::Result(_) => None,
        },
        _ => None,
    };
    let span = cx.span();
    match &error {
        Some((code, message)) => {
            span.set_attribute(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.clone()));
            span.set_attribute(KeyValue::new(ERROR_TYPE, code.clone()));
            span.set_status(Status::error(message.clone()));
            common.push(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.clone()));
            common.push(KeyValue::new(ERROR_TYPE, code.clone()));
        }
        None if cx.get::<Op>().is_some_and(|op| op.tool_error.load(Ordering::Relaxed)) => {
            span.set_attribute(KeyValue::new(ERROR_TYPE, "tool_error"));
            span.set_status(Status::error("tool_error"));
            common.push(KeyValue::new(ERROR_TYPE, "tool_error"));
        }
        None => {}
    }
    span.end();
    ins.server_duration.record(started.elapsed().as_secs_f64(), &common);
    reply
}

/// Run a task's body in an `INTERNAL` span, a child of the call that created the task (so
/// the body is in the caller's trace); its end is counted by status.
pub(crate) async fn traced_task<F: Future>(tool: &str, task_id: &str, parent: Context, body: F) -> F::Output {
    let Some(ins) = instruments() else { return body.await };
    let span = ins
        .tracer
        .span_builder(format!("task {tool}"))
        .with_kind(SpanKind::Internal)
        .with_attributes([KeyValue::new(GEN_AI_TOOL_NAME, tool.to_owned()), KeyValue::new(TASK_ID, task_id.to_owned())])
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
pub(crate) fn round(round: u32) {
    on_span(|span| span.set_attribute(KeyValue::new(ROUND, i64::from(round))));
}

/// A leg asked questions: what it asked and answered, the state it carries.
pub(crate) fn leg(asked: usize, answered: usize, state_bytes: usize) {
    on_span(|span| {
        span.set_attribute(KeyValue::new(QUESTIONS_ASKED, asked as i64));
        span.set_attribute(KeyValue::new(QUESTIONS_ANSWERED, answered as i64));
        span.set_attribute(KeyValue::new(STATE_BYTES, state_bytes as i64));
    });
}

/// A leg finished a flow that asked `rounds` rounds of questions.
pub(crate) fn flow_completed(method: &'static str, rounds: u32) {
    let Some(ins) = instruments() else { return };
    on_span(|span| span.set_attribute(KeyValue::new(ROUND, i64::from(rounds))));
    let attributes = [KeyValue::new(MCP_METHOD_NAME, method)];
    ins.flows.add(1, &attributes);
    ins.flow_rounds.record(u64::from(rounds), &attributes);
}

/// Questions asked again because their answers did not fit.
pub(crate) fn reasked(count: usize) {
    let Some(ins) = instruments() else { return };
    on_span(|span| span.set_attribute(KeyValue::new(REASKED, count as i64)));
    ins.reasks.add(count as u64, &[]);
}

/// A `requestState` was refused, and why.
pub(crate) fn state_refused(reason: &'static str) {
    let Some(ins) = instruments() else { return };
    on_span(|span| span.set_attribute(KeyValue::new(STATE_REJECTED, reason)));
    ins.states_refused.add(1, &[KeyValue::new(STATE_REJECTED, reason)]);
}

/// The tool answered with `isError: true`.
pub(crate) fn tool_error() {
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
pub(crate) fn task(task_id: &str, status: &'static str, duration_s: Option<f64>) {
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
pub(crate) fn limit(limit: &'static str) {
    let Some(ins) = instruments() else { return };
    ins.limits.add(1, &[KeyValue::new(LIMIT, limit)]);
}

/// The current context, to parent work that outlives the request (a task's body).
pub(crate) fn current_context() -> Context {
    Context::current()
}
