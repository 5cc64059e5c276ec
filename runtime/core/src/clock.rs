//! Where the runtime reads the time: the system clock, or one a deterministic simulation gives
//! it (`Server::clock`, `MemoryStore::with_clock`, `MemoryReplayCache::with_clock`,
//! `RequestStateSecurity::clock`; tests only).

use std::sync::Arc;

/// A clock: the time as a number, in Unix milliseconds (in seconds where its owner says so:
/// the sealer's).
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Milliseconds since the Unix epoch, by the system clock.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The system clock, in Unix milliseconds.
pub fn system_ms() -> Clock {
    Arc::new(now_ms)
}
