//! [`PerCaller`]: state of a toolset kept apart for each caller.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::RequestContext;

/// State that each caller has its own of: a counter, a cart, a draft.
///
/// A [`#[toolset]`](https://docs.rs/roundtrip/latest/roundtrip/attr.toolset.html) value is shared by every client of the server (over HTTP as
/// over stdio), and the 2026-07-28 protocol has no sessions to hang per-client state on: any
/// replica may serve any request. What identifies a caller is
/// [`RequestContext::caller`]: the identity of an authenticated caller (an
/// [`AuthPrincipal`](crate::request::AuthPrincipal), however it was set), else the client's address,
/// or a key the application chooses ([`of_key`](Self::of_key)). `PerCaller` keeps one value per
/// such key, made with
/// `Default` the first time, in this process: for state that must survive a replica, keep it in
/// the application's database under the same key, or carry it in the sealed `requestState` of a
/// flow.
///
/// It holds at most [`max_callers`](Self::max_callers) values (10 000 by default), forgetting
/// the least recently used one to make room.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use roundtrip::prelude::*;
/// use roundtrip::PerCaller;
///
/// #[derive(Debug, Default)]
/// struct Counter {
///     counts: PerCaller<AtomicU64>,
/// }
///
/// #[toolset]
/// impl Counter {
///     /// Add one to your own counter.
///     #[tool]
///     async fn increment(&self, cx: &RequestContext) -> String {
///         let mine = self.counts.of(cx);
///         (mine.fetch_add(1, Ordering::Relaxed) + 1).to_string()
///     }
/// }
/// ```
pub struct PerCaller<T> {
    values: Mutex<Values<T>>,
    max: usize,
}

struct Values<T> {
    by_key: HashMap<String, (Arc<T>, u64)>,
    tick: u64,
}

impl<T> std::fmt::Debug for PerCaller<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let callers = self.values.lock().map(|v| v.by_key.len()).unwrap_or(0);
        f.debug_struct("PerCaller").field("callers", &callers).field("max", &self.max).finish()
    }
}

impl<T> Default for PerCaller<T> {
    fn default() -> Self {
        Self { values: Mutex::new(Values { by_key: HashMap::new(), tick: 0 }), max: 10_000 }
    }
}

impl<T: Default> PerCaller<T> {
    /// Empty, for at most 10 000 callers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep at most `max` callers' values (at least 1).
    pub fn max_callers(mut self, max: usize) -> Self {
        self.max = max.max(1);
        self
    }

    /// The value of the request's caller ([`RequestContext::caller`]): its identity when it is
    /// authenticated; without one, its client address over HTTP; over stdio and in memory, the
    /// one client there is.
    pub fn of(&self, cx: &RequestContext) -> Arc<T> {
        self.of_key(&cx.caller())
    }

    /// The value kept under `key`, an identity the application chose and trusts (e.g. a tenant
    /// header set by its gateway, [`RequestContext::header`]).
    pub fn of_key(&self, key: &str) -> Arc<T> {
        let Ok(mut values) = self.values.lock() else { return Arc::new(T::default()) };
        values.tick += 1;
        let tick = values.tick;
        if let Some((value, used)) = values.by_key.get_mut(key) {
            *used = tick;
            return value.clone();
        }
        if values.by_key.len() >= self.max
            && let Some(oldest) = values.by_key.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone())
        {
            values.by_key.remove(&oldest);
        }
        let value = Arc::new(T::default());
        values.by_key.insert(key.to_owned(), (value.clone(), tick));
        value
    }

    /// How many callers have a value now.
    pub fn len(&self) -> usize {
        self.values.lock().map(|v| v.by_key.len()).unwrap_or(0)
    }

    /// Whether no caller has one.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_kept_apart_and_bounded() {
        let counts: PerCaller<std::sync::atomic::AtomicU64> = PerCaller::new().max_callers(2);
        counts.of_key("a").fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(counts.of_key("a").load(std::sync::atomic::Ordering::Relaxed), 1);
        assert_eq!(counts.of_key("b").load(std::sync::atomic::Ordering::Relaxed), 0);
        counts.of_key("a");
        counts.of_key("c");
        assert_eq!(counts.len(), 2, "the least recently used (b) made room");
        assert_eq!(counts.of_key("a").load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
