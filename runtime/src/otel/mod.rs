//! Telemetry by the OpenTelemetry semantic conventions for MCP (cargo feature `otel`).
//!
//! Once [`init`] (or, with providers of your own, [`enable`]) has run:
//!
//! - every request a [`Server`](crate::Server) handles is a `SERVER` span named
//!   `{mcp.method.name} {target}` (`tools/call deploy`, `prompts/get greeting`, `tools/list`),
//!   whose parent is the trace context of the request's `params._meta` (`traceparent`,
//!   `tracestate`, `baggage`: SEP-414) or, without one there, of its HTTP headers. It carries
//!   `mcp.method.name`, `gen_ai.tool.name` / `gen_ai.prompt.name` / `mcp.resource.uri`,
//!   `mcp.protocol.version`, `jsonrpc.request.id`, `mcp.session.id` (legacy sessions),
//!   `network.transport`, `error.type` and `rpc.response.status_code`, and roundtrip's own:
//!   `roundtrip.round` (the leg's round), `roundtrip.questions.asked`, `.answered` and
//!   `.reasked`, `roundtrip.state.bytes`, `roundtrip.state.rejected` (why a `requestState` was
//!   refused: for the operator only, the client still gets the one frozen error) and
//!   `roundtrip.task.id`. A task's body runs in a span of its own, a child of the call that
//!   created it;
//! - every request the [`Client`](crate::client::Client) sends is a `CLIENT` span whose context
//!   is injected into the request's `_meta`, over stdio and HTTP alike; a multi-round call is
//!   one span over its legs, so every leg and the server's work are one trace;
//! - the histograms `mcp.server.operation.duration` and `mcp.client.operation.duration` (with
//!   the conventions' buckets and attributes) and roundtrip's counters: flows completed
//!   (`roundtrip.server.flows`) and their rounds (`roundtrip.server.flow.rounds`), re-asked
//!   questions, states refused by reason, tasks by status and their duration, the limits that
//!   refused something (`roundtrip.server.limits`, by `roundtrip.limit`), and on the client the
//!   flows completed, failed and abandoned (`roundtrip.client.flows`).
//!
//! Before that, nothing is recorded and the cost is one atomic load per request. [`init`]
//! reads the standard `OTEL_*` variables and exports by OTLP (HTTP or gRPC) and, when asked,
//! as Prometheus text.
//!
//! Built on the `opentelemetry` API directly rather than through `tracing-opentelemetry`: the
//! conventions want exact span kinds, a remote parent taken from the request body, links and
//! statuses, which the API gives without a second span model in between; roundtrip's logs stay
//! on `tracing`.

// The client's spans and instruments are unused in a server-only build.
#![cfg_attr(not(feature = "client"), allow(dead_code, unused_imports))]

#[cfg(feature = "client")]
mod client;
mod export;
mod http_client;
pub(crate) mod names;
mod propagate;
mod server;

use std::sync::OnceLock;

use opentelemetry::global::{self, BoxedTracer};
use opentelemetry::metrics::{Counter, Histogram};

#[cfg(feature = "client")]
pub(crate) use client::{ClientOp, Flow};
pub use export::{OtelError, OtelGuard, OtelSettings, Protocol, init};
pub(crate) use propagate::{extract, inject};
pub(crate) use server::{current_context, traced, traced_task};

/// What the runtime's layers note on the current request's span and in the metrics (through
/// `crate::observe`).
pub(crate) mod observe {
    pub(crate) use super::server::{flow_completed, leg, limit, reasked, round, state_refused, task, tool_error};
}

/// The tracer and instruments, made once from the global providers by [`enable`].
pub(crate) struct Instruments {
    pub tracer: BoxedTracer,
    pub server_duration: Histogram<f64>,
    pub client_duration: Histogram<f64>,
    pub flows: Counter<u64>,
    pub flow_rounds: Histogram<u64>,
    pub reasks: Counter<u64>,
    pub states_refused: Counter<u64>,
    pub tasks: Counter<u64>,
    pub task_duration: Histogram<f64>,
    pub limits: Counter<u64>,
    pub client_flows: Counter<u64>,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

/// Start recording with the global tracer and meter providers (`opentelemetry::global`): call
/// it once they are installed. [`init`] does, after installing its own. Later calls do
/// nothing.
pub fn enable() {
    INSTRUMENTS.get_or_init(|| {
        use names::*;
        let meter = global::meter("roundtrip");
        let seconds = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build()
        };
        let count = |name: &'static str, description: &'static str| {
            meter.u64_counter(name).with_unit("{count}").with_description(description).build()
        };
        Instruments {
            tracer: global::tracer("roundtrip"),
            server_duration: seconds(
                SERVER_OPERATION_DURATION,
                "MCP request or notification duration as observed on the receiver from the time it was received \
                 until the result or ack is sent.",
            ),
            client_duration: seconds(
                CLIENT_OPERATION_DURATION,
                "The duration of the MCP request or notification as observed on the sender from the time it was \
                 sent until the response or ack is received.",
            ),
            flows: count(FLOWS, "Multi-round flows completed: a leg that finished a flow which asked questions."),
            flow_rounds: meter
                .u64_histogram(FLOW_ROUNDS)
                .with_unit("{round}")
                .with_description("Rounds of questions a completed flow took.")
                .with_boundaries(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0])
                .build(),
            reasks: count(REASKS, "Questions asked again because their answer did not fit."),
            states_refused: count(STATES_REFUSED, "requestState refused, by reason."),
            tasks: count(TASKS, "Tasks created, and tasks ended by status."),
            task_duration: seconds(TASK_DURATION, "How long tasks ran, from creation to their end."),
            limits: count(LIMITS, "Requests, connections, streams, sessions and tasks refused by a limit."),
            client_flows: count(CLIENT_FLOWS, "Calls of the client, by how their flow ended."),
        }
    });
}

/// The instruments, once [`enable`] ran.
#[inline]
pub(crate) fn instruments() -> Option<&'static Instruments> {
    INSTRUMENTS.get()
}
