//! One exchange at a time, as a Cloudflare Worker serves a server: a two-leg and a three-leg
//! flow complete with the state carried by the client alone, another instance with the same
//! keys takes the next leg (and one with other keys refuses it), and what an endpoint without streams or sessions cannot serve is refused
//! the way the HTTP endpoint refuses it there.

#![allow(clippy::unwrap_used)] // a test fails loudly
use bytes::Bytes;
use roundtrip::RequestStateSecurity;
use roundtrip::prelude::*;
use roundtrip::transport::exchange::{Exchange, MAX_BODY_BYTES};
use serde_json::{Value, json};
use std::net::IpAddr;

/// Provision a database in the region the user picks.
#[tool]
async fn provision(name: String, #[resolve(elicit = "Which region should {name} live in?")] region: String) -> String {
    format!("Provisioned '{name}' in {region}.")
}

/// Greet the user: asks their name, then (knowing it) their age.
#[tool]
async fn wizard(
    #[resolve(elicit = "What is your name?")] name: String,
    #[resolve(elicit = "How old are you, {name}?")] age: u32,
) -> String {
    format!("Hello {name}, you are {age}.")
}

/// Count to `to`, reporting progress at each step.
#[tool]
async fn count(to: u32, cx: &RequestContext) -> String {
    for i in 1..=to {
        cx.progress(f64::from(i), Some(f64::from(to)), None);
    }
    format!("counted to {to}")
}

/// Back up, as a task.
#[tool(task)]
async fn backup() -> String {
    "done".into()
}

fn exchange() -> Exchange {
    Exchange::new(&Server::new("edge", "1.0.0").tools(tools![provision, wizard, count])).unwrap()
}

const V: &str = "2026-07-28";
const HERE: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(203, 0, 113, 7)));

fn post(body: &Value, headers: &[(&str, &str)]) -> http::Request<Bytes> {
    let mut request = http::Request::post("/mcp");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Bytes::from(serde_json::to_vec(body).unwrap())).unwrap()
}

/// A 2026-07-28 `tools/call` of `tool`, with its headers.
fn call(tool: &str, mut params: Value) -> http::Request<Bytes> {
    params["name"] = json!(tool);
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let headers = [
        ("content-type", "application/json"),
        ("mcp-protocol-version", V),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    post(&body, &headers)
}

async fn answer(exchange: &Exchange, request: http::Request<Bytes>, caller: Option<IpAddr>) -> (u16, Value) {
    let response = exchange.answer(request, caller).await;
    let status = response.status().as_u16();
    let body = response.into_body();
    (status, if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).unwrap() })
}

/// Run `tool` to its end, answering each question from `answers` by the field it asks.
async fn run(exchange: &Exchange, tool: &str, arguments: Value, answers: &Value) -> (usize, Value) {
    let mut params = json!({"arguments": arguments});
    for legs in 1..10 {
        let (status, reply) = answer(exchange, call(tool, params.clone()), HERE).await;
        assert_eq!(status, 200, "{reply}");
        let result = &reply["result"];
        if result["resultType"] != "input_required" {
            return (legs, result.clone());
        }
        let mut responses = serde_json::Map::new();
        for (key, question) in result["inputRequests"].as_object().unwrap() {
            let field = question["params"]["requestedSchema"]["properties"].as_object().unwrap().keys().next().unwrap();
            responses.insert(key.clone(), json!({"action": "accept", "content": {field: answers[field]}}));
        }
        params["inputResponses"] = Value::Object(responses);
        params["requestState"] = result["requestState"].clone();
    }
    panic!("{tool} did not finish in 10 legs");
}

#[tokio::test]
async fn a_two_leg_and_a_three_leg_flow_complete() {
    let exchange = exchange();
    let (legs, result) = run(&exchange, "provision", json!({"name": "orders"}), &json!({"region": "eu-west-1"})).await;
    assert_eq!((legs, result["content"][0]["text"].as_str()), (2, Some("Provisioned 'orders' in eu-west-1.")));
    let (legs, result) = run(&exchange, "wizard", json!({}), &json!({"name": "Ada", "age": 36})).await;
    assert_eq!((legs, result["content"][0]["text"].as_str()), (3, Some("Hello Ada, you are 36.")));
}

/// An instance of the server with these keys.
fn instance(key: u8) -> Exchange {
    let server = Server::new("edge", "1.0.0").tools(tools![provision, wizard]);
    let key: [u8; 32] = std::array::from_fn(|i| (i as u8).wrapping_mul(97).wrapping_add(key));
    Exchange::new(&server.security(RequestStateSecurity::new().keys([key])).unwrap()).unwrap()
}

#[tokio::test]
async fn any_instance_with_the_same_keys_takes_the_next_leg() {
    let (asked, same, other) = (instance(1), instance(1), instance(2));
    let (_, first) = answer(&asked, call("provision", json!({"arguments": {"name": "orders"}})), HERE).await;
    let retry = json!({
        "arguments": {"name": "orders"},
        "inputResponses": {"region": {"action": "accept", "content": {"region": "eu"}}},
        "requestState": first["result"]["requestState"],
    });
    let (status, refused) = answer(&other, call("provision", retry.clone()), HERE).await;
    assert_eq!((status, refused["error"]["code"].as_i64()), (400, Some(-32602)), "{refused}");
    let (status, taken) = answer(&same, call("provision", retry), HERE).await;
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken["result"]["content"][0]["text"], "Provisioned 'orders' in eu.");
}

#[tokio::test]
async fn what_needs_a_stream_or_a_session_is_refused() {
    let exchange = exchange();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "0"}}});
    let (status, refused) = answer(&exchange, post(&initialize, &[("content-type", "application/json")]), HERE).await;
    assert_eq!((status, refused["error"]["code"].as_i64()), (400, Some(-32022)), "{refused}");
    assert_eq!(refused["error"]["data"]["supported"], json!([V]));

    let get = http::Request::get("/mcp").body(Bytes::new()).unwrap();
    let (status, refused) = answer(&exchange, get, HERE).await;
    assert_eq!(status, 501);
    assert!(refused["error"]["message"].as_str().unwrap().contains("no long-lived streams"), "{refused}");

    let delete = http::Request::delete("/mcp").body(Bytes::new()).unwrap();
    let response = exchange.answer(delete, HERE).await;
    assert_eq!((response.status().as_u16(), response.headers()["allow"].to_str().unwrap()), (405, "POST"));

    let text = http::Request::post("/mcp").header("content-type", "text/plain").body(Bytes::from("{}")).unwrap();
    assert_eq!(answer(&exchange, text, HERE).await.0, 415);

    let huge = http::Request::post("/mcp")
        .header("content-type", "application/json")
        .body(Bytes::from(vec![b' '; MAX_BODY_BYTES + 1]))
        .unwrap();
    assert_eq!(answer(&exchange, huge, HERE).await.0, 413);

    // The headers must agree with the body, as on the HTTP endpoint.
    let mut lying = call("provision", json!({"arguments": {"name": "orders"}}));
    lying.headers_mut().insert("mcp-name", "wizard".parse().unwrap());
    let (status, refused) = answer(&exchange, lying, HERE).await;
    assert_eq!((status, refused["error"]["code"].as_i64()), (400, Some(-32020)), "{refused}");

    // A browser's page of another site: its `Origin` names another host than the request's.
    let mut foreign = call("provision", json!({"arguments": {"name": "orders"}}));
    foreign.headers_mut().insert("host", "mcp.example.com".parse().unwrap());
    foreign.headers_mut().insert("origin", "https://evil.example".parse().unwrap());
    let (status, refused) = answer(&exchange, foreign, HERE).await;
    assert_eq!((status, refused["error"]["message"].as_str()), (403, Some("Forbidden: invalid Origin header")));
    let mut own = call("provision", json!({"arguments": {"name": "orders"}}));
    own.headers_mut().insert("host", "mcp.example.com".parse().unwrap());
    own.headers_mut().insert("origin", "https://mcp.example.com".parse().unwrap());
    assert_eq!(answer(&exchange, own, HERE).await.0, 200);

    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    assert_eq!(answer(&exchange, post(&notification, &[("content-type", "application/json")]), HERE).await.0, 202);
}

/// With allowed hosts, a request naming another `Host` (a DNS-rebinding page's) is refused
/// before anything is read, and a browser's `Origin` must name an allowed host.
#[tokio::test]
async fn allowed_hosts_refuse_a_foreign_host() {
    let exchange = exchange().allowed_hosts(vec!["localhost".into(), "mcp.example.com".into()]);
    let with = |host: &str, origin: Option<&str>| {
        let mut request = call("provision", json!({"arguments": {"name": "orders", "region": "eu"}}));
        request.headers_mut().insert("host", host.parse().unwrap());
        if let Some(origin) = origin {
            request.headers_mut().insert("origin", origin.parse().unwrap());
        }
        request
    };
    let (status, refused) = answer(&exchange, with("evil.example:8787", None), HERE).await;
    assert_eq!((status, refused["error"]["message"].as_str()), (403, Some("Forbidden: invalid Host header")));
    assert_eq!(answer(&exchange, with("localhost:8787", None), HERE).await.0, 200);
    assert_eq!(answer(&exchange, with("MCP.example.com", Some("https://mcp.example.com")), HERE).await.0, 200);
    assert_eq!(answer(&exchange, with("localhost:8787", Some("https://evil.example")), HERE).await.0, 403);
    // A request without `Host` names no allowed host.
    let mut bare = call("provision", json!({"arguments": {"name": "orders", "region": "eu"}}));
    bare.headers_mut().remove("host");
    assert_eq!(answer(&exchange, bare, HERE).await.0, 403);
    // An empty list keeps the default: any host.
    let open = Exchange::new(&Server::new("edge", "1.0.0").tools(tools![provision])).unwrap().allowed_hosts(vec![]);
    assert_eq!(answer(&open, with("anything.example", None), HERE).await.0, 200);
}

#[tokio::test]
async fn a_server_without_list_changed_or_subscriptions_is_what_is_served() {
    let exchange = exchange();
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"}}}});
    let headers =
        [("content-type", "application/json"), ("mcp-protocol-version", V), ("mcp-method", "server/discover")];
    let (status, found) = answer(&exchange, post(&discover, &headers), HERE).await;
    assert_eq!(status, 200, "{found}");
    let capabilities = &found["result"]["capabilities"];
    assert!(capabilities["tools"].is_object(), "{found}");
    assert_eq!(capabilities["tools"].get("listChanged"), None, "{found}");
}

#[tokio::test]
async fn a_calls_notifications_come_before_its_reply_to_a_client_that_reads_sse() {
    let exchange = exchange();
    let progress = |to: u32, accept: &str| {
        // `call` writes the request's `_meta`; the progress token joins it.
        let mut request = call("count", json!({"arguments": {"to": to}}));
        let mut body: Value = serde_json::from_slice(request.body()).unwrap();
        body["params"]["_meta"]["progressToken"] = json!("p");
        *request.body_mut() = Bytes::from(serde_json::to_vec(&body).unwrap());
        request.headers_mut().insert("accept", accept.parse().unwrap());
        request
    };
    let events = |response: http::Response<Bytes>| -> Vec<Value> {
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let text = String::from_utf8(response.into_body().to_vec()).unwrap();
        text.lines().filter_map(|l| l.strip_prefix("data: ")).map(|d| serde_json::from_str(d).unwrap()).collect()
    };
    let sse = events(exchange.answer(progress(3, "application/json, text/event-stream"), HERE).await);
    assert_eq!(sse.len(), 4, "{sse:?}");
    assert_eq!(sse[0]["method"], "notifications/progress");
    assert_eq!(sse[2]["params"]["progress"], 3.0);
    assert_eq!(sse[3]["result"]["content"][0]["text"], "counted to 3");
    // A call cannot grow its answer without bound: later notifications are dropped.
    let many = events(exchange.answer(progress(10_000, "text/event-stream, application/json"), HERE).await);
    assert_eq!(many.len(), 257);
    assert_eq!(many[256]["result"]["content"][0]["text"], "counted to 10000");
    // A client that reads JSON only gets the reply alone.
    let (status, json) = answer(&exchange, progress(3, "application/json"), HERE).await;
    assert_eq!((status, json["result"]["content"][0]["text"].as_str()), (200, Some("counted to 3")));
}

#[test]
fn a_server_with_a_task_is_refused() {
    let refused = Exchange::new(&Server::new("edge", "1.0.0").tools(tools![provision, backup])).unwrap_err();
    let message = refused.to_string();
    assert!(message.starts_with("tool `backup` may run as a task"), "{message}");
    assert!(message.contains("Cloudflare Worker") && message.contains("without `task`"), "{message}");
}
