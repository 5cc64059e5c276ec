//! `tools![a, module::b]`, `prompts![…]`, `resources![…]`: the definitions of these declared
//! fns, with duplicates refused. `tools![crate = path; a, b]` names the crate by `path`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;

use crate::expand::crate_path;
use crate::expand::factory_ident;
use crate::model::Which;

/// The list as written: `crate = path;` if given, then the declared fns.
struct Input {
    krate: Option<syn::Path>,
    paths: Punctuated<syn::Path, syn::Token![,]>,
}

fn parse(input: ParseStream<'_>) -> syn::Result<Input> {
    let mut krate = None;
    if input.peek(syn::Token![crate]) && input.peek2(syn::Token![=]) {
        input.parse::<syn::Token![crate]>()?;
        input.parse::<syn::Token![=]>()?;
        krate = Some(input.call(syn::Path::parse_mod_style)?);
        input.parse::<syn::Token![;]>()?;
    }
    Ok(Input { krate, paths: Punctuated::parse_terminated(input)? })
}

pub fn list(which: Which, input: TokenStream) -> TokenStream {
    let (what, one, factory_trait, assert_unique) = match which {
        Which::Tool => ("tools", "tool", quote!(ToolFactory), quote!(assert_unique_tools)),
        Which::Prompt => ("prompts", "prompt", quote!(PromptFactory), quote!(assert_unique_prompts)),
        Which::ResourceTemplate | Which::Resource | Which::View => {
            ("resources", "resource", quote!(ResourceFactory), quote!(assert_unique_resources))
        }
    };
    let Input { krate, paths } = match parse.parse2(input) {
        Ok(input) => input,
        Err(e) => {
            let message = format!(
                "{what}![…] takes the names of declared fns, separated by commas (after `crate = path;` if the \
                 roundtrip crate is not `::roundtrip`)"
            );
            return syn::Error::new(e.span(), message).to_compile_error();
        }
    };
    let root = crate_path(krate.as_ref());
    let factory_trait = quote!(#root::__private::#factory_trait);
    let mut errors = TokenStream::new();
    let mut seen: Vec<String> = Vec::new();
    let mut factories = Vec::new();
    for path in &paths {
        let mut factory = path.clone();
        let Some(last) = factory.segments.last_mut() else { continue };
        let name = last.ident.to_string();
        if seen.contains(&name) {
            errors.extend(
                syn::Error::new_spanned(
                    path,
                    format!("`{name}` is already in this list: each {one} is registered once"),
                )
                .to_compile_error(),
            );
            continue;
        }
        seen.push(name);
        last.ident = factory_ident(which, &last.ident);
        factories.push(factory);
    }
    quote! {{
        #errors
        const _: () = #root::__private::#assert_unique(&[#(<#factories as #factory_trait>::NAME),*]);
        [#(<#factories as #factory_trait>::def()),*]
    }}
}
