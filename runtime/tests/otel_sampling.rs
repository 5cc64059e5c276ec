//! A caller's sampled flag does not force export (issue 39): with the sampler at 0, a request
//! whose `traceparent` says "sampled", in `params._meta` or in its HTTP headers, from a caller
//! that is not authenticated, exports nothing; and the span names and labels of names the
//! server did not declare say `_OTHER`.
//!
//! A file of its own: the global provider, with its sampler, is the process's.

#![allow(clippy::unwrap_used)] // a test fails loudly

use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState, Tracer as _, TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::{InMemorySpanExporter, Sampler, SdkTracerProvider};
use roundtrip::otel::{RemoteParentSampler, TrustRemoteSampled};
use roundtrip::prelude::*;
use serde_json::{Value, json};

/// Add two numbers.
#[tool]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

const SAMPLED_PARENT: &str = "00-35f773378add94550314d89759dffb9d-8b40a16586fbb490-01";

async fn post(url: &str, headers: &[(&str, &str)], message: Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(message.to_string()).send().await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_sampled_flag_does_not_force_export_past_a_sampler_at_zero() {
    let exporter = InMemorySpanExporter::default();
    let zero = Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(0.0)));
    let provider = SdkTracerProvider::builder()
        .with_sampler(RemoteParentSampler::new(zero, TrustRemoteSampled::default()))
        .with_simple_exporter(exporter.clone())
        .build();
    opentelemetry::global::set_tracer_provider(provider.clone());
    roundtrip::otel::enable();

    let http = Server::new("sampling-test", "1.0.0").tools(tools![add]).bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());

    // The parent in `params._meta`.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "sampling-test", "version": "1.0.0"},
        "_meta": {"traceparent": SAMPLED_PARENT},
    }});
    let response = post(&url, &[], initialize).await;
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    response.text().await.unwrap();
    let in_session = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    post(&url, &in_session, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    // The parent in the HTTP headers, calling a declared tool and one the server does not have.
    let with_header = [in_session[0], in_session[1], ("traceparent", SAMPLED_PARENT)];
    for (id, tool) in [(2, "add"), (3, "no-such-tool")] {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"a": 1, "b": 2}}});
        post(&url, &with_header, call).await.text().await.unwrap();
    }
    let _ = provider.force_flush();
    let spans = exporter.get_finished_spans().unwrap();
    assert!(
        spans.is_empty(),
        "the caller's flag forced these out past a sampler at 0: {:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );

    // The same parent on a span of the application's own (no caller noted) is followed: the
    // exporter would have shown the server's spans had they been sampled.
    let parent = SpanContext::new(
        TraceId::from_hex("35f773378add94550314d89759dffb9d").unwrap(),
        SpanId::from_hex("8b40a16586fbb490").unwrap(),
        TraceFlags::SAMPLED,
        true,
        TraceState::default(),
    );
    let cx = Context::new().with_remote_span_context(parent);
    let tracer = provider.tracer("sampling-test");
    let mut span = tracer.start_with_context("the application's own", &cx);
    opentelemetry::trace::Span::set_attribute(&mut span, KeyValue::new("k", "v"));
    drop(span);
    let spans = exporter.get_finished_spans().unwrap();
    assert_eq!(spans.iter().map(|s| s.name.as_ref()).collect::<Vec<_>>(), ["the application's own"]);
}
