//! Telemetry (feature `otel`): roundtrip's client calling roundtrip's server, in memory and over
//! HTTP: one trace covers every leg of a flow, the server's spans and a task's body, named and
//! attributed by the MCP semantic conventions; a refused state says why on the span only.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::trace::{SpanKind, Status};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use roundtrip::client::Client;
use roundtrip::prelude::*;
use roundtrip::protocol::ElicitResult;
use serde_json::json;

/// Two rounds: a name, then an age that mentions it.
#[tool]
async fn wizard(
    #[resolve(elicit = "Your name?")] name: String,
    #[resolve(elicit = "How old are you, {name}?")] age: u32,
) -> String {
    format!("{name} is {age}")
}

/// Asks a region, then runs as a task.
#[tool(task)]
async fn backup(database: String, #[resolve(elicit = "Region for {database}?")] region: String) -> String {
    format!("{database} backed up in {region}")
}

fn server() -> Server {
    Server::new("otel-test", "1.0.0").tools(tools![wizard, backup])
}

async fn client(connect: impl AsyncFnOnce(roundtrip::client::ClientBuilder) -> Client) -> Client {
    let builder = Client::builder("otel-test-client", "1.0.0").on_elicit(|params| async move {
        let message = params.message().to_owned();
        let content = if message.starts_with("Your name") {
            json!({"name": "Ada"})
        } else if message.starts_with("How old") {
            json!({"age": 36})
        } else {
            json!({"region": "eu"})
        };
        Ok(ElicitResult::accept(content.as_object().unwrap().clone()))
    });
    connect(builder).await
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv: &KeyValue| &kv.value)
}

fn text(span: &SpanData, key: &str) -> String {
    attribute(span, key).map(|v| v.as_str().into_owned()).unwrap_or_default()
}

/// The spans of one trace, checked: everything the flow did hangs off its root.
fn check_flow(spans: &[SpanData], (client_transport, transport): (&str, &str)) {
    let flow = spans.iter().find(|s| s.name == "tools/call wizard flow").expect("the flow's span");
    let trace = flow.span_context.trace_id();
    let mine: Vec<&SpanData> = spans.iter().filter(|s| s.span_context.trace_id() == trace).collect();
    let by_id: HashMap<_, _> = mine.iter().map(|s| (s.span_context.span_id(), *s)).collect();
    let legs: Vec<&&SpanData> = mine.iter().filter(|s| s.span_kind == SpanKind::Client).collect();
    let served: Vec<&&SpanData> = mine.iter().filter(|s| s.span_kind == SpanKind::Server).collect();
    assert_eq!(legs.len(), 3, "three legs: {:?}", mine.iter().map(|s| &s.name).collect::<Vec<_>>());
    assert_eq!(served.len(), 3, "three served requests");
    for leg in &legs {
        assert_eq!(leg.name, "tools/call wizard");
        assert_eq!(leg.parent_span_id, flow.span_context.span_id(), "a leg is a child of the flow");
        assert_eq!(text(leg, "mcp.method.name"), "tools/call");
        assert_eq!(text(leg, "gen_ai.tool.name"), "wizard");
        assert_eq!(text(leg, "network.transport"), client_transport);
    }
    for span in &served {
        assert_eq!(span.name, "tools/call wizard");
        let parent = by_id.get(&span.parent_span_id).expect("the server's span has the client's leg as parent");
        assert_eq!(parent.span_kind, SpanKind::Client);
        assert_eq!(text(span, "mcp.method.name"), "tools/call");
        assert_eq!(text(span, "gen_ai.tool.name"), "wizard");
        assert_eq!(text(span, "gen_ai.operation.name"), "execute_tool");
        assert_eq!(text(span, "mcp.protocol.version"), "2026-07-28");
        assert!(!text(span, "jsonrpc.request.id").is_empty());
        assert_eq!(text(span, "network.transport"), transport);
        assert_eq!(span.status, Status::Unset);
    }
    let rounds: Vec<i64> = served
        .iter()
        .map(|s| attribute(s, "roundtrip.round").and_then(|v| v.as_str().parse().ok()).unwrap_or(-1))
        .collect();
    let mut rounds = rounds;
    rounds.sort_unstable();
    assert_eq!(rounds, vec![0, 1, 2], "each leg says its round");
    let asking: Vec<&&&SpanData> =
        served.iter().filter(|s| attribute(s, "roundtrip.questions.asked").is_some()).collect();
    assert_eq!(asking.len(), 2, "two legs asked");
    assert!(asking.iter().all(|s| attribute(s, "roundtrip.state.bytes").is_some()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_covers_every_leg_and_a_tasks_body_in_memory_and_over_http() {
    // One test: the global provider and the instruments made from it are the process's.
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    opentelemetry::global::set_tracer_provider(provider.clone());
    roundtrip::otel::enable();

    // In memory.
    let c = client(async |b| b.connect_in_memory(server()).await.unwrap()).await;
    assert_eq!(c.call_tool("wizard", json!({})).await.unwrap().content[0].as_text(), Some("Ada is 36"));
    let spans = exporter.get_finished_spans().unwrap();
    // The client's end of an in-memory connection is a pipe like stdio's.
    check_flow(&spans, ("pipe", "inproc"));

    // A task: its body's span is in the trace, a child of the call that created it.
    exporter.reset();
    let done = c.call_tool("backup", json!({"database": "orders"})).await.unwrap();
    assert_eq!(done.content[0].as_text(), Some("orders backed up in eu"));
    let mut spans = exporter.get_finished_spans().unwrap();
    for _ in 0..50 {
        if spans.iter().any(|s| s.name == "task backup") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        spans = exporter.get_finished_spans().unwrap();
    }
    let flow = spans.iter().find(|s| s.name == "tools/call backup flow").expect("the flow's span");
    let body = spans.iter().find(|s| s.name == "task backup").expect("the task's span");
    assert_eq!(body.span_context.trace_id(), flow.span_context.trace_id(), "the body is in the caller's trace");
    let creator = spans.iter().find(|s| s.span_context.span_id() == body.parent_span_id).expect("its parent");
    assert_eq!((creator.span_kind.clone(), creator.name.as_ref()), (SpanKind::Server, "tools/call backup"));
    assert_eq!(text(creator, "roundtrip.task.id"), text(body, "roundtrip.task.id"));
    assert!(spans.iter().any(|s| s.name == "tasks/get" && s.span_context.trace_id() == flow.span_context.trace_id()));

    // Over HTTP.
    exporter.reset();
    let http = server().bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    let c = client(async |b| b.connect_http(&url).await.unwrap()).await;
    assert_eq!(c.call_tool("wizard", json!({})).await.unwrap().content[0].as_text(), Some("Ada is 36"));
    let spans = exporter.get_finished_spans().unwrap();
    check_flow(&spans, ("tcp", "tcp"));
    let served = spans.iter().find(|s| s.span_kind == SpanKind::Server && s.name == "tools/call wizard").unwrap();
    assert_eq!(text(served, "network.protocol.name"), "http");
    assert_eq!(text(served, "client.address"), "127.0.0.1");

    // A refused state says why on the span, and only there.
    exporter.reset();
    let forged = c
        .call_tool_step(
            "wizard",
            json!({}),
            Some(serde_json::Map::new()),
            Some("rt1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".into()),
        )
        .await
        .unwrap_err();
    assert!(forged.to_string().contains("Invalid or expired requestState"), "{forged}");
    let spans = exporter.get_finished_spans().unwrap();
    let served = spans
        .iter()
        .find(|s| s.span_kind == SpanKind::Server && attribute(s, "roundtrip.state.rejected").is_some())
        .expect("the refused leg's span");
    assert!(["tampered", "unknown_key"].contains(&text(served, "roundtrip.state.rejected").as_str()));
    assert_eq!(text(served, "error.type"), "-32602");
    assert_eq!(text(served, "rpc.response.status_code"), "-32602");
    assert!(matches!(served.status, Status::Error { .. }));
}
