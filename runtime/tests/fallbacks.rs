//! Fallbacks (`or_argument`, `or_default`): what a resolved parameter takes when the client
//! cannot answer its question, in both eras.

#![allow(clippy::unwrap_used)] // a test fails loudly
use roundtrip::client::{Client, ClientError, Mode};
use roundtrip::prelude::*;
use roundtrip::protocol::{ElicitParams, ElicitResult, Root};
use roundtrip::testing::TestKit;
use serde_json::json;

/// Greet someone.
#[tool]
async fn greet(#[resolve(elicit = "Your name?", or_default = "friend".to_owned())] name: String) -> String {
    format!("Hello, {name}!")
}

/// Plan a goal.
#[tool]
async fn plan(
    goal: String,
    #[resolve(sample = "Plan: {goal}", max_tokens = 50, or_default = "no plan".to_owned())] steps: String,
) -> String {
    format!("{goal}: {steps}")
}

/// Count the roots.
#[tool]
async fn count_roots(#[resolve(roots, or_default = Vec::new())] roots: Vec<Root>) -> String {
    format!("{} roots", roots.len())
}

/// Delete, if confirmed (a declinable answer's fallback is of its value's type).
#[tool]
async fn delete(
    path: String,
    #[resolve(elicit = "Delete {path}?", or_argument, or_default = false)] confirm: Answer<bool>,
) -> String {
    match confirm {
        Answer::Accepted(true) => format!("Deleted {path}."),
        _ => format!("Kept {path}."),
    }
}

/// Deploy where asked: no fallback.
#[tool]
async fn deploy(#[resolve(elicit = "Where?")] target: String) -> String {
    format!("Deployed to {target}.")
}

/// A volume's shape.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
struct Volume {
    /// Size in GiB.
    size: u32,
    /// Encrypt it.
    encrypted: bool,
}

/// Create a volume (a struct's default fills each field's).
#[tool]
async fn create_volume(
    #[resolve(elicit = "Which volume?", or_default = Volume { size: 20, encrypted: true })] volume: Volume,
) -> String {
    format!("{} GiB, encrypted {}", volume.size, volume.encrypted)
}

/// Link an account: a URL question, shown as a form carrying the link where the client has
/// no URL mode.
#[tool]
async fn link(
    #[resolve(elicit_url = "https://id.example.com/link", message = "Sign in to link your account", or_form)]
    consent: Answer<Consent>,
) -> String {
    match consent {
        Answer::Accepted(_) => "Linked.".to_owned(),
        _ => "Not linked.".to_owned(),
    }
}

fn server() -> Server {
    Server::new("fallbacks", "1").tools(tools![greet, plan, count_roots, delete, deploy, create_volume, link])
}

#[tokio::test]
async fn a_client_that_can_answer_is_asked_as_before() {
    let flow = TestKit::new(server()).property("name", json!("Ada")).call_tool("greet", json!({})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["name"]]);
    assert_eq!(flow.text(), "Hello, Ada!");
}

#[tokio::test]
async fn a_default_is_also_the_forms_default() {
    let kit = || TestKit::new(server()).property("name", json!("Ada")).property("confirm", json!(true));
    let flow = kit().call_tool("greet", json!({})).await.unwrap();
    let asked = serde_json::to_value(&flow.rounds[0]["name"]).unwrap();
    assert_eq!(asked["params"]["requestedSchema"]["properties"]["name"]["default"], "friend");
    // A yes/no question shows its "no" (an Answer<bool>'s default is of its value's type).
    let flow = kit().call_tool("delete", json!({"path": "/x"})).await.unwrap();
    let asked = serde_json::to_value(&flow.rounds[0]["confirm"]).unwrap();
    assert_eq!(
        asked["params"]["requestedSchema"]["properties"]["confirm"],
        json!({"type": "boolean", "default": false})
    );
    assert_eq!(flow.text(), "Deleted /x.");
    let flow =
        kit().answer("volume", json!({"size": 5, "encrypted": false})).call_tool("create_volume", json!({})).await;
    let flow = flow.unwrap();
    let asked = serde_json::to_value(&flow.rounds[0]["volume"]).unwrap();
    let fields = &asked["params"]["requestedSchema"]["properties"];
    assert_eq!((fields["size"]["default"].clone(), fields["encrypted"]["default"].clone()), (json!(20), json!(true)));
    assert_eq!(flow.text(), "5 GiB, encrypted false");
    // Without a default, none.
    let flow = TestKit::new(server()).property("target", json!("eu")).call_tool("deploy", json!({})).await.unwrap();
    let asked = serde_json::to_value(&flow.rounds[0]["target"]).unwrap();
    assert!(asked["params"]["requestedSchema"]["properties"]["target"].get("default").is_none());
}

#[tokio::test]
async fn a_default_stands_in_for_each_kind_of_question() {
    let kit = TestKit::new(server()).without_elicitation().without_sampling().without_roots();
    let flow = kit.call_tool("greet", json!({})).await.unwrap();
    assert!(flow.rounds.is_empty());
    assert_eq!(flow.text(), "Hello, friend!");
    assert_eq!(kit.call_tool("plan", json!({"goal": "ship"})).await.unwrap().text(), "ship: no plan");
    assert_eq!(kit.call_tool("count_roots", json!({})).await.unwrap().text(), "0 roots");
    // An argument comes first, then the question, then the default.
    assert_eq!(kit.call_tool("delete", json!({"path": "/x", "confirm": true})).await.unwrap().text(), "Deleted /x.");
    assert_eq!(kit.call_tool("delete", json!({"path": "/x"})).await.unwrap().text(), "Kept /x.");
}

/// Call `tool` as a client that declares no elicitation: refused with `-32021`, naming it.
async fn refused_without_elicitation(tool: &str) {
    let err = TestKit::new(server()).without_elicitation().call_tool(tool, json!({})).await.unwrap_err();
    let ClientError::Rpc(e) = err.error else { panic!("{err:?}") };
    assert_eq!(e.code, -32021);
    assert!(e.message.contains("elicitation"), "{}", e.message);
}

#[tokio::test]
async fn without_a_fallback_the_missing_capability_is_named() {
    refused_without_elicitation("deploy").await;
}

#[tokio::test]
async fn a_legacy_session_takes_the_same_fallbacks() {
    let legacy = Client::builder("legacy", "1").mode(Mode::Legacy).connect_in_memory(server()).await.unwrap();
    let result = legacy.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Hello, friend!"));
    let result = legacy.call_tool("delete", json!({"path": "/x", "confirm": true})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Deleted /x."));
    let ClientError::Rpc(e) = legacy.call_tool("deploy", json!({})).await.unwrap_err() else { panic!() };
    assert_eq!(e.code, -32021);
}

#[tokio::test]
async fn a_url_question_is_a_form_carrying_its_link_where_the_client_has_no_url_mode() {
    // With URL mode: the URL question.
    let flow = TestKit::new(server()).answer("consent", json!({})).call_tool("link", json!({})).await.unwrap();
    let asked = serde_json::to_value(&flow.rounds[0]["consent"]).unwrap();
    assert_eq!(asked["params"]["mode"], "url");
    assert_eq!(flow.text(), "Linked.");
    // Forms only: a form with no fields whose message carries the link; accepting it consents.
    let kit = || TestKit::new(server()).without_url_elicitation();
    let flow = kit().answer("consent", json!({})).call_tool("link", json!({})).await.unwrap();
    let asked = serde_json::to_value(&flow.rounds[0]["consent"]).unwrap();
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["requestedSchema"], json!({"type": "object", "properties": {}}));
    assert_eq!(
        asked["params"]["message"],
        "Sign in to link your account\n\nOpen this link, then accept here when you are done: https://id.example.com/link"
    );
    assert_eq!(flow.text(), "Linked.");
    let flow = kit().decline("consent").call_tool("link", json!({})).await.unwrap();
    assert_eq!(flow.text(), "Not linked.");
    // No elicitation at all: refused, naming what the client lacks.
    refused_without_elicitation("link").await;
}

#[tokio::test]
async fn a_legacy_session_without_url_mode_gets_the_form_too() {
    let legacy = Client::builder("legacy", "1")
        .mode(Mode::Legacy)
        .on_elicit(|params| async move {
            match params {
                ElicitParams::Form(form) if form.message.contains("https://id.example.com/link") => {
                    Ok(ElicitResult::accept(Default::default()))
                }
                other => Err(ClientError::Callback(format!("unexpected {other:?}"))),
            }
        })
        .without_url_elicitation()
        .connect_in_memory(server())
        .await
        .unwrap();
    let result = legacy.call_tool("link", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Linked."));
}

#[test]
fn describe_shows_each_fallback() {
    let description = server().describe();
    let tools = description.to_json()["tools"].as_array().unwrap().clone();
    let question = |tool: &str| {
        let tool = tools.iter().find(|t| t["name"] == tool).unwrap();
        tool["questions"][0].clone()
    };
    assert_eq!(question("greet")["fallback"], json!({"argument": false, "default": "friend"}));
    assert_eq!(question("delete")["fallback"], json!({"argument": true, "default": false}));
    assert!(question("deploy").get("fallback").is_none());
    assert_eq!(question("link")["fallback"], json!({"argument": false, "form": true}));
    let markdown = description.to_markdown();
    assert!(markdown.contains("  (A client that cannot answer gets `\"friend\"`.)"), "{markdown}");
    assert!(
        markdown.contains("  (Also an argument: given, nothing is asked. A client that cannot answer gets `false`.)"),
        "{markdown}"
    );
    assert!(markdown.contains("  (A client without URL mode is asked with a form carrying the link.)"), "{markdown}");
}
