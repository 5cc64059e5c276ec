//! The legacy (2025-era) sessions of one HTTP endpoint: bounded in number, in all and per
//! caller, expired when idle, each with its back-channel table and its requests in flight.
//!
//! A full store never makes room with another caller's session: a caller at its own bound
//! gives up its least recently used idle session, and when the whole store is full (after the
//! expired sessions are dropped) `initialize` is refused.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::pending::Pending;
use roundtrip_core::server::Session;
use roundtrip_wire::RequestId;

use super::streams::{Full, StreamSlot, Streams};

/// One legacy session as the HTTP transport keeps it.
#[derive(Debug)]
pub(super) struct LegacySession {
    pub session: Arc<Session>,
    pub pending: Arc<Pending>,
    /// The identity of the authenticated caller that started it, if any: only the same caller
    /// may use it (a leaked session id is no way into another user's session).
    owner: Option<String>,
    /// Whom it counts against ([`super::caller`]).
    caller: Option<String>,
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
    /// The slot of the stream budget the session holds while it has a stream, passed from a
    /// stream to the one that replaces it.
    slot: Option<StreamSlot>,
}

impl LegacySession {
    /// Whether the caller of `identity` may use the session: the one that started it (or, for
    /// a session started by an anonymous caller, an anonymous request).
    pub fn owned_by(&self, identity: Option<&str>) -> bool {
        self.owner.as_deref() == identity
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
    /// reconnects is not locked out by a stream it lost). A session without a stream takes a
    /// slot of `streams` first, counted against the session's caller.
    pub fn open_stream(self: &Arc<Self>, streams: &Arc<Streams>) -> Result<StreamGuard, Full> {
        // A poisoned lock (a panic elsewhere) refuses as a full budget would.
        let mut state = self.stream.lock().map_err(|_| Full::All(streams.max()))?;
        if state.slot.is_none() {
            state.slot = Some(streams.open(self.caller.as_deref())?);
        }
        let stop = self.closed.child_token();
        if let Some(previous) = state.stop.replace(stop.clone()) {
            previous.cancel();
        }
        state.open += 1;
        Ok(StreamGuard { session: self.clone(), stop })
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
    map: Mutex<Map>,
    max: usize,
    per_caller: usize,
    idle: Duration,
    epoch: Instant,
}

#[derive(Debug, Default)]
struct Map {
    by_id: HashMap<String, Arc<LegacySession>>,
    /// The ids of each caller's sessions.
    by_caller: HashMap<String, Vec<String>>,
}

impl Map {
    fn remove(&mut self, id: &str) -> Option<Arc<LegacySession>> {
        let session = self.by_id.remove(id)?;
        if let Some(caller) = &session.caller
            && let Some(ids) = self.by_caller.get_mut(caller)
        {
            ids.retain(|i| i != id);
            if ids.is_empty() {
                self.by_caller.remove(caller);
            }
        }
        Some(session)
    }
}

/// Why `initialize` got no session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SessionsFull {
    /// [`HttpOptions::max_sessions`](super::HttpOptions::max_sessions).
    All(usize),
    /// [`HttpOptions::max_sessions_per_caller`](super::HttpOptions::max_sessions_per_caller),
    /// every one of them busy.
    Caller(usize),
}

impl SessionsFull {
    /// `503` naming the limit.
    pub fn response(self) -> axum::response::Response {
        let (limit, max, why) = match self {
            Self::All(max) => ("max_sessions", max, format!("the server keeps {max} sessions")),
            Self::Caller(max) => {
                ("max_sessions_per_caller", max, format!("this client has {max} sessions, all of them busy"))
            }
        };
        tracing::warn!(target: "roundtrip::limits", limit, max, "session refused");
        super::limits::unavailable(limit, max, &format!("Server busy: {why} (HttpOptions::{limit}); retry later"))
    }
}

impl SessionStore {
    pub fn new(max: usize, per_caller: usize, idle: Duration) -> Self {
        // `max` 0 is refused before a session is made (post.rs, `no_sessions`).
        Self { map: Mutex::default(), max: max.max(1), per_caller: per_caller.max(1), idle, epoch: Instant::now() }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn expired(&self, s: &LegacySession, now: u64) -> bool {
        let idle = u64::try_from(self.idle.as_millis()).unwrap_or(u64::MAX);
        now.saturating_sub(s.last_used.load(Ordering::Relaxed)) > idle && !s.busy()
    }

    /// Keep a new session of `caller`. A caller at its bound gives up its own least recently
    /// used idle session; a full store drops its expired sessions, and refuses when none is.
    pub fn insert(
        &self,
        id: String,
        session: Arc<Session>,
        owner: Option<String>,
        caller: Option<String>,
    ) -> Result<(), SessionsFull> {
        let now = self.now();
        let entry = Arc::new(LegacySession {
            session,
            pending: Arc::new(Pending::default()),
            owner,
            caller: caller.clone(),
            in_flight: Mutex::new(HashMap::new()),
            next_seq: AtomicU64::new(0),
            last_used: AtomicU64::new(now),
            closed: CancellationToken::new(),
            stream: Mutex::new(StreamState::default()),
        });
        let mut gone = Vec::new();
        let result = self.make_room(caller.as_deref(), now, &mut gone).map(|mut map| {
            if let Some(caller) = caller {
                map.by_caller.entry(caller).or_default().push(id.clone());
            }
            map.by_id.insert(id, entry);
        });
        for s in gone {
            s.terminate();
        }
        result
    }

    /// The map, with room for one more session of `caller`; what had to go is in `gone`.
    fn make_room(
        &self,
        caller: Option<&str>,
        now: u64,
        gone: &mut Vec<Arc<LegacySession>>,
    ) -> Result<std::sync::MutexGuard<'_, Map>, SessionsFull> {
        let mut map = self.map.lock().map_err(|_| SessionsFull::All(self.max))?;
        if let Some(ids) = caller.and_then(|c| map.by_caller.get(c))
            && ids.len() >= self.per_caller
        {
            let oldest_idle = ids
                .iter()
                .filter_map(|id| map.by_id.get(id).map(|s| (id, s)))
                .filter(|(_, s)| !s.busy())
                .min_by_key(|(_, s)| s.last_used.load(Ordering::Relaxed))
                .map(|(id, _)| id.clone());
            let Some(id) = oldest_idle else { return Err(SessionsFull::Caller(self.per_caller)) };
            gone.extend(map.remove(&id));
        }
        if map.by_id.len() >= self.max {
            let expired: Vec<String> =
                map.by_id.iter().filter(|(_, s)| self.expired(s, now)).map(|(k, _)| k.clone()).collect();
            for id in expired {
                gone.extend(map.remove(&id));
            }
            if map.by_id.len() >= self.max {
                return Err(SessionsFull::All(self.max));
            }
        }
        Ok(map)
    }

    /// The live session with this id; an expired one is dropped and not found.
    pub fn get(&self, id: &str) -> Option<Arc<LegacySession>> {
        let now = self.now();
        let mut map = self.map.lock().ok()?;
        let s = map.by_id.get(id)?.clone();
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
        self.map.lock().map(|m| m.by_id.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roundtrip_wire::{ClientCapabilities, Implementation, ProtocolVersion};

    fn session() -> Arc<Session> {
        Arc::new(Session::new(
            None,
            ProtocolVersion::LATEST_LEGACY,
            ClientCapabilities::default(),
            Implementation::new("t", "1"),
        ))
    }

    fn caller(name: &str) -> Option<String> {
        Some(name.to_owned())
    }

    #[test]
    fn a_caller_at_its_bound_gives_up_its_own_least_recently_used_idle_session() {
        let store = SessionStore::new(10, 2, Duration::from_secs(3600));
        store.insert("a1".into(), session(), None, caller("a")).expect("room");
        std::thread::sleep(Duration::from_millis(3));
        store.insert("b1".into(), session(), None, caller("b")).expect("room");
        store.insert("a2".into(), session(), None, caller("a")).expect("room");
        std::thread::sleep(Duration::from_millis(3));
        assert!(store.get("a1").is_some());
        std::thread::sleep(Duration::from_millis(3));
        store.insert("a3".into(), session(), None, caller("a")).expect("its own idle one goes");
        assert_eq!(store.len(), 3);
        assert!(store.get("a2").is_none());
        assert!(store.get("a1").is_some() && store.get("a3").is_some() && store.get("b1").is_some());
        // Every one of its sessions busy: refused, nothing evicted.
        let (a1, a3) = (store.get("a1").expect("kept"), store.get("a3").expect("kept"));
        let _busy = (
            a1.begin(RequestId::Number(1), CancellationToken::new()),
            a3.begin(RequestId::Number(2), CancellationToken::new()),
        );
        assert_eq!(store.insert("a4".into(), session(), None, caller("a")), Err(SessionsFull::Caller(2)));
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn a_full_store_never_evicts_another_callers_session() {
        let store = SessionStore::new(2, 10, Duration::from_secs(3600));
        store.insert("a".into(), session(), None, caller("a")).expect("room");
        store.insert("b".into(), session(), None, caller("b")).expect("room");
        assert_eq!(store.insert("c".into(), session(), None, caller("c")), Err(SessionsFull::All(2)));
        assert!(store.get("a").is_some() && store.get("b").is_some() && store.get("c").is_none());
        // An expired session makes room.
        let store = SessionStore::new(1, 10, Duration::from_millis(1));
        store.insert("a".into(), session(), None, caller("a")).expect("room");
        std::thread::sleep(Duration::from_millis(5));
        store.insert("b".into(), session(), None, caller("b")).expect("the expired one went");
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn idle_sessions_expire_unless_busy() {
        let store = SessionStore::new(10, 10, Duration::from_millis(1));
        store.insert("idle".into(), session(), None, None).expect("room");
        store.insert("busy".into(), session(), None, None).expect("room");
        let busy = store.get("busy").expect("fresh");
        let _guard = busy.begin(RequestId::Number(1), CancellationToken::new());
        std::thread::sleep(Duration::from_millis(10));
        assert!(store.get("idle").is_none());
        assert!(store.get("busy").is_some());
    }

    #[test]
    fn cancel_reaches_the_request_in_flight_and_remove_terminates() {
        let store = SessionStore::new(10, 10, Duration::from_secs(60));
        store.insert("s".into(), session(), None, None).expect("room");
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
