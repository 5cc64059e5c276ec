//! One trace from roundtrip's own client into a roundtrip server running as a separate process
//! (the `provision` example), over stdio and over streamable HTTP: every server span of a
//! multi-round flow, and a task's body, are in the client's trace, each server span a child of
//! the client's `CLIENT` span of its request, the body a child of the call that created it.
//!
//! The client's spans are kept in memory (the process's global provider); the server exports
//! its own by OTLP/HTTP to a receiver in this test that decodes every export with
//! `opentelemetry-proto`, so the context can only have crossed in the request itself
//! (`params._meta`, SEP-414).
#![cfg(feature = "otel")]
#![allow(clippy::unwrap_used)] // a test fails loudly

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use opentelemetry::Context;
use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::{SpanKind, TraceContextExt as _, TraceId, Tracer as _};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use prost::Message as _;
use roundtrip::client::Client;
use roundtrip::protocol::{ElicitAction, ElicitResult};
use serde_json::json;
use tokio::process::Command;

/// A span the server exported, as the receiver decoded it.
#[derive(Debug, Clone)]
struct Exported {
    name: String,
    kind: i32,
    trace_id: Vec<u8>,
    span_id: Vec<u8>,
    parent_span_id: Vec<u8>,
    attributes: HashMap<String, String>,
    service: String,
}

/// `SPAN_KIND_SERVER` in OTLP.
const SERVER: i32 = 2;

/// An OTLP/HTTP receiver on a thread of its own (each test has its own Tokio runtime): keeps
/// the spans of every `/v1/traces` export, answers every export with an empty success.
struct Receiver {
    url: String,
    spans: Arc<Mutex<Vec<Exported>>>,
}

fn text(value: Option<&Any>) -> String {
    match value {
        Some(Any::StringValue(s)) => s.clone(),
        Some(Any::IntValue(i)) => i.to_string(),
        Some(Any::BoolValue(b)) => b.to_string(),
        Some(Any::DoubleValue(d)) => d.to_string(),
        other => format!("{other:?}"),
    }
}

impl Receiver {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let spans = Arc::new(Mutex::new(Vec::new()));
        let kept = spans.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || Self::serve(stream, &kept));
            }
        });
        Self { url, spans }
    }

    /// One keep-alive connection: requests until the exporter closes it.
    fn serve(stream: TcpStream, kept: &Mutex<Vec<Exported>>) {
        let mut writer = stream.try_clone().unwrap();
        let mut reader = BufReader::new(stream);
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let path = line.split_whitespace().nth(1).unwrap_or_default().to_owned();
            let mut length = 0;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 {
                    return;
                }
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            if path == "/v1/traces" {
                let request = ExportTraceServiceRequest::decode(body.as_slice()).expect("an OTLP trace export");
                let mut kept = kept.lock().unwrap();
                for resource in request.resource_spans {
                    let service = resource
                        .resource
                        .iter()
                        .flat_map(|r| &r.attributes)
                        .find(|kv| kv.key == "service.name")
                        .map(|kv| text(kv.value.as_ref().and_then(|v| v.value.as_ref())))
                        .unwrap_or_default();
                    for span in resource.scope_spans.into_iter().flat_map(|s| s.spans) {
                        let attributes = span
                            .attributes
                            .iter()
                            .map(|kv| (kv.key.clone(), text(kv.value.as_ref().and_then(|v| v.value.as_ref()))))
                            .collect();
                        kept.push(Exported {
                            name: span.name,
                            kind: span.kind,
                            trace_id: span.trace_id,
                            span_id: span.span_id,
                            parent_span_id: span.parent_span_id,
                            attributes,
                            service: service.clone(),
                        });
                    }
                }
            }
            // An empty protobuf message is an `Export…ServiceResponse` with nothing rejected.
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n";
            if writer.write_all(answer.as_bytes()).is_err() {
                return;
            }
        }
    }

    /// The spans of `trace` once `done` says they are all there (or after 15 s, for the
    /// assertions to say what is missing).
    fn wait_for(&self, trace: &[u8], done: impl Fn(&[Exported]) -> bool) -> Vec<Exported> {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let spans: Vec<Exported> =
                self.spans.lock().unwrap().iter().filter(|s| s.trace_id == trace).cloned().collect();
            if done(&spans) || Instant::now() > deadline {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The process's telemetry, set up once for both tests: the client's spans in memory (the
/// global provider that roundtrip's instruments are made from), the server's receiver.
fn telemetry() -> &'static (InMemorySpanExporter, Receiver) {
    static TELEMETRY: OnceLock<(InMemorySpanExporter, Receiver)> = OnceLock::new();
    TELEMETRY.get_or_init(|| {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
        opentelemetry::global::set_tracer_provider(provider);
        roundtrip::otel::enable();
        (exporter, Receiver::start())
    })
}

/// The `provision` example exporting its spans to the receiver.
fn provision(receiver: &Receiver, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_provision"));
    command
        .args(args)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.url)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        .env("OTEL_SERVICE_NAME", "provision-under-test")
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    command
}

/// A client that answers the wizard's, the backup's and the backup task's questions.
fn client() -> roundtrip::client::ClientBuilder {
    Client::builder("otel-stdio-test", "1.0.0").on_elicit(|params| async move {
        let message = params.message();
        let content = if message.starts_with("What is your name") {
            json!({"name": "Ada"})
        } else if message.starts_with("How old") {
            json!({"age": 36})
        } else if message.starts_with("Which region") {
            json!({"region": "eu"})
        } else {
            json!({"overwrite": true})
        };
        Ok(ElicitResult::new(ElicitAction::Accept, content.as_object().cloned()))
    })
}

/// Run `work` under a root span of its own (the two tests share the process's provider) and
/// return the client's finished spans of that trace, by id, with what `work` returned.
async fn traced<T>(
    exporter: &InMemorySpanExporter,
    name: &str,
    work: impl Future<Output = T>,
) -> (TraceId, HashMap<Vec<u8>, SpanData>, T) {
    let root = opentelemetry::global::tracer("otel-test").start(name.to_owned());
    let cx = Context::current_with_span(root);
    let trace = cx.span().span_context().trace_id();
    let out = work.with_context(cx.clone()).await;
    cx.span().end();
    let mine = exporter
        .get_finished_spans()
        .unwrap()
        .into_iter()
        .filter(|s| s.span_context.trace_id() == trace)
        .map(|s| (s.span_context.span_id().to_bytes().to_vec(), s))
        .collect();
    (trace, mine, out)
}

/// Each server span's parent is the client's `CLIENT` span of the same request.
fn check_parents(served: &[&Exported], mine: &HashMap<Vec<u8>, SpanData>, transport: &str) {
    for span in served {
        let parent = mine.get(&span.parent_span_id).unwrap_or_else(|| {
            panic!("the server's `{}` span: its parent is not one of the client's spans of the trace", span.name)
        });
        assert_eq!(parent.span_kind, SpanKind::Client, "{}", span.name);
        assert_eq!(parent.name, span.name, "the server's span and the client's leg name the same request");
        assert_eq!(span.attributes["network.transport"], transport);
        assert_eq!(span.service, "provision-under-test");
    }
}

async fn one_trace_per_flow(
    connect: impl AsyncFnOnce(roundtrip::client::ClientBuilder) -> Client,
    transport: &str,
) -> Client {
    let (exporter, receiver) = telemetry();
    let client = connect(client()).await;

    // A flow of three legs: the server's three spans hang off the client's three legs.
    let (trace, mine, result) =
        traced(exporter, &format!("wizard over {transport}"), client.call_tool("wizard", json!({}))).await;
    assert_eq!(result.unwrap().content[0].as_text(), Some("Hello Ada, you are 36."));
    assert!(mine.values().any(|s| s.name == "tools/call wizard flow"), "the client's span over the flow's legs");
    let trace = trace.to_bytes();
    let spans = receiver.wait_for(&trace, |s| s.iter().filter(|s| s.name == "tools/call wizard").count() >= 3);
    let served: Vec<&Exported> = spans.iter().filter(|s| s.kind == SERVER).collect();
    assert_eq!(
        served.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["tools/call wizard"; 3],
        "every leg's server span, and only those, in the client's trace"
    );
    check_parents(&served, &mine, transport);
    let mut rounds: Vec<&str> = served.iter().map(|s| s.attributes["roundtrip.round"].as_str()).collect();
    rounds.sort_unstable();
    assert_eq!(rounds, ["0", "1", "2"]);
    let legs = mine.values().filter(|s| s.span_kind == SpanKind::Client).count();
    assert_eq!(legs, 3, "the client's three legs");

    // A task that asks first, then asks again from its body: the body's span is in the same
    // trace, a child of the server span of the call that created it.
    let backup = client.call_tool("backup", json!({"database": "orders"}));
    let (trace, mine, result) = traced(exporter, &format!("backup over {transport}"), backup).await;
    assert_eq!(result.unwrap().content[0].as_text(), Some("Backed up orders to backups/eu/orders.dump (overwritten)."));
    let trace = trace.to_bytes();
    let spans = receiver.wait_for(&trace, |s| s.iter().any(|s| s.name == "task backup"));
    let body = spans.iter().find(|s| s.name == "task backup").expect("the task body's span, in the client's trace");
    let creator = spans.iter().find(|s| s.span_id == body.parent_span_id).expect("the body's parent, in the trace");
    assert_eq!((creator.kind, creator.name.as_str()), (SERVER, "tools/call backup"));
    assert_eq!(body.attributes["roundtrip.task.id"], creator.attributes["roundtrip.task.id"]);
    // Every request the client sent for it (its two legs, the polls, the answer) reached the
    // server in the trace, each a child of its own leg.
    let sent = mine.values().filter(|s| s.span_kind == SpanKind::Client).count();
    let spans = receiver.wait_for(&trace, |s| s.iter().filter(|s| s.kind == SERVER).count() >= sent);
    let served: Vec<&Exported> = spans.iter().filter(|s| s.kind == SERVER).collect();
    assert_eq!(served.len(), sent, "{:?}", served.iter().map(|s| &s.name).collect::<Vec<_>>());
    assert!(served.iter().any(|s| s.name == "tasks/get"));
    check_parents(&served, &mine, transport);
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_over_stdio_with_the_server_as_a_child_process() {
    let (exporter, receiver) = telemetry();
    let command = provision(receiver, &["--stdio"]);
    let client = one_trace_per_flow(async |b| b.connect_stdio(command).await.unwrap(), "pipe").await;

    // Closed right after a flow, the server exits by itself (its stdin closed) and exports
    // what it still holds; killed, as a dropped client does, it would lose the flow's spans.
    let (trace, _, result) = traced(exporter, "wizard, then close", client.call_tool("wizard", json!({}))).await;
    result.unwrap();
    client.close().await;
    let spans = receiver.wait_for(&trace.to_bytes(), |s| s.iter().filter(|s| s.kind == SERVER).count() >= 3);
    assert_eq!(spans.iter().filter(|s| s.kind == SERVER).count(), 3, "the flow's spans, exported as the server exited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_over_http_with_the_server_as_a_separate_process() {
    let (_, receiver) = telemetry();
    let addr = {
        let free = TcpListener::bind("127.0.0.1:0").unwrap();
        free.local_addr().unwrap()
    };
    let mut server = provision(receiver, &["--http", &addr.to_string()]).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "provision did not listen on {addr}");
        assert!(server.try_wait().unwrap().is_none(), "provision exited");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let url = format!("http://{addr}/mcp");
    one_trace_per_flow(async |b| b.connect_http(&url).await.unwrap(), "tcp").await.close().await;
    server.kill().await.unwrap();
}
