//! A declared prompt: its definition from the expansion's parts.

use std::future::Future;
use std::sync::Arc;

use super::declared::{declared, refused_error};
use super::{Field, ToolSpec};
use crate::error::Error;
use crate::protocol::{GetPromptResult, JsonObject, Prompt, PromptArgument};
use crate::resolve::{Graph, Values};
use crate::server::{Handler, Outcome, PromptDef, RequestContext};

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
    PromptDef::with_handler(prompt, Handler::boxed(declared(graph.clone(), parse, body, refused_error)))
        .with_graph(graph)
}
