//! The exhaustive check of the resolver engine (issue 26, item 1): every resolver graph of up
//! to a few questions ([`graphs`]), every answer sequence up to a bounded length ([`walk`]),
//! run on the real `Server` in memory ([`driver`]) in both eras and compared, leg by leg, with
//! a reference model written apart from the engine ([`model`]).
//!
//! Kinds: a form, a confirm (a `bool`'s one-property form), a choice from the application's
//! data (a `with` fn that asks), a URL, a sample, roots, a `with` fn that answers, a `with` fn
//! that asks a form; every dependency DAG among them; bare or `Answer<T>`; with or without a
//! check. Answer alphabet: valid, invalid, declined, cancelled, missing (per question), extra,
//! stale, tampered, changed data, redeploy (per leg). Eras: every word is run on 2026-07-28
//! legs; every word a legacy client can give (valid, invalid, declined, cancelled, changed data) is also
//! run as one call on the legacy back-channel (2025-11-25).
//!
//! The bound comes from the environment (the defaults run in well under a minute in a debug
//! build; `scripts/exhaustive.sh` runs the full bound in release):
//! - `EXHAUSTIVE_QUESTIONS` (default 2): graphs of at most this many resolved parameters;
//! - `EXHAUSTIVE_LENGTH` (default 2): answer words of at most this many symbols;
//! - `EXHAUSTIVE_REFUSABLE` (default 2): every `Answer<T>` combination for graphs up to this
//!   size; larger graphs take "all bare" and "every elicitation refusable" only (a symmetry cut: each
//!   parameter's refusal is settled on its own, so the extremes take each down both paths);
//! - `EXHAUSTIVE_KINDS` (default 3): every kind on every parameter for graphs up to this size;
//!   larger graphs take one kind per way the engine treats a parameter
//!   ([`graphs::REPRESENTATIVES`]);
//! - `EXHAUSTIVE_CHECKS` (default 2): with and without a check for graphs up to this size,
//!   larger ones without (the check runs before the graph on every leg, whatever the graph);
//! - `EXHAUSTIVE_FROM` (default 0): skip graphs of fewer questions (a pass that only adds
//!   larger graphs to an earlier one);
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
    let from = env("EXHAUSTIVE_FROM", 0);
    let specs: Vec<_> = graphs::enumerate(bound).into_iter().filter(|s| s.n() >= from).collect();
    for (i, spec) in specs.iter().enumerate() {
        if i == 0 || specs[i - 1].n() != spec.n() {
            // A long run says how far it got.
            eprintln!("exhaustive: graphs of {} questions start at {:.1?}: {counts:?}", spec.n(), started.elapsed());
        }
        let mut fx = driver::Fixture::new(spec);
        let mut walk = walk::Walk { fx: &mut fx, counts: &mut counts, bound: walk_bound };
        if let Err(e) = rt.block_on(walk.run()) {
            panic!("{e}");
        }
    }
    println!(
        "exhaustive: {bound:?}, {walk_bound:?}, from {from}: {} graphs, {} sequences, {} steps; legacy: {} calls, {} rounds; {:.1?}",
        counts.graphs,
        counts.sequences,
        counts.steps,
        counts.legacy_calls,
        counts.legacy_rounds,
        started.elapsed()
    );
    assert_eq!(counts.graphs, specs.len() as u64);
}

/// The model on its own, by hand, on flows whose answer is plain from the design: so that
/// agreeing with the engine is not agreeing on a mistake both make.
#[test]
fn the_model_says_what_the_design_says() {
    use graphs::{Kind, Spec};
    use model::{Expect, Outcome, Reply, leg};
    let none = [None; 4];
    let asked = |l: &model::Leg| match &l.expect {
        Expect::Ask(a, s) => (a.iter().map(|a| (a.param, a.text.clone(), a.again)).collect::<Vec<_>>(), (**s).clone()),
        other => panic!("expected questions, got {other:?}"),
    };
    // Two independent forms are asked together; one that names the first waits for it.
    let spec =
        Spec { kinds: vec![Kind::Form, Kind::Form, Kind::Form], deps: vec![0, 0, 1], refusable: 0, check: false };
    let (first, state) = asked(&leg(&spec, None, &none, 0, 0, 1, 0));
    assert_eq!(first, [(0, "p0[]".to_owned(), false), (1, "p1[]".to_owned(), false)]);
    // p0 answered 7, p1 invalid: p1 again (with a note), p2 asked with p0's answer shown.
    let replies = [Some(Reply::Valid), Some(Reply::Invalid), None, None];
    let (second, state) = asked(&leg(&spec, Some(&state), &replies, 0, 0, 7, 0));
    assert_eq!(second, [(1, "p1[]".to_owned(), true), (2, "p2[7]".to_owned(), false)]);
    // Both answered: the body runs with p0 from the earlier leg and the others from this one.
    let replies = [None, Some(Reply::Valid), Some(Reply::Valid), None];
    let done = leg(&spec, Some(&state), &replies, 0, 0, 9, 0);
    let expected = [serde_json::json!({"n": 7}), serde_json::json!({"n": 9}), serde_json::json!({"n": 9})];
    assert_eq!(done.expect, Expect::Complete(expected.into_iter().map(Outcome::Accepted).collect()));
    // A bare parameter declined ends the call; the same parameter as Answer<T> goes on.
    let spec = Spec { kinds: vec![Kind::Confirm], deps: vec![0], refusable: 0, check: false };
    let (_, state) = asked(&leg(&spec, None, &none, 0, 0, 1, 0));
    let declined = [Some(Reply::Decline), None, None, None];
    assert_eq!(leg(&spec, Some(&state), &declined, 0, 0, 2, 0).expect, Expect::Refused(0, "declined"));
    let refusable = Spec { refusable: 1, ..spec };
    assert_eq!(leg(&refusable, Some(&state), &declined, 0, 0, 2, 0).expect, Expect::Complete(vec![Outcome::Declined]));
    // A sample cannot be declined: a decline is asked again, unchanged.
    let spec = Spec { kinds: vec![Kind::Sample], deps: vec![0], refusable: 0, check: false };
    let (_, state) = asked(&leg(&spec, None, &none, 0, 0, 1, 0));
    assert_eq!(asked(&leg(&spec, Some(&state), &declined, 0, 0, 2, 0)).0, [(0, "p0[]".to_owned(), true)]);
    // A with fn that answers runs once, asks nothing, and its value is shown to its dependant.
    let spec = Spec { kinds: vec![Kind::WithValue, Kind::Form], deps: vec![0, 1], refusable: 0, check: false };
    let first = leg(&spec, None, &none, 0, 0, 1, 0);
    assert_eq!(first.with_calls, 1);
    let (questions, state) = asked(&first);
    assert_eq!(questions, [(1, "p1[vp0[]]".to_owned(), false)]);
    let second = leg(&spec, Some(&state), &[None, Some(Reply::Valid), None, None], 0, 0, 3, 0);
    assert_eq!(second.with_calls, 0);
    // A choice whose options changed before the answer came is asked anew, with a note (the
    // value chosen is no longer among the options); chosen among the options as they are now
    // (a stale state), it is asked anew as it is; a redeploy re-asks what was answered.
    let spec = Spec { kinds: vec![Kind::Choice], deps: vec![0], refusable: 0, check: false };
    let (_, state) = asked(&leg(&spec, None, &none, 0, 0, 1, 0));
    let valid = [Some(Reply::Valid), None, None, None];
    assert_eq!(asked(&leg(&spec, Some(&state), &valid, 1, 0, 2, 0)).0, [(0, "p0[]".to_owned(), true)]);
    assert_eq!(asked(&leg(&spec, Some(&state), &valid, 1, 1, 2, 0)).0, [(0, "p0[]".to_owned(), false)]);
    assert_eq!(asked(&leg(&spec, Some(&state), &valid, 0, 0, 2, 1)).0, [(0, "p0[]".to_owned(), false)]);
    assert!(matches!(leg(&spec, Some(&state), &valid, 0, 0, 2, 0).expect, Expect::Complete(_)));
}
