//! The prelude's `Deserialize`, `Serialize` and `JsonSchema` derives: serde's and schemars'
//! own, reached through `roundtrip`, so that an application needs no `serde` or `schemars` in
//! its `Cargo.toml` (their derives name their crates at the application's root).
//!
//! A derive cannot add attributes to the item it is on, so each expands to a copy of the item
//! (its fields, variants, docs and `#[serde]`/`#[schemars]` attributes) that carries the real
//! derive with `crate = "::roundtrip::__private::…"` (from the path `#[roundtrip(crate = path)]`
//! gives, for a crate that re-exports roundtrip), and an impl for the item that goes through
//! the copy: serde's `remote` derive builds and reads the item itself; the schema is the copy's,
//! named after the item.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

/// Which derive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Deserialize,
    Serialize,
    JsonSchema,
}

pub fn derive(which: Which, input: syn::DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        let name = match which {
            Which::Deserialize => "Deserialize",
            Which::Serialize => "Serialize",
            Which::JsonSchema => "JsonSchema",
        };
        let (krate, version) = if which == Which::JsonSchema { ("schemars", "1") } else { ("serde", "1") };
        return syn::Error::new(
            input.generics.span(),
            format!(
                "roundtrip's `{name}` derive takes types without generic parameters; for this one, add \
                 `{krate} = {{ version = \"{version}\", features = [\"derive\"] }}` to Cargo.toml and derive \
                 `{krate}::{name}`"
            ),
        )
        .to_compile_error();
    }
    let ident = &input.ident;
    let root = match crate::attr::DeriveArgs::root(&input.attrs) {
        Ok(root) => root,
        Err(e) => return e.write_errors(),
    };
    // serde's and schemars' `crate = "…"` take the path as a string.
    let root_text = root.to_string().replace(' ', "");
    let (serde_path, schemars_path) =
        (format!("{root_text}::__private::serde"), format!("{root_text}::__private::schemars"));
    let copy = format_ident!("__Roundtrip{}{}", name_of(which), ident);
    // What the copy keeps of the item: docs (schema descriptions), `cfg`, and the attributes
    // the copy's derive reads (serde's derives read `serde`; schemars' also `schemars`,
    // `validate` and `garde`).
    let kept: &[&str] = match which {
        Which::JsonSchema => &["doc", "cfg", "serde", "schemars", "validate", "garde"],
        Which::Deserialize | Which::Serialize => &["doc", "cfg", "serde"],
    };
    let keep = |a: &syn::Attribute| kept.iter().any(|k| a.path().is_ident(k));
    let mut item = input.clone();
    item.ident = copy.clone();
    item.attrs.retain(keep);
    item.vis = syn::Visibility::Inherited;
    match &mut item.data {
        syn::Data::Struct(s) => s.fields.iter_mut().for_each(|f| f.attrs.retain(keep)),
        syn::Data::Enum(e) => e.variants.iter_mut().for_each(|v| {
            v.attrs.retain(keep);
            v.fields.iter_mut().for_each(|f| f.attrs.retain(keep));
        }),
        syn::Data::Union(u) => {
            return syn::Error::new(u.union_token.span(), "a union cannot be derived here").to_compile_error();
        }
    }
    let remote = ident.to_string();
    match which {
        Which::Deserialize => quote! {
            const _: () = {
                #[derive(#root::__private::serde::Deserialize)]
                #[serde(crate = #serde_path, remote = #remote)]
                #[allow(dead_code, non_camel_case_types, clippy::all)]
                #item

                #[automatically_derived]
                impl<'de> #root::__private::serde::Deserialize<'de> for #ident {
                    fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
                    where
                        __D: #root::__private::serde::Deserializer<'de>,
                    {
                        #copy::deserialize(deserializer)
                    }
                }
            };
        },
        Which::Serialize => quote! {
            const _: () = {
                #[derive(#root::__private::serde::Serialize)]
                #[serde(crate = #serde_path, remote = #remote)]
                #[allow(dead_code, non_camel_case_types, clippy::all)]
                #item

                #[automatically_derived]
                impl #root::__private::serde::Serialize for #ident {
                    fn serialize<__S>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error>
                    where
                        __S: #root::__private::serde::Serializer,
                    {
                        #copy::serialize(self, serializer)
                    }
                }
            };
        },
        Which::JsonSchema => quote! {
            const _: () = {
                #[derive(#root::__private::schemars::JsonSchema)]
                #[schemars(crate = #schemars_path, rename = #remote)]
                #[allow(dead_code, non_camel_case_types, clippy::all)]
                #item

                #[automatically_derived]
                impl #root::__private::schemars::JsonSchema for #ident {
                    fn schema_name() -> ::std::borrow::Cow<'static, str> {
                        <#copy as #root::__private::schemars::JsonSchema>::schema_name()
                    }

                    fn schema_id() -> ::std::borrow::Cow<'static, str> {
                        ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #remote))
                    }

                    fn inline_schema() -> bool {
                        <#copy as #root::__private::schemars::JsonSchema>::inline_schema()
                    }

                    fn json_schema(
                        generator: &mut #root::__private::schemars::SchemaGenerator,
                    ) -> #root::__private::schemars::Schema {
                        <#copy as #root::__private::schemars::JsonSchema>::json_schema(generator)
                    }
                }
            };
        },
    }
}

fn name_of(which: Which) -> &'static str {
    match which {
        Which::Deserialize => "De",
        Which::Serialize => "Ser",
        Which::JsonSchema => "Schema",
    }
}
