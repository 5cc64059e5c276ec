//! The client's side: a `CLIENT` span for every request sent, its context injected into the
//! request's `_meta` (SEP-414), its duration; and an `INTERNAL` span over the legs of a
//! multi-round call, so that the legs, the server's spans and a task's body are one trace.

use std::borrow::Cow;
use std::time::Instant;

use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;

use roundtrip_core::observe::instruments;
use roundtrip_core::observe::names::*;
use roundtrip_wire::JsonObject;

/// One request the client sends.
#[derive(Debug)]
pub struct ClientOp {
    cx: Context,
    started: Instant,
    attributes: Vec<KeyValue>,
}

/// The span's name, cut to [`MAX_NAME_BYTES`] (a target may be a name a server listed).
fn span_name(method: &str, target: Option<&str>) -> Cow<'static, str> {
    match target {
        Some(target) if matches!(method, "tools/call" | "prompts/get") => {
            capped(&format!("{method} {}", capped(target, MAX_NAME_BYTES)), MAX_NAME_BYTES).into()
        }
        _ => method_label(method).into(),
    }
}

impl ClientOp {
    /// Start the span of a request of `method` about `target`, and write its context into
    /// `params._meta`; `None` until telemetry is enabled.
    pub fn start(
        method: &str,
        target: Option<&str>,
        version: &str,
        transport: &'static str,
        params: &mut JsonObject,
    ) -> Option<Self> {
        let ins = instruments()?;
        let mut attributes = vec![
            KeyValue::new(MCP_METHOD_NAME, method_label(method)),
            KeyValue::new(MCP_PROTOCOL_VERSION, capped(version, MAX_NAME_BYTES)),
            KeyValue::new(NETWORK_TRANSPORT, transport),
        ];
        match (method, target) {
            ("tools/call", Some(tool)) => {
                attributes.push(KeyValue::new(GEN_AI_TOOL_NAME, capped(tool, MAX_NAME_BYTES)));
                attributes.push(KeyValue::new(GEN_AI_OPERATION_NAME, "execute_tool"));
            }
            ("prompts/get", Some(prompt)) => {
                attributes.push(KeyValue::new(GEN_AI_PROMPT_NAME, capped(prompt, MAX_NAME_BYTES)));
            }
            _ => {}
        }
        let parent = Context::current();
        let mut span_attributes = attributes.clone();
        if let (true, Some(uri)) = (method.starts_with("resources/"), target) {
            span_attributes.push(KeyValue::new(MCP_RESOURCE_URI, capped(uri, MAX_ATTRIBUTE_BYTES)));
        }
        let span = ins
            .tracer
            .span_builder(span_name(method, target))
            .with_kind(SpanKind::Client)
            .with_attributes(span_attributes)
            .start_with_context(&ins.tracer, &parent);
        let cx = parent.with_span(span);
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
        if let Some(meta) = meta.as_object_mut() {
            roundtrip_core::observe::propagate::inject(&cx, meta);
        }
        Some(Self { cx, started: Instant::now(), attributes })
    }

    /// The context the request is sent in.
    pub fn context(&self) -> Context {
        self.cx.clone()
    }

    /// The request ended: with a JSON-RPC error's code and message, a transport failure, or a
    /// result (`tool_error` when it says `isError`).
    pub fn finish(mut self, outcome: Result<&Value, (Option<i64>, String)>) {
        let span = self.cx.span();
        let error = match outcome {
            Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => {
                Some(("tool_error".to_owned(), "tool_error".to_owned()))
            }
            Ok(_) => None,
            Err((Some(code), message)) => {
                span.set_attribute(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.to_string()));
                self.attributes.push(KeyValue::new(RPC_RESPONSE_STATUS_CODE, code.to_string()));
                Some((code.to_string(), message))
            }
            Err((None, message)) => Some(("transport".to_owned(), message)),
        };
        if let Some((kind, message)) = error {
            span.set_attribute(KeyValue::new(ERROR_TYPE, kind.clone()));
            span.set_status(Status::error(capped(&message, MAX_ATTRIBUTE_BYTES)));
            self.attributes.push(KeyValue::new(ERROR_TYPE, kind));
        }
        span.end();
        if let Some(ins) = instruments() {
            ins.client_duration.record(self.started.elapsed().as_secs_f64(), &self.attributes);
        }
    }
}

/// A multi-round call (`tools/call`, `prompts/get`, `resources/read` with their retries and a
/// task it became): one span over its legs.
#[derive(Debug)]
pub struct Flow {
    cx: Context,
    method: &'static str,
}

impl Flow {
    /// `None` until telemetry is enabled.
    pub fn start(method: &str, target: &str) -> Option<Self> {
        let ins = instruments()?;
        let parent = Context::current();
        let span = ins
            .tracer
            .span_builder(format!("{} flow", span_name(method, Some(target))))
            .with_kind(SpanKind::Internal)
            .with_attributes([KeyValue::new(MCP_METHOD_NAME, method_label(method))])
            .start_with_context(&ins.tracer, &parent);
        Some(Self { cx: parent.with_span(span), method: method_label(method) })
    }

    /// The context its legs run in.
    pub fn context(&self) -> Context {
        self.cx.clone()
    }

    /// The flow ended: `completed`, `failed` (an error), or `abandoned` (the round budget ran
    /// out, or the user declined to go on).
    pub fn finish(self, outcome: &'static str) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new(FLOW_OUTCOME, outcome));
        if outcome != "completed" {
            span.set_status(Status::error(outcome));
        }
        span.end();
        if let Some(ins) = instruments() {
            ins.client_flows
                .add(1, &[KeyValue::new(MCP_METHOD_NAME, self.method), KeyValue::new(FLOW_OUTCOME, outcome)]);
        }
    }
}
