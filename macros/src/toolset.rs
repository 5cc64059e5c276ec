//! `#[toolset] impl Type { #[tool] async fn …(&self, …) }`: the methods marked `#[tool]`,
//! `#[prompt]`, `#[resource]` or `#[resource_template]` are read like free fns (the inner
//! attributes are inert here: this outer attribute runs first and strips them).

use proc_macro2::TokenStream;
use quote::quote;

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
    if !args.is_empty() {
        errors.push(err_at(&args, "#[toolset] takes no options; put them on each #[tool]"));
    }
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
        check::graph(&tool, &mut errors);
        check::kind_rules(&tool, &mut errors);
        model::mark_resolver_inputs_used(&mut tool);
        let same_kind = |a: model::Which, b: model::Which| {
            let resource = |w| matches!(w, model::Which::Resource | model::Which::ResourceTemplate);
            a == b || (resource(a) && resource(b))
        };
        if let Some(first) = tools.iter().find(|t| t.name == tool.name && same_kind(t.which, tool.which)) {
            errors.push(err_at(
                &tool.item.sig.ident,
                format!(
                    "`{}` is already the name of `{}` in this impl block: rename one with {}(name = \"…\")]",
                    tool.name,
                    first.item.sig.ident,
                    &tool.which.attribute()[..tool.which.attribute().len() - 1]
                ),
            ));
        }
        // The method as written, without the attributes the macro consumed.
        method.sig = tool.item.sig.clone();
        method.block = (*tool.item.block).clone();
        tools.push(tool);
    }
    match errors.finish() {
        Ok(()) => expand::toolset(&item, &tools),
        Err(e) => {
            let mut out = e.write_errors();
            out.extend(quote!(#[allow(unused_variables)] #item));
            // Still a toolset, registering nothing: its registration compiles, so the errors
            // above are the only ones.
            if item.trait_.is_none() && item.generics.params.is_empty() {
                let self_ty = &item.self_ty;
                out.extend(quote! {
                    impl ::roundtrip::Toolset for #self_ty {
                        fn register(self: ::std::sync::Arc<Self>, server: ::roundtrip::Server) -> ::roundtrip::Server {
                            server
                        }
                    }
                });
            }
            out
        }
    }
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
