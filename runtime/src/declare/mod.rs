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
    Argument, Choice, Elicit, FormField, RootsOutput, SampleOutput, UrlOutput, check, elicit_schema, schema_of,
};
pub use returns::{Json, ToolReturn};

use crate::protocol::{CallToolResult, ErrorObject, JsonObject, Tool, ToolAnnotations};
use crate::resolve::{Graph, Leg, Question, Resolution, Resolved, Values, evaluate};
use crate::server::{Outcome, RequestContext, ToolDef};

/// A tool declared with `#[tool]`; `tools![…]` calls [`def`](Self::def).
pub trait ToolFactory {
    /// The tool's name.
    const NAME: &'static str;
    /// The definition and handler.
    fn def() -> ToolDef;
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

/// The input schema of an arguments struct: an object schema without the generated title.
#[doc(hidden)]
pub fn input_schema<A: schemars::JsonSchema>() -> JsonObject {
    let schema = schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<A>();
    let mut obj = match serde_json::to_value(schema) {
        Ok(Value::Object(o)) => o,
        _ => JsonObject::new(),
    };
    obj.remove("$schema");
    obj.remove("title");
    obj.insert("type".into(), Value::String("object".into()));
    obj.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
    obj
}

/// Build the definition of a declared tool: parse the arguments, run the resolver graph, and
/// call the body when everything is known.
#[doc(hidden)]
pub fn tool<A, F, Fut>(
    spec: ToolSpec,
    input_schema: JsonObject,
    output_schema: Option<JsonObject>,
    graph: Graph,
    body: F,
) -> ToolDef
where
    A: DeserializeOwned + Send + 'static,
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
    let body = Arc::new(body);
    let name = spec.name;
    ToolDef::new(tool, move |cx| {
        let graph = graph.clone();
        let body = body.clone();
        async move {
            let args = A::deserialize(cx.arguments())
                .map_err(|e| ErrorObject::invalid_params(format!("Invalid arguments for tool {name}: {e}")))?;
            if graph.nodes().is_empty() {
                return body(args, Values::default(), cx).await;
            }
            match evaluate(&graph, &cx).await? {
                Leg::Ask(round) => Ok(Outcome::InputRequired(round)),
                Leg::Refused { name, outcome } => {
                    let what = if outcome == Resolved::Cancelled { "cancelled" } else { "declined" };
                    Ok(Outcome::Complete(CallToolResult::error(format!(
                        "The user {what} the question for `{name}`, so the tool did not run."
                    ))))
                }
                Leg::Ready(values) => body(args, values, cx).await,
            }
        }
    })
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

/// Panics (at compile time, in a const) when two names of the list are equal.
#[doc(hidden)]
pub const fn assert_unique(names: &[&str]) {
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        while j < names.len() {
            if same_name(names[i], names[j]) {
                panic!("two tools in this tools![…] list have the same name; rename one with #[tool(name = \"…\")]");
            }
            j += 1;
        }
        i += 1;
    }
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
pub fn assert_argument<T: Argument>() {}
#[doc(hidden)]
pub fn assert_return<T: ToolReturn>() {}
#[doc(hidden)]
pub fn assert_url<T: UrlOutput>() {}
#[doc(hidden)]
pub fn assert_roots<T: RootsOutput>() {}
