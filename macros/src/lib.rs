//! Attribute macros of [roundtrip](https://docs.rs/roundtrip): `#[tool]` with
//! `#[resolve(...)]` parameters, `tools![…]`, and `#[derive(Elicit)]`.
//!
//! The macros describe; the runtime implements. Each macro reads its input (parse), checks
//! it (all problems of an item reported together, each at the token to change), and emits
//! small code that calls the runtime through `::roundtrip::__private`. On error the user's
//! item is still emitted, so one mistake does not cascade into others.

mod attr;
mod check;
mod derive;
mod docs;
mod expand;
mod list;
mod model;
mod template;
mod toolset;

use proc_macro::TokenStream;

/// Declare an MCP tool. See the `roundtrip` crate documentation.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse::<syn::ItemFn>(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let mut out: TokenStream = syn::Error::new(e.span(), "#[tool] goes on a fn").to_compile_error().into();
            out.extend(input);
            return out;
        }
    };
    let mut errors = darling::Error::accumulator();
    let tool = model::read(args.into(), item, false, &mut errors);
    check::graph(&tool, &mut errors);
    match errors.finish() {
        Ok(()) => expand::tool(&tool).into(),
        Err(e) => {
            let item = &tool.item;
            let mut out = e.write_errors();
            out.extend(quote::quote!(#item));
            out.into()
        }
    }
}

/// Collect the `#[tool]` methods of an impl block into `tools(self: Arc<Self>)`, for servers
/// whose tools share state (a database pool, a cache).
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    toolset::toolset(args.into(), input.into()).into()
}

/// The definitions of these `#[tool]` fns, for `Server::tools`.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    list::tools(input.into()).into()
}

/// Make a flat struct (a form) or a unit-variant enum (a choice) askable with
/// `#[resolve(elicit = "…")]`.
#[proc_macro_derive(Elicit)]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => derive::elicit(input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
