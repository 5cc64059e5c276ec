//! The client over streamable HTTP: `Mcp-Param-*` headers, tools with invalid
//! `x-mcp-header` declarations, and the retry after "unsupported protocol version".
#![allow(clippy::unwrap_used)]

use roundtrip::ServeHttp;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use roundtrip::Server;
use roundtrip::client::{Client, ClientError};
use roundtrip::protocol::{CallToolResult, JsonObject, ProtocolVersion, Tool};
use roundtrip::server::{Outcome, ToolDef};
use serde_json::{Value, json};

fn object(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap()
}

/// A roundtrip server whose `query` tool declares two header arguments; the server checks
/// the `Mcp-Param-*` headers against the body (HTTP 400, -32020 when one is missing).
async fn header_server() -> String {
    let schema = object(json!({
        "type": "object",
        "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "priority": { "type": "integer", "x-mcp-header": "Priority" },
            "query": { "type": "string" }
        },
        "required": ["region", "query"]
    }));
    let server = Server::new("headers", "1.0.0").tool(ToolDef::new(Tool::new("query", schema), |cx| async move {
        let region: String = cx.argument("region")?;
        Ok(Outcome::Complete(CallToolResult::text(format!("ran in {region}"))))
    }));
    let bound = server.bind_http("127.0.0.1:0").await.unwrap();
    let url = bound.url();
    tokio::spawn(bound.run());
    url
}

#[tokio::test]
async fn tool_arguments_marked_x_mcp_header_travel_as_mcp_param_headers() {
    let url = header_server().await;
    let client = Client::builder("t", "1").connect_http(&url).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let args = json!({ "region": "Zürich 1", "priority": 3, "query": "SELECT 1" });

    // Before tools/list the client cannot know the declarations; the server refuses.
    match client.call_tool("query", args.clone()).await {
        Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32020, "{e:?}"),
        other => panic!("expected -32020, got {other:?}"),
    }

    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.tools.len(), 1);
    let r = client.call_tool("query", args).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("ran in Zürich 1"));
    // An absent header argument means no header, which the server accepts.
    let r = client.call_tool("query", json!({ "region": "eu", "query": "q" })).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("ran in eu"));
}

#[derive(Default)]
struct Seen {
    requests: Vec<(HeaderMap, Value)>,
}

/// A scripted 2026 server: rejects the very first request with -32022 (naming 2026-07-28 as
/// supported), answers discover without `_meta`, lists one valid and several invalid tools,
/// and records every request.
async fn scripted(State(seen): State<Arc<Mutex<Seen>>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let first = {
        let mut s = seen.lock().unwrap();
        s.requests.push((headers, body.clone()));
        s.requests.len() == 1
    };
    let id = body.get("id").cloned().unwrap_or(Value::Null);
    if first {
        let error = json!({ "jsonrpc": "2.0", "id": id, "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": { "supported": ["2026-07-28"], "requested": "2026-07-28" } } });
        return (StatusCode::BAD_REQUEST, Json(error)).into_response();
    }
    let tool = |name: &str, prop: Value| json!({ "name": name, "inputSchema": { "type": "object", "properties": { "p": prop } } });
    let result = match body.get("method").and_then(Value::as_str) {
        Some("server/discover") => json!({
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} },
            // serverInfo beside the fields, no `_meta` (as the suite's mock servers answer).
            "ttlMs": 0, "cacheScope": "private", "serverInfo": { "name": "scripted", "version": "1" }
        }),
        Some("tools/list") => json!({ "resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [
            tool("valid", json!({ "type": "string", "x-mcp-header": "Region" })),
            tool("plain", json!({ "type": "string" })),
            tool("empty_name", json!({ "type": "string", "x-mcp-header": "" })),
            tool("number", json!({ "type": "number", "x-mcp-header": "Score" })),
            tool("space", json!({ "type": "string", "x-mcp-header": "My Region" })),
            tool("in_items", json!({ "type": "array", "items": { "type": "string", "x-mcp-header": "Item" } })),
        ]}),
        Some("tools/call") => json!({ "resultType": "complete", "content": [{ "type": "text", "text": "ok" }] }),
        _ => json!({ "resultType": "complete" }),
    };
    Json(json!({ "jsonrpc": "2.0", "id": id, "result": result })).into_response()
}

#[tokio::test]
async fn unsupported_version_naming_ours_is_retried_and_invalid_tools_are_dropped() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let app = axum::Router::new().route("/mcp", post(scripted)).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let client = Client::builder("t", "1").connect_http(&url).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("scripted"));
    let names: Vec<String> = client.list_tools().await.unwrap().tools.into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["valid", "plain"]);
    client.call_tool("valid", json!({ "p": "us-west1" })).await.unwrap();

    let seen = seen.lock().unwrap();
    let methods: Vec<&str> = seen.requests.iter().map(|(_, b)| b["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["server/discover", "server/discover", "tools/list", "tools/call"]);
    for (headers, body) in &seen.requests {
        assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
        assert_eq!(body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    }
    let (call_headers, _) = &seen.requests[3];
    assert_eq!(call_headers["mcp-name"], "valid");
    assert_eq!(call_headers["mcp-param-region"], "us-west1");
    // The retry is a new JSON-RPC request.
    assert_ne!(seen.requests[0].1["id"], seen.requests[1].1["id"]);
}

#[tokio::test]
async fn unsupported_version_not_naming_ours_falls_back_to_the_handshake_in_auto_mode() {
    async fn legacy_only(Json(body): Json<Value>) -> Response {
        let id = body.get("id").cloned().unwrap_or(Value::Null);
        match body.get("method").and_then(Value::as_str) {
            Some("initialize") => Json(json!({ "jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "old", "version": "1" } } }))
            .into_response(),
            Some("server/discover") => (
                StatusCode::BAD_REQUEST,
                Json(json!({ "jsonrpc": "2.0", "id": id, "error": {
                    "code": -32022, "message": "Unsupported protocol version",
                    "data": { "supported": ["2025-11-25"], "requested": "2026-07-28" } } })),
            )
                .into_response(),
            _ => StatusCode::ACCEPTED.into_response(),
        }
    }
    let app = axum::Router::new().route("/mcp", post(legacy_only));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = Client::builder("t", "1").connect_http(&url).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
}

#[tokio::test]
async fn legacy_questions_arrive_on_the_post_stream_and_answers_go_back_as_posts() {
    use roundtrip::client::Mode;
    use roundtrip::protocol::{ElicitResult, empty_input_schema};
    use roundtrip::server::InputRequired;

    let schema = object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}));
    let server =
        Server::new("legacy-http", "1").tool(ToolDef::new(Tool::new("greet", empty_input_schema()), move |cx| {
            let schema = schema.clone();
            async move {
                Ok(match cx.elicit_result("who").and_then(|a| a.content) {
                    Some(content) => Outcome::Complete(CallToolResult::text(format!(
                        "Hello, {}!",
                        content["name"].as_str().unwrap_or("?")
                    ))),
                    None => InputRequired::new().elicit("who", "Who?", schema).into(),
                })
            }
        }));
    let bound = server.bind_http("127.0.0.1:0").await.unwrap();
    let url = bound.url();
    tokio::spawn(bound.run());
    let client = Client::builder("legacy", "1")
        .mode(Mode::Legacy)
        .on_elicit(|_| async { Ok(ElicitResult::accept(object(json!({"name": "Ada"})))) })
        .connect_http(&url)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let call = client.call_tool("greet", json!({}));
    let result =
        tokio::time::timeout(std::time::Duration::from_secs(10), call).await.expect("the answer reached the server");
    assert_eq!(result.unwrap().content[0].as_text(), Some("Hello, Ada!"));
}
