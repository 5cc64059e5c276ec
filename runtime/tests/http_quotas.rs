//! What one HTTP caller can hold, over real sockets: long-lived streams have their own budget
//! (per caller too), legacy sessions are bounded per caller and never evicted across callers,
//! every bind checks `Origin`, and the smaller header rules (duplicate MCP headers,
//! `Content-Type` as a media type, `Allow`).

#![allow(clippy::unwrap_used)] // a test fails loudly

use roundtrip::ServeHttp;
use std::time::Duration;

use axum::extract::Request;
use axum::middleware::Next;
use roundtrip::Server;
use roundtrip::auth::AuthPrincipal;
use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
use roundtrip::server::{Outcome, ToolDef};
use roundtrip::transport::http::{HostCheck, HttpOptions};
use serde_json::{Value, json};

const V: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn server() -> Server {
    Server::new("quota-test", "1.0.0").tool(ToolDef::new(Tool::new("hello", empty_input_schema()), |_cx| async {
        Ok(Outcome::Complete(CallToolResult::text("Hello!")))
    }))
}

/// The caller named by the `x-user` header, as an authentication layer in front of the
/// endpoint would set it.
async fn principal_from_header(mut request: Request, next: Next) -> axum::response::Response {
    if let Some(user) = request.headers().get("x-user").and_then(|v| v.to_str().ok()) {
        let principal = AuthPrincipal::new(user);
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}

/// The endpoint behind that layer; its URL.
async fn serve_with_principals(options: HttpOptions) -> String {
    let router = server().router_with(options).layer(axum::middleware::from_fn(principal_from_header));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap()
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}})
}

fn modern(client: &reqwest::Client, url: &str, user: &str, method: &str, params: Value) -> reqwest::RequestBuilder {
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", V)
        .header("mcp-method", method)
        .header("x-user", user);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    request.body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string())
}

fn listen(client: &reqwest::Client, url: &str, user: &str) -> reqwest::RequestBuilder {
    modern(
        client,
        url,
        user,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}, "_meta": meta()}),
    )
}

fn hello(client: &reqwest::Client, url: &str, user: &str) -> reqwest::RequestBuilder {
    modern(client, url, user, "tools/call", json!({"name": "hello", "arguments": {}, "_meta": meta()}))
}

async fn error_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    (status, body["error"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_neither_take_request_slots_nor_another_callers_streams() {
    let url = serve_with_principals(HttpOptions::default().max_in_flight(64).max_streams(1024)).await;
    let c = client();
    // Mallory opens listen streams and never reads them.
    let mut open = Vec::new();
    let mut refused = None;
    for _ in 0..200 {
        let response = listen(&c, &url, "mallory").send().await.unwrap();
        if response.status() == 200 {
            open.push(response);
        } else {
            refused = Some(error_of(response).await);
            break;
        }
    }
    let per_caller = HttpOptions::default().max_streams_per_caller;
    assert_eq!(open.len(), per_caller, "one caller holds at most max_streams_per_caller streams");
    let (status, error) = refused.unwrap();
    assert_eq!((status, error["data"]["limit"].as_str()), (503, Some("max_streams_per_caller")), "{error}");
    assert!(error["message"].as_str().unwrap().contains("max_streams_per_caller"), "{error}");
    // Everyone else is served: calls, and streams of their own.
    for _ in 0..100 {
        let response = hello(&c, &url, "alice").send().await.unwrap();
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["result"]["content"][0]["text"], "Hello!", "{body}");
    }
    let theirs = listen(&c, &url, "alice").send().await.unwrap();
    assert_eq!(theirs.status(), 200);
    // Mallory's streams were not counted as requests in flight: 64 would have refused them.
    let mine = hello(&c, &url, "mallory").send().await.unwrap();
    assert_eq!(mine.status(), 200);
    drop(open);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_are_bounded_in_all() {
    let url = serve_with_principals(HttpOptions::default().max_streams(3)).await;
    let c = client();
    let mut open = Vec::new();
    for user in ["a", "b", "c"] {
        open.push(listen(&c, &url, user).send().await.unwrap());
    }
    assert!(open.iter().all(|r| r.status() == 200));
    let (status, error) = error_of(listen(&c, &url, "d").send().await.unwrap()).await;
    assert_eq!((status, error["data"]["limit"].as_str()), (503, Some("max_streams")), "{error}");
    drop(open.pop());
    // Its slot comes back when the client goes away.
    let mut served = false;
    for _ in 0..50 {
        if listen(&c, &url, "d").send().await.unwrap().status() == 200 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(served);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_stream_is_ended() {
    let url = serve_with_principals(
        HttpOptions::default()
            .keep_alive(Some(Duration::from_millis(50)))
            .stream_idle_timeout(Some(Duration::from_millis(300))),
    )
    .await;
    let c = client();
    let response = listen(&c, &url, "a").send().await.unwrap();
    assert_eq!(response.status(), 200);
    // The stream ends by itself: the acknowledgement, keep-alives, then the end.
    let body = tokio::time::timeout(Duration::from_secs(10), response.text()).await.expect("ended").unwrap();
    assert!(body.contains("notifications/subscriptions/acknowledged"), "{body}");
    assert!(body.contains(": keep-alive"), "{body}");
}

async fn initialize(c: &reqwest::Client, url: &str, user: &str) -> reqwest::Response {
    c.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("x-user", user)
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap()
}

async fn legacy_ping(c: &reqwest::Client, url: &str, user: &str, session: &str) -> u16 {
    c.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", LEGACY)
        .header("mcp-session-id", session)
        .header("x-user", user)
        .body(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string())
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_caller_starting_sessions_never_evicts_another_callers_session() {
    let url = serve_with_principals(HttpOptions::default()).await;
    let c = client();
    let alice = initialize(&c, &url, "alice").await;
    let session = alice.headers().get("mcp-session-id").unwrap().to_str().unwrap().to_owned();
    for _ in 0..10_000 {
        assert_eq!(initialize(&c, &url, "mallory").await.status(), 200);
    }
    assert_eq!(legacy_ping(&c, &url, "alice", &session).await, 200, "alice's session lives");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_session_store_refuses_rather_than_evicts() {
    let url = serve_with_principals(HttpOptions::default().max_sessions(2)).await;
    let c = client();
    let mut ids = Vec::new();
    for user in ["a", "b"] {
        let r = initialize(&c, &url, user).await;
        ids.push(r.headers().get("mcp-session-id").unwrap().to_str().unwrap().to_owned());
    }
    let (status, error) = error_of(initialize(&c, &url, "c").await).await;
    assert_eq!((status, error["data"]["limit"].as_str()), (503, Some("max_sessions")), "{error}");
    assert_eq!(legacy_ping(&c, &url, "a", &ids[0]).await, 200);
    assert_eq!(legacy_ping(&c, &url, "b", &ids[1]).await, 200);
}

/// A raw POST to `addr` with `headers`; the status and body.
async fn raw_post(addr: std::net::SocketAddr, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
    let c = client();
    let mut request = c.post(format!("http://{addr}/mcp")).body(body.to_owned());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn hello_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "hello", "arguments": {}, "_meta": meta()}})
    .to_string()
}

const MODERN_HEADERS: [(&str, &str); 5] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
    ("mcp-protocol-version", V),
    ("mcp-method", "tools/call"),
    ("mcp-name", "hello"),
];

#[tokio::test]
async fn a_foreign_origin_is_refused_on_an_open_bind() {
    let options = HttpOptions::default().allowed_hosts(HostCheck::Off);
    let http = server().bind_http_with("0.0.0.0:0", options).await.unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], http.local_addr().port()));
    tokio::spawn(http.run());
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut h = MODERN_HEADERS.to_vec();
        h.extend_from_slice(extra);
        h
    };
    // Not a browser: no Origin, served.
    let (status, body) = raw_post(addr, &with(&[]), &hello_body()).await;
    assert_eq!(status, 200, "{body}");
    // A page of another site.
    let (status, body) = raw_post(addr, &with(&[("origin", "http://attacker.test")]), &hello_body()).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["message"], "Forbidden: invalid Origin header");
    // A page of the server's own origin.
    let own = format!("http://{addr}");
    let own: &'static str = Box::leak(own.into_boxed_str());
    let (status, body) = raw_post(addr, &with(&[("origin", own)]), &hello_body()).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn an_allow_list_of_origins_is_honoured_on_an_open_bind() {
    let options = HttpOptions::default().allowed_origins(["https://app.example.com"]);
    let http = server().bind_http_with("0.0.0.0:0", options).await.unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], http.local_addr().port()));
    tokio::spawn(http.run());
    let mut h = MODERN_HEADERS.to_vec();
    h.push(("origin", "https://app.example.com"));
    assert_eq!(raw_post(addr, &h, &hello_body()).await.0, 200);
    h.pop();
    h.push(("origin", "http://attacker.test"));
    assert_eq!(raw_post(addr, &h, &hello_body()).await.0, 403);
}

#[tokio::test]
async fn duplicate_mcp_headers_are_refused() {
    let http = server().bind_http("127.0.0.1:0").await.unwrap();
    let addr = http.local_addr();
    tokio::spawn(http.run());
    for name in ["mcp-method", "mcp-name", "mcp-protocol-version"] {
        let value = MODERN_HEADERS.iter().find(|(k, _)| *k == name).unwrap().1;
        let mut h = MODERN_HEADERS.to_vec();
        h.push((name, value));
        let (status, body) = raw_post(addr, &h, &hello_body()).await;
        assert_eq!((status, body["error"]["code"].as_i64()), (400, Some(-32020)), "{name}: {body}");
        assert!(body["error"]["message"].as_str().unwrap().contains("more than once"), "{body}");
    }
}

#[tokio::test]
async fn content_type_is_a_media_type_not_a_substring() {
    let http = server().bind_http("127.0.0.1:0").await.unwrap();
    let addr = http.local_addr();
    tokio::spawn(http.run());
    let with_type = |t: &'static str| {
        let mut h = MODERN_HEADERS.to_vec();
        h[0] = ("content-type", t);
        h
    };
    for refused in ["text/plain; charset=application/json", "application/jsonx", "text/application/json"] {
        assert_eq!(raw_post(addr, &with_type(refused), &hello_body()).await.0, 415, "{refused}");
    }
    for accepted in ["application/json", "Application/JSON; charset=utf-8", " application/json ;charset=UTF-8"] {
        assert_eq!(raw_post(addr, &with_type(accepted), &hello_body()).await.0, 200, "{accepted}");
    }
}
