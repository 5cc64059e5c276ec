//! What the runtime's layers tell telemetry: a leg's questions and state, a refused state, a
//! tool's error, tasks, limits. With the `otel` feature these go to [`crate::otel`] (and cost an
//! atomic load until it is enabled); without it they are empty and compile away.

#[cfg(feature = "otel")]
pub(crate) use crate::otel::observe::*;

/// Run a task's body in a span of its own, a child of the request that creates the task (call
/// it while that request is being handled).
pub(crate) fn in_task<F: Future + Send + 'static>(
    tool: String,
    task_id: String,
    body: F,
) -> impl Future<Output = F::Output> + Send + 'static
where
    F::Output: Send,
{
    #[cfg(feature = "otel")]
    {
        let parent = crate::otel::current_context();
        async move { crate::otel::traced_task(&tool, &task_id, parent, body).await }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = (tool, task_id);
        body
    }
}

#[cfg(not(feature = "otel"))]
mod off {
    /// The round of a declared flow's leg.
    #[inline(always)]
    pub(crate) fn round(_round: u32) {}
    /// A leg asked questions: what it asked and answered, the state it carries.
    #[inline(always)]
    pub(crate) fn leg(_asked: usize, _answered: usize, _state_bytes: usize) {}
    /// A leg finished a flow that asked `rounds` rounds of questions.
    #[inline(always)]
    pub(crate) fn flow_completed(_method: &'static str, _rounds: u32) {}
    /// Questions asked again because their answers did not fit.
    #[inline(always)]
    pub(crate) fn reasked(_count: usize) {}
    /// A `requestState` was refused, and why.
    #[inline(always)]
    pub(crate) fn state_refused(_reason: &'static str) {}
    /// The tool answered with `isError: true`.
    #[inline(always)]
    pub(crate) fn tool_error() {}
    /// A task was created, or ended with a terminal status.
    #[inline(always)]
    pub(crate) fn task(_id: &str, _status: &'static str, _duration_s: Option<f64>) {}
    /// A limit refused something.
    #[inline(always)]
    pub(crate) fn limit(_limit: &'static str) {}
}

#[cfg(not(feature = "otel"))]
pub(crate) use off::*;
