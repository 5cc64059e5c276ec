//! A replay cache in Redis: `#[tool(single_use)]` states used on one replica are refused on
//! every other. Its connection is made by [`redis_connection`], as the task store's.

use futures::future::BoxFuture;

use roundtrip_core::seal::{ReplayCache, TokenDigest};

/// A replay cache in Redis (cargo feature `redis`): `SET key NX PXAT expiry`, so a state used
/// on one replica is refused on every other.
#[derive(Clone)]
pub struct RedisReplayCache {
    connection: redis::aio::ConnectionManager,
    prefix: String,
}

impl std::fmt::Debug for RedisReplayCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisReplayCache").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl RedisReplayCache {
    /// Connect to `url` (`redis://host:port/db`, or `rediss://` for TLS: the server's
    /// certificate must chain to the system's roots, `SSL_CERT_FILE` and `SSL_CERT_DIR` when
    /// set, else the operating system's store); keys are prefixed `roundtrip:used:`. Every
    /// command has a timeout (see [`RedisStore::connect`](super::RedisStore::connect)).
    pub async fn connect(url: &str) -> Result<Self, String> {
        let client = redis::Client::open(url).map_err(|e| format!("redis: {e}"))?;
        crate::tls::before_connecting(&client);
        let connection = redis_connection(client).await.map_err(|e| format!("redis: {}", crate::tls::explain(&e)))?;
        Ok(Self { connection, prefix: "roundtrip:used:".into() })
    }

    /// Use another key prefix.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }
}

/// How long a Redis command may wait for its answer before it fails: a Redis that hangs (a
/// network partition, a paused process) fails each operation this late rather than holding
/// requests. Generous for a command that takes well under a millisecond.
pub(super) const REDIS_RESPONSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long connecting to Redis may take.
const REDIS_CONNECTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// A connection to Redis that is made again when it drops, whose commands time out
/// ([`REDIS_RESPONSE_TIMEOUT`]) and whose connection attempts do too
/// ([`REDIS_CONNECTION_TIMEOUT`]), so that no store operation waits on a Redis that does not
/// answer. Set here rather than left to the crate's defaults, which may change.
pub(super) async fn redis_connection(client: redis::Client) -> redis::RedisResult<redis::aio::ConnectionManager> {
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_response_timeout(Some(REDIS_RESPONSE_TIMEOUT))
        .set_connection_timeout(Some(REDIS_CONNECTION_TIMEOUT));
    redis::aio::ConnectionManager::new_with_config(client, config).await
}

impl ReplayCache for RedisReplayCache {
    fn first_use<'a>(&'a self, digest: &'a TokenDigest, expires_at_ms: u64) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            use std::fmt::Write as _;
            let mut key = self.prefix.clone();
            for b in digest {
                let _ = write!(key, "{b:02x}");
            }
            let mut c = self.connection.clone();
            let set: Option<String> = redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("NX")
                .arg("PXAT")
                .arg(expires_at_ms.max(1))
                .query_async(&mut c)
                .await
                .map_err(|e| format!("redis: {e}"))?;
            Ok(set.is_some())
        })
    }
}
