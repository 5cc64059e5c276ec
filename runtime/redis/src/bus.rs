//! The fleet's bus in Redis ([`RedisBus`]): list changes, resource updates and run-time
//! registrations shared by the replicas that use one Redis.
//!
//! Events go into a Redis stream (`XADD`, capped at [`MAX_EVENTS`]) that every replica reads
//! from where it stopped (`XREAD BLOCK`), not through pub/sub: pub/sub loses what is published
//! while a subscriber is away, a stream keeps it, so a replica that lost Redis for a while
//! still gets every event of the outage when it is back (at least once: a publish retried
//! after a timeout may land twice; the server drops the second). Registrations are also kept
//! in a hash, the latest event of each definition, given to a replica when it attaches and
//! after each outage, so a replica started later has what was registered before it.
//!
//! Nothing waits on Redis: [`publish`](Bus::publish) queues (at most [`MAX_QUEUED`] events,
//! the oldest dropped beyond), a writer task sends the queue in order and retries while Redis
//! is away, and a reader task that gets no answer within its block time plus a second takes
//! the bus for down and connects again. [`is_up`](Bus::is_up) is `false` while either fails,
//! so readiness follows.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::{ConnectionManager, MultiplexedConnection};
use redis::streams::{StreamRangeReply, StreamReadReply};
use roundtrip_core::server::{Bus, Inbox};
use tokio::sync::Notify;
use tokio_util::sync::{CancellationToken, DropGuard};

/// The most events the stream keeps (about: Redis trims whole blocks). A replica away for
/// longer than this many events takes every list as changed when it is back.
const MAX_EVENTS: usize = 10_000;

/// The most events waiting to be sent while Redis is away; beyond, the oldest are dropped
/// (logged). Events are rare (an administrator's change, a resource update).
const MAX_QUEUED: usize = 4096;

/// How long one `XREAD` waits for events: also how soon a hung Redis is noticed (plus a
/// second for the answer).
const BLOCK: Duration = Duration::from_secs(1);

/// The pause before connecting again, or sending again, after a failure.
const RETRY_AFTER: Duration = Duration::from_millis(500);

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The field of a stream entry that holds the event.
const FIELD: &str = "e";

/// A [`Bus`] in Redis: give every replica one connected to the same Redis
/// (`Server::bus(RedisBus::connect(url).await?)`).
///
/// ```no_run
/// # async fn run() -> Result<(), String> {
/// // In an application: `roundtrip::Server` and `roundtrip::redis::RedisBus`.
/// use roundtrip_core::server::Server;
/// use roundtrip_redis::RedisBus;
///
/// let server = Server::new("fleet", "1.0.0").bus(RedisBus::connect("redis://127.0.0.1/").await?);
/// # Ok(()) }
/// ```
pub struct RedisBus {
    client: redis::Client,
    shared: Arc<Shared>,
    stop: CancellationToken,
    _stopping: Arc<DropGuard>,
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus").field("stream", &self.shared.stream).finish_non_exhaustive()
    }
}

/// What the bus, its writer and its reader share.
struct Shared {
    /// The stream's key, and the kept events' hash.
    stream: String,
    kept: String,
    outbox: Mutex<VecDeque<(String, Option<String>)>>,
    queued: Notify,
    /// Whether the last send succeeded, and whether the reader reads.
    writing: AtomicBool,
    reading: AtomicBool,
}

impl RedisBus {
    /// Connect to the Redis at `url` (`redis://…`, or `rediss://…` over TLS); the keys are
    /// `roundtrip:bus:events` (the stream) and `roundtrip:bus:kept` (the hash).
    pub async fn connect(url: &str) -> Result<Self, String> {
        Self::connect_with_prefix(url, "roundtrip:bus:").await
    }

    /// [`connect`](Self::connect), with the keys under another prefix (several fleets in one
    /// Redis).
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<Self, String> {
        let (client, connection) = super::connect(url).await?;
        let shared = Arc::new(Shared {
            stream: format!("{prefix}events"),
            kept: format!("{prefix}kept"),
            outbox: Mutex::new(VecDeque::new()),
            queued: Notify::new(),
            writing: AtomicBool::new(true),
            reading: AtomicBool::new(false),
        });
        let stop = CancellationToken::new();
        tokio::spawn(write(connection, shared.clone(), stop.clone()));
        Ok(Self { client, shared, stop: stop.clone(), _stopping: Arc::new(stop.drop_guard()) })
    }
}

impl RedisBus {
    /// How many events wait to be sent (Redis away, or not yet reached): a process that
    /// publishes and then exits waits for none to be left.
    pub fn pending(&self) -> usize {
        self.shared.outbox.lock().map_or(0, |outbox| outbox.len())
    }
}

impl Bus for RedisBus {
    fn publish(&self, event: String, keep: Option<String>) {
        let Ok(mut outbox) = self.shared.outbox.lock() else { return };
        if outbox.len() >= MAX_QUEUED {
            outbox.pop_front();
            roundtrip_core::observe::bus("dropped");
            tracing::warn!(target: "roundtrip::bus", "redis: {MAX_QUEUED} events wait to be sent; dropped the oldest");
        }
        outbox.push_back((event, keep));
        self.shared.queued.notify_one();
    }

    fn attach(&self, inbox: Inbox) {
        tokio::spawn(read(self.client.clone(), self.shared.clone(), inbox, self.stop.clone()));
    }

    fn is_up(&self) -> bool {
        self.shared.reading.load(Ordering::Relaxed) && self.shared.writing.load(Ordering::Relaxed)
    }
}

/// Send the queued events in order, each with its kept copy in one transaction; on a failure
/// wait [`RETRY_AFTER`] and send it again, until `stop`.
async fn write(mut connection: ConnectionManager, shared: Arc<Shared>, stop: CancellationToken) {
    loop {
        let next = shared.outbox.lock().ok().and_then(|outbox| outbox.front().cloned());
        let Some((event, keep)) = next else {
            tokio::select! {
                () = stop.cancelled() => return,
                () = shared.queued.notified() => continue,
            }
        };
        let mut send = redis::pipe();
        send.atomic();
        send.cmd("XADD").arg(&shared.stream).arg("MAXLEN").arg("~").arg(MAX_EVENTS).arg("*").arg(FIELD).arg(&event);
        if let Some(key) = &keep {
            send.cmd("HSET").arg(&shared.kept).arg(key).arg(&event);
        }
        let sent = tokio::select! {
            () = stop.cancelled() => return,
            sent = send.query_async::<redis::Value>(&mut connection) => sent,
        };
        match sent {
            Ok(_) => {
                if let Ok(mut outbox) = shared.outbox.lock() {
                    outbox.pop_front();
                }
                if !shared.writing.swap(true, Ordering::Relaxed) {
                    tracing::info!(target: "roundtrip::bus", "redis: sending the fleet's events again");
                }
            }
            Err(e) => {
                if shared.writing.swap(false, Ordering::Relaxed) {
                    roundtrip_core::observe::bus("outage");
                    tracing::warn!(target: "roundtrip::bus", "redis: cannot send the fleet's events, retrying: {e}");
                }
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(RETRY_AFTER) => {}
                }
            }
        }
    }
}

/// Deliver the kept events and then the stream to `inbox`, connecting again after each
/// failure, until `stop` or the server is gone.
async fn read(client: redis::Client, shared: Arc<Shared>, inbox: Inbox, stop: CancellationToken) {
    // Where this replica has read up to: the stream is read on from there after an outage.
    let mut cursor: Option<String> = None;
    loop {
        let why = tokio::select! {
            () = stop.cancelled() => return,
            ended = session(&client, &shared, &inbox, &mut cursor) => match ended {
                Ok(()) => return,
                Err(why) => why,
            },
        };
        if shared.reading.swap(false, Ordering::Relaxed) {
            roundtrip_core::observe::bus("outage");
            tracing::warn!(target: "roundtrip::bus", "redis: the fleet's events {why}; reading again when it is back");
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(RETRY_AFTER) => {}
        }
    }
}

/// One connection's reading: `Ok` when the server is gone, `Err` with why it failed.
async fn session(
    client: &redis::Client,
    shared: &Shared,
    inbox: &Inbox,
    cursor: &mut Option<String>,
) -> Result<(), String> {
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(BLOCK + Duration::from_secs(1)));
    let mut connection: MultiplexedConnection =
        tokio::time::timeout(CONNECT_TIMEOUT, client.get_multiplexed_async_connection_with_config(&config))
            .await
            .map_err(|_| format!("cannot be read: no connection within {CONNECT_TIMEOUT:?}"))?
            .map_err(|e| format!("cannot be read: {e}"))?;
    // The kept events, whether the stream still holds the entry read last, and its last
    // entry, at one instant.
    let read_up_to = cursor.clone().unwrap_or_else(|| "0-0".to_owned());
    let (kept, still, last): (HashMap<String, String>, StreamRangeReply, StreamRangeReply) = redis::pipe()
        .atomic()
        .cmd("HGETALL")
        .arg(&shared.kept)
        .cmd("XRANGE")
        .arg(&shared.stream)
        .arg(&read_up_to)
        .arg(&read_up_to)
        .cmd("XREVRANGE")
        .arg(&shared.stream)
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(1)
        .query_async(&mut connection)
        .await
        .map_err(|e| format!("cannot be read: {e}"))?;
    for event in kept.values() {
        if !inbox.receive(event) {
            return Ok(());
        }
    }
    match cursor.as_deref() {
        // The first time: from now (what came before is in the kept events, or is over).
        None => *cursor = Some(last.ids.first().map_or_else(|| "0-0".to_owned(), |e| e.id.clone())),
        // Back after an outage longer than the stream keeps: what it trimmed is lost.
        Some(_) if still.ids.is_empty() => {
            tracing::warn!(target: "roundtrip::bus", "redis: more events came during the outage than the stream keeps");
            if !inbox.missed() {
                return Ok(());
            }
        }
        Some(_) => {}
    }
    if !shared.reading.swap(true, Ordering::Relaxed) {
        tracing::info!(target: "roundtrip::bus", "redis: reading the fleet's events");
    }
    loop {
        let from = cursor.clone().unwrap_or_else(|| "0-0".to_owned());
        let read: Option<StreamReadReply> = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(256)
            .arg("BLOCK")
            .arg(BLOCK.as_millis() as u64)
            .arg("STREAMS")
            .arg(&shared.stream)
            .arg(&from)
            .query_async(&mut connection)
            .await
            .map_err(|e| format!("failed to be read: {e}"))?;
        for entry in read.into_iter().flat_map(|r| r.keys).flat_map(|k| k.ids) {
            let event = entry.get::<String>(FIELD);
            *cursor = Some(entry.id);
            if let Some(event) = event
                && !inbox.receive(&event)
            {
                return Ok(());
            }
        }
        if !inbox.is_open() {
            return Ok(());
        }
    }
}
