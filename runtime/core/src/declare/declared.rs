//! What every declared item's leg shares: evaluate the resolver graph, run the body with the
//! values, and turn a refusal or an error into the method's answer.

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt as _;

use crate::error::Error;
use crate::protocol::{CallToolResult, ErrorObject, GetPromptResult, JsonObject, ProtocolVersion, ReadResourceResult};
use crate::resolve::{Check, Graph, Leg, Resolved, Values, evaluate};
use crate::server::{Outcome, RequestContext};

/// What a declared item's failure becomes: a tool's refusal is an `isError` result; every
/// other failure is a JSON-RPC error for the request's method, target and revision.
pub(super) trait Finish: Sized {
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
pub(super) struct Site {
    method: &'static str,
    target: Arc<str>,
    version: ProtocolVersion,
}

impl Site {
    pub(super) fn of(cx: &RequestContext) -> Self {
        Self { method: cx.method(), target: Arc::clone(&cx.target), version: cx.protocol_version() }
    }

    pub(super) fn finish<T: Finish>(&self, result: Result<Outcome<T>, Error>) -> Result<Outcome<T>, ErrorObject> {
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
pub(super) type LegFuture<T> = std::pin::Pin<Box<dyn Future<Output = Result<Outcome<T>, ErrorObject>> + Send>>;

/// The handler shared by every declared item: parse the arguments, run the checks, evaluate
/// the graph, end a refused flow with `refused(parameter, "declined" | "cancelled")`, or run
/// the body; any failure becomes what the protocol expects of the item's kind.
pub(super) fn declared<T, A, P, F, Fut, R>(
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
    let body = Arc::new(body);
    let refused = Arc::new(refused);
    // For speed, the arguments are parsed when the leg is called, and a future is made only
    // for what waits: the body alone when there is nothing to resolve, else the graph and
    // then the body (a future that awaits another it made keeps room for both, and each is
    // copied into place when it starts).
    move |cx: RequestContext| -> LegFuture<T> {
        let site = Site::of(&cx);
        let args = match parse(&cx.inputs()) {
            Ok(args) => args,
            Err(e) => return Box::pin(std::future::ready(site.finish(Err(e)))),
        };
        if graph.nodes().is_empty() && graph.checks().is_empty() {
            let running = body(args, Values::default(), cx);
            return Box::pin(running.map(move |result| site.finish(result)));
        }
        let (graph, body, refused) = (graph.clone(), body.clone(), refused.clone());
        Box::pin(async move {
            // Boxed: its room (about 1 KB) would make this future too large for the
            // allocator's per-thread cache, and each leg would take the slow path.
            let result = match Box::pin(evaluate(&graph, &cx)).await {
                Err(e) => Err(e),
                Ok(Leg::Ask(round)) => Ok(Outcome::InputRequired(round)),
                Ok(Leg::Refused { name, outcome }) => {
                    Err(refused(name, if outcome == Resolved::Cancelled { "cancelled" } else { "declined" }))
                }
                Ok(Leg::Ready(values)) => body(args, values, cx).await,
            };
            site.finish(result)
        })
    }
}

pub(super) fn refused_error(name: &str, what: &str) -> Error {
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
