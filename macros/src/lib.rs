//! Attribute macros of [roundtrip](https://docs.rs/roundtrip): `#[tool]`, `#[prompt]`,
//! `#[resource_template]` and `#[resource]` with `#[resolve(...)]` parameters, `#[toolset]`,
//! the `tools![…]`, `prompts![…]` and `resources![…]` lists, and `#[derive(Elicit)]`.
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

use model::Which;
use proc_macro::TokenStream;

/// Declare an MCP tool. See the `roundtrip` crate documentation.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::Tool, args, input)
}

/// Declare an MCP prompt: its arguments (strings) become prompt arguments; it returns
/// messages.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::Prompt, args, input)
}

/// Declare a family of resources: `#[resource_template("notes://{id}")]`; each variable binds
/// to the parameter of the same name.
#[proc_macro_attribute]
pub fn resource_template(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::ResourceTemplate, args, input)
}

/// Declare a resource at a fixed URI: `#[resource("config://app")]`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::Resource, args, input)
}

fn declare(which: Which, args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse::<syn::ItemFn>(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let message = format!("{} goes on a fn", which.attribute());
            let mut out: TokenStream = syn::Error::new(e.span(), message).to_compile_error().into();
            out.extend(input);
            return out;
        }
    };
    let mut errors = darling::Error::accumulator();
    let mut decl = model::read(which, args.into(), item, false, &mut errors);
    check::graph(&decl, &mut errors);
    check::kind_rules(&decl, &mut errors);
    match errors.finish() {
        Ok(()) => {
            model::mark_resolver_inputs_used(&mut decl);
            expand::item(&decl).into()
        }
        Err(e) => {
            // The fn as written, so that other errors do not pile up; its parameters may be
            // unused without the expansion, which is no news next to the error.
            let item = &decl.item;
            let mut out = e.write_errors();
            out.extend(quote::quote!(#[allow(unused_variables)]));
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
    list::list(Which::Tool, input.into()).into()
}

/// The definitions of these `#[prompt]` fns, for `Server::prompts`.
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    list::list(Which::Prompt, input.into()).into()
}

/// The definitions of these `#[resource]` and `#[resource_template]` fns, for
/// `Server::resources`.
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    list::list(Which::Resource, input.into()).into()
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
