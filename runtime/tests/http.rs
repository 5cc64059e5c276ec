//! The streamable HTTP transport, end to end over a real socket.

// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod common;

use roundtrip::ServeHttp;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use roundtrip::Server;
use roundtrip::protocol::{
    CallToolResult, JsonObject, ReadResourceResult, Resource, ResourceContents, Tool, empty_input_schema,
};
use roundtrip::server::{InputRequired, ListChange, Outcome, ResourceDef, ToolDef};
use roundtrip::transport::http::{HostCheck, HttpOptions};
use serde_json::{Value, json};

const V: &str = "2026-07-28";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";

fn name_schema() -> JsonObject {
    serde_json::from_value(json!({
        "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"]
    }))
    .expect("object")
}

fn test_server(cancelled: Arc<AtomicBool>) -> Server {
    Server::new("http-test", "1.0.0")
        .resource(ResourceDef::new(Resource::new("test://watched", "watched"), |cx| async move {
            Ok(Outcome::Complete(ReadResourceResult::new(vec![ResourceContents::text(cx.target(), None, "watched")])))
        }))
        .tool(ToolDef::new(Tool::new("hello", empty_input_schema()), |_cx| async {
            Ok(Outcome::Complete(CallToolResult::text("Hello!")))
        }))
        .tool(ToolDef::new(Tool::new("progress", empty_input_schema()), |cx| async move {
            cx.progress(0.0, Some(100.0), None);
            tokio::time::sleep(Duration::from_millis(20)).await;
            cx.progress(50.0, Some(100.0), Some("half"));
            tokio::time::sleep(Duration::from_millis(20)).await;
            Ok(Outcome::Complete(CallToolResult::text("done")))
        }))
        // Progress sent in the same poll that completes the call (no await in between).
        .tool(ToolDef::new(Tool::new("last_progress", empty_input_schema()), |cx| async move {
            cx.progress(0.0, Some(100.0), None);
            tokio::time::sleep(Duration::from_millis(20)).await;
            cx.progress(50.0, Some(100.0), None);
            cx.progress(100.0, Some(100.0), None);
            Ok(Outcome::Complete(CallToolResult::text("done")))
        }))
        .tool(ToolDef::new(Tool::new("instant_progress", empty_input_schema()), |cx| async move {
            cx.progress(100.0, Some(100.0), None);
            Ok(Outcome::Complete(CallToolResult::text("done")))
        }))
        .tool(ToolDef::new(Tool::new("hang", empty_input_schema()), move |cx| {
            let dropped = SetOnDrop(cancelled.clone());
            async move {
                let _dropped = dropped;
                cx.progress(1.0, None, Some("started"));
                // Never completes: only cancellation (which drops this future) ends it.
                std::future::pending::<()>().await;
                Ok(Outcome::Complete(CallToolResult::text("unreachable")))
            }
        }))
        .tools(common::panicking_tools())
        .tool(ToolDef::new(Tool::new("ask_name", empty_input_schema()), |cx| async move {
            match cx.elicit_result("user_name").and_then(|r| r.content) {
                Some(content) => {
                    let name = content.get("name").and_then(Value::as_str).unwrap_or("?").to_owned();
                    Ok(Outcome::Complete(CallToolResult::text(format!("Hello, {name}!"))))
                }
                None => Ok(InputRequired::new().elicit("user_name", "What is your name?", name_schema()).into()),
            }
        }))
}

/// Records that a handler's future was dropped (the request was cancelled).
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct Harness {
    url: String,
    port: u16,
    client: reqwest::Client,
    server: Server,
    cancelled: Arc<AtomicBool>,
}

async fn start() -> Harness {
    start_with(HttpOptions::default()).await
}

async fn start_with(options: HttpOptions) -> Harness {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = test_server(cancelled.clone());
    let http = server.clone().bind_http_with("127.0.0.1:0", options).await.expect("bind");
    let url = http.url();
    let port = http.local_addr().port();
    tokio::spawn(http.run());
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client");
    Harness { url, port, client, server, cancelled }
}

fn meta() -> Value {
    json!({ META_VERSION: V, META_CAPS: { "elicitation": {} } })
}

impl Harness {
    fn post(&self) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
    }

    /// A well-formed 2026 request: `_meta` merged into `params`, headers derived from the body.
    async fn modern(&self, id: Value, method: &str, mut params: Value) -> reqwest::Response {
        let obj = params.as_object_mut().expect("params object");
        let mut m = meta();
        if let Some(extra) = obj.get("_meta").and_then(Value::as_object) {
            for (k, v) in extra {
                m[k] = v.clone();
            }
        }
        obj.insert("_meta".into(), m);
        let name = obj.get("name").or_else(|| obj.get("uri")).and_then(Value::as_str).map(str::to_owned);
        let mut req = self.post().header("MCP-Protocol-Version", V).header("Mcp-Method", method);
        if let Some(name) = name {
            req = req.header("Mcp-Name", name);
        }
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        req.body(body.to_string()).send().await.expect("send")
    }

    async fn raw(&self, headers: &[(&str, &str)], body: impl Into<reqwest::Body>) -> reqwest::Response {
        let mut req = self.post();
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.body(body).send().await.expect("send")
    }
}

async fn json_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let ct = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let text = response.text().await.expect("body");
    assert!(ct.starts_with("application/json"), "expected JSON, got {ct:?}: {text}");
    let body: Value = serde_json::from_str(&text).expect("JSON body");
    valid(&body);
    (status, body)
}

/// Every message the server sends is valid under the official schema of its era: a result
/// with `resultType` (or an event of a 2026 stream) under 2026-07-28, one without under
/// 2025-11-25; server-to-client requests exist only in 2025-11-25; errors and notifications
/// must be valid in one of the two.
fn valid(message: &Value) {
    const MODERN: &str = "2026-07-28";
    const LEGACY: &str = "2025-11-25";
    if let Some(result) = message.get("result") {
        let era = if result.get("resultType").is_some() { MODERN } else { LEGACY };
        common::assert_valid(era, "JSONRPCResultResponse", message);
    } else if message.get("error").is_some() {
        common::assert_valid(MODERN, "JSONRPCErrorResponse", message);
        common::assert_valid(LEGACY, "JSONRPCErrorResponse", message);
    } else if message.get("id").is_some() {
        common::assert_valid(LEGACY, "ServerRequest", message);
    } else if !common::is_valid(MODERN, "ServerNotification", message) {
        common::assert_valid(LEGACY, "ServerNotification", message);
    }
}

fn code(body: &Value) -> i64 {
    body["error"]["code"].as_i64().unwrap_or_else(|| panic!("no error code in {body}"))
}

/// Reads `data:` events of an SSE response one by one.
struct Sse {
    stream: BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buf: String,
}

impl Sse {
    fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status().as_u16(), 200);
        let headers = response.headers();
        assert_eq!(headers.get("content-type").and_then(|v| v.to_str().ok()), Some("text/event-stream"));
        assert_eq!(headers.get("x-accel-buffering").and_then(|v| v.to_str().ok()), Some("no"));
        Self { stream: response.bytes_stream().boxed(), buf: String::new() }
    }

    /// The next event's JSON, or `None` when the stream ended.
    async fn next(&mut self) -> Option<Value> {
        tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                if let Some(end) = self.buf.find("\n\n") {
                    let event: String = self.buf.drain(..end + 2).collect();
                    let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
                    if data.is_empty() {
                        continue; // a comment (keep-alive)
                    }
                    let message: Value = serde_json::from_str(&data.join("\n")).expect("event JSON");
                    valid(&message);
                    return Some(message);
                }
                match self.stream.next().await {
                    Some(chunk) => self.buf.push_str(std::str::from_utf8(&chunk.expect("chunk")).expect("utf8")),
                    None => return None,
                }
            }
        })
        .await
        .expect("SSE event within 10 s")
    }
}

// ---------------------------------------------------------------- 2026-07-28

#[tokio::test]
async fn modern_list_and_call_answer_json() {
    let h = start().await;
    let r = h.modern(json!(1), "tools/list", json!({})).await;
    assert!(r.headers().get("mcp-session-id").is_none());
    let (status, body) = json_of(r).await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["resultType"], "complete");
    let names: Vec<&str> =
        body["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"hello") && names.contains(&"ask_name"), "{names:?}");

    let (status, body) = json_of(h.modern(json!("call-1"), "tools/call", json!({"name": "hello"})).await).await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], "call-1");
    assert_eq!(body["result"]["content"][0]["text"], "Hello!");

    let (status, body) = json_of(h.modern(json!(3), "tools/call", json!({"name": "ask_name"})).await).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["resultType"], "input_required");
    assert_eq!(body["result"]["inputRequests"]["user_name"]["method"], "elicitation/create");
}

#[tokio::test]
async fn a_handler_that_panics_answers_500_and_the_server_goes_on() {
    let h = start().await;
    for (id, tool) in [(1, "panics_at_once"), (2, "panics_later")] {
        let (status, body) = json_of(h.modern(json!(id), "tools/call", json!({"name": tool})).await).await;
        assert_eq!(status, 500, "{tool}: {body}");
        assert_eq!(body["id"], id, "{tool}: {body}");
        assert_eq!(code(&body), -32603, "{tool}: {body}");
        assert_eq!(body["error"]["message"], "the request handler panicked", "{tool}: {body}");
    }
    let (status, body) = json_of(h.modern(json!(3), "tools/call", json!({"name": "hello"})).await).await;
    assert_eq!((status, &body["result"]["content"][0]["text"]), (200, &json!("Hello!")));
}

#[tokio::test]
async fn modern_session_header_is_ignored_not_echoed() {
    let h = start().await;
    let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta()}});
    let r = h
        .raw(
            &[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list"), ("Mcp-Session-Id", "nonexistent")],
            body.to_string(),
        )
        .await;
    assert!(r.headers().get("mcp-session-id").is_none());
    assert_eq!(json_of(r).await.0, 200);
}

#[tokio::test]
async fn modern_envelope_errors() {
    let h = start().await;
    // No _meta at all, the header says 2026: the server's -32602.
    let body = json!({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}});
    let (status, b) =
        json_of(h.raw(&[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")], body.to_string()).await).await;
    assert_eq!((status, code(&b)), (400, -32602));
    assert_eq!(b["id"], 7);

    // _meta without the version key.
    let body = json!({"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{META_CAPS:{}}}});
    let (status, b) =
        json_of(h.raw(&[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")], body.to_string()).await).await;
    assert_eq!((status, code(&b)), (400, -32602));

    // Unknown version, header and body agreeing.
    let body = json!({"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{META_VERSION:"2099-01-01",META_CAPS:{}}}});
    let (status, b) =
        json_of(h.raw(&[("MCP-Protocol-Version", "2099-01-01"), ("Mcp-Method", "tools/list")], body.to_string()).await)
            .await;
    assert_eq!((status, code(&b)), (400, -32022));
    assert_eq!(b["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(b["error"]["data"]["supported"], json!([V]));
    assert_eq!(b["id"], 9);
}

#[tokio::test]
async fn modern_header_mismatches_are_32020() {
    let h = start().await;
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta()}}).to_string();
    // Version header missing while the body claims one.
    let (s, b) = json_of(h.raw(&[("Mcp-Method", "tools/list")], list.clone()).await).await;
    assert_eq!((s, code(&b)), (400, -32020));
    assert!(b["error"]["message"].as_str().unwrap().contains("MCP-Protocol-Version"));
    assert_eq!(b["id"], 1);
    // Version header disagreeing.
    let (s, b) =
        json_of(h.raw(&[("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Method", "tools/list")], list.clone()).await)
            .await;
    assert_eq!((s, code(&b)), (400, -32020));
    // Mcp-Method missing, then wrong; names are case-insensitive and values trimmed.
    let (s, b) = json_of(h.raw(&[("MCP-Protocol-Version", V)], list.clone()).await).await;
    assert_eq!((s, code(&b)), (400, -32020));
    assert!(b["error"]["message"].as_str().unwrap().contains("Mcp-Method"));
    let (s, b) =
        json_of(h.raw(&[("MCP-Protocol-Version", V), ("mcp-method", "prompts/list")], list.clone()).await).await;
    assert_eq!((s, code(&b)), (400, -32020));
    let (s, _) = json_of(h.raw(&[("mcp-protocol-version", V), ("MCP-METHOD", "  tools/list ")], list).await).await;
    assert_eq!(s, 200);

    let call =
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta": meta(), "name": "hello"}}).to_string();
    let base = [("MCP-Protocol-Version", V), ("Mcp-Method", "tools/call")];
    let (s, b) = json_of(h.raw(&base, call.clone()).await).await;
    assert_eq!((s, code(&b)), (400, -32020), "missing Mcp-Name");
    let (s, b) = json_of(h.raw(&[base[0], base[1], ("Mcp-Name", "other")], call.clone()).await).await;
    assert_eq!((s, code(&b)), (400, -32020), "wrong Mcp-Name");
    // base64("hello")
    let (s, b) = json_of(h.raw(&[base[0], base[1], ("Mcp-Name", "=?base64?aGVsbG8=?=")], call).await).await;
    assert_eq!(s, 200, "{b}");
}

#[tokio::test]
async fn modern_unknown_and_legacy_only_methods_are_404() {
    let h = start().await;
    for (i, method) in ["nope/nothing", "initialize", "ping", "logging/setLevel"].into_iter().enumerate() {
        let (s, b) = json_of(h.modern(json!(i), method, json!({})).await).await;
        assert_eq!((s, code(&b)), (404, -32601), "{method}");
        assert_eq!(b["id"], i);
    }
    // initialize whose body has no _meta but whose header is modern: still the 2026 path.
    let init = json!({"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let r = h.raw(&[("MCP-Protocol-Version", V), ("Mcp-Method", "initialize")], init.to_string()).await;
    assert!(r.headers().get("mcp-session-id").is_none());
    let (s, b) = json_of(r).await;
    assert_eq!((s, code(&b)), (404, -32601));
}

#[tokio::test]
async fn get_and_delete_without_session_are_405() {
    let h = start().await;
    let r = h.client.get(&h.url).header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(r.headers().get("allow").unwrap(), "GET, POST, DELETE");
    let r = h.client.delete(&h.url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(r.headers().get("allow").unwrap(), "GET, POST, DELETE");
}

#[tokio::test]
async fn progress_switches_to_sse_and_ends_with_the_result() {
    let h = start().await;
    let r = h.modern(json!(11), "tools/call", json!({"name": "progress", "_meta": {"progressToken": "tok"}})).await;
    assert_eq!(r.headers().get("cache-control").unwrap(), "no-cache");
    let mut sse = Sse::new(r);
    let first = sse.next().await.unwrap();
    assert_eq!(first["method"], "notifications/progress");
    assert_eq!(first["params"]["progressToken"], "tok");
    assert_eq!(first["params"]["progress"], 0.0);
    let second = sse.next().await.unwrap();
    assert_eq!(second["params"]["progress"], 50.0);
    let last = sse.next().await.unwrap();
    assert_eq!(last["id"], 11);
    assert_eq!(last["result"]["content"][0]["text"], "done");
    assert!(sse.next().await.is_none(), "the stream ends after the result");
}

/// The handler runs inside the request's future: notifications it sends in the very poll
/// that completes it must still go out, and before the result.
#[tokio::test]
async fn progress_sent_as_the_handler_completes_is_not_lost() {
    let h = start().await;
    for (tool, expected) in [("last_progress", vec![0.0, 50.0, 100.0]), ("instant_progress", vec![100.0])] {
        let r = h.modern(json!(12), "tools/call", json!({"name": tool, "_meta": {"progressToken": "tok"}})).await;
        let mut sse = Sse::new(r);
        let mut seen = Vec::new();
        let last = loop {
            let event = sse.next().await.unwrap();
            if event["method"] == "notifications/progress" {
                seen.push(event["params"]["progress"].as_f64().unwrap());
            } else {
                break event;
            }
        };
        assert_eq!(seen, expected, "{tool}");
        assert_eq!(last["result"]["content"][0]["text"], "done", "{tool}");
        assert!(sse.next().await.is_none(), "{tool}: the stream ends after the result");
    }
}

#[tokio::test]
async fn progress_without_token_stays_json() {
    let h = start().await;
    let (s, b) = json_of(h.modern(json!(1), "tools/call", json!({"name": "progress"})).await).await;
    assert_eq!(s, 200);
    assert_eq!(b["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn dropping_the_stream_cancels_the_handler() {
    let h = start().await;
    let r = h.modern(json!(1), "tools/call", json!({"name": "hang", "_meta": {"progressToken": 1}})).await;
    let mut sse = Sse::new(r);
    assert_eq!(sse.next().await.unwrap()["method"], "notifications/progress");
    assert!(!h.cancelled.load(Ordering::SeqCst));
    drop(sse);
    assert!(eventually(&h.cancelled).await, "the handler was not cancelled when the client went away");
}

async fn eventually(flag: &AtomicBool) -> bool {
    for _ in 0..200 {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn subscriptions_listen_streams_until_the_client_leaves() {
    let h = start().await;
    let r = h.modern(json!("sub"), "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})).await;
    let mut sse = Sse::new(r);
    let ack = sse.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "sub");
    h.server.notify_list_changed(ListChange::Tools);
    let change = sse.next().await.unwrap();
    assert_eq!(change["method"], "notifications/tools/list_changed");
}

// ---------------------------------------------------------------- malformed bodies

#[tokio::test]
async fn malformed_bodies() {
    let h = start().await;
    let (s, b) = json_of(h.raw(&[], "{not json").await).await;
    assert_eq!((s, code(&b)), (400, -32700));
    assert!(b.get("id").is_none());

    let (s, b) = json_of(h.raw(&[], vec![b'{', b'"', 0xff, 0xfe, b'"', b':', b'1', b'}']).await).await;
    assert_eq!((s, code(&b)), (400, -32700), "invalid UTF-8");

    let batch = json!([{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta()}}]);
    let (s, b) =
        json_of(h.raw(&[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")], batch.to_string()).await).await;
    assert_eq!((s, code(&b)), (400, -32600));
    assert!(b["error"]["message"].as_str().unwrap().contains("batch"));

    let (s, b) = json_of(h.raw(&[], r#"{"jsonrpc":"2.0","id":42,"method":"tools/list","params":[1,2]}"#).await).await;
    assert_eq!((s, code(&b)), (400, -32600));
    assert_eq!(b["id"], 42, "the error echoes the id");

    let r = h.client.post(&h.url).header("content-type", "text/plain").body("{}").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 415);
}

#[tokio::test]
async fn deep_nesting_is_a_parse_error_and_the_server_survives() {
    let h = start().await;
    let deep = "[".repeat(100_000);
    let (s, b) = json_of(h.raw(&[], deep).await).await;
    assert_eq!((s, code(&b)), (400, -32700));
    let deep_obj = r#"{"a":"#.repeat(50_000);
    let (s, b) = json_of(h.raw(&[], deep_obj).await).await;
    assert_eq!((s, code(&b)), (400, -32700));
    let (s, _) = json_of(h.modern(json!(1), "tools/list", json!({})).await).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn bodies_over_the_limit_are_413() {
    let h = start().await;
    let big =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"pad":"{}"}}}}"#, "x".repeat(5 << 20));
    let (s, b) = json_of(h.raw(&[], big).await).await;
    assert_eq!((s, code(&b)), (413, -32600));
    assert_eq!(b["error"]["message"], "request body too large");

    // Without Content-Length (chunked): the limit applies while reading.
    let small = start_with(HttpOptions::default().max_body_bytes(1024)).await;
    let chunks = futures::stream::iter((0..64).map(|_| Ok::<_, std::io::Error>(vec![b' '; 100])));
    let r = small.post().body(reqwest::Body::wrap_stream(chunks)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 413);
    let (s, _) = json_of(small.modern(json!(1), "tools/list", json!({})).await).await;
    assert_eq!(s, 200);
}

// ---------------------------------------------------------------- host protection

#[tokio::test]
async fn host_header_protection_on_loopback() {
    let h = start().await;
    let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta()}}).to_string();
    let headers = [("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")];
    let (s, b) = json_of(h.raw(&[headers[0], headers[1], ("Host", "evil.example.com")], body.clone()).await).await;
    assert_eq!((s, code(&b)), (403, -32000));
    assert!(b.get("id").is_none());
    let host = format!("localhost:{}", h.port);
    let (s, _) = json_of(h.raw(&[headers[0], headers[1], ("Host", &host)], body.clone()).await).await;
    assert_eq!(s, 200);
    let (s, b) =
        json_of(h.raw(&[headers[0], headers[1], ("Origin", "https://evil.example.com")], body.clone()).await).await;
    assert_eq!((s, code(&b)), (403, -32000));
    let (s, _) =
        json_of(h.raw(&[headers[0], headers[1], ("Origin", "http://localhost:5173")], body.clone()).await).await;
    assert_eq!(s, 200);

    let open = start_with(HttpOptions::default().allowed_hosts(HostCheck::Off)).await;
    let (s, _) = json_of(open.raw(&[headers[0], headers[1], ("Host", "evil.example.com")], body).await).await;
    assert_eq!(s, 200);
}

// ---------------------------------------------------------------- legacy sessions

const LEGACY: &str = "2025-11-25";

async fn initialize(h: &Harness) -> String {
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion": LEGACY, "capabilities": {"elicitation": {}}, "clientInfo": {"name": "c", "version": "1"}}});
    let r = h.raw(&[], init.to_string()).await;
    let session = r.headers().get("mcp-session-id").expect("Mcp-Session-Id").to_str().unwrap().to_owned();
    let (s, b) = json_of(r).await;
    assert_eq!(s, 200);
    assert_eq!(b["result"]["protocolVersion"], LEGACY);
    assert!(b["result"].get("resultType").is_none());
    let r = h.raw(&[("Mcp-Session-Id", &session)], r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(r.status().as_u16(), 202);
    session
}

#[tokio::test]
async fn legacy_elicitation_travels_on_the_post_stream() {
    let h = start().await;
    let session = initialize(&h).await;
    let sh = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", LEGACY)];

    let (s, b) = json_of(h.raw(&sh, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await).await;
    assert_eq!((s, b["result"].clone()), (200, json!({})));

    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_name","arguments":{}}});
    let mut sse = Sse::new(h.raw(&sh, call.to_string()).await);
    let ask = sse.next().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "What is your name?");
    let ask_id = ask["id"].clone();
    assert!(!ask_id.is_null());

    let answer = json!({"jsonrpc":"2.0","id":ask_id,"result":{"action":"accept","content":{"name":"Ada"}}});
    let r = h.raw(&sh, answer.to_string()).await;
    assert_eq!(r.status().as_u16(), 202);

    let result = sse.next().await.unwrap();
    assert_eq!(result["id"], 2);
    assert_eq!(result["result"]["content"][0]["text"], "Hello, Ada!");
    assert!(result["result"].get("resultType").is_none(), "legacy results carry no resultType");
    assert!(sse.next().await.is_none());
}

#[tokio::test]
async fn legacy_session_errors() {
    let h = start().await;
    let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    let (s, b) = json_of(h.raw(&[], list).await).await;
    assert_eq!((s, code(&b)), (400, -32600), "missing session id");
    assert_eq!(b["id"], 3);
    let r = h.raw(&[("Mcp-Session-Id", "no-such-session")], list).await;
    assert_eq!(r.status().as_u16(), 404);

    let session = initialize(&h).await;
    let (s, b) = json_of(h.raw(&[("Mcp-Session-Id", &session)], list).await).await;
    assert_eq!(s, 200);
    assert!(b["result"]["tools"].is_array());
    let r = h.raw(&[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "1999-01-01")], list).await;
    assert_eq!(r.status().as_u16(), 400);

    let r = h.client.delete(&h.url).header("Mcp-Session-Id", &session).send().await.unwrap();
    assert!(r.status().is_success());
    let r = h.raw(&[("Mcp-Session-Id", &session)], list).await;
    assert_eq!(r.status().as_u16(), 404);
    let r = h.client.delete(&h.url).header("Mcp-Session-Id", &session).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
}

#[tokio::test]
async fn legacy_cancel_notification_ends_the_request() {
    let h = start().await;
    let session = initialize(&h).await;
    let call =
        json!({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"hang","_meta":{"progressToken":"p"}}});
    let mut sse = Sse::new(h.raw(&[("Mcp-Session-Id", &session)], call.to_string()).await);
    assert_eq!(sse.next().await.unwrap()["method"], "notifications/progress");
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}});
    let r = h.raw(&[("Mcp-Session-Id", &session)], cancel.to_string()).await;
    assert_eq!(r.status().as_u16(), 202);
    assert!(sse.next().await.is_none(), "a cancelled request sends nothing more");
    assert!(eventually(&h.cancelled).await, "the handler was cancelled");
}

#[tokio::test]
async fn client_response_without_a_known_session() {
    let h = start().await;
    let answer = r#"{"jsonrpc":"2.0","id":0,"result":{}}"#;
    assert_eq!(h.raw(&[], answer).await.status().as_u16(), 400);
    assert_eq!(h.raw(&[("Mcp-Session-Id", "gone")], answer).await.status().as_u16(), 404);
}

/// `GET` on the endpoint with these headers.
async fn get(h: &Harness, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut req = h.client.get(&h.url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn legacy_get_stream_carries_list_changes() {
    let h = start().await;
    let session = initialize(&h).await;
    let sh = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", LEGACY)];
    let r = get(&h, &[sh[0], sh[1], ("Accept", "text/event-stream")]).await;
    assert_eq!(r.headers().get("cache-control").unwrap(), "no-cache");
    let mut sse = Sse::new(r);

    h.server.notify_list_changed(ListChange::Tools);
    let change = sse.next().await.unwrap();
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert!(change.get("id").is_none());
    h.server.notify_list_changed(ListChange::Resources);
    assert_eq!(sse.next().await.unwrap()["method"], "notifications/resources/list_changed");

    // Requests still get their answers on their own POST, not on the GET stream.
    let (s, b) = json_of(h.raw(&sh, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await).await;
    assert_eq!((s, b["id"].clone()), (200, json!(1)));
    h.server.notify_list_changed(ListChange::Prompts);
    assert_eq!(sse.next().await.unwrap()["method"], "notifications/prompts/list_changed");

    // Ending the session ends its stream.
    let r = h.client.delete(&h.url).header(sh[0].0, sh[0].1).header(sh[1].0, sh[1].1).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(sse.next().await.is_none(), "the stream ends with its session");
}

#[tokio::test]
async fn legacy_get_stream_sends_keep_alive_comments() {
    let h = start_with(HttpOptions::default().keep_alive(Some(Duration::from_millis(50)))).await;
    let session = initialize(&h).await;
    let r = get(&h, &[("Mcp-Session-Id", &session), ("Accept", "text/event-stream")]).await;
    assert_eq!(r.status().as_u16(), 200);
    let mut body = r.bytes_stream();
    let mut seen = String::new();
    let found = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(chunk) = body.next().await {
            seen.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
            if seen.matches(": keep-alive\n\n").count() >= 2 {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "keep-alive comments: {seen:?}");
}

#[tokio::test]
async fn delete_ends_the_session() {
    let h = start().await;
    let session = initialize(&h).await;
    let other = initialize(&h).await;
    let sh = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", LEGACY)];
    let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    assert_eq!(json_of(h.raw(&sh, list).await).await.0, 200);

    let r = h.client.delete(&h.url).header(sh[0].0, sh[0].1).header(sh[1].0, sh[1].1).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    // Every later request with that id: 404 (the client starts a new session).
    let (s, b) = json_of(h.raw(&sh, list).await).await;
    assert_eq!((s, code(&b)), (404, -32600));
    let (s, _) = json_of(get(&h, &[sh[0], sh[1], ("Accept", "text/event-stream")]).await).await;
    assert_eq!(s, 404);
    let r = h.client.delete(&h.url).header(sh[0].0, sh[0].1).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
    // Other sessions live on.
    assert_eq!(json_of(h.raw(&[("Mcp-Session-Id", &other)], list).await).await.0, 200);
}

#[tokio::test]
async fn get_and_delete_answers_without_a_usable_session() {
    let h = start().await;
    let session = initialize(&h).await;
    let sse = ("Accept", "text/event-stream");
    let sid = ("Mcp-Session-Id", session.as_str());
    // A legacy revision without a session: the session is missing (400).
    let (s, b) = json_of(get(&h, &[sse, ("MCP-Protocol-Version", LEGACY)]).await).await;
    assert_eq!((s, code(&b)), (400, -32600));
    let (s, _) = json_of(h.client.delete(&h.url).header("MCP-Protocol-Version", LEGACY).send().await.unwrap()).await;
    assert_eq!(s, 400);
    // An unknown session: 404.
    let (s, _) = json_of(get(&h, &[sse, ("Mcp-Session-Id", "no-such-session")]).await).await;
    assert_eq!(s, 404);
    // A 2026-07-28 request ignores the session id: 405, and the session lives on.
    let r = get(&h, &[sse, sid, ("MCP-Protocol-Version", V)]).await;
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(r.headers().get("allow").unwrap(), "GET, POST, DELETE");
    let r = h.client.delete(&h.url).header(sid.0, sid.1).header("MCP-Protocol-Version", V).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 405);
    // An unsupported revision: 400.
    let (s, _) = json_of(get(&h, &[sse, sid, ("MCP-Protocol-Version", "1999-01-01")]).await).await;
    assert_eq!(s, 400);
    // A client that does not take SSE: 406.
    let (s, _) = json_of(get(&h, &[sid, ("Accept", "application/json")]).await).await;
    assert_eq!(s, 406);
    // The session is still there.
    let r = get(&h, &[sse, sid]).await;
    assert_eq!(r.status().as_u16(), 200);
}

#[tokio::test]
async fn run_until_ends_open_streams_and_returns() {
    let server = test_server(Arc::new(AtomicBool::new(false)));
    let http = server.bind_http("127.0.0.1:0").await.expect("bind");
    let url = http.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    let body =
        json!({"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta": meta(), "notifications": {}}});
    let r = client
        .post(&url)
        .header("content-type", "application/json")
        .header("MCP-Protocol-Version", V)
        .header("Mcp-Method", "subscriptions/listen")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(r);
    assert_eq!(sse.next().await.unwrap()["method"], "notifications/subscriptions/acknowledged");
    stop.send(()).unwrap();
    assert!(sse.next().await.is_none(), "shutdown ends the stream");
    let result = tokio::time::timeout(Duration::from_secs(10), serving).await.expect("shutdown within 10 s");
    result.expect("no panic").expect("no I/O error");
}

#[tokio::test]
async fn run_until_answers_the_request_in_hand_closes_idle_connections_and_accepts_no_more() {
    let server =
        Server::new("graceful", "1.0.0").tool(ToolDef::new(Tool::new("slow", empty_input_schema()), |_cx| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(Outcome::Complete(CallToolResult::text("finished")))
        }));
    let http = server.bind_http("127.0.0.1:0").await.expect("bind");
    let (url, addr) = (http.url(), http.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    let call = |id: u64| {
        let body = json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"_meta": meta(), "name": "slow"}});
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("MCP-Protocol-Version", V)
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "slow")
            .body(body.to_string())
            .send()
    };
    // One call first, so the client keeps an idle connection open besides the next one.
    assert_eq!(call(1).await.expect("answered").status(), 200);
    let in_hand = tokio::spawn(call(2));
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).expect("serving");
    let answered = in_hand.await.expect("no panic").expect("the request in hand is answered");
    assert_eq!(answered.status(), 200);
    assert!(answered.text().await.expect("body").contains("finished"));
    let result = tokio::time::timeout(Duration::from_secs(10), serving).await.expect("shutdown within 10 s");
    result.expect("no panic").expect("no I/O error");
    assert!(tokio::net::TcpStream::connect(addr).await.is_err(), "no connection is accepted after shutdown");
}

#[tokio::test]
async fn legacy_get_stream_carries_updates_of_subscribed_resources_only() {
    let h = start().await;
    let session = initialize(&h).await;
    let sh = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", LEGACY)];
    let mut sse = Sse::new(get(&h, &[sh[0], sh[1], ("Accept", "text/event-stream")]).await);
    let subscribe = r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://watched"}}"#;
    let (s, b) = json_of(h.raw(&sh, subscribe).await).await;
    assert_eq!((s, b["result"].clone()), (200, json!({})), "{b}");
    h.server.notify_resource_updated("test://other");
    h.server.notify_resource_updated("test://watched");
    let update = sse.next().await.unwrap();
    assert_eq!(update["method"], "notifications/resources/updated");
    assert_eq!(update["params"], json!({"uri": "test://watched"}), "only the subscribed URI, and it first");
    let unsubscribe = r#"{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"test://watched"}}"#;
    json_of(h.raw(&sh, unsubscribe).await).await;
    h.server.notify_resource_updated("test://watched");
    h.server.notify_list_changed(ListChange::Tools);
    assert_eq!(
        sse.next().await.unwrap()["method"],
        "notifications/tools/list_changed",
        "no update after unsubscribing"
    );
}
