//! Declared items: what reaches the wire from the signature.

#![allow(clippy::unwrap_used)] // a test fails loudly

use roundtrip::prelude::*;
use roundtrip::testing::TestKit;
use serde_json::json;

/// Open a resource after confirming.
#[tool]
async fn open(
    /// The resource.
    #[arg(rename = "resourceUri")]
    resource_uri: String,
    #[resolve(elicit = "Open {resource_uri}?")] ok: bool,
) -> String {
    format!("{resource_uri} {ok}")
}

/// Review a file.
#[prompt]
async fn review(#[arg(rename = "fileName")] file_name: String) -> String {
    format!("Review {file_name}")
}

#[tokio::test]
async fn renamed_arguments_use_their_wire_name_and_placeholders_their_rust_name() {
    let server = Server::new("declare", "1").tools(tools![open]).prompts(prompts![review]);
    let schema = serde_json::to_value(&server.tool_defs()[0].tool.input_schema).unwrap();
    assert_eq!(schema["properties"], json!({"resourceUri": {"type": "string", "description": "The resource."}}));
    assert_eq!(schema["required"], json!(["resourceUri"]));
    let prompt = serde_json::to_value(&server.prompt_defs()[0].prompt).unwrap();
    assert_eq!(prompt["arguments"][0]["name"], "fileName");
    let kit = TestKit::new(server).property("ok", json!(true));
    let flow = kit.call_tool("open", json!({"resourceUri": "file:///a"})).await.unwrap();
    let question = serde_json::to_value(&flow.rounds[0]["ok"]).unwrap();
    assert_eq!(question["params"]["message"], "Open file:///a?");
    assert_eq!(flow.text(), "file:///a true");
    let prompt = kit.get_prompt("review", json!({"fileName": "main.rs"})).await.unwrap();
    assert_eq!(prompt.result.messages[0].content.as_text(), Some("Review main.rs"));
}
