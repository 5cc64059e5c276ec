//! The exhaustive check of the resolver engine (issue 26, item 1): every resolver graph of up
//! to a few questions ([`graphs`]), every answer sequence up to a bounded length ([`walk`]),
//! run on the real `Server` in memory ([`driver`]) in both eras and compared, leg by leg, with
//! a reference model written apart from the engine ([`model`]).
//!
//! The bound comes from the environment (the defaults run in well under a minute in a debug
//! build; `scripts/exhaustive.sh` runs the full bound in release):
//! - `EXHAUSTIVE_QUESTIONS` (default 2): graphs of at most this many resolved parameters;
//! - `EXHAUSTIVE_LENGTH` (default 2): answer words of at most this many symbols;
//! - `EXHAUSTIVE_REFUSABLE` (default 2): every `Answer<T>` combination for graphs up to this
//!   size; larger graphs take "all bare" and "all refusable" only (a symmetry cut: each
//!   parameter's refusal is settled on its own, so the extremes take each down both paths);
//! - `EXHAUSTIVE_KINDS` (default 3): every kind on every parameter for graphs up to this size;
//!   larger graphs take one kind per way the engine treats a parameter
//!   ([`graphs::REPRESENTATIVES`]);
//! - `EXHAUSTIVE_CHECKS` (default 2): with and without a check for graphs up to this size,
//!   larger ones without (the check runs before the graph on every leg, whatever the graph);
//! - `EXHAUSTIVE_LEGACY` (default 1): replay on the legacy back-channel every word a legacy
//!   client can give (`0`: 2026-07-28 only).
//!
//! It prints the graphs, sequences (flows run to their end), steps (legs run) and the time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "exhaustive/driver.rs"]
mod driver;
#[path = "exhaustive/graphs.rs"]
mod graphs;
#[path = "exhaustive/model.rs"]
mod model;
#[path = "exhaustive/walk.rs"]
mod walk;

use std::time::Instant;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn every_graph_and_answer_sequence_matches_the_model() {
    let bound = graphs::Bound {
        max_questions: env("EXHAUSTIVE_QUESTIONS", 2),
        every_refusable_up_to: env("EXHAUSTIVE_REFUSABLE", 2),
        every_kind_up_to: env("EXHAUSTIVE_KINDS", 3),
        checks_up_to: env("EXHAUSTIVE_CHECKS", 2),
    };
    let walk_bound = walk::Bound { length: env("EXHAUSTIVE_LENGTH", 2), legacy: env("EXHAUSTIVE_LEGACY", 1) != 0 };
    let started = Instant::now();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut counts = walk::Counts::default();
    let specs = graphs::enumerate(bound);
    for spec in &specs {
        let mut fx = driver::Fixture::new(spec);
        let mut walk = walk::Walk { fx: &mut fx, counts: &mut counts, bound: walk_bound };
        if let Err(e) = rt.block_on(walk.run()) {
            panic!("{e}");
        }
    }
    println!(
        "exhaustive: {bound:?}, {walk_bound:?}: {} graphs, {} sequences, {} steps; legacy: {} calls, {} rounds; {:.1?}",
        counts.graphs,
        counts.sequences,
        counts.steps,
        counts.legacy_calls,
        counts.legacy_rounds,
        started.elapsed()
    );
    assert_eq!(counts.graphs, specs.len() as u64);
}
