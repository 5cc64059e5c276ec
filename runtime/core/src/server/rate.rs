//! How fast a caller may call a tool: a token bucket for each caller and tool
//! ([`Server::rate_limit`](super::Server::rate_limit),
//! [`Server::tool_rate_limit`](super::Server::tool_rate_limit)).
//!
//! A bucket holds at most `calls` tokens and gains `calls` per `per`, evenly; each `tools/call`
//! request takes one (every leg of a multi-round flow is a request: size `calls` for the
//! longest flow), and a request that finds none is refused with `-32000` saying when to retry.
//! Buckets live in the replica that counts them: behind a balancer over `n` replicas a caller
//! may get up to `n` times the rate.
//!
//! What the buckets hold is bounded: a bucket that has filled up again is the same as none and
//! is dropped when the map is swept; at [`MAX_BUCKETS`] with none to drop, a tenth of them
//! is dropped anyway (those callers start again with a full bucket: a caller that spreads its
//! calls over more than that many identities gets more calls, never the others fewer).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::protocol::ErrorObject;
use crate::request::CallerId;

/// The most buckets one server holds.
pub(crate) const MAX_BUCKETS: usize = 100_000;

/// At most `calls` calls per `per`, for one caller and one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rate {
    pub calls: u32,
    pub per: Duration,
}

impl Rate {
    /// `calls` (at least 1) per `per`; none for a zero `per`.
    pub fn new(calls: u32, per: Duration) -> Option<Self> {
        (!per.is_zero()).then_some(Self { calls: calls.max(1), per })
    }

    /// Milliseconds for one token to come back.
    fn ms_per_token(self) -> f64 {
        self.per.as_secs_f64() * 1000.0 / f64::from(self.calls)
    }

    /// The tokens of a bucket that held `tokens` at `at`, by `now_ms`, before the cap of
    /// `calls`.
    fn refilled(self, (tokens, at): (f64, u64), now_ms: u64) -> f64 {
        tokens + now_ms.saturating_sub(at) as f64 / self.ms_per_token()
    }
}

/// The rates a server applies, and the buckets it counts them in (shared by its clones).
#[derive(Debug, Clone, Default)]
pub(crate) struct RateLimits {
    /// Every tool's rate, unless it has its own.
    pub every_tool: Option<Rate>,
    /// A tool's own rate.
    pub by_tool: HashMap<String, Rate>,
    buckets: Arc<Mutex<Buckets>>,
}

#[derive(Debug, Default)]
struct Buckets {
    /// tool → caller → (tokens, when they were counted, Unix ms). Nested, so that a bucket
    /// is found by the names as they come, without building a key.
    held: HashMap<Arc<str>, HashMap<CallerId, (f64, u64)>>,
    /// How many buckets `held` holds.
    count: usize,
}

impl RateLimits {
    /// Whether any rate is set (nothing is counted otherwise).
    pub fn any(&self) -> bool {
        self.every_tool.is_some() || !self.by_tool.is_empty()
    }

    /// The rate of `tool`: its own, else every tool's.
    fn rate_of(&self, tool: &str) -> Option<Rate> {
        self.by_tool.get(tool).or(self.every_tool.as_ref()).copied()
    }

    /// Take a token of `caller`'s bucket for `tool` at `now_ms`, or the error saying when to
    /// retry.
    pub fn take(&self, caller: &CallerId, tool: &Arc<str>, now_ms: u64) -> Result<(), ErrorObject> {
        let Some(rate) = self.rate_of(tool) else {
            return Ok(());
        };
        let spent = {
            let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
            match buckets.held.get_mut(&**tool).and_then(|callers| callers.get_mut(caller)) {
                Some(bucket) => spend(bucket, rate, now_ms),
                None => {
                    // A new bucket, full but for this call.
                    if buckets.count >= MAX_BUCKETS {
                        buckets.sweep(now_ms, |tool| self.rate_of(tool));
                    }
                    buckets.count += 1;
                    let bucket = (f64::from(rate.calls) - 1.0, now_ms);
                    buckets.held.entry(Arc::clone(tool)).or_default().insert(caller.clone(), bucket);
                    Ok(())
                }
            }
        };
        let Err(retry_after_ms) = spent else { return Ok(()) };
        tracing::info!(target: "roundtrip::limits", limit = "tool_rate", %tool, calls = rate.calls,
            per_ms = rate.per.as_millis() as u64, "call refused");
        crate::observe::limit("tool_rate");
        Err(ErrorObject::rate_limited(
            "tool_rate",
            rate.calls as usize,
            rate.per,
            Duration::from_millis(retry_after_ms),
        ))
    }
}

/// Take a token of `bucket` (tokens, when counted) at `now_ms`, or how many milliseconds until
/// there is one.
fn spend(bucket: &mut (f64, u64), rate: Rate, now_ms: u64) -> Result<(), u64> {
    let refilled = rate.refilled(*bucket, now_ms).min(f64::from(rate.calls));
    if refilled >= 1.0 {
        *bucket = (refilled - 1.0, now_ms);
        return Ok(());
    }
    *bucket = (refilled, now_ms);
    Err(((1.0 - refilled) * rate.ms_per_token()).ceil() as u64)
}

impl Buckets {
    /// Drop the buckets that have filled up again; if none has, a tenth of them.
    fn sweep(&mut self, now_ms: u64, rate_of: impl Fn(&str) -> Option<Rate>) {
        let before = self.count;
        for (tool, callers) in &mut self.held {
            let Some(rate) = rate_of(tool) else {
                callers.clear();
                continue;
            };
            callers.retain(|_, bucket| rate.refilled(*bucket, now_ms) < f64::from(rate.calls));
        }
        let mut left = self.held.values().map(HashMap::len).sum::<usize>();
        if left == before {
            // None has filled up again: a tenth go anyway.
            let mut drop = before / 10 + 1;
            for callers in self.held.values_mut() {
                let gone: Vec<CallerId> = callers.keys().take(drop).cloned().collect();
                gone.iter().for_each(|caller| {
                    callers.remove(caller);
                });
                drop -= gone.len();
                left -= gone.len();
                if drop == 0 {
                    break;
                }
            }
        }
        self.held.retain(|_, callers| !callers.is_empty());
        self.count = left;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(calls: u32, per_ms: u64) -> RateLimits {
        RateLimits { every_tool: Some(Rate { calls, per: Duration::from_millis(per_ms) }), ..Default::default() }
    }

    fn who(name: &str) -> CallerId {
        CallerId::Principal(name.to_owned())
    }

    fn retry_after_ms(e: &ErrorObject) -> u64 {
        e.data.as_ref().and_then(|d| d["retryAfterMs"].as_u64()).unwrap_or(u64::MAX)
    }

    #[test]
    fn a_bucket_refills_evenly_and_says_when_to_retry() {
        let rates = limits(2, 1000);
        let tool: Arc<str> = "t".into();
        assert!(rates.take(&who("a"), &tool, 0).is_ok());
        assert!(rates.take(&who("a"), &tool, 0).is_ok());
        let refused = rates.take(&who("a"), &tool, 100).unwrap_err();
        assert_eq!((refused.code, retry_after_ms(&refused)), (-32000, 400));
        // Half a period later one token is back, and only one.
        assert!(rates.take(&who("a"), &tool, 500).is_ok());
        assert!(rates.take(&who("a"), &tool, 500).is_err());
        // Never more than `calls`, however long the caller waited.
        assert!(rates.take(&who("a"), &tool, 60_000).is_ok());
        assert!(rates.take(&who("a"), &tool, 60_000).is_ok());
        assert!(rates.take(&who("a"), &tool, 60_000).is_err());
    }

    #[test]
    fn callers_and_tools_have_buckets_of_their_own() {
        let mut rates = limits(1, 1000);
        rates.by_tool.insert("cheap".into(), Rate { calls: 3, per: Duration::from_secs(1) });
        let (costly, cheap): (Arc<str>, Arc<str>) = ("costly".into(), "cheap".into());
        assert!(rates.take(&who("a"), &costly, 0).is_ok());
        assert!(rates.take(&who("a"), &costly, 0).is_err());
        assert!(rates.take(&who("b"), &costly, 0).is_ok(), "another caller is not counted against a");
        for _ in 0..3 {
            assert!(rates.take(&who("a"), &cheap, 0).is_ok(), "a tool's own rate");
        }
        assert!(rates.take(&who("a"), &cheap, 0).is_err());
    }

    #[test]
    fn the_buckets_stay_bounded() {
        let rates = limits(1, 1000);
        let tool: Arc<str> = "t".into();
        for i in 0..MAX_BUCKETS + 10 {
            let _ = rates.take(&who(&format!("caller-{i}")), &tool, 0);
        }
        assert!(rates.buckets.lock().unwrap().count <= MAX_BUCKETS);
        // Once they have filled up again, a sweep drops them all.
        let _ = rates.take(&who("late"), &tool, 5_000);
        for i in 0..MAX_BUCKETS {
            let _ = rates.take(&who(&format!("again-{i}")), &tool, 5_000);
        }
        let buckets = rates.buckets.lock().unwrap();
        assert!(buckets.count <= MAX_BUCKETS);
        assert_eq!(buckets.count, buckets.held.values().map(HashMap::len).sum::<usize>(), "counted right");
    }
}
