//! Bad input on a connection: each gets a clear JSON-RPC error, never a panic or a hang, and
//! the connection keeps serving.
#![allow(clippy::unwrap_used)]

mod common;

use common::{MODERN, Wire, fixture};
use serde_json::json;

async fn still_serves(w: &mut Wire) {
    let r = w.modern("tools/call", json!({"name": "hello"}), json!({})).await;
    assert_eq!(r["result"]["content"][0]["text"], "Hello!");
}

#[tokio::test]
async fn malformed_json_is_a_parse_error_without_id() {
    let mut w = Wire::new(fixture(), MODERN);
    w.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 1,").await;
    let r = w.recv().await;
    assert_eq!(r["error"]["code"], -32700);
    assert!(r.get("id").is_none());
    still_serves(&mut w).await;
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error() {
    let mut w = Wire::new(fixture(), MODERN);
    w.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}").await;
    assert_eq!(w.recv().await["error"]["code"], -32700);
    still_serves(&mut w).await;
}

#[tokio::test]
async fn a_batch_is_refused() {
    let mut w = Wire::new(fixture(), MODERN);
    w.send_raw(br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#).await;
    assert_eq!(w.recv().await["error"]["code"], -32600);
    still_serves(&mut w).await;
}

#[tokio::test]
async fn non_object_params_and_bad_envelopes_are_invalid_requests() {
    let mut w = Wire::new(fixture(), MODERN);
    for bad in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1, 2]}),
        json!({"jsonrpc": "1.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": 7}),
        json!({"jsonrpc": "2.0", "id": null, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 4}),
        json!("just a string"),
    ] {
        w.send_raw(bad.to_string().as_bytes()).await;
        let r = w.recv().await;
        assert_eq!(r["error"]["code"], -32600, "{bad}");
    }
    still_serves(&mut w).await;
}

#[tokio::test]
async fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let mut w = Wire::new(fixture(), MODERN);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    w.send_raw(deep.as_bytes()).await;
    assert_eq!(w.recv().await["error"]["code"], -32700);
    still_serves(&mut w).await;
}

#[tokio::test]
async fn an_oversized_message_is_refused_and_skipped() {
    let mut w = Wire::new(fixture(), MODERN);
    let huge =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"a\":\"{}\"}}}}", "a".repeat(5 << 20));
    w.send_raw(huge.as_bytes()).await;
    let r = w.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("longer than"));
    still_serves(&mut w).await;
}

#[tokio::test]
async fn unknown_methods_and_notifications() {
    let mut w = Wire::new(fixture(), MODERN);
    let r = w.modern("tools/destroy", json!({}), json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    // Unknown notifications and stray responses are ignored silently.
    w.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever"})).await;
    w.send(&json!({"jsonrpc": "2.0", "id": 999, "result": {}})).await;
    still_serves(&mut w).await;
    assert!(w.events.is_empty());
}

#[tokio::test]
async fn a_non_string_request_state_gets_the_frozen_error() {
    let mut w = Wire::new(fixture(), MODERN);
    for state in [json!(5), json!({"a": 1}), json!(["x"])] {
        let r = w.modern("tools/call", json!({"name": "ask_name", "requestState": state}), common::all_caps()).await;
        assert_eq!(r["error"], json!({"code": -32602, "message": "Invalid or expired requestState"}));
    }
}

#[tokio::test]
async fn a_handler_that_panics_is_answered_and_the_connection_goes_on() {
    let server = fixture().tools(common::panicking_tools());
    let mut w = Wire::new(server, MODERN);
    for tool in ["panics_at_once", "panics_later"] {
        let r = w.modern("tools/call", json!({"name": tool}), json!({})).await;
        assert_eq!(r["error"]["code"], -32603, "{tool}: {r}");
        assert_eq!(r["error"]["message"], "the request handler panicked", "{tool}: {r}");
    }
    still_serves(&mut w).await;
}
