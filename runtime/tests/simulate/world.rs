//! The simulated world of one seed: its random numbers, its clock, the faults it injects (what
//! a seed decides, and a count of what was hit), the event trace, and the thread-local handle
//! the tools' bodies reach it through.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::ledger::Ledger;

/// The simulated Unix time at a run's start (2030-01-15, far from any real clock's edge).
const EPOCH_MS: u64 = 1_894_665_600_000;

/// A fault the simulator injects, for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// A replica killed at a time chosen by the seed, whatever it was doing.
    Crash,
    /// A replica killed in the middle of one of its store operations (before or after the
    /// store applied it), so at one of its awaits.
    CrashAtAwait,
    /// A replica restarted with the next key ring (key rotation).
    Rotation,
    /// A store operation failed (sometimes after the store applied it: the answer was lost).
    StoreError,
    /// A store operation was slow (sometimes longer than the store timeout).
    StoreSlow,
    /// A store operation met the store unreachable (an outage window).
    StoreUnreachable,
    /// The replay cache failed or did not answer in time.
    ReplayError,
    /// The replay cache was slow.
    ReplaySlow,
    /// A request was dropped before it reached the load balancer (the client knows).
    DropUnsent,
    /// A request was dropped between the load balancer and a replica (`502`).
    DropRequest,
    /// A response was dropped after the replica ran the request (`502`).
    DropResponse,
    /// A request was delivered twice.
    Duplicate,
    /// A message was delayed long (hundreds of milliseconds to seconds).
    Delay,
    /// A replica started with its clock skewed (within the lease's margin: its tasks' clock).
    Skew,
    /// A replica started with the clock its sealed states are stamped and checked by off by
    /// seconds (within the state's tolerance of clock skew).
    StateSkew,
}

impl Fault {
    pub const ALL: [Fault; 15] = [
        Fault::Crash,
        Fault::CrashAtAwait,
        Fault::Rotation,
        Fault::StoreError,
        Fault::StoreSlow,
        Fault::StoreUnreachable,
        Fault::ReplayError,
        Fault::ReplaySlow,
        Fault::DropUnsent,
        Fault::DropRequest,
        Fault::DropResponse,
        Fault::Duplicate,
        Fault::Delay,
        Fault::Skew,
        Fault::StateSkew,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::Crash => "crashes",
            Fault::CrashAtAwait => "crashes-at-await",
            Fault::Rotation => "rotation-restarts",
            Fault::StoreError => "store-errors",
            Fault::StoreSlow => "store-slow",
            Fault::StoreUnreachable => "store-unreachable",
            Fault::ReplayError => "replay-errors",
            Fault::ReplaySlow => "replay-slow",
            Fault::DropUnsent => "drops-unsent",
            Fault::DropRequest => "drops-request",
            Fault::DropResponse => "drops-response",
            Fault::Duplicate => "duplicates",
            Fault::Delay => "delays",
            Fault::Skew => "skews",
            Fault::StateSkew => "state-skews",
        }
    }
}

/// How many faults of each kind were hit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults(pub BTreeMap<Fault, u64>);

impl Faults {
    pub fn hit(&mut self, fault: Fault) {
        *self.0.entry(fault).or_default() += 1;
    }

    pub fn get(&self, fault: Fault) -> u64 {
        self.0.get(&fault).copied().unwrap_or(0)
    }

    pub fn add(&mut self, other: &Faults) {
        for (fault, n) in &other.0 {
            *self.0.entry(*fault).or_default() += n;
        }
    }
}

impl std::fmt::Display for Faults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = Fault::ALL.iter().map(|k| format!("{} {}", k.name(), self.get(*k))).collect();
        f.write_str(&parts.join(", "))
    }
}

/// Bugs a test injects on purpose, to show that the simulator finds them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bugs {
    /// The client's retry rule takes every tool for idempotent: it resends a call that is not
    /// (on `502`/`503`), and starts it again when its state is refused or its runner lost.
    pub every_tool_idempotent: bool,
    /// Each replica keeps its own replay cache (the in-memory default) instead of sharing
    /// one: a single-use state replayed on another replica is accepted there.
    pub unshared_replay_cache: bool,
}

/// What a seed decided about its run: how many flows, how often each fault strikes.
#[derive(Debug, Clone)]
pub struct Config {
    pub flows: usize,
    /// Flows start within this window.
    pub start_within: Duration,
    pub p_drop_unsent: f64,
    pub p_drop_request: f64,
    pub p_drop_response: f64,
    pub p_duplicate: f64,
    pub p_delay: f64,
    pub p_store_error: f64,
    pub p_store_slow: f64,
    pub p_crash_at_await: f64,
    pub p_replay_error: f64,
    pub p_replay_slow: f64,
    /// Replicas killed at chosen times: (when, down for).
    pub crashes: Vec<(Duration, Duration)>,
    /// The store (and replay cache) unreachable: (from, for).
    pub outages: Vec<(Duration, Duration)>,
    /// When the rolling restart onto keys `[new, old]` starts.
    pub rotation_at: Duration,
    /// The most a replica's clock is off (either way), in milliseconds: the clock of its
    /// tasks, leases and replay cache, which leases bound (a twentieth of the lease).
    pub max_skew_ms: i64,
    /// The most a replica's sealing clock is off (either way), in milliseconds: two replicas
    /// are then at most twice this apart, within the 60 s of skew a state's issue time is
    /// allowed, and small beside the state's TTL.
    pub max_state_skew_ms: i64,
}

impl Config {
    fn draw(rng: &mut StdRng) -> Self {
        // Each seed has its own weather: calm, ordinary or stormy.
        let storm = [0.25, 1.0, 1.0, 2.0][rng.gen_range(0..4)];
        let p = |rng: &mut StdRng, base: f64| rng.gen_range(0.0..=base * 2.0) * storm;
        let secs = |rng: &mut StdRng, lo: f64, hi: f64| Duration::from_secs_f64(rng.gen_range(lo..hi));
        let crashes = (0..rng.gen_range(0..=2))
            .map(|_| (secs(rng, 0.5, 40.0), Duration::from_millis(rng.gen_range(50..2000))))
            .collect();
        let outages = (0..rng.gen_range(0..=2))
            .map(|_| (secs(rng, 0.5, 40.0), Duration::from_millis(rng.gen_range(100..2500))))
            .collect();
        Self {
            flows: rng.gen_range(4..=8),
            start_within: Duration::from_secs(45),
            p_drop_unsent: p(rng, 0.01),
            p_drop_request: p(rng, 0.015),
            p_drop_response: p(rng, 0.02),
            p_duplicate: p(rng, 0.03),
            p_delay: p(rng, 0.03),
            p_store_error: p(rng, 0.015),
            p_store_slow: p(rng, 0.02),
            p_crash_at_await: p(rng, 0.003),
            p_replay_error: p(rng, 0.03),
            p_replay_slow: p(rng, 0.03),
            crashes,
            outages,
            rotation_at: secs(rng, 1.0, 12.0),
            max_skew_ms: [0, 50, 140][rng.gen_range(0..3)],
            max_state_skew_ms: [0, 2_000, 10_000][rng.gen_range(0..3)],
        }
    }
}

/// Everything a run changes.
pub struct State {
    rng: StdRng,
    pub trace: Vec<String>,
    pub faults: Faults,
    pub ledger: Ledger,
    /// Task ids (random) by the label the trace uses (`T1`, `T2`… in order of creation).
    labels: BTreeMap<String, String>,
    /// The faults are over (the end of a run: everything heals).
    pub healed: bool,
    /// Crashes at an await so far (bounded per run).
    pub crashes_at_await: usize,
    /// Replicas up now.
    pub alive: usize,
}

/// One seed's world.
pub struct Sim {
    pub config: Config,
    pub bugs: Bugs,
    start: tokio::time::Instant,
    state: Mutex<State>,
}

impl Sim {
    /// A world for `seed` (call inside the paused runtime: its clock starts now).
    pub fn new(seed: u64, bugs: Bugs) -> Arc<Self> {
        let mut rng = StdRng::seed_from_u64(seed);
        let config = Config::draw(&mut rng);
        Arc::new(Self {
            config,
            bugs,
            start: tokio::time::Instant::now(),
            state: Mutex::new(State {
                rng,
                trace: Vec::new(),
                faults: Faults::default(),
                ledger: Ledger::default(),
                labels: BTreeMap::new(),
                healed: false,
                crashes_at_await: 0,
                alive: 0,
            }),
        })
    }

    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Milliseconds since the run started.
    pub fn elapsed_ms(&self) -> u64 {
        tokio::time::Instant::now().saturating_duration_since(self.start).as_millis() as u64
    }

    /// The true time, in Unix milliseconds (the store's and replay cache's clock).
    pub fn now_ms(&self) -> u64 {
        EPOCH_MS + self.elapsed_ms()
    }

    /// A replica's clock: the true time off by `skew_ms`.
    pub fn clock(self: &Arc<Self>, skew_ms: i64) -> impl Fn() -> u64 + Send + Sync + 'static {
        let sim = self.clone();
        move || sim.now_ms().saturating_add_signed(skew_ms)
    }

    /// Record an event in the trace.
    pub fn event(&self, what: impl std::fmt::Display) {
        let line = format!("{:>7} {what}", self.elapsed_ms());
        self.state().trace.push(line);
    }

    /// Count a fault that was hit, and trace it.
    pub fn fault(&self, fault: Fault, what: impl std::fmt::Display) {
        let line = format!("{:>7} FAULT {} {what}", self.elapsed_ms(), fault.name());
        let mut state = self.state();
        state.faults.hit(fault);
        state.trace.push(line);
    }

    /// Whether the faults are over.
    pub fn healed(&self) -> bool {
        self.state().healed
    }

    /// `true` with probability `p` (never once healed).
    pub fn chance(&self, p: f64) -> bool {
        let mut state = self.state();
        !state.healed && p > 0.0 && state.rng.gen_bool(p.min(1.0))
    }

    pub fn range(&self, range: std::ops::Range<u64>) -> u64 {
        self.state().rng.gen_range(range)
    }

    pub fn millis(&self, range: std::ops::Range<u64>) -> Duration {
        Duration::from_millis(self.range(range))
    }

    /// Whether the store is in an outage window now.
    pub fn store_down(&self) -> bool {
        let now = Duration::from_millis(self.elapsed_ms());
        !self.healed() && self.config.outages.iter().any(|(from, len)| now >= *from && now < *from + *len)
    }

    /// The label of task `id` (given at its creation, in order).
    pub fn label(&self, id: &str) -> String {
        let mut state = self.state();
        let next = format!("T{}", state.labels.len() + 1);
        state.labels.entry(id.to_owned()).or_insert(next).clone()
    }

    /// The label of task `id` if it has one.
    pub fn known_label(&self, id: &str) -> String {
        self.state().labels.get(id).cloned().unwrap_or_else(|| "T?".to_owned())
    }

    /// Every task created, by label.
    pub fn tasks(&self) -> Vec<(String, String)> {
        let mut tasks: Vec<(String, String)> =
            self.state().labels.iter().map(|(id, label)| (label.clone(), id.clone())).collect();
        tasks.sort_by_key(|(label, _)| label[1..].parse::<u64>().unwrap_or(0));
        tasks
    }
}

thread_local! {
    /// The world of the run on this thread (each run has a current-thread runtime of its own),
    /// for the tools' bodies.
    static CURRENT: RefCell<Option<Arc<Sim>>> = const { RefCell::new(None) };
}

/// Make `sim` the world of this thread's tools until the guard drops.
pub fn enter(sim: &Arc<Sim>) -> impl Drop {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            CURRENT.with(|c| c.borrow_mut().take());
        }
    }
    CURRENT.with(|c| *c.borrow_mut() = Some(sim.clone()));
    Leave
}

/// This thread's world (a tool's body runs on the thread of its run).
pub fn current() -> Arc<Sim> {
    CURRENT.with(|c| c.borrow().clone()).expect("a tool ran outside a simulation")
}
