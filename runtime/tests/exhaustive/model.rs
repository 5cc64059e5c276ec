//! The reference model: what one leg of a declared flow must do, written from the design (not
//! from the engine) over plain values, with no pins, digests, sealing or serialization.
//!
//! A question is identified by what the user is shown (its family, its text and, for a
//! choice, its options) and by the declaration it comes from (a redeploy that declares a
//! parameter anew, as when its type changed, makes every question and record of it new). The state a flow carries is, per parameter, the outcome recorded for
//! it and under which identity (the question it answers, or for a `with` fn the inputs it ran
//! on), and which questions the previous leg asked. One leg walks the parameters in
//! dependency order:
//! - a parameter whose inputs are not all known waits;
//! - a `with` fn already recorded for these inputs gives its record; otherwise it runs (that is
//!   counted) and gives a value (recorded) or a question;
//! - a question already answered (its record names this very question) gives its record;
//! - a question asked by the previous leg and answered now: a valid answer, a decline or a
//!   cancel is recorded; an invalid one (or a decline of a sample or roots, which cannot be
//!   declined) asks the same question again, with a note on a form;
//! - a question the previous leg asked differently (a choice whose options changed) and answered
//!   now is asked anew, with a note on a form when the answer does not fit it as it is now (a
//!   value chosen among the earlier options, an invalid answer);
//! - anything else (never asked, not answered) is asked;
//! - a declined or cancelled bare parameter ends the call at once, without the body.
//!
//! When nothing is asked the body runs with every outcome.

use serde_json::{Value, json};

use super::graphs::{Kind, Spec, options, text_of, with_value};

/// What a client answers to one question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reply {
    /// An answer that fits the question and the parameter's type.
    Valid,
    /// An answer that does not (outside the form, outside the type, not the right shape).
    Invalid,
    /// `decline`.
    Decline,
    /// `cancel`.
    Cancel,
}

/// A recorded outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The value the body receives.
    Accepted(Value),
    /// Declined.
    Declined,
    /// Cancelled.
    Cancelled,
}

impl Outcome {
    /// The value dependants see (a refusal shows as nothing).
    pub fn shown(&self) -> Value {
        match self {
            Outcome::Accepted(v) => v.clone(),
            _ => Value::Null,
        }
    }

    /// What the test tool's body reports for it.
    pub fn reported(&self) -> Value {
        match self {
            Outcome::Accepted(v) => json!({"a": v}),
            Outcome::Declined => json!("declined"),
            Outcome::Cancelled => json!("cancelled"),
        }
    }

    /// `a`, `d` or `c`, as the state records it.
    pub fn letter(&self) -> char {
        match self {
            Outcome::Accepted(_) => 'a',
            Outcome::Declined => 'd',
            Outcome::Cancelled => 'c',
        }
    }
}

/// The state a flow carries between legs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    /// Per parameter: the identity it was recorded under, and the outcome.
    pub records: [Option<(String, Outcome)>; 4],
    /// Per parameter: the identity of the question the leg that made this state asked.
    pub asked: [Option<String>; 4],
    /// Rounds of questions asked so far.
    pub rounds: u32,
}

/// One question the model expects.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The parameter.
    pub param: usize,
    /// `form`, `url`, `sample` or `roots`.
    pub family: &'static str,
    /// Its text (for roots, none).
    pub text: String,
    /// A choice's options.
    pub options: Option<[String; 2]>,
    /// Asked again after an invalid answer (a form then carries a note).
    pub again: bool,
}

/// What a leg leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// Ask these (in parameter order) and carry this state.
    Ask(Vec<Asked>, Box<State>),
    /// A bare parameter was declined (`"declined"`) or cancelled: the call ends, no body.
    Refused(usize, &'static str),
    /// The body runs with these outcomes.
    Complete(Vec<Outcome>),
}

/// A leg's expected result, and how many times `with` fns run in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Leg {
    pub expect: Expect,
    pub with_calls: usize,
}

/// The value the body receives for a valid answer to parameter `kind`, stamped `stamp`, when
/// the choice shown had the options of generation `shown`.
pub fn accepted(kind: Kind, stamp: u64, shown: u64) -> Value {
    match kind {
        Kind::Form => json!({"n": stamp}),
        Kind::Confirm => json!(stamp.is_multiple_of(2)),
        Kind::Choice => json!(options(shown)[usize::from(stamp % 2 == 1)]),
        Kind::WithAsk => json!({"w": stamp}),
        Kind::Url => Value::Null,
        Kind::Sample => json!(format!("s{stamp}")),
        Kind::Roots => json!([{"uri": format!("file:///r{stamp}")}]),
        Kind::WithValue => unreachable!("a with value is never asked"),
    }
}

/// What a reply amounts to for a question of `kind`: an outcome, or `None` (invalid: asked again).
fn effect(kind: Kind, reply: Reply, stamp: u64, shown: u64) -> Option<Outcome> {
    match reply {
        Reply::Valid => Some(Outcome::Accepted(accepted(kind, stamp, shown))),
        Reply::Invalid => None,
        Reply::Decline if kind.elicits() => Some(Outcome::Declined),
        Reply::Cancel if kind.elicits() => Some(Outcome::Cancelled),
        Reply::Decline | Reply::Cancel => None,
    }
}

/// One leg of `spec`'s flow from `state` (`None`: the first leg), with these replies (by
/// parameter; a reply to a question the state did not ask is ignored), while the application's
/// data is at `generation`, on the tool's `deployment` (0 first, 1 redeployed). `stamp` says
/// which valid answer the client gives, and `shown` the generation of the options it chose among.
pub fn leg(
    spec: &Spec,
    state: Option<&State>,
    replies: &[Option<Reply>; 4],
    generation: u64,
    shown: u64,
    stamp: u64,
    deployment: usize,
) -> Leg {
    let empty = State::default();
    let previous = state.unwrap_or(&empty);
    let mut known: [Option<Value>; 4] = Default::default();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; spec.n()];
    let mut next = State { rounds: previous.rounds + 1, ..State::default() };
    let mut asked = Vec::new();
    let mut with_calls = 0;
    for i in 0..spec.n() {
        let kind = spec.kinds[i];
        let deps = spec.deps_of(i);
        let Some(inputs) = deps.iter().map(|&d| known[d].clone()).collect::<Option<Vec<Value>>>() else {
            continue;
        };
        let text = text_of(i, &inputs);
        let choice = (kind == Kind::Choice).then(|| options(generation));
        let question = format!("{}|{text}|{choice:?}|{deployment}", kind.family());
        // Under which identity an outcome of this parameter is recorded.
        let identity = if kind.is_with() { format!("inputs|{inputs:?}|{deployment}") } else { question.clone() };
        let recorded = previous.records[i].as_ref().filter(|(id, _)| *id == identity).map(|(_, o)| o.clone());
        let outcome = match recorded {
            Some(outcome) => outcome,
            None => {
                if kind.is_with() {
                    with_calls += 1;
                }
                if kind == Kind::WithValue {
                    Outcome::Accepted(with_value(i, &inputs))
                } else {
                    let answered = previous.asked[i].as_ref() == Some(&question);
                    let reply = replies[i].filter(|_| answered);
                    // Asked before in another form, and answered: does the answer fit the
                    // question as it is now? (A choice's value fits only the options it was
                    // chosen among.)
                    let changed = !answered && previous.asked[i].is_some();
                    let refused_earlier = match replies[i].filter(|_| changed) {
                        Some(Reply::Valid) => kind == Kind::Choice && shown != generation,
                        Some(r) => effect(kind, r, stamp, generation).is_none(),
                        None => false,
                    };
                    match reply.map(|r| effect(kind, r, stamp, generation)) {
                        Some(Some(outcome)) => outcome,
                        again => {
                            let text = if kind == Kind::Roots { String::new() } else { text };
                            asked.push(Asked {
                                param: i,
                                family: kind.family(),
                                text,
                                options: choice,
                                again: again.is_some() || refused_earlier,
                            });
                            next.asked[i] = Some(question);
                            continue;
                        }
                    }
                }
            }
        };
        match outcome {
            Outcome::Declined if !spec.refusable(i) => {
                return Leg { expect: Expect::Refused(i, "declined"), with_calls };
            }
            Outcome::Cancelled if !spec.refusable(i) => {
                return Leg { expect: Expect::Refused(i, "cancelled"), with_calls };
            }
            _ => {}
        }
        known[i] = Some(outcome.shown());
        next.records[i] = Some((identity, outcome.clone()));
        outcomes[i] = Some(outcome);
    }
    let expect = if asked.is_empty() {
        Expect::Complete(outcomes.into_iter().map(|o| o.expect("nothing asked, so everything is known")).collect())
    } else {
        Expect::Ask(asked, Box::new(next))
    };
    Leg { expect, with_calls }
}
