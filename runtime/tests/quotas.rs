//! What one caller can make the server hold: tasks (in all and per caller, single-use states
//! of task tools, a deadline for parked tasks). The HTTP budgets (streams, sessions, Origin)
//! are in `http_quotas.rs`.

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::Arc;
use std::time::Duration;

use roundtrip::auth::AuthPrincipal;
use roundtrip::prelude::*;
use roundtrip::protocol::{ErrorObject, Request, RequestId, ResponseBody};
use roundtrip::server::{Inbound, NullPeer};
use roundtrip::task::TaskOptions;
use serde_json::{Value, json};

/// Backs up a database: asks the region, then parks as a task asking whether to overwrite.
#[tool(task)]
async fn backup(
    database: String,
    #[resolve(elicit = "Which region for {database}?")] region: String,
    task: TaskContext,
) -> Result<String, Error> {
    let overwrite = task.ask_as::<bool>(Question::confirm(format!("Overwrite {database}?"), "overwrite")).await?;
    Ok(format!("{database} in {region}: overwrite {:?}", overwrite.accepted()))
}

/// The same, opting out of single-use states.
#[tool(task, replayable)]
async fn replayable_backup(
    database: String,
    #[resolve(elicit = "Which region for {database}?")] region: String,
    task: TaskContext,
) -> Result<String, Error> {
    let overwrite = task.ask_as::<bool>(Question::confirm(format!("Overwrite {database}?"), "overwrite")).await?;
    Ok(format!("{database} in {region}: overwrite {:?}", overwrite.accepted()))
}

/// Finishes at once, as a task.
#[tool(task)]
async fn quick(database: String) -> String {
    format!("{database}: done")
}

fn caps() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    })
}

/// One 2026-07-28 request by `principal`: its result, or its error.
async fn send(server: &Server, principal: &str, method: &str, params: Value) -> Result<Value, ErrorObject> {
    let mut inbound = Inbound::new(Arc::new(NullPeer));
    inbound.auth = Some(std::sync::Arc::new(AuthPrincipal::new(principal)));
    let reply = server.handle(Request::new(RequestId::Number(1), method, Some(params)), inbound).await;
    match reply.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(v)) => Ok(v),
        Some(ResponseBody::Error(e)) => Err(e),
        None => Err(ErrorObject::internal("no response")),
    }
}

fn call(tool: &str, state: Option<&str>) -> Value {
    let mut params = json!({"name": tool, "arguments": {"database": "orders"}, "_meta": caps()});
    if let Some(state) = state {
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"region": {"action": "accept", "content": {"region": "eu"}}});
    }
    params
}

/// Leg 1 of `tool`: the state to replay.
async fn first_leg(server: &Server, principal: &str, tool: &str) -> String {
    let leg1 = send(server, principal, "tools/call", call(tool, None)).await.unwrap();
    leg1["requestState"].as_str().unwrap().to_owned()
}

/// This process's resident memory, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replaying_the_last_leg_of_a_task_tool_starts_one_task() {
    let server = Server::new("quotas", "1").tools(tools![backup]);
    let state = first_leg(&server, "mallory", "backup").await;
    let (mut created, mut refused) = (0, 0);
    for _ in 0..50_000 {
        match send(&server, "mallory", "tools/call", call("backup", Some(&state))).await {
            Ok(v) if v["resultType"] == "task" => created += 1,
            Err(e) if e == ErrorObject::invalid_request_state() => refused += 1,
            other => panic!("unexpected: {other:?}"),
        }
    }
    assert_eq!((created, refused), (1, 49_999), "a task tool's state is single-use by default");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_caller_cannot_take_every_task_slot() {
    let server = Server::new("quotas", "1").tools(tools![replayable_backup]);
    let state = first_leg(&server, "mallory", "replayable_backup").await;
    let before = rss_kib();
    let (mut created, mut refused) = (0, 0);
    for _ in 0..50_000 {
        match send(&server, "mallory", "tools/call", call("replayable_backup", Some(&state))).await {
            Ok(v) if v["resultType"] == "task" => created += 1,
            Err(e) => {
                assert_eq!(e.code, -32000, "{e:?}");
                assert_eq!(e.data.as_ref().unwrap()["limit"], "max_tasks_per_caller");
                assert!(e.message.contains("max_tasks_per_caller"), "{}", e.message);
                refused += 1;
            }
            other => panic!("unexpected: {other:?}"),
        }
    }
    let grown_mib = rss_kib().saturating_sub(before) / 1024;
    let per_caller = TaskOptions::default().max_tasks_per_caller;
    assert_eq!((created, refused), (per_caller, 50_000 - per_caller));
    // 1 000 parked tasks; without the quota, 50 000 (about 1 GB).
    assert!(grown_mib < 200, "the process grew by {grown_mib} MiB");
    eprintln!("50 000 replayed legs: {created} tasks, {refused} refused, RSS +{grown_mib} MiB");
    // Another caller still gets a task.
    let theirs = first_leg(&server, "alice", "replayable_backup").await;
    let task = send(&server, "alice", "tools/call", call("replayable_backup", Some(&theirs))).await.unwrap();
    assert_eq!(task["resultType"], "task");
}

#[tokio::test]
async fn the_server_holds_at_most_max_tasks() {
    let options = TaskOptions { max_tasks: 3, max_tasks_per_caller: 2, ..TaskOptions::default() };
    let server = Server::new("quotas", "1").tools(tools![replayable_backup]).task_options(options);
    for who in ["a", "b"] {
        let state = first_leg(&server, who, "replayable_backup").await;
        for _ in 0..2 {
            let r = send(&server, who, "tools/call", call("replayable_backup", Some(&state))).await;
            if let Err(e) = r {
                assert_eq!(e.data.unwrap()["limit"], "max_tasks", "the third task of all is refused");
                return;
            }
        }
    }
    panic!("four tasks were created past max_tasks = 3");
}

#[tokio::test]
async fn a_task_that_ended_gives_its_slot_back() {
    let options = TaskOptions { max_tasks: 4, max_tasks_per_caller: 2, ..TaskOptions::default() };
    let server = Server::new("quotas", "1").tools(tools![quick]).task_options(options);
    let params = json!({"name": "quick", "arguments": {"database": "orders"}, "_meta": caps()});
    // Ten tasks one after another, each finished before the next: never more than one running.
    for n in 0..10 {
        let task = send(&server, "mallory", "tools/call", params.clone()).await;
        let task = task.unwrap_or_else(|e| panic!("task {n} refused: {e:?}"));
        let get = json!({"taskId": task["taskId"], "_meta": caps()});
        let mut status = Value::Null;
        for _ in 0..200 {
            status = send(&server, "mallory", "tasks/get", get.clone()).await.unwrap()["status"].clone();
            if status == "completed" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(status, "completed", "task {n}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_parked_task_fails_when_nobody_answers() {
    let options = TaskOptions { input_timeout: Duration::from_secs(30), ..TaskOptions::default() };
    let server = Server::new("quotas", "1").tools(tools![backup]).task_options(options);
    let state = first_leg(&server, "alice", "backup").await;
    let task = send(&server, "alice", "tools/call", call("backup", Some(&state))).await.unwrap();
    let id = task["taskId"].as_str().unwrap().to_owned();
    let get = json!({"taskId": id, "_meta": caps()});
    let mut status = Value::Null;
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        status = send(&server, "alice", "tasks/get", get.clone()).await.unwrap();
        if status["status"] == "input_required" {
            break;
        }
    }
    assert_eq!(status["status"], "input_required", "{status}");
    tokio::time::sleep(Duration::from_secs(31)).await;
    let mut failed = Value::Null;
    for _ in 0..20 {
        failed = send(&server, "alice", "tasks/get", get.clone()).await.unwrap();
        if failed["status"] == "failed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(failed["status"], "failed", "{failed}");
    let message = failed["statusMessage"].as_str().unwrap_or_default();
    assert!(message.contains("nobody answered `overwrite`") && message.contains("input_timeout"), "{message}");
}

/// A memory store that remembers the owner of each record it was given.
#[derive(Default)]
struct Recording {
    inner: roundtrip::task::MemoryStore,
    owners: std::sync::Mutex<Vec<Option<String>>>,
}

impl roundtrip::task::TaskStore for Recording {
    fn create(
        &self,
        record: roundtrip::task::TaskRecord,
    ) -> futures::future::BoxFuture<'_, Result<(), roundtrip::task::StoreError>> {
        self.owners.lock().unwrap().push(record.owner.clone());
        self.inner.create(record)
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<Option<roundtrip::task::TaskRecord>, roundtrip::task::StoreError>> {
        self.inner.get(id)
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut roundtrip::task::TaskRecord) -> bool + Send + Sync),
    ) -> futures::future::BoxFuture<'a, Result<Option<roundtrip::task::TaskRecord>, roundtrip::task::StoreError>> {
        self.inner.modify(id, change)
    }

    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        self.inner.watch(id)
    }
}

#[tokio::test]
async fn a_store_keeps_a_salted_digest_of_the_owner_not_the_principal() {
    let store = Arc::new(Recording::default());
    let server = Server::new("quotas", "1").tools(tools![backup]).task_store(store.clone());
    let mut ids = Vec::new();
    for _ in 0..2 {
        let state = first_leg(&server, "alice@example.com", "backup").await;
        let task = send(&server, "alice@example.com", "tools/call", call("backup", Some(&state))).await.unwrap();
        ids.push(task["taskId"].as_str().unwrap().to_owned());
    }
    let owners = store.owners.lock().unwrap().clone();
    let owner = owners[0].clone().expect("an owner");
    assert_eq!(owners[1].as_deref(), Some(owner.as_str()), "the same principal, the same digest");
    assert!(!owner.contains("alice"), "{owner}");
    assert!(owner.len() == 64 && owner.bytes().all(|b| b.is_ascii_hexdigit()), "{owner}");
    // The owner still finds its task; nobody else does.
    let get = json!({"taskId": ids[0], "_meta": caps()});
    assert!(send(&server, "alice@example.com", "tasks/get", get.clone()).await.is_ok());
    assert!(send(&server, "bob@example.com", "tasks/get", get).await.is_err());
    // Another server (another name, so another salt) keeps another digest of the same principal.
    let other_store = Arc::new(Recording::default());
    let other = Server::new("other", "1").tools(tools![backup]).task_store(other_store.clone());
    let state = first_leg(&other, "alice@example.com", "backup").await;
    send(&other, "alice@example.com", "tools/call", call("backup", Some(&state))).await.unwrap();
    assert_ne!(other_store.owners.lock().unwrap()[0].as_deref(), Some(owner.as_str()));
}

/// Two rounds: the second question needs the first answer.
#[tool]
async fn two_rounds(
    #[resolve(elicit = "Your story?")] story: String,
    #[resolve(elicit = "Sign it, {story}?")] sign: bool,
) -> String {
    format!("{} bytes, signed {sign}", story.len())
}

#[tokio::test]
async fn an_answer_too_large_to_carry_is_a_clear_error() {
    let server = Server::new("quotas", "1").tools(tools![two_rounds]);
    let leg = |story: String, state: Option<String>| {
        let mut params = json!({"name": "two_rounds", "arguments": {}, "_meta": caps()});
        if let Some(state) = state {
            params["requestState"] = json!(state);
        }
        params["inputResponses"] = json!({"story": {"action": "accept", "content": {"story": story}}});
        params
    };
    let first = send(&server, "alice", "tools/call", json!({"name": "two_rounds", "arguments": {}, "_meta": caps()}));
    let state = first.await.unwrap()["requestState"].as_str().map(str::to_owned);
    // 40 KB is carried to the next round.
    let fits = send(&server, "alice", "tools/call", leg("x".repeat(40_000), state.clone())).await.unwrap();
    assert_eq!(fits["resultType"], "input_required", "{fits}");
    // 60 KB is not: -32602 saying so, not an internal error.
    let error = send(&server, "alice", "tools/call", leg("x".repeat(60_000), state)).await.unwrap_err();
    assert_eq!(error.code, -32602, "{error:?}");
    assert!(error.message.contains("too large to carry to the next round"), "{}", error.message);
    assert_eq!(error.data.unwrap()["limit"], "requestState");
}
