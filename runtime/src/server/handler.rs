//! The manual (low-level) API: handlers that answer a complete result or an
//! [`InputRequired`] round, and the definitions that register them.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;

use super::context::RequestContext;
use super::uri_template::UriTemplate;
use crate::declare::StateNeed;
use crate::protocol::{
    CallToolResult, CreateMessageParams, ElicitParams, ErrorObject, GetPromptResult, InputRequest, InputRequests,
    JsonObject, ListRootsParams, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};
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
    Task(crate::protocol::Task),
}

impl<T> From<InputRequired> for Outcome<T> {
    fn from(round: InputRequired) -> Self {
        Self::InputRequired(round)
    }
}

/// One round of questions, and the state the next leg needs.
///
/// The state is plaintext here: the server seals it before it leaves and verifies and unseals
/// it on the retry, so a handler never sees a token.
///
/// ```
/// use roundtrip::server::InputRequired;
/// use roundtrip::protocol::JsonObject;
///
/// let round = InputRequired::new()
///     .elicit("user_name", "What is your name?", serde_json::from_str::<JsonObject>(
///         r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
///     ).unwrap())
///     .state(&("step", 1));
/// assert_eq!(round.requests().len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputRequired {
    requests: InputRequests,
    state: Option<Vec<u8>>,
}

impl InputRequired {
    /// An empty round; add questions or state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask `request` under `key`; the retry answers under the same key.
    pub fn ask(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.requests.insert(key.into(), request);
        self
    }

    /// Ask the user to fill a form.
    pub fn elicit(self, key: impl Into<String>, message: impl Into<String>, requested_schema: JsonObject) -> Self {
        self.ask(key, InputRequest::Elicit(ElicitParams::form(message, requested_schema)))
    }

    /// Ask the user to open a URL.
    pub fn elicit_url(self, key: impl Into<String>, message: impl Into<String>, url: impl Into<String>) -> Self {
        self.ask(key, InputRequest::Elicit(ElicitParams::url(message, url)))
    }

    /// Ask the client's model.
    pub fn sample(self, key: impl Into<String>, params: CreateMessageParams) -> Self {
        self.ask(key, InputRequest::CreateMessage(params))
    }

    /// Ask for the client's roots.
    pub fn list_roots(self, key: impl Into<String>) -> Self {
        self.ask(key, InputRequest::ListRoots(ListRootsParams::default()))
    }

    /// Carry a typed value to the next leg; read it back with [`RequestContext::state`].
    pub fn state<S: Serialize + ?Sized>(mut self, state: &S) -> Self {
        // Serializing plain data into a Vec cannot fail for types with derived Serialize;
        // a type whose Serialize fails carries no state, and the retry sees none.
        self.state = serde_json::to_vec(state).ok();
        self
    }

    /// Carry raw bytes to the next leg.
    pub fn raw_state(mut self, bytes: Vec<u8>) -> Self {
        self.state = Some(bytes);
        self
    }

    /// The questions of this round.
    pub fn requests(&self) -> &InputRequests {
        &self.requests
    }

    /// The plaintext state of this round.
    pub fn state_bytes(&self) -> Option<&[u8]> {
        self.state.as_deref()
    }

    pub(crate) fn into_parts(self) -> (InputRequests, Option<Vec<u8>>) {
        (self.requests, self.state)
    }
}

/// What a handler returns.
pub type HandlerResult<T> = Result<Outcome<T>, ErrorObject>;

/// Suggests values for one argument of a prompt or variable of a template: given the
/// argument's name and what was typed so far, the candidates (at most 100 are sent).
#[derive(Clone)]
pub struct Completer(Arc<CompleteFn>);

type CompleteFn = dyn Fn(&str, &str) -> Vec<String> + Send + Sync;

impl Completer {
    /// The candidates for `argument` given what was typed so far.
    pub fn complete(&self, argument: &str, typed: &str) -> Vec<String> {
        (self.0)(argument, typed)
    }
}

impl fmt::Debug for Completer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Completer")
    }
}

type HandlerFn<T> = dyn Fn(RequestContext) -> BoxFuture<'static, HandlerResult<T>> + Send + Sync;

/// A type-erased async handler.
pub struct Handler<T>(Arc<HandlerFn<T>>);

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
    /// The input schema's `x-mcp-header` marks, found on the first call that needs them
    /// (cleared when the server registers the tool).
    #[cfg(feature = "http")]
    pub(crate) header_marks: std::sync::OnceLock<Vec<crate::transport::http::headers::HeaderMark>>,
    /// Whether the handler may send log notifications (the server then announces `logging`).
    pub(crate) logs: bool,
}

impl ToolDef {
    /// Put `meta` in the definition's `_meta` (what the list shows).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.tool.meta = Some(meta);
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
        Self {
            tool,
            graph: None,
            needs: Vec::new(),
            single_use: false,
            scopes: Vec::new(),
            handler: Handler::new(handler),
            #[cfg(feature = "http")]
            header_marks: std::sync::OnceLock::new(),
            logs: true,
        }
    }

    /// The `x-mcp-header` marks of the input schema, computed once.
    #[cfg(feature = "http")]
    pub(crate) fn header_marks(&self) -> &[crate::transport::http::headers::HeaderMark] {
        self.header_marks.get_or_init(|| crate::transport::http::headers::header_marks(&self.tool.input_schema))
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
    /// [`ResourceServer`](crate::auth::ResourceServer) (feature `auth`), a token without them
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
            other => Some(crate::protocol::ToolExecution { task_support: other }),
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
    /// Put `meta` in the definition's `_meta` (what the list shows).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.prompt.meta = Some(meta);
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
        Self { prompt, graph: None, completer: None, needs: Vec::new(), handler: Handler::new(handler), logs: true }
    }

    /// Complete this prompt's arguments with `f(argument, typed_so_far)`.
    pub fn with_completer(mut self, f: impl Fn(&str, &str) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.completer = Some(Completer(Arc::new(f)));
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
    /// Put `meta` in the definition's `_meta` (what the list shows).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.resource.meta = Some(meta);
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

    /// The handler takes this registered state; the server checks it when it starts.
    pub fn needs(mut self, need: StateNeed) -> Self {
        self.needs.push(need);
        self
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
    /// Put `meta` in the definition's `_meta` (what the list shows).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.template.meta = Some(meta);
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
        let matcher = UriTemplate::parse(&template.uri_template)?;
        Ok(Self {
            template,
            graph: None,
            completer: None,
            matcher,
            needs: Vec::new(),
            handler: Handler::new(handler),
            logs: true,
        })
    }

    /// Complete this template's variables with `f(variable, typed_so_far)`.
    pub fn with_completer(mut self, f: impl Fn(&str, &str) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.completer = Some(Completer(Arc::new(f)));
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
