//! Where tasks live: the [`TaskStore`] trait and the record it keeps. The in-memory store is
//! the default (one process); a shared store lets any replica answer `tasks/get`,
//! `tasks/update` and `tasks/cancel` for a task running on another.

use std::collections::BTreeSet;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use crate::protocol::{
    DetailedTask, ErrorObject, GetTaskResult, InputRequests, JsonObject, TASK_PROGRESS_META, Task, TaskProgress,
    TaskStatus,
};

/// Everything the server keeps about one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// Its identifier (random, unguessable).
    pub id: String,
    /// The principal that created it (a salted digest), when the server binds tasks to one;
    /// only the same principal sees it.
    pub owner: Option<String>,
    /// Where it is.
    pub status: TaskStatus,
    /// A word on the current state (the latest progress message, why it failed).
    pub status_message: Option<String>,
    /// The latest progress the body reported, as numbers (records written before this field
    /// existed read as none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<TaskProgress>,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// How long after creation it is kept.
    pub ttl_ms: u64,
    /// How often clients should poll.
    pub poll_interval_ms: u64,
    /// The questions the body waits on, by key.
    pub pending: InputRequests,
    /// Answers that arrived and the body has not taken yet, by key.
    pub answers: JsonObject,
    /// Every key ever asked: a key is never reused within a task.
    pub used_keys: BTreeSet<String>,
    /// Once completed: the result.
    pub result: Option<JsonObject>,
    /// Once failed: the JSON-RPC error.
    pub error: Option<ErrorObject>,
    /// `tasks/cancel` was received.
    pub cancel_requested: bool,
    /// Until when the replica running the body vouches for it; past it, a task that is not
    /// terminal has lost its runner and reads as failed.
    pub lease_until_ms: u64,
}

impl TaskRecord {
    /// Whether the record outlived its TTL at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        self.created_at_ms.saturating_add(self.ttl_ms) <= now_ms
    }

    /// The wire view (`tasks/get`, `notifications/tasks`).
    pub fn detailed(&self) -> DetailedTask {
        let mut detailed = DetailedTask::new(self.task());
        detailed.input_requests = (self.status == TaskStatus::InputRequired).then(|| self.pending.clone());
        detailed.result = if self.status == TaskStatus::Completed { self.result.clone() } else { None };
        detailed.error = if self.status == TaskStatus::Failed { self.error.clone() } else { None };
        detailed
    }

    /// The `tasks/get` result.
    pub fn get_result(&self) -> GetTaskResult {
        let meta = self.progress.map(|p| {
            let mut meta = JsonObject::new();
            meta.insert(TASK_PROGRESS_META.into(), serde_json::to_value(p).unwrap_or_default());
            meta
        });
        let mut result = GetTaskResult::new(self.detailed());
        result.meta = meta;
        result
    }

    /// The base fields.
    pub fn task(&self) -> Task {
        let mut task =
            Task::new(self.id.clone(), self.status, iso8601(self.created_at_ms), iso8601(self.updated_at_ms))
                .with_ttl_ms(self.ttl_ms)
                .with_poll_interval_ms(self.poll_interval_ms);
        task.status_message = self.status_message.clone();
        task
    }
}

/// A store failed (it is unreachable, did not answer in time, or a record did not decode).
/// A request that meets one is answered `-32000` with `data.unavailable = "task_store"`
/// (HTTP `503` with `Retry-After`); the reason goes to the log only.
///
/// ```
/// use roundtrip::task::StoreError;
///
/// let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
/// let error = StoreError::with_source("the database", io);
/// assert_eq!(error.to_string(), "task store: the database");
/// assert!(std::error::Error::source(&error).is_some());
/// ```
#[derive(Debug, thiserror::Error)]
#[error("task store: {message}")]
pub struct StoreError {
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl StoreError {
    /// A failure that says what failed.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), source: None }
    }

    /// A failure of `what` (the store, the database…) caused by `source`, kept whole: the log
    /// shows its chain.
    pub fn with_source(what: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self { message: what.into(), source: Some(source.into()) }
    }
}

/// A change to one record: it returns whether it changed anything.
pub(crate) type Modify<'a> = &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync);

/// Where tasks live. Every change goes through [`modify`](Self::modify), a read-modify-write
/// the store makes atomic (a lock, a transaction, optimistic retries), so that answers,
/// cancellation and the body's progress never overwrite each other.
pub trait TaskStore: Send + Sync + 'static {
    /// Keep a new record; `tasks/get` finds it once this returns.
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The record, if it exists and has not expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Apply `change` atomically; the record after it (`None` when there is none).
    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Announcements of the changes to record `id` (each [`modify`](Self::modify) whose change
    /// returned `true`, from any replica), from a store that sees every change, as
    /// [`MemoryStore`] does and `RedisStore` (feature `redis`) through pub/sub: the replica running the
    /// task's body then waits for them instead of polling. Asked once, before the task is
    /// visible; closing the receiver says announcements stopped (the record is then read at
    /// once, and `watch` asked again after each look).
    ///
    /// `None`, the default, says the store cannot tell (other processes write it too, or its
    /// announcements are down): the replica looks at the record every
    /// [`watch_interval`](super::TaskOptions::watch_interval) for answers and cancellation given
    /// elsewhere.
    ///
    /// [`MemoryStore`]: super::MemoryStore
    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        let _ = id;
        None
    }

    /// Whether the store answers now, for readiness checks
    /// ([`Server::ready`](crate::server::Server::ready)): `Ok` by default (a store in this process
    /// always answers); a remote store asks its server, briefly (`RedisStore` sends `PING`).
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}

/// RFC 3339 (an ISO 8601 profile) of milliseconds since the Unix epoch.
pub(crate) fn iso8601(ms: u64) -> String {
    humantime::format_rfc3339_millis(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms)).to_string()
}

/// A shared store (several servers in one process, or one kept by the caller too).
impl<T: TaskStore> TaskStore for std::sync::Arc<T> {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).create(record)
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        (**self).get(id)
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        (**self).modify(id, change)
    }

    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        (**self).watch(id)
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).ready()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_764_000_000_123), "2025-11-24T16:00:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
