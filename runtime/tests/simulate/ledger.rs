//! The ground truth a run keeps apart from the system under test, and the invariants checked
//! against it at the end of every run:
//!
//! - no flow lost: every flow the client started ended, with a result or a visible error, and
//!   an idempotent flow with its result (the fleet's pass rule: idempotent flows neither lost
//!   nor failed; a flow that is not idempotent may fail visibly);
//! - no flow completed twice: the body of a flow that is not idempotent ran at most once (its
//!   side effect is counted by the body itself), and a result the client got is the result of
//!   a body that ran;
//! - no answer applied to another flow or task: every body got its own flow's answers, and
//!   every result is its own flow's;
//! - a single-use state is never accepted twice (counted by the shared replay cache, and by
//!   the bodies of single-use tools);
//! - every task ends in a terminal state, or reads failed with `taskRunnerLost` (checked once
//!   the faults are over, through a replica's `tasks/get`);
//! - no replica panics (a panic hook counts panics on the run's thread).

use std::collections::BTreeMap;

/// How a flow ended for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A result: its text.
    Result(String),
    /// A visible error: what the client reports.
    Error(String),
    /// A visible error once the client's retry rule ran out of budget (retries of a request,
    /// restarts of a flow, rounds, or the time a task may be unreachable): the faults were
    /// denser than the rule is built for. Allowed, counted and printed, also for an idempotent
    /// flow; any other error of an idempotent flow breaks the pass rule.
    GaveUp(String),
    /// Its caller went away before it ended (the call's future dropped; a task it follows is
    /// sent `tasks/cancel`).
    Abandoned,
}

/// One flow: a call the client makes to its end.
#[derive(Debug, Clone)]
pub struct Flow {
    pub tool: &'static str,
    pub idempotent: bool,
    /// The result its body returns.
    pub expected: String,
    pub outcome: Option<Outcome>,
    /// How many times its body ran to its side effect.
    pub effects: u64,
}

#[derive(Debug, Default)]
pub struct Ledger {
    pub flows: BTreeMap<String, Flow>,
    /// Violations seen as they happened (a body given another flow's answer, a state accepted
    /// twice, a panic).
    pub violations: Vec<String>,
    /// The single-use states accepted (by digest): a label (`S1`, `S2`… in order of first
    /// acceptance; the digests differ from run to run) and how often.
    pub accepted: BTreeMap<[u8; 32], (usize, u64)>,
    /// States checked against the replay cache.
    pub replay_checks: u64,
}

impl Ledger {
    pub fn start(&mut self, name: &str, tool: &'static str, idempotent: bool, expected: String) {
        self.flows.insert(name.to_owned(), Flow { tool, idempotent, expected, outcome: None, effects: 0 });
    }

    /// A body ran to its side effect for `flow`, having been given `got` where `want` was
    /// the flow's own answer.
    pub fn effect(&mut self, flow: &str, answers: &[(String, String)]) {
        match self.flows.get_mut(flow) {
            Some(f) => f.effects += 1,
            None => self.violations.push(format!("a body ran for {flow}, which no client started")),
        }
        for (want, got) in answers {
            if want != got {
                self.violations.push(format!("the body of {flow} was given {got:?} instead of its own {want:?}"));
            }
        }
    }

    /// The client ended `flow`.
    pub fn end(&mut self, flow: &str, outcome: Outcome) {
        if let Some(f) = self.flows.get_mut(flow) {
            if let Some(before) = &f.outcome {
                self.violations.push(format!("{flow} ended twice: {before:?}, then {outcome:?}"));
            }
            f.outcome = Some(outcome);
        }
    }

    /// A single-use state (by digest) was accepted by the shared replay cache.
    pub fn accepted(&mut self, digest: [u8; 32]) {
        let next = self.accepted.len() + 1;
        let (label, n) = self.accepted.entry(digest).or_insert((next, 0));
        *n += 1;
        if *n > 1 {
            self.violations.push(format!("the single-use state S{label} was accepted {n} times"));
        }
    }

    /// How the flows ended: with their result, a visible error, once the client gave up, or
    /// abandoned by their caller.
    pub fn tally(&self) -> [usize; 4] {
        let mut tally = [0; 4];
        for f in self.flows.values() {
            match f.outcome {
                Some(Outcome::Result(_)) => tally[0] += 1,
                Some(Outcome::Error(_)) => tally[1] += 1,
                Some(Outcome::GaveUp(_)) => tally[2] += 1,
                Some(Outcome::Abandoned) => tally[3] += 1,
                None => {}
            }
        }
        tally
    }

    /// Every invariant over the flows, once the run is over.
    pub fn check_flows(&self) -> Vec<String> {
        let mut broken = self.violations.clone();
        for (name, f) in &self.flows {
            let what = format!("{name} ({}{})", f.tool, if f.idempotent { ", idempotent" } else { "" });
            match &f.outcome {
                None => broken.push(format!("{what} was lost: it never ended")),
                Some(Outcome::Result(text)) if *text != f.expected => {
                    broken.push(format!("{what} got {text:?}, which is not its result {:?}", f.expected));
                }
                Some(Outcome::Result(_)) if f.effects == 0 => {
                    broken.push(format!("{what} got its result, yet no body ran"));
                }
                Some(Outcome::Error(e)) if f.idempotent => {
                    broken.push(format!("{what} failed though idempotent (retrying is always safe): {e}"));
                }
                _ => {}
            }
            if !f.idempotent && f.effects > 1 {
                broken.push(format!("{what} is not idempotent and its body ran {} times", f.effects));
            }
        }
        broken
    }
}
