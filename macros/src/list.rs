//! `tools![a, module::b]`, `prompts![…]`, `resources![…]`: the definitions of these declared
//! fns, with duplicates refused.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;

use crate::expand::factory_ident;
use crate::model::Which;

pub fn list(which: Which, input: TokenStream) -> TokenStream {
    let (what, one, factory_trait, assert_unique) = match which {
        Which::Tool => ("tools", "tool", quote!(::roundtrip::ToolFactory), quote!(assert_unique_tools)),
        Which::Prompt => ("prompts", "prompt", quote!(::roundtrip::PromptFactory), quote!(assert_unique_prompts)),
        Which::ResourceTemplate | Which::Resource | Which::View => {
            ("resources", "resource", quote!(::roundtrip::ResourceFactory), quote!(assert_unique_resources))
        }
    };
    let paths = match Punctuated::<syn::Path, syn::Token![,]>::parse_terminated.parse2(input) {
        Ok(p) => p,
        Err(e) => {
            let message = format!("{what}![…] takes the names of declared fns, separated by commas");
            return syn::Error::new(e.span(), message).to_compile_error();
        }
    };
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
        const _: () = ::roundtrip::__private::#assert_unique(&[#(<#factories as #factory_trait>::NAME),*]);
        [#(<#factories as #factory_trait>::def()),*]
    }}
}
