//! The code a `#[tool]` becomes: the user's fn (attributes stripped) and a hidden factory
//! type whose `def()` builds the descriptor (schemas, the graph as data, pins) and a thin
//! adapter that extracts the values and calls the fn. Every path is fully qualified.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::docs;
use crate::model::{Call, Declared, Kind, Options, Param, Role, Template, Which};
use crate::template::Piece;

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

/// The factory trait and the definition type of each kind.
fn factory_trait(which: Which) -> (TokenStream, TokenStream) {
    match which {
        Which::Tool => (quote!(::roundtrip::ToolFactory), quote!(::roundtrip::server::ToolDef)),
        Which::Prompt => (quote!(::roundtrip::PromptFactory), quote!(::roundtrip::server::PromptDef)),
        Which::ResourceTemplate | Which::Resource | Which::View => {
            (quote!(::roundtrip::ResourceFactory), quote!(::roundtrip::server::ResourceEntry))
        }
    }
}

/// A declared free fn: the fn as written (attributes stripped) and its hidden factory.
pub fn item(decl: &Declared) -> TokenStream {
    let item = &decl.item;
    let vis = &item.vis;
    let factory = factory_ident(decl.which, &item.sig.ident);
    let (factory_trait, def_type) = factory_trait(decl.which);
    let name = &decl.name;
    let definition = definition(decl, false);
    if let (Which::View, Some(uri)) = (decl.which, decl.options.uri()) {
        return crate::view::view_factory(item, vis, &factory, name, uri, definition);
    }
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
/// definitions bound to one shared value), and `roundtrip::Toolset`, which registers them all.
pub fn toolset(item: &syn::ItemImpl, declared: &[Declared]) -> TokenStream {
    let self_ty = &item.self_ty;
    let collect = |kinds: &[Which]| {
        let definitions: Vec<TokenStream> = declared
            .iter()
            .filter(|d| kinds.contains(&d.which))
            .map(|d| {
                let definition = definition(d, true);
                quote!({ let __this = ::std::sync::Arc::clone(&self); #definition })
            })
            .collect();
        definitions
    };
    let tools = collect(&[Which::Tool]);
    let prompts = collect(&[Which::Prompt]);
    let resources = collect(&[Which::Resource, Which::ResourceTemplate]);
    let list = |name: TokenStream, def: TokenStream, items: &[TokenStream], what: &str| {
        let doc = format!("The {what} of this impl block, each calling its method on this shared value.");
        (!items.is_empty()).then(|| {
            quote! {
                #[doc = #doc]
                pub fn #name(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<#def> {
                    ::std::vec::Vec::from([#(#items),*])
                }
            }
        })
    };
    let tools_fn = list(quote!(tools), quote!(::roundtrip::server::ToolDef), &tools, "tools");
    let prompts_fn = list(quote!(prompts), quote!(::roundtrip::server::PromptDef), &prompts, "prompts");
    let resources_fn =
        list(quote!(resources), quote!(::roundtrip::server::ResourceEntry), &resources, "resources and templates");
    let register = |name: TokenStream, method: TokenStream, present: bool| {
        present.then(|| quote!(let server = server.#method(::std::sync::Arc::clone(&self).#name());))
    };
    let registers = [
        register(quote!(tools), quote!(tools), !tools.is_empty()),
        register(quote!(prompts), quote!(prompts), !prompts.is_empty()),
        register(quote!(resources), quote!(resources), !resources.is_empty()),
    ];
    quote! {
        #item

        impl #self_ty {
            #tools_fn
            #prompts_fn
            #resources_fn
        }

        impl ::roundtrip::Toolset for #self_ty {
            fn register(self: ::std::sync::Arc<Self>, server: ::roundtrip::Server) -> ::roundtrip::Server {
                let server = server.state(::std::sync::Arc::clone(&self));
                #(#registers)*
                server
            }
        }
    }
}

/// A block that evaluates to the item's definition. For a method, `__this: Arc<Self>` is in
/// scope and the body calls the method on it.
fn definition(decl: &Declared, method: bool) -> TokenStream {
    let item = &decl.item;
    let which = decl.which;
    let fn_ident = &item.sig.ident;
    let name = &decl.name;
    let rt = quote!(::roundtrip::__private);

    let arguments: Vec<&Param> =
        decl.params.iter().filter(|p| matches!(p.role, Role::Argument | Role::Flattened)).collect();
    let arg_names: Vec<String> =
        arguments.iter().filter(|p| matches!(p.role, Role::Argument)).map(|p| p.wire.clone()).collect();
    let fields: Vec<TokenStream> = arguments
        .iter()
        .map(|p| {
            let (key, ty) = (&p.wire, &p.ty);
            let schema = quote_spanned!(ty.span()=> #rt::argument_schema::<#ty>());
            let description = opt_str(p.doc.clone());
            let required = !is_option(ty);
            let flatten = matches!(p.role, Role::Flattened);
            quote!(#rt::Field { name: #key, schema: #schema, description: #description, required: #required, flatten: #flatten })
        })
        .collect();
    let text_asserts = arguments.iter().filter(|_| which != Which::Tool).map(|p| {
        let ty = &p.ty;
        quote_spanned!(ty.span()=> ::roundtrip::__private::assert_text_argument::<#ty>();)
    });
    let parsed = arguments.iter().map(|p| {
        let (ident, key, ty) = (&p.ident, &p.wire, &p.ty);
        if matches!(p.role, Role::Flattened) {
            let parse = quote_spanned!(ty.span()=> #rt::flattened::<#ty>);
            return quote!(let #ident = #parse(#name, __args)?;);
        }
        let parse = quote_spanned!(ty.span()=> #rt::argument::<#ty>);
        quote!(let #ident = #parse(#name, __args, #key)?;)
    });
    let arg_idents: Vec<&syn::Ident> = arguments.iter().map(|p| &p.ident).collect();

    // The graph knows arguments by their wire names; placeholders name Rust parameters.
    let wire_of = |name: &str| -> String {
        decl.params.iter().find(|p| p.ident == name).map_or_else(|| name.to_owned(), |p| p.wire.clone())
    };
    let nodes: Vec<TokenStream> = decl.params.iter().filter_map(|p| node(decl, p, &rt, &wire_of)).collect();
    let checks: Vec<TokenStream> = decl.checks.iter().map(|c| check(decl, c, &rt, &wire_of)).collect();
    let takes = decl.params.iter().filter_map(|p| {
        let Role::Resolved(r) = &p.role else { return None };
        let (ident, ty, key) = (&p.ident, &p.ty, p.ident.to_string());
        let method = if r.answer_of.is_some() { quote!(answer) } else { quote!(take) };
        let inner = r.value_type(ty);
        Some(quote!(let #ident: #ty = __values.#method::<#inner>(#key)?;))
    });
    let states = decl.params.iter().filter(|p| matches!(p.role, Role::State)).map(|p| {
        let (ident, ty) = (&p.ident, &p.ty);
        quote!(let #ident: #ty = #rt::state_param::<#ty>(&__cx)?;)
    });
    let needs: Vec<TokenStream> = decl
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::State))
        .map(|p| {
            let ty = &p.ty;
            quote!(.needs(#rt::state_need::<#ty>()))
        })
        .collect();
    let call_args = decl.params.iter().map(|p| {
        let ident = &p.ident;
        match p.role {
            Role::Argument | Role::Flattened | Role::Resolved(_) | Role::State => quote!(#ident),
            Role::Context if matches!(p.ty, syn::Type::Reference(_)) => quote!(&__cx),
            Role::Context => quote!(__cx),
            Role::Task if matches!(p.ty, syn::Type::Reference(_)) => quote!(&__task),
            Role::Task => quote!(__task),
        }
    });
    let awaited = item.sig.asyncness.map(|_| quote!(.await));
    let task_binding = decl
        .params
        .iter()
        .any(|p| matches!(p.role, Role::Task))
        .then(|| quote!(let __task = ::roundtrip::task::TaskContext::from(__cx);));
    // A free fn is bound to `__fn` before any parameter is: a parameter may share its name.
    let call = if method {
        quote!(__this.#fn_ident(#(#call_args),*) #awaited)
    } else {
        quote!(__fn(#(#call_args),*) #awaited)
    };
    let bind_fn = (!method).then(|| quote!(let __fn = #fn_ident;));
    let ret = match &item.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let ret_span = match &item.sig.output {
        syn::ReturnType::Default => item.sig.ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    let resolves = decl.params.iter().any(|p| matches!(p.role, Role::Resolved(_)));
    // Spanned at the return type, so that a type that cannot be returned is reported there.
    // A declared fn asks for its return type's implementation once (`RETURNS`), so that a type
    // that cannot be returned is one error.
    let (ret_trait, ret_kind) = match which {
        Which::Tool => (quote!(ToolReturn), quote!(Returns)),
        Which::Prompt => (quote!(PromptReturn), quote!(PromptReturns)),
        Which::ResourceTemplate | Which::Resource | Which::View => (quote!(ResourceReturn), quote!(ResourceReturns)),
    };
    let returns = quote_spanned!(ret_span=>
        const __RETURNS: ::roundtrip::__private::#ret_kind<#ret> = <#ret as ::roundtrip::#ret_trait>::RETURNS;
    );
    let outcome = quote!((__RETURNS.outcome));
    let may_ask_assert = resolves.then(|| {
        quote_spanned!(ret_span=>
            const _: () = ::roundtrip::__private::refuse_manual_form(__RETURNS.may_ask);
        )
    });
    let title = opt_str(decl.options.title());
    let description = opt_str(decl.description.clone());
    let uses_cx = decl.params.iter().any(|p| p.role.is_given());
    let is_resource = matches!(which, Which::ResourceTemplate | Which::Resource | Which::View);
    let cx_binding = if uses_cx || is_resource { quote!(__cx) } else { quote!(_) };
    let arguments_binding = quote!((#(#arg_idents,)*));
    let values_binding = if resolves { quote!(mut __values) } else { quote!(_) };
    let result = match &decl.options {
        Options::Resource { args, .. } => {
            let mime = opt_str(args.mime_type.as_ref().map(syn::LitStr::value));
            quote!(#outcome(#call, &__uri, #mime))
        }
        // The view's definition gives its contents their MIME type.
        Options::View { .. } => quote!(#outcome(#call, &__uri, ::core::option::Option::None)),
        _ => quote!(#outcome(#call)),
    };
    let remember_uri = is_resource.then(|| quote!(let __uri = ::std::string::String::from(__cx.target());));
    let this = method.then(|| quote!(let __this = ::std::sync::Arc::clone(&__this);));
    let body = if which.is_static_resource() {
        quote!(move |#cx_binding: ::roundtrip::server::RequestContext| {
            #this
            async move {
                #remember_uri
                #(#states)*
                #result
            }
        })
    } else {
        quote!(move |#arguments_binding, #values_binding: #rt::Values, #cx_binding: ::roundtrip::server::RequestContext| {
            #this
            async move {
                #remember_uri
                #(#states)*
                #(#takes)*
                #task_binding
                #result
            }
        })
    };
    let graph = quote! {
        let __graph = #rt::graph(
            ::std::vec::Vec::from([#(#arg_names),*]),
            ::std::vec::Vec::from([#(#nodes),*]),
            ::std::vec::Vec::from([#(#checks),*]),
        );
    };
    let parse = quote! {
        |__args: &#rt::JsonObject| {
            #(#parsed)*
            ::core::result::Result::Ok((#(#arg_idents,)*))
        }
    };
    let builder = match &decl.options {
        Options::Tool(args) => {
            let annotations = annotations(decl);
            let single_use = if args.single_use.is_present() {
                Some(quote!(.single_use()))
            } else {
                args.replayable.is_present().then(|| quote!(.replayable()))
            };
            let scopes = &decl.scopes;
            let scopes = (!scopes.is_empty()).then(|| quote!(.scopes([#(#scopes),*])));
            let apps = crate::view::tool_calls(decl.ui.as_ref(), decl.visibility.as_deref());
            let task = match &args.task {
                None => quote!(::roundtrip::protocol::TaskSupport::Forbidden),
                Some(t) if t.required => quote!(::roundtrip::protocol::TaskSupport::Required),
                Some(_) => quote!(::roundtrip::protocol::TaskSupport::Optional),
            };
            let output_schema = quote!((__RETURNS.output_schema)());
            quote! {
                #graph
                #rt::tool(
                    #rt::ToolSpec { name: #name, title: #title, description: #description, annotations: #annotations, task: #task },
                    #rt::input_schema(::std::vec::Vec::from([#(#fields),*])),
                    #output_schema,
                    __graph,
                    #parse,
                    #body,
                )
                #single_use
                #scopes
                #apps
            }
        }
        Options::Prompt(args) => {
            let complete = args.complete.as_ref().map(|f| quote!(.with_completer(#f)));
            quote! {
                #graph
                #rt::prompt(
                    #rt::ToolSpec { name: #name, title: #title, description: #description, annotations: ::core::option::Option::None, task: ::roundtrip::protocol::TaskSupport::Forbidden },
                    ::std::vec::Vec::from([#(#fields),*]),
                    __graph,
                    #parse,
                    #body,
                )
                #complete
            }
        }
        Options::View { uri, .. } => {
            let view = decl
                .view
                .as_ref()
                .map(|v| crate::view::spec(uri, name, decl.options.title(), decl.description.clone(), v));
            quote!(#rt::view(#view, ::std::vec::Vec::from([#(#checks),*]), #body))
        }
        Options::Resource { uri, args } => {
            let mime = opt_str(args.mime_type.as_ref().map(syn::LitStr::value));
            let spec = quote!(#rt::ResourceSpec { uri: #uri, name: #name, title: #title, description: #description, mime_type: #mime });
            if which == Which::Resource {
                quote!(#rt::resource(#spec, ::std::vec::Vec::from([#(#checks),*]), #body))
            } else {
                let complete = args.complete.as_ref().map(|f| quote!(.with_completer(#f)));
                quote! {
                    #graph
                    #rt::resource_template(#spec, __graph, #parse, #body) #complete
                }
            }
        }
    };
    let meta = decl.options.meta().map(|m| quote!(.meta(#rt::meta_object(#m))));
    // A fn that takes no request context cannot log.
    let silent = (!uses_cx).then(|| quote!(.silent()));
    quote!({
        #returns
        #may_ask_assert
        #[allow(unused)]
        fn __assert() {
            #(#text_asserts)*
        }
        #bind_fn
        #builder #(#needs)* #meta #silent
    })
}

/// The statements that bind a call's arguments inside its adapter: values decoded from
/// `__inputs` (in order), state and the context from `__cx`.
fn bind_call_args(decl: &Declared, call: &Call, rt: &TokenStream) -> Vec<TokenStream> {
    call.args
        .iter()
        .map(|a| {
            let key = a.to_string();
            match decl.params.iter().find(|p| p.ident == *a).map(|p| (&p.role, &p.ty)) {
                Some((Role::Context | Role::Task, _)) => quote!(let #a = __cx;),
                Some((Role::State, ty)) => quote!(let #a: #ty = #rt::state_param::<#ty>(__cx)?;),
                // Held by the call's future, so that a fn may borrow from it (`&str`).
                _ => {
                    let held = quote::format_ident!("__{}_json", a);
                    quote! {
                        let #held: #rt::serde_json::Value = __inputs.next().unwrap_or_default();
                        let #a = #rt::from_arg(#key, &#held)?;
                    }
                }
            }
        })
        .collect()
}

/// The names of a call's value arguments (not state or the context), on the wire.
fn call_inputs(decl: &Declared, call: &Call, wire_of: &dyn Fn(&str) -> String) -> Vec<String> {
    call.args
        .iter()
        .filter(|a| !decl.params.iter().any(|p| p.ident == **a && p.role.is_given()))
        .map(|a| wire_of(&a.to_string()))
        .collect()
}

/// The callee of a call: the fn, or for `self.f(…)` the method on the shared value.
fn callee(call: &Call) -> TokenStream {
    let func = &call.func;
    if call.method { quote!(__this.#func) } else { quote!(#func) }
}

/// A clone of the shared value for a closure that calls a method on it.
fn clone_this(call: &Call) -> Option<TokenStream> {
    call.method.then(|| quote!(let __this = ::std::sync::Arc::clone(&__this);))
}

/// The value a `check` or `with` fn's call gives, awaited when the fn is async and taken as
/// it is when it is not (a sync fn is as welcome as an async one). The call is settled in a
/// statement of its own, so that nothing borrowed by the choice lives across the `.await`.
fn settled(call: &Call, callee: &TokenStream, rt: &TokenStream) -> TokenStream {
    let args = &call.args;
    quote_spanned!(call.span=> {
        #[allow(unused_imports)]
        use #rt::{CalledAsync as _, CalledSync as _};
        let __settled = (&#rt::Called::new(#callee(#(#args),*))).settle();
        __settled.await
    })
}

/// A `check = f(a)` of the declaration.
fn check(decl: &Declared, call: &Call, rt: &TokenStream, wire_of: &dyn Fn(&str) -> String) -> TokenStream {
    let names = call_inputs(decl, call, wire_of);
    let bind = bind_call_args(decl, call, rt);
    let (text, callee, this) = (&call.text, callee(call), clone_this(call));
    let into = quote_spanned!(call.span=> #rt::into_check);
    let awaited = settled(call, &callee, rt);
    quote!(#rt::Check {
        call: #text,
        args: &[#(#names),*],
        f: {
            #this
            #rt::check_fn(move |__inputs: ::std::vec::Vec<#rt::serde_json::Value>, __cx: &::roundtrip::server::RequestContext| {
                #this
                #rt::Box::pin(async move {
                    let mut __inputs = __inputs.into_iter();
                    #(#bind)*
                    #into(#awaited)
                })
            })
        },
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

fn annotations(decl: &Declared) -> TokenStream {
    let Options::Tool(a) = &decl.options else { return quote!(::core::option::Option::None) };
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

fn template(t: &Template, rt: &TokenStream, wire_of: &dyn Fn(&str) -> String) -> TokenStream {
    let parts = t.pieces.iter().map(|p| match p {
        Piece::Lit(l) => quote!(#rt::Part::Lit(#l)),
        Piece::Ref(r) => {
            let r = wire_of(r);
            quote!(#rt::Part::Ref(#r))
        }
    });
    quote!(#rt::Template(&[#(#parts),*]))
}

fn node(decl: &Declared, p: &Param, rt: &TokenStream, wire_of: &dyn Fn(&str) -> String) -> Option<TokenStream> {
    let Role::Resolved(r) = &p.role else { return None };
    let key = p.ident.to_string();
    let ty = r.value_type(&p.ty);
    let ty_span = ty.span();
    let ty_text = quote!(#ty).to_string();
    let (resolver, pin_parts): (TokenStream, Vec<String>) = match &r.kind {
        Kind::Elicit { message } => {
            let m = template(message, rt, wire_of);
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
            let (u, m) = (template(url, rt, wire_of), template(message, rt, wire_of));
            let check = quote_spanned!(ty_span=> #rt::assert_url::<#ty>(););
            (
                quote!({ #check #rt::Resolver::ElicitUrl { url: #u, message: #m } }),
                vec![url.lit.value(), message.lit.value()],
            )
        }
        Kind::Sample { prompt, max_tokens, options } => {
            let pr = template(prompt, rt, wire_of);
            let full = quote_spanned!(ty_span=> <#ty as ::roundtrip::SampleOutput>::FULL);
            let opt_f64 = |v: Option<f64>| match v {
                Some(v) => quote!(::core::option::Option::Some(#v)),
                None => quote!(::core::option::Option::None),
            };
            let system = opt_str(options.system.clone());
            let temperature = opt_f64(options.temperature);
            let (cost, speed, intelligence) = (
                opt_f64(options.cost_priority),
                opt_f64(options.speed_priority),
                opt_f64(options.intelligence_priority),
            );
            let include = opt_str(options.include_context.clone());
            let (stop, hints) = (&options.stop, &options.model_hints);
            let mut pin = vec![prompt.lit.value(), max_tokens.to_string()];
            pin.extend(options.system.clone());
            pin.extend(options.temperature.map(|t| t.to_string()));
            pin.extend(options.stop.iter().cloned());
            (
                quote!(#rt::Resolver::Sample {
                    prompt: #pr,
                    max_tokens: #max_tokens,
                    full: #full,
                    options: #rt::SampleOptions {
                        system_prompt: #system,
                        temperature: #temperature,
                        stop_sequences: &[#(#stop),*],
                        model_hints: &[#(#hints),*],
                        cost_priority: #cost,
                        speed_priority: #speed,
                        intelligence_priority: #intelligence,
                        include_context: #include,
                    },
                }),
                pin,
            )
        }
        Kind::Roots => {
            let check = quote_spanned!(ty_span=> #rt::assert_roots::<#ty>(););
            (quote!({ #check #rt::Resolver::Roots }), vec![])
        }
        Kind::With { call } => {
            let names = call_inputs(decl, call, wire_of);
            let bind = bind_call_args(decl, call, rt);
            let (text, callee, this) = (&call.text, callee(call), clone_this(call));
            let into = quote_spanned!(call.span=> #rt::into_resolution::<#ty>);
            let awaited = settled(call, &callee, rt);
            (
                quote!(#rt::Resolver::With {
                    call: #text,
                    args: &[#(#names),*],
                    f: {
                        #this
                        #rt::with_fn(move |__inputs: ::std::vec::Vec<#rt::serde_json::Value>, __cx: &::roundtrip::server::RequestContext| {
                            #this
                            #rt::Box::pin(async move {
                                let mut __inputs = __inputs.into_iter();
                                #(#bind)*
                                #into(#awaited)
                            })
                        })
                    },
                    value_schema: {
                        #[allow(unused_imports)]
                        use #rt::{HasSchema as _, NoSchema as _};
                        (&#rt::ValueSchema::<#ty>::new()).value_schema()
                    },
                }),
                vec![call.text.clone()],
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
