//! A `#[tool]`, `#[prompt]`, `#[resource_template]`, `#[resource]` or `#[view]` fn read into a
//! model: what it declares, and each parameter's role (argument, resolved, context). Every
//! problem found is pushed to the accumulator with the span of the token to change; reading
//! goes on so that all problems of the item are reported together.

use proc_macro2::Span;

use crate::template::{self, Piece};

mod declaration;
mod param;
mod read;

pub use declaration::{Annotations, Common, Declaration, Prompt, Resource, TaskSupport, Tool, ViewFn};
pub use read::{mark_resolver_inputs_used, read};

/// What the attribute declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Tool,
    Prompt,
    ResourceTemplate,
    Resource,
    /// `#[view]` on a fn: a static resource that is an MCP Apps view.
    View,
}

impl Which {
    /// The attribute, as the user wrote it.
    pub fn attribute(self) -> &'static str {
        match self {
            Self::Tool => "#[tool]",
            Self::Prompt => "#[prompt]",
            Self::ResourceTemplate => "#[resource_template]",
            Self::Resource => "#[resource]",
            Self::View => "#[view]",
        }
    }
}

/// A declared fn, read and checked.
pub struct Declared {
    pub item: syn::ItemFn,
    pub common: Common,
    pub declaration: Declaration,
    pub params: Vec<Param>,
    /// The rules the compiler checks, found by the check phase.
    pub asserts: Vec<Assert>,
}

impl Declared {
    pub fn which(&self) -> Which {
        self.declaration.which()
    }
}

/// A call written in an attribute: `f(a, b)`, `path::to::f(a)` or, in a `#[toolset]`,
/// `self.f(a)`; each argument names a parameter of the declared fn.
pub struct Call {
    /// `self.f(…)`: a method of the toolset's value.
    pub method: bool,
    /// The fn (for a method, its name).
    pub func: syn::Path,
    pub args: Vec<syn::Ident>,
    /// The call as written, for documentation and pins.
    pub text: String,
    /// Where it is written: errors about what the fn returns point here.
    pub span: Span,
}

pub struct Param {
    pub ident: syn::Ident,
    /// The name on the wire: `#[arg(rename = "…")]`, or the parameter's own.
    pub wire: String,
    pub ty: syn::Type,
    pub doc: Option<String>,
    pub role: Role,
    /// Where `#[arg(…)]` is written, if it is.
    pub arg_attr: Option<Span>,
}

pub enum Role {
    /// A type that is an argument whatever the program (`String`, `Option<…>`, a number…):
    /// the macro decides its role from the tokens alone, and checks it at expansion.
    Argument,
    /// Any other owned type: an argument, or what the server gives (the request's context, a
    /// task's, registered `State<T>`), as the type implements `Given` or not. Only the
    /// compiler knows (an alias, a re-export, a user's own `State`), so generated code asks
    /// `__private::Role<T>`, and the rules that depend on the role are [`Assert`]s.
    Plain,
    /// `&T`: a borrowed context (`&RequestContext`, `&TaskContext`, or an alias of one); `T`.
    Borrowed(Box<syn::Type>),
    /// `#[arg(flatten)]`: a struct whose fields are arguments (or an open object of them).
    Flattened,
    Resolved(Box<Resolved>),
}

/// A rule that depends on a parameter's role where only the compiler knows it (a
/// [`Role::Plain`] or [`Role::Borrowed`] type): a `const` assertion in the generated code,
/// which fails at `span` with `message` when `when` holds.
pub struct Assert {
    pub span: Span,
    pub when: When,
    pub message: String,
}

/// What an [`Assert`] refuses, of a parameter's type.
pub enum When {
    /// It is given by the server (a context or state).
    Given(syn::Type),
    /// It is an argument.
    Argument(syn::Type),
    /// It is registered state.
    State(syn::Type),
    /// It is the request's context or a task's.
    Context(syn::Type),
    /// It is a task's context.
    Task(syn::Type),
    /// It is a context, and so is one of the types before it.
    SecondContext(syn::Type, Vec<syn::Type>),
}

pub struct Resolved {
    pub kind: Kind,
    /// `Answer<T>`: the inner type; `None` for a bare `T`.
    pub answer_of: Option<syn::Type>,
    /// Where `#[resolve(…)]` is written.
    pub attr: Span,
    /// The type is surely a value (`String`, `Answer<…>`…), never what the server gives: no
    /// need to ask the compiler.
    pub surely_value: bool,
    /// `or_argument`, where it is written.
    pub or_argument: Option<Span>,
    /// `or_default = expr`.
    pub or_default: Option<syn::Expr>,
    /// `or_form` (an `elicit_url` question).
    pub or_form: bool,
}

impl Resolved {
    /// The type the resolver must produce (`T` of `Answer<T>`, or the parameter's type).
    pub fn value_type<'a>(&'a self, param_ty: &'a syn::Type) -> &'a syn::Type {
        self.answer_of.as_ref().unwrap_or(param_ty)
    }
}

pub enum Kind {
    Elicit { message: Template },
    ElicitUrl { url: Template, message: Template },
    Sample { prompt: Template, max_tokens: u32, options: SampleOptions },
    Roots,
    With { call: Call },
}

/// The sampling options of `#[resolve(sample = …)]`.
#[derive(Default)]
pub struct SampleOptions {
    pub system: Option<String>,
    pub temperature: Option<f64>,
    pub stop: Vec<String>,
    pub model_hints: Vec<String>,
    pub cost_priority: Option<f64>,
    pub speed_priority: Option<f64>,
    pub intelligence_priority: Option<f64>,
    pub include_context: Option<String>,
}

impl Kind {
    pub fn word(&self) -> &'static str {
        match self {
            Self::Elicit { .. } => "elicit",
            Self::ElicitUrl { .. } => "elicit_url",
            Self::Sample { .. } => "sample",
            Self::Roots => "roots",
            Self::With { .. } => "with",
        }
    }

    /// The templates of this resolver, with their literals.
    pub fn templates(&self) -> Vec<&Template> {
        match self {
            Self::Elicit { message } => vec![message],
            Self::ElicitUrl { url, message } => vec![url, message],
            Self::Sample { prompt, .. } => vec![prompt],
            Self::Roots | Self::With { .. } => vec![],
        }
    }

    /// The parameters it depends on, each with the span to point at.
    pub fn deps(&self) -> Vec<(String, Span)> {
        match self {
            Self::With { call } => call.args.iter().map(|a| (a.to_string(), a.span())).collect(),
            _ => self
                .templates()
                .into_iter()
                .flat_map(|t| template::refs(&t.pieces).map(|r| (r.to_owned(), t.lit.span())).collect::<Vec<_>>())
                .collect(),
        }
    }
}

pub struct Template {
    pub lit: syn::LitStr,
    pub pieces: Vec<Piece>,
}

/// An error spanning a whole syntax node.
pub fn err_at<T: quote::ToTokens>(tokens: T, message: impl std::fmt::Display) -> darling::Error {
    syn::Error::new_spanned(tokens, message).into()
}
