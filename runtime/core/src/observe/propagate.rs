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

/// The longest `traceparent` read: version `00` is exactly 55 bytes
/// (`00-{32 hex}-{16 hex}-{2 hex}`), and no other version exists.
pub const MAX_TRACEPARENT_BYTES: usize = 55;
/// The longest `tracestate` read: W3C allows 32 list members, and 512 bytes is the size the
/// specification asks every vendor to propagate at least (and what propagators commonly cap at).
pub const MAX_TRACESTATE_BYTES: usize = 512;
/// The longest `baggage` read: the W3C baggage specification's limit for the whole header.
pub const MAX_BAGGAGE_BYTES: usize = 8192;

/// A carrier's `value` for `key`, when it is within the size its kind may have: a larger one
/// is ignored as if absent (a fresh root, no baggage), by its length alone, before anything
/// splits or parses it (a 3 MB `traceparent` of dashes cost the propagator about 60 MB).
fn sized<'a>(key: &str, value: Option<&'a str>) -> Option<&'a str> {
    let max = match key {
        "traceparent" => MAX_TRACEPARENT_BYTES,
        "tracestate" => MAX_TRACESTATE_BYTES,
        "baggage" => MAX_BAGGAGE_BYTES,
        // The propagators read nothing else; anything else is not trace context.
        _ => return None,
    };
    value.filter(|v| v.len() <= max)
}

/// `params._meta` read as a carrier.
struct Meta<'a>(&'a JsonObject);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        sized(key, self.0.get(key).and_then(Value::as_str))
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// HTTP headers read as a carrier.
struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        // Sized before `to_str`, which reads the whole value.
        sized(key, self.0.get(key).filter(|v| v.len() <= MAX_BAGGAGE_BYTES).and_then(|v| v.to_str().ok()))
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
pub fn extract(meta: Option<&JsonObject>, headers: Option<&http::HeaderMap>) -> Option<Context> {
    let valid = |cx: Context| cx.span().span_context().is_valid().then_some(cx);
    meta.and_then(|m| valid(propagator().extract(&Meta(m))))
        .or_else(|| headers.and_then(|h| valid(propagator().extract(&Headers(h)))))
}

/// Write `cx` into a request's `_meta`.
pub fn inject(cx: &Context, meta: &mut JsonObject) {
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
    fn oversized_carriers_are_ignored_by_their_length_alone() {
        let valid = "00-35f773378add94550314d89759dffb9d-8b40a16586fbb490-01";
        assert_eq!(valid.len(), MAX_TRACEPARENT_BYTES);
        // 3 MB of dashes: split before it was checked, it took about 60 MB.
        let dashes = "-".repeat(3 << 20);
        let meta = object(json!({"traceparent": dashes, "tracestate": "a=b", "baggage": "k=v"}));
        assert_eq!(Meta(&meta).get("traceparent"), None, "never handed to the propagator");
        let started = std::time::Instant::now();
        for _ in 0..100 {
            assert!(extract(Some(&meta), None).is_none());
        }
        // Checked by its length: a hundred extractions cost microseconds, where splitting
        // 3 MB into 3 million parts took tens of milliseconds each.
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_millis(50), "{took:?}");
        let mut headers = http::HeaderMap::new();
        headers.insert("traceparent", dashes.parse().expect("valid"));
        assert_eq!(Headers(&headers).get("traceparent"), None);
        assert!(extract(None, Some(&headers)).is_none());
        // A parent with oversized tracestate and baggage keeps its trace, without them.
        let meta = object(json!({
            "traceparent": valid,
            "tracestate": format!("a={}", "b".repeat(MAX_TRACESTATE_BYTES)),
            "baggage": format!("k={}", "v".repeat(MAX_BAGGAGE_BYTES)),
        }));
        assert_eq!(Meta(&meta).get("tracestate"), None);
        assert_eq!(Meta(&meta).get("baggage"), None);
        let cx = extract(Some(&meta), None).expect("a parent");
        assert_eq!(cx.span().span_context().trace_state().header(), "");
        let meta = object(json!({"traceparent": valid, "tracestate": "a=b", "baggage": "k=v"}));
        assert_eq!(Meta(&meta).get("tracestate"), Some("a=b"));
        assert_eq!(Meta(&meta).get("baggage"), Some("k=v"));
        assert_eq!(Meta(&meta).get("progressToken"), None, "not trace context");
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
