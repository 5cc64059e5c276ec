//! Deterministic simulation of the fleet (issue 26, item 2): three replicas (real [`Server`]
//! values) sharing the real in-memory task store and replay cache, a load balancer, and a
//! client with the retry rule of `roundtrip::client`, run in one process under a seeded
//! simulator, with faults injected by seed: replicas killed at chosen times and in the middle
//! of a store operation (before or after the store applied it), restarted, and rolled onto a
//! new key ring and then off the old key; the store and replay cache failing, slow (past the
//! replica's timeout) or unreachable for a while; requests and responses delayed, dropped and
//! duplicated; each replica's clock skewed within the lease's margin, and its sealing clock by
//! up to seconds, within a state's tolerance of skew. Every run checks the
//! invariants of [`ledger`]; a failing seed prints itself, the faults it hit, the violations,
//! the tail of its event trace and the command that replays it.
//!
//! # Why an own simulator
//!
//! The client speaks HTTP through reqwest, which turmoil's simulated TCP would not carry
//! without a transport of its own, and madsim replaces tokio wholesale (a `--cfg` for the
//! whole build). What the runtime needs is time and tasks, which tokio itself simulates: each
//! run is one current-thread runtime with the clock paused (time jumps to the next timer when
//! every task waits, so a 90-second run takes milliseconds), every random choice comes from
//! one `StdRng` seeded by the run's seed, and the replicas are served through
//! [`Server::handle`] in memory. The runtime reads the time from a clock the simulation gives
//! it (`Server::clock`, `RequestStateSecurity::clock`, `MemoryStore::with_clock`,
//! `MemoryReplayCache::with_clock`: the simulated time, skewed per replica), and a replica is
//! killed by `Server::halt_on` (its task bodies, runners and watchers dropped at their
//! current await) while the simulator aborts its requests in flight.
//!
//! What stays random: task ids (uuid v4; the trace names tasks `T1`, `T2`… in order of
//! creation) and the nonces of sealed states (never traced), and tokio's choice among the
//! branches of an unbiased `select!` that are ready at once (seeded per runtime from the OS:
//! only `--cfg tokio_unstable` can fix it). None of them reaches the trace:
//! [`the_same_seed_gives_the_same_trace`] runs seeds twice and compares every event.
//!
//! # Commands
//!
//! - `cargo test -p roundtrip --test simulate`: 500 seeds (`SIM_SEEDS`, from `SIM_FROM`,
//!   on `SIM_THREADS` threads);
//! - `SIM_SEED=1234 cargo test -p roundtrip --test simulate -- --exact replay --nocapture`: one
//!   seed, its whole trace printed;
//! - `scripts/simulate.sh`: 20 000 seeds in release.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "simulate/client.rs"]
mod client;
#[path = "simulate/ledger.rs"]
mod ledger;
#[path = "simulate/network.rs"]
mod network;
#[path = "simulate/replicas.rs"]
mod replicas;
#[path = "simulate/store.rs"]
mod store;
#[path = "simulate/tools.rs"]
mod tools;
#[path = "simulate/world.rs"]
mod world;

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use roundtrip::protocol::{Request, RequestId, ResponseBody};
use roundtrip::server::{Inbound, NullPeer};
use roundtrip::task::TaskStore;
use serde_json::{Value, json};

use client::Client;
use network::Network;
use replicas::{Fleet, task_options};
use world::{Bugs, Fault, Faults, Sim};

/// What one seed's run did.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    seed: u64,
    trace: Vec<String>,
    faults: Faults,
    violations: Vec<String>,
    flows: usize,
    /// How the flows ended: with their result, a visible error, once the client gave up, or
    /// abandoned by their caller.
    ended: [usize; 4],
    tasks: usize,
    /// The simulated time the run took, in milliseconds.
    simulated_ms: u64,
}

impl Run {
    fn failed(&self) -> bool {
        !self.violations.is_empty()
    }

    /// The report of a failing seed: the seed, the faults, the violations, the trace's tail and
    /// the command that replays it.
    fn report(&self, tail: usize) -> String {
        let mut out = format!("simulate: seed {} FAILED\n  faults: {}\n", self.seed, self.faults);
        for v in &self.violations {
            out.push_str(&format!("  violation: {v}\n"));
        }
        let from = self.trace.len().saturating_sub(tail);
        out.push_str(&format!("  trace (last {} of {} events):\n", self.trace.len() - from, self.trace.len()));
        for line in &self.trace[from..] {
            out.push_str(&format!("    {line}\n"));
        }
        out.push_str(&format!(
            "  replay: SIM_SEED={} cargo test -p roundtrip --test simulate -- --exact replay --nocapture\n",
            self.seed
        ));
        out
    }
}

thread_local! {
    /// Panics on this thread (a replica's, caught by tokio or by the runtime's task runner).
    static PANICS: Cell<u64> = const { Cell::new(0) };
}

/// Count every panic on the thread it happens on, then report it as usual.
fn count_panics() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|p| p.set(p.get() + 1));
            report(info);
        }));
    });
}

/// One request to a replica outside the simulated network (the checks at the end).
async fn ask(server: &roundtrip::Server, method: &str, params: Value) -> Result<Value, String> {
    let request = Request::new(RequestId::Number(0), method, Some(params));
    let reply = server.handle(request, Inbound::new(Arc::new(NullPeer))).await;
    match reply.response.map(|r| r.into_response().body) {
        Some(ResponseBody::Result(r)) => Ok(r),
        Some(ResponseBody::Error(e)) => Err(format!("{} {}", e.code, e.message)),
        None => Err("no response".into()),
    }
}

/// Run seed `seed` (with `bugs` injected) to its end and check every invariant.
fn run_seed(seed: u64, bugs: Bugs) -> Run {
    count_panics();
    PANICS.with(|p| p.set(0));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
    let run = runtime.block_on(async move {
        let sim = Sim::new(seed, bugs);
        let _entered = world::enter(&sim);
        let fleet = Fleet::start(&sim);
        let network = Arc::new(Network { sim: sim.clone(), fleet: fleet.clone() });
        let idempotent = Client::list_idempotent(&network).await;
        let client = Arc::new(Client { sim: sim.clone(), network, idempotent });
        let chaos = tokio::spawn(fleet.clone().chaos());
        let mut flows = Vec::new();
        for i in 0..sim.config.flows {
            let (tool, idempotent) = tools::TOOLS[sim.range(0..tools::TOOLS.len() as u64) as usize];
            let name = format!("f{i}");
            sim.state().ledger.start(&name, tool, idempotent, tools::expected(tool, &name));
            let at = sim.millis(0..sim.config.start_within.as_millis() as u64);
            // Some callers go away before their call ends (the call's future is dropped).
            let abandon = sim.chance(0.1).then(|| sim.millis(100..8000));
            let (client, sim) = (client.clone(), sim.clone());
            flows.push(tokio::spawn(async move {
                tokio::time::sleep(at).await;
                sim.event(format_args!("{name} starts: {tool}"));
                let outcome = match abandon {
                    Some(after) => tokio::time::timeout(after, client.run(&name, tool)).await.unwrap_or_else(|_| {
                        sim.event(format_args!("{name} abandoned by its caller"));
                        ledger::Outcome::Abandoned
                    }),
                    None => client.run(&name, tool).await,
                };
                sim.event(format_args!("{name} ends: {outcome:?}"));
                sim.state().ledger.end(&name, outcome);
            }));
        }
        // Every flow ends well within this (the client's budgets are far shorter).
        let _ = tokio::time::timeout(Duration::from_secs(900), futures::future::join_all(flows)).await;
        chaos.abort();
        sim.state().healed = true;
        fleet.heal();
        sim.event("healed");
        // Long enough for every task to end: unanswered questions time out, lost runners'
        // leases run out.
        let options = task_options();
        tokio::time::sleep(options.input_timeout + options.lease * 2 + Duration::from_secs(2)).await;
        let mut violations = sim.state().ledger.check_flows();
        let tasks = sim.tasks();
        let replica = fleet.any();
        for (label, id) in &tasks {
            match ask(&replica, "tasks/get", json!({"taskId": id, "_meta": meta()})).await {
                Ok(task) => {
                    let status = task["status"].as_str().unwrap_or("?");
                    if !matches!(status, "completed" | "failed" | "cancelled") {
                        violations.push(format!("task {label} is still {status} once the run is over"));
                    }
                }
                Err(e) if e.contains("Task not found") && matches!(fleet.store().get(id).await, Ok(None)) => {
                    // Created by a request whose store write failed before it applied.
                }
                Err(e) => violations.push(format!("task {label}: tasks/get answered {e}")),
            }
        }
        let panics = PANICS.with(Cell::get);
        if panics > 0 {
            violations.push(format!("{panics} panics"));
        }
        let state = sim.state();
        Run {
            seed,
            trace: state.trace.clone(),
            faults: state.faults.clone(),
            violations,
            flows: sim.config.flows,
            ended: state.ledger.tally(),
            tasks: tasks.len(),
            simulated_ms: sim.elapsed_ms(),
        }
    });
    // Whatever still runs (parked bodies of killed replicas) is dropped with the runtime.
    drop(runtime);
    run
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "simulation-check", "version": "1"},
    })
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Seeds `from..from + count` (with `bugs`), on `threads` threads; every run, in seed order.
fn run_seeds(from: u64, count: u64, threads: u64, bugs: Bugs) -> Vec<Run> {
    let next = AtomicU64::new(from);
    let runs = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let seed = next.fetch_add(1, Ordering::SeqCst);
                    if seed >= from + count {
                        break;
                    }
                    let run = run_seed(seed, bugs);
                    runs.lock().unwrap().push(run);
                }
            });
        }
    });
    let mut runs = runs.into_inner().unwrap();
    runs.sort_by_key(|r| r.seed);
    runs
}

/// `SIM_SEEDS` seeds (500 by default) from `SIM_FROM`: no invariant broken on any, and every
/// kind of fault injected on some.
#[test]
fn seeds() {
    let (from, count) = (env("SIM_FROM", 0), env("SIM_SEEDS", 500));
    let threads = env("SIM_THREADS", std::thread::available_parallelism().map_or(1, |n| n.get() as u64).min(2));
    let started = Instant::now();
    let runs = run_seeds(from, count, threads, Bugs::default());
    let elapsed = started.elapsed();
    let mut totals = Faults::default();
    for run in &runs {
        totals.add(&run.faults);
    }
    let flows: usize = runs.iter().map(|r| r.flows).sum();
    let tasks: usize = runs.iter().map(|r| r.tasks).sum();
    let simulated: u64 = runs.iter().map(|r| r.simulated_ms).sum();
    let ended = runs.iter().fold([0; 4], |t, r| std::array::from_fn(|i| t[i] + r.ended[i]));
    let failed: Vec<&Run> = runs.iter().filter(|r| r.failed()).collect();
    println!(
        "simulate: {} seeds from {from} ({threads} threads) in {:.1} s: {flows} flows, {tasks} tasks, {:.0} s simulated; {} failed",
        runs.len(),
        elapsed.as_secs_f64(),
        simulated as f64 / 1000.0,
        failed.len()
    );
    println!(
        "simulate: flows ended with their result {}, a visible error {}, the client's retry budget spent {}, \
         abandoned by their caller {}",
        ended[0], ended[1], ended[2], ended[3]
    );
    println!("simulate: faults hit: {totals}");
    for run in failed.iter().take(3) {
        println!("{}", run.report(60));
    }
    if !failed.is_empty() {
        let seeds: Vec<String> = failed.iter().map(|r| r.seed.to_string()).collect();
        panic!("simulate: {} seeds failed: {}", failed.len(), seeds.join(" "));
    }
    // The client gives up only under faults denser than its retry rule is built for: rarely.
    assert!(ended[2] * 100 <= flows, "simulate: the client gave up on {} of {flows} flows (more than 1%)", ended[2]);
    let never: Vec<&str> = Fault::ALL.iter().filter(|f| totals.get(**f) == 0).map(|f| f.name()).collect();
    assert!(never.is_empty(), "simulate: faults never injected across the seeds: {}", never.join(", "));
}

/// `SIM_SEED`: run that one seed and print its whole trace (nothing to do without it).
#[test]
fn replay() {
    let Some(seed) = std::env::var("SIM_SEED").ok().and_then(|s| s.parse().ok()) else {
        println!("simulate: set SIM_SEED to replay a seed");
        return;
    };
    let run = run_seed(seed, Bugs::default());
    for line in &run.trace {
        println!("{line}");
    }
    println!("simulate: seed {seed}: faults {}", run.faults);
    assert!(!run.failed(), "{}", run.report(60));
}

/// A seed run twice gives the same trace, event for event (and the same faults and verdict):
/// `SIM_TWICE` seeds (20 by default), or `SIM_SEED`. With `SIM_TRACE_STORE` set, the trace
/// also holds every store operation.
#[test]
fn the_same_seed_gives_the_same_trace() {
    let seeds: Vec<u64> = match std::env::var("SIM_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![seed],
        None => (0..env("SIM_TWICE", 20)).collect(),
    };
    for seed in seeds {
        let (a, b) = (run_seed(seed, Bugs::default()), run_seed(seed, Bugs::default()));
        if let Some(i) = (0..a.trace.len().max(b.trace.len())).find(|i| a.trace.get(*i) != b.trace.get(*i)) {
            let from = i.saturating_sub(12);
            panic!(
                "seed {seed}: the traces part at event {i}:\n  first:  {:#?}\n  second: {:#?}",
                &a.trace[from..(i + 3).min(a.trace.len())],
                &b.trace[from..(i + 3).min(b.trace.len())]
            );
        }
        assert_eq!(a, b, "seed {seed}");
    }
}

/// With `bugs` injected, the simulator finds a seed among the first `within` that breaks an
/// invariant (one whose violation contains `why`), prints it, and that seed run again fails
/// the same way, with the same trace.
fn finds(bugs: Bugs, why: &str, within: u64) {
    let found = (0..within).map(|seed| run_seed(seed, bugs)).find(|run| run.violations.iter().any(|v| v.contains(why)));
    let Some(run) = found else { panic!("no seed of the first {within} found the injected bug ({why})") };
    println!("simulate: the injected bug found:\n{}", run.report(30));
    let again = run_seed(run.seed, bugs);
    assert_eq!(again.trace, run.trace, "the failing seed {} replays with the same trace", run.seed);
    assert_eq!(again.violations, run.violations);
}

/// A client whose retry rule resends calls that are not idempotent (and starts them again) is
/// caught: a body that is not idempotent runs twice.
#[test]
fn finds_a_retry_rule_that_resends_what_is_not_idempotent() {
    finds(Bugs { every_tool_idempotent: true, ..Bugs::default() }, "is not idempotent and its body ran", 300);
}

/// Replicas that each keep their own replay cache are caught: a single-use state replayed on
/// another replica is accepted twice.
#[test]
fn finds_replicas_that_do_not_share_their_replay_cache() {
    finds(Bugs { unshared_replay_cache: true, ..Bugs::default() }, "was accepted 2 times", 300);
}
