//! A replay cache in Redis: `#[tool(single_use)]` states used on one replica are refused on
//! every other. Its connection is made as the task store's ([`super::connect`]).

use futures::future::BoxFuture;

use roundtrip_core::seal::ReplayCache;

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
        let (_, connection) = super::connect(url).await?;
        Ok(Self { connection, prefix: "roundtrip:used:".into() })
    }

    /// Use another key prefix.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }
}

impl ReplayCache for RedisReplayCache {
    fn first_use<'a>(
        &'a self,
        digest: &'a [u8; 32],
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, Box<dyn std::error::Error + Send + Sync>>> {
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
                .await?;
            Ok(set.is_some())
        })
    }
}
