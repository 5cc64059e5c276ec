//! The glue between the macros and the runtime: what a `#[tool]` expands to calls these.
//! Users see [`Json`], [`ToolFactory`] and the parameter traits; the rest is reached through
//! `roundtrip::__private`.

mod params;
mod returns;
mod state;

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::server::StateNeed;
pub use params::{
    Argument, Choice, Elicit, FormField, FormSchema, RootsOutput, SampleOutput, TextArgument, UrlOutput, check,
    elicit_schema, schema_of,
};
pub use returns::{Blob, Json, PromptReturn, PromptReturns, ResourceReturn, ResourceReturns, Returns, ToolReturn};
pub use state::{State, StateParam};

/// What [`Server::check`](crate::Server::check) reported before it checked views too.
#[deprecated(note = "renamed `CheckError`: `Server::check` reports missing views as well as missing state")]
pub type MissingState = crate::server::CheckError;

use crate::error::{Error, IntoError};
use crate::protocol::{
    CallToolResult, ErrorObject, GetPromptResult, JsonObject, Prompt, PromptArgument, ProtocolVersion,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, TaskSupport, Tool, ToolAnnotations, UiCsp,
    UiPermissions, UiResourceMeta,
};
use crate::resolve::{Check, Graph, Leg, Question, Resolution, Resolved, Values, evaluate};
use crate::server::{Outcome, PromptDef, RequestContext, ResourceDef, ResourceEntry, ResourceTemplateDef, ToolDef};

/// A tool declared with `#[tool]`; `tools![…]` calls [`def`](Self::def).
pub trait ToolFactory {
    /// The tool's name.
    const NAME: &'static str;
    /// The definition and handler.
    fn def() -> ToolDef;
}

/// A prompt declared with `#[prompt]`; `prompts![…]` calls [`def`](Self::def).
pub trait PromptFactory {
    /// The prompt's name.
    const NAME: &'static str;
    /// The definition and handler.
    fn def() -> PromptDef;
}

/// A resource declared with `#[resource]` or `#[resource_template]`; `resources![…]` calls
/// [`def`](Self::def).
pub trait ResourceFactory {
    /// The resource's name.
    const NAME: &'static str;
    /// The definition and handler.
    fn def() -> ResourceEntry;
}

/// A view declared with `#[view]` (MCP Apps); `#[tool(ui = VIEW)]` links a tool to it, and
/// `resources![…]` lists it as a static resource.
#[diagnostic::on_unimplemented(
    message = "`ui = …` names a #[view], and this is not one",
    label = "not a #[view]",
    note = "declare the view with #[view(\"ui://…\")] on a const holding its HTML or on a fn returning it; a #[resource] is not a view"
)]
pub trait ViewFactory: ResourceFactory {
    /// The view's `ui://` URI.
    const URI: &'static str;
    /// The view's definition.
    fn view() -> ResourceDef;
}

/// What a `with` resolver returns: a value without asking, or one question. A `with` fn may
/// also return `Result<Resolve<T>, E>`: an error ends the call (see [`Error`]).
// Made once per leg and consumed at once: boxing the question would only cost an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Resolve<T> {
    /// The value; no round trip.
    Value(T),
    /// Ask this.
    Ask(Question),
}

/// What a `with` fn may return for a parameter of type `T`.
#[diagnostic::on_unimplemented(
    message = "a `with` fn for a `{T}` parameter cannot return `{Self}`",
    label = "the `with` fn's return type",
    note = "return Resolve<{T}> (a value or a question), or Result<Resolve<{T}>, E> to end the call with E"
)]
pub trait WithReturn<T> {
    /// The resolution, or the error that ends the call.
    fn into_resolve(self) -> Result<Resolve<T>, Error>;
}

impl<T> WithReturn<T> for Resolve<T> {
    fn into_resolve(self) -> Result<Resolve<T>, Error> {
        Ok(self)
    }
}

impl<T, E: IntoError> WithReturn<T> for Result<Resolve<T>, E> {
    fn into_resolve(self) -> Result<Resolve<T>, Error> {
        self.map_err(IntoError::into_error)
    }
}

/// A type a `with` fn can give: its value travels in the sealed state between legs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be given by a `with` fn",
    label = "needs Serialize and Deserialize",
    note = "a `with` fn's value travels in the sealed requestState so that the fn runs once per flow: derive serde's Serialize and Deserialize on it"
)]
pub trait WithValue: Serialize + DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> WithValue for T {}

#[doc(hidden)]
pub fn into_resolution<T: WithValue>(r: impl WithReturn<T>) -> Result<Resolution, Error> {
    match r.into_resolve()? {
        Resolve::Value(v) => serde_json::to_value(v)
            .map(Resolution::Value)
            .map_err(|e| Error::internal(format!("a `with` resolver's value did not serialize: {e}"))),
        Resolve::Ask(q) => Ok(Resolution::Ask(q)),
    }
}

/// What a check returns: `Ok(())` to go on, or an error that ends the call.
#[diagnostic::on_unimplemented(
    message = "a check cannot return `{Self}`",
    label = "the check's return type",
    note = "a check is a fn (async or not) returning Result<(), E> where E is roundtrip::Error or implements Display"
)]
pub trait CheckReturn {
    /// Go on, or end the call.
    fn into_check(self) -> Result<(), Error>;
}

impl<E: IntoError> CheckReturn for Result<(), E> {
    fn into_check(self) -> Result<(), Error> {
        self.map_err(IntoError::into_error)
    }
}

#[doc(hidden)]
pub fn into_check(r: impl CheckReturn) -> Result<(), Error> {
    r.into_check()
}

#[doc(hidden)]
pub fn from_json<T: DeserializeOwned>(name: &str, v: Value) -> Result<T, Error> {
    serde_json::from_value(v).map_err(|e| Error::internal(format!("`{name}` does not fit its type: {e}")))
}

/// A declaration's `meta = "…"`, which the macro checked is a JSON object.
#[doc(hidden)]
pub fn meta_object(json: &str) -> JsonObject {
    serde_json::from_str(json).unwrap_or_default()
}

/// An argument of a `check` or `with` fn, read from the JSON its future holds: the fn may take
/// it owned (`String`) or borrowed from there (`&str`).
#[doc(hidden)]
pub fn from_arg<'a, T: Deserialize<'a>>(name: &str, v: &'a Value) -> Result<T, Error> {
    T::deserialize(v).map_err(|e| Error::internal(format!("`{name}` does not fit its type: {e}")))
}

/// The outcome of a `check` or `with` fn's call, async or not: [`CalledAsync`] for a future
/// (taken first, by method resolution), [`CalledSync`] for a plain value, which is made ready.
#[doc(hidden)]
pub struct Called<T>(std::cell::Cell<Option<T>>);

impl<T> std::fmt::Debug for Called<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Called")
    }
}

impl<T> Called<T> {
    #[doc(hidden)]
    pub fn new(value: T) -> Self {
        Self(std::cell::Cell::new(Some(value)))
    }

    fn take(&self) -> T {
        // Settled once, by the generated code.
        self.0.take().unwrap_or_else(|| unreachable!("a call is settled once"))
    }
}

#[doc(hidden)]
pub trait CalledAsync<F> {
    fn settle(&self) -> F;
}

impl<F: Future> CalledAsync<F> for Called<F> {
    fn settle(&self) -> F {
        self.take()
    }
}

#[doc(hidden)]
pub trait CalledSync<T> {
    fn settle(&self) -> std::future::Ready<T>;
}

impl<T> CalledSync<T> for &Called<T> {
    fn settle(&self) -> std::future::Ready<T> {
        std::future::ready(self.take())
    }
}

/// A `State<T>` parameter's value for this request.
#[doc(hidden)]
pub fn state_param<S: StateParam>(cx: &RequestContext) -> Result<S, Error> {
    S::extract(cx)
}

/// The need of a `State<T>` parameter.
#[doc(hidden)]
pub fn state_need<S: StateParam>() -> StateNeed {
    S::need()
}

/// The static description of a declared tool.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub annotations: Option<ToolAnnotations>,
    pub task: TaskSupport,
}

/// One argument of a declared tool, for its input schema.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Field {
    pub name: &'static str,
    pub schema: Value,
    pub description: Option<&'static str>,
    pub required: bool,
    /// `#[arg(flatten)]`: the schema's properties are the tool's own.
    pub flatten: bool,
}

/// The JSON schema of an argument's type, without the root keywords that only make sense at
/// a document's root (`$schema`, the type's name as `title`).
#[doc(hidden)]
pub fn argument_schema<T: Argument>() -> Value {
    argument_schema_of::<T>()
}

/// The input schema of a declared tool: an object of its arguments.
#[doc(hidden)]
pub fn input_schema(fields: Vec<Field>) -> JsonObject {
    let mut properties = JsonObject::new();
    let mut required = Vec::new();
    let mut open = None;
    for field in fields {
        if field.flatten {
            // The struct's properties and required ones (or an open object's
            // `additionalProperties`) become the tool's. A schema that allows anything (`{}`, a
            // `serde_json::Value`'s) flattened is the whole arguments object, which is an
            // object: open, as a `Map`'s.
            if field.schema.as_object().is_some_and(JsonObject::is_empty) {
                open = Some(Value::Bool(true));
            } else if let Value::Object(mut flat) = field.schema {
                if let Some(Value::Object(props)) = flat.remove("properties") {
                    properties.extend(props);
                }
                if let Some(Value::Array(names)) = flat.remove("required") {
                    required.extend(names);
                }
                if let Some(additional) = flat.remove("additionalProperties") {
                    open = Some(additional);
                }
            }
            continue;
        }
        let mut schema = field.schema;
        if let (Some(description), Some(obj)) = (field.description, schema.as_object_mut()) {
            obj.insert("description".into(), Value::String(description.into()));
        }
        properties.insert(field.name.into(), schema);
        if field.required {
            required.push(Value::String(field.name.into()));
        }
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if let Some(open) = open {
        schema.insert("additionalProperties".into(), open);
    }
    schema
}

/// A `#[arg(flatten)]` argument: the whole arguments object, as the struct (or open object) it
/// stands for. A wrong one ends the call naming what was wrong, as a plain argument does.
#[doc(hidden)]
pub fn flattened<T: Argument>(item: &str, args: &JsonObject) -> Result<T, Error> {
    // Deserialized from the borrowed object: no copy of the arguments.
    T::deserialize(serde::de::value::MapDeserializer::new(args.iter().map(|(k, v)| (k.as_str(), v))))
        .map_err(|e: serde_json::Error| Error::new(format!("Invalid arguments for {item}: {e}")))
}

/// One argument of a call, as its type. A missing or ill-typed one ends the call naming it:
/// a tool answers an `isError` result (SEP-1303), a prompt or resource `-32602`.
#[doc(hidden)]
pub fn argument<T: Argument>(item: &str, args: &JsonObject, name: &str) -> Result<T, Error> {
    T::deserialize(args.get(name).unwrap_or(&Value::Null)).map_err(|e| {
        let why = if args.contains_key(name) { e.to_string() } else { "it is missing".to_owned() };
        Error::new(format!("Invalid arguments for {item}: `{name}`: {why}"))
    })
}

/// Build the definition of a declared tool: parse the arguments, run the resolver graph, and
/// call the body when everything is known.
#[doc(hidden)]
pub fn tool<A, P, F, Fut>(
    spec: ToolSpec,
    input_schema: JsonObject,
    output_schema: Option<JsonObject>,
    graph: Graph,
    parse: P,
    body: F,
) -> ToolDef
where
    A: Send + 'static,
    P: Fn(&JsonObject) -> Result<A, Error> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<CallToolResult>, Error>> + Send + 'static,
{
    let tool = Tool {
        title: spec.title.map(Into::into),
        description: spec.description.map(Into::into),
        output_schema,
        annotations: spec.annotations.clone(),
        ..Tool::new(spec.name, input_schema)
    };
    let graph = Arc::new(graph);
    let refused = |name: &str, what: &str| {
        Error::new(format!("The user {what} the question for `{name}`, so the tool did not run."))
    };
    let support = spec.task;
    let body = Arc::new(body);
    let run = move |args: A, values: Values, cx: RequestContext| -> LegBody<CallToolResult> {
        if support == TaskSupport::Forbidden || !cx.accepts_tasks() {
            return Box::pin(body(args, values, cx));
        }
        let body = body.clone();
        as_task(cx, Box::new(move |cx| Box::pin(body(args, values, cx))))
    };
    ToolDef::new(tool, declared(graph.clone(), parse, run, refused)).with_graph(graph).task_support(support)
}

type LegBody<T> = std::pin::Pin<Box<dyn Future<Output = Result<Outcome<T>, Error>> + Send>>;

/// A tool's body, started with the context of the task it runs in.
type TaskStart = Box<dyn FnOnce(RequestContext) -> LegBody<CallToolResult> + Send>;

/// Run a tool's body as a task: create the task, start the body in it, answer with the task.
/// Not generic, so it is compiled once, not once per tool.
fn as_task(cx: RequestContext, start: TaskStart) -> LegBody<CallToolResult> {
    Box::pin(async move {
        let (tasks, name) = (cx.server().tasks().clone(), cx.target().to_owned());
        let (owner, caller) = (cx.owner.clone(), cx.caller());
        let seed = tasks
            .spawn(owner.as_deref(), caller.as_deref(), move |link| {
                let id = link.id.clone();
                let run = start(cx.into_task(link));
                crate::observe::in_task(name.clone(), id, async move { task_result(run.await, &name) })
            })
            .await
            .map_err(Error::rpc)?;
        Ok(Outcome::Task(seed))
    })
}

/// What a task's body ended with, as the task records it: a result (a tool's refusal is a
/// result with `isError`), or the JSON-RPC error that fails the task.
fn task_result(outcome: Result<Outcome<CallToolResult>, Error>, tool: &str) -> Result<CallToolResult, ErrorObject> {
    match outcome {
        Ok(Outcome::Complete(result)) => Ok(result),
        Ok(Outcome::InputRequired(_) | Outcome::Task(_)) => Err(ErrorObject::internal(format!(
            "`{tool}` answered input_required from a task; a task asks with TaskContext::ask"
        ))),
        Err(e) if e.kind() == crate::error::ErrorKind::Refused => Ok(CallToolResult::error(e.message())),
        Err(e) => Err(e.to_rpc("tools/call", tool, crate::protocol::ProtocolVersion::V2026_07_28)),
    }
}

/// What a declared item's failure becomes: a tool's refusal is an `isError` result; every
/// other failure is a JSON-RPC error for the request's method, target and revision.
trait Finish: Sized {
    fn refusal(message: String) -> Option<Self>;
}

impl Finish for CallToolResult {
    fn refusal(message: String) -> Option<Self> {
        Some(Self::error(message))
    }
}

impl Finish for GetPromptResult {
    fn refusal(_: String) -> Option<Self> {
        None
    }
}

impl Finish for ReadResourceResult {
    fn refusal(_: String) -> Option<Self> {
        None
    }
}

/// Where a failure happened, to answer it as the protocol expects.
struct Site {
    method: &'static str,
    target: Arc<str>,
    version: ProtocolVersion,
}

impl Site {
    fn of(cx: &RequestContext) -> Self {
        Self { method: cx.method(), target: Arc::clone(&cx.target), version: cx.protocol_version() }
    }

    fn finish<T: Finish>(&self, result: Result<Outcome<T>, Error>) -> Result<Outcome<T>, ErrorObject> {
        let error = match result {
            Ok(outcome) => return Ok(outcome),
            Err(e) => e,
        };
        if error.kind() == crate::error::ErrorKind::Refused
            && let Some(result) = T::refusal(error.message().to_owned())
        {
            return Ok(Outcome::Complete(result));
        }
        Err(error.to_rpc(self.method, &self.target, self.version))
    }
}

/// One leg of a declared item's handler.
type LegFuture<T> = std::pin::Pin<Box<dyn Future<Output = Result<Outcome<T>, ErrorObject>> + Send>>;

/// The handler shared by every declared item: parse the arguments, run the checks, evaluate
/// the graph, end a refused flow with `refused(parameter, "declined" | "cancelled")`, or run
/// the body; any failure becomes what the protocol expects of the item's kind.
fn declared<T, A, P, F, Fut, R>(
    graph: Arc<Graph>,
    parse: P,
    body: F,
    refused: R,
) -> impl Fn(RequestContext) -> LegFuture<T> + Send + Sync + 'static
where
    T: Finish + Send + 'static,
    A: Send + 'static,
    P: Fn(&JsonObject) -> Result<A, Error> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<T>, Error>> + Send + 'static,
    R: Fn(&str, &str) -> Error + Send + Sync + 'static,
{
    let parse = Arc::new(parse);
    let body = Arc::new(body);
    let refused = Arc::new(refused);
    move |cx: RequestContext| {
        let (graph, parse, body, refused) = (graph.clone(), parse.clone(), body.clone(), refused.clone());
        Box::pin(async move {
            let site = Site::of(&cx);
            let run = async {
                let args = parse(&cx.inputs())?;
                if graph.nodes().is_empty() && graph.checks().is_empty() {
                    return body(args, Values::default(), cx).await;
                }
                match evaluate(&graph, &cx).await? {
                    Leg::Ask(round) => Ok(Outcome::InputRequired(round)),
                    Leg::Refused { name, outcome } => {
                        Err(refused(name, if outcome == Resolved::Cancelled { "cancelled" } else { "declined" }))
                    }
                    Leg::Ready(values) => body(args, values, cx).await,
                }
            };
            site.finish(run.await)
        })
    }
}

/// Build the definition of a declared prompt.
#[doc(hidden)]
pub fn prompt<A, P, F, Fut>(spec: ToolSpec, arguments: Vec<Field>, graph: Graph, parse: P, body: F) -> PromptDef
where
    A: Send + 'static,
    P: Fn(&JsonObject) -> Result<A, Error> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<GetPromptResult>, Error>> + Send + 'static,
{
    let prompt = Prompt {
        title: spec.title.map(Into::into),
        description: spec.description.map(Into::into),
        arguments: (!arguments.is_empty()).then(|| {
            arguments
                .into_iter()
                .map(|f| PromptArgument {
                    name: f.name.into(),
                    title: None,
                    description: f.description.map(Into::into),
                    required: Some(f.required),
                })
                .collect()
        }),
        ..Prompt::new(spec.name)
    };
    let graph = Arc::new(graph);
    PromptDef::new(prompt, declared(graph.clone(), parse, body, refused_error)).with_graph(graph)
}

/// The description of a declared resource or template.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct ResourceSpec {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub mime_type: Option<&'static str>,
}

/// Build the definition of a declared resource template.
#[doc(hidden)]
pub fn resource_template<A, P, F, Fut>(spec: ResourceSpec, graph: Graph, parse: P, body: F) -> ResourceEntry
where
    A: Send + 'static,
    P: Fn(&JsonObject) -> Result<A, Error> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    let template = ResourceTemplate {
        title: spec.title.map(Into::into),
        description: spec.description.map(Into::into),
        mime_type: spec.mime_type.map(Into::into),
        ..ResourceTemplate::new(spec.uri, spec.name)
    };
    let graph = Arc::new(graph);
    match ResourceTemplateDef::new(template, declared(graph.clone(), parse, body, refused_error)) {
        Ok(def) => ResourceEntry::Template(def.with_graph(graph)),
        // The macro parsed the same template at compile time.
        Err(e) => panic!("roundtrip: `{}` is not a valid URI template: {e}", spec.uri),
    }
}

/// Build the definition of a declared static resource (its checks, if any, run first).
#[doc(hidden)]
pub fn resource<F, Fut>(spec: ResourceSpec, checks: Vec<Check>, body: F) -> ResourceEntry
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    let resource = Resource {
        title: spec.title.map(Into::into),
        description: spec.description.map(Into::into),
        mime_type: spec.mime_type.map(Into::into),
        ..Resource::new(spec.uri, spec.name)
    };
    ResourceEntry::Static(ResourceDef::new(resource, static_reader(checks, body)))
}

/// The reader of a declared static resource or view: its checks, then its body.
fn static_reader<F, Fut>(checks: Vec<Check>, body: F) -> impl Fn(RequestContext) -> LegFuture<ReadResourceResult>
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    let checks = Arc::new(graph(Vec::new(), Vec::new(), checks));
    let body = Arc::new(body);
    move |cx: RequestContext| {
        let (checks, body) = (checks.clone(), body.clone());
        Box::pin(async move {
            let site = Site::of(&cx);
            let run = async {
                if !checks.checks().is_empty() {
                    evaluate(&checks, &cx).await?;
                }
                body(cx).await
            };
            site.finish(run.await)
        })
    }
}

/// The description of a declared view.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct ViewSpec {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub connect_domains: &'static [&'static str],
    pub resource_domains: &'static [&'static str],
    pub frame_domains: &'static [&'static str],
    pub base_uri_domains: &'static [&'static str],
    /// `camera`, `microphone`, `geolocation`, `clipboardWrite`.
    pub permissions: &'static [&'static str],
    pub domain: Option<&'static str>,
    pub prefers_border: Option<bool>,
}

impl ViewSpec {
    fn resource(&self) -> Resource {
        Resource {
            title: self.title.map(Into::into),
            description: self.description.map(Into::into),
            ..Resource::new(self.uri, self.name)
        }
    }

    fn ui(&self) -> UiResourceMeta {
        let list = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let csp = UiCsp {
            connect_domains: list(self.connect_domains),
            resource_domains: list(self.resource_domains),
            frame_domains: list(self.frame_domains),
            base_uri_domains: list(self.base_uri_domains),
        };
        let asked = |p: &str| self.permissions.contains(&p).then(JsonObject::new);
        let permissions = UiPermissions {
            camera: asked("camera"),
            microphone: asked("microphone"),
            geolocation: asked("geolocation"),
            clipboard_write: asked("clipboardWrite"),
        };
        UiResourceMeta {
            csp: (!csp.is_empty()).then_some(csp),
            permissions: (!permissions.is_empty()).then_some(permissions),
            domain: self.domain.map(Into::into),
            prefers_border: self.prefers_border,
        }
    }
}

/// Build the definition of a view declared on a fn (its checks, if any, run first).
#[doc(hidden)]
pub fn view<F, Fut>(spec: ViewSpec, checks: Vec<Check>, body: F) -> ResourceDef
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, Error>> + Send + 'static,
{
    ResourceDef::view(spec.resource(), spec.ui(), static_reader(checks, body))
}

/// Build the definition of a view declared on a const holding its HTML.
#[doc(hidden)]
pub fn view_text(spec: ViewSpec, html: &'static str) -> ResourceDef {
    let uri = spec.uri;
    ResourceDef::view(spec.resource(), spec.ui(), move |_cx| async move {
        let contents = ResourceContents::text(uri, None, html);
        Ok(Outcome::Complete(ReadResourceResult { contents: vec![contents], ..ReadResourceResult::default() }))
    })
}

fn refused_error(name: &str, what: &str) -> Error {
    Error::rpc(ErrorObject::internal(format!("The user {what} the question for `{name}`.")))
}

/// The graph of a declared tool.
///
/// # Panics
/// Never for a graph the macro built: it rejects unknown names and cycles at compile time.
#[doc(hidden)]
pub fn graph(arguments: Vec<&'static str>, nodes: Vec<crate::resolve::Node>, checks: Vec<Check>) -> Graph {
    match Graph::new(arguments, nodes).and_then(|g| g.with_checks(checks)) {
        Ok(graph) => graph,
        Err(e) => panic!("roundtrip: a declared tool's graph is invalid: {e}"),
    }
}

/// Fails compilation (in a const) when a tool with resolvers may also answer
/// `input_required` itself.
#[doc(hidden)]
pub const fn refuse_manual_form(may_ask: bool) {
    if may_ask {
        panic!(
            "a tool with #[resolve] parameters cannot also return input_required itself (the manual form): the two \
             share one channel; return the final result, or drop the resolvers and build the rounds by hand"
        );
    }
}

/// Turn a body's return value into the outcome.
#[doc(hidden)]
pub fn outcome<R: ToolReturn>(r: R) -> Result<Outcome<CallToolResult>, Error> {
    r.into_outcome()
}

/// Whether two names are equal, at compile time (for the duplicate check of `tools![…]`).
#[doc(hidden)]
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Panics (at compile time, in a const) when two tools of a `tools![…]` list share a name.
#[doc(hidden)]
pub const fn assert_unique_tools(names: &[&str]) {
    if has_duplicate(names) {
        panic!("two tools in this tools![…] list have the same name; rename one with #[tool(name = \"…\")]");
    }
}

/// Panics (at compile time, in a const) when two prompts of a `prompts![…]` list share a name.
#[doc(hidden)]
pub const fn assert_unique_prompts(names: &[&str]) {
    if has_duplicate(names) {
        panic!("two prompts in this prompts![…] list have the same name; rename one with #[prompt(name = \"…\")]");
    }
}

/// Panics (at compile time, in a const) when two resources of a `resources![…]` list share a
/// name.
#[doc(hidden)]
pub const fn assert_unique_resources(names: &[&str]) {
    if has_duplicate(names) {
        panic!("two resources in this resources![…] list have the same name; rename one with `name = \"…\"`");
    }
}

const fn has_duplicate(names: &[&str]) -> bool {
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        while j < names.len() {
            if same_name(names[i], names[j]) {
                return true;
            }
            j += 1;
        }
        i += 1;
    }
    false
}

/// Wrap a `with` resolver's adapter.
#[doc(hidden)]
pub fn with_fn<F>(f: F) -> crate::resolve::WithFn
where
    F: for<'a> Fn(Vec<Value>, &'a RequestContext) -> futures::future::BoxFuture<'a, Result<Resolution, Error>>
        + Send
        + Sync
        + 'static,
{
    Arc::new(f)
}

/// Wrap a check's adapter.
#[doc(hidden)]
pub fn check_fn<F>(f: F) -> crate::resolve::GuardFn
where
    F: for<'a> Fn(Vec<Value>, &'a RequestContext) -> futures::future::BoxFuture<'a, Result<(), Error>>
        + Send
        + Sync
        + 'static,
{
    Arc::new(f)
}

/// The schema of the value a `with` fn gives, when its type has one (for documentation).
#[doc(hidden)]
#[derive(Debug)]
pub struct ValueSchema<T>(std::marker::PhantomData<T>);

impl<T> ValueSchema<T> {
    #[doc(hidden)]
    pub fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<T> Default for ValueSchema<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Picked by autoref when `T` has a schema.
#[doc(hidden)]
pub trait HasSchema {
    fn value_schema(&self) -> Option<Value>;
}

impl<T: schemars::JsonSchema> HasSchema for ValueSchema<T> {
    fn value_schema(&self) -> Option<Value> {
        Some(argument_schema_of::<T>())
    }
}

/// The fallback when `T` has none.
#[doc(hidden)]
pub trait NoSchema {
    fn value_schema(&self) -> Option<Value>;
}

impl<T> NoSchema for &ValueSchema<T> {
    fn value_schema(&self) -> Option<Value> {
        None
    }
}

fn argument_schema_of<T: schemars::JsonSchema>() -> Value {
    let mut schema = schema_of::<T>();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
    }
    schema
}

/// Compile-time checks, each failing at the type it names.
#[doc(hidden)]
pub fn assert_return<T: ToolReturn>() {}
#[doc(hidden)]
pub fn assert_url<T: UrlOutput>() {}
#[doc(hidden)]
pub fn assert_roots<T: RootsOutput>() {}
#[doc(hidden)]
pub fn assert_text_argument<T: TextArgument>() {}
