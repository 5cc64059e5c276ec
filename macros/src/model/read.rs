//! Reading an item: its options (checked against the attribute's kind) and its parameters,
//! then what resolvers use.

use darling::FromMeta;
use proc_macro2::{Span, TokenStream};

use crate::attr::{PromptArgs, ResourceArgs, ToolArgs, ViewArgs};
use crate::docs;

use super::param::{call, read_param};
use super::{Declared, Options, Param, Role, Which, err_at};

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
pub(super) fn options(
    which: Which,
    args: TokenStream,
    item: &syn::ItemFn,
    errors: &mut darling::error::Accumulator,
) -> Options {
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

pub(super) fn check_name(name: &str, span: Span, errors: &mut darling::error::Accumulator) {
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

/// A list-of-strings option: `["a", "b"]`.
pub(super) fn strings(
    array: Option<&syn::ExprArray>,
    name: &str,
    errors: &mut darling::error::Accumulator,
) -> Vec<String> {
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
pub(super) fn scopes(expr: &syn::Expr, errors: &mut darling::error::Accumulator) -> Vec<String> {
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
