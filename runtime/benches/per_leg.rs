//! What one leg costs the server alone, and how the cost grows with the questions.
//!
//! Each request goes through the whole HTTP endpoint as a bound server serves it
//! (`HttpServer::service`: header checks, body parse, dispatch, resolver, seal, response body)
//! as `http::Request` bytes in and response bytes out, on a current-thread runtime in this
//! process; no socket and no client, so every nanosecond and every allocation counted is the
//! server's (the bench's own request and body handling aside, which the split after the rows
//! measures). Allocations are counted by a counting global allocator around each request.
//!
//! ```text
//! cargo bench -p roundtrip --bench per_leg                  # 20 000 legs per row
//! cargo bench -p roundtrip --bench per_leg -- --iterations 50000
//! cargo bench -p roundtrip --bench per_leg -- --provision-only   # the first three rows (for profiling)
//! cargo bench -p roundtrip --bench per_leg -- --only-leg 2       # replay one of them alone (1, 2 or 3)
//! cargo bench -p roundtrip --bench per_leg -- --intercepted       # with one interceptor that does nothing
//! ```
//!
//! Rows:
//! - `provision leg 1` / `leg 2`: the one-question flow of the `provision` example (leg 1 asks
//!   and seals, leg 2 unseals, checks the answer and completes).
//! - `plain tools/call`: a tool without questions.
//! - `N independent` (N = 1, 5, 20, 50): leg 1 asks N questions in one round, leg 2 answers
//!   all N and completes.
//! - `chain of 10`: each question's message names the previous answer, so ten rounds; the row
//!   gives the mean of the ten legs that ask and the last (completing) leg.
//!
//! After the rows, the plain call is split into parts each timed alone: the bench's own request
//! and body handling (a service that answers a fixed body) and the server's own (the whole less
//! the bench's); the same call through `Server::router` (the endpoint mounted as an axum route,
//! as in an application), for what axum's routing adds; and the public parse and dispatch
//! (`Message::from_slice`, `Server::handle` without HTTP).
//!
//! Every response is checked (a leg 1 must ask, a leg 2 must complete with the expected text).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // a bench fails loudly
#![allow(clippy::too_many_arguments)] // tools with 10 to 50 questions, on purpose

use std::alloc::System;

use std::convert::Infallible;

use axum::body::Body;
use axum::response::Response;
use roundtrip::prelude::*;
use serde_json::{Map, Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tower::{Service, ServiceExt};

/// What a leg is sent to: a bound server's service, a router, or the bench's trivial one.
trait Endpoint: Service<http::Request<Body>, Response = Response, Error = Infallible> + Clone {}
impl<S: Service<http::Request<Body>, Response = Response, Error = Infallible> + Clone> Endpoint for S {}

/// The system allocator, counting calls and bytes (the workspace forbids `unsafe`, so the
/// counting wrapper comes from `stats_alloc`).
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Provision a database. Asks which region to put it in (the `provision` example's tool).
#[tool(idempotent)]
async fn provision(
    /// Name of the database.
    name: String,
    #[resolve(elicit = "Which region should {name} live in?")] region: String,
) -> String {
    format!("Provisioned '{name}' in {region}.")
}

/// No questions.
#[tool]
async fn plain() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// A tool with one independent question per listed parameter; it answers with their count.
macro_rules! wide {
    ($name:ident: $($q:ident)*) => {
        #[tool]
        async fn $name($(#[resolve(elicit = "A value, please?")] $q: String),*) -> String {
            let answers: &[&str] = &[$($q.as_str()),*];
            format!("{} answers", answers.len())
        }
    };
}

wide!(q1: a1);
wide!(q5: a1 a2 a3 a4 a5);
wide!(q20: a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20);
wide!(q50: a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25 a26 a27 a28 a29 a30 a31 a32 a33 a34 a35 a36 a37 a38 a39 a40 a41 a42 a43 a44 a45 a46 a47 a48 a49 a50);

/// Ten questions, each naming the answer before it: ten rounds.
#[tool]
async fn chain10(
    #[resolve(elicit = "Step 1?")] s1: String,
    #[resolve(elicit = "Step 2, after {s1}?")] s2: String,
    #[resolve(elicit = "Step 3, after {s2}?")] s3: String,
    #[resolve(elicit = "Step 4, after {s3}?")] s4: String,
    #[resolve(elicit = "Step 5, after {s4}?")] s5: String,
    #[resolve(elicit = "Step 6, after {s5}?")] s6: String,
    #[resolve(elicit = "Step 7, after {s6}?")] s7: String,
    #[resolve(elicit = "Step 8, after {s7}?")] s8: String,
    #[resolve(elicit = "Step 9, after {s8}?")] s9: String,
    #[resolve(elicit = "Step 10, after {s9}?")] s10: String,
) -> String {
    let _earlier = [s1, s2, s3, s4, s5, s6, s7, s8, s9];
    format!("chain ends with {s10}")
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"}}"#;

/// The JSON-RPC body of a `tools/call`.
fn body(name: &str, arguments: Value, answers: Option<(Map<String, Value>, &str)>) -> Vec<u8> {
    let mut params =
        json!({"name": name, "arguments": arguments, "_meta": serde_json::from_str::<Value>(META).unwrap()});
    if let Some((responses, state)) = answers {
        params["inputResponses"] = Value::Object(responses);
        params["requestState"] = Value::String(state.to_owned());
    }
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})).unwrap()
}

fn accept(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

/// One leg to replay: the tool it names and its body.
#[derive(Clone)]
struct Leg {
    tool: &'static str,
    body: bytes::Bytes,
}

async fn send(endpoint: &impl Endpoint, leg: &Leg) -> (u16, bytes::Bytes) {
    use http::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
    // Built as hyper hands a parsed request to its service: the method, path and values point
    // into bytes already there, and only names that are not standard ones are copied (hyper's
    // `HeaderName::from_bytes`), so the bench's own allocations are those a socket's would be.
    let mut request = http::Request::new(Body::from(leg.body.clone()));
    *request.method_mut() = http::Method::POST;
    *request.uri_mut() = http::Uri::from_static("/mcp");
    let headers = request.headers_mut();
    headers.insert(HOST, HeaderValue::from_static("127.0.0.1"));
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
    for (name, value) in [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", leg.tool)]
    {
        headers.insert(HeaderName::from_bytes(name.as_bytes()).unwrap(), HeaderValue::from_static(value));
    }
    let response = endpoint.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    (status, axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap())
}

/// Send `leg` once, check its result, and return it.
async fn result(endpoint: &impl Endpoint, leg: &Leg) -> Value {
    let (status, bytes) = send(endpoint, leg).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    let reply: Value = serde_json::from_slice(&bytes).unwrap();
    reply["result"].clone()
}

/// What replaying one leg costs.
struct Cost {
    cpu_us: f64,
    allocs: f64,
    alloc_bytes: f64,
}

/// What `iterations` runs of `body` cost (CPU of this thread, allocations), per run, after a
/// tenth as many unmeasured runs to warm up.
macro_rules! cost_of {
    ($iterations:expr, $body:expr) => {{
        let iterations: usize = $iterations;
        for _ in 0..iterations / 10 {
            $body;
        }
        let region = Region::new(GLOBAL);
        let start = cpu_time::ThreadTime::now();
        for _ in 0..iterations {
            $body;
        }
        let cpu = start.elapsed();
        let stats = region.change();
        let n = iterations as f64;
        Cost {
            cpu_us: cpu.as_secs_f64() * 1e6 / n,
            allocs: (stats.allocations + stats.reallocations) as f64 / n,
            alloc_bytes: stats.bytes_allocated as f64 / n,
        }
    }};
}

/// Replay `legs` in turn `iterations` times each; every response must have the status and the
/// length of the checked first one (the bodies differ only in values of a fixed size).
async fn replay(endpoint: &impl Endpoint, legs: &[Leg], iterations: usize) -> Vec<Cost> {
    let mut expected = Vec::new();
    for leg in legs {
        let (status, bytes) = send(endpoint, leg).await;
        assert_eq!(status, 200);
        expected.push(bytes.len());
    }
    let mut costs = Vec::new();
    for (leg, &len) in legs.iter().zip(&expected) {
        costs.push(cost_of!(iterations, {
            let (status, bytes) = send(endpoint, leg).await;
            assert!(status == 200 && bytes.len() == len, "a replayed leg answered differently: {status}");
        }));
    }
    costs
}

fn row(name: &str, cost: &Cost, state_bytes: Option<usize>) {
    let state = state_bytes.map_or_else(|| "–".to_owned(), |b| b.to_string());
    println!("| {name:<28} | {:>8.1} | {:>8.0} | {:>9.0} | {state:>11} |", cost.cpu_us, cost.allocs, cost.alloc_bytes);
}

/// Where the plain `tools/call` row goes: the bench's own request and response handling
/// (through a trivial axum router), parsing the body, and the server's dispatch without HTTP;
/// what is left is the HTTP endpoint's own work (header checks, body read, the event channel,
/// the response body).
async fn split_plain(server: &Server, endpoint: &impl Endpoint, leg: &Leg, iterations: usize) {
    let trivial = tower::service_fn(|_request: http::Request<Body>| async {
        let mut response = Response::new(Body::from(r#"{"jsonrpc":"2.0","id":7}"#));
        response.headers_mut().insert("content-type", http::HeaderValue::from_static("application/json"));
        Ok::<_, Infallible>(response)
    });
    let whole = cost_of!(iterations, {
        let (status, bytes) = send(endpoint, leg).await;
        assert_eq!(status, 200);
        std::hint::black_box(bytes);
    });
    let bench_own = cost_of!(iterations, {
        let (status, bytes) = send(&trivial, leg).await;
        assert_eq!(status, 200);
        std::hint::black_box(bytes);
    });
    let parse = cost_of!(iterations, {
        std::hint::black_box(roundtrip::protocol::Message::from_slice(&leg.body).unwrap());
    });
    let parse_and_handle = cost_of!(iterations, {
        let roundtrip::protocol::Message::Request(request) =
            roundtrip::protocol::Message::from_slice(&leg.body).unwrap()
        else {
            unreachable!("a request")
        };
        let mut inbound = roundtrip::server::Inbound::new(std::sync::Arc::new(roundtrip::server::NullPeer));
        inbound.modern_hint = true;
        let reply = server.handle(request, inbound).await;
        assert_eq!(reply.settled, roundtrip::server::Settled::Answered);
        std::hint::black_box(reply);
    });
    let router = server.router();
    let mounted = cost_of!(iterations, {
        let (status, bytes) = send(&router, leg).await;
        assert_eq!(status, 200);
        std::hint::black_box(bytes);
    });
    let minus = |a: &Cost, b: &Cost| Cost {
        cpu_us: a.cpu_us - b.cpu_us,
        allocs: a.allocs - b.allocs,
        alloc_bytes: a.alloc_bytes - b.alloc_bytes,
    };
    let handle = minus(&parse_and_handle, &parse);
    let server_own = minus(&whole, &bench_own);
    println!();
    println!("where the plain tools/call goes (each part measured alone):");
    println!();
    println!("| part of the plain call       | CPU µs   | allocs   | bytes     |             |");
    println!("|------------------------------|----------|----------|-----------|-------------|");
    row("whole, measured again", &whole, None);
    row("bench: request, body", &bench_own, None);
    row("server: whole less bench", &server_own, None);
    row("whole, via Server::router", &mounted, None);
    row("Message::from_slice", &parse, None);
    row("Server::handle (no HTTP)", &handle, None);
    println!();
    println!("(`Message::from_slice` and `Server::handle` are the public path, `_meta` read as a `Value`;");
    println!("the endpoint reads a carrier request's `_meta` typed, so they do not add up to the server's row.)");
}

/// An interceptor that does nothing (`--intercepted`): what one costs a leg.
struct Noop;

impl roundtrip::server::Interceptor for Noop {}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iterations = args
        .iter()
        .position(|a| a == "--iterations")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000usize);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let server = Server::new("bench", "1.0.0").tools(tools![provision, plain, q1, q5, q20, q50, chain10]);
    let server = if args.iter().any(|a| a == "--intercepted") { server.intercept(Noop) } else { server };
    rt.block_on(async {
        let bound = server.clone().bind_http("127.0.0.1:0").await.unwrap();
        let service = bound.service();
        println!("per_leg: {iterations} legs per row, server only (a bound server's service in process, no socket)");
        println!();
        println!("| leg                          | CPU µs   | allocs   | bytes     | state bytes |");
        println!("|------------------------------|----------|----------|-----------|-------------|");

        // provision: leg 1 asks, leg 2 completes.
        let leg1 = Leg { tool: "provision", body: body("provision", json!({"name": "orders"}), None).into() };
        let asked = result(&service, &leg1).await;
        assert_eq!(asked["resultType"], "input_required", "{asked}");
        let state = asked["requestState"].as_str().unwrap().to_owned();
        let mut responses = Map::new();
        responses.insert("region".into(), accept("region", "eu-west-1"));
        let leg2 = Leg {
            tool: "provision",
            body: body("provision", json!({"name": "orders"}), Some((responses, &state))).into(),
        };
        let done = result(&service, &leg2).await;
        assert_eq!(done["content"][0]["text"], "Provisioned 'orders' in eu-west-1.", "{done}");
        let plain_leg = Leg { tool: "plain", body: body("plain", json!({}), None).into() };
        let plain_done = result(&service, &plain_leg).await;
        assert_eq!(plain_done["resultType"], "complete", "{plain_done}");
        let legs = [leg1, leg2, plain_leg.clone()];
        // One leg alone, for a profiler (dhat, callgrind) to see only its allocations and calls.
        if let Some(only) = args.iter().position(|a| a == "--only-leg").and_then(|i| args.get(i + 1)) {
            let i: usize = only.parse().ok().filter(|i| (1..=3).contains(i)).expect("--only-leg 1, 2 or 3");
            let cost = &replay(&service, &legs[i - 1..i], iterations).await[0];
            row(["provision leg 1 (asks)", "provision leg 2 (completes)", "plain tools/call"][i - 1], cost, None);
            return;
        }
        let costs = replay(&service, &legs, iterations).await;
        row("provision leg 1 (asks)", &costs[0], Some(state.len()));
        row("provision leg 2 (completes)", &costs[1], None);
        row("plain tools/call", &costs[2], None);

        if args.iter().any(|a| a == "--provision-only") {
            return;
        }
        split_plain(&server, &service, &plain_leg, iterations).await;

        // N independent questions.
        let mut wide_rows = Vec::new();
        for (tool, n) in [("q1", 1usize), ("q5", 5), ("q20", 20), ("q50", 50)] {
            let leg1 = Leg { tool, body: body(tool, json!({}), None).into() };
            let asked = result(&service, &leg1).await;
            assert_eq!(asked["inputRequests"].as_object().map(Map::len), Some(n), "{asked}");
            let state = asked["requestState"].as_str().unwrap().to_owned();
            let mut responses = Map::new();
            for i in 1..=n {
                let key = format!("a{i}");
                responses.insert(key.clone(), accept(&key, "value"));
            }
            let leg2 = Leg { tool, body: body(tool, json!({}), Some((responses, &state))).into() };
            let done = result(&service, &leg2).await;
            assert_eq!(done["content"][0]["text"], format!("{n} answers"), "{done}");
            let costs = replay(&service, &[leg1, leg2], iterations).await;
            row(&format!("{n} independent, leg 1 (asks)"), &costs[0], Some(state.len()));
            row(&format!("{n} independent, leg 2"), &costs[1], None);
            wide_rows.push((n, costs, state.len()));
        }

        // A chain of ten: each leg answers the previous question.
        let mut legs = Vec::new();
        let mut state: Option<String> = None;
        let mut responses = Map::new();
        let mut state_sizes = Vec::new();
        for step in 1..=11 {
            let leg = Leg {
                tool: "chain10",
                body: body("chain10", json!({}), state.as_deref().map(|s| (responses.clone(), s))).into(),
            };
            let answer = result(&service, &leg).await;
            legs.push(leg);
            if step == 11 {
                assert_eq!(answer["content"][0]["text"], "chain ends with v10", "{answer}");
                break;
            }
            let key = format!("s{step}");
            assert!(answer["inputRequests"].get(&key).is_some(), "{answer}");
            let sealed = answer["requestState"].as_str().unwrap().to_owned();
            state_sizes.push(sealed.len());
            state = Some(sealed);
            responses = Map::new();
            responses.insert(key.clone(), accept(&key, &format!("v{step}")));
        }
        let costs = replay(&service, &legs, iterations / 5).await;
        let asking = &costs[..10];
        let mean = |f: fn(&Cost) -> f64| asking.iter().map(f).sum::<f64>() / asking.len() as f64;
        let mean_cost =
            Cost { cpu_us: mean(|c| c.cpu_us), allocs: mean(|c| c.allocs), alloc_bytes: mean(|c| c.alloc_bytes) };
        row("chain of 10, legs 1-10 (mean)", &mean_cost, None);
        row("chain of 10, leg 10", &costs[9], state_sizes.last().copied());
        row("chain of 10, leg 11 (completes)", &costs[10], None);

        println!();
        let (first, last) = (&wide_rows[0], &wide_rows[wide_rows.len() - 1]);
        let extra = (last.0 - first.0) as f64;
        println!(
            "growth per extra independent question (1 -> 50): leg 1 {:+.2} µs, leg 2 {:+.2} µs, state {:+.1} bytes",
            (last.1[0].cpu_us - first.1[0].cpu_us) / extra,
            (last.1[1].cpu_us - first.1[1].cpu_us) / extra,
            (last.2 as f64 - first.2 as f64) / extra,
        );
        println!(
            "chain of 10: state bytes by leg {:?}; per extra answer {:+.1} bytes; leg 1 {:.1} µs, leg 10 {:.1} µs",
            state_sizes,
            (state_sizes[9] as f64 - state_sizes[0] as f64) / 9.0,
            costs[0].cpu_us,
            costs[9].cpu_us,
        );
    });
}
