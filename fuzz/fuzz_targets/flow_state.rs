//! The flow state of declarative tools: arbitrary bytes as the *verified* plaintext
//! `requestState` of a leg (sealed with the server's own key, so they pass the seal and reach
//! the resolver engine), with arbitrary `inputResponses`, through `Server::handle`.
//!
//! The input is: a first line naming the tool (`digest`, anything else is `book`), then the
//! state's plaintext, then, after a line `--`, the `inputResponses` JSON. Checked:
//! - nothing panics (the engine, the answer checks, the `with` fn, the body);
//! - a sealed state is never refused as a state (whatever its plaintext says);
//! - an `input_required` answer asks only the tool's resolved parameters, and its state opens
//!   to a flow state object (`r` records, `q` pins, `n` the rounds asked so far);
//! - a `complete` answer carries text.
//!
//! `cd fuzz && cargo fuzz run -s none flow_state corpus/flow_state -- -max_total_time=60`

#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use roundtrip::fuzzing::StateSealer;
use roundtrip::prelude::*;
use roundtrip::protocol::{ErrorObject, JsonObject, Request, RequestId, ResponseBody};
use roundtrip::server::{Inbound, NullPeer};
use roundtrip::{Consent, RequestStateSecurity};
use serde_json::{Value, json};

const KEY: [u8; 32] = *b"fuzzing key 42: no secret at all";
const SERVER: &str = "fuzz-flow";

/// Where to sit.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Seating {
    Inside,
    Terrace,
}

/// Who comes.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct Guest {
    /// The name on the booking.
    #[schemars(length(min = 2, max = 40))]
    name: String,
    /// Where to sit.
    seating: Seating,
    /// A regular.
    #[serde(default)]
    vip: bool,
    /// How many children.
    #[schemars(range(max = 6))]
    children: Option<u32>,
}

/// The table: decided from the party, or asked when it is large.
async fn table_of(restaurant: String, party: u32) -> Resolve<String> {
    if party > 6 {
        Resolve::Ask(Question::choice(
            format!("Which table for {party} at {restaurant}?"),
            "table",
            [("long", "The long table"), ("two", "Two tables side by side")],
        ))
    } else {
        Resolve::Value(format!("{restaurant}/{party}"))
    }
}

/// Book a table: six questions over four legs, one of them asked by a `with` fn.
#[tool]
async fn book(
    /// The city.
    city: String,
    #[resolve(elicit = "Which restaurant in {city}?")] restaurant: String,
    #[resolve(elicit = "How many people at {restaurant}?")] party: u32,
    #[resolve(elicit = "Who is the booking for?")] guest: Guest,
    #[resolve(with = table_of(restaurant, party))] table: String,
    #[resolve(elicit = "Anything to tell {restaurant} about table {table}?")] note: Answer<String>,
    #[resolve(elicit_url = "https://pay.example/{city}/{restaurant}", message = "Pay the deposit")] deposit: Consent,
) -> String {
    let _ = deposit;
    let note = note.accepted().unwrap_or_default();
    format!(
        "{} and {} more ({:?}, vip {}, {} children) at {restaurant} in {city}, table {table}: {note}",
        guest.name,
        party.saturating_sub(1),
        guest.seating,
        guest.vip,
        guest.children.unwrap_or(0)
    )
}

/// Summarize a topic with the client's model, in the client's roots, after a confirmation.
#[tool]
async fn digest(
    /// The topic.
    topic: String,
    #[resolve(sample = "Summarize {topic}.", max_tokens = 50, system = "Be brief.")] summary: String,
    #[resolve(roots)] roots: Vec<Root>,
    #[resolve(elicit = "Publish the digest of {topic}?")] publish: Answer<bool>,
    #[resolve(sample = "Title for: {summary}", max_tokens = 10)] title: CreateMessageResult,
) -> String {
    let title = title.content.as_text().unwrap_or("untitled").to_owned();
    format!("{title}: {summary} ({} roots, publish {:?})", roots.len(), publish)
}

struct Fixture {
    rt: tokio::runtime::Runtime,
    server: Server,
    sealer: StateSealer,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let policy = || RequestStateSecurity::new().keys([KEY]);
        let server = Server::new(SERVER, "1.0.0").security(policy()).expect("a policy").tools(tools![book, digest]);
        let sealer = StateSealer::new(policy(), SERVER).expect("a policy");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        Fixture { rt, server, sealer }
    })
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"},
    })
}

fn split(data: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let (tool, rest) = match find(data, b"\n") {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    match find(rest, b"\n--\n") {
        Some(i) => (tool, &rest[..i], &rest[i + 4..]),
        None => (tool, rest, &[][..]),
    }
}

fuzz_target!(|data: &[u8]| {
    let fx = fixture();
    let (tool, state, responses) = split(data);
    let (name, arguments, params): (&str, _, &[&str]) = if tool == b"digest" {
        ("digest", json!({"topic": "logs"}), &["summary", "roots", "publish", "title"])
    } else {
        ("book", json!({"city": "Oslo"}), &["restaurant", "party", "guest", "table", "note", "deposit"])
    };
    let Value::Object(args) = arguments else { return };
    let token = fx.sealer.seal("tools/call", name, &args, state).expect("arbitrary plaintext seals");
    let mut call = json!({"name": name, "arguments": args, "_meta": meta(), "requestState": token});
    if let Ok(responses) = serde_json::from_slice::<Value>(responses) {
        call["inputResponses"] = responses;
    }
    let request = Request::new(RequestId::Number(7), "tools/call", Some(call));
    let reply = fx.rt.block_on(fx.server.handle(request, Inbound::new(Arc::new(NullPeer))));
    let response = reply.response.expect("a tools/call is answered").into_response();
    assert_eq!(response.id, Some(RequestId::Number(7)));
    match response.body {
        ResponseBody::Error(e) => {
            assert_ne!(e, ErrorObject::invalid_request_state(), "a sealed state was refused");
            assert!(e.code == -32602 || e.code == -32603, "{e:?}");
        }
        ResponseBody::Result(result) => match result["resultType"].as_str() {
            Some("input_required") => {
                if let Some(asked) = result.get("inputRequests") {
                    let asked = asked.as_object().expect("inputRequests is an object");
                    assert!(!asked.is_empty(), "{result}");
                    assert!(asked.keys().all(|k| params.contains(&k.as_str())), "asked {:?}", asked.keys());
                }
                let token = result.get("requestState").expect("a flow carries its state");
                let plaintext = fx.sealer.open("tools/call", name, &args, token).expect("the state opens");
                let state: JsonObject = serde_json::from_slice(&plaintext).expect("the state is an object");
                assert!(state.keys().all(|k| ["r", "q", "n"].contains(&k.as_str())), "{state:?}");
                if let Some(n) = state.get("n") {
                    assert!(n.as_u64().is_some_and(|n| n >= 1), "the round count is a positive integer: {state:?}");
                }
            }
            Some("complete") => {
                assert!(result["content"][0]["text"].is_string(), "{result}");
            }
            other => panic!("resultType {other:?}: {result}"),
        },
    }
});
