//! The testing kit scripts answers by key or by property and records each round.

#![allow(clippy::unwrap_used)] // a test fails loudly
mod common;

use roundtrip::client::ClientError;
use roundtrip::testing::{Scripted as Answer, TestKit};
use serde_json::json;

#[tokio::test]
async fn answers_by_property_and_records_rounds() {
    let flow =
        TestKit::new(common::fixture()).property("name", json!("Ada")).call_tool("ask_name", json!({})).await.unwrap();
    assert_eq!(flow.questions(), vec![vec!["user_name"]]);
    assert_eq!(flow.text(), "Hello, Ada!");
    assert!(!flow.is_error());
}

#[tokio::test]
async fn answers_by_key_of_every_kind_in_one_round() {
    let flow = TestKit::new(common::fixture())
        .answer("who", json!({"name": "Grace"}))
        .script("capital", Answer::Sample("Paris".into()))
        .script("roots", Answer::Roots(vec!["file:///w".into()]))
        .call_tool("ask_everything", json!({}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["capital", "roots", "who"]]);
    assert_eq!(flow.text(), "Grace / Paris / file:///w");
}

#[tokio::test]
async fn a_state_only_round_is_recorded_without_questions() {
    let flow = TestKit::new(common::fixture()).call_tool("state_only", json!({})).await.unwrap();
    assert_eq!(flow.questions(), vec![Vec::<&str>::new()]);
    assert_eq!(flow.text(), "resumed 7");
}

#[tokio::test]
async fn an_unscripted_question_fails_naming_its_key() {
    let err = TestKit::new(common::fixture()).call_tool("ask_name", json!({})).await.unwrap_err();
    assert!(matches!(&err.error, ClientError::Callback(m) if m.contains("`user_name`")), "{err:?}");
    let flow = TestKit::new(common::fixture()).decline("user_name").call_tool("ask_name", json!({})).await.unwrap();
    assert!(flow.is_error());
    assert_eq!(flow.text(), "no name given");
    let err = TestKit::new(common::fixture()).max_rounds(1).decline("user_name").call_tool("ask_name", json!({})).await;
    assert_eq!(err.unwrap_err(), ClientError::TooManyRounds(1));
}
