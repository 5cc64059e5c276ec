//! A declared tool: its definition from the expansion's parts, and a body run directly or as
//! a task.

use std::future::Future;
use std::sync::Arc;

use futures::future::Either;

use super::ToolReturn;
use super::declared::declared;
use crate::error::Error;
use crate::protocol::{CallToolResult, ErrorObject, JsonObject, TaskSupport, Tool, ToolAnnotations};
use crate::resolve::{Graph, Values};
use crate::server::{Handler, Outcome, RequestContext, ToolDef};

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
    let mut tool = Tool::new(spec.name, input_schema);
    tool.title = spec.title.map(Into::into);
    tool.description = spec.description.map(Into::into);
    tool.output_schema = output_schema;
    tool.annotations = spec.annotations.clone();
    let graph = Arc::new(graph);
    let refused = |name: &str, what: &str| {
        Error::new(format!("The user {what} the question for `{name}`, so the tool did not run."))
    };
    let support = spec.task;
    let body = Arc::new(body);
    // The body runs inside the leg's own (boxed) future, so it is not boxed again; only a
    // body started as a task is.
    let run = move |args: A, values: Values, cx: RequestContext| {
        if support == TaskSupport::Forbidden || !cx.accepts_tasks() {
            return Either::Left(body(args, values, cx));
        }
        let body = body.clone();
        Either::Right(as_task(cx, Box::new(move |cx| Box::pin(body(args, values, cx)))))
    };
    ToolDef::with_handler(tool, Handler::boxed(declared(graph.clone(), parse, run, refused)))
        .with_graph(graph)
        .task_support(support)
}

type LegBody<T> = std::pin::Pin<Box<dyn Future<Output = Result<Outcome<T>, Error>> + Send>>;

/// A tool's body, started with the context of the task it runs in.
type TaskStart = Box<dyn FnOnce(RequestContext) -> LegBody<CallToolResult> + Send>;

/// Run a tool's body as a task: create the task, start the body in it, answer with the task.
/// Not generic, so it is compiled once, not once per tool.
fn as_task(cx: RequestContext, start: TaskStart) -> LegBody<CallToolResult> {
    Box::pin(async move { Ok(Outcome::Task(spawn(cx, start).await?)) })
}

/// Create the task of `cx`'s call and start `start`'s body in it; the task as it starts.
async fn spawn(cx: RequestContext, start: TaskStart) -> Result<crate::protocol::Task, Error> {
    let (tasks, name) = (cx.server().tasks().clone(), cx.target().to_owned());
    let (owner, caller) = (cx.owner.clone(), crate::request::caller_key(cx.auth(), cx.client_addr));
    tasks
        .spawn(owner.as_deref(), caller.as_deref(), move |link| {
            let id = link.id.clone();
            let run = start(cx.into_task(link));
            crate::observe::in_task(name.clone(), id, async move { task_result(run.await, &name) })
        })
        .await
        .map_err(Error::rpc)
}

impl RequestContext {
    /// Run `body` as a task of this call, and answer the call with the task: for a manual
    /// tool whose client declared the tasks extension ([`accepts_tasks`](Self::accepts_tasks)).
    /// The body gets the task's context: its questions go through `tasks/update`
    /// ([`TaskContext::ask`](crate::task::TaskContext::ask)), its progress becomes the task's
    /// status message, `tasks/cancel` cancels it. Its result, or its error, is the task's.
    ///
    /// ```
    /// use roundtrip::server::{Outcome, ToolDef};
    /// use roundtrip::protocol::{CallToolResult, Tool, empty_input_schema};
    ///
    /// let def = ToolDef::new(Tool::new("backup", empty_input_schema()), |cx| async move {
    ///     if !cx.accepts_tasks() {
    ///         return Ok(Outcome::Complete(CallToolResult::text("Backed up.")));
    ///     }
    ///     Ok(Outcome::Task(cx.run_as_task(|_task| async { Ok(CallToolResult::text("Backed up.")) }).await?))
    /// });
    /// # let _ = def;
    /// ```
    pub async fn run_as_task<F, Fut>(self, body: F) -> Result<crate::protocol::Task, Error>
    where
        F: FnOnce(crate::task::TaskContext) -> Fut + Send + 'static,
        Fut: Future<Output = Result<CallToolResult, Error>> + Send + 'static,
    {
        spawn(self, Box::new(move |cx| Box::pin(async move { body(cx.into()).await.map(Outcome::Complete) }))).await
    }
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

/// Turn a body's return value into the outcome.
#[doc(hidden)]
pub fn outcome<R: ToolReturn>(r: R) -> Result<Outcome<CallToolResult>, Error> {
    r.into_outcome()
}
