//! `#[derive(Elicit)]`: a flat struct becomes a form; a unit-variant enum becomes a choice.
//! Every field is checked at compile time, at its own type.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

pub fn elicit(input: syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let root = match crate::attr::DeriveArgs::root(&input.attrs) {
        Ok(root) => root,
        Err(e) => return e.write_errors(),
    };
    if !input.generics.params.is_empty() {
        return syn::Error::new(
            input.generics.span(),
            "#[derive(Elicit)] does not support generic types: elicit a concrete type",
        )
        .to_compile_error();
    }
    match &input.data {
        syn::Data::Struct(s) => {
            let syn::Fields::Named(fields) = &s.fields else {
                return syn::Error::new(
                    s.fields.span(),
                    "an elicitation form is a struct with named fields (the names are the form's properties)",
                )
                .to_compile_error();
            };
            let checks = fields.named.iter().map(|f| {
                let ty = &f.ty;
                quote_spanned!(ty.span()=> __field::<#ty>();)
            });
            quote! {
                impl #root::Elicit for #ident {
                    const SINGLE: bool = false;
                }
                const _: () = {
                    fn __field<T: #root::__private::FormField + ?::core::marker::Sized>() {}
                    #[allow(unused)]
                    fn __fields() { #(#checks)* }
                };
            }
        }
        syn::Data::Enum(e) => {
            if let Some(v) = e.variants.iter().find(|v| !matches!(v.fields, syn::Fields::Unit)) {
                return syn::Error::new(
                    v.fields.span(),
                    "an elicited enum is a choice between unit variants; this variant carries data",
                )
                .to_compile_error();
            }
            quote! {
                impl #root::Elicit for #ident {
                    const SINGLE: bool = true;
                }
                impl #root::__private::FormField for #ident {}
                impl #root::__private::Choice for #ident {}
            }
        }
        syn::Data::Union(u) => syn::Error::new(u.union_token.span(), "a union cannot be elicited").to_compile_error(),
    }
}
