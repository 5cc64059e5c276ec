//! The definition of a declared fn: one function per kind, each put together from the named
//! steps below (the return type's implementation, the input schema, the parser of the
//! arguments, the adapter that calls the fn, the graph).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::graph::{checks, graph};
use super::{Cx, Paths, opt_str, respan};
use crate::model::{
    Annotations, Declaration, Declared, Param, Prompt, Resource, Role, TaskSupport, Tool, ViewFn, When,
};

/// A block that evaluates to the item's definition. For a method, `__this: Arc<Self>` is in
/// scope and the body calls the method on it.
pub(super) fn definition(decl: &Declared, method: bool, paths: &Paths) -> TokenStream {
    let cx = Cx { decl, method, root: &paths.root, rt: &paths.rt };
    let builder = match &decl.declaration {
        Declaration::Tool(t) => tool(&cx, t),
        Declaration::Prompt(p) => prompt(&cx, p),
        Declaration::ResourceTemplate(r) => resource_template(&cx, r),
        Declaration::Resource(r) => resource(&cx, r),
        Declaration::View(v) => view(&cx, v),
    };
    let returns = returns(&cx);
    let text_asserts = text_asserts(&cx);
    // A free fn is bound to `__fn` before any parameter is: a parameter may share its name.
    let bind_fn = (!method).then(|| {
        let fn_ident = &decl.item.sig.ident;
        quote!(let __fn = #fn_ident;)
    });
    let meta = decl.common.meta.as_ref().map(|m| {
        let rt = cx.rt;
        quote!(.meta(#rt::meta_object(#m)))
    });
    let built = needs_and_silence(&cx, quote!(#builder #meta));
    let asserts = asserts(&cx);
    // The role of a type only the compiler knows is asked of `Role<T>`, whose fallback is
    // this trait's.
    let plain = (has_plain(decl) || !decl.asserts.is_empty()).then(|| {
        let rt = cx.rt;
        quote!(#[allow(unused_imports)] use #rt::Plain as _;)
    });
    quote!({
        #plain
        #returns
        #(#asserts)*
        #[allow(unused)]
        fn __assert() {
            #(#text_asserts)*
        }
        #bind_fn
        #built
    })
}

/// Whether a parameter's role is left to the compiler.
fn has_plain(decl: &Declared) -> bool {
    decl.params.iter().any(|p| matches!(p.role, Role::Plain))
}

/// `<root::__private::Role<T>>`: what the compiler says `T` is.
pub(super) fn role_of(rt: &TokenStream, ty: &syn::Type) -> TokenStream {
    quote!(<#rt::Role<#ty>>)
}

/// The rules only the compiler can check, each a `const` that fails at the token to change.
fn asserts(cx: &Cx<'_>) -> Vec<TokenStream> {
    let rt = cx.rt;
    cx.decl
        .asserts
        .iter()
        .map(|a| {
            let cond = match &a.when {
                When::Given(t) => {
                    let r = role_of(rt, t);
                    quote!(#r::GIVEN)
                }
                When::Argument(t) => {
                    let r = role_of(rt, t);
                    quote!(#r::ARGUMENT)
                }
                When::State(t) => {
                    let r = role_of(rt, t);
                    quote!(#r::STATE)
                }
                When::Context(t) => {
                    let r = role_of(rt, t);
                    quote!(#r::CONTEXT)
                }
                When::Task(t) => {
                    let r = role_of(rt, t);
                    quote!(#r::TASK)
                }
                When::SecondContext(t, before) => {
                    let r = role_of(rt, t);
                    let before = before.iter().map(|b| {
                        let r = role_of(rt, b);
                        quote!(#r::CONTEXT)
                    });
                    quote!(#r::CONTEXT && (#(#before)||*))
                }
            };
            // The message is a format string: its braces are literal.
            let message = a.message.replace('{', "{{").replace('}', "}}");
            quote_spanned!(a.span=> const _: () = if #cond { ::core::panic!(#message) };)
        })
        .collect()
}

/// The definition with the state it needs registered and, when it takes nothing the server
/// gives, `.silent()` (a fn that takes no request context cannot log). For a type only the
/// compiler knows, both are asked of its role.
fn needs_and_silence(cx: &Cx<'_>, def: TokenStream) -> TokenStream {
    let rt = cx.rt;
    let borrows = cx.decl.params.iter().any(|p| matches!(p.role, Role::Borrowed(_)));
    let plain: Vec<&syn::Type> =
        cx.decl.params.iter().filter(|p| matches!(p.role, Role::Plain)).map(|p| &p.ty).collect();
    if plain.is_empty() {
        let silent = (!borrows).then(|| quote!(.silent()));
        return quote!(#def #silent);
    }
    let needs = plain.iter().map(|ty| {
        quote!(let __def = match #rt::Role::<#ty>::new().need() {
            ::core::option::Option::Some(__need) => __def.needs(__need),
            ::core::option::Option::None => __def,
        };)
    });
    let out = if borrows {
        quote!(__def)
    } else {
        let given = plain.iter().map(|ty| {
            let r = role_of(rt, ty);
            quote!(#r::GIVEN)
        });
        quote!(if #(#given)||* { __def } else { __def.silent() })
    };
    quote!({
        let __def = { #def };
        #(#needs)*
        #out
    })
}

fn tool(cx: &Cx<'_>, tool: &Tool) -> TokenStream {
    let (root, rt) = (cx.root, cx.rt);
    let task = match tool.task {
        TaskSupport::Forbidden => quote!(#root::protocol::TaskSupport::Forbidden),
        TaskSupport::Optional => quote!(#root::protocol::TaskSupport::Optional),
        TaskSupport::Required => quote!(#root::protocol::TaskSupport::Required),
    };
    let spec = spec(cx, annotations(&tool.annotations, root), task);
    let (fields, graph, parse, body) = (fields(cx), graph(cx), parse(cx), body(cx, outcome(cx)));
    let single_use = if tool.single_use.is_some() {
        Some(quote!(.single_use()))
    } else {
        tool.replayable.is_some().then(|| quote!(.replayable()))
    };
    let scopes = &tool.scopes;
    let scopes = (!scopes.is_empty()).then(|| quote!(.scopes([#(#scopes),*])));
    let apps = crate::view::tool_calls(tool.ui.as_ref(), tool.visibility.as_deref(), root);
    quote! {
        #graph
        #rt::tool(
            #spec,
            #rt::input_schema(#fields),
            (__RETURNS.output_schema)(),
            __graph,
            #parse,
            #body,
        )
        #single_use
        #scopes
        #apps
    }
}

fn prompt(cx: &Cx<'_>, prompt: &Prompt) -> TokenStream {
    let (root, rt) = (cx.root, cx.rt);
    let none = quote!(::core::option::Option::None);
    let spec = spec(cx, none, quote!(#root::protocol::TaskSupport::Forbidden));
    let (fields, graph, parse, body) = (fields(cx), graph(cx), parse(cx), body(cx, outcome(cx)));
    let complete = prompt.complete.as_ref().map(|f| quote!(.with_completer(#f)));
    quote! {
        #graph
        #rt::prompt(
            #spec,
            #fields,
            __graph,
            #parse,
            #body,
        )
        #complete
    }
}

fn resource_template(cx: &Cx<'_>, template: &Resource) -> TokenStream {
    let rt = cx.rt;
    let spec = resource_spec(cx, template);
    let (graph, parse) = (graph(cx), parse(cx));
    let body = body(cx, resource_outcome(cx, opt_str(template.mime_type.as_deref())));
    let complete = template.complete.as_ref().map(|f| quote!(.with_completer(#f)));
    quote! {
        #graph
        #rt::resource_template(#spec, __graph, #parse, #body) #complete
    }
}

fn resource(cx: &Cx<'_>, resource: &Resource) -> TokenStream {
    let rt = cx.rt;
    let spec = resource_spec(cx, resource);
    let checks = checks(cx);
    let body = static_body(cx, resource_outcome(cx, opt_str(resource.mime_type.as_deref())));
    quote!(#rt::resource(#spec, ::std::vec::Vec::from([#(#checks),*]), #body))
}

/// A view's contents get their MIME type from its definition.
fn view(cx: &Cx<'_>, view: &ViewFn) -> TokenStream {
    let (rt, common) = (cx.rt, &cx.decl.common);
    let spec = crate::view::spec(
        &view.uri,
        &common.name,
        common.title.as_deref(),
        common.description.as_deref(),
        &view.view,
        rt,
    );
    let checks = checks(cx);
    let body = static_body(cx, resource_outcome(cx, quote!(::core::option::Option::None)));
    quote!(#rt::view(#spec, ::std::vec::Vec::from([#(#checks),*]), #body))
}

/// The `ToolSpec` of a tool or a prompt.
fn spec(cx: &Cx<'_>, annotations: TokenStream, task: TokenStream) -> TokenStream {
    let (rt, common) = (cx.rt, &cx.decl.common);
    let name = &common.name;
    let (title, description) = (opt_str(common.title.as_deref()), opt_str(common.description.as_deref()));
    quote!(#rt::ToolSpec { name: #name, title: #title, description: #description, annotations: #annotations, task: #task })
}

/// The `ResourceSpec` of a resource or a template.
fn resource_spec(cx: &Cx<'_>, resource: &Resource) -> TokenStream {
    let (rt, common) = (cx.rt, &cx.decl.common);
    let (uri, name) = (&resource.uri, &common.name);
    let (title, description) = (opt_str(common.title.as_deref()), opt_str(common.description.as_deref()));
    let mime = opt_str(resource.mime_type.as_deref());
    quote!(#rt::ResourceSpec { uri: #uri, name: #name, title: #title, description: #description, mime_type: #mime })
}

fn annotations(a: &Annotations, root: &TokenStream) -> TokenStream {
    let flags = [
        (a.read_only, quote!(with_read_only_hint)),
        (a.destructive, quote!(with_destructive_hint)),
        (a.idempotent, quote!(with_idempotent_hint)),
        (a.open_world, quote!(with_open_world_hint)),
    ];
    if flags.iter().all(|(on, _)| !on) {
        return quote!(::core::option::Option::None);
    }
    let set = flags.iter().filter(|(on, _)| *on).map(|(_, with)| quote!(.#with(true)));
    quote!(::core::option::Option::Some(
        <#root::protocol::ToolAnnotations as ::core::default::Default>::default() #(#set)*
    ))
}

/// The parameters the client may send: arguments, flattened structs of them, and the types
/// only the compiler knows (an argument, or given by the server).
fn arguments<'a>(cx: &Cx<'a>) -> impl Iterator<Item = &'a Param> + Clone {
    cx.decl.params.iter().filter(|p| matches!(p.role, Role::Argument | Role::Flattened | Role::Plain))
}

/// The fields of the input schema (a tool's) or of the argument list (a prompt's): a
/// `Vec<Field>`. A type only the compiler knows has a field if it is an argument.
fn fields(cx: &Cx<'_>) -> TokenStream {
    let rt = cx.rt;
    let plain = has_plain(cx.decl);
    let fields = arguments(cx).map(|p| {
        let (key, ty) = (&p.wire, &p.ty);
        let description = opt_str(p.doc.as_deref());
        let required = !is_option(ty);
        if matches!(p.role, Role::Plain) {
            return quote_spanned!(ty.span()=> #rt::Role::<#ty>::new().field(#key, #description, #required));
        }
        let schema = quote_spanned!(ty.span()=> #rt::argument_schema::<#ty>());
        let flatten = matches!(p.role, Role::Flattened);
        let field = quote!(#rt::Field { name: #key, schema: #schema, description: #description, required: #required, flatten: #flatten });
        if plain { quote!(::core::option::Option::Some(#field)) } else { field }
    });
    // A question declared `or_argument` is an optional argument too, of its answer's type.
    let also_arguments = cx.decl.params.iter().filter_map(|p| match &p.role {
        Role::Resolved(r) if r.or_argument.is_some() => {
            let (key, ty) = (&p.wire, r.value_type(&p.ty));
            let description = opt_str(p.doc.as_deref());
            let schema = quote_spanned!(ty.span()=> #rt::argument_schema::<#ty>());
            let field = quote!(#rt::Field { name: #key, schema: #schema, description: #description, required: false, flatten: false });
            Some(if plain { quote!(::core::option::Option::Some(#field)) } else { field })
        }
        _ => None,
    });
    let fields = fields.chain(also_arguments);
    if plain {
        quote!(::std::vec::Vec::from([#(#fields),*]).into_iter().flatten().collect::<::std::vec::Vec<_>>())
    } else {
        quote!(::std::vec::Vec::from([#(#fields),*]))
    }
}

/// The arguments of a prompt or a template are text: each type is asserted to be.
fn text_asserts(cx: &Cx<'_>) -> Vec<TokenStream> {
    let root = cx.root;
    if matches!(cx.decl.declaration, Declaration::Tool(_)) {
        return Vec::new();
    }
    arguments(cx)
        .map(|p| {
            let ty = &p.ty;
            let root = respan(root, ty.span());
            if matches!(p.role, Role::Plain) {
                return quote_spanned!(ty.span()=> #root::__private::Role::<#ty>::new().assert_text(););
            }
            quote_spanned!(ty.span()=> #root::__private::assert_text_argument::<#ty>();)
        })
        .collect()
}

/// The closure that parses the arguments from the request's JSON object.
fn parse(cx: &Cx<'_>) -> TokenStream {
    let rt = cx.rt;
    let name = &cx.decl.common.name;
    let parsed = arguments(cx).map(|p| {
        let (ident, key, ty) = (&p.ident, &p.wire, &p.ty);
        if matches!(p.role, Role::Flattened) {
            let parse = quote_spanned!(ty.span()=> #rt::flattened::<#ty>);
            return quote!(let #ident = #parse(#name, __args)?;);
        }
        if matches!(p.role, Role::Plain) {
            let parse = quote_spanned!(ty.span()=> #rt::Role::<#ty>::new().parse);
            return quote!(let #ident = #parse(#name, __args, #key)?;);
        }
        let parse = quote_spanned!(ty.span()=> #rt::argument::<#ty>);
        quote!(let #ident = #parse(#name, __args, #key)?;)
    });
    let idents = arguments(cx).map(|p| &p.ident);
    quote! {
        |__args: &#rt::JsonObject| {
            #(#parsed)*
            ::core::result::Result::Ok((#(#idents,)*))
        }
    }
}

/// The adapter of a fn that takes arguments and may ask: it gets the parsed arguments, the
/// resolved values and the request, and gives `result`.
fn body(cx: &Cx<'_>, result: TokenStream) -> TokenStream {
    let (root, rt, params) = (cx.root, cx.rt, &cx.decl.params);
    let idents = arguments(cx).map(|p| &p.ident);
    let resolves = params.iter().any(|p| matches!(p.role, Role::Resolved(_)));
    let values = if resolves { quote!(mut __values) } else { quote!(_) };
    let takes = params.iter().filter_map(|p| {
        let Role::Resolved(r) = &p.role else { return None };
        let (ident, ty, key) = (&p.ident, &p.ty, p.ident.to_string());
        let method = if r.answer_of.is_some() { quote!(answer) } else { quote!(take) };
        let inner = r.value_type(ty);
        Some(quote!(let #ident: #ty = __values.#method::<#inner>(#key)?;))
    });
    let (cx_binding, this, uri, given) = (cx_binding(cx), this(cx), remember_uri(cx), given(cx, false));
    quote!(move |(#(#idents,)*), #values: #rt::Values, #cx_binding: #root::server::RequestContext| {
        #this
        async move {
            #uri
            #(#takes)*
            #given
            #result
        }
    })
}

/// The adapter of a static resource or a view: it gets only the request.
fn static_body(cx: &Cx<'_>, result: TokenStream) -> TokenStream {
    let root = cx.root;
    let (cx_binding, this, uri, given) = (cx_binding(cx), this(cx), remember_uri(cx), given(cx, true));
    quote!(move |#cx_binding: #root::server::RequestContext| {
        #this
        async move {
            #uri
            #given
            #result
        }
    })
}

/// The request's binding in an adapter: `__cx` where the fn or the resource's URI needs it.
fn cx_binding(cx: &Cx<'_>) -> TokenStream {
    if uses_cx(cx.decl) || cx.decl.declaration.uri().is_some() { quote!(__cx) } else { quote!(_) }
}

/// A clone of the shared value for the adapter of a method.
fn this(cx: &Cx<'_>) -> Option<TokenStream> {
    cx.method.then(|| quote!(let __this = ::std::sync::Arc::clone(&__this);))
}

/// A resource's adapter keeps the URI it was read at.
fn remember_uri(cx: &Cx<'_>) -> Option<TokenStream> {
    cx.decl.declaration.uri().map(|_| quote!(let __uri = ::std::string::String::from(__cx.target());))
}

/// The values the server gives, from the request: first what is read while it is borrowed
/// (state), then the context, which takes it. A type only the compiler knows is asked of its
/// role (an argument passes through); a borrowed context is held for the call to borrow.
/// `unparsed`: the adapter of a static resource or a view, which parses no arguments (a type
/// there that is an argument is refused at compile time).
fn given(cx: &Cx<'_>, unparsed: bool) -> TokenStream {
    let rt = cx.rt;
    let params = &cx.decl.params;
    let plain: Vec<&Param> = params.iter().filter(|p| matches!(p.role, Role::Plain)).collect();
    let borrowed: Vec<(&Param, &syn::Type)> =
        params.iter().filter_map(|p| if let Role::Borrowed(t) = &p.role { Some((p, &**t)) } else { None }).collect();
    if plain.is_empty() && borrowed.is_empty() {
        return TokenStream::new();
    }
    let absent = plain.iter().filter(|_| unparsed).map(|p| {
        let (ident, ty) = (&p.ident, &p.ty);
        quote!(let #ident = #rt::Role::<#ty>::new().absent()?;)
    });
    let ready = plain.iter().map(|p| {
        let (ident, ty) = (&p.ident, &p.ty);
        quote!(let #ident = #rt::Role::<#ty>::new().ready(#ident, &__cx)?;)
    });
    let finish = plain.iter().map(|p| {
        let (ident, ty) = (&p.ident, &p.ty);
        quote!(let #ident: #ty = #rt::Role::<#ty>::new().finish(#ident, &mut __slot)?;)
    });
    let held = borrowed.iter().map(|(p, ty)| {
        let held = held_ident(&p.ident);
        let take = quote_spanned!(ty.span()=> #rt::borrowed_context::<#ty>);
        quote!(let #held: #ty = #take(&mut __slot)?;)
    });
    quote! {
        #(#absent)*
        #(#ready)*
        let mut __slot = ::core::option::Option::Some(__cx);
        #(#finish)*
        #(#held)*
    }
}

/// The binding of a borrowed context's value, which the call borrows.
fn held_ident(ident: &syn::Ident) -> syn::Ident {
    quote::format_ident!("__{}_held", ident)
}

/// Whether the fn takes anything the server may give from the request.
fn uses_cx(decl: &Declared) -> bool {
    decl.params.iter().any(|p| matches!(p.role, Role::Plain | Role::Borrowed(_)))
}

/// The call of the fn (or, for a method, of the method on the shared value), awaited if async.
fn call(cx: &Cx<'_>) -> TokenStream {
    let sig = &cx.decl.item.sig;
    let args = cx.decl.params.iter().map(|p| {
        let ident = &p.ident;
        match p.role {
            Role::Argument | Role::Flattened | Role::Resolved(_) | Role::Plain => quote!(#ident),
            Role::Borrowed(_) => {
                let held = held_ident(ident);
                quote!(&#held)
            }
        }
    });
    let awaited = sig.asyncness.map(|_| quote!(.await));
    if cx.method {
        let fn_ident = &sig.ident;
        quote!(__this.#fn_ident(#(#args),*) #awaited)
    } else {
        quote!(__fn(#(#args),*) #awaited)
    }
}

/// What a tool's or a prompt's adapter gives: the call's value, turned into the result.
fn outcome(cx: &Cx<'_>) -> TokenStream {
    let call = call(cx);
    quote!((__RETURNS.outcome)(#call))
}

/// What a resource's adapter gives: the call's value as the contents at its URI.
fn resource_outcome(cx: &Cx<'_>, mime: TokenStream) -> TokenStream {
    let call = call(cx);
    quote!((__RETURNS.outcome)(#call, &__uri, #mime))
}

/// The return type's implementation, asked once (`__RETURNS`) and spanned at the return type,
/// so that a type that cannot be returned is one error, there. A fn that asks may not build
/// its rounds by hand.
fn returns(cx: &Cx<'_>) -> TokenStream {
    let sig = &cx.decl.item.sig;
    let (ret, span) = match &sig.output {
        syn::ReturnType::Default => (quote!(()), sig.ident.span()),
        syn::ReturnType::Type(_, ty) => (quote!(#ty), ty.span()),
    };
    let root = respan(cx.root, span);
    let (ret_trait, ret_kind) = match &cx.decl.declaration {
        Declaration::Tool(_) => (quote!(ToolReturn), quote!(Returns)),
        Declaration::Prompt(_) => (quote!(PromptReturn), quote!(PromptReturns)),
        Declaration::ResourceTemplate(_) | Declaration::Resource(_) | Declaration::View(_) => {
            (quote!(ResourceReturn), quote!(ResourceReturns))
        }
    };
    let returns = quote_spanned!(span=>
        const __RETURNS: #root::__private::#ret_kind<#ret> = <#ret as #root::#ret_trait>::RETURNS;
    );
    let resolves = cx.decl.params.iter().any(|p| matches!(p.role, Role::Resolved(_)));
    let may_ask = resolves.then(|| {
        quote_spanned!(span=>
            const _: () = #root::__private::refuse_manual_form(__RETURNS.may_ask);
        )
    });
    quote!(#returns #may_ask)
}

/// An argument written `Option<T>` is optional in the input schema.
fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}
