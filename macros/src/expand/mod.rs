//! The code a declared fn becomes: the user's fn (attributes stripped) and a hidden factory
//! type whose `def()` builds the definition (schemas, the graph as data, pins) and a thin
//! adapter that extracts the values and calls the fn. Every path is fully qualified, from the
//! crate's path (`crate = path`, or `::roundtrip`). Expansion reads only the checked model.

mod definition;
mod graph;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::model::{Declaration, Declared, Which};

/// The hidden factory type of a declared fn (what `tools![…]`, `prompts![…]` and
/// `resources![…]` name).
pub fn factory_ident(which: Which, fn_ident: &syn::Ident) -> syn::Ident {
    let kind = match which {
        Which::Tool => "tool",
        Which::Prompt => "prompt",
        // A view is a resource: `resources![…]` lists it as one.
        Which::ResourceTemplate | Which::Resource | Which::View => "resource",
    };
    format_ident!("__roundtrip_{}_{}", kind, fn_ident)
}

/// The path of the roundtrip crate in generated code: `crate = path`, or `::roundtrip`.
pub fn crate_path(krate: Option<&syn::Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path),
        None => quote!(::roundtrip),
    }
}

/// `path` with every token at `span`, as if written in a `quote_spanned!` at `span`: an error
/// about the code it starts (a failed const evaluation, an unmet bound) points there.
pub fn respan(path: &TokenStream, span: Span) -> TokenStream {
    path.clone()
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

/// The paths generated code names the runtime by.
pub struct Paths {
    /// The crate: `crate = path`, or `::roundtrip`.
    pub root: TokenStream,
    /// What only generated code uses: `root::__private`.
    pub rt: TokenStream,
}

impl Paths {
    pub fn new(krate: Option<&syn::Path>) -> Self {
        let root = crate_path(krate);
        let rt = quote!(#root::__private);
        Self { root, rt }
    }
}

/// The factory trait and the definition type of each kind.
fn factory_trait(which: Which, root: &TokenStream) -> (TokenStream, TokenStream) {
    match which {
        Which::Tool => (quote!(#root::__private::ToolFactory), quote!(#root::server::ToolDef)),
        Which::Prompt => (quote!(#root::__private::PromptFactory), quote!(#root::server::PromptDef)),
        Which::ResourceTemplate | Which::Resource | Which::View => {
            (quote!(#root::__private::ResourceFactory), quote!(#root::server::ResourceEntry))
        }
    }
}

/// A declared free fn: the fn as written (attributes stripped) and its hidden factory.
pub fn item(decl: &Declared) -> TokenStream {
    let paths = Paths::new(decl.common.krate.as_ref());
    let item = &decl.item;
    let vis = &item.vis;
    let factory = factory_ident(decl.which(), &item.sig.ident);
    let name = &decl.common.name;
    let definition = definition::definition(decl, false, &paths);
    if let Declaration::View(view) = &decl.declaration {
        return crate::view::view_factory(item, vis, &factory, name, &view.uri, definition, &paths.root);
    }
    let root = &paths.root;
    let (factory_trait, def_type) = factory_trait(decl.which(), root);
    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #factory;

        impl #factory_trait for #factory {
            const NAME: &'static str = #name;

            fn def() -> #def_type #definition
        }
    }
}

/// An impl block whose `&self` methods are tools, prompts and resources: the block as written
/// (attributes stripped), `tools(self: Arc<Self>)`, `prompts(…)` and `resources(…)` (the
/// definitions bound to one shared value), and `Toolset`, which registers them all.
/// `krate`: the toolset's `crate = path`, which each method's own overrides.
pub fn toolset(item: &syn::ItemImpl, declared: &[Declared], krate: Option<&syn::Path>) -> TokenStream {
    let paths = Paths::new(krate);
    let root = &paths.root;
    let self_ty = &item.self_ty;
    let collect = |kinds: &[Which]| -> Vec<TokenStream> {
        declared
            .iter()
            .filter(|d| kinds.contains(&d.which()))
            .map(|d| {
                let own = Paths::new(d.common.krate.as_ref().or(krate));
                let definition = definition::definition(d, true, &own);
                quote!({ let __this = ::std::sync::Arc::clone(&self); #definition })
            })
            .collect()
    };
    let lists = [
        (quote!(tools), quote!(#root::server::ToolDef), collect(&[Which::Tool]), "tools"),
        (quote!(prompts), quote!(#root::server::PromptDef), collect(&[Which::Prompt]), "prompts"),
        (
            quote!(resources),
            quote!(#root::server::ResourceEntry),
            collect(&[Which::Resource, Which::ResourceTemplate]),
            "resources and templates",
        ),
    ];
    let present = lists.iter().filter(|(.., items, _)| !items.is_empty());
    let list_fns = present.clone().map(|(name, def, items, what)| {
        let doc = format!("The {what} of this impl block, each calling its method on this shared value.");
        quote! {
            #[doc = #doc]
            pub fn #name(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<#def> {
                ::std::vec::Vec::from([#(#items),*])
            }
        }
    });
    let registers =
        present.map(|(name, ..)| quote!(let server = server.#name(::std::sync::Arc::clone(&self).#name());));
    quote! {
        #item

        impl #self_ty {
            #(#list_fns)*
        }

        impl #root::Toolset for #self_ty {
            fn register(self: ::std::sync::Arc<Self>, server: #root::Server) -> #root::Server {
                let server = server.state(::std::sync::Arc::clone(&self));
                #(#registers)*
                server
            }
        }
    }
}

/// What the steps of a definition read: the declaration, whether it is a method, the paths.
pub(crate) struct Cx<'a> {
    pub decl: &'a Declared,
    /// A method of a `#[toolset]`: `__this: Arc<Self>` is in scope, and calls go to it.
    pub method: bool,
    pub root: &'a TokenStream,
    pub rt: &'a TokenStream,
}

impl Cx<'_> {
    /// The graph knows arguments by their wire names; placeholders name Rust parameters.
    fn wire_of(&self, name: &str) -> String {
        self.decl.params.iter().find(|p| p.ident == name).map_or_else(|| name.to_owned(), |p| p.wire.clone())
    }
}

/// `Some("…")` or `None`.
fn opt_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}
