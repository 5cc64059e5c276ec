//! The manual (low-level) API: handlers that answer a complete result or an
//! [`InputRequired`] round, and the definitions that register them.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::StateNeed;
use super::uri_template::UriTemplate;
use crate::protocol::{
    CallToolResult, CompleteParams, Completion, ErrorObject, GetPromptResult, JsonObject, META_UI,
    META_UI_RESOURCE_URI, Prompt, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Tool,
    UiResourceMeta, VIEW_MIME_TYPE, Visibility,
};
use crate::request::{InputRequired, RequestContext};
use crate::resolve::Graph;

/// What a handler answers: the final result, or a round of questions.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    /// The final result.
    Complete(T),
    /// The client must answer and retry.
    InputRequired(InputRequired),
    /// The call became a task (tools only, for a client that declared the tasks extension);
    /// its seed state.
    Task(roundtrip_wire::Task),
}

impl<T> From<InputRequired> for Outcome<T> {
    fn from(round: InputRequired) -> Self {
        Self::InputRequired(round)
    }
}

/// What a handler returns: an outcome, or an [`Error`](crate::error::Error). Declared and
/// hand-written handlers fail alike: `Error::new` ends a tool call with an `isError` result
/// (a prompt or a resource with `-32602`), `?` on an [`ErrorObject`](crate::protocol::ErrorObject) answers that JSON-RPC
/// error as it is, and `?` on any other error is an internal error (logged, `-32603`).
pub type HandlerResult<T> = Result<Outcome<T>, crate::error::Error>;

/// Suggests values for one argument of a prompt or variable of a template (at most 100 are
/// sent): from the argument's name and what was typed so far, or, for a completion that must
/// ask elsewhere (a gateway asks its upstream), from the whole request, in time.
#[derive(Clone)]
pub(crate) enum Completer {
    Values(Arc<CompleteFn>),
    Later(Arc<CompleteLaterFn>),
}

type CompleteFn = dyn Fn(&str, &str) -> Vec<String> + Send + Sync;
type CompleteLaterFn = dyn Fn(CompleteParams) -> BoxFuture<'static, Result<Completion, ErrorObject>> + Send + Sync;

impl Completer {
    fn later<F, Fut>(f: F) -> Self
    where
        F: Fn(CompleteParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Completion, ErrorObject>> + Send + 'static,
    {
        Self::Later(Arc::new(move |params| Box::pin(f(params))))
    }

    /// The completion of `params`.
    pub async fn complete(&self, params: CompleteParams) -> Result<Completion, ErrorObject> {
        match self {
            Self::Values(f) => {
                let values = f(&params.argument.name, &params.argument.value);
                let (total, has_more) = (values.len() as u64, values.len() > 100);
                Ok(Completion::new(values).with_total(total).with_has_more(has_more))
            }
            Self::Later(f) => f(params).await,
        }
    }
}

impl fmt::Debug for Completer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Completer")
    }
}

type HandlerFn<T> = dyn Fn(RequestContext) -> BoxFuture<'static, HandlerResult<T>> + Send + Sync;

/// A type-erased async handler.
pub(crate) struct Handler<T>(Arc<HandlerFn<T>>);

impl<T> Clone for Handler<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> fmt::Debug for Handler<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Handler")
    }
}

impl<T: 'static> Handler<T> {
    /// Wrap an async fn of the request context.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<T>> + Send + 'static,
    {
        Self(Arc::new(move |cx| Box::pin(f(cx))))
    }

    /// Wrap a fn whose futures are boxed already (a declared item's legs), without boxing
    /// each one again.
    pub(crate) fn boxed<F>(f: F) -> Self
    where
        F: Fn(RequestContext) -> BoxFuture<'static, HandlerResult<T>> + Send + Sync + 'static,
    {
        Self(Arc::new(f))
    }

    pub(crate) fn call(&self, cx: RequestContext) -> BoxFuture<'static, HandlerResult<T>> {
        (self.0)(cx)
    }
}

/// A tool and its handler.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The definition `tools/list` shows.
    pub tool: Tool,
    /// The questions a declared tool may ask (none for a manual handler).
    pub graph: Option<Arc<Graph>>,
    pub(crate) needs: Vec<StateNeed>,
    /// Each sealed state is accepted once (`#[tool(single_use)]`).
    pub(crate) single_use: bool,
    /// The OAuth scopes a caller's token must grant (`#[tool(scopes = [...])]`).
    pub(crate) scopes: Vec<String>,
    pub(crate) handler: Handler<CallToolResult>,
    /// The view this tool brought with it (`#[tool(ui = VIEW)]`, [`with_view`](Self::with_view)),
    /// registered with the tool.
    pub(crate) bundled_view: Option<Box<ResourceDef>>,
    /// The input schema's `x-mcp-header` marks, found on the first call that needs them
    /// (cleared when the server registers the tool).
    #[cfg(feature = "http")]
    pub(crate) header_marks: std::sync::OnceLock<Vec<super::HeaderMark>>,
    /// Whether the handler may send log notifications (the server then announces `logging`).
    pub(crate) logs: bool,
}

impl ToolDef {
    /// Put `meta`'s keys in the definition's `_meta` (what the list shows), beside those
    /// already there (a view's link, its `ui` metadata).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.tool.meta.get_or_insert_with(JsonObject::new).extend(meta);
        self
    }

    /// The handler sends no log notifications: a server whose handlers all say so does not
    /// announce `logging` (declared fns that take no request context say so themselves).
    pub fn silent(mut self) -> Self {
        self.logs = false;
        self
    }

    /// A tool answered by `handler`.
    ///
    /// ```
    /// use roundtrip::server::{Outcome, ToolDef};
    /// use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
    ///
    /// let def = ToolDef::new(Tool::new("hello", empty_input_schema()), |_cx| async {
    ///     Ok(Outcome::Complete(CallToolResult::text("Hello!")))
    /// });
    /// assert_eq!(def.tool.name, "hello");
    /// ```
    pub fn new<F, Fut>(tool: Tool, handler: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<CallToolResult>> + Send + 'static,
    {
        Self::with_handler(tool, Handler::new(handler))
    }

    pub(crate) fn with_handler(tool: Tool, handler: Handler<CallToolResult>) -> Self {
        Self {
            tool,
            graph: None,
            needs: Vec::new(),
            single_use: false,
            scopes: Vec::new(),
            handler,
            bundled_view: None,
            #[cfg(feature = "http")]
            header_marks: std::sync::OnceLock::new(),
            logs: true,
        }
    }

    /// Link this tool to the view at `uri` (MCP Apps): a host that supports the extension
    /// renders the tool's results in it. Sets `_meta.ui.resourceUri` and the deprecated flat
    /// `_meta["ui/resourceUri"]` that early hosts read. The view must be registered on the
    /// server ([`Server::check`](crate::server::Server::check) refuses to start otherwise); a client
    /// without the extension gets the tool without the link.
    ///
    /// ```
    /// use roundtrip::server::ToolDef;
    /// use roundtrip::protocol::{CallToolResult, Tool, UiToolMeta, Visibility, empty_input_schema};
    /// use roundtrip::server::Outcome;
    ///
    /// let def = ToolDef::new(Tool::new("refresh", empty_input_schema()), |_cx| async {
    ///     Ok(Outcome::Complete(CallToolResult::text("Refreshed.")))
    /// })
    /// .view("ui://demo/dashboard")
    /// .visibility([Visibility::App]);
    /// let ui = UiToolMeta::of(def.tool.meta.as_ref()).unwrap();
    /// assert_eq!(ui.resource_uri.as_deref(), Some("ui://demo/dashboard"));
    /// assert!(ui.app_visible() && !ui.model_visible());
    /// ```
    pub fn view(mut self, uri: impl Into<String>) -> Self {
        let uri = uri.into();
        let meta = self.tool.meta.get_or_insert_with(JsonObject::new);
        meta.insert(META_UI_RESOURCE_URI.into(), serde_json::Value::String(uri.clone()));
        set_ui(meta, "resourceUri", serde_json::Value::String(uri));
        self
    }

    /// Link this tool to `view` and register the view with the tool: what
    /// `#[tool(ui = VIEW)]` does with a `#[view]`.
    pub fn with_view(self, view: ResourceDef) -> Self {
        let mut def = self.view(view.resource.uri.clone());
        def.bundled_view = Some(Box::new(view));
        def
    }

    /// Who may see and call this tool (MCP Apps `_meta.ui.visibility`): the model, views, or
    /// both (the default). Hosts hide a tool whose visibility lacks [`Visibility::Model`]
    /// from their model, and refuse calls from views of a tool whose visibility lacks
    /// [`Visibility::App`].
    pub fn visibility(mut self, visibility: impl IntoIterator<Item = Visibility>) -> Self {
        let mut list: Vec<Visibility> = Vec::new();
        for v in visibility {
            if !list.contains(&v) {
                list.push(v);
            }
        }
        let meta = self.tool.meta.get_or_insert_with(JsonObject::new);
        set_ui(meta, "visibility", serde_json::json!(list));
        self
    }

    /// The `x-mcp-header` marks of the input schema, computed once.
    #[cfg(feature = "http")]
    #[doc(hidden)]
    pub fn header_marks(&self) -> &[super::HeaderMark] {
        self.header_marks.get_or_init(|| super::marks::header_marks(&self.tool.input_schema))
    }

    /// Attach the resolver graph the handler runs, for documentation.
    pub fn with_graph(mut self, graph: Arc<Graph>) -> Self {
        self.graph = Some(graph);
        self
    }

    /// The handler takes this registered state; the server checks it when it starts.
    pub fn needs(mut self, need: StateNeed) -> Self {
        self.needs.push(need);
        self
    }

    /// Accept each sealed `requestState` of this tool once: a replayed state (the same leg
    /// sent again, on this replica or, with a shared replay cache, on another) gets the frozen
    /// `-32602`. For sensitive actions; a client retries only legs that never reached a
    /// server.
    pub fn single_use(mut self) -> Self {
        self.single_use = true;
        self
    }

    /// Accept a sealed `requestState` of this tool more than once (`#[tool(task, replayable)]`):
    /// the opt-out of the single-use default of task tools. A replayed last leg then starts
    /// another task each time (each counted against
    /// [`TaskOptions::max_tasks_per_caller`](crate::task::TaskOptions::max_tasks_per_caller)), which suits
    /// a tool whose task is cheap and whose client resends legs it is unsure of.
    pub fn replayable(mut self) -> Self {
        self.single_use = false;
        self
    }

    /// The OAuth scopes a caller's bearer token must grant to call this tool
    /// (`#[tool(scopes = [...])]`). On an HTTP endpoint protected by a
    /// [`ResourceServer`](https://docs.rs/roundtrip/latest/roundtrip/auth/struct.ResourceServer.html) (feature `auth`), a token without them
    /// is answered `403 insufficient_scope` before any check runs or any question is asked.
    /// Without a protected endpoint (stdio, in memory) there is no token and nothing is
    /// enforced.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes set by [`scopes`](Self::scopes).
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether calls may become tasks (`execution.taskSupport`). A `required` tool answers
    /// `-32021` to a client without the tasks extension before its handler runs.
    ///
    /// A tool that may run as a task accepts each sealed state once (see
    /// [`single_use`](Self::single_use)), so that replaying its last leg cannot start task
    /// after task; [`replayable`](Self::replayable) after this opts out.
    pub fn task_support(mut self, support: crate::protocol::TaskSupport) -> Self {
        if support != crate::protocol::TaskSupport::Forbidden {
            self.single_use = true;
        }
        self.tool.execution = match support {
            crate::protocol::TaskSupport::Forbidden => None,
            other => Some(roundtrip_wire::ToolExecution::new(other)),
        };
        self
    }
}

/// A prompt and its handler.
#[derive(Debug, Clone)]
pub struct PromptDef {
    /// The definition `prompts/list` shows.
    pub prompt: Prompt,
    /// The questions a declared prompt may ask (none for a manual handler).
    pub graph: Option<Arc<Graph>>,
    pub(crate) completer: Option<Completer>,
    pub(crate) needs: Vec<StateNeed>,
    pub(crate) handler: Handler<GetPromptResult>,
    /// Whether the handler may send log notifications (the server then announces `logging`).
    pub(crate) logs: bool,
}

impl PromptDef {
    /// Put `meta`'s keys in the definition's `_meta` (what the list shows), beside those
    /// already there (a view's link, its `ui` metadata).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.prompt.meta.get_or_insert_with(JsonObject::new).extend(meta);
        self
    }

    /// The handler sends no log notifications: a server whose handlers all say so does not
    /// announce `logging` (declared fns that take no request context say so themselves).
    pub fn silent(mut self) -> Self {
        self.logs = false;
        self
    }

    /// A prompt answered by `handler`.
    pub fn new<F, Fut>(prompt: Prompt, handler: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<GetPromptResult>> + Send + 'static,
    {
        Self::with_handler(prompt, Handler::new(handler))
    }

    pub(crate) fn with_handler(prompt: Prompt, handler: Handler<GetPromptResult>) -> Self {
        Self { prompt, graph: None, completer: None, needs: Vec::new(), handler, logs: true }
    }

    /// Complete this prompt's arguments with `f(argument, typed_so_far)`.
    pub fn with_completer(mut self, f: impl Fn(&str, &str) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.completer = Some(Completer::Values(Arc::new(f)));
        self
    }

    /// Complete this prompt's arguments with `f(request)`, in time: for a completion that
    /// asks elsewhere (a gateway asks the server it relays to). Its error is the request's.
    ///
    /// ```
    /// use roundtrip::protocol::{Completion, GetPromptResult, Prompt};
    /// use roundtrip::server::{Outcome, PromptDef};
    ///
    /// let def = PromptDef::new(Prompt::new("pick"), |_cx| async {
    ///     Ok(Outcome::Complete(GetPromptResult::new(vec![])))
    /// })
    /// .with_async_completer(|params| async move {
    ///     // e.g. ask a service; here, echo what was typed
    ///     Ok(Completion::new(vec![params.argument.value]))
    /// });
    /// # let _ = def;
    /// ```
    pub fn with_async_completer<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CompleteParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Completion, ErrorObject>> + Send + 'static,
    {
        self.completer = Some(Completer::later(f));
        self
    }

    /// Attach the resolver graph the handler runs, for documentation.
    pub fn with_graph(mut self, graph: Arc<Graph>) -> Self {
        self.graph = Some(graph);
        self
    }

    /// The handler takes this registered state; the server checks it when it starts.
    pub fn needs(mut self, need: StateNeed) -> Self {
        self.needs.push(need);
        self
    }
}

/// Set `key` of the `_meta.ui` object of a `_meta` (made an object if it is not one).
fn set_ui(meta: &mut JsonObject, key: &str, value: serde_json::Value) {
    let mut ui = match meta.remove(META_UI) {
        Some(serde_json::Value::Object(ui)) => ui,
        _ => JsonObject::new(),
    };
    ui.insert(key.into(), value);
    meta.insert(META_UI.into(), serde_json::Value::Object(ui));
}

/// A static resource and its reader.
#[derive(Debug, Clone)]
pub struct ResourceDef {
    /// The definition `resources/list` shows.
    pub resource: Resource,
    pub(crate) needs: Vec<StateNeed>,
    pub(crate) handler: Handler<ReadResourceResult>,
    /// Whether the handler may send log notifications (the server then announces `logging`).
    pub(crate) logs: bool,
}

impl ResourceDef {
    /// Put `meta`'s keys in the definition's `_meta` (what the list shows), beside those
    /// already there (a view's link, its `ui` metadata).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.resource.meta.get_or_insert_with(JsonObject::new).extend(meta);
        self
    }

    /// The handler sends no log notifications: a server whose handlers all say so does not
    /// announce `logging` (declared fns that take no request context say so themselves).
    pub fn silent(mut self) -> Self {
        self.logs = false;
        self
    }

    /// A resource read by `handler`.
    pub fn new<F, Fut>(resource: Resource, handler: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<ReadResourceResult>> + Send + 'static,
    {
        Self { resource, needs: Vec::new(), handler: Handler::new(handler), logs: true }
    }

    /// A view (MCP Apps): an HTML document at a `ui://` URI, read by `handler`, with what the
    /// host's sandbox should allow it (`ui`). The resource is listed and read with the MIME
    /// type [`VIEW_MIME_TYPE`], and every content item the handler returns carries `ui` as
    /// its `_meta.ui` (so does the list entry, which hosts may read as a fallback).
    /// `#[view]` declares one.
    ///
    /// ```
    /// use roundtrip::server::{Outcome, ResourceDef};
    /// use roundtrip::protocol::{ReadResourceResult, Resource, ResourceContents, UiResourceMeta};
    ///
    /// let ui = UiResourceMeta::default().with_prefers_border(true);
    /// let view = ResourceDef::view(Resource::new("ui://demo/dashboard", "dashboard"), ui, |_cx| async {
    ///     let html = ResourceContents::text("ui://demo/dashboard", None, "<!doctype html><p>Hello</p>");
    ///     Ok(Outcome::Complete(ReadResourceResult::new(vec![html])))
    /// });
    /// assert_eq!(view.resource.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    /// ```
    pub fn view<F, Fut>(mut resource: Resource, ui: UiResourceMeta, handler: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<ReadResourceResult>> + Send + 'static,
    {
        resource.mime_type = Some(VIEW_MIME_TYPE.to_owned());
        let ui = serde_json::to_value(&ui).unwrap_or_else(|_| serde_json::Value::Object(JsonObject::new()));
        if ui.as_object().is_some_and(|o| !o.is_empty()) {
            resource.meta.get_or_insert_with(JsonObject::new).insert(META_UI.into(), ui.clone());
        }
        let handler = Arc::new(handler);
        Self::new(resource, move |cx| {
            let (handler, ui) = (handler.clone(), ui.clone());
            async move {
                let mut outcome = handler(cx).await?;
                if let Outcome::Complete(result) = &mut outcome {
                    for contents in &mut result.contents {
                        dress_view(contents, &ui);
                    }
                }
                Ok(outcome)
            }
        })
    }

    /// Whether this resource is a view (MCP Apps): its MIME type is [`VIEW_MIME_TYPE`].
    pub fn is_view(&self) -> bool {
        self.resource.mime_type.as_deref() == Some(VIEW_MIME_TYPE)
    }

    /// The handler takes this registered state; the server checks it when it starts.
    pub fn needs(mut self, need: StateNeed) -> Self {
        self.needs.push(need);
        self
    }
}

/// A view's content item: its MIME type (unless the handler chose one) and `_meta.ui`
/// (unless the handler set one).
fn dress_view(contents: &mut ResourceContents, ui: &serde_json::Value) {
    let (ResourceContents::Text { mime_type, meta, .. } | ResourceContents::Blob { mime_type, meta, .. }) = contents
    else {
        return;
    };
    mime_type.get_or_insert_with(|| VIEW_MIME_TYPE.to_owned());
    if ui.as_object().is_some_and(|o| !o.is_empty()) {
        meta.get_or_insert_with(JsonObject::new).entry(META_UI).or_insert_with(|| ui.clone());
    }
}

/// A resource template, its URI matcher and its reader.
#[derive(Debug, Clone)]
pub struct ResourceTemplateDef {
    /// The definition `resources/templates/list` shows.
    pub template: ResourceTemplate,
    /// The questions a declared template may ask (none for a manual handler).
    pub graph: Option<Arc<Graph>>,
    pub(crate) completer: Option<Completer>,
    pub(crate) matcher: UriTemplate,
    pub(crate) needs: Vec<StateNeed>,
    pub(crate) handler: Handler<ReadResourceResult>,
    /// Whether the handler may send log notifications (the server then announces `logging`).
    pub(crate) logs: bool,
}

impl ResourceTemplateDef {
    /// Put `meta`'s keys in the definition's `_meta` (what the list shows), beside those
    /// already there (a view's link, its `ui` metadata).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.template.meta.get_or_insert_with(JsonObject::new).extend(meta);
        self
    }

    /// The handler sends no log notifications: a server whose handlers all say so does not
    /// announce `logging` (declared fns that take no request context say so themselves).
    pub fn silent(mut self) -> Self {
        self.logs = false;
        self
    }

    /// A template read by `handler`; the handler finds the variables in
    /// [`RequestContext::uri_variable`].
    ///
    /// Fails when the template is not a valid RFC 6570 level-1 template.
    pub fn new<F, Fut>(template: ResourceTemplate, handler: F) -> Result<Self, super::uri_template::TemplateError>
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<ReadResourceResult>> + Send + 'static,
    {
        Self::with_handler(template, Handler::new(handler))
    }

    pub(crate) fn with_handler(
        template: ResourceTemplate,
        handler: Handler<ReadResourceResult>,
    ) -> Result<Self, super::uri_template::TemplateError> {
        let matcher = UriTemplate::parse(&template.uri_template)?;
        Ok(Self { template, graph: None, completer: None, matcher, needs: Vec::new(), handler, logs: true })
    }

    /// Complete this template's variables with `f(variable, typed_so_far)`.
    pub fn with_completer(mut self, f: impl Fn(&str, &str) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.completer = Some(Completer::Values(Arc::new(f)));
        self
    }

    /// Complete this template's variables with `f(request)`, in time (see
    /// [`PromptDef::with_async_completer`]).
    pub fn with_async_completer<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CompleteParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Completion, ErrorObject>> + Send + 'static,
    {
        self.completer = Some(Completer::later(f));
        self
    }

    /// Attach the resolver graph the handler runs, for documentation.
    pub fn with_graph(mut self, graph: Arc<Graph>) -> Self {
        self.graph = Some(graph);
        self
    }

    /// The handler takes this registered state; the server checks it when it starts.
    pub fn needs(mut self, need: StateNeed) -> Self {
        self.needs.push(need);
        self
    }
}

/// A static resource or a template, as `resources![…]` gives them.
#[derive(Debug, Clone)]
pub enum ResourceEntry {
    /// A resource at a fixed URI.
    Static(ResourceDef),
    /// A family of resources matched by a URI template.
    Template(ResourceTemplateDef),
}

impl ResourceEntry {
    /// The handler takes this registered state; the server checks it when it starts.
    pub fn needs(self, need: StateNeed) -> Self {
        match self {
            Self::Static(def) => Self::Static(def.needs(need)),
            Self::Template(def) => Self::Template(def.needs(need)),
        }
    }

    /// Put `meta` in the definition's `_meta`.
    pub fn meta(self, meta: JsonObject) -> Self {
        match self {
            Self::Static(def) => Self::Static(def.meta(meta)),
            Self::Template(def) => Self::Template(def.meta(meta)),
        }
    }

    /// The handler sends no log notifications (see [`ToolDef::silent`]).
    pub fn silent(self) -> Self {
        match self {
            Self::Static(def) => Self::Static(def.silent()),
            Self::Template(def) => Self::Template(def.silent()),
        }
    }

    /// Complete a template's variables with `f(variable, typed_so_far)`; a static resource has
    /// none and is returned unchanged.
    pub fn with_completer(self, f: impl Fn(&str, &str) -> Vec<String> + Send + Sync + 'static) -> Self {
        match self {
            Self::Template(def) => Self::Template(def.with_completer(f)),
            other => other,
        }
    }
}
