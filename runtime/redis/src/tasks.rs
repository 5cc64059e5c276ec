//! A task store in Redis (cargo feature `redis`): replicas that share it answer `tasks/get`,
//! `tasks/update` and `tasks/cancel` for each other's tasks.
//!
//! Each task is a hash `{prefix}{id}` with the record (JSON) and a version; a change is a
//! read-modify-write that commits only if the version is still the one read (a compare-and-set
//! script), retried on conflict. Redis expires the key with the task's TTL.
//!
//! A committed change (an answer, a cancellation, the body's progress) is also published, with
//! the task's key, on the channel `roundtrip:task-changes`, so the replica running the task's
//! body is woken at once ([`TaskStore::watch`]) instead of polling; see [`announcements`].

use futures::future::BoxFuture;
use redis::aio::ConnectionManager;

use super::REDIS_RESPONSE_TIMEOUT;
use super::announcements::Announcements;
use roundtrip_core::clock::now_ms;
use roundtrip_core::task::{StoreError, TaskRecord, TaskStore};

/// Commits a record only if its version is still the one read, and then announces the change
/// (the key) on channel `ARGV[4]`, when one is given.
const COMPARE_AND_SET: &str = r"
if redis.call('HGET', KEYS[1], 'v') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
  if ARGV[4] ~= '' then
    redis.call('PUBLISH', ARGV[4], KEYS[1])
  end
  return 1
end
return 0
";

/// How often a change is retried when other writers keep winning.
const MAX_ATTEMPTS: usize = 64;

/// Tasks kept in Redis.
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
    cas: redis::Script,
    announcements: Announcements,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

fn failed(e: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::with_source("redis", e)
}

impl RedisStore {
    /// Connect to `url` (`redis://host:port/db`, or `rediss://` for TLS); the connection is
    /// re-established when it drops. Keys are prefixed `roundtrip:task:`.
    ///
    /// `rediss://` trusts the system's roots (`SSL_CERT_FILE` and `SSL_CERT_DIR` when set, else
    /// the operating system's store) and checks the server's name (the URL's host) against its
    /// certificate; the `#insecure` fragment is refused. The first `rediss://` connection makes
    /// `ring` the process's rustls provider unless the application installed one.
    ///
    /// Every command waits at most a second for its answer and every connection attempt at
    /// most a second, so a Redis that hangs (a network partition, a paused server) fails
    /// operations quickly instead of holding requests: they are answered `503` with
    /// `Retry-After`. A running task's replica keeps trying to renew its lease while Redis is
    /// away, and stops the body if the lease runs out first (see
    /// [`TaskOptions::lease`](roundtrip_core::task::TaskOptions::lease)).
    ///
    /// A second connection subscribes to the changes other replicas make (one per store and
    /// its clones); while it is down, running tasks read their records every
    /// [`watch_interval`](roundtrip_core::task::TaskOptions::watch_interval) instead. It is checked with a
    /// `PING` every two seconds, so one that hangs is noticed and made again.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let (client, connection) = super::connect(url).await.map_err(StoreError::new)?;
        let announcements = Announcements::subscribe(client).await;
        Ok(Self {
            connection,
            prefix: "roundtrip:task:".into(),
            cas: redis::Script::new(COMPARE_AND_SET),
            announcements,
        })
    }

    /// Use another key prefix (several deployments in one Redis).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    async fn read(&self, key: &str) -> Result<Option<(String, TaskRecord)>, StoreError> {
        let mut c = self.connection.clone();
        let (version, json): (Option<String>, Option<String>) =
            redis::cmd("HMGET").arg(key).arg("v").arg("r").query_async(&mut c).await.map_err(failed)?;
        let (Some(version), Some(json)) = (version, json) else { return Ok(None) };
        let record: TaskRecord = serde_json::from_str(&json).map_err(failed)?;
        Ok(Some((version, record)))
    }
}

impl TaskStore for RedisStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let key = self.key(&record.id);
            let json = serde_json::to_string(&record).map_err(failed)?;
            let expires = record.created_at_ms.saturating_add(record.ttl_ms);
            let mut c = self.connection.clone();
            redis::pipe()
                .atomic()
                .hset_multiple(&key, &[("v", "1"), ("r", json.as_str())])
                .ignore()
                .cmd("PEXPIREAT")
                .arg(&key)
                .arg(expires)
                .ignore()
                .query_async::<()>(&mut c)
                .await
                .map_err(failed)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let record = self.read(&self.key(id)).await?.map(|(_, r)| r);
            Ok(record.filter(|r| !r.expired(now_ms())))
        })
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let key = self.key(id);
            for _ in 0..MAX_ATTEMPTS {
                let Some((version, mut record)) = self.read(&key).await? else { return Ok(None) };
                let now = now_ms();
                if record.expired(now) {
                    return Ok(None);
                }
                let before = record.clone();
                let changed = change(&mut record);
                if changed {
                    record.updated_at_ms = now.max(record.updated_at_ms);
                }
                if record == before {
                    return Ok(Some(record));
                }
                let next = version.parse::<u64>().unwrap_or(0) + 1;
                let json = serde_json::to_string(&record).map_err(failed)?;
                // A renewed lease is not news to anyone: only changes are announced.
                let channel = if changed { super::announcements::CHANNEL } else { "" };
                let mut c = self.connection.clone();
                let committed: i64 = self
                    .cas
                    .key(&key)
                    .arg(&version)
                    .arg(next)
                    .arg(json)
                    .arg(channel)
                    .invoke_async(&mut c)
                    .await
                    .map_err(failed)?;
                if committed == 1 {
                    return Ok(Some(record));
                }
            }
            Err(StoreError::new(format!("task {id}: {MAX_ATTEMPTS} conflicting writes in a row")))
        })
    }

    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        self.announcements.watch(&self.key(id))
    }

    /// `PING`, answered within a second.
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let mut c = self.connection.clone();
            let ping = redis::cmd("PING");
            match tokio::time::timeout(REDIS_RESPONSE_TIMEOUT, ping.query_async::<String>(&mut c)).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(failed(e)),
                Err(_) => Err(StoreError::new("redis: no answer to PING")),
            }
        })
    }
}
