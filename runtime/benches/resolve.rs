//! The resolver's cost per leg, without HTTP: one `tools/call` through `Server::handle` (2026
//! `_meta`, a `NullPeer`) of a `#[tool]` with three independent elicited parameters.
//!
//! - `ask_round`: the first leg. Parse the arguments, evaluate the graph (render the
//!   `{placeholder}`), pin the three questions, serialize and seal the flow state, and build
//!   the `input_required` result.
//! - `complete_round`: the retry with the three answers and the sealed state. Unseal, re-pin,
//!   check each answer against its form, run the body, build the complete result.
//! - `plain_call`: a tool without resolved parameters, the floor of `Server::handle`.
//!
//! The group `intercepted` runs the same three on the same server with one interceptor that
//! does nothing (`Server::intercept`): what an interceptor costs a leg.
//!
//! The request is cloned in the setup of each batch, outside the measurement.
//!
//! `cargo bench -p roundtrip --bench resolve -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, clippy::expect_used)] // a bench fails loudly

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use roundtrip::prelude::*;
use roundtrip::protocol::{Request, RequestId, ResponseBody};
use roundtrip::server::{Inbound, NullPeer};
use serde_json::{Value, json};

/// Book a table: three questions, one of which names the argument.
#[tool]
async fn book_table(
    /// The city.
    city: String,
    #[resolve(elicit = "Which restaurant in {city}?")] restaurant: String,
    #[resolve(elicit = "Under which name?")] guest: String,
    #[resolve(elicit = "Any dietary needs?")] diet: String,
) -> String {
    format!("Booked {restaurant} in {city} for {guest} ({diet}).")
}

/// No questions: the floor.
#[tool]
async fn plain(
    /// The city.
    city: String,
) -> String {
    format!("Hello from {city}.")
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    })
}

fn call(name: &str, extra: Value) -> Request {
    let mut params = json!({"name": name, "arguments": {"city": "Oslo"}, "_meta": meta()});
    if let (Some(p), Value::Object(extra)) = (params.as_object_mut(), extra) {
        p.extend(extra);
    }
    Request::new(RequestId::Number(1), "tools/call", Some(params))
}

fn inbound() -> Inbound {
    Inbound::new(Arc::new(NullPeer))
}

async fn result(server: &Server, request: Request) -> Value {
    let reply = server.handle(request, inbound()).await;
    match reply.response.expect("a response").into_response().body {
        ResponseBody::Result(v) => v,
        ResponseBody::Error(e) => panic!("error: {e:?}"),
    }
}

fn accept(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

/// An interceptor that does nothing.
struct Noop;

impl roundtrip::server::Interceptor for Noop {}

fn resolve(c: &mut Criterion) {
    let server = Server::new("bench", "1.0.0").tools(tools![book_table, plain]);
    legs(c, "resolve_three_questions", &server);
    legs(c, "intercepted", &server.intercept(Noop));
}

/// The three legs on `server`, as the group `name`.
fn legs(c: &mut Criterion, name: &str, server: &Server) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");

    // Check the flow once, and keep the sealed state for the completing round.
    let leg1 = call("book_table", json!({}));
    let first = rt.block_on(result(server, leg1.clone()));
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"].as_object().map(|o| o.len()), Some(3), "{first}");
    assert_eq!(first["inputRequests"]["restaurant"]["params"]["message"], "Which restaurant in Oslo?", "{first}");
    let state = first["requestState"].clone();
    let leg2 = call(
        "book_table",
        json!({
            "inputResponses": {
                "restaurant": accept("restaurant", "Maaemo"),
                "guest": accept("guest", "Ada"),
                "diet": accept("diet", "none"),
            },
            "requestState": state,
        }),
    );
    let done = rt.block_on(result(server, leg2.clone()));
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["content"][0]["text"], "Booked Maaemo in Oslo for Ada (none).", "{done}");
    let floor = call("plain", json!({}));

    let mut group = c.benchmark_group(name);
    group.bench_function("ask_round", |b| {
        b.iter_batched(
            || leg1.clone(),
            |request| black_box(rt.block_on(server.handle(request, inbound()))),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("complete_round", |b| {
        b.iter_batched(
            || leg2.clone(),
            |request| black_box(rt.block_on(server.handle(request, inbound()))),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("plain_call", |b| {
        b.iter_batched(
            || floor.clone(),
            |request| black_box(rt.block_on(server.handle(request, inbound()))),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(benches, resolve);
criterion_main!(benches);
