//! The tasks extension (`io.modelcontextprotocol/tasks`): long work answered with a task
//! handle that the client polls, answers and cancels.
//!
//! A `#[tool(task)]` asks its declared questions first, through multi-round trips (no task
//! exists yet); then its body runs as a task in the background. Inside, the body asks more
//! with [`TaskContext::ask`], which moves the task to `input_required` until `tasks/update`
//! answers; progress becomes the task's status message; `tasks/cancel` stops the body.
//!
//! Tasks live in a [`TaskStore`]: [`MemoryStore`] by default (one process). A shared store
//! lets any replica answer `tasks/get`, `tasks/update` and `tasks/cancel` for a task running
//! on another: answers and cancellation reach the running body through the store, which the
//! body's replica watches; a replica renews a lease on each task it runs, and a task whose
//! lease ran out (its replica died) reads as `failed`.
//!
//! A runner keeps its body only while the task is its own: once another replica ended the task
//! (it took the task for lost), the task expired, or the runner could not renew its lease before
//! the lease ran out (the store was unreachable), the body is stopped before it does anything
//! more, and what it would have written is not recorded. A store that fails or does not answer
//! ([`TaskOptions::store_timeout`]) makes `tasks/*` and task-creating calls answer `-32000` with
//! `data.unavailable = "task_store"` (HTTP `503` with `Retry-After`); a running body's own
//! reads and writes are tried again while its lease holds.

mod context;
mod events;
mod memory;
mod quota;
mod store;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

pub use context::TaskContext;
pub(crate) use context::TaskLink;
#[doc(hidden)]
pub use events::Observed;
pub use memory::MemoryStore;
use store::Modify;
pub use store::{StoreError, TaskRecord, TaskStore};

use crate::clock::{Clock, system_ms};
use crate::protocol::{CallToolResult, ErrorObject, JsonObject, Task, TaskProgress, TaskStatus};

pub use crate::protocol::RUNNER_LOST;

/// How long tasks live, how often clients should poll, and how many a server holds.
///
/// ```
/// use std::time::Duration;
/// use roundtrip::task::TaskOptions;
///
/// let options = TaskOptions { max_tasks_per_caller: 50, input_timeout: Duration::from_secs(120), ..TaskOptions::default() };
/// let server = roundtrip::Server::new("demo", "1.0.0").task_options(options);
/// # drop(server);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskOptions {
    /// How long a task is kept after it is created (`ttlMs`; default one hour).
    pub ttl: Duration,
    /// How often clients should poll (`pollIntervalMs`; default 500 ms).
    pub poll_interval: Duration,
    /// How long a task's runner vouches for it between renewals (default 15 s): a task whose
    /// replica died reads as `failed` at most this long after.
    pub lease: Duration,
    /// How often a running body looks at the store for answers and cancellation that another
    /// replica wrote (default 100 ms; changes made in this process wake it at once). Unused
    /// with a store that announces its changes ([`TaskStore::watch`], e.g. [`MemoryStore`]).
    pub watch_interval: Duration,
    /// The most tasks this server runs at once (default 10 000). A task holds its slot from
    /// its creation until its body ends (completed, failed or cancelled); its record and result
    /// are then kept for the client until they expire ([`ttl`](Self::ttl)), holding no slot. A
    /// call that would create one more is answered `-32000` with `data.limit = "max_tasks"`.
    /// With a parked task costing about 20 KB, the default stays within a few hundred
    /// megabytes.
    pub max_tasks: usize,
    /// The most tasks one caller has held at once (default 1 000), so that one caller cannot
    /// take every slot of [`max_tasks`](Self::max_tasks): `-32000` with
    /// `data.limit = "max_tasks_per_caller"`. The caller is
    /// [`RequestContext::caller`](crate::server::RequestContext::caller): the authenticated caller's
    /// identity; without one, its HTTP client address (behind a trusted proxy, the one it
    /// forwarded; an IPv6 address by its /64); over stdio, the one client.
    pub max_tasks_per_caller: usize,
    /// How long a task waits for an answer once it asked ([`TaskContext::ask`], status
    /// `input_required`) before it fails saying nobody answered (default 10 minutes, less than
    /// [`ttl`](Self::ttl)): a parked task holds its body in memory, so a client that never
    /// answers does not hold it for the task's whole life.
    pub input_timeout: Duration,
    /// The longest one operation of the task store may take (default 5 s; a store may set
    /// shorter timeouts of its own, as `RedisStore` does): past it the operation fails as if
    /// the store were unreachable, so a store that hangs never holds a request or a runner.
    pub store_timeout: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            lease: Duration::from_secs(15),
            watch_interval: Duration::from_millis(100),
            max_tasks: 10_000,
            max_tasks_per_caller: 1_000,
            input_timeout: Duration::from_secs(600),
            store_timeout: Duration::from_secs(5),
        }
    }
}

/// The server's side of the extension: the store, the options, the changes this process saw
/// (for `notifications/tasks` streams) and a wake-up for each body running in this process.
#[derive(Clone)]
#[doc(hidden)]
pub struct Tasks {
    store: Arc<dyn TaskStore>,
    pub options: TaskOptions,
    changes: broadcast::Sender<String>,
    /// One per running body, by task id: whoever changes a task in this process (or the
    /// body's watcher, seeing a change made elsewhere) wakes that body and no other, so parked
    /// tasks cost nothing while nothing happens to them.
    wakes: Arc<Mutex<HashMap<String, watch::Sender<()>>>>,
    /// Bodies running in this process, and a wake-up when one ends (for draining).
    running: Arc<(std::sync::atomic::AtomicUsize, tokio::sync::Notify)>,
    /// The tasks this process created and holds, by caller.
    quota: Arc<quota::Quota>,
    /// What owners are salted with before they are stored (see [`Tasks::owner_digest`]).
    owner_salt: Arc<str>,
    /// Every change and progress report, for whoever observes them.
    events: events::Events,
    /// The time, in Unix milliseconds (the system's, or a simulated one: `Server::clock`).
    clock: Clock,
    /// Once cancelled, every body, runner and watcher of this process stops at its current
    /// await and nothing more is written, as if the process died (`Server::halt_on`, tests).
    halt: CancellationToken,
}

/// `-32602` for a task that is not there (or not the caller's, which must look the same).
fn not_found() -> ErrorObject {
    ErrorObject::invalid_params("Failed to retrieve task: Task not found")
}

/// A store that failed, as the caller is told: retry later (`503` over HTTP). Why it failed
/// goes to the log only.
fn store_failed(e: StoreError) -> ErrorObject {
    tracing::warn!(target: "roundtrip::task", "{}", crate::protocol::error_chain(&e));
    ErrorObject::unavailable("task_store", "The task store is unavailable; retry later")
}

/// Fail a task whose runner is gone (or no longer holds it): `failed`, with
/// `data.taskRunnerLost`, which tells a client that an idempotent call may be started again.
fn fail_lost(r: &mut TaskRecord) {
    r.status = TaskStatus::Failed;
    r.status_message = Some("the server running this task stopped".into());
    r.error = Some(
        ErrorObject::internal("the server running this task stopped before it finished")
            .with_data(serde_json::json!({ RUNNER_LOST: true })),
    );
    r.pending.clear();
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks").field("options", &self.options).finish_non_exhaustive()
    }
}

impl Tasks {
    /// The tasks of the server named `server`, kept in `store`.
    pub(crate) fn new(store: Arc<dyn TaskStore>, options: TaskOptions, server: &str) -> Self {
        let (changes, _) = broadcast::channel(1024);
        Self {
            store,
            options,
            changes,
            wakes: Arc::default(),
            running: Arc::default(),
            quota: Arc::default(),
            owner_salt: server.into(),
            events: events::Events::default(),
            clock: system_ms(),
            halt: CancellationToken::new(),
        }
    }

    /// The time, in Unix milliseconds.
    pub(crate) fn now(&self) -> u64 {
        (self.clock)()
    }

    /// Read the time from `clock` (a simulation's).
    pub(crate) fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
    }

    /// Stop every body, runner and watcher of this process once `halt` is cancelled.
    pub(crate) fn set_halt(&mut self, halt: CancellationToken) {
        self.halt = halt;
    }

    /// Spawn `work` of a task, dropped at its current await once the process halts.
    fn spawn_halting<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> tokio::task::JoinHandle<Option<T>> {
        let halt = self.halt.clone();
        tokio::spawn(async move {
            tokio::select! {
                biased;
                () = halt.cancelled() => None,
                done = work => Some(done),
            }
        })
    }

    /// Every change of a task record and every progress report in this process, from now on.
    #[doc(hidden)]
    pub fn observe(&self) -> tokio::sync::broadcast::Receiver<Observed> {
        self.events.subscribe()
    }

    /// A body reported progress.
    pub(crate) fn progressed(&self, id: &str, progress: Option<TaskProgress>, message: &str) {
        self.events.emit(|| Observed::Progress {
            task_id: id.to_owned(),
            progress: progress.map_or(0.0, |p| p.progress),
            total: progress.and_then(|p| p.total),
            message: Some(message.to_owned()),
        });
    }

    /// The same tasks in another store.
    pub(crate) fn with_store(&self, store: Arc<dyn TaskStore>) -> Self {
        let mut tasks = Self::new(store, self.options, &self.owner_salt);
        tasks.clock = self.clock.clone();
        tasks.halt = self.halt.clone();
        tasks
    }

    /// What a record keeps of its owner: a digest of the principal salted with the server's
    /// name, so that who owns a task is not written in the store (a shared Redis) in clear. The
    /// salt is not secret: a store's readers can still test a guessed identity, so a store
    /// needs access control of its own.
    fn owner_digest(&self, owner: Option<&str>) -> Option<String> {
        use sha2::{Digest, Sha256};
        let owner = owner?;
        let mut h = Sha256::new();
        h.update(b"roundtrip/task-owner\0");
        h.update(self.owner_salt.as_bytes());
        h.update(b"\0");
        h.update(owner.as_bytes());
        Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Wait until no task body runs in this process, or `within` passed; how many still run.
    pub(crate) async fn drain(&self, within: Duration) -> usize {
        use std::sync::atomic::Ordering;
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let ended = self.running.1.notified();
            let left = self.running.0.load(Ordering::SeqCst);
            if left == 0 {
                return 0;
            }
            if tokio::time::timeout_at(deadline, ended).await.is_err() {
                return self.running.0.load(Ordering::SeqCst);
            }
        }
    }

    /// Task ids changed in this process, for `notifications/tasks` streams.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.changes.subscribe()
    }

    /// Announce a change of task `id` to the streams, and wake its body if it runs here.
    fn changed(&self, id: &str) {
        // No stream listening is not an error.
        let _ = self.changes.send(id.to_owned());
        if let Ok(wakes) = self.wakes.lock()
            && let Some(wake) = wakes.get(id)
        {
            wake.send_replace(());
        }
    }

    /// The wake-up of a body starting in this process, until [`ended`](Self::ended).
    fn started(&self, id: &str) -> watch::Receiver<()> {
        let (wake, woken) = watch::channel(());
        if let Ok(mut wakes) = self.wakes.lock() {
            wakes.insert(id.to_owned(), wake);
        }
        woken
    }

    fn ended(&self, id: &str) {
        if let Ok(mut wakes) = self.wakes.lock() {
            wakes.remove(id);
        }
    }

    /// `op`, or a [`StoreError`] once [`TaskOptions::store_timeout`] passed without an answer.
    async fn timed<T>(&self, op: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
        let limit = self.options.store_timeout;
        tokio::time::timeout(limit, op)
            .await
            .unwrap_or_else(|_| Err(StoreError::new(format!("no answer within {}", humantime::format_duration(limit)))))
    }

    /// The record, read within the store timeout.
    pub(crate) async fn store_get(&self, id: &str) -> Result<Option<TaskRecord>, StoreError> {
        self.timed(self.store.get(id)).await
    }

    /// A change, made within the store timeout and announced in this process.
    pub(crate) async fn store_modify(&self, id: &str, change: Modify<'_>) -> Result<Option<TaskRecord>, StoreError> {
        let record = self.timed(self.store.modify(id, change)).await?;
        self.changed(id);
        if let Some(record) = &record {
            self.events.emit(|| Observed::Record(Box::new(record.clone())));
        }
        Ok(record)
    }

    pub(crate) async fn modify(&self, id: &str, change: Modify<'_>) -> Result<Option<TaskRecord>, ErrorObject> {
        self.store_modify(id, change).await.map_err(store_failed)
    }

    /// Whether the store answers now (within the store timeout).
    pub(crate) async fn ready(&self) -> Result<(), StoreError> {
        self.timed(self.store.ready()).await
    }

    /// The caller's task as `tasks/get` shows it. A task whose runner's lease ran out fails.
    pub(crate) async fn get(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, ErrorObject> {
        let owner = self.owner_digest(owner);
        let record = self.store_get(id).await.map_err(store_failed)?.filter(|r| r.owner == owner);
        let record = record.ok_or_else(not_found)?;
        if record.status.is_terminal() || record.lease_until_ms > self.now() {
            return Ok(record);
        }
        let lost = |r: &mut TaskRecord| {
            if r.status.is_terminal() || r.lease_until_ms > self.now() {
                return false;
            }
            fail_lost(r);
            true
        };
        self.modify(id, &lost).await?.ok_or_else(not_found)
    }

    /// `tasks/update`: answers for outstanding keys are kept for the body; unknown or already
    /// answered keys are ignored. The task stays `input_required` until every question has
    /// its answer.
    pub(crate) async fn update(
        &self,
        id: &str,
        owner: Option<&str>,
        responses: &JsonObject,
    ) -> Result<(), ErrorObject> {
        self.get(id, owner).await?;
        let answer = |r: &mut TaskRecord| {
            let mut changed = false;
            for (key, value) in responses {
                if r.pending.remove(key).is_some() {
                    r.answers.insert(key.clone(), value.clone());
                    changed = true;
                }
            }
            if changed && r.pending.is_empty() && r.status == TaskStatus::InputRequired {
                r.status = TaskStatus::Working;
            }
            changed
        };
        self.modify(id, &answer).await.map(drop)
    }

    /// `tasks/cancel`: the body's runner stops it and the task becomes `cancelled`;
    /// acknowledged for a terminal task too.
    pub(crate) async fn cancel(&self, id: &str, owner: Option<&str>) -> Result<(), ErrorObject> {
        self.get(id, owner).await?;
        let cancel = |r: &mut TaskRecord| {
            let fresh = !r.status.is_terminal() && !r.cancel_requested;
            r.cancel_requested = true;
            fresh
        };
        self.modify(id, &cancel).await.map(drop)
    }

    /// Create a task for `owner` and run `body` in the background; the seed state once the
    /// task is durably created. `caller` is whom the task counts against
    /// ([`TaskOptions::max_tasks_per_caller`]): the owner, or the client's address.
    pub(crate) async fn spawn<F, Fut>(
        &self,
        owner: Option<&str>,
        caller: Option<&str>,
        body: F,
    ) -> Result<Task, ErrorObject>
    where
        F: FnOnce(Arc<TaskLink>) -> Fut + Send,
        Fut: Future<Output = Result<CallToolResult, ErrorObject>> + Send + 'static,
    {
        // Only this line is compiled per tool; the task machinery below is compiled once.
        self.spawn_boxed(owner, caller, Box::new(move |link| Box::pin(body(link)))).await
    }

    async fn spawn_boxed(
        &self,
        owner: Option<&str>,
        caller: Option<&str>,
        body: TaskBody<'_>,
    ) -> Result<Task, ErrorObject> {
        let now = self.now();
        let ttl_ms = self.options.ttl.as_millis() as u64;
        let expires = now.saturating_add(ttl_ms);
        self.quota.take(&self.options, caller, now, expires)?;
        let record = TaskRecord {
            id: uuid::Uuid::new_v4().simple().to_string(),
            owner: self.owner_digest(owner),
            status: TaskStatus::Working,
            status_message: None,
            progress: None,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms,
            poll_interval_ms: self.options.poll_interval.as_millis() as u64,
            pending: Default::default(),
            answers: JsonObject::new(),
            used_keys: Default::default(),
            result: None,
            error: None,
            cancel_requested: false,
            lease_until_ms: now + self.options.lease.as_millis() as u64,
        };
        let seed = record.task();
        let id = record.id.clone();
        let lease_until = record.lease_until_ms;
        let created = record.clone();
        if let Err(e) = self.timed(self.store.create(record)).await {
            self.quota.give_back(caller, expires);
            return Err(store_failed(e));
        }
        crate::observe::task(&id, "created", None);
        self.events.emit(|| Observed::Record(Box::new(created.clone())));
        let cancel = CancellationToken::new();
        let woken = self.started(&id);
        // Before the task can be seen by anyone: no announced change is missed.
        let announced = self.store.watch(&id);
        let link = Arc::new(TaskLink::new(id.clone(), self.clone(), cancel.clone(), woken.clone()));
        // A body that panics fails its task with an internal error instead of leaving it
        // working until its lease runs out.
        let body = futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(body(link.clone())));
        let tasks = self.clone();
        tasks.running.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let halting = self.clone();
        let counted = caller.map(str::to_owned);
        self.spawn_halting(async move {
            // Until when this runner holds the task: the lease it last wrote.
            let held = Arc::new(AtomicU64::new(lease_until));
            let supervised = Supervised { id: id.clone(), cancel: cancel.clone(), held: held.clone(), expires };
            let mut watcher = halting.spawn_halting(watch(tasks.clone(), supervised, woken, announced));
            let outcome = tokio::select! {
                // Biased: once the watcher says the task is no longer this runner's, the body is
                // not polled again, so it does nothing more.
                biased;
                () = cancel.cancelled() => None,
                outcome = body => Some(outcome.unwrap_or_else(|panic| {
                    let why = panic.downcast_ref::<&str>().map(|s| (*s).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tracing::error!(target: "roundtrip::task", task = %id, "the task's body panicked: {why}");
                    Err(ErrorObject::internal("Internal error"))
                })),
            };
            watcher.abort();
            // Why the body was stopped, when the watcher stopped it (it returned before the abort).
            let stopped = match outcome {
                Some(_) => None,
                None => (&mut watcher).await.ok().flatten(),
            };
            let end = match (outcome, stopped) {
                (Some(result), _) => End::Done(result),
                (None, Some(Stop::Lost)) => End::Lost,
                (None, _) => End::Cancelled,
            };
            tasks.finish(&id, &end, &held, link.last_message()).await;
            // A task that ended holds no slot: its record (and result) stays for the client
            // until it expires, but the caller may start another.
            tasks.quota.give_back(counted.as_deref(), expires);
            tasks.ended(&id);
            tasks.running.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            tasks.running.1.notify_waiters();
        });
        Ok(seed)
    }

    /// Record how a body ended, unless the task is no longer this runner's: another replica
    /// ended it (a terminal record is never overwritten), or its lease ran out (it then reads
    /// `failed` with `data.taskRunnerLost`, as it would on any replica, and what the body did
    /// is not recorded). A store that fails is tried again while the lease holds.
    /// Record how the body ended (`last`: the last progress it reported, which a completed task
    /// shows even if its own update has not landed yet), trying again while the lease holds.
    async fn finish(&self, id: &str, end: &End, held: &AtomicU64, last: Option<(String, Option<TaskProgress>)>) {
        let finish = |r: &mut TaskRecord| {
            if r.status.is_terminal() {
                return false;
            }
            if matches!(end, End::Lost) || r.lease_until_ms <= self.now() {
                fail_lost(r);
                return true;
            }
            r.pending.clear();
            match end {
                End::Lost => {}
                End::Cancelled => {
                    r.status = TaskStatus::Cancelled;
                    r.status_message = Some("cancelled at the client's request".into());
                }
                End::Done(Ok(result)) => {
                    r.status = TaskStatus::Completed;
                    r.result = inline(result);
                    if let Some((message, progress)) = &last {
                        r.status_message = Some(message.clone());
                        r.progress = progress.or(r.progress);
                    }
                }
                End::Done(Err(error)) => {
                    r.status = TaskStatus::Failed;
                    r.status_message = Some(error.message.clone());
                    r.error = Some(error.clone());
                }
            }
            true
        };
        let mut backoff = Duration::from_millis(50);
        loop {
            let e = match self.store_modify(id, &finish).await {
                Ok(record) => {
                    if let Some(record) = record {
                        let ran = record.updated_at_ms.saturating_sub(record.created_at_ms) as f64 / 1000.0;
                        crate::observe::task(id, record.status.as_str(), Some(ran));
                    }
                    return;
                }
                Err(e) => e,
            };
            if matches!(end, End::Lost) || self.now().saturating_add(backoff.as_millis() as u64) >= held.load(SeqCst) {
                tracing::error!(
                    target: "roundtrip::task", task = %id,
                    "could not record the end of a task: {e}; it reads failed once its lease runs out"
                );
                return;
            }
            tracing::debug!(target: "roundtrip::task", task = %id, "recording the end of a task: {e}; trying again");
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(1));
        }
    }
}

/// How a task's body ended.
enum End {
    /// It returned.
    Done(Result<CallToolResult, ErrorObject>),
    /// It was stopped because the client cancelled the task (or it failed itself, as an
    /// unanswered question does, and its record is already terminal).
    Cancelled,
    /// It was stopped because the task was no longer its runner's.
    Lost,
}

/// Why a watcher stopped a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The client cancelled the task.
    Cancelled,
    /// The task is no longer this runner's: ended elsewhere, expired, or its lease ran out.
    Lost,
}

/// What a watcher watches over: the task, the token that stops its body, the lease its runner
/// holds (shared with the runner), and when the task expires.
struct Supervised {
    id: String,
    cancel: CancellationToken,
    held: Arc<AtomicU64>,
    expires: u64,
}

/// A task's body, boxed so that [`Tasks::spawn`] is compiled once for every tool.
type TaskBody<'a> = Box<
    dyn FnOnce(Arc<TaskLink>) -> futures::future::BoxFuture<'static, Result<CallToolResult, ErrorObject>> + Send + 'a,
>;

/// A tool result as a task inlines it: the result of the original request, without the
/// `resultType` of the envelope.
fn inline(result: &CallToolResult) -> Option<JsonObject> {
    match serde_json::to_value(result) {
        Ok(Value::Object(mut o)) => {
            o.remove("resultType");
            Some(o)
        }
        _ => None,
    }
}

/// While a body runs: renew its lease, cancel it when the store says so, and wake it when
/// answers appear that were given elsewhere. A store that announces its changes
/// ([`TaskStore::watch`], `announced`) is read when the record changed and when the lease is
/// due; any other store every `watch_interval` (changes made in this process are seen at once
/// either way). When the announcements stop (a Redis subscription dropped), the record is read
/// at once and then polled until the store announces again.
///
/// The body is stopped ([`Stop::Lost`]) as soon as the task is no longer its runner's: its
/// record ended elsewhere (another replica took it for lost), it expired, or its lease could
/// not be renewed before it ran out. A renewal that fails is tried again every
/// `watch_interval`; the lease is taken as lost a twentieth of it early, so that a replica
/// whose clock runs a little ahead does not read the task as failed while its body still runs.
async fn watch(
    tasks: Tasks,
    task: Supervised,
    mut woken: watch::Receiver<()>,
    mut announced: Option<watch::Receiver<()>>,
) -> Stop {
    let Supervised { id, cancel, held, expires } = task;
    let stop = |why: Stop, reason: &str| {
        if why == Stop::Lost {
            tracing::warn!(target: "roundtrip::task", task = %id, "the task's body is stopped: {reason}");
        }
        cancel.cancel();
        why
    };
    let lease_ms = tasks.options.lease.as_millis() as u64;
    let margin_ms = lease_ms / 20;
    let renew_every_ms = lease_ms / 3;
    let mut renewed = tasks.now();
    // The last renewal failed: try again soon.
    let mut failing = false;
    // The answers seen at the last look: new ones (given on another replica, or not yet
    // taken) wake the body's `ask`, which itself does not read the store until woken.
    let mut answers_seen: Vec<String> = Vec::new();
    loop {
        let now = tasks.now();
        let deadline = held.load(SeqCst).saturating_sub(margin_ms);
        if now >= deadline {
            return stop(
                Stop::Lost,
                "its lease could not be renewed before it ran out (the task store did not answer)",
            );
        }
        if now >= expires {
            return stop(Stop::Lost, "the task expired (TaskOptions::ttl)");
        }
        let until = |t: u64| Duration::from_millis(t.saturating_sub(now));
        let wait = if failing {
            tasks.options.watch_interval
        } else if announced.is_some() {
            until(renewed.saturating_add(renew_every_ms))
        } else {
            tasks.options.watch_interval
        };
        let wait = wait.min(until(deadline)).min(until(expires));
        // Biased, as every `select!` on a task's path: which branch wins when several are ready
        // is then fixed, not drawn at random, so a run under a seeded simulator replays exactly.
        tokio::select! {
            biased;
            seen = async {
                match announced.as_mut() {
                    Some(changes) => changes.changed().await,
                    None => std::future::pending().await,
                }
            } => if seen.is_err() {
                // The store dropped the record's announcements: look, and poll from now on.
                announced = None;
            },
            seen = woken.changed() => if seen.is_err() {
                // Only the runner drops the sender, after this watcher: never unsupervised.
                return stop(Stop::Lost, "its runner ended");
            },
            () = tokio::time::sleep(wait) => {}
        }
        let now = tasks.now();
        if now >= held.load(SeqCst).saturating_sub(margin_ms) || now >= expires {
            continue;
        }
        if announced.is_none() {
            // Watch again before reading, so that nothing changed in between goes unseen.
            announced = tasks.store.watch(&id);
        }
        let read = if failing || now.saturating_sub(renewed) >= renew_every_ms {
            // Renewed only while the task is still this runner's, in the same atomic step as the
            // check: not ended elsewhere, and its lease not yet run out.
            let until = now + lease_ms;
            let renew = |r: &mut TaskRecord| {
                if !r.status.is_terminal() && r.lease_until_ms > tasks.now() {
                    r.lease_until_ms = until;
                }
                false
            };
            match tasks.timed(tasks.store.modify(&id, &renew)).await {
                Ok(Some(record)) => {
                    if record.lease_until_ms == until {
                        held.store(until, SeqCst);
                        renewed = now;
                        if failing {
                            tracing::info!(target: "roundtrip::task", task = %id, "the task's lease is renewed again");
                        }
                        failing = false;
                    }
                    Ok(Some(record))
                }
                Err(e) => {
                    if !failing {
                        tracing::warn!(
                            target: "roundtrip::task", task = %id,
                            "could not renew the task's lease: {e}; trying again until it runs out"
                        );
                    }
                    failing = true;
                    Err(e)
                }
                other => other,
            }
        } else {
            tasks.store_get(&id).await
        };
        let record = match read {
            Ok(Some(record)) => record,
            Ok(None) => return stop(Stop::Lost, "its record is gone (expired or removed)"),
            Err(e) => {
                tracing::debug!(target: "roundtrip::task", task = %id, "{e}");
                continue;
            }
        };
        if record.cancel_requested {
            return stop(Stop::Cancelled, "cancelled");
        }
        if record.status.is_terminal() {
            return stop(Stop::Lost, "the task was ended elsewhere (another replica took its runner for lost)");
        }
        if record.lease_until_ms <= tasks.now() {
            return stop(Stop::Lost, "its lease ran out before it was renewed");
        }
        if record.answers.keys().ne(answers_seen.iter()) {
            answers_seen = record.answers.keys().cloned().collect();
            if !answers_seen.is_empty() {
                tasks.changed(&id);
            }
        }
    }
}
