//! Servers that share a task store, as replicas do: a task created on one is read, answered
//! and cancelled on another, and a task whose server stopped reads `failed` on another within
//! its lease; expired tasks are gone; a single-use state used on one is refused on another.
//! A runner stops its body as soon as the task is no longer its own: ended by another replica,
//! expired, or its lease not renewed in time; and a store or replay cache that fails is
//! answered "unavailable, retry" (`503` over HTTP), never left hanging.
//! Every scenario runs against the in-memory store shared in one process (which announces its
//! changes, so parked bodies do not poll it), against the same store made to look like one
//! other processes write (polled) and, with the `redis` feature, against a real
//! `redis-server` (started here on a free loopback port; the test command installs it).

#![allow(clippy::unwrap_used)] // a test fails loudly

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::wait_for;
use futures::future::BoxFuture;
use roundtrip::client::{Client, ClientError, Step};
use roundtrip::prelude::*;
use roundtrip::protocol::{JsonObject, TaskStatus};
use roundtrip::task::{MemoryStore, TaskOptions, TaskStore};
use serde_json::json;

/// Works a little (150 ms), then waits for one answer.
#[tool(task)]
async fn approve_later(task: TaskContext) -> Result<String, Error> {
    tokio::time::sleep(Duration::from_millis(150)).await;
    let ok = task.ask_as::<bool>(Question::confirm("Approve?", "approve")).await?;
    Ok(format!("approved: {:?}", ok.accepted()))
}

/// Waits, while running, for one answer.
#[tool(task)]
async fn approve(task: TaskContext) -> Result<String, Error> {
    let ok = task.ask_as::<bool>(Question::confirm("Approve?", "approve")).await?;
    Ok(format!("approved: {:?}", ok.accepted()))
}

/// Runs until cancelled; says so through `flag` when its body is dropped.
#[tool(task)]
async fn spin(flag: String) -> String {
    let _guard = Flag(flag);
    loop {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Works in steps of 10 ms until stopped, counting each step (its side effect) under `flag`;
/// says so through `flag` when its body is dropped.
#[tool(task)]
async fn work(flag: String) -> String {
    let _guard = Flag(flag.clone());
    loop {
        STEPS.lock().unwrap().entry(flag.clone()).and_modify(|n| *n += 1).or_insert(1);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

static STEPS: std::sync::Mutex<std::collections::BTreeMap<String, u64>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

fn steps(flag: &str) -> u64 {
    STEPS.lock().unwrap().get(flag).copied().unwrap_or(0)
}

static STOPPED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

struct Flag(String);

impl Drop for Flag {
    fn drop(&mut self) {
        STOPPED.lock().unwrap().push(std::mem::take(&mut self.0));
    }
}

fn stopped(flag: &str) -> bool {
    STOPPED.lock().unwrap().iter().any(|f| f == flag)
}

/// Whether the body of `flag` was dropped within 3 s (ten times the leases of these tests).
async fn stopped_soon(flag: &str) -> bool {
    for _ in 0..300 {
        if stopped(flag) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// Once stopped, a body takes no further step.
async fn no_more_steps(flag: &str) {
    let at_stop = steps(flag);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(steps(flag), at_stop, "the body of {flag} went on after it was stopped");
}

async fn until_steps(flag: &str, n: u64) {
    for _ in 0..300 {
        if steps(flag) >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the body of {flag} did not run")
}

fn runner_lost(task: &roundtrip::protocol::DetailedTask) -> bool {
    let data = task.error.as_ref().and_then(|e| e.data.as_ref());
    data.and_then(|d| d.get(roundtrip::task::RUNNER_LOST)) == Some(&json!(true))
}

fn options(ttl: Duration) -> TaskOptions {
    TaskOptions {
        ttl,
        lease: Duration::from_millis(300),
        watch_interval: Duration::from_millis(20),
        ..TaskOptions::default()
    }
}

fn replica(store: impl TaskStore, ttl: Duration) -> Server {
    Server::new("fleet", "1").task_store(store).task_options(options(ttl)).tools(tools![approve, spin, work])
}

async fn client(server: Server) -> Client {
    Client::builder("fleet-test", "1")
        .on_elicit(|_| async { Err(ClientError::Callback("driven by hand".into())) })
        .connect_in_memory(server)
        .await
        .unwrap()
}

async fn start(client: &Client, tool: &str, arguments: serde_json::Value) -> String {
    match client.call_tool_step(tool, arguments, None, None).await.unwrap() {
        Step::Task(task) => task.task_id,
        other => panic!("{tool} did not become a task: {other:?}"),
    }
}

/// A store for one scenario; both replicas of the scenario get the same.
trait Stores {
    async fn store(&self) -> impl TaskStore + Clone;
}

async fn answered_on_another_server(stores: &impl Stores) {
    let (a, b) = (client(replica(stores.store().await, HOUR)).await, client(replica(stores.store().await, HOUR)).await);
    let id = start(&a, "approve", json!({})).await;
    wait_for(&b, &id, |s| s == TaskStatus::InputRequired).await;
    let questions = b.get_task(&id).await.unwrap().task.input_requests.unwrap();
    assert_eq!(questions.keys().collect::<Vec<_>>(), ["approve"]);
    let mut answer = JsonObject::new();
    answer.insert("approve".into(), json!({"action": "accept", "content": {"approve": true}}));
    b.update_task(&id, answer).await.unwrap();
    assert_eq!(wait_for(&b, &id, |s| s.is_terminal()).await, TaskStatus::Completed);
    let done = a.get_task(&id).await.unwrap().task;
    assert_eq!(done.result.unwrap()["content"][0]["text"], "approved: Some(true)", "the body on A resumed");
}

async fn cancelled_on_another_server(stores: &impl Stores, flag: &str) {
    let (a, b) = (client(replica(stores.store().await, HOUR)).await, client(replica(stores.store().await, HOUR)).await);
    let id = start(&a, "spin", json!({"flag": flag})).await;
    b.cancel_task(&id).await.unwrap();
    assert_eq!(wait_for(&a, &id, |s| s.is_terminal()).await, TaskStatus::Cancelled);
    assert!(stopped(flag), "the body on A was stopped");
}

fn lost_with_its_server(stores: &(impl Stores + Sync)) {
    let a_runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let id = a_runtime.block_on(async {
        let a = client(replica(stores.store().await, HOUR)).await;
        start(&a, "approve", json!({})).await
    });
    a_runtime.shutdown_background();
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let b = client(replica(stores.store().await, HOUR)).await;
        let started = std::time::Instant::now();
        assert_eq!(wait_for(&b, &id, |s| s.is_terminal()).await, TaskStatus::Failed);
        assert!(started.elapsed() < Duration::from_secs(2), "within the lease (300 ms)");
        assert_eq!(b.get_task(&id).await.unwrap().task.error.unwrap().code, -32603);
    });
}

async fn expired(stores: &impl Stores) {
    let a = client(replica(stores.store().await, Duration::from_millis(300))).await;
    let id = start(&a, "approve", json!({})).await;
    a.get_task(&id).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let err = a.get_task(&id).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602), "{err:?}");
}

const HOUR: Duration = Duration::from_secs(3600);

/// Another replica ended A's task (it took A's runner for lost: its clock runs ahead, or A
/// was paused longer than the lease) while A's runner is alive: A stops the body at once, and
/// A's end does not overwrite the record the other replica wrote.
async fn ended_elsewhere(stores: &impl Stores, flag: &str) {
    let elsewhere = stores.store().await;
    let a = client(replica(stores.store().await, HOUR)).await;
    let id = start(&a, "work", json!({"flag": flag})).await;
    until_steps(flag, 3).await;
    let lost = |r: &mut roundtrip::task::TaskRecord| {
        r.status = TaskStatus::Failed;
        r.error = Some(
            roundtrip::protocol::ErrorObject::internal("the server running this task stopped")
                .with_data(json!({ roundtrip::task::RUNNER_LOST: true })),
        );
        true
    };
    elsewhere.modify(&id, &lost).await.unwrap();
    assert!(stopped_soon(flag).await, "the body on A was stopped once another replica ended its task");
    no_more_steps(flag).await;
    let task = a.get_task(&id).await.unwrap().task;
    assert_eq!(task.task.status, TaskStatus::Failed);
    assert!(runner_lost(&task), "the record another replica wrote stands: {task:?}");
}

/// A store that refuses every renewal of a lease (a change of `lease_until_ms` alone), as a
/// store that A cannot reach while others can would; other changes go through.
#[derive(Clone)]
struct NoRenewals<S> {
    inner: S,
    refused: Arc<std::sync::atomic::AtomicUsize>,
}

impl<S> NoRenewals<S> {
    fn over(inner: S) -> Self {
        Self { inner, refused: Arc::default() }
    }
}

impl<S: TaskStore + Clone> TaskStore for NoRenewals<S> {
    fn create(&self, record: roundtrip::task::TaskRecord) -> BoxFuture<'_, Result<(), roundtrip::task::StoreError>> {
        self.inner.create(record)
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreResult<'a> {
        self.inner.get(id)
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut roundtrip::task::TaskRecord) -> bool + Send + Sync),
    ) -> StoreResult<'a> {
        Box::pin(async move {
            if let Some(current) = self.inner.get(id).await? {
                let mut changed = current.clone();
                change(&mut changed);
                let lease_only =
                    roundtrip::task::TaskRecord { lease_until_ms: current.lease_until_ms, ..changed.clone() };
                if changed.lease_until_ms != current.lease_until_ms && lease_only == current {
                    self.refused.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    return Err(roundtrip::task::StoreError::new("renewal refused (test)"));
                }
            }
            self.inner.modify(id, change).await
        })
    }

    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        self.inner.watch(id)
    }
}

/// A's runner cannot renew its lease: it stops the body before the lease runs out (before B
/// can read the task as failed and a client start the call again), and the task reads failed
/// with its runner lost, on A and on B.
async fn lease_not_renewed(stores: &impl Stores, flag: &str) {
    let refusing = NoRenewals::over(stores.store().await);
    let a = client(replica(refusing.clone(), HOUR)).await;
    let b = client(replica(stores.store().await, HOUR)).await;
    let id = start(&a, "work", json!({"flag": flag})).await;
    assert!(stopped_soon(flag).await, "the body on A was stopped when its lease could not be renewed");
    assert!(refusing.refused.load(std::sync::atomic::Ordering::SeqCst) > 0, "A tried to renew");
    no_more_steps(flag).await;
    assert_eq!(wait_for(&b, &id, |s| s.is_terminal()).await, TaskStatus::Failed);
    let task = b.get_task(&id).await.unwrap().task;
    assert!(runner_lost(&task), "{task:?}");
}

/// A body that would outlive its task's expiry is stopped when the task expires.
async fn outlives_its_expiry(stores: &impl Stores, flag: &str) {
    let a = client(replica(stores.store().await, Duration::from_millis(500))).await;
    let id = start(&a, "work", json!({"flag": flag})).await;
    until_steps(flag, 3).await;
    assert!(stopped_soon(flag).await, "the body on A was stopped when its task expired");
    no_more_steps(flag).await;
    let err = a.get_task(&id).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602), "{err:?}");
}

/// Transfers money: each sealed state is accepted once.
#[tool(single_use)]
async fn transfer(amount: u32, #[resolve(elicit = "Transfer {amount}?")] ok: bool) -> String {
    format!("transferred: {}", if ok { amount } else { 0 })
}

/// Two replicas with shared keys and a shared replay cache.
fn bank(replay: impl roundtrip::seal::ReplayCache) -> Server {
    let keys = roundtrip::RequestStateSecurity::new().keys([*b"roundtrip test key 7: not secret"]);
    Server::new("bank", "1").security(keys).unwrap().replay_cache(replay).tools(tools![transfer])
}

async fn replayed_on_another_server(a: Server, b: Server) {
    let (a, b) = (client(a).await, client(b).await);
    let args = json!({"amount": 100});
    let Step::InputRequired(first) = a.call_tool_step("transfer", args.clone(), None, None).await.unwrap() else {
        panic!("asks first")
    };
    let mut answer = JsonObject::new();
    answer.insert("ok".into(), json!({"action": "accept", "content": {"ok": true}}));
    let state = first.request_state.clone();
    let done = a.call_tool_step("transfer", args.clone(), Some(answer.clone()), state.clone()).await.unwrap();
    assert!(matches!(done, Step::Complete(ref r) if r.content[0].as_text() == Some("transferred: 100")), "{done:?}");
    for replica in [&b, &a] {
        let err =
            replica.call_tool_step("transfer", args.clone(), Some(answer.clone()), state.clone()).await.unwrap_err();
        assert!(
            matches!(&err, ClientError::Rpc(e) if e.code == -32602 && e.message == "Invalid or expired requestState"),
            "{err:?}"
        );
    }
}

#[tokio::test]
async fn memory_a_single_use_state_is_refused_when_replayed() {
    let cache = Arc::new(roundtrip::seal::MemoryReplayCache::new());
    replayed_on_another_server(bank(cache.clone()), bank(cache)).await;
}

/// One in-memory store shared by the replicas of a scenario.
struct Memory(Arc<MemoryStore>);

impl Stores for Memory {
    async fn store(&self) -> impl TaskStore + Clone {
        self.0.clone()
    }
}

fn memory() -> Memory {
    Memory(Arc::new(MemoryStore::new()))
}

#[tokio::test]
async fn memory_a_task_is_answered_on_another_server() {
    answered_on_another_server(&memory()).await;
}

#[tokio::test]
async fn memory_a_task_is_cancelled_on_another_server() {
    cancelled_on_another_server(&memory(), "memory-cancel").await;
}

#[test]
fn memory_a_task_whose_server_stopped_fails_within_its_lease() {
    lost_with_its_server(&memory());
}

#[tokio::test]
async fn memory_an_expired_task_is_gone() {
    expired(&memory()).await;
}

#[tokio::test]
async fn memory_a_body_stops_when_another_replica_ends_its_task() {
    ended_elsewhere(&memory(), "memory-ended-elsewhere").await;
}

#[tokio::test]
async fn memory_a_body_stops_when_its_lease_cannot_be_renewed() {
    lease_not_renewed(&memory(), "memory-not-renewed").await;
}

#[tokio::test]
async fn memory_a_body_stops_when_its_task_expires() {
    outlives_its_expiry(&memory(), "memory-expiry").await;
}

/// A store that counts its reads. Over the in-memory store it stands for one that other
/// processes write too: it announces no change unless told to, so the replicas fall back to
/// polling it.
#[derive(Clone)]
struct Counting<S = Arc<MemoryStore>> {
    inner: S,
    reads: Arc<std::sync::atomic::AtomicUsize>,
    announces: bool,
}

impl Counting {
    fn new(announces: bool) -> Self {
        Self::over(Arc::new(MemoryStore::new()), announces)
    }
}

impl<S> Counting<S> {
    fn over(inner: S, announces: bool) -> Self {
        Self { inner, reads: Arc::default(), announces }
    }

    fn reads(&self) -> usize {
        self.reads.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl<S: TaskStore + Clone> TaskStore for Counting<S> {
    fn create(&self, record: roundtrip::task::TaskRecord) -> BoxFuture<'_, Result<(), roundtrip::task::StoreError>> {
        self.inner.create(record)
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreResult<'a> {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.get(id)
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut roundtrip::task::TaskRecord) -> bool + Send + Sync),
    ) -> StoreResult<'a> {
        self.inner.modify(id, change)
    }

    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        if self.announces { self.inner.watch(id) } else { None }
    }
}

type StoreResult<'a> = BoxFuture<'a, Result<Option<roundtrip::task::TaskRecord>, roundtrip::task::StoreError>>;

impl Stores for Counting {
    async fn store(&self) -> impl TaskStore + Clone {
        self.clone()
    }
}

#[tokio::test]
async fn polled_a_task_is_answered_on_another_server() {
    answered_on_another_server(&Counting::new(false)).await;
}

#[tokio::test]
async fn polled_a_task_is_cancelled_on_another_server() {
    cancelled_on_another_server(&Counting::new(false), "polled-cancel").await;
}

#[tokio::test]
async fn polled_a_body_stops_when_another_replica_ends_its_task() {
    ended_elsewhere(&Counting::new(false), "polled-ended-elsewhere").await;
}

#[tokio::test]
async fn polled_a_body_stops_when_its_lease_cannot_be_renewed() {
    lease_not_renewed(&Counting::new(false), "polled-not-renewed").await;
}

/// A task parked on A, whose store announces changes, reads nothing while nothing happens
/// (polling every 10 ms would read about 50 times in the half second watched), and still
/// wakes at once when it is answered on B: long before its lease is renewed (every 20 s),
/// which is the only other time it reads its record. `meanwhile` runs once the task is parked.
async fn parked_until_answered_elsewhere(
    a: Counting<impl TaskStore + Clone>,
    b: impl TaskStore,
    meanwhile: impl Future<Output = ()>,
) {
    fn parked(store: impl TaskStore) -> Server {
        let idle =
            TaskOptions { lease: Duration::from_secs(60), watch_interval: Duration::from_millis(10), ..options(HOUR) };
        Server::new("fleet", "1").task_store(store).task_options(idle).tools(tools![approve, spin])
    }
    let reads = a.clone();
    let (a, b) = (client(parked(a)).await, client(parked(b)).await);
    let id = start(&a, "approve", json!({})).await;
    wait_for(&b, &id, |s| s == TaskStatus::InputRequired).await;
    meanwhile.await;
    // Settled: no read for 100 ms (a loaded machine may still be parking the task). Load only
    // lowers a polling loop's reads, so the count below cannot fail for want of CPU; a loop
    // that polled every 10 ms would read about 50 times, and would never settle.
    let mut settled = false;
    for _ in 0..50 {
        let before = reads.reads();
        tokio::time::sleep(Duration::from_millis(100)).await;
        if reads.reads() == before {
            settled = true;
            break;
        }
    }
    assert!(settled, "the parked task kept reading the store for 5 s");
    let before = reads.reads();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_reads = reads.reads() - before;
    assert!(idle_reads < 3, "the parked task read the store {idle_reads} times while idle");
    let mut answer = JsonObject::new();
    answer.insert("approve".into(), json!({"action": "accept", "content": {"approve": true}}));
    b.update_task(&id, answer).await.unwrap();
    assert_eq!(wait_for(&b, &id, |s| s.is_terminal()).await, TaskStatus::Completed);
}

/// A store that fails every operation while it is down, as an unreachable Redis does.
#[derive(Clone)]
struct Failing<S> {
    inner: S,
    down: Arc<std::sync::atomic::AtomicBool>,
}

impl<S> Failing<S> {
    fn over(inner: S) -> Self {
        Self { inner, down: Arc::default() }
    }

    fn set_down(&self, down: bool) {
        self.down.store(down, std::sync::atomic::Ordering::SeqCst);
    }

    fn check(&self) -> Result<(), roundtrip::task::StoreError> {
        if self.down.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(roundtrip::task::StoreError::new("down (test)"));
        }
        Ok(())
    }
}

impl<S: TaskStore + Clone> TaskStore for Failing<S> {
    fn create(&self, record: roundtrip::task::TaskRecord) -> BoxFuture<'_, Result<(), roundtrip::task::StoreError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.create(record).await
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreResult<'a> {
        Box::pin(async move {
            self.check()?;
            self.inner.get(id).await
        })
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut roundtrip::task::TaskRecord) -> bool + Send + Sync),
    ) -> StoreResult<'a> {
        Box::pin(async move {
            self.check()?;
            self.inner.modify(id, change).await
        })
    }

    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        self.inner.watch(id)
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), roundtrip::task::StoreError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.ready().await
        })
    }
}

/// A raw 2026-07-28 request over HTTP from a client that declares the tasks extension.
async fn post(url: &str, method: &str, name: &str, mut params: serde_json::Value) -> reqwest::Response {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "fleet-test", "version": "1"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// `503`, `Retry-After: 2` and a JSON-RPC error naming what is unavailable, without the
/// store's own words (they go to the log).
async fn unavailable(response: reqwest::Response, what: &str) {
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("2"));
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32000, "{body}");
    assert_eq!(body["error"]["data"]["unavailable"], what, "{body}");
    assert!(!body.to_string().contains("down (test)"), "the reason stays in the log: {body}");
}

async fn serve(server: Server) -> String {
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    url
}

/// A store that fails makes what needs it answer `503` with `Retry-After` (which the client's
/// retry rule acts on for idempotent calls), the server not ready; and all of it comes back
/// with the store.
#[tokio::test]
async fn a_failing_task_store_is_answered_503_and_the_server_is_not_ready() {
    let store = Failing::over(Arc::new(MemoryStore::new()));
    let server = replica(store.clone(), HOUR);
    let url = serve(server.clone()).await;
    assert!(server.ready().await.is_ok());
    store.set_down(true);
    assert!(server.ready().await.is_err(), "not ready while the store fails");
    unavailable(
        post(&url, "tools/call", "work", json!({"name": "work", "arguments": {"flag": "x"}})).await,
        "task_store",
    )
    .await;
    unavailable(post(&url, "tasks/get", "t1", json!({"taskId": "t1"})).await, "task_store").await;
    // The Rust client does not send a call that is not idempotent again, and says why.
    let c = Client::builder("fleet-test", "1").connect_http(&url).await.unwrap();
    let err = c.call_tool_step("work", json!({"flag": "x"}), None, None).await.unwrap_err();
    assert!(matches!(err, ClientError::Unavailable { status: 503, retry_after: Some(2) }), "{err:?}");
    // In memory (or over stdio) the same error, in band.
    let err = client(server.clone()).await.call_tool_step("work", json!({"flag": "x"}), None, None).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.is_unavailable()), "{err:?}");
    store.set_down(false);
    assert!(server.ready().await.is_ok());
    let flag = "failing-store-back";
    let started = c.call_tool_step("work", json!({"flag": flag}), None, None).await.unwrap();
    assert!(matches!(started, Step::Task(_)), "{started:?}");
    until_steps(flag, 1).await;
}

/// A replay cache that fails (or hangs): a single-use state is not accepted (fail closed), but
/// the caller is told to retry (`503`), not that the state is invalid.
#[tokio::test]
async fn a_failing_replay_cache_is_answered_503_not_invalid_state() {
    struct Down;
    impl roundtrip::seal::ReplayCache for Down {
        fn first_use<'a>(
            &'a self,
            _: &'a [u8; 32],
            _: u64,
        ) -> BoxFuture<'a, Result<bool, Box<dyn std::error::Error + Send + Sync>>> {
            Box::pin(async { Err("down (test)".into()) })
        }
    }
    let server = bank(Down);
    let args = json!({"amount": 100});
    let mut answer = JsonObject::new();
    answer.insert("ok".into(), json!({"action": "accept", "content": {"ok": true}}));
    let memory = client(server.clone()).await;
    let Step::InputRequired(first) = memory.call_tool_step("transfer", args.clone(), None, None).await.unwrap() else {
        panic!("asks first")
    };
    let state = first.request_state.clone();
    let err = memory.call_tool_step("transfer", args.clone(), Some(answer.clone()), state.clone()).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.is_unavailable() && !e.message.contains("down (test)")), "{err:?}");
    let url = serve(server).await;
    let mut params = json!({"name": "transfer", "arguments": args, "requestState": state, "inputResponses": answer});
    unavailable(post(&url, "tools/call", "transfer", params.take()).await, "replay_cache").await;
}

/// A store away for less than the lease loses no task: the running body's writes (its
/// question) are tried again, its lease is renewed once the store is back, and it finishes.
#[tokio::test]
async fn a_store_outage_shorter_than_the_lease_loses_no_task() {
    let shared = Arc::new(MemoryStore::new());
    let failing = Failing::over(shared.clone());
    let long_lease = TaskOptions { lease: Duration::from_secs(3), ..options(HOUR) };
    let a = Server::new("fleet", "1").task_store(failing.clone()).task_options(long_lease).tools(tools![approve_later]);
    let (a, b) = (client(a).await, client(replica(shared, HOUR)).await);
    let id = start(&a, "approve_later", json!({})).await;
    failing.set_down(true);
    let err = a.get_task(&id).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.is_unavailable()), "{err:?}");
    tokio::time::sleep(Duration::from_millis(400)).await; // the body asks meanwhile
    failing.set_down(false);
    wait_for(&b, &id, |s| s == TaskStatus::InputRequired).await;
    let mut answer = JsonObject::new();
    answer.insert("approve".into(), json!({"action": "accept", "content": {"approve": true}}));
    b.update_task(&id, answer).await.unwrap();
    assert_eq!(wait_for(&b, &id, |s| s.is_terminal()).await, TaskStatus::Completed);
    let done = b.get_task(&id).await.unwrap().task;
    assert_eq!(done.result.unwrap()["content"][0]["text"], "approved: Some(true)");
}

#[tokio::test]
async fn a_parked_task_does_not_poll_a_store_that_announces_changes() {
    let store = Counting::new(true);
    parked_until_answered_elsewhere(store.clone(), store, async {}).await;
}

#[cfg(feature = "redis")]
mod redis {
    use std::process::{Child, Command, Stdio};

    use roundtrip::redis::RedisStore;

    use super::*;

    /// A `redis-server` of this test on a free loopback port, stopped when dropped.
    struct RedisServer {
        child: Child,
        url: String,
    }

    impl RedisServer {
        fn start() -> Self {
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .spawn()
                .expect("redis-server must be installed (the test command installs Debian's redis-server)");
            // Owned from here on: dropped (killed and waited for) on every path.
            let server = Self { child, url: format!("redis://127.0.0.1:{port}/") };
            for _ in 0..200 {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return server;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            panic!("redis-server did not listen on port {port}");
        }
    }

    impl RedisServer {
        /// Send the server a signal: `STOP` pauses it (its connections stay open and hang, as
        /// in a network partition), `CONT` resumes it.
        fn signal(&self, signal: &str) {
            let sent = Command::new("kill").args([format!("-{signal}"), self.child.id().to_string()]).status();
            assert!(sent.is_ok_and(|s| s.success()), "kill -{signal}");
        }
    }

    impl Drop for RedisServer {
        fn drop(&mut self) {
            let _ = Command::new("kill").args(["-CONT".to_owned(), self.child.id().to_string()]).status();
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// Offered once the quarter closes: registered at run time.
    #[tool(read_only)]
    async fn quarterly() -> &'static str {
        "q3 numbers"
    }

    /// A replica of a fleet on `redis`: nothing of its own, `quarterly` held for run time.
    async fn bus_replica(redis: &RedisServer) -> Server {
        let bus = roundtrip::redis::RedisBus::connect(&redis.url).await.unwrap();
        Server::new("fleet", "1.0.0").standby_tools(tools![quarterly]).bus(bus)
    }

    /// Whether `server` is ready within 5 s.
    async fn ready_soon(server: &Server, ready: bool) -> bool {
        for _ in 0..50 {
            if server.ready().await.is_ok() == ready {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }

    /// The next event of an SSE stream that names `method`, within `within`.
    async fn next_event(
        stream: &mut (impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin),
        method: &str,
        within: Duration,
    ) -> Option<Duration> {
        use futures::StreamExt as _;
        let started = std::time::Instant::now();
        while let Ok(Some(chunk)) = tokio::time::timeout(within.saturating_sub(started.elapsed()), stream.next()).await
        {
            if String::from_utf8_lossy(&chunk.unwrap()).contains(method) {
                return Some(started.elapsed());
            }
        }
        None
    }

    /// Two replicas on one Redis: a tool registered on A while B holds a
    /// `subscriptions/listen` stream and a 2025-era GET stream open over HTTP is announced on
    /// both within a
    /// second and listed by B, and by a replica started after; with Redis paused, B is not ready (and a registration on A
    /// returns at once), and once Redis is back, B is ready again and hears of what A did
    /// meanwhile.
    #[tokio::test]
    async fn redis_a_tool_registered_on_one_replica_is_announced_on_a_stream_held_on_another() {
        let redis = RedisServer::start();
        let (a, b) = (bus_replica(&redis).await, bus_replica(&redis).await);
        let http = b.clone().bind_http("127.0.0.1:0").await.unwrap();
        let url = http.url();
        tokio::spawn(http.run());
        assert!(ready_soon(&b, true).await, "B reads the bus");

        const V: &str = "2026-07-28";
        let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}},
            "notifications": {"toolsListChanged": true}}});
        let http_client = reqwest::Client::new();
        let opened = http_client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", V)
            .header("Mcp-Method", "subscriptions/listen")
            .body(listen.to_string())
            .send()
            .await
            .unwrap();
        let mut stream = opened.bytes_stream();
        let acknowledged = next_event(&mut stream, "notifications/subscriptions/acknowledged", Duration::from_secs(5));
        assert!(acknowledged.await.is_some());
        // And a 2025-era session's GET stream on B.
        const LEGACY: &str = "2025-06-18";
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
        let initialized = http_client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.to_string())
            .send()
            .await
            .unwrap();
        let session = initialized.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let opened = http_client
            .get(&url)
            .header("accept", "text/event-stream")
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", LEGACY)
            .send()
            .await
            .unwrap();
        assert_eq!(opened.status().as_u16(), 200);
        let mut legacy = opened.bytes_stream();

        a.add_tools(tools![quarterly]).unwrap();
        let heard = next_event(&mut stream, "notifications/tools/list_changed", Duration::from_secs(1)).await;
        let heard = heard.expect("B's stream heard of A's tool within a second");
        eprintln!("announced on B's stream {heard:?} after A registered");
        let heard = next_event(&mut legacy, "notifications/tools/list_changed", Duration::from_secs(1)).await;
        assert!(heard.is_some(), "B's 2025-era GET stream heard of it too");
        let names =
            |server: Server| async move { server.tool_defs().into_iter().map(|d| d.tool.name).collect::<Vec<_>>() };
        assert_eq!(names(b.clone()).await, ["quarterly"]);
        // A replica started now has it from the kept registrations.
        let c = bus_replica(&redis).await;
        assert!(ready_soon(&c, true).await);
        assert_eq!(names(c).await, ["quarterly"]);

        // Redis hangs: B is not ready; A's change waits for it, and nothing waits on it.
        redis.signal("STOP");
        assert!(ready_soon(&b, false).await, "not ready while the bus delivers nothing");
        let removing = std::time::Instant::now();
        assert!(a.remove_tool("quarterly"));
        assert!(removing.elapsed() < Duration::from_millis(100), "registering does not wait on Redis");
        redis.signal("CONT");
        assert!(ready_soon(&b, true).await, "ready again once Redis answers");
        let heard = next_event(&mut stream, "notifications/tools/list_changed", Duration::from_secs(5)).await;
        assert!(heard.is_some(), "what A did during the outage reached B's stream after it");
        assert!(names(b.clone()).await.is_empty());
    }

    impl Stores for RedisServer {
        async fn store(&self) -> impl TaskStore + Clone {
            // Each replica connects on its own, as separate processes would.
            RedisStore::connect(&self.url).await.unwrap()
        }
    }

    #[tokio::test]
    async fn redis_a_single_use_state_is_refused_when_replayed_on_another_replica() {
        let redis = RedisServer::start();
        let cache = || roundtrip::redis::RedisReplayCache::connect(&redis.url);
        replayed_on_another_server(bank(cache().await.unwrap()), bank(cache().await.unwrap())).await;
    }

    #[tokio::test]
    async fn redis_a_used_state_is_forgotten_when_it_expires() {
        use roundtrip::seal::ReplayCache;
        let redis = RedisServer::start();
        let cache = roundtrip::redis::RedisReplayCache::connect(&redis.url).await.unwrap();
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
        let digest = [7u8; 32];
        let expires = now + 300;
        assert!(cache.first_use(&digest, expires).await.unwrap(), "first use");
        assert!(!cache.first_use(&digest, expires).await.unwrap(), "a replay before expiry");
        // Redis drops the key at its PXAT: wait until well past it (no upper bound is checked).
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert!(cache.first_use(&digest, now + 60_000).await.unwrap(), "forgotten once expired");
        let keys: Vec<String> = {
            let client = ::redis::Client::open(redis.url.as_str()).unwrap();
            let mut c = client.get_multiplexed_async_connection().await.unwrap();
            ::redis::cmd("KEYS").arg("roundtrip:used:*").query_async(&mut c).await.unwrap()
        };
        assert_eq!(keys.len(), 1, "one key, for the live use: {keys:?}");
    }

    #[tokio::test]
    async fn redis_a_task_is_answered_on_another_server() {
        answered_on_another_server(&RedisServer::start()).await;
    }

    #[tokio::test]
    async fn redis_a_task_is_cancelled_on_another_server() {
        cancelled_on_another_server(&RedisServer::start(), "redis-cancel").await;
    }

    #[test]
    fn redis_a_task_whose_server_stopped_fails_within_its_lease() {
        lost_with_its_server(&RedisServer::start());
    }

    #[tokio::test]
    async fn redis_an_expired_task_is_gone() {
        expired(&RedisServer::start()).await;
    }

    #[tokio::test]
    async fn redis_a_body_stops_when_another_replica_ends_its_task() {
        ended_elsewhere(&RedisServer::start(), "redis-ended-elsewhere").await;
    }

    #[tokio::test]
    async fn redis_a_body_stops_when_its_lease_cannot_be_renewed() {
        lease_not_renewed(&RedisServer::start(), "redis-not-renewed").await;
    }

    #[tokio::test]
    async fn redis_a_body_stops_when_its_task_expires() {
        outlives_its_expiry(&RedisServer::start(), "redis-expiry").await;
    }

    /// Each replica has its own connections: A's body is woken through Redis pub/sub.
    #[tokio::test]
    async fn redis_a_parked_task_is_woken_by_announcements_not_polling() {
        let redis = RedisServer::start();
        let a = Counting::over(redis.store().await, true);
        parked_until_answered_elsewhere(a, redis.store().await, async {}).await;
    }

    /// A Redis that hangs (paused: its connections stay open and nothing answers) fails each
    /// operation within the timeouts instead of holding it, readiness says so, and both come
    /// back when it resumes.
    #[tokio::test]
    async fn redis_a_paused_redis_fails_operations_in_time_and_readiness_follows() {
        let redis = RedisServer::start();
        let store = RedisStore::connect(&redis.url).await.unwrap();
        let server = replica(store.clone(), HOUR);
        assert!(server.ready().await.is_ok());
        redis.signal("STOP");
        let paused = std::time::Instant::now();
        assert!(store.get("missing").await.is_err(), "no answer is an error");
        assert!(server.ready().await.is_err(), "not ready while Redis hangs");
        let c = client(server.clone()).await;
        let err = c.get_task("missing").await.unwrap_err();
        assert!(matches!(&err, ClientError::Rpc(e) if e.is_unavailable()), "{err:?}");
        assert!(paused.elapsed() < Duration::from_secs(10), "each failed within its timeout: {:?}", paused.elapsed());
        redis.signal("CONT");
        let mut ready = false;
        for _ in 0..50 {
            if server.ready().await.is_ok() {
                ready = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(ready, "ready again once Redis answers");
        assert_eq!(store.get("missing").await.unwrap(), None);
    }

    /// A subscription that hangs (Redis paused) is noticed by its `PING`: A's parked task reads
    /// its record meanwhile, and once Redis is back and A subscribed again, waits for
    /// announcements again (the parked check after `meanwhile`).
    #[tokio::test]
    async fn redis_a_parked_task_outlives_a_hung_subscription() {
        let redis = RedisServer::start();
        let a = Counting::over(redis.store().await, true);
        let reads = a.clone();
        let pause = async {
            let before = reads.reads();
            redis.signal("STOP");
            // A PING every 2 s, answered within 1 s: the hang is noticed within 3 s.
            tokio::time::sleep(Duration::from_millis(4500)).await;
            let during = reads.reads() - before;
            redis.signal("CONT");
            assert!(during > 0, "the task looked at its record once its announcements stopped");
            tokio::time::sleep(Duration::from_millis(2000)).await;
        };
        parked_until_answered_elsewhere(a, redis.store().await, pause).await;
    }

    /// When A's subscription drops, its parked task reads its record and polls; once A has
    /// subscribed again (half a second later) it waits for announcements again.
    #[tokio::test]
    async fn redis_a_parked_task_outlives_a_dropped_subscription() {
        let redis = RedisServer::start();
        let a = Counting::over(redis.store().await, true);
        let reads = a.clone();
        let drop_subscriptions = async {
            let killed = Command::new("redis-cli")
                .args(["-u", &redis.url, "CLIENT", "KILL", "TYPE", "pubsub"])
                .output()
                .expect("redis-cli comes with redis-server");
            assert_eq!(String::from_utf8_lossy(&killed.stdout).trim(), "2", "A's and B's subscriptions");
            let before = reads.reads();
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert!(reads.reads() - before > 5, "the task polls while nothing is announced");
            tokio::time::sleep(Duration::from_millis(1000)).await;
        };
        parked_until_answered_elsewhere(a, redis.store().await, drop_subscriptions).await;
    }
}
