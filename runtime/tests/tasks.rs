//! The tasks extension: declared task tools that ask first (multi-round trips) and while they
//! run, the client that follows them, cancellation and gating. `fleet.rs` runs tasks across
//! servers that share a store.

#![allow(clippy::unwrap_used)] // a test fails loudly

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::wait_for;
use roundtrip::client::{Client, ClientError, Step};
use roundtrip::prelude::*;
use roundtrip::protocol::{ElicitResult, JsonObject, TaskStatus};
use roundtrip::testing::TestKit;
use roundtrip::transport::http::HttpOptions;
use serde_json::json;

/// Back up a database: asks the region first, then runs as a task that asks whether to
/// overwrite.
#[tool(task)]
async fn backup(
    database: String,
    #[resolve(elicit = "Which region for {database}?")] region: String,
    task: TaskContext,
) -> Result<String, Error> {
    task.progress(1.0, Some(2.0), Some("copying"));
    if !task.can_ask() {
        return Ok(format!("{database} in {region}: kept the old backup"));
    }
    let overwrite = task.ask_as::<bool>(Question::confirm(format!("Overwrite {database}?"), "overwrite")).await?;
    task.progress(2.0, Some(2.0), Some("done"));
    Ok(format!("{database} in {region}: overwrite {:?}", overwrite.accepted()))
}

/// Only as a task.
#[tool(task = "required")]
async fn nightly() -> String {
    "ran".into()
}

static STOPPED: AtomicBool = AtomicBool::new(false);
static STEPS: AtomicUsize = AtomicUsize::new(0);

/// Sets STOPPED when its body is dropped (cancelled) before it ends.
struct Stopped;

impl Drop for Stopped {
    fn drop(&mut self) {
        STOPPED.store(true, Ordering::SeqCst);
    }
}

/// Runs until cancelled.
#[tool(task)]
async fn forever() -> String {
    let _guard = Stopped;
    loop {
        STEPS.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits a minute (a task that stays working while a test looks at it).
#[tool(task)]
async fn idle() -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "rested".into()
}

fn server() -> Server {
    Server::new("tasks", "1").tools(tools![backup, nightly, forever, idle])
}

#[tokio::test]
async fn a_task_tool_asks_first_then_runs_as_a_task_and_asks_while_running() {
    let flow = TestKit::new(server())
        .property("region", json!("eu"))
        .property("overwrite", json!(true))
        .call_tool("backup", json!({"database": "orders"}))
        .await
        .unwrap();
    assert_eq!(flow.questions(), vec![vec!["region"]], "asked before the task existed");
    let task = flow.task.as_ref().expect("the call became a task");
    assert_eq!(task.questions.len(), 1);
    assert_eq!(task.questions[0].keys().collect::<Vec<_>>(), ["overwrite"]);
    assert!(task.status_messages.iter().any(|m| m == "copying"), "{:?}", task.status_messages);
    assert_eq!(flow.text(), "orders in eu: overwrite Some(true)");
}

async fn client(server: Server, tasks: bool) -> Client {
    Client::builder("tasks-test", "1")
        .tasks(tasks)
        .on_elicit(|params| async move {
            let property = if params.message().contains("region") { "region" } else { "overwrite" };
            let value = if property == "region" { json!("us") } else { json!(false) };
            Ok(ElicitResult::accept(object(json!({ property: value }))))
        })
        .connect_in_memory(server)
        .await
        .unwrap()
}

fn object(v: serde_json::Value) -> JsonObject {
    v.as_object().cloned().unwrap()
}

#[tokio::test]
async fn the_client_follows_a_task_answering_its_questions_through_the_callbacks() {
    let result = client(server(), true).await.call_tool("backup", json!({"database": "logs"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("logs in us: overwrite Some(false)"));
}

#[tokio::test]
async fn the_client_follows_a_task_over_http() {
    let http = server().bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    let client = Client::builder("tasks-http", "1")
        .on_elicit(|params| async move {
            let property = if params.message().contains("region") { "region" } else { "overwrite" };
            let value = if property == "region" { json!("ap") } else { json!(true) };
            Ok(ElicitResult::accept(object(json!({ property: value }))))
        })
        .connect_http(&url)
        .await
        .unwrap();
    let result = client.call_tool("backup", json!({"database": "users"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("users in ap: overwrite Some(true)"));
}

#[tokio::test]
async fn a_client_without_the_extension_gets_an_optional_task_tool_run_synchronously() {
    let client = client(server(), false).await;
    let step = client.call_tool_step("backup", json!({"database": "logs"}), None, None).await.unwrap();
    assert!(matches!(step, Step::InputRequired(_)), "the declared question comes first");
    let result = client.call_tool("backup", json!({"database": "logs"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("logs in us: kept the old backup"));
    // A required one is refused before anything runs; the task methods too.
    let err = client.call_tool("nightly", json!({})).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32021), "{err:?}");
    let err = client.get_task("anything").await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32021), "{err:?}");
}

#[tokio::test]
async fn an_unknown_task_is_invalid_params() {
    let client = client(server(), true).await;
    let err = client.get_task("no-such-task").await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602), "{err:?}");
}

#[tokio::test]
async fn cancel_stops_the_body() {
    let client = client(server(), true).await;
    let Step::Task(task) = client.call_tool_step("forever", json!({}), None, None).await.unwrap() else {
        panic!("a task")
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(STEPS.load(Ordering::SeqCst) > 0, "the body runs");
    client.cancel_task(&task.task_id).await.unwrap();
    let status = wait_for(&client, &task.task_id, |s| s.is_terminal()).await;
    assert_eq!(status, TaskStatus::Cancelled);
    assert!(STOPPED.load(Ordering::SeqCst), "the body was dropped");
    let after = STEPS.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(STEPS.load(Ordering::SeqCst), after, "and runs no more");
    // Cancelling a finished task is acknowledged all the same.
    client.cancel_task(&task.task_id).await.unwrap();
}

#[tokio::test]
async fn a_task_is_visible_only_to_the_principal_that_created_it() {
    // A gateway on this machine vouches for the user in a header.
    let options = HttpOptions::default().trusted_proxies(["127.0.0.1"]).identity_header("authorization");
    let http = server().bind_http_with("127.0.0.1:0", options).await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    let as_user = |user: &'static str| {
        Client::builder("owner-test", "1").authorization(move || Some(format!("Bearer {user}"))).connect_http(&url)
    };
    let (alice, bob) = (as_user("alice").await.unwrap(), as_user("bob").await.unwrap());
    let Step::Task(task) = alice.call_tool_step("idle", json!({}), None, None).await.unwrap() else { panic!("a task") };
    alice.get_task(&task.task_id).await.unwrap();
    for attempt in [bob.get_task(&task.task_id).await.map(drop), bob.cancel_task(&task.task_id).await] {
        let err = attempt.unwrap_err();
        assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602), "{err:?}");
    }
    assert_eq!(
        alice.get_task(&task.task_id).await.unwrap().task.task.status,
        TaskStatus::Working,
        "bob cancelled nothing"
    );
    alice.cancel_task(&task.task_id).await.unwrap();
}

#[tokio::test]
async fn tasks_get_carries_the_bodys_latest_progress_as_numbers() {
    // The steps are driven by hand below; the callback only declares the capability.
    let client = Client::builder("tasks-progress", "1")
        .tasks(true)
        .progress_tokens(true)
        .on_elicit(|_| async { Ok(ElicitResult::decline()) })
        .connect_in_memory(server())
        .await
        .unwrap();
    let Step::InputRequired(round) =
        client.call_tool_step("backup", json!({"database": "orders"}), None, None).await.unwrap()
    else {
        panic!("the region comes first")
    };
    let region = ElicitResult::accept(object(json!({"region": "eu"})));
    let answers = object(json!({ "region": region }));
    let step = client.call_tool_step("backup", json!({"database": "orders"}), Some(answers), round.request_state);
    let Step::Task(task) = step.await.unwrap() else { panic!("a task") };
    // The body reports 1 of 2, then asks: the record shows both the words and the numbers.
    wait_for(&client, &task.task_id, |s| s == TaskStatus::InputRequired).await;
    let got = client.get_task(&task.task_id).await.unwrap();
    assert_eq!(got.task.task.status_message.as_deref(), Some("copying"));
    let meta = got.meta.expect("_meta with the progress");
    assert_eq!(meta[roundtrip::protocol::TASK_PROGRESS_META], json!({"progress": 1.0, "total": 2.0}));
    client.cancel_task(&task.task_id).await.unwrap();
}
