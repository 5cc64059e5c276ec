//! The definition of a declared fn: one function per kind, each put together from the named
//! steps below (the return type's implementation, the input schema, the parser of the
//! arguments, the adapter that calls the fn, the graph).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::graph::{checks, graph};
use super::{Cx, Paths, opt_str, respan};
use crate::model::{Annotations, Declaration, Declared, Param, Prompt, Resource, Role, TaskSupport, Tool, ViewFn};

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
    let needs = needs(&cx);
    let meta = decl.common.meta.as_ref().map(|m| {
        let rt = cx.rt;
        quote!(.meta(#rt::meta_object(#m)))
    });
    // A fn that takes no request context cannot log.
    let silent = (!uses_cx(decl)).then(|| quote!(.silent()));
    quote!({
        #returns
        #[allow(unused)]
        fn __assert() {
            #(#text_asserts)*
        }
        #bind_fn
        #builder #(#needs)* #meta #silent
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
            #rt::input_schema(::std::vec::Vec::from([#(#fields),*])),
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
            ::std::vec::Vec::from([#(#fields),*]),
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
        (a.read_only, quote!(read_only_hint)),
        (a.destructive, quote!(destructive_hint)),
        (a.idempotent, quote!(idempotent_hint)),
        (a.open_world, quote!(open_world_hint)),
    ];
    if flags.iter().all(|(on, _)| !on) {
        return quote!(::core::option::Option::None);
    }
    let set = flags.iter().filter(|(on, _)| *on).map(|(_, f)| quote!(#f: ::core::option::Option::Some(true),));
    quote!(::core::option::Option::Some(#root::protocol::ToolAnnotations {
        #(#set)*
        ..::core::default::Default::default()
    }))
}

/// The parameters the client sends: arguments and flattened structs of them.
fn arguments<'a>(cx: &Cx<'a>) -> impl Iterator<Item = &'a Param> + Clone {
    cx.decl.params.iter().filter(|p| matches!(p.role, Role::Argument | Role::Flattened))
}

/// The fields of the input schema (a tool's) or of the argument list (a prompt's).
fn fields(cx: &Cx<'_>) -> Vec<TokenStream> {
    let rt = cx.rt;
    arguments(cx)
        .map(|p| {
            let (key, ty) = (&p.wire, &p.ty);
            let schema = quote_spanned!(ty.span()=> #rt::argument_schema::<#ty>());
            let description = opt_str(p.doc.as_deref());
            let required = !is_option(ty);
            let flatten = matches!(p.role, Role::Flattened);
            quote!(#rt::Field { name: #key, schema: #schema, description: #description, required: #required, flatten: #flatten })
        })
        .collect()
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
    let task = params
        .iter()
        .any(|p| matches!(p.role, Role::Task))
        .then(|| quote!(let __task = #root::task::TaskContext::from(__cx);));
    let (cx_binding, this, uri, states) = (cx_binding(cx), this(cx), remember_uri(cx), states(cx));
    quote!(move |(#(#idents,)*), #values: #rt::Values, #cx_binding: #root::server::RequestContext| {
        #this
        async move {
            #uri
            #(#states)*
            #(#takes)*
            #task
            #result
        }
    })
}

/// The adapter of a static resource or a view: it gets only the request.
fn static_body(cx: &Cx<'_>, result: TokenStream) -> TokenStream {
    let root = cx.root;
    let (cx_binding, this, uri, states) = (cx_binding(cx), this(cx), remember_uri(cx), states(cx));
    quote!(move |#cx_binding: #root::server::RequestContext| {
        #this
        async move {
            #uri
            #(#states)*
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

/// The `State<T>` parameters, taken from the request.
fn states(cx: &Cx<'_>) -> Vec<TokenStream> {
    let rt = cx.rt;
    state_params(cx.decl)
        .map(|p| {
            let (ident, ty) = (&p.ident, &p.ty);
            quote!(let #ident: #ty = #rt::state_param::<#ty>(&__cx)?;)
        })
        .collect()
}

/// The state the definition needs registered.
fn needs(cx: &Cx<'_>) -> Vec<TokenStream> {
    let rt = cx.rt;
    state_params(cx.decl)
        .map(|p| {
            let ty = &p.ty;
            quote!(.needs(#rt::state_need::<#ty>()))
        })
        .collect()
}

fn state_params(decl: &Declared) -> impl Iterator<Item = &Param> {
    decl.params.iter().filter(|p| matches!(p.role, Role::State))
}

/// Whether the fn takes anything the server gives from the request.
fn uses_cx(decl: &Declared) -> bool {
    decl.params.iter().any(|p| p.role.is_given())
}

/// The call of the fn (or, for a method, of the method on the shared value), awaited if async.
fn call(cx: &Cx<'_>) -> TokenStream {
    let sig = &cx.decl.item.sig;
    let args = cx.decl.params.iter().map(|p| {
        let ident = &p.ident;
        match p.role {
            Role::Argument | Role::Flattened | Role::Resolved(_) | Role::State => quote!(#ident),
            Role::Context if matches!(p.ty, syn::Type::Reference(_)) => quote!(&__cx),
            Role::Context => quote!(__cx),
            Role::Task if matches!(p.ty, syn::Type::Reference(_)) => quote!(&__task),
            Role::Task => quote!(__task),
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
