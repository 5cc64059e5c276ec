//! `#[toolset] impl Type { #[tool] async fn …(&self, …) }`: the methods marked `#[tool]`,
//! `#[prompt]`, `#[resource]` or `#[resource_template]` are read like free fns (the inner
//! attributes are inert here: this outer attribute runs first and strips them).

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;

use crate::attr::CrateArg;
use crate::model::{self, err_at};
use crate::{check, expand};

pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item = match syn::parse2::<syn::ItemImpl>(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let mut out = syn::Error::new(e.span(), "#[toolset] goes on an impl block").to_compile_error();
            out.extend(input);
            return out;
        }
    };
    let mut errors = darling::Error::accumulator();
    let krate = crate_option(args, &mut errors);
    if !item.generics.params.is_empty() || item.trait_.is_some() {
        errors.push(err_at(item.impl_token, "#[toolset] goes on an inherent impl of a concrete type"));
    }
    let mut tools: Vec<model::Declared> = Vec::new();
    for impl_item in &mut item.items {
        let syn::ImplItem::Fn(method) = impl_item else { continue };
        let Some((pos, which)) = method.attrs.iter().enumerate().find_map(|(i, a)| declared_kind(a).map(|w| (i, w)))
        else {
            continue;
        };
        let attr = method.attrs.remove(pos);
        let tool_args = match attr.meta {
            syn::Meta::List(list) => list.tokens,
            _ => TokenStream::new(),
        };
        let as_fn = syn::ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            modifiers: method.modifiers.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let mut tool = model::read(which, tool_args, as_fn, true, &mut errors);
        tool.asserts = check::declared(&tool, true, &mut errors);
        model::mark_resolver_inputs_used(&mut tool);
        let same_kind = |a: model::Which, b: model::Which| {
            let resource = |w| matches!(w, model::Which::Resource | model::Which::ResourceTemplate);
            a == b || (resource(a) && resource(b))
        };
        let (name, which) = (&tool.common.name, tool.which());
        if let Some(first) = tools.iter().find(|t| t.common.name == *name && same_kind(t.which(), which)) {
            errors.push(err_at(
                &tool.item.sig.ident,
                format!(
                    "`{name}` is already the name of `{}` in this impl block: rename one with {}(name = \"…\")]",
                    first.item.sig.ident,
                    &which.attribute()[..which.attribute().len() - 1]
                ),
            ));
        }
        // The method as written, without the attributes the macro consumed.
        method.sig = tool.item.sig.clone();
        method.block = (*tool.item.block).clone();
        tools.push(tool);
    }
    match errors.finish() {
        Ok(()) => expand::toolset(&item, &tools, krate.as_ref()),
        Err(e) => {
            let mut out = e.write_errors();
            out.extend(quote!(#[allow(unused_variables)] #item));
            // Still a toolset, registering nothing: its registration compiles, so the errors
            // above are the only ones.
            if item.trait_.is_none() && item.generics.params.is_empty() {
                let self_ty = &item.self_ty;
                let root = expand::crate_path(krate.as_ref());
                out.extend(quote! {
                    impl #root::Toolset for #self_ty {
                        fn register(self: ::std::sync::Arc<Self>, server: #root::Server) -> #root::Server {
                            server
                        }
                    }
                });
            }
            out
        }
    }
}

/// `#[toolset(crate = path)]`, its only option: the crate's path for the block, and for each
/// method that names none of its own.
fn crate_option(args: TokenStream, errors: &mut darling::error::Accumulator) -> Option<syn::Path> {
    if args.is_empty() {
        return None;
    }
    let usage = "#[toolset] takes only `crate = path`; put other options on each #[tool]";
    let list = match darling::ast::NestedMeta::parse_meta_list(args.clone()) {
        Ok(list) => list,
        Err(_) => {
            errors.push(err_at(&args, usage));
            return None;
        }
    };
    let mut krate = None;
    for item in &list {
        match item {
            darling::ast::NestedMeta::Meta(meta) if meta.path().is_ident("crate") && krate.is_none() => {
                krate = errors.handle(CrateArg::from_meta(meta)).map(|k| k.0);
            }
            other => errors.push(err_at(other, usage)),
        }
    }
    krate
}

/// `#[tool]`, `#[prompt]`, `#[resource]` or `#[resource_template]`.
fn declared_kind(attr: &syn::Attribute) -> Option<model::Which> {
    let last = attr.path().segments.last()?;
    match last.ident.to_string().as_str() {
        "tool" => Some(model::Which::Tool),
        "prompt" => Some(model::Which::Prompt),
        "resource" => Some(model::Which::Resource),
        "resource_template" => Some(model::Which::ResourceTemplate),
        _ => None,
    }
}
