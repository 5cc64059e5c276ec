//! Redis behind a fleet (cargo feature `redis`): replicas that share a [`RedisStore`] answer
//! each other's tasks, and a [`RedisReplayCache`] refuses a `#[tool(single_use)]` state used on
//! any replica. `rediss://` connects over TLS with rustls, trusting the system's roots.
//!
//! Both are the stores of roundtrip's core ([`TaskStore`](crate::task::TaskStore),
//! [`ReplayCache`](crate::seal::ReplayCache)) kept in Redis; the core itself opens no
//! connection.

mod announcements;
mod replay;
mod tasks;

pub use replay::RedisReplayCache;
pub use tasks::RedisStore;
