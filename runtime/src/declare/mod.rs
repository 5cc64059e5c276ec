//! The glue between the macros and the runtime: what a `#[tool]` expands to calls these.
//! Users see [`Json`], [`ToolFactory`] and the parameter traits; the rest is reached through
//! `roundtrip::__private`.

mod params;
mod returns;

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use params::{
    Argument, Choice, Elicit, FormField, RootsOutput, SampleOutput, TextArgument, UrlOutput, check, elicit_schema,
    schema_of,
};
pub use returns::{Blob, Json, PromptReturn, ResourceReturn, ToolReturn};

use crate::protocol::{
    CallToolResult, ErrorObject, GetPromptResult, JsonObject, Prompt, PromptArgument, ReadResourceResult, Resource,
    ResourceTemplate, Tool, ToolAnnotations,
};
use crate::resolve::{Graph, Leg, Question, Resolution, Resolved, Values, evaluate};
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

/// What a `with` resolver returns: a value without asking, or one question.
// Made once per leg and consumed at once: boxing the question would only cost an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Resolve<T> {
    /// The value; no round trip.
    Value(T),
    /// Ask this.
    Ask(Question),
}

#[doc(hidden)]
pub fn into_resolution<T: Serialize>(r: Resolve<T>) -> Result<Resolution, ErrorObject> {
    match r {
        Resolve::Value(v) => serde_json::to_value(v)
            .map(Resolution::Value)
            .map_err(|e| ErrorObject::internal(format!("a `with` resolver's value did not serialize: {e}"))),
        Resolve::Ask(q) => Ok(Resolution::Ask(q)),
    }
}

#[doc(hidden)]
pub fn from_json<T: DeserializeOwned>(name: &str, v: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(v).map_err(|e| ErrorObject::internal(format!("`{name}` does not fit its type: {e}")))
}

/// The static description of a declared tool.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub annotations: Option<ToolAnnotations>,
}

/// One argument of a declared tool, for its input schema.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Field {
    pub name: &'static str,
    pub schema: Value,
    pub description: Option<&'static str>,
    pub required: bool,
}

/// The JSON schema of an argument's type, without the root keywords that only make sense at
/// a document's root (`$schema`, the type's name as `title`).
#[doc(hidden)]
pub fn argument_schema<T: Argument>() -> Value {
    let mut schema = schema_of::<T>();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
    }
    schema
}

/// The input schema of a declared tool: an object of its arguments.
#[doc(hidden)]
pub fn input_schema(fields: Vec<Field>) -> JsonObject {
    let mut properties = JsonObject::new();
    let mut required = Vec::new();
    for field in fields {
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
    schema
}

/// One argument of a call, as its type; a missing or ill-typed one is `-32602` naming it.
#[doc(hidden)]
pub fn argument<T: Argument>(tool: &str, args: &JsonObject, name: &str) -> Result<T, ErrorObject> {
    T::deserialize(args.get(name).unwrap_or(&Value::Null)).map_err(|e| {
        let why = if args.contains_key(name) { e.to_string() } else { "it is missing".to_owned() };
        ErrorObject::invalid_params(format!("Invalid arguments for tool {tool}: `{name}`: {why}"))
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
    P: Fn(&JsonObject) -> Result<A, ErrorObject> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<CallToolResult>, ErrorObject>> + Send + 'static,
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
        Ok(Outcome::Complete(CallToolResult::error(format!(
            "The user {what} the question for `{name}`, so the tool did not run."
        ))))
    };
    ToolDef::new(tool, declared(graph.clone(), parse, body, refused)).with_graph(graph)
}

/// One leg of a declared item's handler.
type LegFuture<T> = std::pin::Pin<Box<dyn Future<Output = Result<Outcome<T>, ErrorObject>> + Send>>;

/// The handler shared by every declared item: parse the arguments, evaluate the graph, end
/// a refused flow with `refused(parameter, "declined" | "cancelled")`, or run the body.
fn declared<T, A, P, F, Fut, R>(
    graph: Arc<Graph>,
    parse: P,
    body: F,
    refused: R,
) -> impl Fn(RequestContext) -> LegFuture<T> + Send + Sync + 'static
where
    T: Send + 'static,
    A: Send + 'static,
    P: Fn(&JsonObject) -> Result<A, ErrorObject> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<T>, ErrorObject>> + Send + 'static,
    R: Fn(&str, &str) -> Result<Outcome<T>, ErrorObject> + Send + Sync + 'static,
{
    let parse = Arc::new(parse);
    let body = Arc::new(body);
    let refused = Arc::new(refused);
    move |cx: RequestContext| {
        let (graph, parse, body, refused) = (graph.clone(), parse.clone(), body.clone(), refused.clone());
        Box::pin(async move {
            let args = parse(&cx.inputs())?;
            if graph.nodes().is_empty() {
                return body(args, Values::default(), cx).await;
            }
            match evaluate(&graph, &cx).await? {
                Leg::Ask(round) => Ok(Outcome::InputRequired(round)),
                Leg::Refused { name, outcome } => {
                    refused(name, if outcome == Resolved::Cancelled { "cancelled" } else { "declined" })
                }
                Leg::Ready(values) => body(args, values, cx).await,
            }
        })
    }
}

/// Build the definition of a declared prompt.
#[doc(hidden)]
pub fn prompt<A, P, F, Fut>(spec: ToolSpec, arguments: Vec<Field>, graph: Graph, parse: P, body: F) -> PromptDef
where
    A: Send + 'static,
    P: Fn(&JsonObject) -> Result<A, ErrorObject> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<GetPromptResult>, ErrorObject>> + Send + 'static,
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
    P: Fn(&JsonObject) -> Result<A, ErrorObject> + Send + Sync + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, ErrorObject>> + Send + 'static,
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

/// Build the definition of a declared static resource.
#[doc(hidden)]
pub fn resource<F, Fut>(spec: ResourceSpec, body: F) -> ResourceEntry
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<ReadResourceResult>, ErrorObject>> + Send + 'static,
{
    let resource = Resource {
        title: spec.title.map(Into::into),
        description: spec.description.map(Into::into),
        mime_type: spec.mime_type.map(Into::into),
        ..Resource::new(spec.uri, spec.name)
    };
    ResourceEntry::Static(ResourceDef::new(resource, body))
}

fn refused_error<T>(name: &str, what: &str) -> Result<Outcome<T>, ErrorObject> {
    Err(ErrorObject::internal(format!("The user {what} the question for `{name}`.")))
}

/// The graph of a declared tool.
///
/// # Panics
/// Never for a graph the macro built: it rejects unknown names and cycles at compile time.
#[doc(hidden)]
pub fn graph(arguments: Vec<&'static str>, nodes: Vec<crate::resolve::Node>) -> Graph {
    match Graph::new(arguments, nodes) {
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
pub fn outcome<R: ToolReturn>(r: R) -> Result<Outcome<CallToolResult>, ErrorObject> {
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
pub fn with_fn<F, Fut>(f: F) -> crate::resolve::WithFn
where
    F: Fn(Vec<Value>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Resolution, ErrorObject>> + Send + 'static,
{
    Arc::new(move |inputs| Box::pin(f(inputs)))
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
#[doc(hidden)]
pub fn assert_prompt_return<T: PromptReturn>() {}
#[doc(hidden)]
pub fn assert_resource_return<T: ResourceReturn>() {}

/// Turn a prompt body's return value into the outcome.
#[doc(hidden)]
pub fn prompt_outcome<R: PromptReturn>(r: R) -> Result<Outcome<GetPromptResult>, ErrorObject> {
    r.into_outcome()
}

/// Turn a resource body's return value into the outcome, for the URI read.
#[doc(hidden)]
pub fn resource_outcome<R: ResourceReturn>(
    r: R,
    uri: &str,
    mime_type: Option<&str>,
) -> Result<Outcome<ReadResourceResult>, ErrorObject> {
    r.into_outcome(uri, mime_type)
}
