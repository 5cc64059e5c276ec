//! The shared task store and replay cache as each replica reaches them, with the faults a seed
//! injects: an operation that fails (sometimes after the store applied it, so only its answer
//! was lost), one that is slow (sometimes past the replica's store timeout, before or after it
//! applied), the store unreachable for a while (an outage window: operations fail at once or
//! hang), and the replica killed in the middle of an operation, before or after the store
//! applied it. A killed replica's operations never return: a dead process writes nothing more.
//!
//! Underneath is the real [`MemoryStore`] and [`MemoryReplayCache`], shared by every replica
//! as a Redis would be, on the simulated clock.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use roundtrip::seal::{MemoryReplayCache, ReplayCache};
use roundtrip::task::{MemoryStore, StoreError, TaskRecord, TaskStore};
use tokio_util::sync::CancellationToken;

use super::world::{Fault, Sim};

/// One life of one replica: killed once `halt` is cancelled; a kill is reported to the fleet
/// on `crashes` (slot, generation).
pub struct Life {
    pub slot: usize,
    pub generation: u64,
    pub label: String,
    pub halt: CancellationToken,
    pub crashes: tokio::sync::mpsc::UnboundedSender<(usize, u64)>,
}

impl Life {
    /// Kill this life now: every future of it stops at its next poll.
    pub fn kill(&self) {
        if !self.halt.is_cancelled() {
            self.halt.cancel();
            let _ = self.crashes.send((self.slot, self.generation));
        }
    }
}

/// A replica's connection to the shared task store.
#[derive(Clone)]
pub struct ReplicaStore {
    pub inner: Arc<MemoryStore>,
    pub sim: Arc<Sim>,
    pub life: Arc<Life>,
}

type Apply<'a, T> = Box<dyn FnOnce() -> BoxFuture<'a, Result<T, StoreError>> + Send + 'a>;

impl ReplicaStore {
    /// `apply` (the real operation), under the seed's faults.
    async fn faulty<'a, T: Send + 'a>(&'a self, what: String, apply: Apply<'a, T>) -> Result<T, StoreError> {
        let sim = &self.sim;
        if self.life.halt.is_cancelled() {
            return std::future::pending().await;
        }
        if sim.store_down() {
            let hangs = sim.chance(0.5);
            sim.fault(
                Fault::StoreUnreachable,
                format_args!("{} {what}{}", self.life.label, if hangs { " (hangs)" } else { "" }),
            );
            if hangs {
                tokio::time::sleep(Duration::from_secs(10)).await;
            }
            return Err(StoreError::new("unreachable (simulated)"));
        }
        let may_crash = {
            let state = sim.state();
            state.crashes_at_await < 2 && state.alive >= 3
        };
        if may_crash && sim.chance(sim.config.p_crash_at_await) {
            let applied = sim.chance(0.5);
            if applied {
                let _ = apply().await;
            }
            sim.state().crashes_at_await += 1;
            let when = if applied { "after it applied" } else { "before it applied" };
            sim.fault(Fault::CrashAtAwait, format_args!("{} killed in {what}, {when}", self.life.label));
            self.life.kill();
            return std::future::pending().await;
        }
        if std::env::var_os("SIM_TRACE_STORE").is_some() {
            sim.event(format_args!("store {} {what}", self.life.label));
        }
        if sim.chance(sim.config.p_store_error) {
            let applied = sim.chance(0.5);
            if applied {
                let _ = apply().await;
            }
            let how = if applied { " (applied, answer lost)" } else { "" };
            sim.fault(Fault::StoreError, format_args!("{} {what}{how}", self.life.label));
            return Err(StoreError::new("failed (simulated)"));
        }
        if sim.chance(sim.config.p_store_slow) {
            let wait = sim.millis(20..1500);
            let before = sim.chance(0.5);
            let how = if before { "before" } else { "after" };
            sim.fault(Fault::StoreSlow, format_args!("{} {what} {wait:?} {how} applying", self.life.label));
            if before {
                tokio::time::sleep(wait).await;
                return apply().await;
            }
            let done = apply().await;
            tokio::time::sleep(wait).await;
            return done;
        }
        apply().await
    }

    fn name(&self, id: &str) -> String {
        self.sim.known_label(id)
    }
}

impl TaskStore for ReplicaStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let label = self.sim.label(&record.id);
            self.faulty(format!("create({label})"), Box::new(move || self.inner.create(record))).await
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(
            async move { self.faulty(format!("get({})", self.name(id)), Box::new(move || self.inner.get(id))).await },
        )
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            self.faulty(format!("modify({})", self.name(id)), Box::new(move || self.inner.modify(id, change))).await
        })
    }

    fn watch(&self, id: &str) -> Option<tokio::sync::watch::Receiver<()>> {
        self.inner.watch(id)
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move { self.faulty("ready".into(), Box::new(move || self.inner.ready())).await })
    }
}

/// A replica's connection to the shared replay cache; every state it accepts is counted in the
/// ledger (a state accepted twice is a violation).
pub struct ReplicaReplay {
    pub inner: Arc<MemoryReplayCache>,
    pub sim: Arc<Sim>,
    pub life: Arc<Life>,
}

impl ReplicaReplay {
    async fn faulty(
        &self,
        digest: &[u8; 32],
        expires_at_ms: u64,
    ) -> Result<bool, Box<dyn std::error::Error + Send + Sync>> {
        let sim = &self.sim;
        if self.life.halt.is_cancelled() {
            return std::future::pending().await;
        }
        let label = &self.life.label;
        if sim.store_down() {
            let hangs = sim.chance(0.5);
            sim.fault(Fault::ReplayError, format_args!("{label} unreachable{}", if hangs { " (hangs)" } else { "" }));
            if hangs {
                tokio::time::sleep(Duration::from_secs(10)).await;
            }
            return Err("unreachable (simulated)".into());
        }
        if sim.chance(sim.config.p_replay_error) {
            // Sometimes the cache recorded the use and only its answer was lost: the state is
            // used up, though the request that used it failed.
            let applied = sim.chance(0.5);
            if applied && matches!(self.inner.first_use(digest, expires_at_ms).await, Ok(true)) {
                sim.state().ledger.accepted(*digest);
            }
            sim.fault(
                Fault::ReplayError,
                format_args!("{label}{}", if applied { " (recorded, answer lost)" } else { "" }),
            );
            return Err("failed (simulated)".into());
        }
        if sim.chance(sim.config.p_replay_slow) {
            let wait = sim.millis(10..1500);
            sim.fault(Fault::ReplaySlow, format_args!("{label} {wait:?}"));
            tokio::time::sleep(wait).await;
        }
        sim.state().ledger.replay_checks += 1;
        let first = self.inner.first_use(digest, expires_at_ms).await?;
        if first {
            sim.state().ledger.accepted(*digest);
        }
        Ok(first)
    }
}

impl ReplayCache for ReplicaReplay {
    fn first_use<'a>(
        &'a self,
        digest: &'a [u8; 32],
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, Box<dyn std::error::Error + Send + Sync>>> {
        Box::pin(self.faulty(digest, expires_at_ms))
    }
}

/// `future`, unless `life` ends first (then `None`, at the next poll: a dead replica answers
/// nothing).
pub async fn unless_killed<T>(life: &Life, future: impl Future<Output = T>) -> Option<T> {
    tokio::select! {
        biased;
        () = life.halt.cancelled() => None,
        done = future => Some(done),
    }
}
