//! The replicas: real [`Server`] values sharing one task store and one replay cache, each life
//! of a replica with its own clock skew, key ring and kill switch.
//!
//! A kill (a crash at a chosen time, a crash in the middle of a store operation, or the
//! restart of a key rotation) cancels the life's `halt`: every task body, runner and watcher of
//! the replica stops at its current await (`Server::halt_on`), its requests in flight are
//! aborted (the load balancer answers `502`), and its store operations never return. A fresh
//! replica starts in its slot after a downtime, on the same store and the keys of the
//! rotation's current phase: `[old]`, then `[new, old]` (rolled out replica by replica), then
//! `[new]` once every state sealed with the old key has expired.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use roundtrip::RequestStateSecurity;
use roundtrip::prelude::*;
use roundtrip::seal::MemoryReplayCache;
use roundtrip::task::{MemoryStore, TaskOptions};
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use super::store::{Life, ReplicaReplay, ReplicaStore};
use super::tools;
use super::world::{Fault, Sim};

pub const REPLICAS: usize = 3;
const OLD_KEY: [u8; 32] = *b"simulation key one: not a secret";
const NEW_KEY: [u8; 32] = *b"simulation key two: not a secret";
/// How long a sealed state is accepted.
pub const STATE_TTL: Duration = Duration::from_secs(30);

/// The task options of every replica: leases short enough that a lost runner shows within a
/// run, a store timeout shorter than the client's patience.
pub fn task_options() -> TaskOptions {
    TaskOptions {
        poll_interval: Duration::from_millis(200),
        lease: Duration::from_secs(6),
        watch_interval: Duration::from_millis(100),
        input_timeout: Duration::from_secs(20),
        store_timeout: Duration::from_secs(1),
        ..TaskOptions::default()
    }
}

/// One slot of the fleet: the replica living in it now.
struct Slot {
    server: Server,
    life: Arc<Life>,
    up: bool,
    inflight: Vec<AbortHandle>,
}

pub struct Fleet {
    sim: Arc<Sim>,
    store: Arc<MemoryStore>,
    replay: Arc<MemoryReplayCache>,
    slots: Mutex<Vec<Slot>>,
    /// 0: keys `[old]`; 1: `[new, old]`; 2: `[new]`.
    phase: Mutex<usize>,
    crashes: tokio::sync::mpsc::UnboundedSender<(usize, u64)>,
}

impl Fleet {
    /// The fleet, every slot up, and the task that restarts killed replicas.
    pub fn start(sim: &Arc<Sim>) -> Arc<Self> {
        let (crashes, mut killed) = tokio::sync::mpsc::unbounded_channel();
        let fleet = Arc::new(Self {
            sim: sim.clone(),
            store: Arc::new(MemoryStore::with_clock(sim.clock(0))),
            replay: Arc::new(MemoryReplayCache::with_clock(sim.clock(0))),
            slots: Mutex::new(Vec::new()),
            phase: Mutex::new(0),
            crashes,
        });
        for slot in 0..REPLICAS {
            let (server, life) = fleet.build(slot, 0);
            fleet.lock().push(Slot { server, life, up: true, inflight: Vec::new() });
            sim.state().alive += 1;
        }
        let restarter = fleet.clone();
        tokio::spawn(async move {
            while let Some((slot, generation)) = killed.recv().await {
                restarter.after_kill(slot, generation);
            }
        });
        fleet
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn store(&self) -> &Arc<MemoryStore> {
        &self.store
    }

    /// A replica for `slot`, life `generation`, on the keys of the current phase.
    fn build(&self, slot: usize, generation: u64) -> (Server, Arc<Life>) {
        let sim = &self.sim;
        let label = format!("r{slot}#{generation}");
        let skew = if sim.config.max_skew_ms > 0 && sim.chance(0.5) {
            let max = sim.config.max_skew_ms as u64;
            sim.range(0..2 * max + 1) as i64 - max as i64
        } else {
            0
        };
        // The sealing clock has a skew of its own, up to seconds: a state's issue time is allowed
        // 60 s of it, while leases allow only milliseconds.
        let state_skew = if sim.config.max_state_skew_ms > 0 && sim.chance(0.5) {
            let max = sim.config.max_state_skew_ms as u64;
            skew + (sim.range(0..2 * max + 1) as i64 - max as i64)
        } else {
            skew
        };
        let phase = *self.phase.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let keys: Vec<[u8; 32]> = match phase {
            0 => vec![OLD_KEY],
            1 => vec![NEW_KEY, OLD_KEY],
            _ => vec![NEW_KEY],
        };
        if skew != 0 {
            sim.fault(Fault::Skew, format_args!("{label} clock {skew:+} ms"));
        }
        if state_skew != skew {
            sim.fault(Fault::StateSkew, format_args!("{label} sealing clock {state_skew:+} ms"));
        }
        sim.event(format_args!("start {label} keys phase {phase}"));
        let life =
            Arc::new(Life { slot, generation, label, halt: CancellationToken::new(), crashes: self.crashes.clone() });
        let seconds = sim.clock(state_skew);
        let policy = RequestStateSecurity::new().keys(keys).ttl(STATE_TTL).clock(move || seconds() / 1000);
        let replay = if sim.bugs.unshared_replay_cache {
            Arc::new(MemoryReplayCache::with_clock(sim.clock(0)))
        } else {
            self.replay.clone()
        };
        let server = Server::new("fleet", "1")
            .security(policy)
            .expect("a valid policy")
            .replay_cache(ReplicaReplay { inner: replay, sim: sim.clone(), life: life.clone() })
            .task_store(ReplicaStore { inner: self.store.clone(), sim: sim.clone(), life: life.clone() })
            .task_options(task_options())
            .clock(sim.clock(skew))
            .halt_on(life.halt.clone())
            .tools(tools![tools::provision, tools::transfer, tools::backup, tools::charge]);
        (server, life)
    }

    /// A replica that is up, chosen by the seed (the load balancer's pick).
    pub fn route(&self) -> Option<(usize, Server, Arc<Life>)> {
        let up: Vec<usize> = self.lock().iter().enumerate().filter(|(_, s)| s.up).map(|(i, _)| i).collect();
        if up.is_empty() {
            return None;
        }
        let slot = up[self.sim.range(0..up.len() as u64) as usize];
        let slots = self.lock();
        Some((slot, slots[slot].server.clone(), slots[slot].life.clone()))
    }

    /// A request now in flight on `life`.
    pub fn track(&self, life: &Life, request: AbortHandle) {
        let mut slots = self.lock();
        let slot = &mut slots[life.slot];
        if slot.life.generation == life.generation {
            slot.inflight.retain(|h| !h.is_finished());
            slot.inflight.push(request);
        }
    }

    /// Kill the replica in `slot` (if up and others stay up), counting `fault`.
    pub fn kill(&self, slot: usize, fault: Fault) -> bool {
        let life = {
            let slots = self.lock();
            if !slots[slot].up {
                return false;
            }
            slots[slot].life.clone()
        };
        if fault == Fault::Crash && self.sim.state().alive < 2 {
            return false;
        }
        self.sim.fault(fault, &life.label);
        life.kill();
        true
    }

    /// A life ended: abort its requests, and start the next one after a downtime.
    fn after_kill(self: &Arc<Self>, slot: usize, generation: u64) {
        let downtime = {
            let mut slots = self.lock();
            let s = &mut slots[slot];
            if s.life.generation != generation || !s.up {
                return;
            }
            s.up = false;
            for request in s.inflight.drain(..) {
                request.abort();
            }
            self.sim.state().alive -= 1;
            self.sim.event(format_args!("down {}", s.life.label));
            self.sim.millis(50..2000)
        };
        let fleet = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(downtime).await;
            fleet.restart(slot);
        });
    }

    fn restart(&self, slot: usize) {
        if self.lock()[slot].up {
            return; // healed meanwhile
        }
        let generation = self.lock()[slot].life.generation + 1;
        let (server, life) = self.build(slot, generation);
        let mut slots = self.lock();
        slots[slot] = Slot { server, life, up: true, inflight: Vec::new() };
        self.sim.state().alive += 1;
    }

    /// Every slot up (the end of a run: those down are started now).
    pub fn heal(&self) {
        for slot in 0..REPLICAS {
            let down = !self.lock()[slot].up;
            if down {
                self.restart(slot);
            }
        }
    }

    /// A replica that is up, for the checks at the end.
    pub fn any(&self) -> Server {
        let slots = self.lock();
        slots.iter().find(|s| s.up).map(|s| s.server.clone()).expect("a replica is up once healed")
    }

    /// The chaos of a run: crashes at the seed's times, and the key rotation.
    pub async fn chaos(self: Arc<Self>) {
        let sim = self.sim.clone();
        let mut plan: Vec<(Duration, bool)> = sim.config.crashes.iter().map(|(at, _)| (*at, false)).collect();
        let rotation = sim.config.rotation_at;
        plan.push((rotation, true));
        // Phase 2 once every state sealed before phase 1 ended has expired (a rolling restart
        // takes a few seconds: each replica is back before the next goes).
        plan.push((rotation + Duration::from_secs(10) + STATE_TTL, true));
        plan.sort();
        let start = tokio::time::Instant::now() - Duration::from_millis(sim.elapsed_ms());
        for (at, rotate) in plan {
            tokio::time::sleep_until(start + at).await;
            if !rotate {
                let slot = sim.range(0..REPLICAS as u64) as usize;
                self.kill(slot, Fault::Crash);
                continue;
            }
            let phase = {
                let mut phase = self.phase.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                *phase += 1;
                *phase
            };
            sim.event(format_args!("rotation: phase {phase}"));
            for slot in 0..REPLICAS {
                // One replica at a time: the next goes once this one is back (a slot that is
                // down starts on the new keys anyway).
                let generation = self.lock()[slot].life.generation;
                self.kill(slot, Fault::Rotation);
                while self.lock()[slot].life.generation == generation || !self.lock()[slot].up {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
}
