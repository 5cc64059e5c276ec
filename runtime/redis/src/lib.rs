//! Redis behind a fleet (cargo feature `redis`): replicas that share a [`RedisStore`] answer
//! each other's tasks, a [`RedisReplayCache`] refuses a `#[tool(single_use)]` state used on
//! any replica, and a [`RedisBus`] carries each replica's list changes, resource updates and
//! run-time registrations to the others. `rediss://` connects over TLS with rustls, trusting the system's roots.
//!
//! Both are the stores of roundtrip's core ([`TaskStore`](roundtrip_core::task::TaskStore),
//! [`ReplayCache`](roundtrip_core::seal::ReplayCache)) kept in Redis; the core itself opens no
//! connection.
//!
//! The crate roundtrip-redis: applications name it `roundtrip::redis` (the feature `redis` of
//! [roundtrip](https://docs.rs/roundtrip)).

mod announcements;
mod bus;
mod replay;
mod tasks;

pub use bus::RedisBus;
pub use replay::RedisReplayCache;
pub use tasks::RedisStore;

use redis::aio::ConnectionManager;

/// Open `url` and connect (rustls set up for `rediss://`): the client, for the connections a
/// store makes besides, and a managed connection. The error says why, a refused certificate
/// where trusted roots come from.
async fn connect(url: &str) -> Result<(redis::Client, ConnectionManager), String> {
    let client = redis::Client::open(url).map_err(|e| format!("redis: {e}"))?;
    roundtrip_tls::before_connecting(&client);
    let connection =
        redis_connection(client.clone()).await.map_err(|e| format!("redis: {}", roundtrip_tls::explain(&e)))?;
    Ok((client, connection))
}

/// How long a Redis command may wait for its answer before it fails: a Redis that hangs (a
/// network partition, a paused process) fails each operation this late rather than holding
/// requests. Generous for a command that takes well under a millisecond.
const REDIS_RESPONSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long connecting to Redis may take.
const REDIS_CONNECTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// A connection to Redis that is made again when it drops, whose commands time out
/// ([`REDIS_RESPONSE_TIMEOUT`]) and whose connection attempts do too
/// ([`REDIS_CONNECTION_TIMEOUT`]), so that no store operation waits on a Redis that does not
/// answer. Set here rather than left to the crate's defaults, which may change.
async fn redis_connection(client: redis::Client) -> redis::RedisResult<ConnectionManager> {
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_response_timeout(Some(REDIS_RESPONSE_TIMEOUT))
        .set_connection_timeout(Some(REDIS_CONNECTION_TIMEOUT));
    ConnectionManager::new_with_config(client, config).await
}
