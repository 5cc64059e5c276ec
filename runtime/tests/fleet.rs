//! Servers that share a task store, as replicas do: a task created on one is read, answered
//! and cancelled on another, and a task whose server stopped reads `failed` on another within
//! its lease; expired tasks are gone; a single-use state used on one is refused on another.
//! Every scenario runs against the in-memory store shared in one process (which announces its
//! changes, so parked bodies do not poll it), against the same store made to look like one
//! other processes write (polled) and, with the `redis` feature, against a real
//! `redis-server` (started here on a free loopback port; the test command installs it).

#![allow(clippy::unwrap_used)] // a test fails loudly

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use roundtrip::client::{Client, ClientError, Step};
use roundtrip::prelude::*;
use roundtrip::protocol::{JsonObject, TaskStatus};
use roundtrip::task::{MemoryStore, TaskOptions, TaskStore};
use serde_json::json;

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

fn options(ttl: Duration) -> TaskOptions {
    TaskOptions {
        ttl,
        lease: Duration::from_millis(300),
        watch_interval: Duration::from_millis(20),
        ..TaskOptions::default()
    }
}

fn replica(store: impl TaskStore, ttl: Duration) -> Server {
    Server::new("fleet", "1").task_store(store).task_options(options(ttl)).tools(tools![approve, spin])
}

async fn client(server: Server) -> Client {
    Client::builder("fleet-test", "1")
        .on_elicit(|_| async { Err(ClientError::Callback("driven by hand".into())) })
        .connect_in_memory(server)
        .await
        .unwrap()
}

async fn wait_for(client: &Client, id: &str, done: impl Fn(TaskStatus) -> bool) -> TaskStatus {
    for _ in 0..500 {
        let status = client.get_task(id).await.unwrap().task.task.status;
        if done(status) {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} did not reach the expected status")
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

    fn modify<'a>(&'a self, id: &'a str, change: roundtrip::task::Modify<'a>) -> StoreResult<'a> {
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
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = reads.reads();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_reads = reads.reads() - before;
    assert!(idle_reads < 3, "the parked task read the store {idle_reads} times while idle");
    let mut answer = JsonObject::new();
    answer.insert("approve".into(), json!({"action": "accept", "content": {"approve": true}}));
    b.update_task(&id, answer).await.unwrap();
    assert_eq!(wait_for(&b, &id, |s| s.is_terminal()).await, TaskStatus::Completed);
}

#[tokio::test]
async fn a_parked_task_does_not_poll_a_store_that_announces_changes() {
    let store = Counting::new(true);
    parked_until_answered_elsewhere(store.clone(), store, async {}).await;
}

#[cfg(feature = "redis")]
mod redis {
    use std::process::{Child, Command, Stdio};

    use roundtrip::task::RedisStore;

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

    impl Drop for RedisServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
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
        let cache = || roundtrip::seal::RedisReplayCache::connect(&redis.url);
        replayed_on_another_server(bank(cache().await.unwrap()), bank(cache().await.unwrap())).await;
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

    /// Each replica has its own connections: A's body is woken through Redis pub/sub.
    #[tokio::test]
    async fn redis_a_parked_task_is_woken_by_announcements_not_polling() {
        let redis = RedisServer::start();
        let a = Counting::over(redis.store().await, true);
        parked_until_answered_elsewhere(a, redis.store().await, async {}).await;
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
