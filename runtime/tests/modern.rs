//! The 2026-07-28 wire over the in-memory transport: envelope rules, errors, and manual
//! multi-round handlers. Every message is validated against the official schema.
#![allow(clippy::unwrap_used)]

mod common;

use common::{MODERN, Wire, all_caps, fixture, meta};
use serde_json::{Value, json};

async fn wire() -> Wire {
    Wire::new(fixture(), MODERN)
}

#[tokio::test]
async fn discover_answers_versions_capabilities_caching_and_server_info() {
    let mut w = wire().await;
    let r = w.modern("server/discover", json!({}), json!({})).await;
    let result = &r["result"];
    assert_eq!(result["supportedVersions"], json!([MODERN]));
    assert_eq!(result["resultType"], "complete");
    assert!(result["ttlMs"].is_u64());
    assert!(result["cacheScope"] == "public" || result["cacheScope"] == "private");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "fixture");
    assert!(result["capabilities"]["tools"].is_object());
    assert!(result["capabilities"]["prompts"].is_object());
    assert!(result["capabilities"]["resources"].is_object());
}

#[tokio::test]
async fn list_results_carry_result_type_and_cache_hints_and_never_ask() {
    let mut w = wire().await;
    for method in ["tools/list", "prompts/list", "resources/list", "resources/templates/list"] {
        let r = w.modern(method, json!({}), all_caps()).await;
        assert_eq!(r["result"]["resultType"], "complete", "{method}");
        assert!(r["result"]["ttlMs"].is_u64(), "{method}");
        assert!(r["result"]["cacheScope"].is_string(), "{method}");
    }
}

/// Lists are serialized once and kept; a server built further from a served one (a clone
/// with another tool) lists its own definitions, not the cached ones.
#[tokio::test]
async fn cached_lists_follow_the_definitions() {
    let served = fixture();
    let names = |r: &Value| -> Vec<String> {
        r["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
    };
    let mut w = Wire::new(served.clone(), MODERN);
    let first = w.modern("tools/list", json!({}), all_caps()).await;
    let again = w.modern("tools/list", json!({}), all_caps()).await;
    assert_eq!(first["result"], again["result"]);
    assert!(!names(&first).contains(&"added_later".to_owned()));
    let extended = served.tool(roundtrip::server::ToolDef::new(
        roundtrip::protocol::Tool::new("added_later", roundtrip::protocol::empty_input_schema()),
        |_cx| async { Ok(roundtrip::Outcome::Complete(roundtrip::protocol::CallToolResult::text("late"))) },
    ));
    let mut w = Wire::new(extended, MODERN);
    let listed = w.modern("tools/list", json!({}), all_caps()).await;
    assert!(names(&listed).contains(&"added_later".to_owned()), "{listed}");
    assert_eq!(names(&listed).len(), names(&first).len() + 1);

    // The same when the served server is the only owner of its definitions (no copy made).
    let only = fixture();
    let list = || {
        let params = json!({"_meta": meta(all_caps())});
        roundtrip::protocol::Request::new(roundtrip::protocol::RequestId::Number(1), "tools/list", Some(params))
    };
    let inbound = || roundtrip::server::Inbound::new(std::sync::Arc::new(roundtrip::server::NullPeer));
    let before = only.handle(list(), inbound()).await.response.unwrap().into_response();
    let only = only.tool(roundtrip::server::ToolDef::new(
        roundtrip::protocol::Tool::new("added_later", roundtrip::protocol::empty_input_schema()),
        |_cx| async { Ok(roundtrip::Outcome::Complete(roundtrip::protocol::CallToolResult::text("late"))) },
    ));
    let after = only.handle(list(), inbound()).await.response.unwrap().into_response();
    let count = |r: &roundtrip::protocol::Response| match &r.body {
        roundtrip::protocol::ResponseBody::Result(v) => v["tools"].as_array().unwrap().len(),
        roundtrip::protocol::ResponseBody::Error(e) => panic!("{e:?}"),
    };
    assert_eq!(count(&after), count(&before) + 1);
}

#[tokio::test]
async fn a_call_without_arguments_means_empty_arguments() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "hello"}), json!({})).await;
    assert_eq!(r["result"], json!({"resultType": "complete", "content": [{"type": "text", "text": "Hello!"}]}));
}

#[tokio::test]
async fn missing_meta_keys_are_invalid_params() {
    let mut w = wire().await;
    let r = w.request("tools/list", json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = w.request("tools/list", json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("clientCapabilities"));
    let r = w
        .request("tools/list", json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/protocolVersion": 5}}))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    // clientInfo is optional.
    let r = w
        .request(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert!(r.get("result").is_some());
}

#[tokio::test]
async fn an_unknown_version_names_the_supported_ones() {
    let mut w = wire().await;
    let r = w
        .request(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "1900-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"], json!({"supported": [MODERN], "requested": "1900-01-01"}));
}

#[tokio::test]
async fn removed_and_unknown_methods_are_method_not_found() {
    let mut w = wire().await;
    for method in
        ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "nope/nothing"]
    {
        let r = w.modern(method, json!({}), json!({})).await;
        assert_eq!(r["error"]["code"], -32601, "{method}");
    }
}

#[tokio::test]
async fn unknown_tool_and_invalid_params_are_protocol_errors() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "missing"}), json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["message"], "Unknown tool: missing");
    let r = w.modern("tools/call", json!({"name": "echo", "arguments": {"text": 5}}), json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = w.modern("tools/call", json!({"name": "echo", "arguments": "x"}), json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = w.modern("tools/call", json!({"arguments": {}}), json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test]
async fn an_elicitation_round_trip_completes_with_the_echoed_state() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "ask_name"}), all_caps()).await;
    let result = &r["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(result["inputRequests"]["user_name"]["method"], "elicitation/create");
    assert_eq!(result["inputRequests"]["user_name"]["params"]["message"], "What is your name?");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let retry = json!({
        "name": "ask_name",
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}, "unrelated": {"x": 1}},
        "requestState": state,
    });
    let r = w.modern("tools/call", retry, all_caps()).await;
    assert_eq!(r["result"]["content"][0]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn a_retry_missing_its_answer_is_asked_again() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "ask_name"}), all_caps()).await;
    let state = r["result"]["requestState"].clone();
    for responses in [json!({}), json!({"wrong_key": {"action": "accept"}}), Value::Null] {
        let retry = json!({"name": "ask_name", "inputResponses": responses, "requestState": state});
        let r = w.modern("tools/call", retry, all_caps()).await;
        assert_eq!(r["result"]["resultType"], "input_required");
    }
}

#[tokio::test]
async fn structurally_invalid_input_responses_are_invalid_params() {
    let mut w = wire().await;
    for responses in [json!({"user_name": 12345}), json!("yes"), json!([1])] {
        let r = w.modern("tools/call", json!({"name": "ask_name", "inputResponses": responses}), all_caps()).await;
        assert_eq!(r["error"]["code"], -32602, "{responses}");
    }
}

#[tokio::test]
async fn one_round_may_mix_elicitation_sampling_and_roots() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "ask_everything"}), all_caps()).await;
    let requests = r["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests["capital"]["method"], "sampling/createMessage");
    assert_eq!(requests["roots"]["method"], "roots/list");
    let retry = json!({"name": "ask_everything", "inputResponses": {
        "who": {"action": "accept", "content": {"name": "Ada"}},
        "capital": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
        "roots": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]},
    }});
    let r = w.modern("tools/call", retry, all_caps()).await;
    assert_eq!(r["result"]["content"][0]["text"], "Ada / Paris / file:///a,file:///b");
}

#[tokio::test]
async fn roots_that_are_not_file_uris_are_no_answer_and_are_asked_again() {
    let mut w = wire().await;
    for uri in ["javascript:alert(document.domain)", "https://example.com/repo"] {
        let retry = json!({"name": "ask_everything", "inputResponses": {
            "who": {"action": "accept", "content": {"name": "Ada"}},
            "capital": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
            "roots": {"roots": [{"uri": "file:///a"}, {"uri": uri}]},
        }});
        let r = w.modern("tools/call", retry, all_caps()).await;
        assert!(r["result"].get("content").is_none(), "{uri} was accepted: {r}");
        assert_eq!(r["result"]["inputRequests"]["roots"]["method"], "roots/list", "{uri}: {r}");
    }
}

#[tokio::test]
async fn an_undeclared_capability_is_named_in_minus_32021() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "ask_everything"}), json!({"elicitation": {}, "roots": {}})).await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));
    // A bare `elicitation: {}` is form support, not URL support.
    let r = w.modern("tools/call", json!({"name": "needs_url"}), json!({"elicitation": {}})).await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"elicitation": {"url": {}}}));
    let r = w.modern("tools/call", json!({"name": "needs_url"}), json!({"elicitation": {"url": {}}})).await;
    assert_eq!(r["result"]["inputRequests"]["link"]["params"]["mode"], "url");
}

#[tokio::test]
async fn a_state_only_round_is_resumed_with_its_state() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "state_only"}), json!({})).await;
    assert!(r["result"].get("inputRequests").is_none());
    let state = r["result"]["requestState"].clone();
    let r = w.modern("tools/call", json!({"name": "state_only", "requestState": state}), json!({})).await;
    assert_eq!(r["result"]["content"][0]["text"], "resumed 7");
}

#[tokio::test]
async fn an_empty_round_is_an_internal_error_not_a_malformed_result() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "bad_round"}), json!({})).await;
    assert_eq!(r["error"]["code"], -32603);
}

#[tokio::test]
async fn progress_goes_out_only_with_a_token_and_logs_only_with_a_level() {
    let mut w = wire().await;
    let r = w.modern("tools/call", json!({"name": "progress"}), json!({})).await;
    assert_eq!(r["result"]["content"][0]["text"], "done");
    assert!(w.events.is_empty(), "{:?}", w.events);
    let mut params = json!({"name": "progress"});
    params["_meta"] = meta(json!({}));
    params["_meta"]["progressToken"] = json!("tok");
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let r = w.request("tools/call", params).await;
    assert_eq!(r["result"]["content"][0]["text"], "done");
    let methods: Vec<&str> = w.events.iter().map(|e| e["method"].as_str().unwrap()).collect();
    assert_eq!(
        methods,
        ["notifications/progress", "notifications/progress", "notifications/message", "notifications/progress"]
    );
    assert_eq!(
        w.events[1]["params"],
        json!({"progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half"})
    );
}

#[tokio::test]
async fn prompts_resources_and_templates() {
    let mut w = wire().await;
    let r = w.modern("prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}}), json!({})).await;
    assert_eq!(r["result"]["messages"][0]["content"]["text"], "Hello, Ada!");
    let r = w.modern("prompts/get", json!({"name": "greet"}), json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = w.modern("prompts/get", json!({"name": "nope"}), json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = w.modern("resources/read", json!({"uri": "mem://a"}), json!({})).await;
    assert_eq!(r["result"]["contents"][0]["text"], "A");
    assert!(r["result"]["ttlMs"].is_u64());
    let r = w.modern("resources/read", json!({"uri": "mem://items/42"}), json!({})).await;
    assert_eq!(r["result"]["contents"][0]["text"], "item 42");
    let r = w.modern("resources/read", json!({"uri": "mem://nothing"}), json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["data"]["uri"], "mem://nothing");
    let r = w
        .modern(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
            json!({}),
        )
        .await;
    // Nothing here completes arguments: the server offers no completions (nor announces them).
    assert_eq!(r["error"]["code"], -32601, "{r}");
}

#[tokio::test]
async fn subscriptions_listen_acknowledges_then_tags_changes() {
    let server = fixture();
    let mut w = Wire::new(server.clone(), MODERN);
    let mut params = json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["mem://a"]}});
    params["_meta"] = meta(json!({}));
    w.send(&json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": params})).await;
    let ack = w.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}));
    server.notify_list_changed(roundtrip::server::ListChange::Prompts);
    server.notify_list_changed(roundtrip::server::ListChange::Tools);
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    // Cancelling the listen request ends it without a response.
    w.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "listen-1"}})).await;
    let r = w.modern("tools/call", json!({"name": "hello"}), json!({})).await;
    assert_eq!(r["result"]["content"][0]["text"], "Hello!");
    assert!(w.events.is_empty(), "{:?}", w.events);
}
