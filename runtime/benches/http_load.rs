//! Loopback HTTP load: a roundtrip server beside a bare hyper peer, driven by one hyper client
//! in the same process, in the same run.
//!
//! ```text
//! cargo bench -p roundtrip --bench http_load                       # 5 s per scenario, 16 connections
//! cargo bench -p roundtrip --bench http_load -- --seconds 10 --connections 16
//! cargo bench -p roundtrip --bench http_load -- --serve 60 --lua-dir /tmp/lua   # for wrk, see scripts/wrk-crosscheck.sh
//! ```
//!
//! Scenarios, each after a warm-up, each bounded by `--seconds` and `--max-requests`:
//!
//! 1. `hyper-peer`: a bare hyper 1 server answering a fixed JSON body (the very bytes roundtrip
//!    answers in 2) to the same request.
//! 2. `tools/call`: `test_simple_text` on roundtrip over the 2026-07-28 wire (`_meta`,
//!    `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
//! 3. `flow/raw`: the two legs of an elicitation tool (`#[tool]` with one `#[resolve(elicit)]`
//!    parameter) driven by hand with the raw hyper client: leg 1 gets `input_required` with one
//!    question and a sealed `requestState`, leg 2 carries the answer and the state and completes.
//! 4. `flow/Client`: the same flow with `roundtrip::client::Client::call_tool` and an
//!    `on_elicit` callback that answers at once (reqwest underneath, one client per flow).
//! 5. `tasks/get (memory)`: polling a completed task in the default in-memory store, beside
//!    `tools/call` above.
//! 6. `tasks/get (redis)`: the same against a server whose store is Redis (build with
//!    `--features redis` and pass `--redis redis://127.0.0.1:PORT/`; `scripts/bench-tasks.sh`
//!    starts a redis-server and does both).
//!
//! The servers run on their own 2-worker tokio runtime, the load generator on another; both
//! share the machine's cores, so the figures are for client and server together.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // a bench fails loudly

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use roundtrip::client::{Client, Mode};
use roundtrip::prelude::*;
use roundtrip::protocol::{ElicitAction, ElicitResult, ProtocolVersion};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tokio::sync::Barrier;

const TEXT: &str = "This is a simple text response for testing.";
const VERSION: &str = "2026-07-28";

/// The tool of issue 2.
#[tool]
async fn test_simple_text() -> String {
    TEXT.to_owned()
}

/// A task that completes at once (tasks/get polls it).
#[tool(task)]
async fn quick_task() -> String {
    TEXT.to_owned()
}

/// The tool of issue 4: one question, then the body.
#[tool]
async fn greet(#[resolve(elicit = "What is your name?")] name: String) -> String {
    format!("Hello, {name}!")
}

struct Options {
    seconds: f64,
    warmup: f64,
    connections: usize,
    max_requests: u64,
    serve: Option<u64>,
    lua_dir: Option<String>,
    redis: Option<String>,
}

impl Options {
    fn parse() -> Self {
        let mut o = Self {
            seconds: 5.0,
            warmup: 1.0,
            connections: 16,
            max_requests: 5_000_000,
            serve: None,
            lua_dir: None,
            redis: None,
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut i = 0;
        while i < args.len() {
            let value = args.get(i + 1).cloned().unwrap_or_default();
            match args[i].as_str() {
                "--seconds" => o.seconds = value.parse().expect("--seconds N"),
                "--warmup" => o.warmup = value.parse().expect("--warmup N"),
                "--connections" => o.connections = value.parse().expect("--connections N"),
                "--max-requests" => o.max_requests = value.parse().expect("--max-requests N"),
                // At most an hour: every loop here is bounded.
                "--serve" => o.serve = Some(value.parse::<u64>().expect("--serve SECONDS").min(3600)),
                "--lua-dir" => o.lua_dir = Some(value),
                "--redis" => o.redis = Some(value),
                // `cargo bench` passes `--bench`; ignore it and anything else.
                _ => {
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
        o.seconds = o.seconds.clamp(0.1, 600.0);
        o.warmup = o.warmup.clamp(0.0, 60.0);
        o.connections = o.connections.clamp(1, 1024);
        o
    }
}

fn runtime(name: &str) -> Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).thread_name(name).enable_all().build().unwrap()
}

/// The 2026 `_meta` of a request.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "loadgen", "version": "0"},
    })
}

fn call_body(id: u64, tool: &str, extra: Value) -> Bytes {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": meta()});
    if let (Some(p), Value::Object(extra)) = (params.as_object_mut(), extra) {
        p.extend(extra);
    }
    Bytes::from(
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).unwrap(),
    )
}

/// What one request looks like on the wire.
#[derive(Clone)]
struct Target {
    addr: SocketAddr,
    host: String,
    path: String,
}

impl Target {
    fn new(addr: SocketAddr, path: &str) -> Self {
        Self { addr, host: addr.to_string(), path: path.to_owned() }
    }

    fn post(&self, tool: &str, body: Bytes) -> Request<Full<Bytes>> {
        self.post_method("tools/call", tool, body)
    }

    fn post_method(&self, method: &str, name: &str, body: Bytes) -> Request<Full<Bytes>> {
        Request::post(&self.path)
            .header(HOST, &self.host)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", VERSION)
            .header("mcp-method", method)
            .header("mcp-name", name)
            .body(Full::new(body))
            .unwrap()
    }
}

/// One keep-alive HTTP/1.1 connection of the raw hyper client.
struct Conn {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).await.expect("connects");
        stream.set_nodelay(true).unwrap();
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Self { sender }
    }

    /// Send and read the whole answer; panics on anything but 200.
    async fn send(&mut self, request: Request<Full<Bytes>>) -> Bytes {
        self.sender.ready().await.expect("connection ready");
        let response = self.sender.send_request(request).await.expect("a response");
        assert_eq!(response.status(), 200, "unexpected status");
        response.into_body().collect().await.expect("a body").to_bytes()
    }
}

/// The bare hyper peer: answers every POST with `body` after reading the request's body.
async fn bare_hyper(body: Bytes) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let _ = stream.set_nodelay(true);
            let body = body.clone();
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let body = body.clone();
                async move {
                    let _ = request.into_body().collect().await;
                    Ok::<_, Infallible>(
                        Response::builder().header(CONTENT_TYPE, "application/json").body(Full::new(body)).unwrap(),
                    )
                }
            });
            tokio::spawn(async move {
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    addr
}

/// Latencies (ns) and counts of one scenario.
struct Outcome {
    name: String,
    count: u64,
    elapsed: Duration,
    cpu: Duration,
    latencies: Vec<u64>,
}

impl Outcome {
    fn rate(&self) -> f64 {
        self.count as f64 / self.elapsed.as_secs_f64()
    }

    fn quantile(&self, q: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.latencies.len() - 1) as f64 * q).round() as usize;
        Duration::from_nanos(self.latencies[i])
    }

    fn cpu_per_op(&self) -> Duration {
        if self.count == 0 { Duration::ZERO } else { self.cpu / self.count as u32 }
    }

    fn print(&self, unit: &str) {
        println!(
            "{:<26} {:>9.0} {unit}/s  p50 {:>7.1} µs  p99 {:>7.1} µs  max {:>8.1} µs  cpu {:>5.1} µs/{unit}  ({} {unit}s in {:.2} s)",
            self.name,
            self.rate(),
            us(self.quantile(0.50)),
            us(self.quantile(0.99)),
            us(self.quantile(1.0)),
            us(self.cpu_per_op()),
            self.count,
            self.elapsed.as_secs_f64(),
        );
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// CPU time of this whole process (client and servers), from /proc; zero where unavailable.
fn process_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return Duration::ZERO };
    // Fields after the command name, which ends with the last ')': utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // USER_HZ is 100 on Linux.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// Run `connections` workers, each doing operations until the deadline or its share of
/// `max`; `op` is one request (or flow) on the worker's state.
async fn load<S, Setup, SetupFut, Op, OpFut>(name: &str, o: &Options, seconds: f64, setup: Setup, op: Op) -> Outcome
where
    S: Send + 'static,
    Setup: Fn() -> SetupFut,
    SetupFut: Future<Output = S> + Send + 'static,
    Op: Fn(S) -> OpFut + Send + Sync + Clone + 'static,
    OpFut: Future<Output = S> + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(o.connections + 1));
    let per_worker = (o.max_requests / o.connections as u64).max(1);
    let duration = Duration::from_secs_f64(seconds);
    let mut workers = Vec::new();
    for _ in 0..o.connections {
        let state = setup();
        let barrier = barrier.clone();
        let op = op.clone();
        workers.push(tokio::spawn(async move {
            let mut state = state.await;
            let mut latencies = Vec::with_capacity(per_worker.min(1 << 16) as usize);
            barrier.wait().await;
            let deadline = Instant::now() + duration;
            let mut count = 0u64;
            while count < per_worker {
                let start = Instant::now();
                if start >= deadline {
                    break;
                }
                state = op(state).await;
                latencies.push(start.elapsed().as_nanos() as u64);
                count += 1;
            }
            latencies
        }));
    }
    barrier.wait().await;
    let (start, cpu0) = (Instant::now(), process_cpu());
    let mut latencies = Vec::new();
    for w in workers {
        latencies.extend(w.await.expect("a worker"));
    }
    let (elapsed, cpu) = (start.elapsed(), process_cpu().saturating_sub(cpu0));
    latencies.sort_unstable();
    Outcome { name: name.to_owned(), count: latencies.len() as u64, elapsed, cpu, latencies }
}

/// Warm up, then measure.
async fn measure<S, Setup, SetupFut, Op, OpFut>(name: &str, o: &Options, setup: Setup, op: Op) -> Outcome
where
    S: Send + 'static,
    Setup: Fn() -> SetupFut,
    SetupFut: Future<Output = S> + Send + 'static,
    Op: Fn(S) -> OpFut + Send + Sync + Clone + 'static,
    OpFut: Future<Output = S> + Send + 'static,
{
    if o.warmup > 0.0 {
        load(name, o, o.warmup, &setup, op.clone()).await;
    }
    load(name, o, o.seconds, setup, op).await
}

fn server() -> Server {
    Server::new("loadgen", "1.0.0").tools(tools![test_simple_text, greet, quick_task])
}

/// The `_meta` of a request that declares the tasks extension.
fn task_meta() -> Value {
    let mut meta = meta();
    meta["io.modelcontextprotocol/clientCapabilities"]["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    meta
}

/// Create a task of `quick_task` on `target`, wait until it completed, and return the body of
/// a `tasks/get` for it.
async fn completed_task(target: &Target) -> (String, Bytes) {
    let mut conn = Conn::open(target.addr).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "quick_task", "arguments": {}, "_meta": task_meta()}});
    let created: Value =
        serde_json::from_slice(&conn.send(target.post("quick_task", Bytes::from(body.to_string()))).await).unwrap();
    let id = created["result"]["taskId"].as_str().expect("a task").to_owned();
    let get = Bytes::from(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": id, "_meta": task_meta()}})
            .to_string(),
    );
    for _ in 0..200 {
        let got: Value =
            serde_json::from_slice(&conn.send(target.post_method("tasks/get", &id, get.clone())).await).unwrap();
        if got["result"]["status"] == "completed" {
            return (id, get);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the task did not complete")
}

/// Measure `tasks/get` of one completed task.
async fn poll_task(name: &str, o: &Options, target: &Target) -> Outcome {
    let (id, get) = completed_task(target).await;
    let t = target.clone();
    let req_target = target.clone();
    measure(
        name,
        o,
        move || Conn::open(t.addr),
        move |mut conn: Conn| {
            let request = req_target.post_method("tasks/get", &id, get.clone());
            async move {
                let body = conn.send(request).await;
                debug_assert!(body.windows(9).any(|w| w == b"completed"));
                conn
            }
        },
    )
    .await
}

/// A second server whose task store is Redis at `url`.
#[cfg(feature = "redis")]
async fn redis_server(url: &str) -> roundtrip::transport::http::HttpServer {
    let store = roundtrip::redis::RedisStore::connect(url).await.expect("redis reachable");
    server().task_store(store).bind_http("127.0.0.1:0").await.expect("binds")
}

fn elicit_answer() -> Value {
    json!({"action": "accept", "content": {"name": "Ada"}})
}

/// Leg 1 and leg 2 of the flow by hand.
async fn raw_flow(mut conn: Conn, target: &Target, leg1: Bytes) -> Conn {
    let first: Value = serde_json::from_slice(&conn.send(target.post("greet", leg1)).await).expect("JSON");
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let state = result["requestState"].as_str().expect("a requestState");
    let leg2 = call_body(2, "greet", json!({"inputResponses": {"name": elicit_answer()}, "requestState": state}));
    let done: Value = serde_json::from_slice(&conn.send(target.post("greet", leg2)).await).expect("JSON");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!", "{done}");
    conn
}

async fn client(url: String) -> Client {
    Client::builder("loadgen", "0")
        .mode(Mode::Pinned(ProtocolVersion::V2026_07_28))
        .on_elicit(|_| async {
            let content = elicit_answer().get("content").cloned().and_then(|c| serde_json::from_value(c).ok());
            Ok(ElicitResult::new(ElicitAction::Accept, content))
        })
        .connect_http(&url)
        .await
        .expect("connects")
}

fn main() {
    let o = Options::parse();
    let servers = runtime("server");
    let clients = runtime("loadgen");

    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let http = servers.block_on(server().bind_http("127.0.0.1:0")).expect("binds");
    let (rt_addr, url) = (http.local_addr(), http.url());
    let rt_target = Target::new(rt_addr, "/mcp");
    let serving = servers.spawn(http.run_until(async move {
        let _ = stopped.await;
    }));

    // The exact answer roundtrip gives; the peer answers the same bytes.
    let simple = call_body(1, "test_simple_text", json!({}));
    let answer = clients.block_on(async {
        let mut conn = Conn::open(rt_addr).await;
        conn.send(rt_target.post("test_simple_text", simple.clone())).await
    });
    let parsed: Value = serde_json::from_slice(&answer).expect("JSON");
    assert_eq!(parsed["result"]["content"][0]["text"], TEXT, "{parsed}");
    let peer_addr = servers.block_on(bare_hyper(answer.clone()));
    let peer_target = Target::new(peer_addr, "/mcp");

    if let Some(seconds) = o.serve {
        serve_for_wrk(&o, seconds, &rt_target, &peer_target, &simple);
        let _ = stop.send(());
        return;
    }

    println!(
        "http_load: {} connections, {:.1} s per scenario after {:.1} s warm-up; servers (2 tokio workers) and load generator \
         (2 tokio workers) share this machine's {} cores, so figures are for both together; cpu = this process's CPU time per op.",
        o.connections,
        o.seconds,
        o.warmup,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    );
    println!(
        "request body {} bytes, response body {} bytes (the peer answers the same bytes)",
        simple.len(),
        answer.len()
    );

    let leg1 = call_body(1, "greet", json!({}));
    let results = clients.block_on(async {
        let mut results = Vec::new();
        for (name, target) in [("hyper-peer (fixed body)", &peer_target), ("roundtrip tools/call", &rt_target)] {
            let (t, body) = (target.clone(), simple.clone());
            let req_target = target.clone();
            results.push((
                "req",
                measure(
                    name,
                    &o,
                    move || Conn::open(t.addr),
                    move |mut conn: Conn| {
                        let request = req_target.post("test_simple_text", body.clone());
                        async move {
                            conn.send(request).await;
                            conn
                        }
                    },
                )
                .await,
            ));
        }
        let t = rt_target.clone();
        results.push((
            "flow",
            measure("flow/raw hyper (2 legs)", &o, move || Conn::open(t.addr), {
                let target = Arc::new(rt_target.clone());
                move |conn: Conn| {
                    let (target, leg1) = (target.clone(), leg1.clone());
                    async move { raw_flow(conn, &target, leg1).await }
                }
            })
            .await,
        ));
        let u = url.clone();
        results.push((
            "flow",
            measure(
                "flow/Client (2 legs)",
                &o,
                move || client(u.clone()),
                |c: Client| async move {
                    let result = c.call_tool("greet", json!({})).await.expect("the flow completes");
                    assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
                    c
                },
            )
            .await,
        ));
        results.push(("req", poll_task("tasks/get (memory store)", &o, &rt_target).await));
        results
    });
    #[cfg(feature = "redis")]
    let results = {
        let mut results = results;
        if let Some(url) = &o.redis {
            let http = servers.block_on(redis_server(url));
            let target = Target::new(http.local_addr(), "/mcp");
            servers.spawn(http.run());
            results.push(("req", clients.block_on(poll_task("tasks/get (redis store)", &o, &target))));
        }
        results
    };
    #[cfg(not(feature = "redis"))]
    if o.redis.is_some() {
        println!("--redis needs the bench built with --features redis; skipping the Redis store");
    }
    for (unit, r) in &results {
        r.print(unit);
    }
    let (peer, rt) = (&results[0].1, &results[1].1);
    println!(
        "ratio roundtrip/peer: throughput {:.2}x, p50 {:.2}x, cpu per request {:.2}x",
        rt.rate() / peer.rate(),
        us(rt.quantile(0.5)) / us(peer.quantile(0.5)),
        us(rt.cpu_per_op()) / us(peer.cpu_per_op()).max(f64::MIN_POSITIVE),
    );
    let _ = stop.send(());
    let _ = servers.block_on(serving);
}

/// Keep both servers up for `seconds` and write wrk scripts for them.
fn serve_for_wrk(o: &Options, seconds: u64, rt: &Target, peer: &Target, body: &Bytes) {
    let dir = o.lua_dir.clone().unwrap_or_else(|| std::env::temp_dir().to_string_lossy().into_owned());
    let body = String::from_utf8_lossy(body);
    let lua = format!(
        "wrk.method = \"POST\"\nwrk.body = {body:?}\nwrk.headers[\"Content-Type\"] = \"application/json\"\n\
         wrk.headers[\"Accept\"] = \"application/json, text/event-stream\"\n\
         wrk.headers[\"MCP-Protocol-Version\"] = \"{VERSION}\"\nwrk.headers[\"Mcp-Method\"] = \"tools/call\"\n\
         wrk.headers[\"Mcp-Name\"] = \"test_simple_text\"\n"
    );
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(format!("{dir}/post.lua"), lua).unwrap();
    println!("roundtrip http://{}{}", rt.host, rt.path);
    println!("peer http://{}{}", peer.host, peer.path);
    println!("lua {dir}/post.lua");
    println!("serving for {seconds} s");
    std::thread::sleep(Duration::from_secs(seconds));
}
