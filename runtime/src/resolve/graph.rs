//! A tool's resolver graph: its arguments and the parameters it resolves, each with the
//! question that resolves it and the parameters that question depends on.

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use super::template::Template;
use crate::protocol::{CreateMessageParams, ElicitParams, ErrorObject, InputRequest, JsonObject};

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

/// A question and how its answer becomes the parameter's value.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// What goes into `inputRequests`.
    pub request: InputRequest,
    /// How the answer becomes the value.
    pub extract: Extract,
}

/// How an answer becomes a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extract {
    /// The whole accepted form.
    Form,
    /// One property of the accepted form.
    Property(String),
    /// URL-mode consent: the value is `null` (see [`Consent`](super::Consent)).
    Consent,
    /// The text of the model's reply.
    SampleText,
    /// The model's whole reply.
    SampleResult,
    /// The list of roots.
    Roots,
}

impl Question {
    /// A form question whose answer is the whole form.
    pub fn form(message: impl Into<String>, schema: JsonObject) -> Self {
        Self { request: InputRequest::Elicit(ElicitParams::form(message, schema)), extract: Extract::Form }
    }

    /// A one-property form question whose answer is that property.
    pub fn property(message: impl Into<String>, schema: JsonObject, property: impl Into<String>) -> Self {
        Self {
            request: InputRequest::Elicit(ElicitParams::form(message, schema)),
            extract: Extract::Property(property.into()),
        }
    }

    /// A URL to open.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self { request: InputRequest::Elicit(ElicitParams::url(message, url)), extract: Extract::Consent }
    }

    /// A prompt for the client's model; the answer is the reply's text.
    pub fn sample(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            request: InputRequest::CreateMessage(CreateMessageParams::prompt(prompt, max_tokens)),
            extract: Extract::SampleText,
        }
    }
}

/// Computes a `with` resolver from the values it depends on (in the order declared).
pub type WithFn = Arc<dyn Fn(Vec<Value>) -> BoxFuture<'static, Result<Resolution, ErrorObject>> + Send + Sync>;

/// How a parameter is resolved.
#[derive(Clone)]
pub enum Resolver {
    /// A form; `property` names the single property of a primitive's one-property form.
    Elicit {
        /// The question, with placeholders.
        message: Template,
        /// The requested schema.
        schema: JsonObject,
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
    },
    /// The client's roots.
    Roots,
    /// A function of other parameters.
    With {
        /// The parameters it takes, in order.
        args: &'static [&'static str],
        /// The function.
        f: WithFn,
    },
}

impl fmt::Debug for Resolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Elicit { message, .. } => write!(f, "Elicit({:?})", message.source()),
            Self::ElicitUrl { url, .. } => write!(f, "ElicitUrl({:?})", url.source()),
            Self::Sample { prompt, .. } => write!(f, "Sample({:?})", prompt.source()),
            Self::Roots => f.write_str("Roots"),
            Self::With { args, .. } => write!(f, "With({args:?})"),
        }
    }
}

impl Resolver {
    /// The parameters this resolver depends on.
    pub fn deps(&self) -> Vec<&'static str> {
        match self {
            Self::Elicit { message, .. } => message.refs().collect(),
            Self::ElicitUrl { url, message } => url.refs().chain(message.refs()).collect(),
            Self::Sample { prompt, .. } => prompt.refs().collect(),
            Self::Roots => Vec::new(),
            Self::With { args, .. } => args.to_vec(),
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
}

/// The graph of one tool, prompt or resource template.
#[derive(Debug, Clone)]
pub struct Graph {
    arguments: Vec<&'static str>,
    nodes: Vec<Node>,
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
        Ok(Self { arguments, nodes: ordered })
    }

    /// The argument names (they form the input schema).
    pub fn arguments(&self) -> &[&'static str] {
        &self.arguments
    }

    /// The resolved parameters in evaluation order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The round in which each node is asked when every answer is accepted: 1 + the
    /// longest chain of resolved parameters it depends on (`with` resolvers that answer
    /// without asking count as asking, the worst case).
    pub fn depth_of(&self, name: &str) -> usize {
        let Some(node) = self.nodes.iter().find(|n| n.name == name) else { return 0 };
        1 + node.resolver.deps().iter().map(|d| self.depth_of(d)).max().unwrap_or(0)
    }
}
