//! The default task store: a map in this process. Expired records are dropped when the store
//! is next written.

use std::collections::HashMap;
use std::sync::Mutex;

use futures::future::BoxFuture;

use super::store::{Modify, StoreError, TaskRecord, TaskStore, now_ms};

/// Tasks kept in memory: nothing to set up, nothing shared between processes.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<String, TaskRecord>>,
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

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, TaskRecord>>, StoreError> {
        self.records.lock().map_err(|_| StoreError("the in-memory store's lock is poisoned".into()))
    }
}

impl TaskStore for MemoryStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let result = self.lock().map(|mut records| {
            let now = now_ms();
            records.retain(|_, r| !r.expired(now));
            records.insert(record.id.clone(), record);
        });
        Box::pin(async move { result })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let result = self.lock().map(|records| records.get(id).filter(|r| !r.expired(now_ms())).cloned());
        Box::pin(async move { result })
    }

    fn modify<'a>(&'a self, id: &'a str, change: Modify<'a>) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let result = self.lock().map(|mut records| {
            let now = now_ms();
            let record = records.get_mut(id).filter(|r| !r.expired(now))?;
            if change(record) {
                record.updated_at_ms = now.max(record.updated_at_ms);
            }
            Some(record.clone())
        });
        Box::pin(async move { result })
    }
}
