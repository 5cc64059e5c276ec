//! What the runtime's layers tell telemetry: the span of each request served, a leg's
//! questions and state, a refused state, a tool's error, tasks, limits. With the `otel`
//! feature these are spans and metrics by the OpenTelemetry conventions for MCP (and cost an
//! atomic load until [`roundtrip::otel::init`](https://docs.rs/roundtrip/latest/roundtrip/otel/fn.init.html) or [`enable`] runs); without it they are empty and
//! compile away.
//!
//! It sits low (beside the protocol, below the seal) so that every layer can note what it
//! does; it knows none of them. Exporting what is recorded ([`roundtrip::otel`](https://docs.rs/roundtrip/latest/roundtrip/otel/index.html)) sits at the top.

#[cfg(feature = "otel")]
pub mod instruments;
#[cfg(feature = "otel")]
pub mod names;
#[cfg(feature = "otel")]
pub mod notes;
#[cfg(feature = "otel")]
pub mod propagate;

#[cfg(feature = "otel")]
pub use instruments::enable;
#[cfg(feature = "otel")]
pub use instruments::instruments;
#[cfg(feature = "otel")]
pub use notes::{
    Arrival, RemoteCaller, RequestSpan, bus, current_context, flow_completed, leg, limit, reasked, round,
    state_refused, task, tool_error, traced_task,
};

/// The longest string a caller sent that a span attribute or a log line carries, in bytes: a
/// resource URI, a request id, an error message. These are per span or line and never labels,
/// so they may be long enough to be useful (a URI with its query, a handler's message); 2 KiB
/// holds those, while a span or the log can no longer be made to hold megabytes that a caller
/// sent (a request id, an unknown name echoed in an error).
pub const MAX_ATTRIBUTE_BYTES: usize = 2048;

/// `s` cut to at most `max` bytes, on a character boundary; the cost is that of the part
/// kept, never of the whole.
pub fn capped(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// Run a task's body in a span of its own, a child of the request that creates the task (call
/// it while that request is being handled).
pub fn in_task<F: Future + Send + 'static>(
    tool: String,
    task_id: String,
    body: F,
) -> impl Future<Output = F::Output> + Send + 'static
where
    F::Output: Send,
{
    #[cfg(feature = "otel")]
    {
        let parent = current_context();
        async move { traced_task(&tool, &task_id, parent, body).await }
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
    pub fn round(_round: u32) {}
    /// A leg asked questions: what it asked and answered, the state it carries.
    #[inline(always)]
    pub fn leg(_asked: usize, _answered: usize, _state_bytes: usize) {}
    /// A leg finished a flow that asked `rounds` rounds of questions.
    #[inline(always)]
    pub fn flow_completed(_method: &'static str, _rounds: u32) {}
    /// Questions asked again because their answers did not fit.
    #[inline(always)]
    pub fn reasked(_count: usize) {}
    /// A `requestState` was refused, and why.
    #[inline(always)]
    pub fn state_refused(_reason: &'static str) {}
    /// The tool answered with `isError: true`.
    #[inline(always)]
    pub fn tool_error() {}
    /// A task was created, or ended with a terminal status.
    #[inline(always)]
    pub fn task(_id: &str, _status: &'static str, _duration_s: Option<f64>) {}
    /// A limit refused something.
    #[inline(always)]
    pub fn limit(_limit: &'static str) {}
    /// An event of the fleet's bus, or an outage.
    #[inline(always)]
    pub fn bus(_event: &'static str) {}
}

#[cfg(not(feature = "otel"))]
pub use off::*;
