//! The code a `#[tool]` becomes: the user's fn (attributes stripped) and a hidden factory
//! type whose `def()` builds the descriptor (schemas, the graph as data, pins) and a thin
//! adapter that extracts the values and calls the fn. Every path is fully qualified.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::docs;
use crate::model::{Kind, Param, Role, Template, ToolFn};
use crate::template::Piece;

/// The hidden factory type of a tool fn (what `tools![…]` names).
pub fn factory_ident(fn_ident: &syn::Ident) -> syn::Ident {
    format_ident!("__roundtrip_tool_{}", fn_ident)
}

pub fn tool(tool: &ToolFn) -> TokenStream {
    let item = &tool.item;
    let vis = &item.vis;
    let factory = factory_ident(&item.sig.ident);
    let name = &tool.name;
    let definition = definition(tool, false);
    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #factory;

        impl ::roundtrip::ToolFactory for #factory {
            const NAME: &'static str = #name;

            fn def() -> ::roundtrip::server::ToolDef #definition
        }
    }
}

/// An impl block whose `&self` methods are tools: the block as written (attributes stripped)
/// and `tools(self: Arc<Self>)`, the definitions bound to one shared value.
pub fn toolset(item: &syn::ItemImpl, tools: &[ToolFn]) -> TokenStream {
    let self_ty = &item.self_ty;
    let definitions = tools.iter().map(|t| {
        let definition = definition(t, true);
        quote!({ let __this = ::std::sync::Arc::clone(&self); #definition })
    });
    quote! {
        #item

        impl #self_ty {
            /// The tools of this impl block, each calling its method on this shared value.
            pub fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::roundtrip::server::ToolDef> {
                ::std::vec::Vec::from([#(#definitions),*])
            }
        }
    }
}

/// A block that evaluates to the tool's `ToolDef`. For a method, `__this: Arc<Self>` is in
/// scope and the body calls the method on it.
fn definition(tool: &ToolFn, method: bool) -> TokenStream {
    let item = &tool.item;
    let fn_ident = &item.sig.ident;
    let name = &tool.name;
    let rt = quote!(::roundtrip::__private);

    let arguments: Vec<&Param> = tool.params.iter().filter(|p| matches!(p.role, Role::Argument)).collect();
    let arg_names: Vec<String> = arguments.iter().map(|p| p.ident.to_string()).collect();
    let fields = arguments.iter().map(|p| {
        let (key, ty) = (p.ident.to_string(), &p.ty);
        let schema = quote_spanned!(ty.span()=> #rt::argument_schema::<#ty>());
        let description = opt_str(p.doc.clone());
        let required = !is_option(ty);
        quote!(#rt::Field { name: #key, schema: #schema, description: #description, required: #required })
    });
    let parsed = arguments.iter().map(|p| {
        let (ident, key, ty) = (&p.ident, p.ident.to_string(), &p.ty);
        let parse = quote_spanned!(ty.span()=> #rt::argument::<#ty>);
        quote!(let #ident = #parse(#name, __args, #key)?;)
    });
    let arg_idents: Vec<&syn::Ident> = arguments.iter().map(|p| &p.ident).collect();

    let nodes = tool.params.iter().filter_map(|p| node(p, &rt));
    let takes = tool.params.iter().filter_map(|p| {
        let Role::Resolved(r) = &p.role else { return None };
        let (ident, ty, key) = (&p.ident, &p.ty, p.ident.to_string());
        let method = if r.answer_of.is_some() { quote!(answer) } else { quote!(take) };
        let inner = r.value_type(ty);
        Some(quote!(let #ident: #ty = __values.#method::<#inner>(#key)?;))
    });
    let call_args = tool.params.iter().map(|p| {
        let ident = &p.ident;
        match p.role {
            Role::Argument => quote!(#ident),
            Role::Resolved(_) => quote!(#ident),
            Role::Context => {
                if matches!(p.ty, syn::Type::Reference(_)) {
                    quote!(&__cx)
                } else {
                    quote!(__cx)
                }
            }
        }
    });
    let awaited = item.sig.asyncness.map(|_| quote!(.await));
    let ret = match &item.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let ret_span = match &item.sig.output {
        syn::ReturnType::Default => item.sig.ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    let resolves = tool.params.iter().any(|p| matches!(p.role, Role::Resolved(_)));
    let may_ask_assert = resolves.then(|| {
        quote_spanned!(ret_span=>
            const _: () = ::roundtrip::__private::refuse_manual_form(<#ret as ::roundtrip::ToolReturn>::MAY_ASK);
        )
    });
    let ret_assert = quote_spanned!(ret_span=> #rt::assert_return::<#ret>(););
    // Spanned at the return type too, so that a type that is no ToolReturn is reported once, there.
    let output_schema = quote_spanned!(ret_span=> <#ret as ::roundtrip::ToolReturn>::output_schema());
    let outcome = quote_spanned!(ret_span=> #rt::outcome);
    let title = opt_str(tool.args.title.as_ref().map(syn::LitStr::value));
    let description = opt_str(tool.description.clone());
    let annotations = annotations(tool);
    let uses_cx = tool.params.iter().any(|p| matches!(p.role, Role::Context));
    let cx_binding = if uses_cx { quote!(__cx) } else { quote!(_) };
    let arguments_binding = quote!((#(#arg_idents,)*));
    let values_binding = if resolves { quote!(mut __values) } else { quote!(_) };
    let body = if method {
        quote!(move |#arguments_binding, #values_binding: #rt::Values, #cx_binding: ::roundtrip::server::RequestContext| {
            let __this = ::std::sync::Arc::clone(&__this);
            async move {
                #(#takes)*
                #outcome(__this.#fn_ident(#(#call_args),*) #awaited)
            }
        })
    } else {
        quote!(|#arguments_binding, #values_binding: #rt::Values, #cx_binding: ::roundtrip::server::RequestContext| async move {
            #(#takes)*
            #outcome(#fn_ident(#(#call_args),*) #awaited)
        })
    };

    quote!({
        #may_ask_assert
        #[allow(unused)]
        fn __assert() {
            #ret_assert
        }
        let __graph = #rt::graph(
            ::std::vec::Vec::from([#(#arg_names),*]),
            ::std::vec::Vec::from([#(#nodes),*]),
        );
        #rt::tool(
            #rt::ToolSpec { name: #name, title: #title, description: #description, annotations: #annotations },
            #rt::input_schema(::std::vec::Vec::from([#(#fields),*])),
            #output_schema,
            __graph,
            |__args: &#rt::JsonObject| {
                #(#parsed)*
                ::core::result::Result::Ok((#(#arg_idents,)*))
            },
            #body,
        )
    })
}

/// An argument written `Option<T>` is optional in the input schema.
fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

fn opt_str(s: Option<String>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn annotations(tool: &ToolFn) -> TokenStream {
    let a = &tool.args;
    let flags = [
        (a.read_only.is_present(), quote!(read_only_hint)),
        (a.destructive.is_present(), quote!(destructive_hint)),
        (a.idempotent.is_present(), quote!(idempotent_hint)),
        (a.open_world.is_present(), quote!(open_world_hint)),
    ];
    if flags.iter().all(|(on, _)| !on) {
        return quote!(::core::option::Option::None);
    }
    let set = flags.iter().filter(|(on, _)| *on).map(|(_, f)| quote!(#f: ::core::option::Option::Some(true),));
    quote!(::core::option::Option::Some(::roundtrip::protocol::ToolAnnotations {
        #(#set)*
        ..::core::default::Default::default()
    }))
}

fn template(t: &Template, rt: &TokenStream) -> TokenStream {
    let parts = t.pieces.iter().map(|p| match p {
        Piece::Lit(l) => quote!(#rt::Part::Lit(#l)),
        Piece::Ref(r) => quote!(#rt::Part::Ref(#r)),
    });
    quote!(#rt::Template(&[#(#parts),*]))
}

fn node(p: &Param, rt: &TokenStream) -> Option<TokenStream> {
    let Role::Resolved(r) = &p.role else { return None };
    let key = p.ident.to_string();
    let ty = r.value_type(&p.ty);
    let ty_span = ty.span();
    let ty_text = quote!(#ty).to_string();
    let (resolver, pin_parts): (TokenStream, Vec<String>) = match &r.kind {
        Kind::Elicit { message } => {
            let m = template(message, rt);
            let bound = quote_spanned!(ty_span=> <#ty as ::roundtrip::Elicit>::SINGLE);
            (
                quote!(#rt::Resolver::Elicit {
                    message: #m,
                    schema: #rt::elicit_schema::<#ty>(#key),
                    property: if #bound { ::core::option::Option::Some(#key) } else { ::core::option::Option::None },
                }),
                vec![message.lit.value()],
            )
        }
        Kind::ElicitUrl { url, message } => {
            let (u, m) = (template(url, rt), template(message, rt));
            let check = quote_spanned!(ty_span=> #rt::assert_url::<#ty>(););
            (
                quote!({ #check #rt::Resolver::ElicitUrl { url: #u, message: #m } }),
                vec![url.lit.value(), message.lit.value()],
            )
        }
        Kind::Sample { prompt, max_tokens } => {
            let pr = template(prompt, rt);
            let full = quote_spanned!(ty_span=> <#ty as ::roundtrip::SampleOutput>::FULL);
            (
                quote!(#rt::Resolver::Sample { prompt: #pr, max_tokens: #max_tokens, full: #full }),
                vec![prompt.lit.value(), max_tokens.to_string()],
            )
        }
        Kind::Roots => {
            let check = quote_spanned!(ty_span=> #rt::assert_roots::<#ty>(););
            (quote!({ #check #rt::Resolver::Roots }), vec![])
        }
        Kind::With { func, args } => {
            let names = args.iter().map(|a| a.to_string());
            let func_text = quote!(#func).to_string();
            let decode = args.iter().map(|a| {
                let key = a.to_string();
                quote!(let #a = #rt::from_json(#key, __inputs.next().unwrap_or_default())?;)
            });
            (
                quote!(#rt::Resolver::With {
                    args: &[#(#names),*],
                    f: #rt::with_fn(|__inputs: ::std::vec::Vec<#rt::serde_json::Value>| async move {
                        let mut __inputs = __inputs.into_iter();
                        #(#decode)*
                        #rt::into_resolution::<#ty>(#func(#(#args),*).await)
                    }),
                }),
                vec![func_text],
            )
        }
    };
    let mut parts: Vec<&str> = vec![r.kind.word(), &key, &ty_text];
    parts.extend(pin_parts.iter().map(String::as_str));
    let pin = docs::digest(&parts);
    let refusable = r.answer_of.is_some();
    Some(quote!(#rt::Node {
        name: #key,
        resolver: #resolver,
        refusable: #refusable,
        check: #rt::check::<#ty>,
        static_pin: #pin,
    }))
}
