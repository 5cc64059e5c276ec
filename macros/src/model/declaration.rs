//! What an attribute declares, read from its options: the part every kind shares
//! ([`Common`]) and each kind's own ([`Declaration`]). Expansion reads only these, never the
//! options as written.

use proc_macro2::Span;

use super::{Call, Which};
use crate::view::{Link, View};

/// The options every kind shares, read.
pub struct Common {
    /// The name on the wire: `name = "…"`, or the fn's.
    pub name: String,
    pub title: Option<String>,
    /// `description = "…"`, or the doc comment.
    pub description: Option<String>,
    /// `check = f(a)`: run before any question (or before a resource is read).
    pub checks: Vec<Call>,
    /// `meta = "…"`: the definition's `_meta`, a JSON object (checked).
    pub meta: Option<syn::LitStr>,
    /// `crate = path`: the roundtrip crate as generated code names it; `None` for `::roundtrip`.
    pub krate: Option<syn::Path>,
}

/// Each kind's own part of a declaration.
pub enum Declaration {
    Tool(Tool),
    Prompt(Prompt),
    ResourceTemplate(Resource),
    Resource(Resource),
    /// `#[view]` on a fn.
    View(ViewFn),
}

impl Declaration {
    pub fn which(&self) -> Which {
        match self {
            Self::Tool(_) => Which::Tool,
            Self::Prompt(_) => Which::Prompt,
            Self::ResourceTemplate(_) => Which::ResourceTemplate,
            Self::Resource(_) => Which::Resource,
            Self::View(_) => Which::View,
        }
    }

    /// The URI of a resource, a template or a view.
    pub fn uri(&self) -> Option<&syn::LitStr> {
        match self {
            Self::ResourceTemplate(r) | Self::Resource(r) => Some(&r.uri),
            Self::View(v) => Some(&v.uri),
            Self::Tool(_) | Self::Prompt(_) => None,
        }
    }
}

pub struct Tool {
    pub annotations: Annotations,
    pub task: TaskSupport,
    /// `single_use`, where it is written.
    pub single_use: Option<Span>,
    /// `replayable`, where it is written.
    pub replayable: Option<Span>,
    /// `scopes = ["…"]`: the OAuth scopes its caller's token must grant.
    pub scopes: Vec<String>,
    /// `ui = …`: its view (MCP Apps).
    pub ui: Option<Link>,
    /// `visibility = "…"`: who may see it, as the wire's list.
    pub visibility: Option<Vec<&'static str>>,
}

/// The hints of a tool's annotations.
#[derive(Default)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// `task` of a tool: whether its calls may, or must, run as tasks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

pub struct Prompt {
    /// `complete = f`: completes the arguments.
    pub complete: Option<syn::Path>,
}

/// A resource or a resource template.
pub struct Resource {
    pub uri: syn::LitStr,
    pub mime_type: Option<String>,
    /// `complete = f`: completes a template's variables.
    pub complete: Option<syn::Path>,
}

/// A view declared on a fn.
pub struct ViewFn {
    pub uri: syn::LitStr,
    pub view: View,
}
