//! Every resolver graph of up to four questions, and the real tool each one becomes.
//!
//! A graph is a [`Spec`]: how many resolved parameters (`p0`…`p3`), the kind of each, which
//! earlier parameters each one's question names (every dependency DAG has such an order:
//! parameter `i` may depend only on parameters before it), which are declared `Answer<T>`
//! (refusable), and whether the tool has a check. [`build`] turns a spec into a real
//! [`ToolDef`] through the same `__private` builders the macros' expansion calls.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use roundtrip::__private::{self, Check, Fallback, Graph, Node, Part, Resolver, SampleOptions, Template, ToolSpec};
use roundtrip::protocol::{CallToolResult, JsonObject};
use roundtrip::resolve::{Question, Resolution};
use roundtrip::server::{Outcome, ToolDef};
use serde_json::{Value, json};

/// How one parameter is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `#[resolve(elicit = …)]` of a struct: the whole form `{"n": u8}`.
    Form,
    /// `#[resolve(elicit = …)]` of a `bool`: a one-property form `{"ok": bool}`.
    Confirm,
    /// A `with` fn that asks one choice among options taken from the application's data.
    Choice,
    /// `#[resolve(elicit_url = …)]`.
    Url,
    /// `#[resolve(sample = …)]`.
    Sample,
    /// `#[resolve(roots)]` (depends on nothing).
    Roots,
    /// A `with` fn that gives a value without asking.
    WithValue,
    /// A `with` fn that asks a form `{"w": integer ≥ 0}`.
    WithAsk,
}

pub const KINDS: [Kind; 8] =
    [Kind::Form, Kind::Confirm, Kind::Choice, Kind::Url, Kind::Sample, Kind::Roots, Kind::WithValue, Kind::WithAsk];

impl Kind {
    /// Whether it ever asks.
    pub fn asks(self) -> bool {
        self != Kind::WithValue
    }

    /// Whether its question is an elicitation (declinable).
    pub fn elicits(self) -> bool {
        matches!(self, Kind::Form | Kind::Confirm | Kind::Choice | Kind::Url | Kind::WithAsk)
    }

    pub fn is_with(self) -> bool {
        matches!(self, Kind::Choice | Kind::WithValue | Kind::WithAsk)
    }

    /// The wire family of its question.
    pub fn family(self) -> &'static str {
        match self {
            Kind::Form | Kind::Confirm | Kind::Choice | Kind::WithAsk => "form",
            Kind::Url => "url",
            Kind::Sample => "sample",
            Kind::Roots => "roots",
            Kind::WithValue => "none",
        }
    }
}

/// One graph.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Spec {
    pub kinds: Vec<Kind>,
    /// Per parameter, a bit mask of the earlier parameters its question names.
    pub deps: Vec<u8>,
    /// Bit mask of the parameters declared `Answer<T>`.
    pub refusable: u8,
    /// The tool has `check = gate_open(gate)`.
    pub check: bool,
}

impl Spec {
    pub fn n(&self) -> usize {
        self.kinds.len()
    }

    pub fn deps_of(&self, i: usize) -> Vec<usize> {
        (0..i).filter(|j| self.deps[i] & (1 << j) != 0).collect()
    }

    pub fn refusable(&self, i: usize) -> bool {
        self.refusable & (1 << i) != 0
    }

    /// The rounds a flow takes when every answer is valid: the longest chain of asking
    /// parameters (a `with` fn that gives a value costs no round).
    pub fn depth(&self) -> usize {
        let mut depth = vec![0; self.n()];
        for i in 0..self.n() {
            let before = self.deps_of(i).iter().map(|&j| depth[j]).max().unwrap_or(0);
            depth[i] = before + usize::from(self.kinds[i].asks());
        }
        depth.into_iter().max().unwrap_or(0)
    }
}

/// The bound of an enumeration.
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    /// Graphs of at most this many parameters.
    pub max_questions: usize,
    /// Vary `Answer<T>` on every parameter for graphs up to this size; larger graphs take
    /// "all bare" and "every elicitation refusable" only (a symmetry cut: a refusal is
    /// settled per parameter, so the two extremes take each parameter down both paths).
    pub every_refusable_up_to: usize,
    /// Every kind on every parameter for graphs up to this size; larger graphs take their
    /// kinds from [`REPRESENTATIVES`].
    pub every_kind_up_to: usize,
    /// With and without a check for graphs up to this size; larger graphs without (the check
    /// runs before the graph, on every leg, whatever the graph is).
    pub checks_up_to: usize,
}

/// One kind per way the engine treats a parameter: a declared form (declinable, its type
/// narrower than its schema, pinned by its question), a `with` fn asking a choice from data
/// (pinned by its inputs, its options may change), a question that cannot be declined (a
/// sample), and a `with` fn that answers without asking.
pub const REPRESENTATIVES: [Kind; 4] = [Kind::Form, Kind::Choice, Kind::Sample, Kind::WithValue];

/// Every graph within `bound`, smallest first.
pub fn enumerate(bound: Bound) -> Vec<Spec> {
    let mut out = Vec::new();
    for n in 0..=bound.max_questions {
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (0..i).map(move |j| (i, j))).collect();
        let alphabet: &[Kind] = if n <= bound.every_kind_up_to { &KINDS } else { &REPRESENTATIVES };
        let checks: &[bool] = if n <= bound.checks_up_to { &[false, true] } else { &[false] };
        for shape in 0u32..(1 << pairs.len()) {
            let mut deps = vec![0u8; n];
            for (b, (i, j)) in pairs.iter().enumerate() {
                if shape & (1 << b) != 0 {
                    deps[*i] |= 1 << j;
                }
            }
            let mut kinds = vec![Kind::Form; n];
            enumerate_kinds(&deps, alphabet, 0, &mut kinds, &mut |kinds| {
                // A refusable parameter that can never be refused (a `with` value, samples and
                // roots, which have no decline) is the same graph as a bare one.
                let elicits = (0..n).filter(|&i| kinds[i].elicits()).fold(0u8, |m, i| m | (1 << i));
                let refusables: Vec<u8> = if n <= bound.every_refusable_up_to {
                    (0..(1u8 << n)).filter(|r| r & !elicits == 0).collect()
                } else if elicits == 0 {
                    vec![0]
                } else {
                    vec![0, elicits]
                };
                for refusable in refusables {
                    for &check in checks {
                        out.push(Spec { kinds: kinds.to_vec(), deps: deps.clone(), refusable, check });
                    }
                }
            });
        }
    }
    out
}

fn enumerate_kinds(deps: &[u8], alphabet: &[Kind], i: usize, kinds: &mut Vec<Kind>, f: &mut dyn FnMut(&[Kind])) {
    if i == deps.len() {
        f(kinds);
        return;
    }
    for &kind in alphabet {
        // Roots asks nothing that could name another parameter.
        if kind == Kind::Roots && deps[i] != 0 {
            continue;
        }
        kinds[i] = kind;
        enumerate_kinds(deps, alphabet, i + 1, kinds, f);
    }
}

pub const NAMES: [&str; 4] = ["p0", "p1", "p2", "p3"];

/// The text a value shows as in a question (the documented display rule: strings as they
/// are, numbers and booleans as written, a one-property object as its property, `null` as
/// nothing, anything else as compact JSON).
pub fn show(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Object(o) if o.len() == 1 => o.values().next().map(show).unwrap_or_default(),
        other => other.to_string(),
    }
}

/// `p{i}[dep values, comma-separated]`: every question's text.
pub fn text_of(i: usize, inputs: &[Value]) -> String {
    format!("p{i}[{}]", inputs.iter().map(show).collect::<Vec<_>>().join(","))
}

/// The options of a choice while the application's data is at generation `generation`.
pub fn options(generation: u64) -> [String; 2] {
    [format!("o{generation}a"), format!("o{generation}b")]
}

/// The value a `with` fn gives without asking.
pub fn with_value(i: usize, inputs: &[Value]) -> Value {
    Value::String(format!("v{}", text_of(i, inputs)))
}

/// The template `p{i}[{d0},{d1}]`, one per (parameter, dependency set), made once.
fn template(i: usize, deps: u8) -> Template {
    static TEMPLATES: OnceLock<Vec<Template>> = OnceLock::new();
    let all = TEMPLATES.get_or_init(|| {
        let mut out = Vec::new();
        for i in 0..4 {
            for mask in 0u8..16 {
                let mut parts: Vec<Part> = vec![Part::Lit(Box::leak(format!("p{i}[").into_boxed_str()))];
                let mut first = true;
                for (j, name) in NAMES.iter().enumerate() {
                    if mask & (1 << j) != 0 {
                        if !first {
                            parts.push(Part::Lit(","));
                        }
                        first = false;
                        parts.push(Part::Ref(name));
                    }
                }
                parts.push(Part::Lit("]"));
                out.push(Template(Box::leak(parts.into_boxed_slice())));
            }
        }
        out
    });
    all[i * 16 + usize::from(deps)]
}

/// The argument list of a `with` fn taking the parameters in `deps`, made once.
fn with_args(deps: u8) -> &'static [&'static str] {
    static ARGS: OnceLock<Vec<&'static [&'static str]>> = OnceLock::new();
    ARGS.get_or_init(|| {
        (0u8..16)
            .map(|mask| {
                let names: Vec<&'static str> =
                    NAMES.iter().enumerate().filter(|(j, _)| mask & (1 << j) != 0).map(|(_, n)| *n).collect();
                &*Box::leak(names.into_boxed_slice())
            })
            .collect()
    })[usize::from(deps)]
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}

pub fn form_schema() -> JsonObject {
    object(json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}))
}

pub fn confirm_schema() -> JsonObject {
    object(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}))
}

pub fn with_ask_schema() -> JsonObject {
    object(json!({"type": "object", "properties": {"w": {"type": "integer", "minimum": 0}}, "required": ["w"]}))
}

/// The form's Rust type is `struct { n: u8 }`: the schema says only "an integer ≥ 0", so
/// 300 passes the form and fails the type.
fn check_form(v: &Value) -> Result<(), String> {
    match v.get("n").and_then(Value::as_u64) {
        Some(n) if n <= 255 => Ok(()),
        _ => Err("`n` does not fit a u8".into()),
    }
}

fn check_bool(v: &Value) -> Result<(), String> {
    v.as_bool().map(drop).ok_or_else(|| "not a bool".into())
}

fn check_any(_: &Value) -> Result<(), String> {
    Ok(())
}

/// What the tool records of its runs and of its `with` fns' and check's calls.
#[derive(Debug, Default)]
pub struct Probe {
    /// The data behind choices: its generation.
    pub generation: AtomicU64,
    /// Calls of `with` fns.
    pub with_calls: AtomicUsize,
    /// Calls of the check.
    pub check_calls: AtomicUsize,
    /// Runs of the body.
    pub runs: AtomicUsize,
    /// The body saw a value it should never see (missing, ill-typed, outside its form).
    pub bad_value: Mutex<Option<String>>,
    /// Set once a body ran.
    pub ran: AtomicBool,
}

/// The declarations' digests after a redeploy: the same questions, declared anew (as when a
/// parameter's type or schema changed), so that no earlier answer or record may be taken.
pub const REDEPLOYED: [&str; 4] = ["p0'", "p1'", "p2'", "p3'"];

/// The tool `t` of a graph, recording into `probe`; `redeployed`: its declarations' digests
/// are [`REDEPLOYED`].
pub fn build(spec: &Spec, probe: &Arc<Probe>, redeployed: bool) -> ToolDef {
    let mut nodes = Vec::new();
    for (i, name) in NAMES.iter().enumerate().take(spec.n()) {
        let kind = spec.kinds[i];
        let mask = spec.deps[i];
        let message = template(i, mask);
        let resolver = match kind {
            Kind::Form => Resolver::Elicit { message, schema: form_schema().into(), property: None },
            Kind::Confirm => Resolver::Elicit { message, schema: confirm_schema().into(), property: Some("ok") },
            Kind::Url => Resolver::ElicitUrl { url: message, message },
            Kind::Sample => {
                Resolver::Sample { prompt: message, max_tokens: 50, full: false, options: SampleOptions::default() }
            }
            Kind::Roots => Resolver::Roots,
            Kind::Choice | Kind::WithValue | Kind::WithAsk => {
                let probe = probe.clone();
                let f = __private::with_fn(move |inputs: Vec<Value>, _cx| {
                    probe.with_calls.fetch_add(1, Ordering::SeqCst);
                    let resolution = match kind {
                        Kind::Choice => {
                            let [a, b] = options(probe.generation.load(Ordering::SeqCst));
                            Resolution::Ask(Question::choice(
                                text_of(i, &inputs),
                                "pick",
                                [(a.clone(), a), (b.clone(), b)],
                            ))
                        }
                        Kind::WithAsk => Resolution::Ask(Question::form(text_of(i, &inputs), with_ask_schema())),
                        _ => Resolution::Value(with_value(i, &inputs)),
                    };
                    Box::pin(async move { Ok(resolution) })
                });
                Resolver::With { call: "with", args: with_args(mask), f, value_schema: None }
            }
        };
        let check = match kind {
            Kind::Form => check_form,
            Kind::Confirm => check_bool,
            _ => check_any,
        };
        let static_pin = if redeployed { REDEPLOYED[i] } else { name };
        nodes.push(Node {
            name,
            resolver,
            refusable: spec.refusable(i),
            check,
            static_pin,
            fallback: Fallback::default(),
        });
    }
    let mut arguments = vec!["a"];
    let mut checks = Vec::new();
    if spec.check {
        arguments.push("gate");
        let probe = probe.clone();
        checks.push(Check {
            call: "gate_open(gate)",
            args: &["gate"],
            f: __private::check_fn(move |args: Vec<Value>, _cx| {
                probe.check_calls.fetch_add(1, Ordering::SeqCst);
                let open = args.first().and_then(Value::as_str) == Some("open");
                Box::pin(async move { if open { Ok(()) } else { Err(roundtrip::Error::new("the gate is shut")) } })
            }),
        });
    }
    let graph = match Graph::new(arguments, nodes).and_then(|g| g.with_checks(checks)) {
        Ok(g) => g,
        Err(e) => panic!("the enumerator built an invalid graph {spec:?}: {e}"),
    };
    let kinds = spec.kinds.clone();
    let refusable = spec.refusable;
    let body_probe = probe.clone();
    __private::tool(
        ToolSpec { name: "t", ..ToolSpec::default() },
        object(json!({"type": "object", "properties": {"a": {"type": "string"}, "gate": {"type": "string"}}})),
        None,
        graph,
        |_: &JsonObject| Ok(()),
        move |(), mut values: __private::Values, _cx| {
            let probe = body_probe.clone();
            let kinds = kinds.clone();
            async move {
                probe.runs.fetch_add(1, Ordering::SeqCst);
                probe.ran.store(true, Ordering::SeqCst);
                let mut seen = serde_json::Map::new();
                for (i, kind) in kinds.iter().enumerate() {
                    let name = NAMES[i];
                    let outcome = if refusable & (1 << i) != 0 {
                        match values.answer::<Value>(name) {
                            Ok(roundtrip::Answer::Accepted(v)) => Ok(json!({"a": v})),
                            Ok(roundtrip::Answer::Declined) => Ok(json!("declined")),
                            Ok(roundtrip::Answer::Cancelled) => Ok(json!("cancelled")),
                            Err(e) => Err(e),
                        }
                    } else {
                        values.take::<Value>(name).map(|v| json!({"a": v}))
                    };
                    match outcome {
                        Ok(o) => {
                            if let Some(v) = o.get("a")
                                && let Err(why) = valid_value(*kind, v)
                            {
                                bad(&probe, format!("{name}: {why}: {v}"));
                            }
                            seen.insert(name.into(), o);
                        }
                        Err(e) => bad(&probe, format!("{name}: {}", e.message())),
                    }
                }
                Ok(Outcome::Complete(CallToolResult::text(Value::Object(seen).to_string())))
            }
        },
    )
}

fn bad(probe: &Probe, why: String) {
    if let Ok(mut slot) = probe.bad_value.lock() {
        slot.get_or_insert(why);
    }
}

/// Whether the body may see `v` for a parameter of `kind` (its type, and its form's rules).
fn valid_value(kind: Kind, v: &Value) -> Result<(), &'static str> {
    let ok = match kind {
        Kind::Form => v.get("n").and_then(Value::as_u64).is_some_and(|n| n <= 255),
        Kind::Confirm => v.is_boolean(),
        Kind::Choice => v.as_str().is_some_and(|s| s.starts_with('o')),
        Kind::Url => v.is_null(),
        Kind::Sample => v.as_str().is_some_and(|s| s.starts_with('s')),
        Kind::Roots => v.as_array().is_some_and(|a| a.iter().all(|r| r.get("uri").is_some_and(Value::is_string))),
        Kind::WithValue => v.as_str().is_some_and(|s| s.starts_with("vp")),
        Kind::WithAsk => v.get("w").and_then(Value::as_u64).is_some(),
    };
    if ok { Ok(()) } else { Err("a value outside its type or form") }
}
