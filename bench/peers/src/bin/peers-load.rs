//! The load generator of the peer benchmark: a hyper 1 client with N keep-alive HTTP/1.1
//! connections (one task each, all started together), that checks every response body.
//!
//! ```text
//! peers-load --url http://127.0.0.1:8081/mcp --scenario flow  [--seconds 8] [--connections 16] [--threads 1]
//! peers-load --url http://127.0.0.1:8082/mcp --scenario call
//! peers-load --url http://127.0.0.1:8083/    --scenario fixed --expect BODY_FILE
//! peers-load --url http://127.0.0.1:8082/mcp --scenario call --once     # print one response body and exit
//! peers-load --url http://127.0.0.1:8081/mcp --scenario flow --once     # print one leg 1 body and exit
//! ```
//!
//! Scenarios (all over the 2026-07-28 wire: `_meta` with the protocol version, the client's
//! capabilities and info; headers `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`):
//!
//! - `flow`: one `provision` flow per iteration. Leg 1 calls `provision` with
//!   `{"name": "db-C-N"}` (C the connection, N the iteration) and must get `resultType`
//!   `input_required` with exactly one elicitation (under the key the server chose), its message
//!   `Which region should db-C-N live in?`, and a `requestState`. Leg 2 repeats the call with
//!   `inputResponses[key]` = accept `{"region": "eu-west-1"}` and the state echoed, and must
//!   get the text `Provisioned 'db-C-N' in eu-west-1.` (not an error).
//! - `call`: `tools/call` of `test_simple_text`, which completes at once; the body must carry
//!   the conformance suite's text and not be an error.
//! - `fixed`: the same request as `call`; the body must equal the bytes of `--expect FILE`.
//!
//! Every response must be `200`, carry the request's JSON-RPC id (except `fixed`), and pass its
//! check; a failed check is counted, its first few causes printed, and the exit status is 1.
//! A JSON body or a `text/event-stream` body (its last `data:` line) are both accepted.
//!
//! The last line of output is machine-readable (`RESULT key=value ...`); the time is from the
//! start of the connections to the last response, latencies are per HTTP request (and per
//! flow for `flow`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::{Barrier, Mutex};

const VERSION: &str = "2026-07-28";
const TEXT: &str = "This is a simple text response for testing.";
const REGION: &str = "eu-west-1";
/// How many failure causes are kept for printing.
const KEEP_FAILURES: usize = 5;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scenario {
    Flow,
    Call,
    Fixed,
}

struct Options {
    url: String,
    scenario: Scenario,
    seconds: f64,
    connections: usize,
    threads: usize,
    max_requests: u64,
    expect: Option<Bytes>,
    once: bool,
}

fn usage() -> String {
    "usage: peers-load --url URL --scenario flow|call|fixed [--seconds S] [--connections N] [--threads T] \
     [--max-requests N] [--expect BODY_FILE] [--once]"
        .to_owned()
}

impl Options {
    fn parse() -> Result<Self, String> {
        let mut o = Self {
            url: String::new(),
            scenario: Scenario::Call,
            seconds: 8.0,
            connections: 16,
            threads: 1,
            max_requests: 50_000_000,
            expect: None,
            once: false,
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut i = 0;
        while i < args.len() {
            let flag = args[i].as_str();
            if flag == "--once" {
                o.once = true;
                i += 1;
                continue;
            }
            let value = args.get(i + 1).ok_or_else(|| format!("{flag} needs a value\n{}", usage()))?;
            let bad = || format!("bad value for {flag}: {value}");
            match flag {
                "--url" => o.url = value.clone(),
                "--scenario" => {
                    o.scenario = match value.as_str() {
                        "flow" => Scenario::Flow,
                        "call" => Scenario::Call,
                        "fixed" => Scenario::Fixed,
                        _ => return Err(format!("unknown scenario {value}\n{}", usage())),
                    }
                }
                "--seconds" => o.seconds = value.parse().map_err(|_| bad())?,
                "--connections" => o.connections = value.parse().map_err(|_| bad())?,
                "--threads" => o.threads = value.parse().map_err(|_| bad())?,
                "--max-requests" => o.max_requests = value.parse().map_err(|_| bad())?,
                "--expect" => o.expect = Some(Bytes::from(std::fs::read(value).map_err(|e| format!("{value}: {e}"))?)),
                _ => return Err(format!("unknown option {flag}\n{}", usage())),
            }
            i += 2;
        }
        if o.url.is_empty() {
            return Err(usage());
        }
        if o.scenario == Scenario::Fixed && o.expect.is_none() {
            return Err("--scenario fixed needs --expect BODY_FILE".to_owned());
        }
        // Every loop is bounded.
        o.seconds = o.seconds.clamp(0.1, 600.0);
        o.connections = o.connections.clamp(1, 1024);
        o.threads = o.threads.clamp(1, 64);
        Ok(o)
    }
}

/// Where and how to send; the header values are built once.
struct Target {
    addr: SocketAddr,
    path: Uri,
    host: HeaderValue,
}

impl Target {
    fn parse(url: &str) -> Result<Self, String> {
        let uri: Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
        if uri.scheme_str() != Some("http") {
            return Err(format!("{url}: only http:// URLs"));
        }
        let authority = uri.authority().ok_or_else(|| format!("{url}: no host"))?.to_string();
        let addr = std::net::ToSocketAddrs::to_socket_addrs(authority.as_str())
            .map_err(|e| format!("{authority}: {e}"))?
            .next()
            .ok_or_else(|| format!("{authority}: no address"))?;
        let path = uri.path_and_query().map_or("/", |p| p.as_str()).parse().map_err(|e| format!("{url}: {e}"))?;
        let host = HeaderValue::from_str(&authority).map_err(|e| e.to_string())?;
        Ok(Self { addr, path, host })
    }

    /// A `tools/call` POST of `tool` (its name is the `Mcp-Name` header) with `body`.
    fn request(&self, tool: &'static str, body: String) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::from(body)));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.path.clone();
        let h = request.headers_mut();
        h.insert(HOST, self.host.clone());
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        h.insert(HeaderName::from_static("mcp-protocol-version"), HeaderValue::from_static(VERSION));
        h.insert(HeaderName::from_static("mcp-method"), HeaderValue::from_static("tools/call"));
        h.insert(HeaderName::from_static("mcp-name"), HeaderValue::from_static(tool));
        request
    }
}

/// The `_meta` of every request: the 2026-07-28 revision, the client's capabilities and info.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"peers-load","version":"0.1.0"}}"#;

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The body of a 2026-07-28 `tools/call`: `arguments` and `extra` are JSON text (`extra` the
/// members `inputResponses` and `requestState` of a retry, or empty).
fn call_body(id: u64, tool: &str, arguments: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},{extra}{META}}}}}"#
    )
}

/// The parts of a response the checks read; strings borrow from the body when they can.
#[derive(Deserialize)]
struct Response<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    result: Option<ToolResult<'a>>,
    error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolResult<'a> {
    #[serde(borrow)]
    result_type: Option<Cow<'a, str>>,
    is_error: Option<bool>,
    #[serde(borrow)]
    content: Option<Vec<Content<'a>>>,
    #[serde(borrow)]
    input_requests: Option<BTreeMap<Cow<'a, str>, InputRequest<'a>>>,
    #[serde(borrow)]
    request_state: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct InputRequest<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<ElicitParams<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ElicitParams<'a> {
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    requested_schema: Option<Schema<'a>>,
}

#[derive(Deserialize)]
struct Schema<'a> {
    #[serde(borrow)]
    properties: Option<BTreeMap<Cow<'a, str>, Property<'a>>>,
}

#[derive(Deserialize)]
struct Property<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
}

fn clip(body: &[u8]) -> String {
    String::from_utf8_lossy(body).chars().take(300).collect()
}

/// The JSON-RPC message of a body: the body itself, or the last `data:` line of an event
/// stream that holds a response.
fn message(body: &[u8]) -> &[u8] {
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return body;
    }
    body.split(|&b| b == b'\n')
        .filter_map(|line| line.strip_prefix(b"data:"))
        .rfind(|data| data.windows(9).any(|w| w == b"\"result\":" || w == b"\"error\":{"))
        .unwrap_or(body)
}

/// The `result` of a response with id `id`, or why not.
fn result(body: &[u8], id: u64) -> Result<ToolResult<'_>, String> {
    let response: Response<'_> =
        serde_json::from_slice(message(body)).map_err(|e| format!("not a JSON-RPC response ({e}): {}", clip(body)))?;
    if response.id != Some(id) {
        return Err(format!("expected id {id}: {}", clip(body)));
    }
    match (response.result, response.error) {
        (Some(r), None) => Ok(r),
        _ => Err(format!("not a result: {}", clip(body))),
    }
}

/// The single text of a complete, successful `CallToolResult`.
fn check_complete(body: &[u8], id: u64, want: &str) -> Result<(), String> {
    let r = result(body, id)?;
    let complete = matches!(r.result_type.as_deref(), None | Some("complete"))
        && r.is_error != Some(true)
        && matches!(r.content.as_deref(), Some([c]) if c.kind == "text" && c.text.as_deref() == Some(want));
    if complete { Ok(()) } else { Err(format!("expected a complete result with the text {want:?}: {}", clip(body))) }
}

/// Leg 1 of `provision`: exactly one question, the region's, and the state to echo. Returns the
/// question's key (the server chooses it: `region` for roundtrip and the rmcp peer, the
/// resolver's qualified name for the Python SDK) and the state.
fn check_ask(body: &[u8], id: u64, name: &str) -> Result<(String, String), String> {
    let r = result(body, id)?;
    let fail = |why: &str| format!("leg 1: {why}: {}", clip(body));
    if r.result_type.as_deref() != Some("input_required") {
        return Err(fail("resultType is not input_required"));
    }
    let requests = r.input_requests.as_ref().ok_or_else(|| fail("no inputRequests"))?;
    let (key, question) = match requests.iter().next() {
        Some((key, q)) if requests.len() == 1 => (key, q),
        _ => return Err(fail("expected exactly one input request")),
    };
    if question.method != "elicitation/create" {
        return Err(fail("the input request is not elicitation/create"));
    }
    let params = question.params.as_ref().ok_or_else(|| fail("the input request has no params"))?;
    let message = params.message.as_deref().unwrap_or_default();
    // "Which region should {name} live in?", without formatting it.
    let asks = message
        .strip_prefix("Which region should ")
        .and_then(|m| m.strip_suffix(" live in?"))
        .is_some_and(|n| n == name);
    if !asks {
        return Err(fail("unexpected message"));
    }
    let region = params.requested_schema.as_ref().and_then(|s| s.properties.as_ref()).and_then(|p| p.get("region"));
    if region.and_then(|p| p.kind.as_deref()) != Some("string") {
        return Err(fail("the form has no string field `region`"));
    }
    match r.request_state.as_deref() {
        Some(s) if !s.is_empty() => Ok((key.to_string(), s.to_owned())),
        _ => Err(fail("no requestState")),
    }
}

/// One keep-alive connection.
struct Conn {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Result<Self, String> {
        let stream = TcpStream::connect(addr).await.map_err(|e| format!("connect {addr}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let (sender, conn) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Self { sender })
    }

    async fn send(&mut self, request: Request<Full<Bytes>>) -> Result<Bytes, String> {
        self.sender.ready().await.map_err(|e| format!("connection: {e}"))?;
        let response = self.sender.send_request(request).await.map_err(|e| format!("request: {e}"))?;
        let status = response.status();
        let body = response.into_body().collect().await.map_err(|e| format!("body: {e}"))?.to_bytes();
        if status != 200 {
            return Err(format!("status {status}: {}", clip(&body)));
        }
        Ok(body)
    }
}

/// What all connections share.
struct Shared {
    target: Target,
    scenario: Scenario,
    expect: Option<Bytes>,
    requests: AtomicU64,
    max_requests: u64,
    failures: AtomicU64,
    causes: Mutex<Vec<String>>,
}

impl Shared {
    async fn fail(&self, cause: String) {
        self.failures.fetch_add(1, Ordering::Relaxed);
        let mut causes = self.causes.lock().await;
        if causes.len() < KEEP_FAILURES {
            causes.push(cause);
        }
    }
}

/// Latencies (ns) of one connection: per request, and per flow.
#[derive(Default)]
struct Record {
    requests: Vec<u64>,
    flows: Vec<u64>,
    last: Option<Instant>,
}

/// One iteration: a flow (two requests) or one request. `Err` is a failed check.
async fn iteration(shared: &Shared, conn: &mut Conn, c: usize, n: u64, rec: &mut Record) -> Result<(), String> {
    let t = &shared.target;
    let id = n * 2 + 1;
    match shared.scenario {
        Scenario::Call | Scenario::Fixed => {
            let start = Instant::now();
            let body = conn.send(t.request("test_simple_text", call_body(id, "test_simple_text", "{}", ""))).await?;
            rec.requests.push(start.elapsed().as_nanos() as u64);
            shared.requests.fetch_add(1, Ordering::Relaxed);
            match &shared.expect {
                Some(expect) if shared.scenario == Scenario::Fixed => {
                    if body != *expect {
                        return Err(format!("body differs from --expect: {}", clip(&body)));
                    }
                }
                _ => check_complete(&body, id, TEXT)?,
            }
        }
        Scenario::Flow => {
            let name = format!("db-{c}-{n}");
            let arguments = format!(r#"{{"name":"{name}"}}"#);
            let start = Instant::now();
            let leg1 = conn.send(t.request("provision", call_body(id, "provision", &arguments, ""))).await?;
            let mid = Instant::now();
            rec.requests.push((mid - start).as_nanos() as u64);
            shared.requests.fetch_add(1, Ordering::Relaxed);
            let (key, state) = check_ask(&leg1, id, &name)?;
            let retry = format!(
                r#""inputResponses":{{{}:{{"action":"accept","content":{{"region":"{REGION}"}}}}}},"requestState":{},"#,
                quoted(&key),
                quoted(&state)
            );
            let t2 = Instant::now();
            let leg2 = conn.send(t.request("provision", call_body(id + 1, "provision", &arguments, &retry))).await?;
            let end = Instant::now();
            rec.requests.push((end - t2).as_nanos() as u64);
            rec.flows.push((end - start).as_nanos() as u64);
            shared.requests.fetch_add(1, Ordering::Relaxed);
            check_complete(&leg2, id + 1, &format!("Provisioned '{name}' in {REGION}."))
                .map_err(|e| format!("leg 2: {e}"))?;
        }
    }
    Ok(())
}

async fn connection(
    shared: Arc<Shared>,
    c: usize,
    barrier: Arc<Barrier>,
    deadline: Arc<Mutex<Option<Instant>>>,
) -> Record {
    let mut rec = Record::default();
    let mut conn = match Conn::open(shared.target.addr).await {
        Ok(conn) => Some(conn),
        Err(e) => {
            shared.fail(e).await;
            None
        }
    };
    barrier.wait().await;
    let Some(end) = *deadline.lock().await else { return rec };
    let mut n = 0u64;
    while let Some(current) = conn.as_mut() {
        if Instant::now() >= end || shared.requests.load(Ordering::Relaxed) >= shared.max_requests {
            break;
        }
        let outcome = iteration(&shared, current, c, n, &mut rec).await;
        rec.last = Some(Instant::now());
        if let Err(cause) = outcome {
            shared.fail(cause).await;
            // The connection may be gone or mid-response: start a fresh one.
            conn = Conn::open(shared.target.addr).await.ok();
        }
        n += 1;
    }
    rec
}

/// This process's CPU time (utime + stime) in clock ticks, from `/proc/self/stat`; 0 elsewhere.
fn own_cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses: state is the first, utime the 12th.
    let rest = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    field(11) + field(12)
}

fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0
}

async fn run(o: Options) -> Result<bool, String> {
    let target = Target::parse(&o.url)?;
    if o.once {
        let mut conn = Conn::open(target.addr).await?;
        let body = if o.scenario == Scenario::Flow {
            // Leg 1 of a flow: what it asks and the state it carries.
            let body = conn.send(target.request("provision", call_body(1, "provision", r#"{"name":"db-0-0"}"#, ""))).await?;
            check_ask(&body, 1, "db-0-0")?;
            body
        } else {
            let body = conn.send(target.request("test_simple_text", call_body(1, "test_simple_text", "{}", ""))).await?;
            check_complete(&body, 1, TEXT)?;
            body
        };
        use std::io::Write;
        std::io::stdout().write_all(&body).map_err(|e| e.to_string())?;
        return Ok(true);
    }
    let shared = Arc::new(Shared {
        target,
        scenario: o.scenario,
        expect: o.expect,
        requests: AtomicU64::new(0),
        max_requests: o.max_requests,
        failures: AtomicU64::new(0),
        causes: Mutex::new(Vec::new()),
    });
    let ticks_before = own_cpu_ticks();
    let barrier = Arc::new(Barrier::new(o.connections + 1));
    let deadline = Arc::new(Mutex::new(None));
    let tasks: Vec<_> = (0..o.connections)
        .map(|c| tokio::spawn(connection(shared.clone(), c, barrier.clone(), deadline.clone())))
        .collect();
    let start = {
        let mut d = deadline.lock().await;
        let start = Instant::now();
        *d = Some(start + Duration::from_secs_f64(o.seconds));
        start
    };
    barrier.wait().await;
    let mut requests = Vec::new();
    let mut flows = Vec::new();
    let mut last = start;
    for task in tasks {
        let rec = task.await.map_err(|e| e.to_string())?;
        requests.extend(rec.requests);
        flows.extend(rec.flows);
        last = last.max(rec.last.unwrap_or(start));
    }
    let client_ticks = own_cpu_ticks().saturating_sub(ticks_before);
    requests.sort_unstable();
    flows.sort_unstable();
    let secs = (last - start).as_secs_f64().max(1e-9);
    let failures = shared.failures.load(Ordering::Relaxed);
    let scenario = format!("{:?}", o.scenario).to_lowercase();
    let (n_req, n_flow) = (requests.len(), flows.len());
    println!(
        "{scenario}: {n_req} requests{} in {secs:.2} s over {} connections: {:.0} req/s{}, per request p50 {:.1} µs p99 {:.1} µs, {failures} failed checks",
        if o.scenario == Scenario::Flow { format!(" ({n_flow} flows)") } else { String::new() },
        o.connections,
        n_req as f64 / secs,
        if o.scenario == Scenario::Flow { format!(" = {:.0} flows/s", n_flow as f64 / secs) } else { String::new() },
        quantile(&requests, 0.5),
        quantile(&requests, 0.99),
    );
    for cause in shared.causes.lock().await.iter() {
        println!("failed check: {cause}");
    }
    println!(
        "RESULT scenario={scenario} requests={n_req} flows={n_flow} seconds={secs:.3} rps={:.1} fps={:.1} p50_us={:.1} p99_us={:.1} flow_p50_us={:.1} flow_p99_us={:.1} client_ticks={client_ticks} failures={failures}",
        n_req as f64 / secs,
        n_flow as f64 / secs,
        quantile(&requests, 0.5),
        quantile(&requests, 0.99),
        quantile(&flows, 0.5),
        quantile(&flows, 0.99),
    );
    Ok(failures == 0 && n_req > 0)
}

fn main() -> ExitCode {
    let options = match Options::parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(options.threads).enable_all().build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("peers-load: {e}");
            ExitCode::FAILURE
        }
    }
}
