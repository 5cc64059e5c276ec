//! MCP Apps: `#[view("ui://…", …)]` (a view: HTML a host renders in a sandbox, with what the
//! sandbox may allow it) and the `ui` and `visibility` options of `#[tool]` (the link to a
//! view, and who may see the tool). What can be checked at compile time is checked here: the
//! URI's scheme, each origin of the Content Security Policy (a stray quote or `;` would change
//! the policy a host builds from it), the permissions, the domain and the visibility.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use roundtrip_wire::UiCsp;

use crate::attr::{CspArgs, UiArg, ViewArgs};
use crate::model::err_at;

/// A view's options, checked.
#[derive(Default)]
pub struct View {
    pub connect_domains: Vec<String>,
    pub resource_domains: Vec<String>,
    pub frame_domains: Vec<String>,
    pub base_uri_domains: Vec<String>,
    pub permissions: Vec<&'static str>,
    pub domain: Option<String>,
    pub prefers_border: Option<bool>,
}

/// Read and check a view's URI and options.
pub fn read(uri: &syn::LitStr, args: &ViewArgs, errors: &mut darling::error::Accumulator) -> View {
    check_uri(uri, errors);
    let csp = args.csp.as_ref();
    let list = |f: fn(&CspArgs) -> Option<&syn::ExprArray>, name: &str, errors: &mut darling::error::Accumulator| {
        csp.and_then(f).map(|a| origins(a, name, errors)).unwrap_or_default()
    };
    let connect_domains = list(|c| c.connect_domains.as_ref(), "connect_domains", errors);
    let resource_domains = list(|c| c.resource_domains.as_ref(), "resource_domains", errors);
    let frame_domains = list(|c| c.frame_domains.as_ref(), "frame_domains", errors);
    let base_uri_domains = list(|c| c.base_uri_domains.as_ref(), "base_uri_domains", errors);
    let permissions = args
        .permissions
        .as_ref()
        .map(|p| {
            [
                (p.camera.is_present(), "camera"),
                (p.microphone.is_present(), "microphone"),
                (p.geolocation.is_present(), "geolocation"),
                (p.clipboard_write.is_present(), "clipboardWrite"),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect()
        })
        .unwrap_or_default();
    let domain = args.domain.as_ref().and_then(|d| {
        if UiCsp::is_host(&d.value()) {
            Some(d.value())
        } else {
            errors.push(err_at(
                d,
                "`domain` is a host name in the host's format, such as \"a904794854a047f6.claudemcpcontent.com\": \
                 letters, digits, `-` and `.`, without a scheme or a path",
            ));
            None
        }
    });
    View {
        connect_domains,
        resource_domains,
        frame_domains,
        base_uri_domains,
        permissions,
        domain,
        prefers_border: args.prefers_border,
    }
}

/// A view's URI: `ui://` and something after it, with nothing a URI cannot hold.
pub fn check_uri(uri: &syn::LitStr, errors: &mut darling::error::Accumulator) {
    let value = uri.value();
    let rest = value.strip_prefix("ui://");
    let ok = rest.is_some_and(|r| {
        !r.is_empty() && r.chars().all(|c| c.is_ascii_graphic() && !matches!(c, '{' | '}' | '"' | '<' | '>' | '\\'))
    });
    if !ok {
        let message = if rest.is_none() {
            format!("a view's URI starts with `ui://`, such as \"ui://my-server/dashboard\"; not \"{value}\"")
        } else {
            format!(
                "\"{value}\" is not a view URI: after `ui://` come a name and a path, such as \"ui://my-server/dashboard\", \
                 without spaces, braces or quotes"
            )
        };
        errors.push(err_at(uri, message));
    }
}

/// The origins of one `csp(…)` list, each checked, none twice.
fn origins(array: &syn::ExprArray, name: &str, errors: &mut darling::error::Accumulator) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &array.elems {
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = e else {
            errors.push(err_at(
                e,
                format!("`{name}` is a list of origins as strings, such as [\"https://api.example.com\"]"),
            ));
            continue;
        };
        let origin = s.value();
        if let Some(suffix) = UiCsp::too_broad_wildcard(&origin) {
            errors.push(err_at(
                s,
                format!(
                    "\"{origin}\" allows every site under `{suffix}`, where anyone may register a name: a wildcard \
                     must stand below a domain of yours, like `https://*.example.com`; or list the sites one by one"
                ),
            ));
        } else if !UiCsp::is_origin(&origin) {
            errors.push(err_at(
                s,
                format!(
                    "\"{origin}\" is not an origin: write `https://host`, `wss://host` or `https://*.host`, optionally \
                     with `:port`; no path, spaces, quotes or `;`"
                ),
            ));
        } else if out.contains(&origin) {
            errors.push(err_at(s, format!("\"{origin}\" is listed twice in `{name}`")));
        } else {
            out.push(origin);
        }
    }
    out
}

/// The `ViewSpec` of a view; `rt` is the crate's `__private`.
pub fn spec(
    uri: &syn::LitStr,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    view: &View,
    rt: &TokenStream,
) -> TokenStream {
    let opt = |s: Option<&str>| match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let (title, description, domain) = (opt(title), opt(description), opt(view.domain.as_deref()));
    let (connect, resources, frames, base) =
        (&view.connect_domains, &view.resource_domains, &view.frame_domains, &view.base_uri_domains);
    let permissions = &view.permissions;
    let border = match view.prefers_border {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    quote!(#rt::ViewSpec {
        uri: #uri,
        name: #name,
        title: #title,
        description: #description,
        connect_domains: &[#(#connect),*],
        resource_domains: &[#(#resources),*],
        frame_domains: &[#(#frames),*],
        base_uri_domains: &[#(#base),*],
        permissions: &[#(#permissions),*],
        domain: #domain,
        prefers_border: #border,
    })
}

/// The link of `#[tool(ui = …)]`.
pub enum Link {
    /// `ui = VIEW`: a `#[view]` item, registered with the tool.
    Item(syn::Path),
    /// `ui = "ui://…"`: a view registered on its own, checked when the server starts.
    Uri(syn::LitStr),
}

/// Read `ui = …`.
pub fn link(arg: &UiArg, errors: &mut darling::error::Accumulator) -> Option<Link> {
    match &arg.0 {
        syn::Expr::Path(p) if p.qself.is_none() => Some(Link::Item(p.path.clone())),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => {
            check_uri(s, errors);
            Some(Link::Uri(s.clone()))
        }
        other => {
            errors.push(err_at(other, crate::attr::UI_USAGE));
            None
        }
    }
}

/// Read `visibility = "…"`: the wire's list.
pub fn visibility(lit: &syn::LitStr, errors: &mut darling::error::Accumulator) -> Option<Vec<&'static str>> {
    match lit.value().as_str() {
        "model" => Some(vec!["Model"]),
        "app" => Some(vec!["App"]),
        "both" => Some(vec!["Model", "App"]),
        other => {
            errors.push(err_at(
                lit,
                format!(
                    "`visibility` is \"model\" (only the model sees the tool), \"app\" (only views call it) or \"both\" \
                     (the default); not \"{other}\""
                ),
            ));
            None
        }
    }
}

/// The builder calls a tool's definition gets for its link and its visibility; `root` is the
/// crate's path.
pub fn tool_calls(link: Option<&Link>, visibility: Option<&[&'static str]>, root: &TokenStream) -> TokenStream {
    let link = link.map(|l| match l {
        Link::Item(path) => {
            let factory = factory_path(path);
            let span = syn::spanned::Spanned::span(path);
            let root = crate::expand::respan(root, span);
            let view = quote_spanned!(span=> <#factory as #root::__private::ViewFactory>::view());
            quote!(.with_view(#view))
        }
        Link::Uri(uri) => quote!(.view(#uri)),
    });
    let visibility = visibility.map(|list| {
        let list = list.iter().map(|v| format_ident!("{}", v));
        quote!(.visibility([#(#root::protocol::Visibility::#list),*]))
    });
    quote!(#link #visibility)
}

/// The hidden factory of the `#[view]` a path names (`a::DASHBOARD` is `a::__roundtrip_resource_DASHBOARD`).
fn factory_path(path: &syn::Path) -> syn::Path {
    let mut factory = path.clone();
    if let Some(last) = factory.segments.last_mut() {
        last.ident = crate::expand::factory_ident(crate::model::Which::View, &last.ident);
    }
    factory
}

/// A `const` or `static` item, as `#[view]` reads it.
pub struct Constant<'a> {
    pub attrs: &'a [syn::Attribute],
    pub vis: &'a syn::Visibility,
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    /// `const` or `static`.
    pub what: &'static str,
}

/// `#[view]` on a `const` or `static` holding the HTML: the item as written, and its factory.
pub fn constant(args: TokenStream, item: &syn::Item, c: Constant<'_>) -> TokenStream {
    let Constant { attrs, vis, ident, ty, what } = c;
    let mut errors = darling::Error::accumulator();
    let list = match darling::ast::NestedMeta::parse_meta_list(args) {
        Ok(list) => list,
        Err(e) => {
            errors.push(e.into());
            Vec::new()
        }
    };
    let uri = match list.first() {
        Some(darling::ast::NestedMeta::Lit(syn::Lit::Str(uri))) => Some(uri.clone()),
        _ => {
            errors
                .push(err_at(ident, "#[view] needs the view's URI first, e.g. #[view(\"ui://my-server/dashboard\")]"));
            None
        }
    };
    let args: ViewArgs = match uri {
        Some(_) => errors.handle(ViewArgs::from_list(&list[1..])).unwrap_or_default(),
        None => ViewArgs::default(),
    };
    if let Some(first) = args.common.check.first() {
        errors.push(err_at(
            first,
            format!("a {what} view has no parameters for a check to take: put #[view] on a fn to check before reading"),
        ));
    }
    let is_str =
        matches!(ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("str")));
    if !is_str {
        errors.push(err_at(
            ty,
            format!(
                "a #[view] {what} holds the HTML as `&str` (e.g. include_str!(\"view.html\")); for HTML made when it is \
                 read, put #[view] on a fn"
            ),
        ));
    }
    let view = uri.as_ref().map(|u| read(u, &args, &mut errors));
    if let Err(e) = errors.finish() {
        let mut out = e.write_errors();
        out.extend(quote!(#item));
        return out;
    }
    let (Some(uri), Some(view)) = (uri, view) else { return quote!(#item) };
    let common = &args.common;
    let name = common.name.as_ref().map(syn::LitStr::value).unwrap_or_else(|| ident.to_string().to_lowercase());
    let title = common.title.as_ref().map(syn::LitStr::value);
    let description = common.description.as_ref().map(syn::LitStr::value).or_else(|| crate::docs::text(attrs));
    let paths = crate::expand::Paths::new(common.krate.as_ref().map(|k| &k.0));
    let rt = &paths.rt;
    let spec = spec(&uri, &name, title.as_deref(), description.as_deref(), &view, rt);
    let factory = crate::expand::factory_ident(crate::model::Which::View, ident);
    view_factory(&item, vis, &factory, &name, &uri, quote!({ #rt::view_text(#spec, #ident) }), &paths.root)
}

/// The item and its factory: a unit struct that is both a `ResourceFactory` (so `resources![…]`
/// and `ui = …` register it) and a `ViewFactory` whose `view()` is `body`; `root` is the
/// crate's path.
pub fn view_factory(
    item: &impl quote::ToTokens,
    vis: &syn::Visibility,
    factory: &syn::Ident,
    name: &str,
    uri: &impl quote::ToTokens,
    body: TokenStream,
    root: &TokenStream,
) -> TokenStream {
    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #factory;

        impl #root::__private::ResourceFactory for #factory {
            const NAME: &'static str = #name;

            fn def() -> #root::server::ResourceEntry {
                #root::server::ResourceEntry::Static(<Self as #root::__private::ViewFactory>::view())
            }
        }

        impl #root::__private::ViewFactory for #factory {
            const URI: &'static str = #uri;

            fn view() -> #root::server::ResourceDef #body
        }
    }
}
