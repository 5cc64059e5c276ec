//! What every declared item's leg shares: evaluate the resolver graph, and run the body with
//! the values or end the flow the user refused. (The server turns an error into the method's
//! answer, for declared and hand-written handlers alike.)

use std::future::Future;
use std::sync::Arc;

use crate::error::Error;
use crate::protocol::{ErrorObject, JsonObject};
use crate::resolve::{Check, Graph, Leg, Resolved, Values, evaluate};
use crate::server::{HandlerResult, Outcome, RequestContext};

/// One leg of a declared item's handler.
pub(super) type LegFuture<T> = std::pin::Pin<Box<dyn Future<Output = HandlerResult<T>> + Send>>;

/// The handler shared by every declared item: parse the arguments, run the checks, evaluate
/// the graph, end a refused flow with `refused(parameter, "declined" | "cancelled")`, or run
/// the body.
pub(super) fn declared<T, A, P, F, Fut, R>(
    graph: Arc<Graph>,
    parse: P,
    body: F,
    refused: R,
) -> impl Fn(RequestContext) -> LegFuture<T> + Send + Sync + 'static
where
    T: Send + 'static,
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
        let args = match parse(&cx.inputs()) {
            Ok(args) => args,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        if graph.nodes().is_empty() && graph.checks().is_empty() {
            return body_alone(&*body, args, cx);
        }
        graph_then_body(graph.clone(), body.clone(), refused.clone(), args, cx)
    }
}

// The futures are made in functions of their own, never inlined: each is made in its
// function's frame and copied into its box, and the frame of the closure above (every leg's)
// then keeps no room for them.

/// The body's future, with no values to resolve.
#[inline(never)]
fn body_alone<T, A, F, Fut>(body: &F, args: A, cx: RequestContext) -> LegFuture<T>
where
    F: Fn(A, Values, RequestContext) -> Fut,
    Fut: Future<Output = Result<Outcome<T>, Error>> + Send + 'static,
{
    Box::pin(body(args, Values::default(), cx))
}

/// The graph evaluated, then the body run with its values or the flow ended as refused.
#[inline(never)]
fn graph_then_body<T, A, F, Fut, R>(
    graph: Arc<Graph>,
    body: Arc<F>,
    refused: Arc<R>,
    args: A,
    cx: RequestContext,
) -> LegFuture<T>
where
    T: Send + 'static,
    A: Send + 'static,
    F: Fn(A, Values, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome<T>, Error>> + Send + 'static,
    R: Fn(&str, &str) -> Error + Send + Sync + 'static,
{
    Box::pin(async move {
        match evaluating(&graph, &cx).await {
            Err(e) => Err(e),
            Ok(Leg::Ask(round)) => Ok(Outcome::InputRequired(round)),
            Ok(Leg::Refused { name, outcome }) => {
                Err(refused(name, if outcome == Resolved::Cancelled { "cancelled" } else { "declined" }))
            }
            Ok(Leg::Ready(values)) => body(args, values, cx).await,
        }
    })
}

/// The graph's evaluation, boxed: its room (about 1 KB) would make the future above too large
/// for the allocator's per-thread cache, and each leg would take the slow path.
#[inline(never)]
fn evaluating<'a>(
    graph: &'a Graph,
    cx: &'a RequestContext,
) -> std::pin::Pin<Box<impl Future<Output = Result<Leg, Error>> + Send + 'a>> {
    Box::pin(evaluate(graph, cx))
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
