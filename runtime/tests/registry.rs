//! Tools, prompts and resources added and removed while a server serves, for every caller and
//! per tenant (`Server::add_tools`, `remove_tool`, `tenants`, `add_tools_for`): each change is
//! announced, lists and calls follow it, a state issued for a removed tool is refused, and a
//! run-time registration is checked as a build-time one.

#![allow(clippy::unwrap_used)] // a test fails loudly

mod common;

use common::{send_as as send, tool_names};
use roundtrip::prelude::*;
use roundtrip::protocol::ErrorObject;
use roundtrip::server::{ListChange, Problem};
use serde_json::{Value, json};

/// Greet the user: asks their name.
#[tool]
async fn greet(#[resolve(elicit = "Your name?")] name: String) -> String {
    format!("Hello, {name}!")
}

/// Acme's own report.
#[tool(read_only)]
async fn acme_report() -> &'static str {
    "acme numbers"
}

/// Globex's own report.
#[tool(read_only)]
async fn globex_report() -> &'static str {
    "globex numbers"
}

/// For everyone.
#[tool(read_only)]
async fn status() -> &'static str {
    "up"
}

struct Ledger;

/// Needs state the server does not have.
#[tool(read_only)]
async fn balance(_ledger: State<Ledger>) -> &'static str {
    "0"
}

/// A prompt added later.
#[prompt]
async fn haiku() -> String {
    "Write a haiku.".to_owned()
}

async fn call(server: &Server, org: Option<&str>, name: &str) -> Result<Value, ErrorObject> {
    send(server, org, "tools/call", json!({"name": name, "arguments": {}})).await
}

#[tokio::test]
async fn a_tool_added_while_serving_is_announced_listed_and_called_and_gone_once_removed() {
    let server = Server::new("growing", "1.0.0").tools(tools![status]);
    let mut changes = server.subscribe_changes();
    assert_eq!(tool_names(&server, None).await, ["status"]);

    server.add_tools(tools![greet]).unwrap();
    assert_eq!(changes.try_recv().unwrap(), ListChange::Tools);
    assert_eq!(tool_names(&server, None).await, ["status", "greet"], "the cached list was made again");
    let asked = call(&server, None, "greet").await.unwrap();
    assert_eq!(asked["resultType"], "input_required");

    // The flow's next leg, after the tool was removed: refused, never run.
    assert!(server.remove_tool("greet"));
    assert_eq!(changes.try_recv().unwrap(), ListChange::Tools);
    let (key, _) = asked["inputRequests"].as_object().unwrap().iter().next().unwrap();
    let retry = json!({
        "name": "greet",
        "arguments": {},
        "inputResponses": { key.clone(): {"action": "accept", "content": {"name": "Ada"}} },
        "requestState": asked["requestState"],
    });
    let refused = send(&server, None, "tools/call", retry).await.unwrap_err();
    assert_eq!((refused.code, refused.message.as_str()), (-32602, "Unknown tool: greet"));
    assert_eq!(tool_names(&server, None).await, ["status"]);
    assert!(!server.remove_tool("greet"), "nothing left to remove");
    assert!(changes.try_recv().is_err(), "removing nothing announces nothing");
}

#[tokio::test]
async fn a_clone_of_the_server_sees_the_same_changes() {
    let server = Server::new("shared", "1.0.0");
    let serving = server.clone();
    server.add_tools(tools![status]).unwrap();
    assert_eq!(call(&serving, None, "status").await.unwrap()["content"][0]["text"], "up");
}

#[tokio::test]
async fn each_tenant_lists_and_calls_its_own_tools_and_the_shared_ones() {
    let server = Server::new("saas", "1.0.0")
        .tools(tools![status])
        .tenants(|caller| caller.claims.get("org")?.as_str().map(str::to_owned));
    server.add_tools_for("acme", tools![acme_report]).unwrap();
    server.add_tools_for("globex", tools![globex_report]).unwrap();

    assert_eq!(tool_names(&server, Some("acme")).await, ["status", "acme_report"]);
    assert_eq!(tool_names(&server, Some("globex")).await, ["status", "globex_report"]);
    assert_eq!(tool_names(&server, Some("initech")).await, ["status"], "a tenant with nothing of its own");
    assert_eq!(tool_names(&server, None).await, ["status"], "an anonymous caller has no tenant");

    assert_eq!(call(&server, Some("acme"), "acme_report").await.unwrap()["content"][0]["text"], "acme numbers");
    let refused = call(&server, Some("globex"), "acme_report").await.unwrap_err();
    assert_eq!(refused.message, "Unknown tool: acme_report", "another tenant's tool is unknown");
    assert!(call(&server, None, "globex_report").await.is_err());

    // A tenant's list is its own: no shared cache may hand it to another.
    let list = send(&server, Some("acme"), "tools/list", json!({})).await.unwrap();
    assert_eq!(list["cacheScope"], "private");
    let shared = send(&server, None, "tools/list", json!({})).await.unwrap();
    assert_eq!(shared["cacheScope"], "public");

    assert!(server.remove_tool_for("acme", "acme_report"));
    assert_eq!(tool_names(&server, Some("acme")).await, ["status"]);
    // A shared tool added later reaches every tenant.
    server.add_tools(tools![greet]).unwrap();
    assert_eq!(tool_names(&server, Some("globex")).await, ["status", "greet", "globex_report"]);
}

#[tokio::test]
async fn a_run_time_registration_is_checked_as_a_build_time_one() {
    let server = Server::new("checked", "1.0.0").tools(tools![status]);
    let refused = server.add_tools(tools![balance]).unwrap_err();
    assert!(matches!(refused.problem, Problem::MissingState { .. }), "{refused}");
    assert_eq!(tool_names(&server, None).await, ["status"], "nothing was added");
}

#[tokio::test]
async fn prompts_and_resources_come_and_go_too() {
    let server = Server::new("prompts", "1.0.0").tools(tools![status]);
    let mut changes = server.subscribe_changes();
    server.add_prompts(prompts![haiku]).unwrap();
    assert_eq!(changes.try_recv().unwrap(), ListChange::Prompts);
    let got = send(&server, None, "prompts/get", json!({"name": "haiku"})).await.unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Write a haiku.");
    assert!(server.remove_prompt("haiku"));
    assert!(send(&server, None, "prompts/get", json!({"name": "haiku"})).await.is_err());
}

#[tokio::test]
async fn a_tenant_has_prompts_of_its_own() {
    let server = Server::new("saas", "1.0.0")
        .tools(tools![status])
        .tenants(|caller| caller.claims.get("org")?.as_str().map(str::to_owned));
    server.add_prompts_for("acme", prompts![haiku]).unwrap();
    let prompt_names = |list: Value| -> Vec<String> {
        list["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_owned()).collect()
    };
    let listed = send(&server, Some("acme"), "prompts/list", json!({})).await.unwrap();
    assert_eq!(prompt_names(listed), ["haiku"]);
    let got = send(&server, Some("acme"), "prompts/get", json!({"name": "haiku"})).await.unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Write a haiku.");
    assert!(send(&server, Some("globex"), "prompts/get", json!({"name": "haiku"})).await.is_err(), "not globex's");
    assert!(server.remove_prompt_for("acme", "haiku"));
    assert!(send(&server, Some("acme"), "prompts/get", json!({"name": "haiku"})).await.is_err());
}
