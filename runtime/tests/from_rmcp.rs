//! What an rmcp user reaches for: the request's HTTP parts in a tool, state per caller, struct
//! and open-object arguments, `_meta` on definitions and lists, and capabilities that say only
//! what the server does.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::Request;
use axum::middleware::Next;
use roundtrip::auth::AuthPrincipal;
use roundtrip::prelude::*;
use roundtrip::protocol::{JsonObject, ResponseBody};
use roundtrip::server::{Inbound, NullPeer};
use roundtrip::testing::TestKit;
use roundtrip::{PerCaller, protocol};
use serde_json::{Value, json};

/// What a gateway in front of the server sets on each request.
#[derive(Debug, Clone)]
struct Tenant(String);

/// Which tenant and transport the request came with.
#[tool(read_only)]
async fn whoami(cx: &RequestContext) -> String {
    let header = cx.header("x-tenant").unwrap_or("-");
    let extension = cx.extension::<Tenant>().map_or("-", |t| t.0.as_str());
    format!("{header} {extension} {}", cx.transport().as_str())
}

async fn tenant_layer(mut request: Request, next: Next) -> axum::response::Response {
    request.extensions_mut().insert(Tenant("acme (from a layer)".into()));
    next.run(request).await
}

fn post(url: &str, body: Value) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", body["method"].as_str().unwrap_or_default())
        .header("mcp-name", body["params"]["name"].as_str().unwrap_or_default())
        .body(body.to_string())
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

#[tokio::test]
async fn a_tool_reads_a_header_and_a_layers_extension_over_http_and_none_over_stdio() {
    let server = Server::new("parts", "1").tools(tools![whoami]);
    let router = server.router().layer(axum::middleware::from_fn(tenant_layer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": meta()}});
    let r: Value = post(&url, call).header("x-tenant", "acme").send().await.unwrap().json().await.unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "acme acme (from a layer) http", "{r}");

    // Over stdio (a newline-delimited connection): no HTTP parts.
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (reader, writer) = tokio::io::split(server_end);
    tokio::spawn(roundtrip::transport::serve_connection(server, reader, writer));
    let (client_reader, mut client_writer) = tokio::io::split(client_end);
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": meta()}});
    client_writer.write_all(format!("{line}\n").as_bytes()).await.unwrap();
    let mut lines = tokio::io::BufReader::new(client_reader).lines();
    let r: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "- - stdio", "{r}");
}

/// A counter per caller.
#[derive(Debug, Default)]
struct Counter {
    counts: PerCaller<AtomicU64>,
}

#[toolset]
impl Counter {
    /// Add one to your own count.
    #[tool]
    async fn increment(&self, cx: &RequestContext) -> String {
        (self.counts.of(cx).fetch_add(1, Ordering::Relaxed) + 1).to_string()
    }
}

async fn call_as(server: &Server, principal: &str, name: &str, arguments: Value) -> Value {
    let mut inbound = Inbound::new(Arc::new(NullPeer));
    inbound.auth = Some(Arc::new(AuthPrincipal::new(principal)));
    let params = json!({"name": name, "arguments": arguments, "_meta": meta()});
    let reply =
        server.handle(protocol::Request::new(protocol::RequestId::Number(1), "tools/call", Some(params)), inbound);
    match reply.await.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(v)) => v,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn two_principals_keep_separate_state() {
    let server = Server::new("counter", "1").toolset(Arc::new(Counter::default()));
    let text = |v: Value| v["content"][0]["text"].as_str().unwrap().to_owned();
    assert_eq!(text(call_as(&server, "alice", "increment", json!({})).await), "1");
    assert_eq!(text(call_as(&server, "alice", "increment", json!({})).await), "2");
    assert_eq!(text(call_as(&server, "bob", "increment", json!({})).await), "1", "bob has his own count");
    assert_eq!(text(call_as(&server, "alice", "increment", json!({})).await), "3");
}

/// A request shared by two tools.
#[derive(Debug, Deserialize, JsonSchema)]
struct Search {
    /// What to look for.
    query: String,
    /// How many results at most.
    limit: Option<u32>,
}

/// Search, with the request as one struct.
#[tool(read_only)]
async fn search(#[arg(flatten)] request: Search) -> String {
    format!("{} ({})", request.query, request.limit.unwrap_or(10))
}

/// Count matches, with the same struct.
#[tool(read_only)]
async fn count(#[arg(flatten)] request: Search) -> String {
    request.query.len().to_string()
}

/// The same, as separate parameters.
#[tool(read_only)]
async fn search_separately(
    /// What to look for.
    query: String,
    /// How many results at most.
    limit: Option<u32>,
) -> String {
    format!("{query} ({})", limit.unwrap_or(10))
}

/// Store any object.
#[tool]
async fn store(#[arg(flatten)] document: JsonObject) -> String {
    format!("stored {} fields", document.len())
}

#[tokio::test]
async fn a_struct_argument_has_the_schema_of_separate_parameters_and_an_open_object_takes_anything() {
    let server = Server::new("args", "1").tools(tools![search, count, search_separately, store]);
    let described = server.describe();
    let tools = described.to_json()["tools"].as_array().unwrap().clone();
    let schema_of = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone();
    assert_eq!(schema_of("search"), schema_of("search_separately"));
    assert_eq!(schema_of("count"), schema_of("search_separately"));
    assert_eq!(schema_of("search")["properties"]["query"]["description"], "What to look for.");
    assert_eq!(schema_of("store")["additionalProperties"], true, "{}", schema_of("store"));

    let kit = TestKit::new(server);
    let flow = kit.call_tool("search", json!({"query": "rust", "limit": 3})).await.unwrap();
    assert_eq!(flow.text(), "rust (3)");
    let flow = kit.call_tool("search", json!({"limit": 3})).await.unwrap();
    assert!(flow.is_error() && flow.text().contains("query"), "{}", flow.text());
    let flow = kit.call_tool("store", json!({"a": 1, "b": {"c": [true]}, "d": null})).await.unwrap();
    assert_eq!(flow.text(), "stored 3 fields");
}

/// With metadata.
#[tool(meta = r#"{"example.com/owner": "ops", "example.com/tier": 2}"#)]
async fn tagged() -> String {
    "ok".into()
}

/// With metadata too.
#[prompt(meta = r#"{"example.com/owner": "docs"}"#)]
async fn hello() -> String {
    "hello".into()
}

#[tokio::test]
async fn meta_appears_where_declared() {
    let mut list_meta = JsonObject::new();
    list_meta.insert("example.com/catalog".into(), json!("v7"));
    let server = Server::new("meta", "1").tools(tools![tagged]).prompts(prompts![hello]).list_meta(list_meta);
    let client = roundtrip::client::Client::builder("t", "1").connect_in_memory(server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.tools[0].meta.as_ref().unwrap()["example.com/tier"], 2);
    assert_eq!(tools.meta.as_ref().unwrap()["example.com/catalog"], "v7");
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(prompts.prompts[0].meta.as_ref().unwrap()["example.com/owner"], "docs");
    assert_eq!(prompts.meta.as_ref().unwrap()["example.com/catalog"], "v7");
}

/// The application's configuration, with metadata.
#[resource("config://app", meta = r#"{"example.com/owner": "ops"}"#)]
async fn config() -> String {
    "{}".into()
}

/// A note, with metadata.
#[resource_template("notes://{id}", meta = r#"{"example.com/owner": "notes", "example.com/tier": 3}"#)]
async fn note(id: String) -> String {
    format!("note {id}")
}

/// The changelog, whose metadata is set by the builder.
#[resource("docs://changelog")]
async fn changelog() -> String {
    "v1".into()
}

/// A page, whose metadata is set by the builder.
#[resource_template("pages://{slug}")]
async fn page(slug: String) -> String {
    slug
}

fn object(v: Value) -> JsonObject {
    serde_json::from_value(v).unwrap()
}

#[tokio::test]
async fn meta_appears_on_resources_templates_and_their_lists() {
    let built = resources![changelog, page].map(|entry| entry.meta(object(json!({"example.com/built": true}))));
    let server = Server::new("meta", "1")
        .resources(resources![config, note])
        .resources(built)
        .list_meta(object(json!({"example.com/catalog": "v7"})));
    let client = roundtrip::client::Client::builder("t", "1").connect_in_memory(server).await.unwrap();
    let resources = client.list_resources().await.unwrap();
    let meta_of = |uri: &str| {
        let resource = resources.resources.iter().find(|r| r.uri == uri).unwrap();
        Value::Object(resource.meta.clone().unwrap_or_default())
    };
    assert_eq!(meta_of("config://app"), json!({"example.com/owner": "ops"}));
    assert_eq!(meta_of("docs://changelog"), json!({"example.com/built": true}));
    assert_eq!(resources.meta.as_ref().unwrap()["example.com/catalog"], "v7");
    let templates = client.list_resource_templates().await.unwrap();
    let meta_of = |uri: &str| {
        let template = templates.resource_templates.iter().find(|t| t.uri_template == uri).unwrap();
        Value::Object(template.meta.clone().unwrap_or_default())
    };
    assert_eq!(meta_of("notes://{id}"), json!({"example.com/owner": "notes", "example.com/tier": 3}));
    assert_eq!(meta_of("pages://{slug}"), json!({"example.com/built": true}));
    assert_eq!(templates.meta.as_ref().unwrap()["example.com/catalog"], "v7");
    // What the definitions carry is what reading them gives too: nothing else changes.
    assert_eq!(client.read_resource("notes://7").await.unwrap().contents.len(), 1);
}

/// Which legacy session the call belongs to, if any.
#[tool(read_only)]
async fn session(cx: &RequestContext) -> String {
    cx.session_id().unwrap_or("none").to_owned()
}

#[tokio::test]
async fn a_legacy_session_over_http_has_an_id_and_a_2026_request_none() {
    use roundtrip::client::{Client, Mode};
    let server = Server::new("sessions", "1").tools(tools![session]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let text = |r: protocol::CallToolResult| r.content[0].as_text().unwrap().to_owned();

    let legacy = Client::builder("t", "1").mode(Mode::Legacy).connect_http(&url).await.unwrap();
    let first = text(legacy.call_tool("session", json!({})).await.unwrap());
    assert_ne!(first, "none", "a legacy session has an id");
    assert_eq!(text(legacy.call_tool("session", json!({})).await.unwrap()), first, "the same session on each call");
    let other = Client::builder("t", "1").mode(Mode::Legacy).connect_http(&url).await.unwrap();
    assert_ne!(text(other.call_tool("session", json!({})).await.unwrap()), first, "another client, another session");

    let modern = Client::builder("t", "1").connect_http(&url).await.unwrap();
    assert_eq!(modern.protocol_version(), protocol::ProtocolVersion::V2026_07_28);
    assert_eq!(text(modern.call_tool("session", json!({})).await.unwrap()), "none", "2026-07-28 has no sessions");
}

/// Store any JSON value under a key.
#[tool]
async fn put(
    key: String,
    /// Any JSON value.
    value: Value,
) -> String {
    format!("{key} = {value}")
}

/// Store the whole arguments object, as a `Value`.
#[tool]
async fn store_value(#[arg(flatten)] document: Value) -> String {
    format!("stored {}", document.as_object().map_or(0, serde_json::Map::len))
}

#[tokio::test]
async fn a_value_argument_accepts_any_json_and_a_flattened_value_is_an_open_object() {
    let server = Server::new("values", "1").tools(tools![put, store_value]);
    let described = server.describe();
    let described = described.to_json();
    let schema_of = |name: &str| {
        let tools = described["tools"].as_array().unwrap();
        tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone()
    };
    let put_schema = schema_of("put");
    assert_eq!(put_schema["required"], json!(["key", "value"]), "{put_schema}");
    // Any value: a schema that says nothing but the description.
    assert_eq!(put_schema["properties"]["value"], json!({"description": "Any JSON value."}), "{put_schema}");
    let open = schema_of("store_value");
    assert_eq!(open, json!({"type": "object", "properties": {}, "additionalProperties": true}));
    assert_eq!(open, schema_of_map(), "the same as a flattened Map");

    let kit = TestKit::new(server);
    for value in [json!({"a": [1, {"b": null}]}), json!([1, 2]), json!("text"), json!(3.5), json!(false)] {
        let flow = kit.call_tool("put", json!({"key": "k", "value": value})).await.unwrap();
        assert_eq!(flow.text(), format!("k = {value}"));
    }
    let flow = kit.call_tool("store_value", json!({"a": 1, "b": {"c": [true]}})).await.unwrap();
    assert_eq!(flow.text(), "stored 2");
}

fn schema_of_map() -> Value {
    let described = Server::new("args", "1").tools(tools![store]).describe();
    described.to_json()["tools"][0]["inputSchema"].clone()
}

/// Says hello; takes no context, so it cannot log.
#[tool]
async fn quiet(name: String) -> String {
    format!("hello {name}")
}

#[tokio::test]
async fn capabilities_say_only_what_the_server_does() {
    let version = roundtrip::protocol::ProtocolVersion::V2026_07_28;
    let quiet_server = Server::new("quiet", "1").tools(tools![quiet]);
    let caps = serde_json::to_value(quiet_server.capabilities(version)).unwrap();
    assert!(caps.get("logging").is_none() && caps.get("completions").is_none(), "{caps}");
    assert!(caps.get("tools").is_some() && caps.get("prompts").is_none(), "{caps}");
    // A tool that takes the context may log.
    let chatty = Server::new("chatty", "1").tools(tools![whoami]);
    assert!(serde_json::to_value(chatty.capabilities(version)).unwrap().get("logging").is_some());
    // And the application may say otherwise.
    let narrowed =
        chatty.without(roundtrip::server::Capability::Logging).without(roundtrip::server::Capability::ListChanged);
    let caps = serde_json::to_value(narrowed.capabilities(version)).unwrap();
    assert!(caps.get("logging").is_none() && caps["tools"].get("listChanged").is_none(), "{caps}");
}
