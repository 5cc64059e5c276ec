//! Changes announced through Redis pub/sub, so that a replica running a task's body is woken
//! when another replica answers or cancels it, instead of reading the record every
//! `watch_interval`.
//!
//! A change that a [`TaskStore::modify`](roundtrip_core::task::TaskStore::modify) commits is published
//! (by the same script that commits it) on [`CHANNEL`], with the task's key as the message (so
//! deployments with different key prefixes in one Redis tell their tasks apart). Each store
//! keeps one subscribed connection, read by a background task that wakes the watchers of that
//! key in this process.
//!
//! Pub/sub delivers at most once: a message published while the subscription is down is lost.
//! So a watcher is only handed out while the subscription is live, and when it drops every
//! watcher handed out is closed, which tells the task's watcher to read the record and poll
//! from then on (see `task::watch`). After a reconnection new watchers are announced again.
//! A subscription that hangs rather than drops (Redis paused, a network partition) is found
//! by a `PING` every two seconds that must be answered within one, and is then made again
//! the same way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt as _;
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

/// Where every change is announced.
pub(super) const CHANNEL: &str = "roundtrip:task-changes";

/// The pause before subscribing again after the subscription failed or dropped.
const RESUBSCRIBE_AFTER: Duration = Duration::from_millis(500);

/// How often the subscribed connection is asked for a `PING`, and how long its answer may
/// take before the subscription is taken for dead.
const PING_EVERY: Duration = Duration::from_secs(2);
const PING_TIMEOUT: Duration = Duration::from_secs(1);

/// How long subscribing may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The watchers of one store, shared with its listener.
#[derive(Default)]
struct Watchers {
    /// `None` while the subscription is down: nothing can be announced then.
    by_key: Option<HashMap<String, watch::Sender<()>>>,
    /// The size of `by_key` after its last sweep of watchers nobody holds any more.
    swept_at: usize,
}

/// The announcements of one store; its clones share one subscription, which ends when the
/// last clone is dropped.
#[derive(Clone)]
pub(super) struct Announcements {
    watchers: Arc<Mutex<Watchers>>,
    _listening: Arc<DropGuard>,
}

impl Announcements {
    /// Subscribe to [`CHANNEL`] and keep the subscription up until the last clone is dropped.
    /// The first subscription is made before this returns (when Redis takes it), so changes
    /// committed from then on are announced.
    pub(super) async fn subscribe(client: redis::Client) -> Self {
        let watchers = Arc::new(Mutex::new(Watchers::default()));
        let stop = CancellationToken::new();
        let first = connect(&client, false).await;
        tokio::spawn(listen(client, first, watchers.clone(), stop.clone()));
        Self { watchers, _listening: Arc::new(stop.drop_guard()) }
    }

    /// A receiver woken by each announced change of the task at `key`; `None` while the
    /// subscription is down.
    pub(super) fn watch(&self, key: &str) -> Option<watch::Receiver<()>> {
        let mut watchers = self.watchers.lock().ok()?;
        let Watchers { by_key, swept_at } = &mut *watchers;
        let by_key = by_key.as_mut()?;
        // Tasks that ended dropped their receivers: sweep them out whenever the map has
        // doubled since the last sweep, so it stays proportional to the tasks running here.
        if by_key.len() >= 2 * (*swept_at).max(64) {
            by_key.retain(|_, sender| !sender.is_closed());
            *swept_at = by_key.len();
        }
        let sender = by_key.entry(key.to_owned()).or_insert_with(|| watch::channel(()).0);
        Some(sender.subscribe())
    }
}

/// A connection subscribed to [`CHANNEL`] (split, so that it can be pinged while its
/// messages are read), or `None` (logged; at debug level when `quiet`) when Redis refuses it
/// or does not answer within [`CONNECT_TIMEOUT`].
async fn connect(client: &redis::Client, quiet: bool) -> Option<Subscription> {
    let subscribed = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(CHANNEL).await?;
        Ok::<_, redis::RedisError>(pubsub.split())
    };
    let why = match tokio::time::timeout(CONNECT_TIMEOUT, subscribed).await {
        Ok(Ok(subscription)) => return Some(subscription),
        Ok(Err(e)) => e.to_string(),
        Err(_) => format!("no answer within {CONNECT_TIMEOUT:?}"),
    };
    if quiet {
        tracing::debug!(target: "roundtrip::task", "redis: cannot subscribe to task changes yet: {why}");
    } else {
        tracing::warn!(target: "roundtrip::task", "redis: cannot subscribe to task changes, polling instead: {why}");
    }
    None
}

/// A subscribed connection: where its commands go (`PING`), and its messages.
type Subscription = (redis::aio::PubSubSink, redis::aio::PubSubStream);

/// Wake the watchers of each announced key; on a dropped subscription, or one that does not
/// answer a `PING` within [`PING_TIMEOUT`] (a Redis that hangs looks alive to a connection
/// that only reads), close every watcher and subscribe again, until `stop`.
async fn listen(
    client: redis::Client,
    mut subscribed: Option<Subscription>,
    watchers: Arc<Mutex<Watchers>>,
    stop: CancellationToken,
) {
    // Whether the subscription is known to be down (said once per outage).
    let mut down = subscribed.is_none();
    loop {
        if let Some((mut sink, mut messages)) = subscribed.take() {
            if down {
                tracing::info!(target: "roundtrip::task", "redis: subscribed to task changes again");
            }
            if let Ok(mut w) = watchers.lock() {
                *w = Watchers { by_key: Some(HashMap::new()), swept_at: 0 };
            }
            let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + PING_EVERY, PING_EVERY);
            ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let why = loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    message = messages.next() => {
                        let Some(message) = message else { break "dropped".to_owned() };
                        let Ok(key) = std::str::from_utf8(message.get_payload_bytes()) else { continue };
                        wake(&watchers, key);
                    }
                    _ = ping.tick() => {
                        // Messages that arrive meanwhile wait in the stream.
                        match tokio::time::timeout(PING_TIMEOUT, sink.ping::<redis::Value>()).await {
                            Ok(Ok(_)) => {}
                            Ok(Err(e)) => break format!("failed a PING: {e}"),
                            Err(_) => break format!("did not answer a PING within {PING_TIMEOUT:?}"),
                        }
                    }
                }
            };
            tracing::warn!(target: "roundtrip::task", "redis: the subscription to task changes {why}; polling until it is back");
            down = true;
        }
        // Closing every watcher makes each task's watcher read its record now (a change may
        // have been published while nobody listened) and poll until it watches again.
        if let Ok(mut w) = watchers.lock() {
            *w = Watchers::default();
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(RESUBSCRIBE_AFTER) => {}
        }
        subscribed = connect(&client, down).await;
    }
}

fn wake(watchers: &Mutex<Watchers>, key: &str) {
    let Ok(mut watchers) = watchers.lock() else { return };
    let Some(by_key) = watchers.by_key.as_mut() else { return };
    if let Some(sender) = by_key.get(key)
        && sender.send(()).is_err()
    {
        // Nobody watches it any more (the task ended here).
        by_key.remove(key);
    }
}
