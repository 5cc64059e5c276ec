//! The default task store: a map in this process. Expired records are dropped when the store
//! is next written.

use std::collections::HashMap;
use std::sync::Mutex;

use futures::future::BoxFuture;
use tokio::sync::watch;

use super::store::{Modify, StoreError, TaskRecord, TaskStore, now_ms};

/// Tasks kept in memory: nothing to set up, nothing shared between processes.
///
/// Every change passes through it, so it announces each one ([`TaskStore::watch`]): a running
/// body wakes when its record changes and never polls, however many tasks are parked, also
/// when several servers in one process share the store.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<String, Entry>>,
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

    /// How many records it holds (expired ones included until the next write).
    pub fn len(&self) -> usize {
        self.records.lock().map(|r| r.len()).unwrap_or(0)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, Entry>>, StoreError> {
        self.records.lock().map_err(|_| StoreError("the in-memory store's lock is poisoned".into()))
    }
}

impl TaskStore for MemoryStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let result = self.lock().map(|mut records| {
            let now = now_ms();
            // Dropping an expired entry closes its announcements: a body still watching it
            // learns that the record is gone.
            records.retain(|_, e| !e.record.expired(now));
            let (changed, _) = watch::channel(());
            records.insert(record.id.clone(), Entry { record, changed });
        });
        Box::pin(async move { result })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let result =
            self.lock().map(|records| records.get(id).map(|e| &e.record).filter(|r| !r.expired(now_ms())).cloned());
        Box::pin(async move { result })
    }

    fn modify<'a>(&'a self, id: &'a str, change: Modify<'a>) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let result = self.lock().map(|mut records| {
            let now = now_ms();
            let entry = records.get_mut(id).filter(|e| !e.record.expired(now))?;
            if change(&mut entry.record) {
                entry.record.updated_at_ms = now.max(entry.record.updated_at_ms);
                entry.changed.send_replace(());
            }
            Some(entry.record.clone())
        });
        Box::pin(async move { result })
    }

    fn watch(&self, id: &str) -> Option<watch::Receiver<()>> {
        self.lock().ok()?.get(id).map(|e| e.changed.subscribe())
    }
}
