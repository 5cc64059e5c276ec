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
    let mut prompt = Prompt::new(spec.name);
    prompt.title = spec.title.map(Into::into);
    prompt.description = spec.description.map(Into::into);
    prompt.arguments = (!arguments.is_empty()).then(|| {
        arguments
            .into_iter()
            .map(|f| {
                let mut argument = PromptArgument::new(f.name).with_required(f.required);
                argument.description = f.description.map(Into::into);
                argument
            })
            .collect()
    });
    let graph = Arc::new(graph);
    PromptDef::with_handler(prompt, Handler::boxed(declared(graph.clone(), parse, body, refused_error)))
        .with_graph(graph)
}
