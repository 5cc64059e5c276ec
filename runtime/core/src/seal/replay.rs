//! Single-use `requestState`: a tool marked `#[tool(single_use)]` accepts each sealed state
//! once; a replay gets the same frozen error as any other rejected state. The cache of used
//! states keeps a digest of each token until the token would have expired anyway. A cache
//! that fails (or does not answer within 5 s) fails closed: the state is not accepted, and the
//! caller is answered `503` with `Retry-After` (a JSON-RPC error `-32000` with
//! `data.unavailable = "replay_cache"`), since the state may well be good.

use std::collections::HashMap;
use std::sync::Mutex;

use futures::future::BoxFuture;
use sha2::{Digest, Sha256};

use crate::clock::{Clock, system_ms};

/// A digest of a used token (SHA-256).
pub(crate) type TokenDigest = [u8; 32];

/// The digest a replay cache keeps of `token`.
pub(crate) fn token_digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

/// Remembers which sealed states were used, until they expire. Replicas that share one (Redis)
/// refuse a state replayed on any of them.
pub trait ReplayCache: Send + Sync + 'static {
    /// Record `digest` until `expires_at_ms` (Unix milliseconds). `Ok(true)` the first time,
    /// `Ok(false)` for a replay; an error fails closed (the state is not accepted, and the
    /// caller is told to retry later).
    fn first_use<'a>(
        &'a self,
        digest: &'a [u8; 32],
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, Box<dyn std::error::Error + Send + Sync>>>;
}

/// The default replay cache: a map in this process, purged of expired entries as it grows.
pub struct MemoryReplayCache {
    used: Mutex<HashMap<TokenDigest, u64>>,
    /// The time, in Unix milliseconds (the system's unless a simulation set its own).
    clock: Clock,
}

impl Default for MemoryReplayCache {
    fn default() -> Self {
        Self { used: Mutex::default(), clock: system_ms() }
    }
}

impl std::fmt::Debug for MemoryReplayCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryReplayCache").field("used", &self.used).finish_non_exhaustive()
    }
}

impl MemoryReplayCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty cache that reads the time, in Unix milliseconds, from `now_ms` instead of the
    /// system clock (tests only: a deterministic simulation's clock).
    #[doc(hidden)]
    pub fn with_clock(now_ms: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        Self { used: Mutex::default(), clock: std::sync::Arc::new(now_ms) }
    }

    /// How many digests it holds.
    pub fn len(&self) -> usize {
        self.used.lock().map(|u| u.len()).unwrap_or(0)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ReplayCache for MemoryReplayCache {
    fn first_use<'a>(
        &'a self,
        digest: &'a [u8; 32],
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, Box<dyn std::error::Error + Send + Sync>>> {
        let result = self.used.lock().map_err(|_| "the replay cache's lock is poisoned".into()).map(|mut used| {
            let now = (self.clock)();
            // Amortized: purge when the map doubled since the last purge would be finer; a
            // purge at every power of two of its size keeps it linear.
            if used.len() >= 1024 && used.len().is_power_of_two() {
                used.retain(|_, expires| *expires > now);
            }
            match used.get(digest) {
                Some(expires) if *expires > now => false,
                _ => {
                    used.insert(*digest, expires_at_ms);
                    true
                }
            }
        });
        Box::pin(async move { result })
    }
}

impl<T: ReplayCache> ReplayCache for std::sync::Arc<T> {
    fn first_use<'a>(
        &'a self,
        digest: &'a [u8; 32],
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, Box<dyn std::error::Error + Send + Sync>>> {
        (**self).first_use(digest, expires_at_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::now_ms;

    fn digest(n: u32) -> TokenDigest {
        token_digest(&n.to_string())
    }

    fn first_use(cache: &MemoryReplayCache, d: &TokenDigest, expires_at_ms: u64) -> bool {
        futures::executor::block_on(cache.first_use(d, expires_at_ms)).unwrap()
    }

    #[test]
    fn a_state_is_refused_until_it_expires_then_forgotten() {
        let cache = MemoryReplayCache::new();
        let d = digest(1);
        let soon = now_ms() + 60_000;
        assert!(first_use(&cache, &d, soon), "first use");
        assert!(!first_use(&cache, &d, soon), "a replay before expiry");
        // The entry's expiry passed (recorded with one already in the past): the token itself
        // can no longer be opened, so the cache no longer needs to refuse it.
        let cache = MemoryReplayCache::new();
        assert!(first_use(&cache, &d, now_ms() - 1));
        assert!(first_use(&cache, &d, soon), "an expired entry does not refuse");
        assert!(!first_use(&cache, &d, soon), "and the new one does");
    }

    #[test]
    fn expired_digests_are_purged_as_the_cache_grows() {
        let cache = MemoryReplayCache::new();
        let past = now_ms() - 1;
        let live = now_ms() + 60_000;
        for n in 0..1023 {
            assert!(first_use(&cache, &digest(n), past));
        }
        assert!(first_use(&cache, &digest(5000), live));
        assert_eq!(cache.len(), 1024);
        // At 1,024 entries (a power of two) the next use purges the 1,023 expired ones.
        assert!(first_use(&cache, &digest(5001), live));
        assert_eq!(cache.len(), 2, "only the live digests remain");
        assert!(!first_use(&cache, &digest(5000), live), "a live digest survives the purge");
    }

    #[test]
    fn memory_stays_bounded_by_the_live_digests() {
        // 100,000 uses of states that expire at once: the map never holds more than the
        // purge threshold's next power of two.
        let cache = MemoryReplayCache::new();
        let past = now_ms() - 1;
        let mut most = 0;
        for n in 0..100_000 {
            first_use(&cache, &digest(n), past);
            most = most.max(cache.len());
        }
        assert!(most <= 1024, "held {most} digests of expired states");
    }
}
