//! A tool's resolver graph: its arguments and the parameters it resolves, each with the
//! question that resolves it and the parameters that question depends on.

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use super::question::{Question, SampleOptions};
use super::template::Template;
use crate::error::Error;
use crate::protocol::RequestedSchema;
use crate::request::RequestContext;

/// What a `with` resolver decides: a value without asking, or exactly one question.
// Made once per leg and consumed at once: boxing the question would only cost an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// The value, as JSON; no round trip.
    Value(Value),
    /// Ask this.
    Ask(Question),
}

/// Computes a `with` resolver from the values it depends on (in the order declared) and the
/// request (for state and the context); an error ends the call.
pub type WithFn =
    Arc<dyn for<'a> Fn(Vec<Value>, &'a RequestContext) -> BoxFuture<'a, Result<Resolution, Error>> + Send + Sync>;

/// Runs a check on the arguments it takes (in the order declared) and the request; an error
/// ends the call before anything is asked.
pub type GuardFn =
    Arc<dyn for<'a> Fn(Vec<Value>, &'a RequestContext) -> BoxFuture<'a, Result<(), Error>> + Send + Sync>;

/// A check that runs on every leg, before any question: `#[tool(check = f(a, b))]`.
#[derive(Clone)]
pub struct Check {
    /// The call as written (`known_service(service)`), for documentation.
    pub call: &'static str,
    /// The arguments it takes, in order.
    pub args: &'static [&'static str],
    /// The check.
    pub f: GuardFn,
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Check({})", self.call)
    }
}

/// How a parameter is resolved.
#[derive(Clone)]
pub enum Resolver {
    /// A form; `property` names the single property of a primitive's one-property form.
    Elicit {
        /// The question, with placeholders.
        message: Template,
        /// The requested schema (built once; each question shares it).
        schema: RequestedSchema,
        /// The property whose value is the parameter (primitives), or `None` (whole form).
        property: Option<&'static str>,
    },
    /// A URL to open.
    ElicitUrl {
        /// The URL, with placeholders.
        url: Template,
        /// Why to open it, with placeholders.
        message: Template,
    },
    /// A model completion.
    Sample {
        /// The prompt, with placeholders.
        prompt: Template,
        /// The token bound.
        max_tokens: u32,
        /// The value is the whole reply rather than its text.
        full: bool,
        /// System prompt, temperature, stop sequences, model preferences, context.
        options: SampleOptions,
    },
    /// The client's roots.
    Roots,
    /// A function of other parameters.
    With {
        /// The call as written (`self.instances(service)`), for documentation.
        call: &'static str,
        /// The parameters it takes, in order.
        args: &'static [&'static str],
        /// The function.
        f: WithFn,
        /// The schema of the value it gives (what its questions answer), when the type has one.
        value_schema: Option<Value>,
    },
}

impl fmt::Debug for Resolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Elicit { message, .. } => write!(f, "Elicit({:?})", message.source()),
            Self::ElicitUrl { url, .. } => write!(f, "ElicitUrl({:?})", url.source()),
            Self::Sample { prompt, .. } => write!(f, "Sample({:?})", prompt.source()),
            Self::Roots => f.write_str("Roots"),
            Self::With { call, .. } => write!(f, "With({call})"),
        }
    }
}

impl Resolver {
    /// The parameters this resolver depends on.
    pub fn deps(&self) -> Vec<&'static str> {
        self.each_dep().collect()
    }

    /// [`deps`](Self::deps) without collecting them (a leg asks this of every node).
    pub(crate) fn each_dep(&self) -> impl Iterator<Item = &'static str> + '_ {
        let (templates, args): ([Option<&Template>; 2], &[&'static str]) = match self {
            Self::Elicit { message, .. } => ([Some(message), None], &[]),
            Self::ElicitUrl { url, message } => ([Some(url), Some(message)], &[]),
            Self::Sample { prompt, .. } => ([Some(prompt), None], &[]),
            Self::Roots => ([None, None], &[]),
            Self::With { args, .. } => ([None, None], args),
        };
        templates.into_iter().flatten().flat_map(Template::refs).chain(args.iter().copied())
    }

    /// A digest of an elicitation's requested schema (the part of its question that never
    /// changes between legs).
    fn schema_digest(&self) -> Option<[u8; 32]> {
        use sha2::{Digest, Sha256};
        match self {
            Self::Elicit { schema, .. } => {
                let bytes = serde_json::to_vec(&**schema).unwrap_or_default();
                Some(Sha256::digest(&bytes).into())
            }
            _ => None,
        }
    }

    /// The kind, as a word for documentation.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Elicit { .. } => "elicit",
            Self::ElicitUrl { .. } => "elicit_url",
            Self::Sample { .. } => "sample",
            Self::Roots => "roots",
            Self::With { .. } => "with",
        }
    }
}

/// Checks that an extracted answer converts into the parameter's Rust type.
pub type CheckFn = fn(&Value) -> Result<(), String>;

/// What a resolved parameter takes instead of an answer: declared with `or_argument` and
/// `or_default = …` on `#[resolve]`, for the clients that cannot answer its question.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fallback {
    /// The parameter is also an optional argument of its name. Given, it is the value and
    /// nothing is asked; missing, the question is asked if the client can answer it, and
    /// otherwise the call ends saying which argument to pass.
    pub argument: bool,
    /// A URL question is asked as a form question carrying its link where the client answers
    /// forms but has no URL mode (`or_form`).
    pub form: bool,
    /// The value (as JSON) when the client cannot answer the question.
    pub default: Option<fn() -> Value>,
}

impl Fallback {
    /// None: a client that cannot answer is refused (`-32021`, naming the capability).
    pub fn is_none(&self) -> bool {
        !self.argument && !self.form && self.default.is_none()
    }
}

/// One resolved parameter.
#[derive(Debug, Clone)]
pub struct Node {
    /// The parameter's name: also the question's key in `inputRequests`.
    pub name: &'static str,
    /// How it is resolved.
    pub resolver: Resolver,
    /// `Answer<T>`: the body receives declines and cancels instead of the call ending.
    pub refusable: bool,
    /// Whether an extracted answer converts into the parameter's type.
    pub check: CheckFn,
    /// A digest of the declaration, computed by the macro; part of every pin.
    pub static_pin: &'static str,
    /// What it takes when its question cannot be asked.
    pub fallback: Fallback,
}

/// The graph of one tool, prompt or resource template.
#[derive(Debug, Clone)]
pub struct Graph {
    arguments: Vec<&'static str>,
    nodes: Vec<Node>,
    checks: Vec<Check>,
    /// Per node, in `nodes` order: a digest of the requested schema of an elicitation,
    /// computed once here so that pinning a question on every leg hashes only its message.
    schema_digests: Vec<Option<[u8; 32]>>,
}

impl Graph {
    /// A graph of these arguments and resolved parameters, in evaluation order.
    ///
    /// Fails when a dependency names nothing, or the dependencies form a cycle (the macro
    /// rejects both at compile time; this guards graphs built by hand).
    pub fn new(arguments: Vec<&'static str>, nodes: Vec<Node>) -> Result<Self, String> {
        let mut ordered: Vec<Node> = Vec::with_capacity(nodes.len());
        let mut remaining = nodes;
        for node in &remaining {
            for dep in node.resolver.deps() {
                if !arguments.contains(&dep) && !remaining.iter().any(|n| n.name == dep) {
                    return Err(format!("`{}` depends on `{dep}`, which is no parameter", node.name));
                }
                if dep == node.name {
                    return Err(format!("`{}` depends on itself", node.name));
                }
            }
        }
        while !remaining.is_empty() {
            let ready = remaining.iter().position(|n| {
                n.resolver.deps().iter().all(|d| arguments.contains(d) || ordered.iter().any(|o| o.name == *d))
            });
            match ready {
                Some(i) => ordered.push(remaining.remove(i)),
                None => {
                    let names: Vec<&str> = remaining.iter().map(|n| n.name).collect();
                    return Err(format!("the dependencies of {names:?} form a cycle"));
                }
            }
        }
        let schema_digests = ordered.iter().map(|n| n.resolver.schema_digest()).collect();
        Ok(Self { arguments, nodes: ordered, checks: Vec::new(), schema_digests })
    }

    /// Run these checks on every leg before any question (each may take arguments only).
    ///
    /// Fails when a check takes something that is not an argument.
    pub fn with_checks(mut self, checks: Vec<Check>) -> Result<Self, String> {
        for check in &checks {
            if let Some(bad) = check.args.iter().find(|a| !self.arguments.contains(a)) {
                return Err(format!("the check `{}` takes `{bad}`, which is no argument", check.call));
            }
        }
        self.checks = checks;
        Ok(self)
    }

    /// The checks, in the order declared.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// The argument names (they form the input schema).
    pub fn arguments(&self) -> &[&'static str] {
        &self.arguments
    }

    /// The resolved parameters in evaluation order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The digest of the requested schema of the `i`-th node, when it is an elicitation.
    pub(crate) fn schema_digest(&self, i: usize) -> Option<&[u8; 32]> {
        self.schema_digests.get(i)?.as_ref()
    }

    /// The round in which each node is asked when every answer is accepted: 1 + the
    /// longest chain of resolved parameters it depends on (`with` resolvers that answer
    /// without asking count as asking, the worst case).
    pub fn depth_of(&self, name: &str) -> usize {
        let Some(node) = self.nodes.iter().find(|n| n.name == name) else { return 0 };
        1 + node.resolver.deps().iter().map(|d| self.depth_of(d)).max().unwrap_or(0)
    }
}
