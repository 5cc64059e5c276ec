//! The legacy (2025-era) sessions of one HTTP endpoint: bounded in number, expired when idle,
//! each with its back-channel table and its requests in flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::protocol::RequestId;
use crate::server::{Principal, Session};
use crate::transport::pending::Pending;

/// One legacy session as the HTTP transport keeps it.
#[derive(Debug)]
pub(super) struct LegacySession {
    pub session: Arc<Session>,
    pub pending: Arc<Pending>,
    /// The authenticated principal that started it, if any: only the same principal may use
    /// it (a leaked session id is no way into another user's session).
    owner: Option<Principal>,
    in_flight: Mutex<HashMap<RequestId, (u64, CancellationToken)>>,
    next_seq: AtomicU64,
    /// Milliseconds since the store's epoch.
    last_used: AtomicU64,
    /// Cancelled when the session ends (deleted, expired or evicted): ends its GET stream.
    closed: CancellationToken,
    /// Its standalone GET stream.
    stream: Mutex<StreamState>,
}

/// The standalone GET stream of a session.
#[derive(Debug, Default)]
struct StreamState {
    /// The stop signal of the current stream.
    stop: Option<CancellationToken>,
    /// Streams not yet dropped: 0 or 1, briefly 2 while one replaces another. A session with
    /// one is in use and does not expire.
    open: usize,
    /// The endpoint-wide slot the session holds while it has a stream, passed from a stream
    /// to the one that replaces it.
    slot: Option<OwnedSemaphorePermit>,
}

impl LegacySession {
    /// Whether `principal` may use the session: the one that started it (or, for a session
    /// started without one, a request without one).
    pub fn owned_by(&self, principal: Option<&Principal>) -> bool {
        self.owner.as_ref() == principal
    }

    /// Track a request in flight so `notifications/cancelled` can reach it; dropping the
    /// guard forgets it.
    pub fn begin(self: &Arc<Self>, id: RequestId, cancel: CancellationToken) -> InFlight {
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut m) = self.in_flight.lock() {
            m.insert(id.clone(), (seq, cancel));
        }
        InFlight { session: self.clone(), id, seq }
    }

    /// Cancel the request in flight with this id, if any.
    pub fn cancel(&self, id: &RequestId) {
        let token = self.in_flight.lock().ok().and_then(|m| m.get(id).map(|(_, t)| t.clone()));
        if let Some(token) = token {
            token.cancel();
        }
    }

    /// Open the session's standalone GET stream, ending the one before if any (a client that
    /// reconnects is not locked out by a stream it lost). A session without a stream takes one
    /// of `slots` first; `None` when none is left.
    pub fn open_stream(self: &Arc<Self>, slots: &Arc<Semaphore>) -> Option<StreamGuard> {
        let mut state = self.stream.lock().ok()?;
        if state.slot.is_none() {
            state.slot = Some(slots.clone().try_acquire_owned().ok()?);
        }
        let stop = self.closed.child_token();
        if let Some(previous) = state.stop.replace(stop.clone()) {
            previous.cancel();
        }
        state.open += 1;
        Some(StreamGuard { session: self.clone(), stop })
    }

    fn busy(&self) -> bool {
        self.stream.lock().map(|s| s.open > 0).unwrap_or(false)
            || self.in_flight.lock().map(|m| !m.is_empty()).unwrap_or(false)
    }

    /// Cancel everything in flight and fail every waiting server-to-client request.
    fn terminate(&self) {
        let tokens: Vec<CancellationToken> =
            self.in_flight.lock().map(|mut m| m.drain().map(|(_, (_, t))| t).collect()).unwrap_or_default();
        for token in tokens {
            token.cancel();
        }
        self.pending.close();
        self.closed.cancel();
    }
}

/// An open standalone GET stream of a session.
#[derive(Debug)]
pub(super) struct StreamGuard {
    session: Arc<LegacySession>,
    stop: CancellationToken,
}

impl StreamGuard {
    /// Cancelled when the stream must end: the session ended or another stream replaced it.
    pub fn stop(&self) -> &CancellationToken {
        &self.stop
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        if let Ok(mut state) = self.session.stream.lock() {
            state.open = state.open.saturating_sub(1);
            // Forget our own stop signal; a newer stream keeps its own.
            if state.stop.as_ref() == Some(&self.stop) {
                state.stop = None;
            }
            if state.open == 0 {
                state.slot = None;
            }
        }
    }
}

/// A request in flight on a legacy session.
#[derive(Debug)]
pub(super) struct InFlight {
    session: Arc<LegacySession>,
    id: RequestId,
    seq: u64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Ok(mut m) = self.session.in_flight.lock()
            && m.get(&self.id).is_some_and(|(seq, _)| *seq == self.seq)
        {
            m.remove(&self.id);
        }
    }
}

/// The sessions of one endpoint.
#[derive(Debug)]
pub(super) struct SessionStore {
    map: Mutex<HashMap<String, Arc<LegacySession>>>,
    max: usize,
    idle: Duration,
    epoch: Instant,
}

impl SessionStore {
    pub fn new(max: usize, idle: Duration) -> Self {
        Self { map: Mutex::new(HashMap::new()), max: max.max(1), idle, epoch: Instant::now() }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn expired(&self, s: &LegacySession, now: u64) -> bool {
        let idle = u64::try_from(self.idle.as_millis()).unwrap_or(u64::MAX);
        now.saturating_sub(s.last_used.load(Ordering::Relaxed)) > idle && !s.busy()
    }

    /// Keep a new session; when the store is full, idle sessions go first, then the least
    /// recently used one.
    pub fn insert(&self, id: String, session: Arc<Session>, owner: Option<Principal>) {
        let now = self.now();
        let entry = Arc::new(LegacySession {
            session,
            pending: Arc::new(Pending::default()),
            owner,
            in_flight: Mutex::new(HashMap::new()),
            next_seq: AtomicU64::new(0),
            last_used: AtomicU64::new(now),
            closed: CancellationToken::new(),
            stream: Mutex::new(StreamState::default()),
        });
        let mut gone = Vec::new();
        if let Ok(mut map) = self.map.lock() {
            if map.len() >= self.max {
                let expired: Vec<String> =
                    map.iter().filter(|(_, s)| self.expired(s, now)).map(|(k, _)| k.clone()).collect();
                gone.extend(expired.iter().filter_map(|k| map.remove(k)));
            }
            while map.len() >= self.max {
                let oldest =
                    map.iter().min_by_key(|(_, s)| s.last_used.load(Ordering::Relaxed)).map(|(k, _)| k.clone());
                match oldest.and_then(|k| map.remove(&k)) {
                    Some(s) => gone.push(s),
                    None => break,
                }
            }
            map.insert(id, entry);
        }
        for s in gone {
            s.terminate();
        }
    }

    /// The live session with this id; an expired one is dropped and not found.
    pub fn get(&self, id: &str) -> Option<Arc<LegacySession>> {
        let now = self.now();
        let mut map = self.map.lock().ok()?;
        let s = map.get(id)?.clone();
        if self.expired(&s, now) {
            map.remove(id);
            drop(map);
            s.terminate();
            return None;
        }
        s.last_used.store(now, Ordering::Relaxed);
        Some(s)
    }

    /// End a session; `false` when there was none with this id.
    pub fn remove(&self, id: &str) -> bool {
        let removed = self.map.lock().ok().and_then(|mut m| m.remove(id));
        match removed {
            Some(s) => {
                s.terminate();
                true
            }
            None => false,
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.lock().map(|m| m.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClientCapabilities, Implementation, ProtocolVersion};

    fn session() -> Arc<Session> {
        Arc::new(Session::new(
            None,
            ProtocolVersion::LATEST_LEGACY,
            ClientCapabilities::default(),
            Implementation { name: "t".into(), version: "1".into(), title: None },
        ))
    }

    #[test]
    fn full_store_evicts_the_least_recently_used() {
        let store = SessionStore::new(2, Duration::from_secs(3600));
        store.insert("a".into(), session(), None);
        std::thread::sleep(Duration::from_millis(3));
        store.insert("b".into(), session(), None);
        std::thread::sleep(Duration::from_millis(3));
        assert!(store.get("a").is_some());
        std::thread::sleep(Duration::from_millis(3));
        store.insert("c".into(), session(), None);
        assert_eq!(store.len(), 2);
        assert!(store.get("a").is_some());
        assert!(store.get("b").is_none());
        assert!(store.get("c").is_some());
    }

    #[test]
    fn idle_sessions_expire_unless_busy() {
        let store = SessionStore::new(10, Duration::from_millis(1));
        store.insert("idle".into(), session(), None);
        store.insert("busy".into(), session(), None);
        let busy = store.get("busy").expect("fresh");
        let _guard = busy.begin(RequestId::Number(1), CancellationToken::new());
        std::thread::sleep(Duration::from_millis(10));
        assert!(store.get("idle").is_none());
        assert!(store.get("busy").is_some());
    }

    #[test]
    fn cancel_reaches_the_request_in_flight_and_remove_terminates() {
        let store = SessionStore::new(10, Duration::from_secs(60));
        store.insert("s".into(), session(), None);
        let s = store.get("s").expect("stored");
        let token = CancellationToken::new();
        let guard = s.begin(RequestId::String("r".into()), token.clone());
        s.cancel(&RequestId::String("r".into()));
        assert!(token.is_cancelled());
        drop(guard);
        let other = CancellationToken::new();
        let _g = s.begin(RequestId::Number(2), other.clone());
        assert!(store.remove("s"));
        assert!(other.is_cancelled());
        assert!(!store.remove("s"));
    }
}
