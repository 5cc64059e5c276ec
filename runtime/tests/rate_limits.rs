//! Rate limits per caller and tool (`Server::rate_limit`, `Server::tool_rate_limit`): a caller
//! over its rate is refused with `-32000` saying when to retry, while another caller, and the
//! same caller's other tools, are not counted against it; both eras.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::Arc;
use std::time::Duration;

use roundtrip::auth::AuthPrincipal;
use roundtrip::prelude::*;
use roundtrip::protocol::{
    ClientCapabilities, ErrorObject, Implementation, ProtocolVersion, Request, RequestId, ResponseBody,
};
use roundtrip::server::{Inbound, NullPeer, Session};
use serde_json::{Value, json};

/// Run an expensive report.
#[tool(read_only)]
async fn report() -> &'static str {
    "done"
}

/// Look something up.
#[tool(read_only)]
async fn lookup() -> &'static str {
    "found"
}

/// Greet the user: asks their name, then (knowing it) their age.
#[tool]
async fn wizard(
    #[resolve(elicit = "What is your name?")] name: String,
    #[resolve(elicit = "How old are you, {name}?")] age: u32,
) -> String {
    format!("Hello {name}, you are {age}.")
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

/// One 2026-07-28 `tools/call` by `principal` (anonymous without one).
async fn call(server: &Server, principal: Option<&str>, params: Value) -> Result<Value, ErrorObject> {
    let mut inbound = Inbound::new(Arc::new(NullPeer));
    inbound.auth = principal.map(|p| Arc::new(AuthPrincipal::new(p)));
    let mut params = params;
    params["_meta"] = meta();
    let reply = server.handle(Request::new(RequestId::Number(1), "tools/call", Some(params)), inbound).await;
    match reply.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(v)) => Ok(v),
        Some(ResponseBody::Error(e)) => Err(e),
        None => Err(ErrorObject::internal("no response")),
    }
}

fn server() -> Server {
    Server::new("rates", "1.0.0").tools(tools![report, lookup, wizard])
}

#[tokio::test]
async fn a_caller_over_its_rate_is_told_when_to_retry_and_no_one_else_is_refused() {
    let server =
        server().rate_limit(100, Duration::from_secs(60)).tool_rate_limit("report", 2, Duration::from_secs(60));
    let report = || json!({"name": "report", "arguments": {}});
    for _ in 0..2 {
        assert_eq!(call(&server, Some("alice"), report()).await.unwrap()["content"][0]["text"], "done");
    }
    let refused = call(&server, Some("alice"), report()).await.unwrap_err();
    assert_eq!(refused.code, -32000, "{refused:?}");
    let data = refused.data.clone().unwrap();
    assert_eq!(
        (data["limit"].as_str(), data["max"].as_u64(), data["perMs"].as_u64()),
        (Some("tool_rate"), Some(2), Some(60_000))
    );
    let retry = data["retryAfterMs"].as_u64().unwrap();
    assert!((29_000..=30_000).contains(&retry), "one token comes back every 30 s: {retry}");
    assert!(refused.message.contains("retry in"), "{}", refused.message);

    // Another caller has a bucket of its own; alice's other tools are counted apart.
    assert!(call(&server, Some("bob"), report()).await.is_ok());
    assert!(call(&server, Some("alice"), json!({"name": "lookup", "arguments": {}})).await.is_ok());
    assert!(call(&server, None, report()).await.is_ok(), "an anonymous caller is one more caller");
}

#[tokio::test]
async fn without_a_rate_nothing_is_refused() {
    // The same calls as above: what fails without the limit is the refusal itself.
    let server = server();
    for _ in 0..50 {
        assert!(call(&server, Some("alice"), json!({"name": "report", "arguments": {}})).await.is_ok());
    }
}

#[tokio::test]
async fn every_leg_of_a_flow_is_a_call() {
    let server = server().rate_limit(2, Duration::from_secs(60));
    let leg1 = call(&server, Some("carol"), json!({"name": "wizard", "arguments": {}})).await.unwrap();
    assert_eq!(leg1["resultType"], "input_required");
    let retry = json!({
        "name": "wizard", "arguments": {},
        "inputResponses": {"name": {"action": "accept", "content": {"name": "Carol"}}},
        "requestState": leg1["requestState"],
    });
    let leg2 = call(&server, Some("carol"), retry.clone()).await.unwrap();
    assert_eq!(leg2["resultType"], "input_required", "the second leg is the second call");
    let refused = call(&server, Some("carol"), retry).await.unwrap_err();
    assert_eq!(refused.data.unwrap()["limit"], "tool_rate");
}

#[tokio::test]
async fn a_legacy_session_is_counted_per_request() {
    let server = server().rate_limit(1, Duration::from_secs(60));
    let client = Implementation::new("legacy", "1");
    let session = Arc::new(Session::new(None, ProtocolVersion::V2025_11_25, ClientCapabilities::default(), client));
    let legacy = |method: &str, params: Value| {
        let mut inbound = Inbound::new(Arc::new(NullPeer));
        inbound.session = Some(Arc::clone(&session));
        inbound.auth = Some(Arc::new(AuthPrincipal::new("dave")));
        server.handle(Request::new(RequestId::Number(1), method, Some(params)), inbound)
    };
    let answer = |reply: roundtrip::server::Reply| reply.response.map(|r| r.into_response().body);
    let first = answer(legacy("tools/call", json!({"name": "report", "arguments": {}})).await);
    assert!(matches!(first, Some(ResponseBody::Result(_))), "{first:?}");
    let second = answer(legacy("tools/call", json!({"name": "report", "arguments": {}})).await);
    let Some(ResponseBody::Error(refused)) = second else { panic!("refused: {second:?}") };
    assert_eq!(
        (refused.code, refused.data.unwrap()["limit"].as_str().map(str::to_owned)),
        (-32000, Some("tool_rate".into()))
    );
}
