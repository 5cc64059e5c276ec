//! The HTTP endpoint's limits over real sockets: the header-read and idle timeouts, the
//! bounds on connections, requests in flight and standalone GET streams, and the request-body
//! timeout. Every wait is bounded in time; the figures that matter are printed
//! (`cargo test --test http_limits -- --nocapture` shows them).

// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod common;

use roundtrip::ServeHttp;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use roundtrip::Server;
use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
use roundtrip::server::{ListChange, Outcome, ToolDef};
use roundtrip::transport::http::HttpOptions;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;

const V: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
/// A request head that never ends: the request line and one header, no blank line.
const PARTIAL_HEAD: &[u8] = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n";

/// A tool that holds its request in flight until the gate opens.
#[derive(Clone)]
struct Gate {
    entered: Arc<AtomicUsize>,
    open: CancellationToken,
}

fn test_server(gate: &Gate) -> Server {
    let gate = gate.clone();
    Server::new("limits-test", "1.0.0")
        .tool(ToolDef::new(Tool::new("hello", empty_input_schema()), |_cx| async {
            Ok(Outcome::Complete(CallToolResult::text("Hello!")))
        }))
        .tool(ToolDef::new(Tool::new("block", empty_input_schema()), move |_cx| {
            let gate = gate.clone();
            async move {
                gate.entered.fetch_add(1, Ordering::SeqCst);
                gate.open.cancelled().await;
                Ok(Outcome::Complete(CallToolResult::text("released")))
            }
        }))
}

struct Endpoint {
    addr: SocketAddr,
    url: String,
    server: Server,
    gate: Gate,
}

async fn start(options: HttpOptions) -> Endpoint {
    let gate = Gate { entered: Arc::new(AtomicUsize::new(0)), open: CancellationToken::new() };
    let server = test_server(&gate);
    let http = server.clone().bind_http_with("127.0.0.1:0", options).await.expect("bind");
    let addr = http.local_addr();
    let url = http.url();
    tokio::spawn(http.run());
    Endpoint { addr, url, server, gate }
}

/// A client that opens a new connection per request: the server's idle timeouts in these
/// tests are short, and a pooled connection could be closed under a request.
fn fresh_client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(20)).pool_max_idle_per_host(0).build().unwrap()
}

fn call_body(id: u64, tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "_meta": {META_VERSION: V, META_CAPS: {}}}})
    .to_string()
}

/// A complete 2026-07-28 `tools/call` as raw HTTP/1.1.
fn raw_call(id: u64, tool: &str) -> Vec<u8> {
    let body = call_body(id, tool);
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {V}\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

async fn call(client: &reqwest::Client, url: &str, id: u64, tool: &str) -> reqwest::Result<reqwest::Response> {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", V)
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
        .body(call_body(id, tool))
        .send()
        .await
}

/// A JSON body, validated against the schema of its era.
async fn json_of(response: reqwest::Response) -> Value {
    let text = response.text().await.unwrap();
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    valid(&body);
    body
}

/// Every message the server sends is valid under the official schema of its era.
fn valid(message: &Value) {
    if let Some(result) = message.get("result") {
        let era = if result.get("resultType").is_some() { V } else { LEGACY };
        common::assert_valid(era, "JSONRPCResultResponse", message);
    } else if message.get("error").is_some() {
        common::assert_valid(V, "JSONRPCErrorResponse", message);
        common::assert_valid(LEGACY, "JSONRPCErrorResponse", message);
    } else if !common::is_valid(V, "ServerNotification", message) {
        common::assert_valid(LEGACY, "ServerNotification", message);
    }
}

/// One HTTP/1.1 response read off a raw socket (bodies with `Content-Length` only).
#[derive(Debug)]
struct RawResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawResponse {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        let body: Value = serde_json::from_slice(&self.body).unwrap();
        valid(&body);
        body
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The next response on `stream`, or `None` when the server closed it first.
async fn read_response(stream: &mut TcpStream) -> Option<RawResponse> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize =
        headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf.split_off(head_end + 4);
    while body.len() < length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    Some(RawResponse { status, headers, body })
}

/// When the server closed `stream` (end of file or reset), reading and discarding whatever it
/// sends; `None` when it is still open after `limit`.
async fn closed_at(stream: &mut TcpStream, limit: Duration) -> Option<Instant> {
    let mut chunk = [0u8; 1024];
    timeout(limit, async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return Instant::now(),
                Ok(_) => {}
            }
        }
    })
    .await
    .ok()
}

/// How late a timer may fire on a loaded test machine. The server's timers never fire early,
/// so the lower bound is exact (a few milliseconds of rounding aside); the upper bound only has
/// to tell the configured limit from the default one, which is far beyond it (10 s for a head,
/// 30 s for a body, 60 s idle), so it is loose: two cores busy compiling delay a timer by
/// seconds.
const LATE: Duration = Duration::from_secs(4);

/// Whether `elapsed` is `expected`: not before it, and not later than [`LATE`] after it.
fn about(elapsed: Duration, expected: Duration) -> bool {
    elapsed + Duration::from_millis(5) >= expected && elapsed <= expected + LATE
}

// ---------------------------------------------------------------- (a) header-read timeout

#[tokio::test]
async fn a_partial_head_is_closed_within_the_header_read_timeout() {
    let header_timeout = Duration::from_millis(300);
    let e = start(HttpOptions::default().header_read_timeout(header_timeout)).await;
    let mut half = TcpStream::connect(e.addr).await.unwrap();
    let sent = Instant::now();
    half.write_all(PARTIAL_HEAD).await.unwrap();

    // Meanwhile another connection is served; the half-open one is watched at the same time, so
    // that checking the answer (schema validation takes a second or two on a busy machine) does
    // not shift when its close is seen.
    let served = async {
        let mut other = TcpStream::connect(e.addr).await.unwrap();
        other.write_all(&raw_call(1, "hello")).await.unwrap();
        timeout(Duration::from_secs(20), read_response(&mut other)).await.unwrap().expect("a response")
    };
    let (r, closed) = tokio::join!(served, closed_at(&mut half, Duration::from_secs(10)));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["content"][0]["text"], "Hello!");
    let elapsed = closed.expect("the server closes the half-open connection") - sent;
    println!("a partial head was closed after {elapsed:?} (header-read timeout {header_timeout:?})");
    assert!(about(elapsed, header_timeout), "closed after {elapsed:?}");
}

#[tokio::test]
async fn a_trickled_head_is_closed_when_its_time_is_up() {
    // A slow-loris client sends a header line every 100 ms: bytes keep coming, yet the head
    // must be whole 300 ms after its first byte.
    let header_timeout = Duration::from_millis(300);
    let e = start(HttpOptions::default().header_read_timeout(header_timeout)).await;
    let mut s = TcpStream::connect(e.addr).await.unwrap();
    let first = Instant::now();
    s.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    let mut closed = None;
    for i in 0..30 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if s.write_all(format!("X-Slow-{i}: x\r\n").as_bytes()).await.is_err() {
            break;
        }
        let mut byte = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) = timeout(Duration::from_millis(1), s.read(&mut byte)).await {
            closed = Some(Instant::now());
            break;
        }
    }
    let closed = match closed {
        Some(at) => at,
        None => closed_at(&mut s, Duration::from_secs(5)).await.expect("closed"),
    };
    let elapsed = closed - first;
    println!("a trickled head was closed after {elapsed:?}");
    assert!(about(elapsed, header_timeout), "closed after {elapsed:?}");
}

// ---------------------------------------------------------------- idle timeout

#[tokio::test]
async fn idle_connections_are_closed_after_the_idle_timeout() {
    let idle = Duration::from_millis(400);
    // A long header timeout: what closes these connections is the idle timeout.
    let e = start(HttpOptions::default().idle_timeout(idle).header_read_timeout(Duration::from_secs(30))).await;

    // Opened and left silent.
    let mut silent = TcpStream::connect(e.addr).await.unwrap();
    let opened = Instant::now();
    // Kept alive after one request.
    let mut kept = TcpStream::connect(e.addr).await.unwrap();
    kept.write_all(&raw_call(1, "hello")).await.unwrap();
    let r = timeout(Duration::from_secs(5), read_response(&mut kept)).await.unwrap().expect("a response");
    assert_eq!(r.status, 200);
    let answered = Instant::now();
    // The same connection serves a second request before it is idle long enough.
    tokio::time::sleep(idle / 4).await;
    kept.write_all(&raw_call(2, "hello")).await.unwrap();
    let r = timeout(Duration::from_secs(5), read_response(&mut kept)).await.unwrap().expect("kept alive");
    assert_eq!(r.status, 200);
    let answered_again = Instant::now();

    let silent_closed = closed_at(&mut silent, Duration::from_secs(5)).await.expect("silent connection closed");
    let kept_closed = closed_at(&mut kept, Duration::from_secs(5)).await.expect("idle keep-alive connection closed");
    println!(
        "silent connection closed after {:?}, keep-alive connection {:?} after its last response (idle timeout {idle:?})",
        silent_closed - opened,
        kept_closed - answered_again
    );
    assert!(about(silent_closed - opened, idle));
    assert!(about(kept_closed - answered_again, idle));
    assert!(kept_closed - answered >= idle, "the second request restarted the idle time");
}

#[tokio::test]
async fn a_quiet_stream_is_not_idle() {
    // No keep-alive comments: the streams say nothing for longer than the idle and header-read
    // timeouts, and stay open because their requests are in hand.
    let idle = Duration::from_millis(300);
    let e = start(HttpOptions::default().idle_timeout(idle).header_read_timeout(idle).keep_alive(None)).await;
    let client = fresh_client();
    // A legacy session's GET stream.
    let session = initialize(&client, &e.url).await;
    let r = client
        .get(&e.url)
        .header("accept", "text/event-stream")
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", LEGACY)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let mut get_stream = r.bytes_stream();
    // A 2026 subscriptions/listen stream (a POST answered with SSE).
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": {"_meta": {META_VERSION: V, META_CAPS: {}}, "notifications": {"toolsListChanged": true}}});
    let r = client
        .post(&e.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", V)
        .header("Mcp-Method", "subscriptions/listen")
        .body(listen.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let mut listen_stream = r.bytes_stream();
    let ack = timeout(Duration::from_secs(5), listen_stream.next()).await.unwrap().unwrap().unwrap();
    assert!(String::from_utf8_lossy(&ack).contains("notifications/subscriptions/acknowledged"));

    tokio::time::sleep(idle * 4).await;
    e.server.notify_list_changed(ListChange::Tools);
    for (name, stream) in [("GET", &mut get_stream), ("subscriptions/listen", &mut listen_stream)] {
        let chunk = timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("an event")
            .expect("open")
            .unwrap_or_else(|e| panic!("the {name} stream: {e:?}"));
        let text = String::from_utf8_lossy(&chunk);
        assert!(text.contains("notifications/tools/list_changed"), "{text}");
    }
}

async fn initialize(client: &reqwest::Client, url: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let r = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    let session = r.headers().get("mcp-session-id").expect("Mcp-Session-Id").to_str().unwrap().to_owned();
    assert_eq!(r.status().as_u16(), 200);
    let body = json_of(r).await;
    assert_eq!(body["result"]["protocolVersion"], LEGACY);
    session
}

// ---------------------------------------------------------------- (b) a half-open flood

/// Raise this process's soft limit on open files to at least `needed` (both ends of every
/// connection live in this process), within the hard limit.
fn raise_open_file_limit(needed: u64) {
    let got = rlimit::increase_nofile_limit(needed).unwrap_or(0);
    assert!(
        got >= needed,
        "this test needs {needed} open files; the limit could only be raised to {got} (raise the hard limit: ulimit -Hn)"
    );
}

#[derive(Debug, Default)]
struct Normal {
    completed: usize,
    failed: usize,
    slowest: Duration,
    /// When each call completed.
    times: Vec<Instant>,
}

/// `tools/call` after `tools/call` on ordinary keep-alive connections until `stop`.
async fn normal_calls(url: String, stop: CancellationToken, workers: usize) -> Normal {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let mut handles = Vec::new();
    for w in 0..workers {
        let (client, url, stop) = (client.clone(), url.clone(), stop.clone());
        handles.push(tokio::spawn(async move {
            let mut n = Normal::default();
            let mut id = (w as u64) << 32;
            while !stop.is_cancelled() {
                id += 1;
                let begun = Instant::now();
                let ok = match call(&client, &url, id, "hello").await {
                    Ok(r) if r.status().as_u16() == 200 => {
                        r.json::<Value>().await.is_ok_and(|b| b["result"]["content"][0]["text"] == "Hello!")
                    }
                    _ => false,
                };
                if ok {
                    n.completed += 1;
                    n.times.push(Instant::now());
                } else {
                    n.failed += 1;
                }
                n.slowest = n.slowest.max(begun.elapsed());
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            n
        }));
    }
    let mut all = Normal::default();
    for h in handles {
        let n = h.await.unwrap();
        all.completed += n.completed;
        all.failed += n.failed;
        all.slowest = all.slowest.max(n.slowest);
        all.times.extend(n.times);
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_three_thousand_half_open_connections_are_closed_while_calls_complete() {
    const HALF_OPEN: usize = 3000;
    raise_open_file_limit(2 * HALF_OPEN as u64 + 1024);
    let header_timeout = Duration::from_secs(2);
    let e = start(HttpOptions::default().header_read_timeout(header_timeout)).await;
    let stop = CancellationToken::new();
    let normal = tokio::spawn(normal_calls(e.url.clone(), stop.clone(), 2));
    let run = Instant::now();

    // Connect them all (256 connects at a time: the listen backlog is 1024).
    let connects = Arc::new(tokio::sync::Semaphore::new(256));
    let mut pending = Vec::with_capacity(HALF_OPEN);
    for _ in 0..HALF_OPEN {
        let (addr, connects) = (e.addr, connects.clone());
        pending.push(tokio::spawn(async move {
            let _permit = connects.acquire_owned().await.unwrap();
            timeout(Duration::from_secs(20), TcpStream::connect(addr)).await.expect("connect in time").unwrap()
        }));
    }
    let mut sockets = Vec::with_capacity(HALF_OPEN);
    for p in pending {
        sockets.push(p.await.unwrap());
    }
    let connected = run.elapsed();

    // Then start every head at about the same moment, and never finish one.
    let open = Arc::new(AtomicUsize::new(0));
    let written = Instant::now();
    let mut waiters = Vec::with_capacity(HALF_OPEN);
    for mut s in sockets {
        // The server may read the bytes before write_all returns: time from before.
        let sent = Instant::now();
        s.write_all(PARTIAL_HEAD).await.unwrap();
        open.fetch_add(1, Ordering::SeqCst);
        let open = open.clone();
        waiters.push(tokio::spawn(async move {
            let closed = closed_at(&mut s, header_timeout + Duration::from_secs(15)).await;
            open.fetch_sub(1, Ordering::SeqCst);
            closed.map(|at| at - sent)
        }));
    }
    let all_written = Instant::now();
    let peak = open.load(Ordering::SeqCst);

    let mut lifetimes = Vec::with_capacity(HALF_OPEN);
    let mut still_open = 0;
    for w in waiters {
        match w.await.unwrap() {
            Some(d) => lifetimes.push(d),
            None => still_open += 1,
        }
    }
    let all_closed = Instant::now();
    // A little more service after the flood, then stop.
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.cancel();
    let normal = timeout(Duration::from_secs(20), normal).await.expect("normal calls stop").unwrap();

    lifetimes.sort();
    let pct = |p: usize| lifetimes.get((lifetimes.len().saturating_sub(1)) * p / 100).copied().unwrap_or_default();
    let during = normal.times.iter().filter(|t| **t >= written && **t <= all_closed).count();
    println!(
        "half-open flood: {HALF_OPEN} connections opened in {connected:?}, heads started within {:?} \
         (peak {peak} open at once); closed by the server: {} of {HALF_OPEN}, {still_open} still open; \
         lifetime after the partial head: min {:?}, median {:?}, p99 {:?}, max {:?} (header-read timeout \
         {header_timeout:?}); all closed {:?} after the first head; normal tools/call: {} completed \
         ({during} during the flood), {} failed, slowest {:?}; whole run {:?}",
        all_written - written,
        lifetimes.len(),
        pct(0),
        pct(50),
        pct(99),
        pct(100),
        all_closed - written,
        normal.completed,
        normal.failed,
        normal.slowest,
        run.elapsed(),
    );
    assert_eq!(still_open, 0, "every half-open connection is closed by the server");
    assert_eq!(peak, HALF_OPEN, "all the half-open connections were open at once");
    assert!(about(pct(0), header_timeout), "closed too early: {:?}", pct(0));
    assert!(about(pct(100), header_timeout), "closed too late: {:?}", pct(100));
    assert_eq!(normal.failed, 0, "normal requests keep completing");
    assert!(during >= 5, "normal requests completed during the flood: {during}");
}

// ---------------------------------------------------------------- (c) max_connections

#[tokio::test]
async fn c_connections_beyond_the_limit_are_refused_at_once_and_service_resumes() {
    const MAX: usize = 8;
    let e = start(HttpOptions::default().max_connections(MAX)).await;
    // Fill every slot with a kept-alive connection that was served once.
    let mut held = Vec::new();
    for i in 0..MAX {
        let mut s = TcpStream::connect(e.addr).await.unwrap();
        s.write_all(&raw_call(i as u64, "hello")).await.unwrap();
        let r = timeout(Duration::from_secs(5), read_response(&mut s)).await.unwrap().expect("served");
        assert_eq!(r.status, 200);
        held.push(s);
    }

    // The next ones are answered 503 at once and closed.
    for attempt in 0..3 {
        let begun = Instant::now();
        let mut extra = TcpStream::connect(e.addr).await.unwrap();
        // The refusal may already be on its way: the request may fail to go out whole.
        let _ = extra.write_all(&raw_call(100, "hello")).await;
        let r = timeout(Duration::from_secs(2), read_response(&mut extra))
            .await
            .expect("refused at once, not left hanging")
            .expect("a 503 before the close");
        let answered = begun.elapsed();
        assert_eq!(r.status, 503);
        assert_eq!(r.header("retry-after"), Some("1"));
        assert_eq!(r.header("connection"), Some("close"));
        let closed = closed_at(&mut extra, Duration::from_secs(3)).await.expect("closed after the 503");
        println!(
            "connection {} beyond max_connections={MAX}: 503 after {answered:?}, closed after {:?}",
            attempt + 1,
            closed - begun
        );
        assert!(answered < Duration::from_secs(1), "answered after {answered:?}");
    }
    // A client library sees the 503 too.
    let r = call(&fresh_client(), &e.url, 101, "hello").await.expect("an answer");
    assert_eq!(r.status().as_u16(), 503);

    // The held connections still work.
    held[0].write_all(&raw_call(200, "hello")).await.unwrap();
    let r = timeout(Duration::from_secs(5), read_response(&mut held[0])).await.unwrap().expect("served");
    assert_eq!(r.status, 200);

    // Service resumes as soon as connections close.
    held.truncate(MAX - 2);
    let dropped = Instant::now();
    let mut resumed = None;
    for _ in 0..100 {
        let mut s = TcpStream::connect(e.addr).await.unwrap();
        let _ = s.write_all(&raw_call(300, "hello")).await;
        if let Ok(Some(r)) = timeout(Duration::from_secs(2), read_response(&mut s)).await
            && r.status == 200
        {
            resumed = Some(dropped.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let resumed = resumed.expect("service resumes within 100 attempts");
    println!("service resumed {resumed:?} after two connections closed");
    assert!(resumed < Duration::from_secs(2));
}

// ---------------------------------------------------------------- (d) max_in_flight

#[tokio::test]
async fn d_requests_beyond_the_in_flight_limit_get_503_at_once() {
    const MAX: usize = 4;
    let e = start(HttpOptions::default().max_in_flight(MAX)).await;
    let client = fresh_client();
    let mut blocked = Vec::new();
    for i in 0..MAX {
        let (client, url) = (client.clone(), e.url.clone());
        blocked.push(tokio::spawn(async move { call(&client, &url, i as u64, "block").await.unwrap() }));
    }
    // Wait until all of them are really in their handler.
    let deadline = Instant::now() + Duration::from_secs(10);
    while e.gate.entered.load(Ordering::SeqCst) < MAX {
        assert!(Instant::now() < deadline, "the blocking calls did not all start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    for kind in ["tools/call", "initialize"] {
        let begun = Instant::now();
        let r = if kind == "tools/call" {
            call(&client, &e.url, 99, "hello").await.unwrap()
        } else {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
            client.post(&e.url).header("content-type", "application/json").body(init.to_string()).send().await.unwrap()
        };
        let elapsed = begun.elapsed();
        assert_eq!(r.status().as_u16(), 503, "{kind}");
        assert_eq!(r.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("1"));
        let body = json_of(r).await;
        assert_eq!(body["error"]["code"], -32000);
        println!("{kind} beyond max_in_flight={MAX}: 503 after {elapsed:?}: {body}");
        assert!(elapsed < Duration::from_secs(1), "refused after {elapsed:?}, not at once");
    }

    // Release them: they complete, and the slots are free again.
    e.gate.open.cancel();
    for b in blocked {
        let r = timeout(Duration::from_secs(10), b).await.unwrap().unwrap();
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(json_of(r).await["result"]["content"][0]["text"], "released");
    }
    let r = call(&client, &e.url, 100, "hello").await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

// ---------------------------------------------------------------- request bodies

#[tokio::test]
async fn a_body_that_never_ends_gets_408() {
    let body_timeout = Duration::from_millis(300);
    let e = start(HttpOptions::default().request_body_timeout(body_timeout)).await;
    let mut s = TcpStream::connect(e.addr).await.unwrap();
    let sent = Instant::now();
    s.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"jsonrpc\":",
    )
    .await
    .unwrap();
    let r = timeout(Duration::from_secs(5), read_response(&mut s)).await.expect("answered").expect("a response");
    let elapsed = sent.elapsed();
    println!("a body that never ends: {} after {elapsed:?}", r.status);
    assert_eq!(r.status, 408);
    assert_eq!(r.json()["error"]["code"], -32600);
    assert!(about(elapsed, body_timeout));
    assert!(closed_at(&mut s, Duration::from_secs(3)).await.is_some(), "the connection is closed after a 408");
}

// ---------------------------------------------------------------- shutdown

/// An endpoint served by `run_until`: the sender stops it, the handle is its end.
async fn start_until(
    options: HttpOptions,
) -> (Endpoint, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<std::io::Result<()>>) {
    let gate = Gate { entered: Arc::new(AtomicUsize::new(0)), open: CancellationToken::new() };
    let server = test_server(&gate);
    let http = server.clone().bind_http_with("127.0.0.1:0", options).await.expect("bind");
    let (addr, url) = (http.local_addr(), http.url());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    (Endpoint { addr, url, server, gate }, stop, serving)
}

#[tokio::test]
async fn a_body_still_arriving_at_shutdown_gets_408_at_once() {
    // The body may take a minute, and the drain as long: only the shutdown can end it early.
    let options =
        HttpOptions::default().request_body_timeout(Duration::from_secs(60)).shutdown_timeout(Duration::from_secs(60));
    let (e, stop, serving) = start_until(options).await;
    let mut s = TcpStream::connect(e.addr).await.unwrap();
    s.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"jsonrpc\":",
    )
    .await
    .unwrap();
    // A byte now and then, as a client trickling its body would.
    tokio::time::sleep(Duration::from_millis(200)).await;
    s.write_all(b" ").await.unwrap();
    let stopped = Instant::now();
    stop.send(()).unwrap();
    let r = timeout(Duration::from_secs(10), read_response(&mut s)).await.expect("answered").expect("a response");
    println!("a body arriving at shutdown: {} after {:?}: {:?}", r.status, stopped.elapsed(), r.body);
    assert_eq!(r.status, 408);
    assert_eq!(r.json()["error"]["code"], -32600);
    assert!(stopped.elapsed() < LATE, "answered at the shutdown, not at the body timeout");
    let result = timeout(Duration::from_secs(10), serving).await.expect("shutdown within 10 s");
    result.expect("no panic").expect("no I/O error");
    assert!(stopped.elapsed() < LATE, "the shutdown did not wait for the body");
}

#[tokio::test]
async fn run_until_returns_by_the_shutdown_timeout_whatever_is_still_in_hand() {
    let drain = Duration::from_millis(500);
    let (e, stop, serving) = start_until(HttpOptions::default().shutdown_timeout(drain)).await;
    let client = fresh_client();
    let (c, url) = (client.clone(), e.url.clone());
    // A handler that never finishes by itself.
    let in_hand = tokio::spawn(async move { call(&c, &url, 1, "block").await });
    let deadline = Instant::now() + Duration::from_secs(10);
    while e.gate.entered.load(Ordering::SeqCst) < 1 {
        assert!(Instant::now() < deadline, "the blocking call did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let stopped = Instant::now();
    stop.send(()).unwrap();
    let result = timeout(Duration::from_secs(10), serving).await.expect("run_until returned within 10 s");
    result.expect("no panic").expect("no I/O error");
    let elapsed = stopped.elapsed();
    println!("run_until returned {elapsed:?} after the signal, with a request in hand");
    assert!(about(elapsed, drain), "returned after {elapsed:?}, not at the {drain:?} deadline");
    let answered = timeout(Duration::from_secs(5), in_hand).await.expect("the client is not left hanging");
    assert!(answered.expect("no panic").is_err(), "the connection was closed without an answer");
    assert!(TcpStream::connect(e.addr).await.is_err(), "no connection is accepted after shutdown");
}

// ---------------------------------------------------------------- GET streams

async fn open_get(client: &reqwest::Client, url: &str, session: &str) -> reqwest::Response {
    client
        .get(url)
        .header("accept", "text/event-stream")
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", LEGACY)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn get_streams_are_bounded_and_one_per_session() {
    let e = start(HttpOptions::default().max_streams(1)).await;
    let client = fresh_client();
    let a = initialize(&client, &e.url).await;
    let b = initialize(&client, &e.url).await;

    let first = open_get(&client, &e.url, &a).await;
    assert_eq!(first.status().as_u16(), 200);
    let mut first = first.bytes_stream();

    // The only slot is taken: another session's stream is refused at once.
    let begun = Instant::now();
    let refused = open_get(&client, &e.url, &b).await;
    assert_eq!(refused.status().as_u16(), 503);
    assert_eq!(refused.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("1"));
    assert!(begun.elapsed() < Duration::from_secs(1));
    assert_eq!(json_of(refused).await["error"]["code"], -32000);

    // A second stream on the same session replaces the first, which ends.
    // It keeps the session's slot: no 503.
    let second = open_get(&client, &e.url, &a).await;
    assert_eq!(second.status().as_u16(), 200);
    let ended = timeout(Duration::from_secs(5), async {
        while let Some(chunk) = first.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the replaced stream ends");

    // The replacing stream carries the changes.
    let mut second = second.bytes_stream();
    e.server.notify_list_changed(ListChange::Prompts);
    let chunk = timeout(Duration::from_secs(5), second.next()).await.unwrap().unwrap().unwrap();
    assert!(String::from_utf8_lossy(&chunk).contains("notifications/prompts/list_changed"));

    // Closing it frees the slot for the other session.
    drop(second);
    let mut opened = false;
    for _ in 0..100 {
        let r = open_get(&client, &e.url, &b).await;
        if r.status().as_u16() == 200 {
            opened = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(opened, "the slot was freed when the stream closed");
}

/// A `tools/call` whose head carries `extra` more header lines.
fn call_with_headers(extra: &str) -> Vec<u8> {
    let body = call_body(1, "hello");
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {V}\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: hello\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The answer to `request` sent on a new connection, and whether the server then closed it.
async fn answer_to(addr: SocketAddr, request: &[u8]) -> Option<RawResponse> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // A server that refuses a head may close before reading it all: the write may fail.
    let _ = stream.write_all(request).await;
    timeout(Duration::from_secs(20), read_response(&mut stream)).await.expect("answered, not hung")
}

#[tokio::test]
async fn request_heads_are_limited_in_size_and_header_count() {
    let endpoint = start(HttpOptions::default()).await;
    // Within the limits: 90 headers of 100 bytes each is served.
    let ordinary: String = (0..90).map(|i| format!("X-Extra-{i}: {}\r\n", "v".repeat(100))).collect();
    let served = answer_to(endpoint.addr, &call_with_headers(&ordinary)).await.expect("served");
    assert_eq!(served.status, 200, "{served:?}");
    assert_eq!(served.json()["result"]["content"][0]["text"], "Hello!");

    // Too many header lines: 431, never a hang or a crash.
    let many: String = (0..200).map(|i| format!("X-Extra-{i}: v\r\n")).collect();
    let refused = answer_to(endpoint.addr, &call_with_headers(&many)).await;
    assert_eq!(refused.map(|r| r.status), Some(431), "200 header lines");

    // One header larger than the head buffer (1 MiB): 431, and nothing of it is kept.
    let huge = format!("X-Huge: {}\r\n", "h".repeat(1 << 20));
    let refused = answer_to(endpoint.addr, &call_with_headers(&huge)).await;
    assert_eq!(refused.map(|r| r.status), Some(431), "a 1 MiB header");

    // The server serves on.
    let after = answer_to(endpoint.addr, &raw_call(2, "hello")).await.expect("served after");
    assert_eq!(after.status, 200);
}
