//! JSON-RPC messages from arbitrary bytes, the way both transports read them, and the server on
//! whatever decodes: a server with a few tools (plain, with questions, with an `x-mcp-header`
//! argument), a prompt and resources, in a Tokio current-thread runtime whose clock is paused
//! (a request that waits forever is seen at once instead of stalling the fuzzer).
//!
//! Each input goes four ways:
//! - read as the server reads it (`fuzzing::check_typed_meta`): the same message as
//!   `Message::from_slice`, a carrier request's typed `_meta` aside, which must be what
//!   `RequestMeta::parse_modern` reads;
//! - decoded as one message (`serde_json` then `Message::from_value`, the step both transports
//!   share): a refusal is `-32600`; a message re-encodes to itself; a request goes through
//!   `Server::handle`, whose answer carries the request's id and re-decodes as a response;
//! - as the byte stream of a line connection (`serve_connection`, the stdio transport): every
//!   line it writes is a JSON-RPC message;
//! - as the body of an HTTP POST to the router, with the headers a faithful client would send
//!   for it (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `MCP-Protocol-Version`): no 5xx, a JSON
//!   answer is a response to the request, and faithful headers are never a `-32020` mismatch.
//!
//! Nothing may panic or wait forever (`subscriptions/listen` aside, which waits by design).
//!
//! `cd fuzz && cargo fuzz run -s none jsonrpc corpus/jsonrpc -- -max_total_time=60`

#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::{HeaderName, HeaderValue, Request as HttpRequest};
use libfuzzer_sys::fuzz_target;
use roundtrip::fuzzing::{check_typed_meta, client_encode_header_value, client_param_headers};
use roundtrip::prelude::*;
use roundtrip::protocol::{CallToolResult, Message, Request, ResponseBody, Tool};
use roundtrip::server::{Inbound, NullPeer, Outcome, ToolDef};
use roundtrip::transport::http::HttpOptions;
use roundtrip::transport::serve_connection;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::ServiceExt;

/// Greet someone, a few times.
#[tool(read_only)]
async fn greet(
    /// Who.
    name: String,
    /// How many times (at most 3 are said).
    times: Option<u32>,
) -> String {
    let times = times.unwrap_or(1).min(3) as usize;
    vec![format!("Hello, {name}!"); times].join(" ")
}

/// Book a table: a question, then one that names its answer.
#[tool]
async fn book(
    /// The city.
    city: String,
    #[resolve(elicit = "Which restaurant in {city}?")] restaurant: String,
    #[resolve(elicit = "How many people at {restaurant}?")] party: u32,
    #[resolve(elicit = "Really book in {city}?")] sure: Answer<bool>,
) -> String {
    format!("{party} at {restaurant} in {city} ({sure:?})")
}

/// Draft a release note.
#[prompt]
async fn release_note(
    /// The service.
    service: String,
    #[resolve(elicit = "What changed in {service}?")] changes: String,
) -> String {
    format!("Write a release note for {service}: {changes}")
}

/// The configuration.
#[resource("config://app", mime_type = "application/json")]
async fn config() -> String {
    r#"{"replicas": 3}"#.to_owned()
}

/// One day of a service's log.
#[resource_template("logs://{service}/{day}", mime_type = "text/plain")]
async fn log_file(service: String, day: String) -> String {
    format!("{day}: {service} started")
}

/// A hand-built tool whose arguments travel in `Mcp-Param-*` headers too.
fn deploy() -> ToolDef {
    let schema = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "replicas": {"type": "integer", "x-mcp-header": "Replicas"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
        },
        "required": ["region"]
    });
    let schema = serde_json::from_value(schema).unwrap_or_default();
    ToolDef::new(Tool::new("deploy", schema), |cx| async move {
        let region = cx.arguments().get("region").cloned().unwrap_or(Value::Null);
        Ok(Outcome::Complete(CallToolResult::text(format!("deployed to {region}"))))
    })
}

struct Fixture {
    rt: tokio::runtime::Runtime,
    server: Server,
    router: Router,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let server = Server::new("fuzz-rpc", "1.0.0")
            .tools(tools![greet, book])
            .tool(deploy())
            .prompts(prompts![release_note])
            .resources(resources![config, log_file]);
        let rt =
            tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().expect("a runtime");
        let router = {
            let _guard = rt.enter();
            server.router_with(HttpOptions::default().keep_alive(None).max_sessions(16))
        };
        Fixture { rt, server, router }
    })
}

/// Longer than anything a request may take (the clock is paused, so this costs nothing).
const PATIENCE: Duration = Duration::from_secs(3600);

fn waits_by_design(request: &Request) -> bool {
    request.method == "subscriptions/listen"
}

/// One message, decoded as both transports decode it, and handled.
async fn decoded(server: &Server, value: Value) {
    let message = match Message::from_value(value) {
        Ok(m) => m,
        Err((_, e)) => {
            assert_eq!(e.code, -32600, "{e:?}");
            return;
        }
    };
    let encoded = serde_json::to_value(&message).expect("a message serializes");
    assert_eq!(Message::from_value(encoded).as_ref(), Ok(&message), "a message re-encodes to itself");
    let Message::Request(request) = message else { return };
    let id = request.id.clone();
    let listen = waits_by_design(&request);
    let reply = tokio::time::timeout(PATIENCE, server.handle(request, Inbound::new(Arc::new(NullPeer)))).await;
    let Ok(reply) = reply else {
        assert!(listen, "Server::handle never answered");
        return;
    };
    if let Some(message) = reply.response {
        let again = serde_json::to_value(&message).expect("a response serializes");
        let response = message.into_response();
        assert_eq!(response.id.as_ref(), Some(&id), "the answer carries the request's id");
        match Message::from_value(again) {
            Ok(Message::Response(r)) => assert_eq!(r, response),
            other => panic!("a response re-decodes as {other:?}"),
        }
        if let ResponseBody::Error(e) = &response.body {
            assert!(!e.message.is_empty(), "{e:?}");
        }
    }
}

/// The input as the byte stream of a line connection, fed as a client would: a blank line
/// waits until the server is idle (its answers and questions written), so a later line can
/// answer a question the server asked (legacy back-channel); the input stays open until the
/// server is idle. Every line written is a message.
async fn line_connection(server: &Server, data: &[u8]) {
    let (mut client, server_end) = tokio::io::duplex(1 << 16);
    let (mut input, server_input) = tokio::io::duplex(1 << 16);
    let serve = serve_connection(server.clone(), server_input, server_end);
    let feed = async move {
        for chunk in data.split_inclusive(|&b| b == b'\n').collect::<Vec<_>>().split(|line| line == b"\n") {
            for line in chunk {
                input.write_all(line).await.expect("the connection reads its input");
            }
            input.write_all(b"\n").await.expect("the connection reads its input");
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        tokio::time::sleep(Duration::from_secs(60)).await;
    };
    let mut out = Vec::new();
    let read = client.read_to_end(&mut out);
    let (served, read, ()) = tokio::time::timeout(PATIENCE, async { tokio::join!(serve, read, feed) })
        .await
        .expect("a connection ends when its input does");
    served.expect("an in-memory connection has no I/O errors");
    read.expect("the client end reads");
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let value: Value = serde_json::from_slice(line).expect("every line written is JSON");
        if let Err((_, e)) = Message::from_value(value) {
            panic!("a line written is not a message: {e:?}: {}", String::from_utf8_lossy(line));
        }
    }
}

/// A header value as a faithful client sends it: `None` when it cannot be sent.
fn plain_header(value: &str) -> Option<HeaderValue> {
    let faithful = value.trim() == value && value.bytes().all(|b| (0x20..0x7f).contains(&b));
    faithful.then(|| HeaderValue::from_str(value).ok()).flatten()
}

/// The input as the body of a POST, with the headers a faithful client would send.
async fn http_post(fx: &Fixture, data: &[u8], value: Option<&Value>) {
    let mut builder = HttpRequest::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    let request = value.and_then(|v| match Message::from_value(v.clone()) {
        Ok(Message::Request(r)) => Some(r),
        _ => None,
    });
    // Whether every header the body calls for could be sent as it is.
    let mut faithful = true;
    if let Some(request) = &request {
        let params = request.params.as_ref();
        let meta_version =
            params.and_then(|p| p.get("_meta")).and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"));
        if let Some(version) = meta_version {
            match version.as_str().and_then(plain_header) {
                Some(v) => builder = builder.header("mcp-protocol-version", v),
                None => faithful = false,
            }
        }
        match plain_header(&request.method) {
            Some(v) => builder = builder.header("mcp-method", v),
            None => faithful = false,
        }
        let name_field = match request.method.as_str() {
            "tools/call" | "prompts/get" => Some("name"),
            "resources/read" => Some("uri"),
            "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
            _ => None,
        };
        if let Some(name) = name_field.and_then(|f| params?.get(f)?.as_str()) {
            let v =
                HeaderValue::from_str(&client_encode_header_value(name)).expect("the client's encoding is a header");
            builder = builder.header("mcp-name", v);
        }
        if request.method == "tools/call"
            && let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str)
            && let Some(tool) = fx.server.tool_defs().iter().find(|d| d.tool.name == name)
        {
            let arguments = params.and_then(|p| p.get("arguments")).cloned().unwrap_or(Value::Null);
            let sent = client_param_headers(&tool.tool.input_schema, &arguments).expect("the tools' headers are valid");
            for (header, value) in sent {
                let header = HeaderName::from_bytes(header.as_bytes()).expect("a header name");
                builder = builder.header(header, HeaderValue::from_str(&value).expect("a header value"));
            }
            // The client sends no header for an argument it cannot encode (a fraction, an
            // object): the server then rightly reports a mismatch.
            faithful &= arguments.as_object().is_none_or(|a| {
                ["region", "replicas", "dry"].iter().all(|k| match a.get(*k) {
                    Some(Value::Number(n)) => n.as_i64().is_some() || n.as_u64().is_some(),
                    Some(Value::Object(_) | Value::Array(_)) => false,
                    _ => true,
                })
            });
        }
    }
    let http_request = builder.body(Body::from(data.to_vec())).expect("a request");
    let response = fx.router.clone().oneshot(http_request).await.expect("the router is infallible");
    let status = response.status();
    assert!(!status.is_server_error(), "HTTP {status}");
    let json = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let body = tokio::time::timeout(PATIENCE, axum::body::to_bytes(response.into_body(), usize::MAX)).await;
    let Ok(body) = body else {
        assert!(request.as_ref().is_some_and(waits_by_design), "the HTTP answer never ended");
        return;
    };
    let body = body.expect("an in-memory body reads");
    if !json || body.is_empty() {
        return;
    }
    let value: Value = serde_json::from_slice(&body).expect("a JSON answer is JSON");
    let Ok(Message::Response(response)) = Message::from_value(value) else {
        panic!("a JSON answer is a response: {}", String::from_utf8_lossy(&body));
    };
    if let (Some(request), Some(id)) = (&request, &response.id) {
        assert_eq!(id, &request.id, "the answer carries the request's id");
    }
    if let (Some(request), ResponseBody::Error(e)) = (&request, &response.body) {
        let modern = request
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .is_some_and(|m| m.get("io.modelcontextprotocol/protocolVersion").is_some());
        assert!(!(faithful && modern && e.code == -32020), "faithful headers refused: {e:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    if let Err(why) = check_typed_meta(data) {
        panic!("the server's typed reading disagrees: {why}");
    }
    let fx = fixture();
    let value = serde_json::from_slice::<Value>(data).ok();
    fx.rt.block_on(async {
        if let Some(value) = value.clone().filter(|v| !v.is_array()) {
            decoded(&fx.server, value).await;
        }
        line_connection(&fx.server, data).await;
        http_post(fx, data, value.as_ref()).await;
    });
});
