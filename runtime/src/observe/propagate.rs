//! Trace context across the wire (SEP-414): W3C `traceparent`, `tracestate` and `baggage`
//! in a request's `params._meta`, and in its HTTP headers.

use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector, TextMapCompositePropagator, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde_json::Value;

use crate::protocol::JsonObject;

/// W3C trace context and baggage: what SEP-414 names, whatever global propagator the
/// application set (the keys in `_meta` are fixed by the protocol).
fn propagator() -> &'static TextMapCompositePropagator {
    static PROPAGATOR: std::sync::OnceLock<TextMapCompositePropagator> = std::sync::OnceLock::new();
    PROPAGATOR.get_or_init(|| {
        TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ])
    })
}

/// `params._meta` read as a carrier.
struct Meta<'a>(&'a JsonObject);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// HTTP headers read as a carrier.
struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// `params._meta` written as a carrier: empty values are left out (the trace context
/// propagator writes an empty `tracestate`), and what the caller set is kept.
struct MetaWriter<'a>(&'a mut JsonObject);

impl Injector for MetaWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        if !value.is_empty() && !self.0.contains_key(key) {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }
}

/// The remote parent of a request: from `params._meta` first (SEP-414), else from the HTTP
/// headers; `None` when neither carries a valid `traceparent`.
pub(crate) fn extract(meta: Option<&JsonObject>, headers: Option<&http::HeaderMap>) -> Option<Context> {
    let valid = |cx: Context| cx.span().span_context().is_valid().then_some(cx);
    meta.and_then(|m| valid(propagator().extract(&Meta(m))))
        .or_else(|| headers.and_then(|h| valid(propagator().extract(&Headers(h)))))
}

/// Write `cx` into a request's `_meta`.
pub(crate) fn inject(cx: &Context, meta: &mut JsonObject) {
    propagator().inject_context(cx, &mut MetaWriter(meta));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn meta_first_then_headers_and_flags_beyond_sampled_are_read() {
        // The Python SDK sends flags 03 (sampled and random).
        let meta = object(json!({"traceparent": "00-35f773378add94550314d89759dffb9d-8b40a16586fbb490-03"}));
        let mut headers = http::HeaderMap::new();
        headers
            .insert("traceparent", "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01".parse().expect("valid"));
        let from_meta = extract(Some(&meta), Some(&headers)).expect("a parent");
        assert_eq!(from_meta.span().span_context().trace_id().to_string(), "35f773378add94550314d89759dffb9d");
        let from_headers = extract(Some(&JsonObject::new()), Some(&headers)).expect("a parent");
        assert_eq!(from_headers.span().span_context().span_id().to_string(), "00f067aa0ba902b7");
        assert!(extract(Some(&object(json!({"traceparent": "garbage"}))), None).is_none());
    }

    #[test]
    fn injection_round_trips_and_keeps_what_was_there() {
        let meta = object(json!({"traceparent": "00-35f773378add94550314d89759dffb9d-8b40a16586fbb490-01"}));
        let cx = extract(Some(&meta), None).expect("a parent");
        let mut out = object(json!({"progressToken": 7}));
        inject(&cx, &mut out);
        assert_eq!(out["traceparent"], meta["traceparent"]);
        assert_eq!(out["progressToken"], 7);
        assert!(!out.contains_key("tracestate"), "no empty values");
    }
}
