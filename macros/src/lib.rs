//! Attribute macros of [roundtrip](https://docs.rs/roundtrip): `#[tool]`, `#[prompt]`,
//! `#[resource_template]` and `#[resource]` with `#[resolve(...)]` parameters, `#[view]` (MCP
//! Apps), `#[toolset]`, the `tools![…]`, `prompts![…]` and `resources![…]` lists, and
//! `#[derive(Elicit)]`.
//!
//! The macros describe; the runtime implements. Each macro reads its input (parse), checks
//! it (all problems of an item reported together, each at the token to change), and emits
//! small code that calls the runtime through `::roundtrip::__private` (or through the
//! `crate = path` given). On error the user's item is still emitted, so one mistake does not
//! cascade into others.

mod attr;
mod check;
mod derive;
mod docs;
mod expand;
mod list;
mod model;
mod serde_derives;
mod template;
mod toolset;
mod view;

use model::Which;
use proc_macro::TokenStream;

/// Declare an MCP tool: a fn (async or not) whose plain parameters are the tool's arguments and
/// whose `#[resolve(...)]` parameters are questions the framework asks before the body runs.
///
/// The `roundtrip` crate documentation is the guide, with runnable examples of everything
/// below.
///
/// ```rust,ignore
/// use roundtrip::prelude::*;
///
/// /// Deploy a version of a service. Asks where.
/// #[tool(destructive, check = known_service(service))]
/// async fn deploy(
///     /// The service, e.g. `api`.
///     service: String,
///     /// The version, e.g. `1.4.2`.
///     version: String,
///     #[resolve(elicit = "Deploy {service} {version} to which environment?")] environment: String,
/// ) -> String {
///     format!("Deployed {service} {version} to {environment}.")
/// }
///
/// async fn known_service(service: String) -> Result<(), String> {
///     if service == "api" { Ok(()) } else { Err(format!("unknown service `{service}`")) }
/// }
///
/// let server = Server::new("ops", "1.0.0").tools(tools![deploy]);
/// ```
///
/// # Options
///
/// | option | effect |
/// |---|---|
/// | `name = "…"` | the tool's name (default: the fn's name); 1 to 128 characters of `A-Z a-z 0-9 _ - .` |
/// | `title = "…"` | a display title |
/// | `description = "…"` | the description (default: the fn's doc comment) |
/// | `read_only` | annotation `readOnlyHint: true` |
/// | `destructive` | annotation `destructiveHint: true` |
/// | `idempotent` | annotation `idempotentHint: true` |
/// | `open_world` | annotation `openWorldHint: true` |
/// | `check = f(a, b)` | run `f` (async or not) before any question, on every leg; may be repeated; `check = self.f(a)` in a [`#[toolset]`](macro@toolset) |
/// | `task` | the call may run as a task (tasks extension) when the client can take one, else synchronously; the fn may take a `TaskContext` to report progress and ask while it runs |
/// | `task = "required"` | the call runs only as a task: a client without the tasks extension is answered `-32021` |
/// | `single_use` | each sealed `requestState` is accepted once (a replayed leg gets the frozen `-32602`); the default for task tools |
/// | `replayable` | a task tool accepts its states more than once: the opt-out of `single_use` (each replay of the last leg starts a task, counted against the caller's task quota) |
/// | `scopes = ["…", …]` | OAuth scopes the caller's bearer token must grant, on an HTTP endpoint protected by a `roundtrip::auth::ResourceServer` (feature `auth`); without them the call is answered `403 insufficient_scope` before any check or question |
/// | `ui = VIEW` | MCP Apps: the tool's results are rendered in the [`#[view]`](macro@view) `VIEW` (a path to the view's const or fn; a name that is no view fails to compile), which is registered with the tool |
/// | `ui = "ui://…"` | the same, by URI: the view is registered on its own (`resources![…]`), and a server without it refuses to start, naming the tool and the URI |
/// | `visibility = "…"` | MCP Apps: who sees the tool: `"model"`, `"app"` (only views call it: hosts keep it from their model, and a client that hosts no views does not see it) or `"both"` (the default) |
/// | `meta = r#"{…}"#` | the tool's `_meta` in `tools/list`: a JSON object, checked at compile time, such as `meta = r#"{"example.com/owner": "ops"}"#` |
/// | `crate = path` | the path generated code names the roundtrip crate by (default `::roundtrip`): for a crate that re-exports roundtrip to its users, such as `crate = my_sdk::roundtrip`; a path, not a string |
///
/// ```rust,ignore
/// /// Replaced by `description`.
/// #[tool(
///     name = "get-forecast",
///     title = "Forecast",
///     description = "Today's forecast.",
///     read_only,
///     idempotent,
///     open_world
/// )]
/// async fn forecast(city: String) -> String { format!("{city}: sunny") }
/// ```
///
/// ```rust,ignore
/// /// The databases, in the `DATABASES` view when the host renders views.
/// #[tool(read_only, ui = DATABASES)]
/// async fn databases(inventory: State<Inventory>) -> (String, Json<Databases>) { inventory.listing() }
///
/// /// Drop a database: for the view's buttons only.
/// #[tool(destructive, visibility = "app")]
/// async fn drop_database(name: String, inventory: State<Inventory>) -> (String, Json<Databases>) { inventory.drop(&name) }
/// ```
///
/// A check is a fn, async or not. It takes arguments, `State<T>` parameters and the
/// `&RequestContext` parameter by name (not resolved parameters: they are not known yet; not a
/// flattened struct whole), as owned values or borrowed from the request (`&str` for a
/// `String` argument), and returns `Result<(), E>`, where `E` is `roundtrip::Error` or any
/// `Display` type; an error ends the call before anything is asked. In a `#[toolset]` impl
/// block, `check = self.f(a)` calls a method of the shared value.
///
/// # Parameters
///
/// - A plain parameter is an argument: a property of the input schema (its type needs
///   `Deserialize` and `JsonSchema`, and must be owned: `String`, not `&str`). Its doc comment
///   is the property's description; `Option<T>` is optional, every other type required.
///   `#[arg(rename = "wireName")]` names it differently on the wire:
///
///   ```rust,ignore
///   #[tool]
///   async fn annotate(
///       /// The resource to annotate.
///       #[arg(rename = "resourceUri")]
///       resource_uri: String,
///       /// An optional note.
///       note: Option<String>,
///   ) -> String { format!("{resource_uri}: {}", note.unwrap_or_default()) }
///   ```
///
/// - A parameter with `#[arg(flatten)]` is a struct of arguments (deriving `Deserialize` and
///   `JsonSchema`): its fields are properties of the input schema, as if each were a
///   parameter, with their doc comments as descriptions, so one request struct serves several
///   tools. A `serde_json::Map<String, Value>` (or a struct with a `#[serde(flatten)]` map)
///   flattened so takes any object: the schema allows `additionalProperties`. A check or a
///   question names the fields it needs as arguments of their own, not the struct whole.
///
///   ```rust,ignore
///   #[derive(Deserialize, JsonSchema)]
///   struct Range {
///       /// The first line, from 1.
///       from: u32,
///       /// How many lines.
///       count: Option<u32>,
///   }
///
///   #[tool(read_only)]
///   async fn read_log(service: String, #[arg(flatten)] range: Range) -> String { todo!() }
///
///   #[tool]
///   async fn record(#[arg(flatten)] event: serde_json::Map<String, serde_json::Value>) -> String { todo!() }
///   ```
///
///   | `#[arg(…)]` option | effect |
///   |---|---|
///   | `rename = "…"` | the argument's name on the wire (schema property, prompt argument, template variable) |
///   | `flatten` | a tool's struct (or open object) of arguments; not with `rename`, not on a prompt or resource |
///
/// - A parameter with `#[resolve(...)]` is a question; see [`#[resolve(...)]`](#resolve).
/// - `cx: &RequestContext` is the request (progress, logs, cancellation, the client's
///   capabilities); at most one.
/// - `state: State<T>` is the value of type `T` registered with `Server::state`.
/// - These roles come from the type, as the compiler sees it, not from the name written: an
///   alias (`type Db = State<Pool>`) or a renamed import of `RequestContext` or `TaskContext`
///   is given by the server as well, and a type of your own named `State` is an argument.
///
/// # Returns
///
/// `String` or `&'static str` (text); `()` (no content); `Vec<Content>`; `CallToolResult`; `Json<T>` (the
/// value is the result's `structuredContent`, `T`'s schema the tool's `outputSchema`, and a
/// serialized copy a text block); `(String, Json<T>)` (your text and the structured value);
/// `Result<T, E>` of one of these, where `Err(e)` with `E: Display` is an `isError` result
/// with `e`'s text and `Err(roundtrip::Error)` is what the error's kind says. A tool without
/// `#[resolve]` parameters may return `Outcome<CallToolResult>` to build its rounds by hand.
///
/// ```rust,ignore
/// #[derive(Serialize, JsonSchema)]
/// struct Forecast { city: String, celsius: i32 }
///
/// /// Today's forecast, as text and as structured content.
/// #[tool(read_only)]
/// async fn forecast(city: String) -> (String, Json<Forecast>) {
///     (format!("{city}: 21 °C"), Json(Forecast { city, celsius: 21 }))
/// }
/// ```
///
/// # `#[resolve(...)]`
///
/// One resolver per parameter. The question goes into `inputRequests` under the parameter's
/// name; its text may name arguments and other resolved parameters in `{braces}`, and is asked
/// once those are known (questions with known inputs go out together, in one round).
///
/// | resolver | parameter type | asks |
/// |---|---|---|
/// | `elicit = "…"` | `String`, `bool`, a number, a unit-variant enum or a flat struct deriving `Elicit` | a form |
/// | `elicit_url = "…", message = "…"` | `Consent` | to open a URL (both strings take `{placeholders}`) |
/// | `sample = "…"` and the options below | `String` (the reply's text) or `CreateMessageResult` | the client's model |
/// | `roots` | `Vec<Root>` | the client's roots |
/// | `with = f(a, b)` or `with = self.f(a)` | `T: Serialize + Deserialize` | nothing, or the one `Question` `f` returns |
///
/// Each may add a fallback, `or_argument`, `or_default = expr` or (`elicit_url`) `or_form`
/// (below).
///
/// The options of `sample`, checked at compile time:
///
/// | option | on the wire | value |
/// |---|---|---|
/// | `max_tokens = N` | `maxTokens` | at least 1 (default 1000) |
/// | `system = "…"` | `systemPrompt` | a string |
/// | `temperature = T` | `temperature` | 0 to 2 |
/// | `stop = ["…"]` | `stopSequences` | strings |
/// | `model_hints = ["…"]` | `modelPreferences.hints` | model names |
/// | `cost_priority = P` | `modelPreferences.costPriority` | 0 to 1 |
/// | `speed_priority = P` | `modelPreferences.speedPriority` | 0 to 1 |
/// | `intelligence_priority = P` | `modelPreferences.intelligencePriority` | 0 to 1 |
/// | `include_context = "…"` | `includeContext` | `"none"`, `"thisServer"` or `"allServers"` |
///
/// ```rust,ignore
/// #[tool]
/// async fn everything(
///     /// The service.
///     service: String,
///     #[resolve(elicit = "Deploy {service} where?")] environment: Environment, // an enum deriving Elicit
///     #[resolve(elicit_url = "https://auth.example.com/{service}", message = "Sign in to deploy {service}")]
///     consent: Consent,
///     #[resolve(
///         sample = "Summarize the logs of {service}.",
///         max_tokens = 300,
///         system = "You are an SRE.",
///         temperature = 0.2,
///         stop = ["END"],
///         model_hints = ["claude"],
///         cost_priority = 0.3,
///         speed_priority = 0.5,
///         intelligence_priority = 0.8,
///         include_context = "thisServer"
///     )]
///     summary: String,
///     #[resolve(roots)] roots: Vec<Root>,
///     #[resolve(with = owner_of(service))] owner: String,
///     #[resolve(elicit = "Really deploy {service} (owned by {owner})?")] confirm: Answer<bool>,
/// ) -> String {
///     match confirm {
///         Answer::Accepted(true) => format!("Deployed {service} to {environment:?}: {summary}"),
///         _ => format!("Kept {service} ({} roots).", roots.len()),
///     }
/// }
///
/// /// Gives a value (no round trip), or asks one question.
/// async fn owner_of(service: String) -> Resolve<String> {
///     match service.as_str() {
///         "api" => Resolve::Value("team-api".into()),
///         _ => Resolve::Ask(Question::elicit::<String>(format!("Who owns {service}?"), "owner")),
///     }
/// }
/// ```
///
/// A `with` fn is a fn, async or not. It takes the parameters it names (arguments, resolved
/// parameters, `State<T>`, the `&RequestContext` parameter), as owned values or borrowed from
/// the request (`&str` for a `String`), and returns `Resolve<T>` or `Result<Resolve<T>, E>`. The
/// value it gives is kept in the sealed `requestState`, so it runs once per flow; a `with` fn
/// that asks runs again on the leg that carries the answer, to check it against the question
/// as it is then.
///
/// `Answer<T>` (as `confirm` above) lets the body see `Answer::Declined` and
/// `Answer::Cancelled`; with a bare `T`, a decline or cancel ends the call with an `isError`
/// result naming the parameter, and the body does not run.
///
/// Fallbacks, for a client that cannot answer the question (it declares no elicitation, no
/// URL mode, no sampling or no roots), written after the resolver:
///
/// | fallback | what happens |
/// |---|---|
/// | `or_argument` (tools) | the parameter is also an optional argument of the input schema (of its value's type, with its doc comment); given, it is the value and nothing is asked; missing where the client cannot answer, the call ends with an `isError` result saying to pass it |
/// | `or_default = expr` | `expr` (of the value's type: `T` of `Answer<T>`, `Serialize`) is the value when the client cannot answer, and a form's fields' `default`s |
/// | `or_form` (`elicit_url`) | a client that answers forms but has no URL mode is asked with a form without fields whose message carries the link; accepting it consents |
/// | none | the call is refused with `-32021`, naming the capability |
///
/// Together: the argument first, then the question (as a form where `or_form` says so), then
/// the default.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::Tool, args, input)
}

/// Declare an MCP prompt: its plain parameters are prompt arguments (`String`, or
/// `Option<String>` for an optional one), its `#[resolve(...)]` parameters are questions (as
/// for [`macro@tool`]), and it returns the messages.
///
/// | option | effect |
/// |---|---|
/// | `name = "…"` | the prompt's name (default: the fn's name) |
/// | `title = "…"` | a display title |
/// | `description = "…"` | the description (default: the fn's doc comment) |
/// | `complete = f` | `fn f(argument: &str, typed: &str) -> Vec<String>` answers `completion/complete` for the arguments |
/// | `check = f(a)` | run `f` (async or not) before any question (as for [`macro@tool`]); may be repeated |
/// | `meta = r#"{…}"#` | the prompt's `_meta` in `prompts/list`: a JSON object, checked at compile time |
/// | `crate = path` | the roundtrip crate's path in generated code (default `::roundtrip`; as for [`macro@tool`]) |
///
/// It returns a `String` (one user message), a `PromptMessage`, a `Vec<PromptMessage>`, a
/// `GetPromptResult`, or a `Result` of one; it may take `&RequestContext` and `State<T>`.
///
/// ```rust,ignore
/// use roundtrip::prelude::*;
///
/// fn incidents(_argument: &str, typed: &str) -> Vec<String> {
///     ["1", "2", "12"].into_iter().filter(|i| i.starts_with(typed)).map(String::from).collect()
/// }
///
/// async fn known_incident(incident: String) -> Result<(), Error> {
///     if incident == "1" { Ok(()) } else { Err(Error::not_found(format!("no incident #{incident}"))) }
/// }
///
/// /// Write the postmortem of an incident.
/// #[prompt(name = "postmortem", title = "Postmortem", complete = incidents, check = known_incident(incident))]
/// async fn postmortem(
///     /// The incident's number.
///     incident: String,
///     #[resolve(elicit = "Who writes the postmortem of incident #{incident}?")] author: String,
/// ) -> String {
///     format!("Write the postmortem of incident #{incident} as {author}.")
/// }
///
/// let server = Server::new("ops", "1.0.0").prompts(prompts![postmortem]);
/// ```
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::Prompt, args, input)
}

/// Declare a family of resources: `#[resource_template("notes://{id}", …)]`. The URI template
/// comes first; each variable binds to the `String` parameter of the same name (or of the same
/// `#[arg(rename = "…")]`), and every plain parameter must be a variable. It may ask with
/// `#[resolve(...)]` parameters (as for [`macro@tool`]).
///
/// | option (after the URI) | effect |
/// |---|---|
/// | `name = "…"` | the template's name (default: the fn's name) |
/// | `title = "…"` | a display title |
/// | `description = "…"` | the description (default: the fn's doc comment) |
/// | `mime_type = "…"` | the MIME type of its contents |
/// | `complete = f` | `fn f(variable: &str, typed: &str) -> Vec<String>` answers `completion/complete` for the variables |
/// | `check = f(a)` | run `f` (async or not, as for [`macro@tool`]) before anything is asked or read; may be repeated |
/// | `meta = r#"{…}"#` | the template's `_meta` in `resources/templates/list`: a JSON object, checked at compile time |
/// | `crate = path` | the roundtrip crate's path in generated code (default `::roundtrip`; as for [`macro@tool`]) |
///
/// It returns a `String` (text), a `Blob` (binary), `ResourceContents`, a
/// `Vec<ResourceContents>`, a `ReadResourceResult`, or a `Result` of one; `Err(Error::not_found(…))`
/// is the protocol's "Resource not found".
///
/// ```rust,ignore
/// use roundtrip::prelude::*;
///
/// fn note_ids(_variable: &str, typed: &str) -> Vec<String> {
///     ["7", "42"].into_iter().filter(|id| id.starts_with(typed)).map(String::from).collect()
/// }
///
/// /// A private note; reading it asks for the passphrase.
/// #[resource_template("notes://{id}", name = "note", title = "Note", mime_type = "text/plain", complete = note_ids)]
/// async fn note(
///     /// The note's number.
///     id: String,
///     #[resolve(elicit = "Passphrase for note {id}?")] passphrase: String,
/// ) -> Result<String, Error> {
///     match id.as_str() {
///         "7" | "42" => Ok(format!("Note {id}.")),
///         _ => Err(Error::not_found(format!("no note {id}"))),
///     }
/// }
///
/// let server = Server::new("notes", "1.0.0").resources(resources![note]);
/// ```
#[proc_macro_attribute]
pub fn resource_template(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::ResourceTemplate, args, input)
}

/// Declare a resource at a fixed URI: `#[resource("config://app", …)]`. The URI comes first
/// (no `{variables}`: use [`macro@resource_template`] for those). It takes no arguments and
/// cannot ask; it may take `&RequestContext` and `State<T>`.
///
/// | option (after the URI) | effect |
/// |---|---|
/// | `name = "…"` | the resource's name (default: the fn's name) |
/// | `title = "…"` | a display title |
/// | `description = "…"` | the description (default: the fn's doc comment) |
/// | `mime_type = "…"` | the MIME type of its contents |
/// | `check = f(a)` | run `f` (async or not, as for [`macro@tool`]) before it is read; may be repeated |
/// | `meta = r#"{…}"#` | the resource's `_meta` in `resources/list`: a JSON object, checked at compile time |
/// | `crate = path` | the roundtrip crate's path in generated code (default `::roundtrip`; as for [`macro@tool`]) |
///
/// It returns what a [`macro@resource_template`] returns.
///
/// ```rust,ignore
/// use roundtrip::prelude::*;
///
/// async fn config_enabled(app: State<App>) -> Result<(), Error> {
///     if app.expose_config { Ok(()) } else { Err(Error::not_found("no config")) }
/// }
///
/// /// The application's configuration.
/// #[resource(
///     "config://app",
///     name = "config",
///     title = "Configuration",
///     mime_type = "application/json",
///     check = config_enabled(app)
/// )]
/// async fn config(app: State<App>) -> String {
///     app.config_json()
/// }
///
/// let server = Server::new("app", "1.0.0").state(Arc::new(App::default())).resources(resources![config]);
/// ```
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    declare(Which::Resource, args, input)
}

/// Declare an MCP Apps view: an HTML document at a `ui://` URI that hosts supporting the
/// extension render in a sandboxed iframe, next to the results of the tools that link to it
/// with `#[tool(ui = VIEW)]`. The view talks to the host over `postMessage` (with the official
/// `@modelcontextprotocol/ext-apps` SDK, or by hand): it receives the tool's arguments and
/// result, and may call the server's tools through the host.
///
/// On a `const` or `static` of type `&str`, the value is the HTML (an embedded file with
/// `include_str!`, or a literal); on a fn (async or not, taking `State<T>` and
/// `&RequestContext` like a [`macro@resource`]), the HTML is what it returns each time a host
/// reads the view. The URI comes first; the options say what the host's sandbox may allow the
/// view (its Content Security Policy allows nothing beyond them), checked at compile time:
///
/// | option (after the URI) | on the wire (`_meta.ui`) | value |
/// |---|---|---|
/// | `csp(connect_domains = ["https://…"])` | `csp.connectDomains` | origins the view may `fetch` or open WebSockets to (`connect-src`) |
/// | `csp(resource_domains = [...])` | `csp.resourceDomains` | origins of scripts, styles, images, fonts and media (`https://*.example.com` allowed) |
/// | `csp(frame_domains = [...])` | `csp.frameDomains` | origins of nested iframes (`frame-src`) |
/// | `csp(base_uri_domains = [...])` | `csp.baseUriDomains` | origins `<base href>` may name (`base-uri`) |
/// | `permissions(camera, microphone, geolocation, clipboard_write)` | `permissions` | browser features the view asks for (a host may grant them) |
/// | `domain = "…"` | `domain` | a dedicated sandbox origin, in the host's format |
/// | `prefers_border`, `prefers_border = false` | `prefersBorder` | whether the host should draw a border and background |
/// | `name = "…"`, `title = "…"`, `description = "…"` | the resource's | default: the item's name (lowercase), none, its doc comment |
/// | `check = f(a)` | | a fn view only: run before it is read (as for [`macro@resource`]) |
/// | `crate = path` | | the roundtrip crate's path in generated code (default `::roundtrip`; as for [`macro@tool`]) |
///
/// An origin is `scheme://host[:port]` (`http`, `https`, `ws`, `wss`; the first label of the
/// host may be `*`): a path, a quote or a `;` fails to compile, since it would change the
/// policy a host builds. The view is a static resource: list it in `resources![…]`, or let a
/// tool that names it in `ui = …` register it.
///
/// ```rust,ignore
/// use roundtrip::prelude::*;
///
/// /// The databases, as a table.
/// #[view(
///     "ui://provision/databases",
///     title = "Databases",
///     csp(connect_domains = ["https://status.example.com"]),
///     prefers_border
/// )]
/// pub const DATABASES: &str = include_str!("databases.html");
///
/// /// A view made when it is read.
/// #[view("ui://provision/hello")]
/// async fn hello(cx: &RequestContext) -> String {
///     format!("<!doctype html><p>Hello from {}</p>", cx.server().name())
/// }
///
/// let server = Server::new("provision", "1.0.0").resources(resources![DATABASES, hello]);
/// ```
#[proc_macro_attribute]
pub fn view(args: TokenStream, input: TokenStream) -> TokenStream {
    let usage = "#[view] goes on a const or static holding the HTML (`&str`), or on a fn that returns it";
    let item = match syn::parse::<syn::Item>(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let mut out: TokenStream = syn::Error::new(e.span(), usage).to_compile_error().into();
            out.extend(input);
            return out;
        }
    };
    let constant = match &item {
        syn::Item::Const(c) => {
            view::Constant { attrs: &c.attrs, vis: &c.vis, ident: &c.ident, ty: &c.ty, what: "const" }
        }
        syn::Item::Static(s) => {
            view::Constant { attrs: &s.attrs, vis: &s.vis, ident: &s.ident, ty: &s.ty, what: "static" }
        }
        syn::Item::Fn(f) => {
            if let Some(receiver) = f.sig.receiver() {
                let message = "a #[view] is a free fn, a const or a static, not a method: move it out of the impl \
                               block (it may take State<T> for the shared value)";
                let mut out: TokenStream = syn::Error::new_spanned(receiver, message).to_compile_error().into();
                out.extend(input);
                return out;
            }
            return declare(Which::View, args, input);
        }
        other => {
            let mut out: TokenStream = syn::Error::new_spanned(other, usage).to_compile_error().into();
            out.extend(input);
            return out;
        }
    };
    view::constant(args.into(), &item, constant).into()
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
    decl.asserts = check::declared(&decl, false, &mut errors);
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

/// Declare tools, prompts and resources as methods of one shared value (a database pool, a
/// cache): on an inherent impl block of a concrete type, the methods marked `#[tool]`,
/// `#[prompt]`, `#[resource]` or `#[resource_template]` take `&self` and are declared as free
/// fns are. Their checks and `with` fns may be methods of the same block
/// (`check = self.f(a)`, `with = self.f(a)`). Other methods are left as written. Its one
/// option is `crate = path`, the roundtrip crate's path in generated code (default
/// `::roundtrip`; as for [`macro@tool`]), for the block and each method that names none of its
/// own.
///
/// `Server::toolset(Arc::new(value))` registers every declared method, bound to `value`, and
/// `value` itself as `State<T>` (for free fns). The block also gets
/// `tools(self: Arc<Self>)`, `prompts(…)` and `resources(…)`, which return the definitions.
///
/// ```rust,ignore
/// use std::sync::Arc;
/// use roundtrip::prelude::*;
///
/// struct Ops { services: Vec<String> }
///
/// #[toolset]
/// impl Ops {
///     async fn known(&self, service: String) -> Result<(), String> {
///         if self.services.contains(&service) { Ok(()) } else { Err(format!("unknown service `{service}`")) }
///     }
///
///     async fn instances(&self, service: String) -> Resolve<String> {
///         let options = [(format!("{service}-1"), "first"), (format!("{service}-2"), "second")];
///         Resolve::Ask(Question::choice(format!("Restart which instance of {service}?"), "instance", options))
///     }
///
///     /// Restart one instance of a service.
///     #[tool(check = self.known(service))]
///     async fn restart(
///         &self,
///         service: String,
///         #[resolve(with = self.instances(service))] instance: String,
///     ) -> String {
///         format!("Restarted {instance}.")
///     }
///
///     /// The services.
///     #[resource("ops://services")]
///     async fn services(&self) -> String {
///         self.services.join("\n")
///     }
/// }
///
/// let server = Server::new("ops", "1.0.0").toolset(Arc::new(Ops { services: vec!["api".into()] }));
/// ```
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    toolset::toolset(args.into(), input.into()).into()
}

/// The definitions of these `#[tool]` fns, for `Server::tools`: `tools![deploy, ops::restart]`.
/// Two tools with the same name in one list fail to compile. `tools![crate = path; deploy]`
/// names the roundtrip crate by `path` in generated code (default `::roundtrip`; as for
/// [`macro@tool`]); so do `prompts![…]` and `resources![…]`.
///
/// ```rust,ignore
/// let server = Server::new("ops", "1.0.0").tools(tools![deploy, restart]);
/// ```
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    list::list(Which::Tool, input.into()).into()
}

/// The definitions of these `#[prompt]` fns, for `Server::prompts`: `prompts![postmortem]`.
/// Two prompts with the same name in one list fail to compile.
///
/// ```rust,ignore
/// let server = Server::new("ops", "1.0.0").prompts(prompts![postmortem, greeting]);
/// ```
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    list::list(Which::Prompt, input.into()).into()
}

/// The definitions of these `#[resource]` and `#[resource_template]` fns, for
/// `Server::resources`: `resources![config, note]`. Two with the same name in one list fail
/// to compile.
///
/// ```rust,ignore
/// let server = Server::new("notes", "1.0.0").resources(resources![config, note]);
/// ```
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    list::list(Which::Resource, input.into()).into()
}

/// Make a type askable with `#[resolve(elicit = "…")]` (and `Question::elicit::<T>`); the type
/// also derives `Deserialize` and `JsonSchema`.
///
/// - A struct with named fields is the whole form. Each field is `String`, `bool`, an integer,
///   a float, a unit-variant enum deriving `Elicit`, `Vec` of such an enum (a multi-select), or
///   `Option` of one of these (not required); anything else fails to compile at the field.
///   Doc comments become the fields' descriptions; serde and schemars attributes
///   (`#[serde(default)]`, `#[schemars(length(min = 5))]`) reach the schema.
/// - An enum of unit variants is a choice, asked as a one-field form named after the
///   parameter; `#[schemars(title = "…")]` on a variant gives it a title.
///
/// Generic types are refused.
///
/// | option | meaning |
/// | --- | --- |
/// | `#[roundtrip(crate = path)]` | the path generated code names the roundtrip crate by (default `::roundtrip`), as `crate = path` of [`macro@tool`]; the prelude's `Deserialize`, `Serialize` and `JsonSchema` read it too |
///
/// ```rust,ignore
/// use roundtrip::prelude::*;
///
/// #[derive(Deserialize, JsonSchema, Elicit)]
/// #[serde(rename_all = "lowercase")]
/// enum Severity {
///     #[schemars(title = "Everyone is affected")]
///     Sev1,
///     #[schemars(title = "Few are affected")]
///     Sev2,
/// }
///
/// #[derive(Deserialize, JsonSchema, Elicit)]
/// struct NewIncident {
///     /// What is going on, in a few words.
///     #[schemars(length(min = 5))]
///     title: String,
///     /// How bad it is.
///     severity: Severity,
///     /// Page the on-call engineer now.
///     #[serde(default)]
///     page_oncall: bool,
/// }
///
/// #[tool]
/// async fn open_incident(#[resolve(elicit = "Describe the incident.")] incident: NewIncident) -> String {
///     format!("Opened '{}'.", incident.title)
/// }
/// ```
#[proc_macro_derive(Elicit, attributes(roundtrip))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => derive::elicit(input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// serde's `Deserialize` derive, reached through roundtrip (the prelude's): an application
/// needs no `serde` in its `Cargo.toml`. Takes serde's `#[serde(...)]` attributes as serde's
/// own derive does; for a generic type, depend on serde and derive `serde::Deserialize`.
/// `#[roundtrip(crate = path)]` names roundtrip by another path (a crate that re-exports it),
/// as `crate = path` of [`macro@tool`].
#[proc_macro_derive(Deserialize, attributes(serde, schemars, validate, garde, roundtrip))]
pub fn derive_deserialize(input: TokenStream) -> TokenStream {
    serde_derive(serde_derives::Which::Deserialize, input)
}

/// serde's `Serialize` derive, reached through roundtrip (see [`macro@Deserialize`]).
#[proc_macro_derive(Serialize, attributes(serde, schemars, validate, garde, roundtrip))]
pub fn derive_serialize(input: TokenStream) -> TokenStream {
    serde_derive(serde_derives::Which::Serialize, input)
}

/// schemars' `JsonSchema` derive, reached through roundtrip (the prelude's): an application
/// needs no `schemars` in its `Cargo.toml`. Takes `#[schemars(...)]` and `#[serde(...)]`
/// attributes as schemars' own derive does; `#[roundtrip(crate = path)]` as for
/// [`macro@Deserialize`].
#[proc_macro_derive(JsonSchema, attributes(serde, schemars, validate, garde, roundtrip))]
pub fn derive_json_schema(input: TokenStream) -> TokenStream {
    serde_derive(serde_derives::Which::JsonSchema, input)
}

fn serde_derive(which: serde_derives::Which, input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => serde_derives::derive(which, input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
