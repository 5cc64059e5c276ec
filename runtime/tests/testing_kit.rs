//! The testing kit scripts answers by key or by property and records each round.

#![allow(clippy::unwrap_used)] // a test fails loudly
mod common;

use roundtrip::client::ClientError;
use roundtrip::protocol::TaskStatus;
use roundtrip::testing::{Scripted as Answer, TaskEvent, TestKit};
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

/// Five progress steps in a row, no sleeps, then done.
#[roundtrip::tool(task)]
async fn five_steps(task: roundtrip::task::TaskContext) -> String {
    for step in 1..=5 {
        task.progress(f64::from(step), Some(5.0), Some(&format!("step {step}")));
    }
    "done".into()
}

#[tokio::test]
async fn a_task_is_recorded_event_by_event() {
    let server = roundtrip::Server::new("kit", "1").tools(roundtrip::tools![five_steps]);
    let flow = TestKit::new(server).call_tool("five_steps", json!({})).await.unwrap();
    assert_eq!(flow.text(), "done");
    let run = flow.task.unwrap();
    assert_eq!(run.progress(), (1..=5).map(|s| (f64::from(s), Some(5.0))).collect::<Vec<_>>());
    let statuses = run.statuses();
    assert_eq!(statuses.first(), Some(&roundtrip::protocol::TaskStatus::Working));
    assert_eq!(statuses.last(), Some(&roundtrip::protocol::TaskStatus::Completed));
    assert_eq!(run.status_messages.last().map(String::as_str), Some("step 5"), "the final step is seen");
}

/// Books a slot among the free ones; "25:00" is never free.
#[roundtrip::tool]
async fn book(#[resolve(elicit = "Which slot?")] slot: Slot) -> String {
    format!("booked {}", slot.word())
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, roundtrip::Elicit)]
enum Slot {
    #[serde(rename = "09:00")]
    Nine,
    #[serde(rename = "10:00")]
    Ten,
}

impl Slot {
    fn word(&self) -> &'static str {
        match self {
            Slot::Nine => "09:00",
            Slot::Ten => "10:00",
        }
    }
}

#[tokio::test]
async fn a_wrong_answer_then_a_right_one() {
    let server = roundtrip::Server::new("kit", "1").tools(roundtrip::tools![book]);
    let flow = TestKit::new(server).answers("slot", [json!({"slot": "25:00"}), json!({"slot": "10:00"})]);
    let flow = flow.call_tool("book", json!({})).await.unwrap();
    assert_eq!((flow.text().as_str(), flow.times_asked("slot")), ("booked 10:00", 2));
    // The second question says why it is asked again: the value refused and the choices.
    let again = serde_json::to_value(&flow.rounds[1]["slot"]).unwrap();
    let message = again["params"]["message"].as_str().unwrap();
    assert!(message.contains("\"25:00\" is not one of the choices (\"09:00\", \"10:00\")"), "{message}");
}

#[tokio::test]
async fn a_scripted_answer_of_the_wrong_shape_fails_at_once_naming_its_key() {
    let server = roundtrip::Server::new("kit", "1").tools(roundtrip::tools![book]);
    let error =
        TestKit::new(server.clone()).answer("slot", json!("10:00")).call_tool("book", json!({})).await.unwrap_err();
    assert_eq!(error.rounds.len(), 1, "no second round: {error}");
    let said = error.to_string();
    assert!(said.contains("the scripted answer for `slot` is `\"10:00\"`, not a form's content"), "{said}");
    assert!(said.contains("json!({\"slot\": …})"), "{said}");
    let typo = TestKit::new(server.clone())
        .answer("slot", json!({"solt": "10:00"}))
        .call_tool("book", json!({}))
        .await
        .unwrap_err();
    assert!(typo.to_string().contains("has `solt`, which the form does not ask for (it asks for slot)"), "{typo}");
    let kind =
        TestKit::new(server).script("slot", Answer::Sample("x".into())).call_tool("book", json!({})).await.unwrap_err();
    assert!(kind.to_string().contains("but the question is an elicitation"), "{kind}");
}

#[tokio::test]
async fn a_refused_answer_round_after_round_says_so() {
    let server = roundtrip::Server::new("kit", "1").tools(roundtrip::tools![book]);
    let error =
        TestKit::new(server).answer("slot", json!({"slot": "25:00"})).call_tool("book", json!({})).await.unwrap_err();
    let said = error.to_string();
    assert!(said.contains("`slot` was asked 10 times: its scripted answer was refused each time"), "{said}");
    assert!(said.contains("is not one of the choices"), "{said}");
}

/// A nickname that may be left empty.
#[roundtrip::tool]
async fn nickname(#[resolve(elicit = "A nickname?")] nickname: Option<String>) -> String {
    nickname.unwrap_or_else(|| "(none)".into())
}

#[tokio::test]
async fn an_optional_primitive_is_a_form_whose_property_may_be_left_out() {
    let server = roundtrip::Server::new("kit", "1").tools(roundtrip::tools![nickname]);
    let empty =
        TestKit::new(server.clone()).answer("nickname", json!({})).call_tool("nickname", json!({})).await.unwrap();
    assert_eq!(empty.text(), "(none)");
    let schema = serde_json::to_value(&empty.rounds[0]["nickname"]).unwrap()["params"]["requestedSchema"].clone();
    assert_eq!(schema, json!({"type": "object", "properties": {"nickname": {"type": "string"}}}));
    let given = TestKit::new(server)
        .answer("nickname", json!({"nickname": "Ada"}))
        .call_tool("nickname", json!({}))
        .await
        .unwrap();
    assert_eq!(given.text(), "Ada");
}

/// Asks a colour while it runs, then a shade among none (which must never be sent).
#[roundtrip::tool(task)]
async fn paint(task: roundtrip::task::TaskContext) -> String {
    let colours = [("red", "Red"), ("blue", "Blue")];
    let question = roundtrip::resolve::Question::choice("Which colour?", "colour", colours);
    let colour = match task.ask_as::<String>(question).await {
        Ok(roundtrip::Answer::Accepted(colour)) => colour,
        _ => return "no colour".into(),
    };
    let none = roundtrip::resolve::Question::choice("Which shade?", "shade", Vec::<(String, String)>::new());
    match task.ask(none).await {
        Err(refused) => format!("{colour}; {}", refused.message()),
        Ok(_) => format!("{colour}; the empty choice was asked"),
    }
}

#[tokio::test]
async fn a_tasks_questions_and_answers_are_events_and_an_empty_choice_is_refused() {
    let server = roundtrip::Server::new("kit", "1").tools(roundtrip::tools![paint]);
    let flow = TestKit::new(server).answer("colour", json!({"colour": "blue"})).call_tool("paint", json!({})).await;
    let flow = flow.unwrap();
    assert_eq!(
        flow.text(),
        "blue; The question `shade` offers no choices (its `shade` has none), so it cannot be answered."
    );
    let run = flow.task.unwrap();
    let asked: Vec<&TaskEvent> = run.events.iter().filter(|e| !matches!(e, TaskEvent::Status(..))).collect();
    let [TaskEvent::Asked(key, request), TaskEvent::Answered(answered_key, answer)] = asked.as_slice() else {
        panic!("one question and its answer, nothing for the empty choice: {:?}", run.events)
    };
    assert_eq!((key.as_str(), answered_key.as_str()), ("colour", "colour"));
    let request = serde_json::to_value(request).unwrap();
    assert_eq!(request["params"]["message"], "Which colour?", "{request}");
    assert_eq!(*answer, json!({"action": "accept", "content": {"colour": "blue"}}));
    // The answer comes after the task asked (input_required), and before it completed.
    let position = |wanted: &dyn Fn(&TaskEvent) -> bool| run.events.iter().position(wanted).unwrap();
    let input_required = position(&|e| matches!(e, TaskEvent::Status(TaskStatus::InputRequired, _)));
    let asked_at = position(&|e| matches!(e, TaskEvent::Asked(..)));
    let answered_at = position(&|e| matches!(e, TaskEvent::Answered(..)));
    let completed = position(&|e| matches!(e, TaskEvent::Status(TaskStatus::Completed, _)));
    assert!(input_required < asked_at && asked_at < answered_at && answered_at < completed, "{:?}", run.events);
    assert!(!run.questions.iter().flat_map(|q| q.keys()).any(|k| k.starts_with("shade")), "{:?}", run.questions);
}
