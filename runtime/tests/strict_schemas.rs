//! What `tools/list` shows for optional, nested and numeric arguments: as generated, and in
//! the strict profile some model APIs need (`Server::strict_schemas`).

#![allow(clippy::unwrap_used)] // a test fails loudly
mod common;

use common::{MODERN, Wire};
use roundtrip::prelude::*;
use roundtrip::server::Problem;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Who owns a thing.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Owner {
    /// Their name.
    name: String,
    /// Their team, if they have one.
    team: Option<String>,
}

/// How urgent.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Level {
    Low,
    High,
}

/// The filed ticket.
#[derive(Debug, Serialize, JsonSchema)]
struct Ticket {
    /// Its number.
    number: u32,
    /// Its owner.
    owner: Option<Owner>,
}

/// File a ticket.
#[tool]
async fn file(
    /// What it is about.
    title: String,
    /// A note.
    note: Option<String>,
    /// How urgent.
    level: Option<Level>,
    /// Who owns it.
    owner: Option<Owner>,
    /// Labels, some unset.
    labels: Vec<Option<String>>,
    /// How many copies.
    copies: Option<u16>,
) -> Json<Ticket> {
    let _ = (title, note, level, labels, copies);
    Json(Ticket { number: 1, owner })
}

/// A tree.
#[derive(Debug, Deserialize, JsonSchema)]
struct Node {
    children: Vec<Node>,
}

/// Count a tree's nodes.
#[tool]
async fn count(tree: Node) -> String {
    fn size(n: &Node) -> usize {
        1 + n.children.iter().map(size).sum::<usize>()
    }
    size(&tree).to_string()
}

/// The first tool as `tools/list` shows it (validated against the 2026-07-28 schema).
async fn listed(server: Server) -> Value {
    let mut wire = Wire::new(server, MODERN);
    let listed = wire.modern("tools/list", json!({}), json!({})).await;
    listed["result"]["tools"][0].clone()
}

#[tokio::test]
async fn the_standard_profile_shows_optional_values_as_generated_with_standard_formats() {
    let tool = listed(Server::new("t", "1").tools(tools![file])).await;
    let input = &tool["inputSchema"];
    // What the strict profile exists for: schemars writes every `Option` here (a string, an
    // enum, a struct, a list's item) as a `type` list with `null`.
    assert_eq!(input["properties"]["note"]["type"], json!(["string", "null"]));
    assert_eq!(input["properties"]["level"]["type"], json!(["string", "null"]));
    assert_eq!(input["properties"]["owner"]["type"], json!(["object", "null"]));
    assert_eq!(input["properties"]["labels"]["items"]["type"], json!(["string", "null"]));
    // Sub-schemas are inlined in both schemas; numbers keep their range, not schemars' formats.
    let text = tool.to_string();
    assert!(!text.contains("$ref") && !text.contains("uint"), "{text}");
    assert_eq!(input["properties"]["copies"]["minimum"], 0);
    assert_eq!(input["required"], json!(["title", "labels"]));
}

#[tokio::test]
async fn the_strict_profile_writes_each_optional_value_as_its_value() {
    let server = Server::new("t", "1").tools(tools![file]).strict_schemas();
    server.check().unwrap();
    let tool = listed(server).await;
    let text = tool.to_string();
    for refused in ["null", "$ref", "$defs", "anyOf", "oneOf"] {
        assert!(!text.contains(refused), "{refused} in {tool:#}");
    }
    let input = &tool["inputSchema"];
    assert_eq!(input["properties"]["note"], json!({"type": "string", "description": "A note."}));
    assert_eq!(input["properties"]["copies"]["type"], "integer");
    assert_eq!(input["properties"]["copies"]["minimum"], 0);
    assert_eq!(input["properties"]["level"]["enum"], json!(["low", "high"]));
    assert_eq!(input["properties"]["owner"]["type"], "object");
    assert_eq!(input["properties"]["owner"]["description"], "Who owns it.");
    assert_eq!(input["properties"]["owner"]["properties"]["team"]["type"], "string");
    assert_eq!(input["properties"]["labels"]["items"], json!({"type": "string"}));
    // Whether a value may be left out is still the object's `required`.
    assert_eq!(input["required"], json!(["title", "labels"]));
    assert_eq!(tool["outputSchema"]["properties"]["owner"]["type"], "object");
}

#[tokio::test]
async fn the_profile_applies_to_tools_registered_before_and_after_it() {
    let server = Server::new("t", "1").tools(tools![file]).strict_schemas().tools(tools![count]);
    let before = server.tool_def("file").unwrap();
    assert_eq!(before.tool.input_schema["properties"]["note"]["type"], "string");
    // `count` came later and was rewritten too, as far as it can be: the recursion stays.
    let after = server.tool_def("count").unwrap();
    assert!(serde_json::to_string(&after.tool.input_schema).unwrap().contains("$ref"));
}

#[test]
fn a_schema_the_strict_profile_cannot_take_stops_the_server_naming_where() {
    let server = Server::new("t", "1").strict_schemas().tools(tools![count]);
    let err = server.check().unwrap_err();
    assert_eq!(err.name, "count");
    let Problem::NotStrict { schema, .. } = &err.problem else { panic!("{err}") };
    assert_eq!(*schema, "inputSchema");
    let text = err.to_string();
    assert!(text.starts_with("tool `count` has an inputSchema that the strict schema profile cannot take"), "{text}");
    assert!(text.contains("without `.strict_schemas()`"), "{text}");
    // The standard profile serves it.
    Server::new("t", "1").tools(tools![count]).check().unwrap();
}
