//! `tools![a, module::b]`: the definitions of these tools, with duplicates refused.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;

use crate::expand::factory_ident;

pub fn tools(input: TokenStream) -> TokenStream {
    let paths = match Punctuated::<syn::Path, syn::Token![,]>::parse_terminated.parse2(input) {
        Ok(p) => p,
        Err(e) => {
            return syn::Error::new(e.span(), "tools![…] takes the names of #[tool] fns, separated by commas")
                .to_compile_error();
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
                    format!("`{name}` is already in this list: each tool is registered once"),
                )
                .to_compile_error(),
            );
            continue;
        }
        seen.push(name);
        last.ident = factory_ident(&last.ident);
        factories.push(factory);
    }
    quote! {{
        #errors
        const _: () = ::roundtrip::__private::assert_unique(&[#(<#factories as ::roundtrip::ToolFactory>::NAME),*]);
        [#(<#factories as ::roundtrip::ToolFactory>::def()),*]
    }}
}
