//! How many tasks one server runs. A task counts from its creation until its body ends (its
//! slot is given back then) or, should the runner never report, until its record expires: in
//! all ([`TaskOptions::max_tasks`]) and per caller ([`TaskOptions::max_tasks_per_caller`]), so
//! one caller cannot take every slot.
//!
//! Counting is per process, of the tasks this process created: with a shared store, each
//! replica bounds what its own callers made it create. Taking a slot is O(log n): expiries sit
//! in a heap, and those past are released before each new task is counted.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Mutex;

use super::TaskOptions;
use crate::protocol::ErrorObject;

/// The tasks held, by caller, until each expires.
#[derive(Debug, Default)]
pub(super) struct Quota {
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    /// Tasks held per caller (`None`: a caller with neither a principal nor an address, such
    /// as the one client of a stdio server).
    by_caller: HashMap<Option<String>, usize>,
    /// When each held task expires, and whose it is.
    expiries: BinaryHeap<Reverse<(u64, Option<String>)>>,
}

impl Held {
    fn release_expired(&mut self, now_ms: u64) {
        while let Some(Reverse((expires, _))) = self.expiries.peek()
            && *expires <= now_ms
        {
            let Some(Reverse((_, caller))) = self.expiries.pop() else { break };
            if let Some(n) = self.by_caller.get_mut(&caller) {
                *n -= 1;
                if *n == 0 {
                    self.by_caller.remove(&caller);
                }
            }
        }
    }
}

impl Quota {
    /// Count a new task of `caller` that expires at `expires_ms`, or say which limit refuses
    /// it.
    pub(super) fn take(
        &self,
        options: &TaskOptions,
        caller: Option<&str>,
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<(), ErrorObject> {
        let mut held = self.held.lock().map_err(|_| ErrorObject::internal("Internal error"))?;
        held.release_expired(now_ms);
        if held.expiries.len() >= options.max_tasks {
            tracing::warn!(target: "roundtrip::limits", limit = "max_tasks", max = options.max_tasks, "task refused");
            crate::observe::limit("max_tasks");
            return Err(ErrorObject::limit_reached(
                "max_tasks",
                options.max_tasks,
                format!("Too many tasks: the server runs {} (TaskOptions::max_tasks); retry later", options.max_tasks),
            ));
        }
        let key = caller.map(str::to_owned);
        let mine = held.by_caller.get(&key).copied().unwrap_or(0);
        if mine >= options.max_tasks_per_caller {
            tracing::warn!(
                target: "roundtrip::limits",
                limit = "max_tasks_per_caller",
                max = options.max_tasks_per_caller,
                "task refused"
            );
            crate::observe::limit("max_tasks_per_caller");
            return Err(ErrorObject::limit_reached(
                "max_tasks_per_caller",
                options.max_tasks_per_caller,
                format!(
                    "Too many tasks: this caller already runs {} (TaskOptions::max_tasks_per_caller); retry \
                     when one has ended",
                    options.max_tasks_per_caller
                ),
            ));
        }
        *held.by_caller.entry(key.clone()).or_insert(0) += 1;
        held.expiries.push(Reverse((expires_ms, key)));
        Ok(())
    }

    /// Give back the slot of a task that ended, or that was counted but never created (the
    /// store failed). A slot already released (its expiry passed) is not given back twice.
    pub(super) fn give_back(&self, caller: Option<&str>, expires_ms: u64) {
        let Ok(mut held) = self.held.lock() else { return };
        let key = caller.map(str::to_owned);
        let before = held.expiries.len();
        let mut gone = false;
        held.expiries.retain(|Reverse((e, c))| {
            if !gone && *e == expires_ms && *c == key {
                gone = true;
                return false;
            }
            true
        });
        if held.expiries.len() < before
            && let Some(n) = held.by_caller.get_mut(&key)
        {
            *n -= 1;
            if *n == 0 {
                held.by_caller.remove(&key);
            }
        }
    }

    /// How many tasks are held (expired ones included until the next task is counted).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.held.lock().map(|h| h.expiries.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(max: usize, per_caller: usize) -> TaskOptions {
        TaskOptions { max_tasks: max, max_tasks_per_caller: per_caller, ..TaskOptions::default() }
    }

    fn limit(e: &ErrorObject) -> &str {
        e.data.as_ref().and_then(|d| d["limit"].as_str()).unwrap_or_default()
    }

    #[test]
    fn one_caller_cannot_take_every_slot() {
        let q = Quota::default();
        let o = options(5, 2);
        assert!(q.take(&o, Some("a"), 0, 100).is_ok());
        assert!(q.take(&o, Some("a"), 0, 100).is_ok());
        let refused = q.take(&o, Some("a"), 0, 100).expect_err("over the caller's share");
        assert_eq!((refused.code, limit(&refused)), (-32000, "max_tasks_per_caller"));
        assert!(q.take(&o, Some("b"), 0, 100).is_ok());
        assert!(q.take(&o, None, 0, 100).is_ok());
        assert!(q.take(&o, Some("c"), 0, 100).is_ok());
        let full = q.take(&o, Some("d"), 0, 100).expect_err("over the total");
        assert_eq!(limit(&full), "max_tasks");
    }

    #[test]
    fn expired_tasks_give_their_slots_back() {
        let q = Quota::default();
        let o = options(10, 1);
        q.take(&o, Some("a"), 0, 50).expect("first");
        assert!(q.take(&o, Some("a"), 49, 150).is_err());
        q.take(&o, Some("a"), 50, 150).expect("the first expired");
        assert_eq!(q.len(), 1);
        q.give_back(Some("a"), 150);
        assert_eq!(q.len(), 0);
        q.take(&o, Some("a"), 60, 160).expect("given back");
    }
}
