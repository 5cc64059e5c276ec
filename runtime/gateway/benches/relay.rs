//! What a relayed leg costs against a direct one.
//!
//! One process, one current-thread runtime: the upstream is a roundtrip server served in memory
//! (the newline-delimited transport stdio uses, without the pipe), so each figure is the CPU
//! both sides spend on a leg, the gateway's relay included. Rows, each the mean over
//! `--iterations` (default 5 000) after a warm-up:
//!
//! - `plain`: a tool without questions, called on the upstream directly, then through the
//!   gateway (a 2026-07-28 upstream);
//! - `two rounds`: the three legs of a two-question flow, per leg, directly and through the
//!   gateway: to a 2026-07-28 upstream (the upstream's state sealed inside the gateway's), and
//!   to the same server spoken to as a 2025-era one (the call held open between legs).
//!
//! ```text
//! cargo bench -p roundtrip-gateway --bench relay
//! cargo bench -p roundtrip-gateway --bench relay -- --iterations 20000
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // a bench fails loudly

use std::sync::Arc;
use std::time::Instant;

use roundtrip::client::Mode;
use roundtrip::prelude::*;
use roundtrip::protocol::{Request, RequestId, ResponseBody};
use roundtrip::server::{Inbound, NullPeer};
use roundtrip_gateway::{Proxy, Upstream};
use serde_json::{Value, json};

/// Say hello.
#[tool(read_only)]
async fn hello() -> &'static str {
    "hello"
}

/// Two rounds: the second question needs the first answer.
#[tool]
async fn two_rounds(
    #[resolve(elicit = "Your story?")] story: String,
    #[resolve(elicit = "Sign it, {story}?")] sign: bool,
) -> String {
    format!("{} bytes, signed {sign}", story.len())
}

fn upstream() -> Server {
    Server::new("upstream", "1.0.0").tools(tools![hello, two_rounds])
}

async fn send(server: &Server, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let request = Request::new(RequestId::Number(1), "tools/call", Some(params));
    let reply = server.handle(request, Inbound::new(Arc::new(NullPeer))).await;
    match reply.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(v)) => v,
        other => panic!("no result: {other:?}"),
    }
}

async fn plain(server: &Server, name: &str) {
    let done = send(server, json!({"name": name, "arguments": {}})).await;
    assert_eq!(done["content"][0]["text"], "hello", "{done}");
}

/// The three legs of the two-round flow; the keys the questions come under are `first` and
/// `second` (the tool's own, or the held call's).
async fn flow(server: &Server, name: &str, keys: (&str, &str)) {
    let first = send(server, json!({"name": name, "arguments": {}})).await;
    assert_eq!(first["resultType"], "input_required", "{first}");
    let answers = json!({keys.0: {"action": "accept", "content": {"story": "once"}}});
    let params =
        json!({"name": name, "arguments": {}, "inputResponses": answers, "requestState": first["requestState"]});
    let second = send(server, params).await;
    assert_eq!(second["resultType"], "input_required", "{second}");
    let answers = json!({keys.1: {"action": "accept", "content": {"sign": true}}});
    let params =
        json!({"name": name, "arguments": {}, "inputResponses": answers, "requestState": second["requestState"]});
    let done = send(server, params).await;
    assert_eq!(done["content"][0]["text"], "4 bytes, signed true", "{done}");
}

/// Mean µs per unit of `f` over `n` runs (after `n / 10` warm-up runs).
async fn time<F: AsyncFnMut()>(n: u32, units: u32, mut f: F) -> f64 {
    for _ in 0..n / 10 {
        f().await;
    }
    let start = Instant::now();
    for _ in 0..n {
        f().await;
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(n * units)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = args
        .iter()
        .position(|a| a == "--iterations")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000u32);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let direct = upstream();
        let mount = async |upstream: Upstream| {
            Proxy::connect(upstream).await.unwrap().mount(Server::new("gateway", "1.0.0"), "up").unwrap()
        };
        let modern = mount(Upstream::in_memory(upstream())).await;
        let legacy = mount(Upstream::in_memory(upstream()).mode(Mode::Legacy)).await;

        println!("{n} iterations a row; µs per leg (both sides, one thread)");
        let d = time(n, 1, async || plain(&direct, "hello").await).await;
        let r = time(n, 1, async || plain(&modern, "up_hello").await).await;
        println!("plain, direct                     {d:8.1}");
        println!("plain, relayed (2026 upstream)    {r:8.1}   +{:.1} µs, {:.2}×", r - d, r / d);
        let d = time(n, 3, async || flow(&direct, "two_rounds", ("story", "sign")).await).await;
        let r = time(n, 3, async || flow(&modern, "up_two_rounds", ("story", "sign")).await).await;
        let h = time(n / 5, 3, async || flow(&legacy, "up_two_rounds", ("upstream", "upstream")).await).await;
        println!("two rounds, direct                {d:8.1}");
        println!("two rounds, relayed (2026)        {r:8.1}   +{:.1} µs, {:.2}×", r - d, r / d);
        println!("two rounds, held (2025 upstream)  {h:8.1}   +{:.1} µs, {:.2}×", h - d, h / d);
    });
}
