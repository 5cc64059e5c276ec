//! Where the runtime reads the time: the system clock, or one a deterministic simulation gives
//! it (`Server::clock`, `MemoryStore::with_clock`, `MemoryReplayCache::with_clock`,
//! `RequestStateSecurity::clock`; tests only). On wasm32 (Cloudflare Workers) the system clock
//! is the JavaScript host's (`Date.now()`, `performance.now()`, through `web-time`): std's
//! panics there.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// A clock: the time as a number, in Unix milliseconds (in seconds where its owner says so:
/// the sealer's).
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Milliseconds since the Unix epoch, by the system clock.
pub fn now_ms() -> u64 {
    web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Seconds since the Unix epoch, by the system clock.
pub(crate) fn now_secs() -> u64 {
    now_ms() / 1000
}

/// The system clock, in Unix milliseconds.
pub fn system_ms() -> Clock {
    Arc::new(now_ms)
}

/// `operation`'s output, or `None` when it takes longer than `limit`.
///
/// On wasm32 (Cloudflare Workers) there is no timer to race it against without a runtime that
/// is not there (tokio's needs a driver; the host's timers are not `Send`): the operation runs
/// to its end, and the platform bounds the request's time.
pub(crate) async fn within<F: Future>(limit: Duration, operation: F) -> Option<F::Output> {
    #[cfg(not(target_arch = "wasm32"))]
    return tokio::time::timeout(limit, operation).await.ok();
    #[cfg(target_arch = "wasm32")]
    {
        let _ = limit;
        Some(operation.await)
    }
}
