//! 2025-era sessions over the in-memory transport: the handshake, legacy-only methods, and
//! multi-round handlers whose questions travel as server-to-client requests.
#![allow(clippy::unwrap_used)]

mod common;

use common::{Wire, fixture};
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";

async fn session(caps: Value) -> Wire {
    let mut w = Wire::new(fixture(), LEGACY);
    let r = w
        .request(
            "initialize",
            json!({"protocolVersion": LEGACY, "capabilities": caps, "clientInfo": {"name": "legacy", "version": "1"}}),
        )
        .await;
    assert_eq!(r["result"]["protocolVersion"], LEGACY);
    assert_eq!(r["result"]["serverInfo"]["name"], "fixture");
    w.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    w
}

/// Answer every server-to-client request in `w.events` with `answer(method, params)`.
async fn answer_requests(w: &mut Wire, answer: impl Fn(&str, &Value) -> Value) {
    let requests: Vec<Value> = w.events.drain(..).filter(|e| e.get("id").is_some()).collect();
    for r in requests {
        let result = answer(r["method"].as_str().unwrap(), &r["params"]);
        w.send(&json!({"jsonrpc": "2.0", "id": r["id"], "result": result})).await;
    }
}

/// Call a tool, answering the server's requests until the call's response arrives.
async fn call(w: &mut Wire, id: i64, name: &str, answer: impl Fn(&str, &Value) -> Value) -> (Value, Vec<Value>) {
    w.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}})).await;
    let mut asked = Vec::new();
    loop {
        let m = w.recv().await;
        if m.get("method").is_some() && m.get("id").is_some() {
            asked.push(m.clone());
            w.events.push(m);
            answer_requests(w, &answer).await;
        } else if m.get("id") == Some(&json!(id)) {
            return (m, asked);
        }
    }
}

#[tokio::test]
async fn initialize_negotiates_and_results_carry_no_2026_fields() {
    let mut w = session(json!({})).await;
    let r = w.request("tools/list", json!({})).await;
    assert!(r["result"]["tools"].is_array());
    assert!(r["result"].get("ttlMs").is_none());
    assert_eq!(w.request("ping", json!({})).await["result"], json!({}));
    assert_eq!(w.request("logging/setLevel", json!({"level": "info"})).await["result"], json!({}));
    assert_eq!(w.request("resources/subscribe", json!({"uri": "mem://a"})).await["result"], json!({}));
    assert_eq!(w.request("resources/unsubscribe", json!({"uri": "mem://a"})).await["result"], json!({}));
    assert_eq!(w.request("server/discover", json!({})).await["error"]["code"], -32601);
}

#[tokio::test]
async fn an_unknown_requested_version_gets_the_latest_legacy_one() {
    let mut w = Wire::new(fixture(), LEGACY);
    let r = w
        .request(
            "initialize",
            json!({"protocolVersion": "2024-01-01", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
        )
        .await;
    assert_eq!(r["result"]["protocolVersion"], LEGACY);
}

#[tokio::test]
async fn questions_travel_as_server_to_client_requests_inside_the_one_call() {
    let mut w = session(json!({"elicitation": {}})).await;
    let (r, asked) = call(&mut w, 10, "ask_name", |method, params| {
        assert_eq!(method, "elicitation/create");
        assert_eq!(params["message"], "What is your name?");
        json!({"action": "accept", "content": {"name": "Ada"}})
    })
    .await;
    assert_eq!(asked.len(), 1);
    assert_eq!(r["result"]["content"][0]["text"], "Hello, Ada!");
    assert!(r["result"].get("resultType").is_none());
}

#[tokio::test]
async fn several_questions_of_a_round_are_sent_together() {
    let mut w = session(json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}})).await;
    w.send(&json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "ask_everything"}})).await;
    // All three requests arrive before any is answered.
    let mut methods = Vec::new();
    let mut requests = Vec::new();
    for _ in 0..3 {
        let m = w.recv().await;
        methods.push(m["method"].as_str().unwrap().to_owned());
        requests.push(m);
    }
    methods.sort();
    assert_eq!(methods, ["elicitation/create", "roots/list", "sampling/createMessage"]);
    for m in requests {
        let result = match m["method"].as_str().unwrap() {
            "elicitation/create" => json!({"action": "accept", "content": {"name": "Ada"}}),
            "sampling/createMessage" => {
                json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"})
            }
            _ => json!({"roots": [{"uri": "file:///x"}]}),
        };
        w.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": result})).await;
    }
    let r = w.recv().await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada / Paris / file:///x");
}

#[tokio::test]
async fn a_state_only_round_is_run_again_by_the_server() {
    let mut w = session(json!({})).await;
    let (r, asked) = call(&mut w, 12, "state_only", |_, _| json!({})).await;
    assert!(asked.is_empty(), "nothing to ask the client");
    assert_eq!(r["result"]["content"][0]["text"], "resumed 7", "{r}");
}

#[tokio::test]
async fn an_undeclared_capability_fails_the_call_clearly() {
    let mut w = session(json!({})).await;
    let (r, asked) = call(&mut w, 13, "ask_name", |_, _| json!({})).await;
    assert!(asked.is_empty());
    assert_eq!(r["error"]["code"], -32021, "the same code as on 2026-07-28: {r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("elicitation"));
    assert!(r["error"]["data"]["requiredCapabilities"]["elicitation"].is_object(), "{r}");
}

#[tokio::test]
async fn a_url_question_to_a_session_without_url_mode_names_it() {
    let mut w = session(json!({"elicitation": {}})).await;
    let (r, asked) = call(&mut w, 15, "needs_url", |_, _| json!({})).await;
    assert!(asked.is_empty());
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("url mode"), "{r}");
    assert!(r["error"]["data"]["requiredCapabilities"]["elicitation"]["url"].is_object(), "{r}");
}

#[tokio::test]
async fn a_client_error_answer_fails_the_call() {
    let mut w = session(json!({"elicitation": {}})).await;
    w.send(&json!({"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {"name": "ask_name"}})).await;
    let asked = w.recv().await;
    w.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "error": {"code": -32601, "message": "no"}})).await;
    let r = w.recv().await;
    assert_eq!(r["error"]["code"], -32603);
}

#[tokio::test]
async fn logs_follow_the_session_level() {
    let mut w = session(json!({})).await;
    let r = w.request("tools/call", json!({"name": "progress"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "done");
    assert_eq!(w.events.len(), 1, "one log before any setLevel: {:?}", w.events);
    w.events.clear();
    w.request("logging/setLevel", json!({"level": "error"})).await;
    w.request("tools/call", json!({"name": "progress"})).await;
    assert!(w.events.is_empty(), "{:?}", w.events);
}

#[tokio::test]
async fn a_missing_resource_is_the_legacy_code() {
    let mut w = session(json!({})).await;
    let r = w.request("resources/read", json!({"uri": "mem://none"})).await;
    assert_eq!(r["error"]["code"], -32002);
    assert_eq!(r["error"]["data"]["uri"], "mem://none");
}

#[tokio::test]
async fn progress_reaches_legacy_clients_that_sent_a_token() {
    let mut w = session(json!({})).await;
    w.request("logging/setLevel", json!({"level": "error"})).await;
    let r = w.request("tools/call", json!({"name": "progress", "_meta": {"progressToken": 7}})).await;
    assert_eq!(r["result"]["content"][0]["text"], "done");
    let tokens: Vec<&serde_json::Value> = w.events.iter().map(|e| &e["params"]["progressToken"]).collect();
    assert_eq!(tokens, [&json!(7), &json!(7), &json!(7)]);
}

#[tokio::test]
async fn updates_of_subscribed_resources_reach_the_session() {
    let server = fixture();
    let mut w = Wire::new(server.clone(), LEGACY);
    let init = json!({"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "legacy", "version": "1"}});
    w.request("initialize", init).await;
    w.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let r = w.request("resources/subscribe", json!({"uri": "mem://a"})).await;
    assert_eq!(r["result"], json!({}), "{r}");
    server.notify_resource_updated("mem://b");
    server.notify_resource_updated("mem://a");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    w.request("ping", json!({})).await;
    let updates: Vec<&Value> = w.events.iter().filter(|e| e["method"] == "notifications/resources/updated").collect();
    assert_eq!(updates.len(), 1, "{:?}", w.events);
    assert_eq!(updates[0]["params"], json!({"uri": "mem://a"}));
}
