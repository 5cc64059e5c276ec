//! The resolver graph as data: a node per resolved parameter (its resolver, its pin) and each
//! `check`, with the adapters that call `with` and `check` fns.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::definition::role_of;
use super::{Cx, opt_str, respan};
use crate::docs;
use crate::model::{Call, Kind, Param, Role, SampleOptions, Template};
use crate::template::Piece;

/// `let __graph = …;`: the arguments by wire name, the nodes and the checks.
pub(super) fn graph(cx: &Cx<'_>) -> TokenStream {
    let rt = cx.rt;
    let nodes = cx.decl.params.iter().filter_map(|p| node(cx, p));
    let checks = checks(cx);
    let arg_names = if cx.decl.params.iter().any(|p| matches!(p.role, Role::Plain)) {
        // Which of these are arguments, only the compiler knows.
        let names = cx.decl.params.iter().filter_map(|p| {
            let key = &p.wire;
            match p.role {
                Role::Argument => Some(quote!((#key, true))),
                Role::Plain => {
                    let r = role_of(rt, &p.ty);
                    Some(quote!((#key, #r::ARGUMENT)))
                }
                _ => None,
            }
        });
        quote!(::std::vec::Vec::from([#(#names),*]).into_iter().filter_map(|(__n, __a)| __a.then_some(__n)).collect())
    } else {
        let names = cx.decl.params.iter().filter(|p| matches!(p.role, Role::Argument)).map(|p| &p.wire);
        quote!(::std::vec::Vec::from([#(#names),*]))
    };
    quote! {
        let __graph = #rt::graph(
            #arg_names,
            ::std::vec::Vec::from([#(#nodes),*]),
            ::std::vec::Vec::from([#(#checks),*]),
        );
    }
}

/// The `check = f(a)`s of the declaration.
pub(super) fn checks(cx: &Cx<'_>) -> Vec<TokenStream> {
    cx.decl.common.checks.iter().map(|c| check(cx, c)).collect()
}

fn check(cx: &Cx<'_>, call: &Call) -> TokenStream {
    let rt = cx.rt;
    let (text, names) = (&call.text, call_inputs(cx, call));
    let f = adapter(cx, call, quote!(#rt::check_fn), quote_spanned!(call.span=> #rt::into_check));
    quote!(#rt::Check {
        call: #text,
        args: #names,
        f: #f,
    })
}

/// The adapter of a `check` or `with` fn: `make` (`check_fn` or `with_fn`) of a closure that
/// binds the call's arguments, calls the fn and gives what it returns to `into`.
fn adapter(cx: &Cx<'_>, call: &Call, make: TokenStream, into: TokenStream) -> TokenStream {
    let (root, rt) = (cx.root, cx.rt);
    let bind = bind_call_args(cx, call);
    let (callee, this) = (callee(call), clone_this(call));
    let awaited = settled(call, &callee, rt);
    quote!({
        #this
        #make(move |__inputs: ::std::vec::Vec<#rt::serde_json::Value>, __cx: &#root::server::RequestContext| {
            #this
            #rt::Box::pin(async move {
                let mut __inputs = __inputs.into_iter();
                #(#bind)*
                #into(#awaited)
            })
        })
    })
}

/// The statements that bind a call's arguments inside its adapter: values decoded from
/// `__inputs` (in order), state and the context from `__cx`.
fn bind_call_args(cx: &Cx<'_>, call: &Call) -> Vec<TokenStream> {
    let rt = cx.rt;
    call.args
        .iter()
        .map(|a| {
            let key = a.to_string();
            match cx.decl.params.iter().find(|p| p.ident == *a).map(|p| (&p.role, &p.ty)) {
                Some((Role::Borrowed(_), _)) => quote!(let #a = __cx;),
                // What the server gives, or an argument (held, as below): as its role says.
                Some((Role::Plain, ty)) => {
                    let held = quote::format_ident!("__{}_json", a);
                    quote! {
                        let #held: #rt::serde_json::Value = #rt::Role::<#ty>::new().hold(&mut __inputs);
                        let #a = #rt::Role::<#ty>::new().bind(#key, &#held, __cx)?;
                    }
                }
                // Held by the call's future, so that a fn may borrow from it (`&str`).
                _ => {
                    let held = quote::format_ident!("__{}_json", a);
                    quote! {
                        let #held: #rt::serde_json::Value = __inputs.next().unwrap_or_default();
                        let #a = #rt::from_arg(#key, &#held)?;
                    }
                }
            }
        })
        .collect()
}

/// The names of a call's value arguments (not state or the context), on the wire: a
/// `&'static [&'static str]`. Of the types only the compiler knows, the arguments are picked
/// at compile time.
fn call_inputs(cx: &Cx<'_>, call: &Call) -> TokenStream {
    let rt = cx.rt;
    let mut plain = false;
    let inputs: Vec<(String, TokenStream)> = call
        .args
        .iter()
        .filter_map(|a| {
            let param = cx.decl.params.iter().find(|p| p.ident == *a);
            let is = match param.map(|p| &p.role) {
                Some(Role::Borrowed(_)) => return None,
                Some(Role::Plain) => {
                    plain = true;
                    let r = role_of(rt, &param?.ty);
                    quote!(#r::ARGUMENT)
                }
                _ => quote!(true),
            };
            Some((cx.wire_of(&a.to_string()), is))
        })
        .collect();
    let names = inputs.iter().map(|(n, _)| n);
    if !plain {
        return quote!(&[#(#names),*]);
    }
    let (all, n) = (inputs.iter().map(|(n, is)| quote!((#n, #is))), inputs.len());
    let are = inputs.iter().map(|(_, is)| is);
    quote!({
        const __K: usize = #rt::count_true([#(#are),*]);
        const __ARGS: [&str; __K] = #rt::arguments_among::<#n, __K>([#(#all),*]);
        &__ARGS
    })
}

/// The callee of a call: the fn, or for `self.f(…)` the method on the shared value.
fn callee(call: &Call) -> TokenStream {
    let func = &call.func;
    if call.method { quote!(__this.#func) } else { quote!(#func) }
}

/// A clone of the shared value for a closure that calls a method on it.
fn clone_this(call: &Call) -> Option<TokenStream> {
    call.method.then(|| quote!(let __this = ::std::sync::Arc::clone(&__this);))
}

/// The value a `check` or `with` fn's call gives, awaited when the fn is async and taken as
/// it is when it is not (a sync fn is as welcome as an async one). The call is settled in a
/// statement of its own, so that nothing borrowed by the choice lives across the `.await`.
fn settled(call: &Call, callee: &TokenStream, rt: &TokenStream) -> TokenStream {
    let args = &call.args;
    quote_spanned!(call.span=> {
        #[allow(unused_imports)]
        use #rt::{CalledAsync as _, CalledSync as _};
        let __settled = (&#rt::Called::new(#callee(#(#args),*))).settle();
        __settled.await
    })
}

fn template(cx: &Cx<'_>, t: &Template) -> TokenStream {
    let rt = cx.rt;
    let parts = t.pieces.iter().map(|p| match p {
        Piece::Lit(l) => quote!(#rt::Part::Lit(#l)),
        Piece::Ref(r) => {
            let r = cx.wire_of(r);
            quote!(#rt::Part::Ref(#r))
        }
    });
    quote!(#rt::Template(&[#(#parts),*]))
}

/// The node of a resolved parameter: its resolver, and its static pin (what the question is,
/// as written: a changed question invalidates the states sealed for the old one).
fn node(cx: &Cx<'_>, p: &Param) -> Option<TokenStream> {
    let Role::Resolved(r) = &p.role else { return None };
    let rt = cx.rt;
    let key = p.ident.to_string();
    let ty = r.value_type(&p.ty);
    let ty_text = quote!(#ty).to_string();
    let (resolver, pin_parts) = match &r.kind {
        Kind::Elicit { message } => elicit(cx, ty, &key, message, r.or_default.is_some()),
        Kind::ElicitUrl { url, message } => elicit_url(cx, ty, url, message),
        Kind::Sample { prompt, max_tokens, options } => sample(cx, ty, prompt, *max_tokens, options),
        Kind::Roots => {
            let check = quote_spanned!(ty.span()=> #rt::assert_roots::<#ty>(););
            (quote!({ #check #rt::Resolver::Roots }), vec![])
        }
        Kind::With { call } => with(cx, ty, call),
    };
    let mut parts: Vec<&str> = vec![r.kind.word(), &key, &ty_text];
    parts.extend(pin_parts.iter().map(String::as_str));
    let pin = docs::digest(&parts);
    let refusable = r.answer_of.is_some();
    let argument = r.or_argument.is_some();
    let form = r.or_form;
    let node = |default: TokenStream| {
        quote!(#rt::Node {
            name: #key,
            resolver: #resolver,
            refusable: #refusable,
            check: #rt::check::<#ty>,
            static_pin: #pin,
            fallback: #rt::Fallback { argument: #argument, form: #form, default: #default },
        })
    };
    let Some(expr) = &r.or_default else { return Some(node(quote!(::core::option::Option::None))) };
    // The default is written once, as a closure that captures nothing (a fn pointer), which a
    // form also reads for its fields' defaults. Its type is checked against the value's at the
    // expression.
    let value = quote_spanned!(expr.span()=> #rt::fallback_value::<#ty>(#expr));
    let node = node(quote!(__default));
    Some(quote!({
        let __default: ::core::option::Option<fn() -> #rt::serde_json::Value> =
            ::core::option::Option::Some(|| #value);
        #node
    }))
}

/// A resolver, and what its pin covers beyond its kind, name and type.
type Resolver = (TokenStream, Vec<String>);

/// `defaulted`: the node's `or_default` (the `__default` fn in scope) fills the form's defaults.
fn elicit(cx: &Cx<'_>, ty: &syn::Type, key: &str, message: &Template, defaulted: bool) -> Resolver {
    let rt = cx.rt;
    let m = template(cx, message);
    let root = respan(cx.root, ty.span());
    let bound = quote_spanned!(ty.span()=> <#ty as #root::Elicit>::SINGLE);
    let mut schema = quote!(#rt::elicit_schema::<#ty>(#key));
    if defaulted {
        schema = quote!(#rt::form_defaults(#schema, #key, #bound, __default));
    }
    (
        quote!(#rt::Resolver::Elicit {
            message: #m,
            schema: #schema,
            property: if #bound { ::core::option::Option::Some(#key) } else { ::core::option::Option::None },
        }),
        vec![message.lit.value()],
    )
}

fn elicit_url(cx: &Cx<'_>, ty: &syn::Type, url: &Template, message: &Template) -> Resolver {
    let rt = cx.rt;
    let (u, m) = (template(cx, url), template(cx, message));
    let check = quote_spanned!(ty.span()=> #rt::assert_url::<#ty>(););
    (quote!({ #check #rt::Resolver::ElicitUrl { url: #u, message: #m } }), vec![url.lit.value(), message.lit.value()])
}

fn sample(cx: &Cx<'_>, ty: &syn::Type, prompt: &Template, max_tokens: u32, options: &SampleOptions) -> Resolver {
    let rt = cx.rt;
    let pr = template(cx, prompt);
    let root = respan(cx.root, ty.span());
    let full = quote_spanned!(ty.span()=> <#ty as #root::__private::SampleOutput>::FULL);
    let opt_f64 = |v: Option<f64>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let system = opt_str(options.system.as_deref());
    let temperature = opt_f64(options.temperature);
    let (cost, speed, intelligence) =
        (opt_f64(options.cost_priority), opt_f64(options.speed_priority), opt_f64(options.intelligence_priority));
    let include = opt_str(options.include_context.as_deref());
    let (stop, hints) = (&options.stop, &options.model_hints);
    let mut pin = vec![prompt.lit.value(), max_tokens.to_string()];
    pin.extend(options.system.clone());
    pin.extend(options.temperature.map(|t| t.to_string()));
    pin.extend(options.stop.iter().cloned());
    (
        quote!(#rt::Resolver::Sample {
            prompt: #pr,
            max_tokens: #max_tokens,
            full: #full,
            options: #rt::SampleOptions {
                system_prompt: #system,
                temperature: #temperature,
                stop_sequences: &[#(#stop),*],
                model_hints: &[#(#hints),*],
                cost_priority: #cost,
                speed_priority: #speed,
                intelligence_priority: #intelligence,
                include_context: #include,
            },
        }),
        pin,
    )
}

fn with(cx: &Cx<'_>, ty: &syn::Type, call: &Call) -> Resolver {
    let rt = cx.rt;
    let (text, names) = (&call.text, call_inputs(cx, call));
    let f = adapter(cx, call, quote!(#rt::with_fn), quote_spanned!(call.span=> #rt::into_resolution::<#ty>));
    (
        quote!(#rt::Resolver::With {
            call: #text,
            args: #names,
            f: #f,
            value_schema: {
                #[allow(unused_imports)]
                use #rt::{HasSchema as _, NoSchema as _};
                (&#rt::ValueSchema::<#ty>::new()).value_schema()
            },
        }),
        vec![call.text.clone()],
    )
}
