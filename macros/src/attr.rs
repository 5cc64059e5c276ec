//! The options of `#[tool(...)]` and `#[resolve(...)]` as written, parsed with darling (unknown
//! options get a "did you mean" suggestion). The model reads them into a checked declaration;
//! nothing else looks at them.

use darling::util::Flag;
use darling::{FromAttributes, FromMeta};

/// The options every declaring attribute takes (`#[tool]`, `#[prompt]`, `#[resource]`,
/// `#[resource_template]`, `#[view]`): flattened into each attribute's own.
#[derive(Debug, Default, FromMeta)]
pub struct CommonArgs {
    pub name: Option<syn::LitStr>,
    pub title: Option<syn::LitStr>,
    pub description: Option<syn::LitStr>,
    /// Checks that run before anything is asked or read; may be repeated.
    #[darling(multiple)]
    pub check: Vec<syn::Expr>,
    /// `crate = path`: the path of the roundtrip crate in generated code (default `::roundtrip`).
    #[darling(rename = "crate")]
    pub krate: Option<CrateArg>,
}

/// What `crate = …` was given: a path, such as `::roundtrip` or `my_sdk::roundtrip`.
#[derive(Debug, Clone)]
pub struct CrateArg(pub syn::Path);

/// `#[roundtrip(crate = path)]` on the item of a derive (`Elicit`, and the prelude's
/// `Deserialize`, `Serialize` and `JsonSchema`): the path of the roundtrip crate in generated
/// code (default `::roundtrip`), for a crate that re-exports roundtrip.
#[derive(Debug, Default, FromAttributes)]
#[darling(attributes(roundtrip))]
pub struct DeriveArgs {
    #[darling(rename = "crate")]
    pub krate: Option<CrateArg>,
}

impl DeriveArgs {
    /// The path generated code names roundtrip by, from the item's attributes.
    pub fn root(attrs: &[syn::Attribute]) -> darling::Result<proc_macro2::TokenStream> {
        let args = Self::from_attributes(attrs)?;
        Ok(crate::expand::crate_path(args.krate.map(|k| k.0).as_ref()))
    }
}

/// How to write `crate`.
pub const CRATE_USAGE: &str = "`crate` is the path of the roundtrip crate, without quotes, such as \
                               `crate = ::roundtrip` or `crate = my_sdk::roundtrip` (where `my_sdk` re-exports it)";

impl FromMeta for CrateArg {
    fn from_word() -> darling::Result<Self> {
        Err(darling::Error::custom(CRATE_USAGE))
    }

    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        match expr {
            syn::Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Ok(Self(p.path.clone())),
            other => Err(darling::Error::custom(CRATE_USAGE).with_span(other)),
        }
    }
}

/// `#[tool(name = "…", title = "…", description = "…", crate = path, read_only, destructive, idempotent,
/// open_world, check = f(a, b), task | task = "required", single_use, replayable, scopes = ["…"],
/// ui = VIEW | ui = "ui://…", visibility = "model" | "app" | "both")]`
#[derive(Debug, Default, FromMeta)]
pub struct ToolArgs {
    #[darling(flatten)]
    pub common: CommonArgs,
    pub read_only: Flag,
    pub destructive: Flag,
    pub idempotent: Flag,
    pub open_world: Flag,
    /// `task` (optional) or `task = "required"`: calls may run as tasks.
    pub task: Option<TaskArg>,
    /// Each sealed state is accepted once (the default for a task tool).
    pub single_use: Flag,
    /// A task tool accepts its states more than once (opts out of the single-use default).
    pub replayable: Flag,
    /// `scopes = ["deploy:write"]`: the OAuth scopes a caller's token must grant.
    pub scopes: Option<ScopesArg>,
    /// `ui = VIEW` (a `#[view]`) or `ui = "ui://…"`: the view that renders the tool's results
    /// (MCP Apps).
    pub ui: Option<UiArg>,
    /// `visibility = "model" | "app" | "both"`: who may see and call the tool (MCP Apps).
    pub visibility: Option<syn::LitStr>,
    /// `meta = r#"{"example.com/owner": "ops"}"#`: the definition's `_meta`, a JSON object.
    pub meta: Option<syn::LitStr>,
}

/// What `ui = …` was given, as written (a path or a string), checked in the model.
#[derive(Debug, Clone)]
pub struct UiArg(pub syn::Expr);

/// How to write `ui`.
pub const UI_USAGE: &str = "`ui` names the tool's view: a #[view] item, such as `ui = DASHBOARD`, or its URI, such as \
                            `ui = \"ui://my-server/dashboard\"`";

impl FromMeta for UiArg {
    fn from_word() -> darling::Result<Self> {
        Err(darling::Error::custom(UI_USAGE))
    }

    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        Ok(Self(expr.clone()))
    }
}

/// `#[view("ui://…", name = "…", title = "…", description = "…", csp(…), permissions(…),
/// domain = "…", prefers_border = true, check = f())]`, after the URI.
#[derive(Debug, Default, FromMeta)]
pub struct ViewArgs {
    #[darling(flatten)]
    pub common: CommonArgs,
    /// `csp(connect_domains = ["https://…"], resource_domains = […], frame_domains = […],
    /// base_uri_domains = […])`: the origins the view's Content Security Policy may allow.
    pub csp: Option<CspArgs>,
    /// `permissions(camera, microphone, geolocation, clipboard_write)`: browser features the
    /// view asks for.
    pub permissions: Option<PermissionArgs>,
    /// `domain = "…"`: a dedicated sandbox origin, in the host's format.
    pub domain: Option<syn::LitStr>,
    /// `prefers_border` or `prefers_border = false`.
    pub prefers_border: Option<bool>,
}

/// `csp(…)` of a view: each list holds origins.
#[derive(Debug, Default, FromMeta)]
pub struct CspArgs {
    pub connect_domains: Option<syn::ExprArray>,
    pub resource_domains: Option<syn::ExprArray>,
    pub frame_domains: Option<syn::ExprArray>,
    pub base_uri_domains: Option<syn::ExprArray>,
}

/// `permissions(…)` of a view.
#[derive(Debug, Default, FromMeta)]
pub struct PermissionArgs {
    pub camera: Flag,
    pub microphone: Flag,
    pub geolocation: Flag,
    pub clipboard_write: Flag,
}

/// What `scopes = …` was given, as written: any expression (even a string, which darling
/// would parse as an expression of its own), checked in the model, so that every misuse gets
/// the same message.
#[derive(Debug, Clone)]
pub struct ScopesArg(pub syn::Expr);

/// How to write `scopes`.
pub const SCOPES_USAGE: &str = "`scopes` is a list of OAuth scopes, such as `scopes = [\"deploy:write\"]`";

impl FromMeta for ScopesArg {
    fn from_word() -> darling::Result<Self> {
        Err(darling::Error::custom(SCOPES_USAGE))
    }

    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        Ok(Self(expr.clone()))
    }
}

/// `task`, `task = "optional"` or `task = "required"`.
#[derive(Debug, Clone)]
pub struct TaskArg {
    pub required: bool,
}

impl FromMeta for TaskArg {
    fn from_word() -> darling::Result<Self> {
        Ok(Self { required: false })
    }

    fn from_value(value: &syn::Lit) -> darling::Result<Self> {
        match value {
            syn::Lit::Str(s) if s.value() == "optional" => Ok(Self { required: false }),
            syn::Lit::Str(s) if s.value() == "required" => Ok(Self { required: true }),
            other => Err(darling::Error::custom(
                "`task` is `task` (a task when the client can take one), `task = \"optional\"` (the same) or \
                 `task = \"required\"` (only as a task)",
            )
            .with_span(other)),
        }
    }
}

/// `#[resolve(elicit = "…")]`, `#[resolve(elicit_url = "…", message = "…")]`,
/// `#[resolve(sample = "…", max_tokens = N, system = "…", temperature = T, stop = ["…"],
/// model_hints = ["…"], cost_priority = P, speed_priority = P, intelligence_priority = P,
/// include_context = "…")]`, `#[resolve(roots)]`, `#[resolve(with = f(a, b))]`; each with the
/// fallbacks `or_argument`, `or_default = expr` and (`elicit_url`) `or_form` for clients that
/// cannot answer.
#[derive(Debug, Default, FromAttributes)]
#[darling(attributes(resolve))]
pub struct ResolveArgs {
    pub elicit: Option<syn::LitStr>,
    pub elicit_url: Option<syn::LitStr>,
    pub message: Option<syn::LitStr>,
    pub sample: Option<syn::LitStr>,
    pub max_tokens: Option<syn::LitInt>,
    pub system: Option<syn::LitStr>,
    pub temperature: Option<syn::Lit>,
    pub stop: Option<syn::ExprArray>,
    pub model_hints: Option<syn::ExprArray>,
    pub cost_priority: Option<syn::Lit>,
    pub speed_priority: Option<syn::Lit>,
    pub intelligence_priority: Option<syn::Lit>,
    pub include_context: Option<syn::LitStr>,
    pub roots: Flag,
    pub with: Option<syn::Expr>,
    /// The parameter is also an optional argument (tools).
    pub or_argument: Flag,
    /// The value when the client cannot answer.
    pub or_default: Option<syn::Expr>,
    /// An `elicit_url` question is asked as a form carrying its link where the client has no
    /// URL mode.
    pub or_form: Flag,
}

/// `#[prompt(name = "…", title = "…", description = "…", complete = path::to::fn, check = f(a))]`
#[derive(Debug, Default, FromMeta)]
pub struct PromptArgs {
    #[darling(flatten)]
    pub common: CommonArgs,
    /// `fn(argument: &str, typed: &str) -> Vec<String>` completing the arguments.
    pub complete: Option<syn::Path>,
    /// The definition's `_meta`, a JSON object.
    pub meta: Option<syn::LitStr>,
}

/// `#[resource("uri", …)]` and `#[resource_template("uri", …)]`, after the URI.
#[derive(Debug, Default, FromMeta)]
pub struct ResourceArgs {
    #[darling(flatten)]
    pub common: CommonArgs,
    pub mime_type: Option<syn::LitStr>,
    /// `fn(variable: &str, typed: &str) -> Vec<String>` completing a template's variables.
    pub complete: Option<syn::Path>,
    /// The definition's `_meta`, a JSON object.
    pub meta: Option<syn::LitStr>,
}

/// `#[arg(rename = "wireName")]` on an argument: the name on the wire (schema property,
/// prompt argument, template variable) when it differs from the Rust parameter's.
/// `#[arg(flatten)]`: a struct (or an open object) whose fields are the tool's arguments.
#[derive(Debug, Default, FromAttributes)]
#[darling(attributes(arg))]
pub struct ArgArgs {
    pub rename: Option<syn::LitStr>,
    pub flatten: darling::util::Flag,
}
