//! Every answer sequence of one graph, run on the real server and on the model side by side.
//!
//! A sequence is a word over the alphabet of answer kinds: per question asked, `V`alid,
//! `I`nvalid, `D`eclined, `C`ancelled or `M`issing; per leg, `X` (every question answered
//! validly, plus answers nobody asked for: every other parameter and an unknown key), `S`
//! (stale: the state the previous leg sent, sent again, its questions answered validly), `T`
//! (tampered: the last state with one character changed) or `B` (the application's data
//! changes before the leg, so a choice offers other options; every question answered validly,
//! from the options shown) or `R` (the tool is redeployed with every parameter declared anew,
//! same wording, and the flow goes on there: no earlier answer or record may be taken). Each leg consumes one symbol per question it answers (`X`, `S`,
//! `T`, `B` one for the leg). When the word is used up, every question is answered validly
//! until the flow ends. Words sharing a prefix share its legs (a depth-first walk of the tree
//! of words), so a step is one leg run once.
//!
//! Every leg is compared with [`model::leg`]: the questions (family, text, note on a re-asked
//! form, a choice's options), the state (its records, outcomes and values, its questions, its
//! round count), a refusal's message, the body's values, how often `with` fns, the check and
//! the body ran. Besides equality:
//! - when every answer is valid, the flow asks [`Spec::depth`] rounds;
//! - a question answered validly is not asked again (same text and options, so same inputs)
//!   in the same line of legs;
//! - the body never sees a missing or ill-typed value ([`Probe::bad_value`](super::graphs::Probe));
//! - the state's plaintext is no larger than what its records and questions need;
//! - when the word is used up, the flow ends within the graph's size in legs;
//! - a sequence a legacy client can give (only `V`, `I`, `D`, `C` and `B`, the data changing
//!   while the client answers) is also run as one legacy call on the back-channel, which must ask the same questions in the same rounds and end
//!   the same way.

use std::sync::atomic::Ordering;

use roundtrip::protocol::{ErrorObject, JsonObject};
use serde_json::{Value, json};

use super::driver::{Fixture, Got, Round, offered, wire};
use super::graphs::{Kind, NAMES};
use super::model::{self, Asked, Expect, Reply, State};

/// How far to walk.
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    /// Symbols per word.
    pub length: usize,
    /// Run legacy calls too.
    pub legacy: bool,
}

/// What was checked.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub graphs: u64,
    pub sequences: u64,
    pub steps: u64,
    pub legacy_calls: u64,
    pub legacy_rounds: u64,
}

/// One move of a leg.
#[derive(Debug, Clone, PartialEq)]
enum Move {
    /// Per question asked, in order: a reply, or `None` (missing).
    Replies(Vec<Option<Reply>>),
    Extra,
    Stale,
    Tamper,
    Bump,
    Redeploy,
}

/// An earlier point of a line: the token, the model's state, its questions, what was
/// answered, on which deployment.
type Point = (Option<Value>, Option<State>, Vec<Asked>, Vec<String>, usize);

/// A point of the tree: a flow waiting for its next leg.
#[derive(Debug, Clone)]
struct Node {
    /// The state to send back, and the model's.
    token: Option<Value>,
    state: Option<State>,
    /// The questions the last leg asked (the model's, equal to the server's).
    asked: Vec<Asked>,
    generation: u64,
    /// 0 on the tool as first deployed, 1 once redeployed.
    deployment: usize,
    legs: u64,
    budget: usize,
    /// Earlier points of this line (for `S`): token, state, questions, answered.
    history: Vec<Point>,
    /// The questions answered validly in this line, as `param|text|options`.
    answered: Vec<String>,
    /// The legacy script so far (answers by round), while the word is one a legacy client can give.
    script: Option<Vec<Round>>,
    /// The requests of each round, as the 2026 leg asked them.
    requests: Vec<Vec<Value>>,
    asks: usize,
    /// How often `with` fns ran along the line.
    with_calls: usize,
    all_valid: bool,
    word: String,
}

const REPLIES: [Option<Reply>; 5] =
    [Some(Reply::Valid), Some(Reply::Invalid), Some(Reply::Decline), Some(Reply::Cancel), None];

fn letter(r: Option<Reply>) -> char {
    match r {
        Some(Reply::Valid) => 'V',
        Some(Reply::Invalid) => 'I',
        Some(Reply::Decline) => 'D',
        Some(Reply::Cancel) => 'C',
        None => 'M',
    }
}

fn question_id(a: &Asked) -> String {
    format!("{}|{}|{:?}", a.param, a.text, a.options)
}

/// Every graph's walk shares this.
pub struct Walk<'a> {
    pub fx: &'a mut Fixture,
    pub counts: &'a mut Counts,
    pub bound: Bound,
}

impl Walk<'_> {
    /// Walk every word of the graph; an error names the graph, the word and what differed.
    pub async fn run(&mut self) -> Result<(), String> {
        self.counts.graphs += 1;
        if self.fx.spec.check {
            self.shut_gate().await?;
        }
        let root = Node {
            token: None,
            state: None,
            asked: Vec::new(),
            generation: 0,
            deployment: 0,
            legs: 0,
            budget: self.bound.length,
            history: Vec::new(),
            answered: Vec::new(),
            script: Some(Vec::new()),
            requests: Vec::new(),
            asks: 0,
            with_calls: 0,
            all_valid: true,
            word: String::new(),
        };
        let mut stack = Vec::new();
        if let Some(first) = self.step(&root, Move::Replies(Vec::new())).await? {
            stack.push(first);
        }
        while let Some(node) = stack.pop() {
            if node.budget == 0 {
                self.finish(node).await?;
                continue;
            }
            for mv in self.moves(&node) {
                if let Some(child) = self.step(&node, mv).await? {
                    stack.push(child);
                }
            }
        }
        Ok(())
    }

    fn moves(&self, node: &Node) -> Vec<Move> {
        let m = node.asked.len().min(node.budget);
        let mut out = Vec::new();
        let mut vectors: Vec<Vec<Option<Reply>>> = vec![Vec::new()];
        for _ in 0..m {
            vectors = vectors
                .into_iter()
                .flat_map(|v| {
                    REPLIES.iter().map(move |r| {
                        let mut v = v.clone();
                        v.push(*r);
                        v
                    })
                })
                .collect();
        }
        for mut v in vectors {
            v.resize(node.asked.len(), Some(Reply::Valid));
            out.push(Move::Replies(v));
        }
        out.push(Move::Extra);
        if node.history.last().is_some_and(|h| h.0.is_some() && h.4 == node.deployment) {
            out.push(Move::Stale);
        }
        out.push(Move::Tamper);
        if self.fx.spec.kinds.contains(&Kind::Choice) {
            out.push(Move::Bump);
        }
        if node.deployment == 0 && node.token.is_some() {
            out.push(Move::Redeploy);
        }
        out
    }

    /// Answer validly until the flow ends.
    async fn finish(&mut self, mut node: Node) -> Result<(), String> {
        for _ in 0..=self.fx.spec.n() + 1 {
            let all = vec![Some(Reply::Valid); node.asked.len()];
            match self.step(&node, Move::Replies(all)).await? {
                Some(next) => node = next,
                None => return Ok(()),
            }
        }
        Err(self.fail(&node, "every answer was valid, yet the flow did not end"))
    }

    fn fail(&self, node: &Node, what: impl std::fmt::Display) -> String {
        format!("graph {:?}, word {:?} (leg {}): {what}", self.fx.spec, node.word, node.legs)
    }

    /// A call whose check refuses ends at once, asking nothing and running nothing.
    async fn shut_gate(&mut self) -> Result<(), String> {
        let probe = self.fx.probe.clone();
        let before = (probe.check_calls.load(Ordering::SeqCst), probe.with_calls.load(Ordering::SeqCst));
        let got = self.fx.modern(0, "shut", None, &JsonObject::new()).await;
        self.counts.steps += 1;
        let after = (probe.check_calls.load(Ordering::SeqCst), probe.with_calls.load(Ordering::SeqCst));
        if got != Got::Complete("the gate is shut".into(), true) || after != (before.0 + 1, before.1) {
            return Err(format!("graph {:?}: a shut gate gave {got:?}, calls {before:?} -> {after:?}", self.fx.spec));
        }
        Ok(())
    }

    /// Run one leg on the server and the model; the next point if the flow goes on.
    async fn step(&mut self, node: &Node, mv: Move) -> Result<Option<Node>, String> {
        let spec = self.fx.spec.clone();
        let mut child = node.clone();
        child.legs += 1;
        child.budget = node.budget.saturating_sub(match &mv {
            Move::Replies(v) => v.len(),
            _ => 1,
        });
        let stamp = child.legs;
        // What is sent back: which state, which questions it asked.
        let (token, state, asked) = match &mv {
            Move::Stale => {
                let (t, s, a, answered, _) = node.history[node.history.len() - 1].clone();
                child.answered = answered;
                (t, s, a)
            }
            _ => (node.token.clone(), node.state.clone(), node.asked.clone()),
        };
        let replies: Vec<Option<Reply>> = match &mv {
            Move::Replies(v) => v.clone(),
            _ => vec![Some(Reply::Valid); asked.len()],
        };
        let shown = node.generation;
        if mv == Move::Bump {
            child.generation += 1;
        }
        if mv == Move::Redeploy {
            // Every question is new: answering one again is no repeat.
            child.deployment = 1;
            child.answered.clear();
        }
        let mut by_param: [Option<Reply>; 4] = [None; 4];
        let mut responses = JsonObject::new();
        for (a, r) in asked.iter().zip(&replies) {
            by_param[a.param] = *r;
            if let Some(r) = r {
                responses.insert(NAMES[a.param].into(), wire(spec.kinds[a.param], *r, stamp, shown));
            }
        }
        if mv == Move::Extra {
            for i in (0..spec.n()).filter(|i| !asked.iter().any(|a| a.param == *i)) {
                if spec.kinds[i] != Kind::WithValue {
                    by_param[i] = Some(Reply::Valid);
                    responses.insert(NAMES[i].into(), wire(spec.kinds[i], Reply::Valid, 200, shown));
                }
            }
            responses.insert("zz".into(), json!({"action": "accept", "content": {}}));
        }
        child.word.push_str(&match &mv {
            Move::Replies(v) => v.iter().map(|r| letter(*r)).collect::<String>(),
            Move::Extra => "X".into(),
            Move::Stale => "S".into(),
            Move::Tamper => "T".into(),
            Move::Bump => "B".into(),
            Move::Redeploy => "R".into(),
        });
        child.word.push('.');
        let legacy_round = mv == Move::Bump || matches!(&mv, Move::Replies(v) if v.iter().all(Option::is_some));
        if !legacy_round {
            child.script = None;
        } else if let Some(script) = &mut child.script
            && !responses.is_empty()
        {
            let answers = asked.iter().map(|a| responses[NAMES[a.param]].clone()).collect();
            script.push(Round { answers, then_change_data: mv == Move::Bump });
        }
        child.all_valid &= matches!(&mv, Move::Replies(v) if v.iter().all(|r| *r == Some(Reply::Valid)));

        // The server.
        let probe = self.fx.probe.clone();
        probe.generation.store(child.generation, Ordering::SeqCst);
        let counters = || [&probe.with_calls, &probe.check_calls, &probe.runs].map(|c| c.load(Ordering::SeqCst));
        let before = counters();
        let sent = match (&mv, &token) {
            (Move::Tamper, Some(Value::String(t))) => Some(Value::String(tamper(t))),
            (Move::Tamper, _) => Some(json!("not a state")),
            _ => token.clone(),
        };
        let got = self.fx.modern(child.deployment, "open", sent.as_ref(), &responses).await;
        let after = counters();
        let calls = [after[0] - before[0], after[1] - before[1], after[2] - before[2]];
        self.counts.steps += 1;
        child.with_calls += calls[0];

        if mv == Move::Tamper {
            // Refused as a state, before anything runs; the flow goes on from the last good state.
            if got != Got::Error(ErrorObject::invalid_request_state()) || calls != [0, 0, 0] {
                return Err(self.fail(&child, format!("a tampered state gave {got:?}, calls {calls:?}")));
            }
            return Ok(Some(child));
        }

        // The model.
        let expected = model::leg(&spec, state.as_ref(), &by_param, child.generation, shown, stamp, child.deployment);
        let check_calls = usize::from(spec.check);
        if calls[0] != expected.with_calls || calls[1] != check_calls {
            return Err(self.fail(
                &child,
                format!(
                    "with fns ran {} times (model {}), the check {} (model {check_calls}); got {got:?}",
                    calls[0], expected.with_calls, calls[1]
                ),
            ));
        }
        if let Some(bad) = probe.bad_value.lock().ok().and_then(|mut b| b.take()) {
            return Err(self.fail(&child, format!("the body saw {bad}")));
        }
        match (&expected.expect, &got) {
            (Expect::Ask(asked, state), Got::Ask(requests, token)) => {
                if calls[2] != 0 {
                    return Err(self.fail(&child, "the body ran, yet questions were asked"));
                }
                self.compare_questions(&child, asked, requests)?;
                self.compare_state(&child, state, token)?;
                // Validly answered questions, this leg's included.
                for (a, r) in node_questions(&asked_before(node, &mv)).iter().zip(&replies) {
                    if *r == Some(Reply::Valid) && mv != Move::Redeploy {
                        child.answered.push(question_id(a));
                    }
                }
                for a in asked {
                    let id = question_id(&Asked { again: false, ..a.clone() });
                    if child.answered.contains(&id) {
                        return Err(self.fail(&child, format!("{id} was answered validly, yet asked again")));
                    }
                }
                child.requests.push(asked.iter().map(|a| requests[NAMES[a.param]].clone()).collect());
                child.asks += 1;
                child.history.push((
                    node.token.clone(),
                    node.state.clone(),
                    node.asked.clone(),
                    node.answered.clone(),
                    node.deployment,
                ));
                child.token = Some(token.clone());
                child.state = Some((**state).clone());
                child.asked = asked.clone();
                if child.history.len() > 3 {
                    child.history.remove(0);
                }
                Ok(Some(child))
            }
            (Expect::Refused(i, what), Got::Complete(text, true)) => {
                let message = format!("The user {what} the question for `p{i}`, so the tool did not run.");
                if *text != message || calls[2] != 0 {
                    return Err(self.fail(&child, format!("expected the refusal {message:?}, got {text:?}")));
                }
                self.leaf(child, &got).await?;
                Ok(None)
            }
            (Expect::Complete(outcomes), Got::Complete(text, false)) => {
                let expected: serde_json::Map<String, Value> =
                    outcomes.iter().enumerate().map(|(i, o)| (NAMES[i].to_owned(), o.reported())).collect();
                let seen: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                if seen != Value::Object(expected.clone()) || calls[2] != 1 {
                    return Err(self.fail(
                        &child,
                        format!("the body saw {text} (ran {} times), the model says {expected:?}", calls[2]),
                    ));
                }
                if child.all_valid && child.asks != spec.depth() {
                    return Err(self.fail(
                        &child,
                        format!("every answer valid took {} rounds, the graph's depth is {}", child.asks, spec.depth()),
                    ));
                }
                self.leaf(child, &got).await?;
                Ok(None)
            }
            (expected, got) => {
                Err(self.fail(&child, format!("the model expects {expected:?}, the server gave {got:?}")))
            }
        }
    }

    fn compare_questions(&self, node: &Node, asked: &[Asked], requests: &JsonObject) -> Result<(), String> {
        let names: Vec<&str> = asked.iter().map(|a| NAMES[a.param]).collect();
        let mut keys: Vec<&str> = requests.keys().map(String::as_str).collect();
        keys.sort_unstable();
        if keys != names {
            return Err(self.fail(node, format!("asked {keys:?}, the model asks {names:?}")));
        }
        for a in asked {
            let r = &requests[NAMES[a.param]];
            let (method, text) = match a.family {
                "form" => ("elicitation/create", &r["params"]["message"]),
                "url" => ("elicitation/create", &r["params"]["message"]),
                "sample" => ("sampling/createMessage", &r["params"]["messages"][0]["content"]["text"]),
                _ => ("roots/list", &Value::Null),
            };
            let text = text.as_str().unwrap_or_default();
            let text_ok = if a.again && a.family == "form" {
                text.strip_prefix(&format!("{} (", a.text)).is_some_and(|t| t.ends_with("; please answer again)"))
            } else {
                text == a.text
            };
            let url_ok = a.family != "url" || (r["params"]["mode"] == "url" && r["params"]["url"] == a.text.as_str());
            if r["method"] != method || !text_ok || !url_ok || offered(r) != a.options {
                return Err(self.fail(node, format!("{} was asked as {r}, the model asks {a:?}", NAMES[a.param])));
            }
        }
        Ok(())
    }

    fn compare_state(&self, node: &Node, state: &State, token: &Value) -> Result<(), String> {
        let plaintext = self.fx.open(token).map_err(|e| self.fail(node, format!("the state does not open: {e:?}")))?;
        let seen: Value = serde_json::from_slice(&plaintext).map_err(|e| self.fail(node, e))?;
        let mut records = serde_json::Map::new();
        // `{"r":{…},"q":{…},"n":N}`; a record `"pN":{"p":"<24 hex>","o":"a","v":…},`; a
        // question `"pN":"<24 hex>",`.
        let mut budget = 24;
        for (i, r) in state.records.iter().enumerate() {
            if let Some((_, outcome)) = r {
                let value = match outcome {
                    model::Outcome::Accepted(v) => v.clone(),
                    _ => Value::Null,
                };
                budget += 56 + value.to_string().len();
                records.insert(NAMES[i].into(), json!([outcome.letter().to_string(), value]));
            }
        }
        let asked: Vec<&str> = (0..4).filter(|&i| state.asked[i].is_some()).map(|i| NAMES[i]).collect();
        budget += 36 * asked.len();
        let mut got_records = serde_json::Map::new();
        for (name, r) in seen["r"].as_object().into_iter().flatten() {
            got_records.insert(name.clone(), json!([r["o"], r.get("v").cloned().unwrap_or(Value::Null)]));
        }
        let mut got_asked: Vec<&str> = seen["q"].as_object().into_iter().flatten().map(|(k, _)| k.as_str()).collect();
        got_asked.sort_unstable();
        if got_records != records || got_asked != asked || seen["n"] != json!(state.rounds) {
            return Err(self.fail(
                node,
                format!(
                    "the state carries {seen}, the model records {records:?}, asks {asked:?}, round {}",
                    state.rounds
                ),
            ));
        }
        if plaintext.len() > budget {
            return Err(
                self.fail(node, format!("the state is {} bytes, more than the {budget} it needs", plaintext.len()))
            );
        }
        Ok(())
    }

    /// A flow ended: count it, and replay it on the legacy back-channel when it can be.
    async fn leaf(&mut self, node: Node, got: &Got) -> Result<(), String> {
        self.counts.sequences += 1;
        let Some(script) = node.script.clone().filter(|_| self.bound.legacy) else { return Ok(()) };
        let probe = self.fx.probe.clone();
        let counters = || [&probe.with_calls, &probe.check_calls, &probe.runs].map(|c| c.load(Ordering::SeqCst));
        let before = counters();
        let (legacy, seen) = self.fx.legacy(script.clone()).await;
        let after = counters();
        self.counts.legacy_calls += 1;
        self.counts.legacy_rounds += seen.iter().filter(|r| !r.is_empty()).count() as u64;
        if let Some(bad) = self.fx.probe.bad_value.lock().ok().and_then(|mut b| b.take()) {
            return Err(self.fail(&node, format!("legacy: the body saw {bad}")));
        }
        let ran = after[2] - before[2];
        if legacy != *got || ran != usize::from(matches!(got, Got::Complete(_, false))) {
            return Err(self.fail(&node, format!("legacy ended with {legacy:?} (body ran {ran}), 2026 with {got:?}")));
        }
        // The same legs, so the same calls of `with` fns and of the check.
        let (with, check) = (after[0] - before[0], after[1] - before[1]);
        let legs = usize::try_from(node.legs).unwrap_or(usize::MAX);
        if with != node.with_calls || check != legs * usize::from(self.fx.spec.check) {
            return Err(self.fail(
                &node,
                format!(
                    "legacy ran with fns {with} times, the check {check}; 2026 {} and {legs} legs",
                    node.with_calls
                ),
            ));
        }
        let rounds: Vec<Vec<Value>> = seen
            .into_iter()
            .filter(|r| !r.is_empty())
            .map(|r| {
                r.into_iter()
                    .map(|(method, mut params)| {
                        if let Some(p) = params.as_object_mut() {
                            p.remove("elicitationId");
                        }
                        json!({"method": method, "params": params})
                    })
                    .collect()
            })
            .collect();
        if rounds != node.requests {
            return Err(self.fail(&node, format!("legacy asked {rounds:?}, 2026 asked {:?}", node.requests)));
        }
        Ok(())
    }
}

/// The questions a move answers.
fn asked_before(node: &Node, mv: &Move) -> Vec<Asked> {
    match mv {
        Move::Stale => node.history[node.history.len() - 1].2.clone(),
        _ => node.asked.clone(),
    }
}

fn node_questions(asked: &[Asked]) -> Vec<Asked> {
    asked.iter().map(|a| Asked { again: false, ..a.clone() }).collect()
}

/// One character of a token changed.
fn tamper(token: &str) -> String {
    let mut bytes: Vec<char> = token.chars().collect();
    let i = bytes.len() / 2;
    bytes[i] = if bytes[i] == 'A' { 'B' } else { 'A' };
    bytes.into_iter().collect()
}
