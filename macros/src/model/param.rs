//! Reading one parameter: its role (argument, resolved, context), a resolver's kind and its
//! options, a `with` or `check` call, a message template.

use darling::FromAttributes;
use proc_macro2::Span;

use crate::attr::{ArgArgs, ResolveArgs};
use crate::docs;
use crate::template::{self};

use super::read::strings;
use super::{Call, Kind, Param, Resolved, Role, SampleOptions, Template, err_at};

pub(super) fn template(lit: syn::LitStr, errors: &mut darling::error::Accumulator) -> Template {
    let pieces = match template::parse(&lit.value()) {
        Ok(p) => p,
        Err(why) => {
            errors.push(darling::Error::custom(why).with_span(&lit));
            Vec::new()
        }
    };
    Template { lit, pieces }
}

/// The last path segment of a type, and its single generic argument if any.
pub(super) fn last_segment(ty: &syn::Type) -> Option<(&syn::Ident, Option<&syn::Type>)> {
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

/// A type that is an argument whatever the program: text, a number, a boolean, and the
/// standard containers of arguments. (A program could shadow these names; none that uses
/// them as names of context or state types is worth a less precise error for everyone.)
fn certainly_argument(ty: &syn::Type) -> bool {
    const NAMES: &[&str] = &[
        "String", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
        "isize", "f32", "f64", "Option", "Vec", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Value",
    ];
    match ty {
        syn::Type::Tuple(_) | syn::Type::Array(_) => true,
        syn::Type::Paren(p) => certainly_argument(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| NAMES.iter().any(|n| s.ident == n))
        }
        _ => false,
    }
}

/// What a type is by its name, if it names one of the types the server gives (`State<T>`,
/// `RequestContext`, `TaskContext`): only to say so where a resolver would add errors of its
/// own to the compiler's.
fn named_given(ty: &syn::Type) -> Option<&'static str> {
    match last_segment(ty)? {
        (id, Some(_)) if id == "State" => Some("registered state"),
        (id, None) if id == "RequestContext" || id == "TaskContext" => Some("the request context"),
        _ => None,
    }
}

pub(super) fn read_param(
    pt: &mut syn::PatType,
    method: bool,
    errors: &mut darling::error::Accumulator,
) -> Option<Param> {
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
    let answer_of = last_segment(&ty).filter(|(id, _)| *id == "Answer").and_then(|(_, arg)| arg.cloned());
    // A reference is never an argument (the call owns what it decodes): `&str` and `&[T]` are
    // told which owned type to take; any other is a borrowed context, which its type's
    // `Context` bound checks.
    let borrowed = match &ty {
        syn::Type::Reference(r) => {
            let owned = match &*r.elem {
                syn::Type::Path(p) if p.path.is_ident("str") => Some("String".to_owned()),
                syn::Type::Slice(sl) => {
                    let elem = &sl.elem;
                    Some(format!("Vec<{}>", quote::quote!(#elem)))
                }
                _ => None,
            };
            if let Some(owned) = owned {
                errors.push(err_at(
                    &ty,
                    format!(
                        "`{ident}` cannot be borrowed: the value is decoded from the request and owned by the call; take `{owned}`"
                    ),
                ));
                return None;
            }
            Some(r.elem.clone())
        }
        _ => None,
    };
    let role = match (resolve, &resolve_attr, borrowed) {
        (_, Some(attr), Some(elem)) => {
            errors.push(err_at(
                attr,
                format!("`{ident}` is the request context, given by the server; it cannot be asked: remove #[resolve]"),
            ));
            Role::Borrowed(elem)
        }
        (_, None, Some(elem)) => Role::Borrowed(elem),
        // By its name, a type the server gives; an alias of one is refused at compile time
        // (check::given_not_asked), where the resolver's own bounds add their errors.
        (_, Some(attr), None) if named_given(&ty).is_some() => {
            let what = named_given(&ty).unwrap_or_default();
            errors.push(err_at(
                attr,
                format!("`{ident}` is {what}, given by the server; it cannot be asked: remove #[resolve]"),
            ));
            return None;
        }
        (Some(mut args), Some(attr), None) => {
            let or_argument = args.or_argument.is_present().then(|| args.or_argument.span());
            let or_default = args.or_default.take();
            let or_form = args.or_form.is_present().then(|| args.or_form.span());
            match kind(args, attr, method, errors) {
                Some(kind) => {
                    if let Some(span) = or_form.filter(|_| !matches!(kind, Kind::ElicitUrl { .. })) {
                        let message = format!(
                            "`or_form` asks a URL question as a form carrying its link; `{ident}` is asked with `{}`, \
                             not `elicit_url`: remove `or_form`",
                            kind.word()
                        );
                        errors.push(syn::Error::new(span, message).into());
                    }
                    let surely_value = answer_of.is_some() || certainly_argument(&ty);
                    let attr = attr.pound_token.span;
                    let or_form = or_form.is_some();
                    Role::Resolved(Box::new(Resolved {
                        kind,
                        answer_of,
                        attr,
                        surely_value,
                        or_argument,
                        or_default,
                        or_form,
                    }))
                }
                None => return None,
            }
        }
        (None, Some(_), None) => return None, // the attribute did not parse; reported
        (_, None, None) => {
            if answer_of.is_some() {
                errors.push(err_at(
                    &ty,
                    format!(
                        "`{ident}` is a tool argument, which the client always sends: `Answer<T>` is only for \
                         parameters with #[resolve(...)]; declare it as the plain type, or add a resolver"
                    ),
                ));
            }
            if certainly_argument(&ty) { Role::Argument } else { Role::Plain }
        }
    };
    if let (Some(attr), Role::Borrowed(_) | Role::Resolved(_)) = (&arg_attr, &role) {
        errors.push(err_at(
            attr,
            "#[arg] renames an argument; a question's key is its parameter's name and the context has none: remove it",
        ));
    }
    let role = match (role, flatten) {
        (Role::Argument | Role::Plain, true) => {
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
    let arg_attr = arg_attr.map(|a| a.pound_token.span);
    Some(Param { ident, wire, ty, doc, role, arg_attr })
}

pub(super) fn kind(
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
pub(super) fn number(
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

/// `f(a, b)`, `path::to::f(a)` or `self.f(a)` (a `#[toolset]` method): the fn and the
/// parameters it takes.
pub(super) fn call(
    expr: &syn::Expr,
    option: &str,
    method: bool,
    errors: &mut darling::error::Accumulator,
) -> Option<Call> {
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
