//! The function's handler answers the events each Lambda HTTP source sends (API Gateway HTTP
//! API and function URL, payload 2.0; API Gateway REST API with a stage, payload 1.0), read by
//! lambda_http as the runtime reads them: a two-leg flow completes, the caller's address comes
//! from the event, and what a function cannot hold is refused.

#![allow(clippy::unwrap_used)] // a test fails loudly
use lambda_http::Service;
use roundtrip::prelude::*;
use roundtrip_lambda::Endpoint;
use serde_json::{Value, json};

/// Provision a database in the region the user picks.
#[tool]
async fn provision(name: String, #[resolve(elicit = "Which region should {name} live in?")] region: String) -> String {
    format!("Provisioned '{name}' in {region}.")
}

/// Who is calling, as per-caller limits count them.
#[tool(read_only)]
async fn whoami(cx: &RequestContext) -> String {
    cx.caller()
}

fn endpoint() -> Endpoint {
    Endpoint::new(&Server::new("lambda", "1.0.0").tools(tools![provision, whoami]), Default::default())
}

const V: &str = "2026-07-28";

/// A 2026-07-28 request's body and headers.
fn modern(id: u32, method: &str, mut params: Value) -> (Value, Vec<(&'static str, String)>) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    });
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
        ("mcp-protocol-version", V.to_owned()),
        ("mcp-method", method.to_owned()),
    ];
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        headers.push(("mcp-name", name.to_owned()));
    }
    (json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}), headers)
}

/// The event source an event comes from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// API Gateway HTTP API (payload 2.0) on the `$default` stage.
    HttpApi,
    /// A function URL (payload 2.0, no stage).
    FunctionUrl,
    /// API Gateway REST API (payload 1.0) on the `prod` stage.
    RestApi,
}

/// The event `source` sends for a POST of `body` to `/mcp` from 203.0.113.7.
fn event(source: Source, body: &Value, headers: &[(&str, String)]) -> String {
    let headers: serde_json::Map<String, Value> =
        headers.iter().map(|(k, v)| ((*k).to_owned(), Value::String(v.clone()))).collect();
    let body = body.to_string();
    let event = match source {
        Source::HttpApi | Source::FunctionUrl => {
            let mut cx = json!({
                "accountId": "123456789012", "apiId": "api", "domainName": "api.example.com",
                "domainPrefix": "api", "requestId": "r", "routeKey": "$default", "time": "28/Nov/2026:00:00:00 +0000",
                "timeEpoch": 0,
                "http": {"method": "POST", "path": "/mcp", "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7", "userAgent": "test"},
            });
            if matches!(source, Source::HttpApi) {
                cx["stage"] = json!("$default");
            }
            json!({
                "version": "2.0", "routeKey": "$default", "rawPath": "/mcp", "rawQueryString": "",
                "headers": headers, "requestContext": cx, "body": body, "isBase64Encoded": false,
            })
        }
        Source::RestApi => {
            let multi: serde_json::Map<String, Value> = headers.iter().map(|(k, v)| (k.clone(), json!([v]))).collect();
            json!({
                "resource": "/{proxy+}", "path": "/mcp", "httpMethod": "POST",
                "headers": headers, "multiValueHeaders": multi,
                "queryStringParameters": null, "multiValueQueryStringParameters": null,
                "pathParameters": {"proxy": "mcp"}, "stageVariables": null,
                "requestContext": {
                    "accountId": "123456789012", "resourceId": "x", "stage": "prod", "requestId": "r",
                    "identity": {"sourceIp": "203.0.113.7", "userAgent": "test"},
                    "resourcePath": "/{proxy+}", "httpMethod": "POST", "apiId": "api", "path": "/prod/mcp",
                },
                "body": body, "isBase64Encoded": false,
            })
        }
    };
    event.to_string()
}

/// Send `body` through `source`'s event to the handler; the status and the JSON-RPC message
/// (read from a JSON body, or the last event of an SSE body).
async fn send(endpoint: &mut Endpoint, source: Source, (body, headers): (Value, Vec<(&str, String)>)) -> (u16, Value) {
    let request = lambda_http::request::from_str(&event(source, &body, &headers)).unwrap();
    let response = endpoint.call(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let json = text.lines().filter_map(|l| l.strip_prefix("data:")).next_back().unwrap_or(&text);
    (status, serde_json::from_str(json.trim()).unwrap_or_else(|e| panic!("{e}: {text}")))
}

#[tokio::test]
async fn a_two_leg_flow_completes_through_each_event_source() {
    for source in [Source::HttpApi, Source::FunctionUrl, Source::RestApi] {
        let mut endpoint = endpoint();
        let call = |extra: Value| {
            let mut params = json!({"name": "provision", "arguments": {"name": "orders"}});
            params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            modern(1, "tools/call", params)
        };
        let (status, first) = send(&mut endpoint, source, call(json!({}))).await;
        assert_eq!(status, 200, "{source:?}: {first}");
        assert_eq!(first["result"]["resultType"], "input_required", "{source:?}: {first}");
        let state = first["result"]["requestState"].clone();
        let answer = json!({"region": {"action": "accept", "content": {"region": "eu-west-1"}}});
        // A fresh handler takes the second leg, as another instance of the function would.
        let mut other = endpoint.clone();
        let (status, done) =
            send(&mut other, source, call(json!({"inputResponses": answer, "requestState": state}))).await;
        assert_eq!(status, 200, "{source:?}: {done}");
        assert_eq!(done["result"]["content"][0]["text"], "Provisioned 'orders' in eu-west-1.", "{source:?}");
    }
}

#[tokio::test]
async fn the_caller_is_the_events_source_address() {
    for source in [Source::HttpApi, Source::RestApi] {
        let call = modern(1, "tools/call", json!({"name": "whoami", "arguments": {}}));
        let (_, result) = send(&mut endpoint(), source, call).await;
        assert_eq!(result["result"]["content"][0]["text"], "address:203.0.113.7", "{source:?}: {result}");
    }
}

#[tokio::test]
async fn what_a_function_cannot_hold_is_neither_offered_nor_served() {
    let mut endpoint = endpoint();
    let (_, discovered) = send(&mut endpoint, Source::FunctionUrl, modern(1, "server/discover", json!({}))).await;
    let tools = &discovered["result"]["capabilities"]["tools"];
    assert!(tools.get("listChanged").is_none_or(|v| v == false), "{discovered}");
    let (status, refused) =
        send(&mut endpoint, Source::FunctionUrl, modern(2, "subscriptions/listen", json!({"notifications": {}}))).await;
    assert_ne!(status, 200, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no long-lived streams"), "{refused}");
    // A 2025-era client is offered 2026-07-28: its session's questions would be requests sent
    // mid-call, which a response returned whole cannot carry.
    let initialize = json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "0"}}});
    let headers = vec![
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
    ];
    let (status, refused) = send(&mut endpoint, Source::FunctionUrl, (initialize, headers)).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    assert_eq!(refused["error"]["data"]["supported"], json!([V]), "{refused}");
}
