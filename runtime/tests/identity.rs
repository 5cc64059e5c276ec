//! Who is calling, over real sockets: one caller identity that per-caller state, the limits per
//! caller and state binding all read, however it was set (the application's own auth layer, a
//! trusted proxy's identity header), and anonymous callers told apart behind a trusted proxy
//! by the address it forwards. An open bind without allowed hosts does not start.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::Request;
use axum::middleware::Next;
use roundtrip::PerCaller;
use roundtrip::auth::AuthPrincipal;
use roundtrip::prelude::*;
use roundtrip::task::TaskOptions;
use roundtrip::transport::http::{HostCheck, HttpOptions};
use serde_json::{Value, json};

const V: &str = "2026-07-28";

#[derive(Debug, Default)]
struct Counter {
    counts: PerCaller<AtomicU64>,
}

#[toolset]
impl Counter {
    /// Add one to your own counter.
    #[tool]
    async fn increment(&self, cx: &RequestContext) -> String {
        (self.counts.of(cx).fetch_add(1, Ordering::Relaxed) + 1).to_string()
    }
}

/// Runs as a task for an hour.
#[tool(task)]
async fn idle() -> String {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "done".into()
}

fn server() -> Server {
    let options = TaskOptions { max_tasks_per_caller: 1_000, ..TaskOptions::default() };
    Server::new("identity-test", "1.0.0")
        .toolset(std::sync::Arc::new(Counter::default()))
        .tools(tools![idle])
        .task_options(options)
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    })
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(20)).pool_max_idle_per_host(64).build().unwrap()
}

/// A 2026-07-28 request with `headers` added.
fn modern(
    c: &reqwest::Client,
    url: &str,
    headers: &[(&str, &str)],
    method: &str,
    params: Value,
) -> reqwest::RequestBuilder {
    let mut request = c
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", V)
        .header("mcp-method", method);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string())
}

/// `increment` as the caller `headers` say; its count.
async fn increment(c: &reqwest::Client, url: &str, headers: &[(&str, &str)]) -> String {
    let params = json!({"name": "increment", "arguments": {}, "_meta": meta()});
    let body: Value = modern(c, url, headers, "tools/call", params).send().await.unwrap().json().await.unwrap();
    body["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{body}")).to_owned()
}

/// The caller named by `x-user`, as an application's own authentication layer sets it.
async fn own_auth_layer(mut request: Request, next: Next) -> axum::response::Response {
    if let Some(user) = request.headers().get("x-user").and_then(|v| v.to_str().ok()) {
        let principal = AuthPrincipal::new(user).issuer("https://sso.example.com");
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}

#[tokio::test]
async fn alice_and_bob_through_an_own_auth_layer_keep_separate_per_caller_state() {
    let router = server().router_with(HttpOptions::default()).layer(axum::middleware::from_fn(own_auth_layer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let c = client();
    assert_eq!(increment(&c, &url, &[("x-user", "alice")]).await, "1");
    assert_eq!(increment(&c, &url, &[("x-user", "alice")]).await, "2");
    assert_eq!(increment(&c, &url, &[("x-user", "bob")]).await, "1", "bob has his own counter");
    assert_eq!(increment(&c, &url, &[("x-user", "alice")]).await, "3");
}

/// A server behind a "proxy" on this machine: requests come from 127.0.0.1 and say who their
/// client was in `X-Forwarded-For`, as `deploy/nginx.conf` does.
async fn behind_proxy(options: HttpOptions) -> String {
    let http = server().bind_http_with("127.0.0.1:0", options).await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    url
}

const MALLORY: (&str, &str) = ("x-forwarded-for", "203.0.113.66");
const ALICE: (&str, &str) = ("x-forwarded-for", "198.51.100.7");

fn listen(c: &reqwest::Client, url: &str, who: (&str, &str)) -> reqwest::RequestBuilder {
    let params = json!({"notifications": {"toolsListChanged": true}, "_meta": meta()});
    modern(c, url, &[who], "subscriptions/listen", params)
}

async fn initialize(c: &reqwest::Client, url: &str, who: (&str, &str)) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    c.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header(who.0, who.1)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

async fn start_task(c: &reqwest::Client, url: &str, who: (&str, &str)) -> Value {
    let params = json!({"name": "idle", "arguments": {}, "_meta": meta()});
    modern(c, url, &[who], "tools/call", params).send().await.unwrap().json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_one_client_leaves_anothers_streams_sessions_and_tasks() {
    let url = behind_proxy(HttpOptions::default().trusted_proxies(["127.0.0.1"])).await;
    let c = client();
    // Alice's session, before Mallory starts.
    let alices = initialize(&c, &url, ALICE).await;
    assert_eq!(alices.status(), 200);
    // Mallory's 32 streams: her 33rd is refused, Alice's first is not.
    let mut streams = Vec::new();
    for _ in 0..32 {
        let response = listen(&c, &url, MALLORY).send().await.unwrap();
        assert_eq!(response.status(), 200);
        streams.push(response);
    }
    assert_eq!(listen(&c, &url, MALLORY).send().await.unwrap().status(), 503, "max_streams_per_caller");
    let alices_stream = listen(&c, &url, ALICE).send().await.unwrap();
    assert_eq!(alices_stream.status(), 200, "Alice's stream is not Mallory's");
    // Mallory's 100 sessions (and more: she ends her own idle ones) leave Alice's alone.
    for _ in 0..120 {
        assert_eq!(initialize(&c, &url, MALLORY).await.status(), 200);
    }
    let session = alices.headers().get("mcp-session-id").unwrap().to_str().unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let alive = c
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .header(ALICE.0, ALICE.1)
        .body(ping)
        .send()
        .await
        .unwrap();
    assert_eq!(alive.status(), 200, "Alice's session lives");
    // Mallory's 1 000 tasks fill her quota, not Alice's.
    for n in 0..1_000 {
        let task = start_task(&c, &url, MALLORY).await;
        assert_eq!(task["result"]["resultType"], "task", "task {n}: {task}");
    }
    let refused = start_task(&c, &url, MALLORY).await;
    assert_eq!(refused["error"]["data"]["limit"], "max_tasks_per_caller", "{refused}");
    let theirs = start_task(&c, &url, ALICE).await;
    assert_eq!(theirs["result"]["resultType"], "task", "Alice still gets a task: {theirs}");
    drop(streams);
}

#[tokio::test]
async fn forwarding_headers_count_only_from_a_trusted_proxy() {
    // The proxies trusted are elsewhere: this "proxy" on 127.0.0.1 is a client like any other.
    let url = behind_proxy(HttpOptions::default().trusted_proxies(["10.0.0.0/8"])).await;
    let c = client();
    for _ in 0..32 {
        let response = listen(&c, &url, MALLORY).send().await.unwrap();
        assert_eq!(response.status(), 200);
        std::mem::forget(response);
    }
    let spoofed = listen(&c, &url, ALICE).send().await.unwrap();
    assert_eq!(spoofed.status(), 503, "a forged X-Forwarded-For does not make another caller");
}

#[tokio::test]
async fn an_identity_header_is_the_caller_only_from_a_trusted_proxy() {
    let trusted = HttpOptions::default().trusted_proxies(["127.0.0.1"]).identity_header("x-user");
    let url = behind_proxy(trusted).await;
    let c = client();
    assert_eq!(increment(&c, &url, &[("x-user", "alice")]).await, "1");
    assert_eq!(increment(&c, &url, &[("x-user", "bob")]).await, "1");
    assert_eq!(increment(&c, &url, &[("x-user", "alice")]).await, "2");
    // From a client that is not a trusted proxy, the header is nobody: both are the address.
    let untrusted = HttpOptions::default().trusted_proxies(["10.0.0.0/8"]).identity_header("x-user");
    let url = behind_proxy(untrusted).await;
    assert_eq!(increment(&c, &url, &[("x-user", "alice")]).await, "1");
    assert_eq!(increment(&c, &url, &[("x-user", "bob")]).await, "2", "one anonymous caller");
    // An identity header without trusted proxies does not start.
    let err = server().bind_http_with("127.0.0.1:0", HttpOptions::default().identity_header("x-user")).await;
    assert!(err.unwrap_err().to_string().contains("--trusted-proxy"));
}

#[tokio::test]
async fn an_open_bind_without_allowed_hosts_does_not_start() {
    let err = server().bind_http("0.0.0.0:0").await.expect_err("refused");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    let message = err.to_string();
    for names in ["--allowed-host", "ROUNDTRIP_ALLOWED_HOSTS", "--allow-any-host", "ROUNDTRIP_ALLOW_ANY_HOST"] {
        assert!(message.contains(names), "{message}");
    }
    // With the hosts named, a DNS-rebinding page (its own name in Host and Origin) is refused.
    let named = HttpOptions::default().allowed_hosts(HostCheck::Allow(vec!["mcp.example.com".into()]));
    let http = server().bind_http_with("0.0.0.0:0", named).await.unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", http.local_addr().port());
    tokio::spawn(http.run());
    let params = json!({"name": "increment", "arguments": {}, "_meta": meta()});
    let rebinding = [("host", "attacker.test"), ("origin", "http://attacker.test")];
    let response = modern(&client(), &url, &rebinding, "tools/call", params.clone()).send().await.unwrap();
    assert_eq!(response.status(), 403);
    let named = [("host", "mcp.example.com")];
    let response = modern(&client(), &url, &named, "tools/call", params).send().await.unwrap();
    assert_eq!(response.status(), 200);
}
