//! The budget of long-lived streams: `subscriptions/listen` responses (2026-07-28) and the
//! standalone `GET` streams of legacy sessions. They are not requests in flight (they would
//! hold those slots for hours); they have a bound of their own in all
//! ([`HttpOptions::max_streams`](super::HttpOptions::max_streams)) and per caller
//! ([`HttpOptions::max_streams_per_caller`](super::HttpOptions::max_streams_per_caller)), so
//! that one client holding streams open cannot refuse every other one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The streams open on one endpoint.
#[derive(Debug)]
pub(super) struct Streams {
    slots: Arc<Semaphore>,
    max: usize,
    per_caller: usize,
    by_caller: Mutex<HashMap<String, usize>>,
}

/// Which limit refused a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Full {
    /// [`HttpOptions::max_streams`](super::HttpOptions::max_streams).
    All(usize),
    /// [`HttpOptions::max_streams_per_caller`](super::HttpOptions::max_streams_per_caller).
    Caller(usize),
}

impl Full {
    /// `503` naming the limit; `501` where no stream is ever served.
    pub fn response(self) -> axum::response::Response {
        if self == Self::All(0) {
            return crate::reply::no_streams().map(axum::body::Body::from);
        }
        let (limit, max, whose) = match self {
            Self::All(max) => ("max_streams", max, "the server has"),
            Self::Caller(max) => ("max_streams_per_caller", max, "this client has"),
        };
        tracing::warn!(target: "roundtrip::limits", limit, max, "stream refused");
        super::limits::unavailable(
            limit,
            max,
            &format!("Server busy: {whose} {max} streams open (HttpOptions::{limit}); close one or retry later"),
        )
    }
}

/// One open stream's share of the budget, given back when dropped.
#[derive(Debug)]
pub(super) struct StreamSlot {
    _permit: OwnedSemaphorePermit,
    caller: Option<(Arc<Streams>, String)>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        if let Some((streams, caller)) = self.caller.take()
            && let Ok(mut by_caller) = streams.by_caller.lock()
            && let Some(n) = by_caller.get_mut(&caller)
        {
            *n -= 1;
            if *n == 0 {
                by_caller.remove(&caller);
            }
        }
    }
}

impl Streams {
    /// At most `max` streams (`0`: none), `per_caller` (at least 1) of one caller.
    pub fn new(max: usize, per_caller: usize) -> Arc<Self> {
        let max = max.min(Semaphore::MAX_PERMITS);
        Arc::new(Self {
            slots: Arc::new(Semaphore::new(max)),
            max,
            per_caller: per_caller.max(1),
            by_caller: Mutex::new(HashMap::new()),
        })
    }

    /// The most streams open at once.
    pub fn max(&self) -> usize {
        self.max
    }

    /// A slot for a stream of `caller` (its principal or address; `None`, when neither is
    /// known, counts against the endpoint's bound only).
    pub fn open(self: &Arc<Self>, caller: Option<&str>) -> Result<StreamSlot, Full> {
        // Taken first: a refusal below drops it, giving it back.
        let permit = self.slots.clone().try_acquire_owned().map_err(|_| Full::All(self.max))?;
        let Some(caller) = caller else { return Ok(StreamSlot { _permit: permit, caller: None }) };
        let mut by_caller = self.by_caller.lock().map_err(|_| Full::All(self.max))?;
        let n = by_caller.entry(caller.to_owned()).or_insert(0);
        if *n >= self.per_caller {
            return Err(Full::Caller(self.per_caller));
        }
        *n += 1;
        Ok(StreamSlot { _permit: permit, caller: Some((self.clone(), caller.to_owned())) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_means_none() {
        let streams = Streams::new(0, 32);
        assert_eq!(streams.open(Some("a")).err(), Some(Full::All(0)));
        assert_eq!(streams.open(None).err(), Some(Full::All(0)));
        assert_eq!(Full::All(0).response().status(), http::StatusCode::NOT_IMPLEMENTED);
    }

    #[test]
    fn one_caller_cannot_take_every_stream() {
        let streams = Streams::new(4, 2);
        let a1 = streams.open(Some("a")).expect("first");
        let _a2 = streams.open(Some("a")).expect("second");
        assert_eq!(streams.open(Some("a")).err(), Some(Full::Caller(2)));
        let _b = streams.open(Some("b")).expect("another caller");
        let _anonymous = streams.open(None).expect("counted in all only");
        assert_eq!(streams.open(Some("c")).err(), Some(Full::All(4)));
        drop(a1);
        let _c = streams.open(Some("c")).expect("a slot came back");
        assert_eq!(streams.open(Some("a")).err(), Some(Full::All(4)));
        assert_eq!(streams.open(Some("d")).err(), Some(Full::All(4)));
        assert_eq!(streams.by_caller.lock().map(|m| m.get("a").copied()).ok().flatten(), Some(1));
    }
}
