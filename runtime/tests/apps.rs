//! MCP Apps (`io.modelcontextprotocol/ui`): views declared with `#[view]`, tools linked to them
//! with `#[tool(ui = …)]` and limited with `visibility`, as both eras see them on the wire. Every
//! message is validated against the official schema of its era (`common::Wire`), and the
//! extension's own parts (`_meta.ui` of tools and views, the client capability) against the
//! extension's `schema.json` (`tests/data/ext-apps-2.0.4-schema.json`, from the npm package
//! `@modelcontextprotocol/ext-apps@2.0.4`).
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use common::{MODERN, Wire};
use roundtrip::prelude::*;
use roundtrip::protocol::{UI_EXTENSION, VIEW_MIME_TYPE};
use roundtrip::server::Problem;
use serde_json::{Value, json};

/// The databases, as a table.
#[view(
    "ui://inventory/databases",
    title = "Databases",
    csp(connect_domains = ["https://status.example.com", "wss://live.example.com:8443"], resource_domains = ["https://*.cdn.example.com"]),
    permissions(clipboard_write),
    prefers_border
)]
const DATABASES: &str = "<!doctype html><title>Databases</title><p>databases</p>";

/// A view made when it is read.
#[view("ui://inventory/hello", prefers_border = false)]
async fn hello_view(cx: &RequestContext) -> String {
    format!("<!doctype html><title>Hello</title><p>Hello from {}</p>", cx.server().name())
}

#[derive(Serialize, JsonSchema)]
struct Listing {
    databases: Vec<String>,
}

/// The databases, shown in the view when the client hosts views.
#[tool(read_only, ui = DATABASES)]
async fn databases() -> (String, Json<Listing>) {
    ("orders, users".into(), Json(Listing { databases: vec!["orders".into(), "users".into()] }))
}

/// Drop a database: only the view calls it.
#[tool(destructive, visibility = "app")]
async fn drop_database(name: String) -> String {
    format!("Dropped {name}.")
}

/// Greets, in the hello view, linked by URI.
#[tool(ui = "ui://inventory/hello", visibility = "both")]
async fn greet() -> String {
    "Hello.".into()
}

/// Only the model sees it.
#[tool(visibility = "model")]
async fn summarize() -> String {
    "All fine.".into()
}

fn server() -> Server {
    Server::new("inventory", "1.0.0")
        .tools(tools![databases, drop_database, greet, summarize])
        .resources(resources![hello_view])
}

fn ui_caps() -> Value {
    json!({"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}})
}

/// A definition of the extension's schema, compiled on its own (the schema's definitions
/// each carry their own `$defs`, so they are roots, not `#/$defs/…` of the document).
fn apps_validator(def: &str) -> &'static jsonschema::Validator {
    static CACHE: OnceLock<Mutex<HashMap<String, &'static jsonschema::Validator>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    cache.entry(def.to_owned()).or_insert_with(|| {
        let file = format!("{}/tests/data/ext-apps-2.0.4-schema.json", env!("CARGO_MANIFEST_DIR"));
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        Box::leak(Box::new(jsonschema::draft202012::new(&schema["$defs"][def]).unwrap()))
    })
}

fn assert_apps_valid(def: &str, value: &Value) {
    let errors: Vec<String> =
        apps_validator(def).iter_errors(value).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "not a valid {def}: {errors:?}\n{value:#}");
}

fn tools_by_name(response: &Value) -> HashMap<String, Value> {
    let tools = response["result"]["tools"].as_array().unwrap();
    tools.iter().map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone())).collect()
}

#[test]
fn the_schema_tells_good_metadata_from_bad() {
    // The validator itself: a tool may not carry a view's CSP, and visibility has two words.
    assert_apps_valid("McpUiToolMeta", &json!({"resourceUri": "ui://a", "visibility": ["app"]}));
    assert!(!apps_validator("McpUiToolMeta").is_valid(&json!({"resourceUri": "ui://a", "csp": {}})));
    assert!(!apps_validator("McpUiToolMeta").is_valid(&json!({"visibility": ["agent"]})));
    assert!(!apps_validator("McpUiResourceMeta").is_valid(&json!({"csp": {"connect": []}})));
    assert_apps_valid("McpUiClientCapabilities", &json!({"mimeTypes": [VIEW_MIME_TYPE]}));
}

#[tokio::test]
async fn a_client_that_hosts_views_gets_the_links_and_every_tool() {
    let mut wire = Wire::new(server(), MODERN);
    assert_apps_valid("McpUiClientCapabilities", &ui_caps()["extensions"][UI_EXTENSION]);
    let tools = tools_by_name(&wire.modern("tools/list", json!({}), ui_caps()).await);
    assert_eq!(tools.len(), 4, "the app-only tool is listed: hiding it from the model is the host's job");
    for tool in tools.values() {
        if let Some(ui) = tool["_meta"].get("ui") {
            assert_apps_valid("McpUiToolMeta", ui);
        }
    }
    assert_eq!(tools["databases"]["_meta"]["ui"], json!({"resourceUri": "ui://inventory/databases"}));
    assert_eq!(tools["databases"]["_meta"]["ui/resourceUri"], "ui://inventory/databases");
    assert_eq!(tools["drop_database"]["_meta"]["ui"], json!({"visibility": ["app"]}));
    assert_eq!(
        tools["greet"]["_meta"]["ui"],
        json!({"resourceUri": "ui://inventory/hello", "visibility": ["model", "app"]})
    );
    assert_eq!(tools["summarize"]["_meta"]["ui"], json!({"visibility": ["model"]}));
}

#[tokio::test]
async fn a_client_without_the_extension_gets_text_only_tools() {
    let mut wire = Wire::new(server(), MODERN);
    for caps in [json!({}), json!({"extensions": {UI_EXTENSION: {"mimeTypes": ["text/html"]}}})] {
        let tools = tools_by_name(&wire.modern("tools/list", json!({}), caps).await);
        assert_eq!(tools.len(), 3, "no app-only tool: {:?}", tools.keys());
        assert!(!tools.contains_key("drop_database"));
        for tool in tools.values() {
            assert!(tool.get("_meta").is_none(), "no link to a view: {tool}");
        }
    }
    // The app-only tool is still served: visibility is not access control.
    let called =
        wire.modern("tools/call", json!({"name": "drop_database", "arguments": {"name": "orders"}}), json!({})).await;
    assert_eq!(called["result"]["content"][0]["text"], "Dropped orders.");
}

#[tokio::test]
async fn the_server_declares_the_extension_in_both_eras() {
    let mut wire = Wire::new(server(), MODERN);
    let discovered = wire.modern("server/discover", json!({}), json!({})).await;
    assert_eq!(discovered["result"]["capabilities"]["extensions"][UI_EXTENSION], json!({}));

    let mut legacy = Wire::new(server(), "2025-11-25");
    let init = legacy
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": ui_caps(), "clientInfo": {"name": "host", "version": "1"}}),
        )
        .await;
    assert_eq!(init["result"]["capabilities"]["extensions"][UI_EXTENSION], json!({}));

    // A server without views declares nothing of it.
    let plain = Server::new("plain", "1.0.0").tools(tools![summarize]);
    let mut wire = Wire::new(plain, MODERN);
    let discovered = wire.modern("server/discover", json!({}), json!({})).await;
    assert!(discovered["result"]["capabilities"].get("extensions").is_none(), "{discovered}");
}

#[tokio::test]
async fn a_legacy_session_gets_the_links_when_it_declared_the_extension_at_initialize() {
    for (caps, hosts) in [(ui_caps(), true), (json!({}), false)] {
        let mut wire = Wire::new(server(), "2025-11-25");
        let info = json!({"name": "host", "version": "1"});
        wire.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": info}))
            .await;
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        let tools = tools_by_name(&wire.request("tools/list", json!({})).await);
        assert_eq!(tools.contains_key("drop_database"), hosts);
        assert_eq!(tools["databases"]["_meta"]["ui"]["resourceUri"] == "ui://inventory/databases", hosts);
    }
}

#[tokio::test]
async fn a_view_is_read_as_html_of_the_apps_mime_type_with_its_sandbox_metadata() {
    let mut wire = Wire::new(server(), MODERN);
    let read = wire.modern("resources/read", json!({"uri": "ui://inventory/databases"}), ui_caps()).await;
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], VIEW_MIME_TYPE);
    assert_eq!(contents["text"], DATABASES);
    let ui = &contents["_meta"]["ui"];
    assert_apps_valid("McpUiResourceMeta", ui);
    assert_eq!(
        *ui,
        json!({
            "csp": {
                "connectDomains": ["https://status.example.com", "wss://live.example.com:8443"],
                "resourceDomains": ["https://*.cdn.example.com"],
            },
            "permissions": {"clipboardWrite": {}},
            "prefersBorder": true,
        })
    );

    // The fn view: made when read, registered through resources![…].
    let read = wire.modern("resources/read", json!({"uri": "ui://inventory/hello"}), json!({})).await;
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["text"], "<!doctype html><title>Hello</title><p>Hello from inventory</p>");
    assert_eq!(contents["mimeType"], VIEW_MIME_TYPE);
    assert_apps_valid("McpUiResourceMeta", &contents["_meta"]["ui"]);
    assert_eq!(contents["_meta"]["ui"], json!({"prefersBorder": false}));

    // Listed too (the list entry carries `_meta.ui`, which hosts may read as a fallback); the
    // view a tool brought with `ui = DATABASES` is registered once.
    let listed = wire.modern("resources/list", json!({}), json!({})).await;
    let resources = listed["result"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 2, "{resources:?}");
    let databases = resources.iter().find(|r| r["uri"] == "ui://inventory/databases").unwrap();
    assert_eq!(databases["mimeType"], VIEW_MIME_TYPE);
    assert_eq!(databases["title"], "Databases");
    assert_eq!(databases["description"], "The databases, as a table.");
    assert_apps_valid("McpUiResourceMeta", &databases["_meta"]["ui"]);
}

#[test]
fn a_link_to_a_view_that_is_not_there_stops_the_server_naming_both() {
    // `greet` links to `ui://inventory/hello` by URI; without `resources![hello_view]`, no view.
    let server = Server::new("inventory", "1.0.0").tools(tools![databases, greet]);
    let err = server.check().unwrap_err();
    assert_eq!((err.kind, err.name.as_str()), ("tool", "greet"));
    assert_eq!(err.problem, Problem::MissingView { uri: "ui://inventory/hello".into() });
    assert!(err.to_string().contains("#[view(\"ui://inventory/hello\")]"), "{err}");

    /// Not a view: plain text at the URI.
    #[resource("ui://inventory/hello", mime_type = "text/plain")]
    async fn not_a_view() -> String {
        "hello".into()
    }
    let err = server.clone().resources(resources![not_a_view]).check().unwrap_err();
    assert!(matches!(err.problem, Problem::NotAView { .. }), "{err}");
    assert!(server.resources(resources![hello_view]).check().is_ok());
}

#[test]
fn describe_lists_the_views_and_the_tools_that_use_them() {
    let doc = server().describe();
    let views = doc.to_json()["views"].as_array().unwrap().clone();
    assert_eq!(views.len(), 2);
    let databases = views.iter().find(|v| v["uri"] == "ui://inventory/databases").unwrap();
    assert_eq!(databases["tools"], json!(["databases"]));
    assert_eq!(databases["ui"]["prefersBorder"], true);
    let markdown = doc.to_markdown();
    assert!(markdown.contains("## Views"), "{markdown}");
    assert!(markdown.contains("`ui://inventory/databases`"), "{markdown}");
    assert!(markdown.contains("Visible to views only"), "{markdown}");
}
