//! A `#[tool]`, `#[prompt]`, `#[resource_template]` or `#[resource]` fn read into a model: its
//! options, and each parameter's role (argument, resolved, context). Every problem found is pushed to the accumulator with the span of the
//! token to change; reading goes on so that all problems of the item are reported together.

use darling::{FromAttributes, FromMeta};
use proc_macro2::{Span, TokenStream};

use crate::attr::{ArgArgs, PromptArgs, ResolveArgs, ResourceArgs, ToolArgs, ViewArgs};
use crate::docs;
use crate::template::{self, Piece};

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

    /// A resource read at a fixed URI (`#[resource]` or `#[view]`).
    pub fn is_static_resource(self) -> bool {
        matches!(self, Self::Resource | Self::View)
    }
}

/// The options of the attribute.
pub enum Options {
    Tool(ToolArgs),
    Prompt(PromptArgs),
    Resource { uri: syn::LitStr, args: ResourceArgs },
    View { uri: syn::LitStr, args: ViewArgs },
}

impl Options {
    pub fn title(&self) -> Option<String> {
        match self {
            Self::Tool(a) => a.title.as_ref().map(syn::LitStr::value),
            Self::Prompt(a) => a.title.as_ref().map(syn::LitStr::value),
            Self::Resource { args, .. } => args.title.as_ref().map(syn::LitStr::value),
            Self::View { args, .. } => args.title.as_ref().map(syn::LitStr::value),
        }
    }

    fn name(&self) -> Option<&syn::LitStr> {
        match self {
            Self::Tool(a) => a.name.as_ref(),
            Self::Prompt(a) => a.name.as_ref(),
            Self::Resource { args, .. } => args.name.as_ref(),
            Self::View { args, .. } => args.name.as_ref(),
        }
    }

    fn description(&self) -> Option<String> {
        match self {
            Self::Tool(a) => a.description.as_ref().map(syn::LitStr::value),
            Self::Prompt(a) => a.description.as_ref().map(syn::LitStr::value),
            Self::Resource { args, .. } => args.description.as_ref().map(syn::LitStr::value),
            Self::View { args, .. } => args.description.as_ref().map(syn::LitStr::value),
        }
    }

    fn checks(&self) -> &[syn::Expr] {
        match self {
            Self::Tool(a) => &a.check,
            Self::Prompt(a) => &a.check,
            Self::Resource { args, .. } => &args.check,
            Self::View { args, .. } => &args.check,
        }
    }

    /// The URI of a resource, a template or a view.
    pub fn uri(&self) -> Option<&syn::LitStr> {
        match self {
            Self::Resource { uri, .. } | Self::View { uri, .. } => Some(uri),
            Self::Tool(_) | Self::Prompt(_) => None,
        }
    }

    /// `meta = "…"`, the definition's `_meta`.
    pub fn meta(&self) -> Option<&syn::LitStr> {
        match self {
            Self::Tool(a) => a.meta.as_ref(),
            Self::Prompt(a) => a.meta.as_ref(),
            Self::Resource { args, .. } => args.meta.as_ref(),
            // A view's `_meta` is its `ui` metadata, from its own options.
            Self::View { .. } => None,
        }
    }
}

/// A declared fn.
pub struct Declared {
    pub which: Which,
    pub item: syn::ItemFn,
    pub options: Options,
    pub name: String,
    pub description: Option<String>,
    pub params: Vec<Param>,
    /// `check = f(a)`: run on every leg before any question.
    pub checks: Vec<Call>,
    /// `scopes = ["…"]` of a tool: the OAuth scopes its caller's token must grant.
    pub scopes: Vec<String>,
    /// `ui = …` of a tool: its view (MCP Apps).
    pub ui: Option<crate::view::Link>,
    /// `visibility = "…"` of a tool: who may see it, as the wire's list.
    pub visibility: Option<Vec<&'static str>>,
    /// The options of a `#[view]`, checked.
    pub view: Option<crate::view::View>,
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
}

pub enum Role {
    Argument,
    /// `#[arg(flatten)]`: a struct whose fields are arguments (or an open object of them).
    Flattened,
    Context,
    /// `TaskContext`: the context of a task tool, which may ask while it runs.
    Task,
    /// `State<T>`: registered server-wide state, given by type.
    State,
    Resolved(Box<Resolved>),
}

impl Role {
    /// Given by the server (the context or state), not by the client.
    pub fn is_given(&self) -> bool {
        matches!(self, Self::Context | Self::Task | Self::State)
    }
}

pub struct Resolved {
    pub kind: Kind,
    /// `Answer<T>`: the inner type; `None` for a bare `T`.
    pub answer_of: Option<syn::Type>,
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

fn template(lit: syn::LitStr, errors: &mut darling::error::Accumulator) -> Template {
    let pieces = match template::parse(&lit.value()) {
        Ok(p) => p,
        Err(why) => {
            errors.push(darling::Error::custom(why).with_span(&lit));
            Vec::new()
        }
    };
    Template { lit, pieces }
}

/// Read a `#[tool]` fn. Attributes the macro consumes are stripped from `item` in place.
/// `method`: the fn is a method of a `#[toolset]` impl block, which must take `&self`.
pub fn read(
    which: Which,
    args: TokenStream,
    mut item: syn::ItemFn,
    method: bool,
    errors: &mut darling::error::Accumulator,
) -> Declared {
    let options = options(which, args, &item, errors);
    let name = options.name().map(syn::LitStr::value).unwrap_or_else(|| item.sig.ident.to_string());
    if matches!(which, Which::Tool | Which::Prompt) {
        check_name(&name, options.name().map_or(item.sig.ident.span(), syn::LitStr::span), errors);
    }
    let description = options.description().or_else(|| docs::text(&item.attrs));
    if !item.sig.generics.params.is_empty() || item.sig.generics.where_clause.is_some() {
        errors.push(err_at(
            &item.sig.generics,
            format!(
                "a {} fn cannot be generic: its schemas and questions are fixed at compile time; \
                 write one per concrete type",
                which.attribute()
            ),
        ));
    }
    let mut params = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        match input {
            syn::FnArg::Receiver(r) => {
                let by_ref = matches!(r.kind, syn::ReceiverKind::Reference(..));
                let mutable = r.mutability.is_some() || matches!(r.kind, syn::ReceiverKind::Reference(_, _, Some(_)));
                let attr = which.attribute();
                let msg = if mutable {
                    format!(
                        "a {attr} method cannot take `&mut self`: the server calls it concurrently; take `&self` and use interior mutability"
                    )
                } else if !method {
                    format!("{attr} on a method needs its impl block marked `#[roundtrip::toolset]`")
                } else if !by_ref {
                    format!("a {attr} method takes `&self`: the value is shared by every call")
                } else {
                    continue;
                };
                errors.push(err_at(&*r, msg));
            }
            syn::FnArg::Typed(pt) => {
                if let Some(p) = read_param(pt, method, errors) {
                    params.push(p);
                }
            }
        }
    }
    let checks = options.checks().iter().filter_map(|e| call(e, "check", method, errors)).collect();
    let contexts: Vec<&Param> = params.iter().filter(|p| matches!(p.role, Role::Context | Role::Task)).collect();
    if let [_, second, ..] = contexts.as_slice() {
        errors.push(err_at(
            &second.ty,
            "a declared fn takes at most one context (RequestContext or TaskContext); remove this one",
        ));
    }
    let is_task = matches!(&options, Options::Tool(ToolArgs { task: Some(_), .. }));
    for p in params.iter().filter(|p| matches!(p.role, Role::Task)) {
        let message = if which != Which::Tool {
            format!("only a #[tool] can run as a task; a {} takes a RequestContext", which.attribute())
        } else if !is_task {
            "a TaskContext asks while the tool runs, which needs a task: declare the tool with #[tool(task)] \
             (or take a RequestContext)"
                .to_owned()
        } else {
            continue;
        };
        errors.push(err_at(&p.ty, message));
    }
    if let Options::Tool(args) = &options
        && args.replayable.is_present()
    {
        let message = if args.single_use.is_present() {
            "`replayable` and `single_use` contradict each other: keep one"
        } else if !is_task {
            "`replayable` opts a task tool out of single-use states; a tool that is not a task accepts its \
             states more than once already: remove it"
        } else {
            ""
        };
        if !message.is_empty() {
            errors.push(darling::Error::custom(message).with_span(&args.replayable.span()));
        }
    }
    if let Some(meta) = options.meta()
        && !matches!(serde_json::from_str::<serde_json::Value>(&meta.value()), Ok(serde_json::Value::Object(_)))
    {
        errors.push(err_at(meta, "`meta` is a JSON object, such as `meta = r#\"{\"example.com/owner\": \"ops\"}\"#`"));
    }
    let scopes = match &options {
        Options::Tool(ToolArgs { scopes: Some(arg), .. }) => scopes(&arg.0, errors),
        _ => Vec::new(),
    };
    let (ui, visibility) = match &options {
        Options::Tool(args) => (
            args.ui.as_ref().and_then(|u| crate::view::link(u, errors)),
            args.visibility.as_ref().and_then(|v| crate::view::visibility(v, errors)),
        ),
        _ => (None, None),
    };
    let view = match &options {
        Options::View { uri, args } => Some(crate::view::read(uri, args, errors)),
        _ => None,
    };
    Declared { which, item, options, name, description, params, checks, scopes, ui, visibility, view }
}

/// Parse the attribute's options; a resource's come after its URI literal.
fn options(which: Which, args: TokenStream, item: &syn::ItemFn, errors: &mut darling::error::Accumulator) -> Options {
    let list = match darling::ast::NestedMeta::parse_meta_list(args) {
        Ok(list) => list,
        Err(e) => {
            errors.push(e.into());
            Vec::new()
        }
    };
    match which {
        Which::Tool => Options::Tool(errors.handle(ToolArgs::from_list(&list)).unwrap_or_default()),
        Which::Prompt => Options::Prompt(errors.handle(PromptArgs::from_list(&list)).unwrap_or_default()),
        Which::ResourceTemplate | Which::Resource | Which::View => {
            let (uri, rest) = match list.split_first() {
                Some((darling::ast::NestedMeta::Lit(syn::Lit::Str(uri)), rest)) => (uri.clone(), rest),
                _ => {
                    let example = match which {
                        Which::Resource => "config://app",
                        Which::View => "ui://my-server/dashboard",
                        _ => "notes://{id}",
                    };
                    errors.push(err_at(
                        &item.sig.ident,
                        format!(
                            "{} needs the URI first, e.g. {}(\"{example}\")]",
                            which.attribute(),
                            &which.attribute()[..which.attribute().len() - 1]
                        ),
                    ));
                    (syn::LitStr::new("", item.sig.ident.span()), list.as_slice())
                }
            };
            if which == Which::View {
                return Options::View { uri, args: errors.handle(ViewArgs::from_list(rest)).unwrap_or_default() };
            }
            Options::Resource { uri, args: errors.handle(ResourceArgs::from_list(rest)).unwrap_or_default() }
        }
    }
}

fn check_name(name: &str, span: Span, errors: &mut darling::error::Accumulator) {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !ok {
        errors.push(
            darling::Error::custom(format!(
                "`{name}` is not a valid tool name: use 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`"
            ))
            .with_span(&span),
        );
    }
}

/// The last path segment of a type, and its single generic argument if any.
fn last_segment(ty: &syn::Type) -> Option<(&syn::Ident, Option<&syn::Type>)> {
    let ty = match ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    let arg = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    };
    Some((&seg.ident, arg))
}

fn read_param(pt: &mut syn::PatType, method: bool, errors: &mut darling::error::Accumulator) -> Option<Param> {
    let doc = docs::text(&pt.attrs);
    let resolve_attr = pt.attrs.iter().find(|a| a.path().is_ident("resolve")).cloned();
    let resolve = match resolve_attr {
        Some(_) => errors.handle(ResolveArgs::from_attributes(&pt.attrs)),
        None => None,
    };
    let arg_attr = pt.attrs.iter().find(|a| a.path().is_ident("arg")).cloned();
    let arg_args = match &arg_attr {
        Some(_) => errors.handle(ArgArgs::from_attributes(&pt.attrs)),
        None => None,
    };
    let flatten = arg_args.as_ref().is_some_and(|a| a.flatten.is_present());
    let rename = match &arg_attr {
        Some(_) => arg_args.and_then(|a| a.rename),
        None => None,
    };
    pt.attrs.retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("resolve") && !a.path().is_ident("arg"));
    let ident = match &*pt.pat {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
        other => {
            errors.push(err_at(
                other,
                "a #[tool] parameter must be a plain name (its name is the argument's name); \
                 bind the value to a name and destructure it in the body",
            ));
            return None;
        }
    };
    let ty = (*pt.ty).clone();
    let segment = last_segment(&ty);
    let is_task = segment.is_some_and(|(id, _)| id == "TaskContext");
    let is_context = segment.is_some_and(|(id, _)| id == "RequestContext") || is_task;
    let is_state = segment.is_some_and(|(id, arg)| id == "State" && arg.is_some());
    let answer_of = segment.filter(|(id, _)| *id == "Answer").and_then(|(_, arg)| arg.cloned());
    if let syn::Type::Reference(r) = &ty
        && !is_context
    {
        let owned = match &*r.elem {
            syn::Type::Path(p) if p.path.is_ident("str") => "String".to_owned(),
            syn::Type::Slice(sl) => {
                let elem = &sl.elem;
                format!("Vec<{}>", quote::quote!(#elem))
            }
            other => quote::quote!(#other).to_string(),
        };
        errors.push(err_at(
            &ty,
            format!(
                "`{ident}` cannot be borrowed: the value is decoded from the request and owned by the call; take `{owned}`"
            ),
        ));
        return None;
    }
    let role = match (resolve, resolve_attr, is_context || is_state) {
        (_, Some(attr), true) => {
            let what = if is_state { "registered state" } else { "the request context" };
            errors.push(err_at(
                &attr,
                format!("`{ident}` is {what}, given by the server; it cannot be asked: remove #[resolve]"),
            ));
            if is_state { Role::State } else { Role::Context }
        }
        (_, None, true) => {
            if is_state {
                Role::State
            } else if is_task {
                Role::Task
            } else {
                Role::Context
            }
        }
        (Some(args), Some(attr), false) => match kind(args, &attr, method, errors) {
            Some(kind) => Role::Resolved(Box::new(Resolved { kind, answer_of })),
            None => return None,
        },
        (None, Some(_), false) => return None, // the attribute did not parse; reported
        (_, None, false) => {
            if answer_of.is_some() {
                errors.push(err_at(
                    &ty,
                    format!(
                        "`{ident}` is a tool argument, which the client always sends: `Answer<T>` is only for \
                         parameters with #[resolve(...)]; declare it as the plain type, or add a resolver"
                    ),
                ));
            }
            Role::Argument
        }
    };
    if let (Some(attr), false) = (&arg_attr, matches!(role, Role::Argument)) {
        errors.push(err_at(
            attr,
            "#[arg] renames an argument; a question's key is its parameter's name and the context has none: remove it",
        ));
    }
    let role = match (role, flatten) {
        (Role::Argument, true) => {
            if let Some(r) = &rename {
                errors.push(err_at(
                    r,
                    "a flattened argument has no name of its own (its fields are the arguments): remove `rename`",
                ));
            }
            Role::Flattened
        }
        (role, _) => role,
    };
    let wire = rename.map(|r| r.value()).unwrap_or_else(|| ident.to_string());
    Some(Param { ident, wire, ty, doc, role })
}

fn kind(
    args: ResolveArgs,
    attr: &syn::Attribute,
    method: bool,
    errors: &mut darling::error::Accumulator,
) -> Option<Kind> {
    let given: Vec<&str> = [
        ("elicit", args.elicit.is_some()),
        ("elicit_url", args.elicit_url.is_some()),
        ("sample", args.sample.is_some()),
        ("roots", args.roots.is_present()),
        ("with", args.with.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, on)| on.then_some(k))
    .collect();
    let usage = "use one of `elicit = \"question\"`, `elicit_url = \"https://…\", message = \"…\"`, \
                 `sample = \"prompt\", max_tokens = N`, `roots`, `with = function(parameters)`";
    match given.as_slice() {
        [] => {
            errors.push(err_at(attr, format!("#[resolve] needs a resolver: {usage}")));
            return None;
        }
        [_] => {}
        many => {
            let message = format!("a parameter has one resolver, not {}: keep one of them", many.join(" and "));
            errors.push(err_at(attr, message));
            return None;
        }
    }
    if let Some(m) = &args.message
        && args.elicit_url.is_none()
    {
        errors.push(
            darling::Error::custom("`message` goes with `elicit_url`; for `elicit` the question is its value")
                .with_span(m),
        );
    }
    if args.sample.is_none() {
        let sample_only: [(&str, Option<Span>); 9] = [
            ("max_tokens", args.max_tokens.as_ref().map(syn::LitInt::span)),
            ("system", args.system.as_ref().map(syn::LitStr::span)),
            ("temperature", args.temperature.as_ref().map(syn::Lit::span)),
            ("stop", args.stop.as_ref().map(|a| a.bracket_token.span.join())),
            ("model_hints", args.model_hints.as_ref().map(|a| a.bracket_token.span.join())),
            ("cost_priority", args.cost_priority.as_ref().map(syn::Lit::span)),
            ("speed_priority", args.speed_priority.as_ref().map(syn::Lit::span)),
            ("intelligence_priority", args.intelligence_priority.as_ref().map(syn::Lit::span)),
            ("include_context", args.include_context.as_ref().map(syn::LitStr::span)),
        ];
        for (name, span) in sample_only {
            if let Some(span) = span {
                errors.push(darling::Error::custom(format!("`{name}` goes with `sample`")).with_span(&span));
            }
        }
    }
    Some(if let Some(lit) = args.elicit {
        Kind::Elicit { message: template(lit, errors) }
    } else if let Some(lit) = args.elicit_url {
        let Some(message) = args.message else {
            errors.push(
                darling::Error::custom("`elicit_url` needs a `message = \"…\"` telling the user why to open the URL")
                    .with_span(&lit),
            );
            return None;
        };
        Kind::ElicitUrl { url: template(lit, errors), message: template(message, errors) }
    } else if let Some(lit) = args.sample {
        let max_tokens = match args.max_tokens.map(|n| n.base10_parse::<u32>().map_err(|e| (e, n.span()))) {
            None => 1000,
            Some(Ok(n)) if n > 0 => n,
            Some(Ok(_)) => {
                errors.push(darling::Error::custom("`max_tokens` must be at least 1").with_span(&lit));
                1
            }
            Some(Err((e, span))) => {
                errors.push(darling::Error::custom(format!("`max_tokens`: {e}")).with_span(&span));
                1
            }
        };
        let options = SampleOptions {
            system: args.system.as_ref().map(syn::LitStr::value),
            temperature: number(args.temperature.as_ref(), "temperature", 0.0..=2.0, errors),
            stop: strings(args.stop.as_ref(), "stop", errors),
            model_hints: strings(args.model_hints.as_ref(), "model_hints", errors),
            cost_priority: number(args.cost_priority.as_ref(), "cost_priority", 0.0..=1.0, errors),
            speed_priority: number(args.speed_priority.as_ref(), "speed_priority", 0.0..=1.0, errors),
            intelligence_priority: number(
                args.intelligence_priority.as_ref(),
                "intelligence_priority",
                0.0..=1.0,
                errors,
            ),
            include_context: args.include_context.as_ref().and_then(|c| {
                let v = c.value();
                if ["none", "thisServer", "allServers"].contains(&v.as_str()) {
                    Some(v)
                } else {
                    errors.push(err_at(c, "`include_context` is \"none\", \"thisServer\" or \"allServers\""));
                    None
                }
            }),
        };
        Kind::Sample { prompt: template(lit, errors), max_tokens, options }
    } else if args.roots.is_present() {
        Kind::Roots
    } else {
        let expr = args.with?;
        Kind::With { call: call(&expr, "with", method, errors)? }
    })
}

/// A number option within `range`.
fn number(
    lit: Option<&syn::Lit>,
    name: &str,
    range: std::ops::RangeInclusive<f64>,
    errors: &mut darling::error::Accumulator,
) -> Option<f64> {
    let lit = lit?;
    let value = match lit {
        syn::Lit::Float(f) => f.base10_parse::<f64>().ok(),
        syn::Lit::Int(i) => i.base10_parse::<f64>().ok(),
        _ => None,
    };
    match value {
        Some(v) if range.contains(&v) => Some(v),
        _ => {
            errors.push(err_at(lit, format!("`{name}` is a number from {} to {}", range.start(), range.end())));
            None
        }
    }
}

/// A list-of-strings option: `["a", "b"]`.
fn strings(array: Option<&syn::ExprArray>, name: &str, errors: &mut darling::error::Accumulator) -> Vec<String> {
    let Some(array) = array else { return Vec::new() };
    let mut out = Vec::new();
    for e in &array.elems {
        match e {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => out.push(s.value()),
            other => errors.push(err_at(other, format!("`{name}` is a list of strings, such as [\"a\", \"b\"]"))),
        }
    }
    out
}

/// `scopes = ["a", "b"]`: OAuth scope tokens (RFC 6749 §3.3: printable ASCII without spaces,
/// `"` or `\`), each once.
fn scopes(expr: &syn::Expr, errors: &mut darling::error::Accumulator) -> Vec<String> {
    let usage = crate::attr::SCOPES_USAGE;
    let syn::Expr::Array(array) = expr else {
        errors.push(err_at(expr, usage));
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for e in &array.elems {
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = e else {
            errors.push(err_at(e, usage));
            continue;
        };
        let scope = s.value();
        if scope.is_empty() || !scope.chars().all(|c| c.is_ascii_graphic() && c != '"' && c != '\\') {
            errors.push(err_at(
                s,
                "a scope is one word of printable ASCII (no spaces, `\"` or `\\`), such as \"deploy:write\"; \
                 list several scopes as several strings",
            ));
        } else if out.contains(&scope) {
            errors.push(err_at(s, format!("the scope \"{scope}\" is listed twice")));
        } else {
            out.push(scope);
        }
    }
    out
}

/// `f(a, b)`, `path::to::f(a)` or `self.f(a)` (a `#[toolset]` method): the fn and the
/// parameters it takes.
fn call(expr: &syn::Expr, option: &str, method: bool, errors: &mut darling::error::Accumulator) -> Option<Call> {
    let usage = format!(
        "`{option}` takes a call of an async fn on parameter names, such as `{option} = known_service(service)` \
         (or `{option} = self.known_service(service)` in a #[toolset])"
    );
    let (is_method, func, args) = match expr {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(func) => (false, func.path.clone(), &c.args),
            _ => {
                errors.push(err_at(expr, usage));
                return None;
            }
        },
        syn::Expr::MethodCall(m) => {
            let is_self = matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self"));
            if !is_self {
                errors.push(err_at(&m.receiver, format!("{usage}; a method call must be on `self`")));
                return None;
            }
            if !method {
                errors.push(err_at(
                    &m.receiver,
                    format!(
                        "`{option} = self.{}(…)` calls a method of a #[toolset] value: declare this fn as a method in a \
                         `#[toolset]` impl block, or call a free fn",
                        m.method
                    ),
                ));
                return None;
            }
            (true, syn::Path::from(m.method.clone()), &m.args)
        }
        _ => {
            errors.push(err_at(expr, usage));
            return None;
        }
    };
    let mut idents = Vec::new();
    for a in args {
        match a {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => idents.extend(p.path.get_ident().cloned()),
            other => {
                errors.push(err_at(other, format!("{usage}; each argument is the name of a parameter")));
                return None;
            }
        }
    }
    let text = quote::quote!(#expr).to_string().replace(" (", "(").replace(" . ", ".").replace(" ,", ",");
    let span = syn::spanned::Spanned::span(expr);
    Some(Call { method: is_method, func, args: idents, text, span })
}

/// Arguments that only a question uses (e.g. `{name}` in a message) would warn as unused in
/// the body; mark them used with `let _ = &name;` at the top of the body.
pub fn mark_resolver_inputs_used(decl: &mut Declared) {
    let mut used: Vec<syn::Ident> = Vec::new();
    let check_args = decl.checks.iter().flat_map(|c| c.args.iter().map(|a| a.to_string()));
    let resolver_args = decl.params.iter().flat_map(|p| match &p.role {
        Role::Resolved(r) => r.kind.deps().into_iter().map(|(d, _)| d).collect(),
        _ => Vec::new(),
    });
    for dep in check_args.chain(resolver_args).collect::<Vec<_>>() {
        let input = decl.params.iter().find(|q| q.ident == dep && !matches!(q.role, Role::Resolved(_)));
        if let Some(q) = input
            && !used.contains(&q.ident)
        {
            used.push(q.ident.clone());
        }
    }
    for ident in used.into_iter().rev() {
        decl.item.block.stmts.insert(0, syn::parse_quote!(let _ = &#ident;));
    }
}
