//! Reading an item: its options into a declaration (the part every kind shares and the kind's
//! own), and its parameters. Each value is checked as it is read; how values fit together is
//! the check phase's (`crate::check`).

use darling::FromMeta;
use proc_macro2::{Span, TokenStream};

use crate::attr::{CommonArgs, PromptArgs, ResourceArgs, TaskArg, ToolArgs, ViewArgs};
use crate::docs;

use super::declaration::{Annotations, Common, Declaration, Prompt, Resource, TaskSupport, Tool, ViewFn};
use super::param::{call, read_param};
use super::{Declared, Role, Which, err_at};

/// Read a declared fn. Attributes the macro consumes are stripped from `item` in place.
/// `method`: the fn is a method of a `#[toolset]` impl block.
pub fn read(
    which: Which,
    args: TokenStream,
    mut item: syn::ItemFn,
    method: bool,
    errors: &mut darling::error::Accumulator,
) -> Declared {
    let (common, meta, declaration) = declaration(options(which, args, &item, errors), errors);
    let common = self::common(which, common, meta, &item, method, errors);
    let mut params = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        // A receiver is checked with the signature (`crate::check`).
        if let syn::FnArg::Typed(pt) = input
            && let Some(p) = read_param(pt, method, errors)
        {
            params.push(p);
        }
    }
    Declared { item, common, declaration, params, asserts: Vec::new() }
}

/// The options of the attribute, as written.
enum Options {
    Tool(ToolArgs),
    Prompt(PromptArgs),
    /// A resource or a resource template.
    Resource(Which, syn::LitStr, ResourceArgs),
    View(syn::LitStr, ViewArgs),
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
                return Options::View(uri, errors.handle(ViewArgs::from_list(rest)).unwrap_or_default());
            }
            Options::Resource(which, uri, errors.handle(ResourceArgs::from_list(rest)).unwrap_or_default())
        }
    }
}

/// The options as written, split into the shared ones (with `meta`, which all but a view take)
/// and the kind's own, read.
fn declaration(
    options: Options,
    errors: &mut darling::error::Accumulator,
) -> (CommonArgs, Option<syn::LitStr>, Declaration) {
    match options {
        Options::Tool(args) => {
            let ToolArgs {
                common,
                read_only,
                destructive,
                idempotent,
                open_world,
                task,
                single_use,
                replayable,
                scopes,
                ui,
                visibility,
                meta,
            } = args;
            let tool = Tool {
                annotations: Annotations {
                    read_only: read_only.is_present(),
                    destructive: destructive.is_present(),
                    idempotent: idempotent.is_present(),
                    open_world: open_world.is_present(),
                },
                task: match task {
                    None => TaskSupport::Forbidden,
                    Some(TaskArg { required: false }) => TaskSupport::Optional,
                    Some(TaskArg { required: true }) => TaskSupport::Required,
                },
                single_use: single_use.is_present().then(|| single_use.span()),
                replayable: replayable.is_present().then(|| replayable.span()),
                scopes: scopes.map(|arg| self::scopes(&arg.0, errors)).unwrap_or_default(),
                ui: ui.as_ref().and_then(|u| crate::view::link(u, errors)),
                visibility: visibility.as_ref().and_then(|v| crate::view::visibility(v, errors)),
            };
            (common, meta, Declaration::Tool(tool))
        }
        Options::Prompt(PromptArgs { common, complete, meta }) => {
            (common, meta, Declaration::Prompt(Prompt { complete }))
        }
        Options::Resource(which, uri, ResourceArgs { common, mime_type, complete, meta }) => {
            let resource = Resource { uri, mime_type: mime_type.as_ref().map(syn::LitStr::value), complete };
            let declaration = if which == Which::Resource {
                Declaration::Resource(resource)
            } else {
                Declaration::ResourceTemplate(resource)
            };
            (common, meta, declaration)
        }
        Options::View(uri, args) => {
            let view = crate::view::read(&uri, &args, errors);
            // A view's `_meta` is its `ui` metadata, from its own options.
            (args.common, None, Declaration::View(ViewFn { uri, view }))
        }
    }
}

/// Read the options every kind shares: the name (checked for a tool or a prompt), the
/// description (the doc comment by default), the checks, `meta` and `crate`.
fn common(
    which: Which,
    args: CommonArgs,
    meta: Option<syn::LitStr>,
    item: &syn::ItemFn,
    method: bool,
    errors: &mut darling::error::Accumulator,
) -> Common {
    let name = args.name.as_ref().map(syn::LitStr::value).unwrap_or_else(|| item.sig.ident.to_string());
    if matches!(which, Which::Tool | Which::Prompt) {
        check_name(&name, args.name.as_ref().map_or(item.sig.ident.span(), syn::LitStr::span), errors);
    }
    let description = args.description.as_ref().map(syn::LitStr::value).or_else(|| docs::text(&item.attrs));
    let checks = args.check.iter().filter_map(|e| call(e, "check", method, errors)).collect();
    if let Some(meta) = &meta
        && !matches!(serde_json::from_str::<serde_json::Value>(&meta.value()), Ok(serde_json::Value::Object(_)))
    {
        errors.push(err_at(meta, "`meta` is a JSON object, such as `meta = r#\"{\"example.com/owner\": \"ops\"}\"#`"));
    }
    Common {
        name,
        title: args.title.as_ref().map(syn::LitStr::value),
        description,
        checks,
        meta,
        krate: args.krate.map(|k| k.0),
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
    let check_args = decl.common.checks.iter().flat_map(|c| c.args.iter().map(|a| a.to_string()));
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
