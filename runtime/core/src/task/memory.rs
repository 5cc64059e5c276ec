//! The default task store: a map in this process. Expired records are dropped when the store
//! is next written, oldest first, from a heap of expiries: a write costs O(log n), however
//! many records there are.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Mutex;

use futures::future::BoxFuture;
use tokio::sync::watch;

use super::store::{StoreError, TaskRecord, TaskStore};
use crate::clock::{Clock, system_ms};

/// Tasks kept in memory: nothing to set up, nothing shared between processes.
///
/// Every change passes through it, so it announces each one ([`TaskStore::watch`]): a running
/// body wakes when its record changes and never polls, however many tasks are parked, also
/// when several servers in one process share the store.
pub struct MemoryStore {
    records: Mutex<Records>,
    /// The time, in Unix milliseconds (the system's unless a simulation set its own).
    clock: Clock,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self { records: Mutex::default(), clock: system_ms() }
    }
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore").field("records", &self.records).finish_non_exhaustive()
    }
}

/// The records, and when each expires.
#[derive(Debug, Default)]
struct Records {
    by_id: HashMap<String, Entry>,
    expiries: BinaryHeap<Reverse<(u64, String)>>,
}

impl Records {
    /// Drop the records that expired by `now`. Dropping an entry closes its announcements: a
    /// body still watching it learns that the record is gone.
    fn drop_expired(&mut self, now: u64) {
        while let Some(Reverse((expires, _))) = self.expiries.peek()
            && *expires <= now
        {
            let Some(Reverse((_, id))) = self.expiries.pop() else { break };
            if self.by_id.get(&id).is_some_and(|e| e.record.expired(now)) {
                self.by_id.remove(&id);
            }
        }
    }
}

/// A record and the announcement of its changes.
#[derive(Debug)]
struct Entry {
    record: TaskRecord,
    changed: watch::Sender<()>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store that reads the time, in Unix milliseconds, from `now_ms` instead of the
    /// system clock (tests only: a deterministic simulation's clock).
    #[doc(hidden)]
    pub fn with_clock(now_ms: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        Self { records: Mutex::default(), clock: std::sync::Arc::new(now_ms) }
    }

    /// How many records it holds (expired ones included until the next write).
    pub fn len(&self) -> usize {
        self.records.lock().map(|r| r.by_id.len()).unwrap_or(0)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Records>, StoreError> {
        self.records.lock().map_err(|_| StoreError::new("the in-memory store's lock is poisoned"))
    }
}

impl TaskStore for MemoryStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let result = self.lock().map(|mut records| {
            records.drop_expired((self.clock)());
            let (changed, _) = watch::channel(());
            let expires = record.created_at_ms.saturating_add(record.ttl_ms);
            records.expiries.push(Reverse((expires, record.id.clone())));
            records.by_id.insert(record.id.clone(), Entry { record, changed });
        });
        Box::pin(async move { result })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let result = self
            .lock()
            .map(|records| records.by_id.get(id).map(|e| &e.record).filter(|r| !r.expired((self.clock)())).cloned());
        Box::pin(async move { result })
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let result = self.lock().map(|mut records| {
            let now = (self.clock)();
            let entry = records.by_id.get_mut(id).filter(|e| !e.record.expired(now))?;
            if change(&mut entry.record) {
                entry.record.updated_at_ms = now.max(entry.record.updated_at_ms);
                entry.changed.send_replace(());
            }
            Some(entry.record.clone())
        });
        Box::pin(async move { result })
    }

    fn watch(&self, id: &str) -> Option<watch::Receiver<()>> {
        self.lock().ok()?.by_id.get(id).map(|e| e.changed.subscribe())
    }
}
