//! The tracer and the instruments every layer records into, made once by [`enable`].

use std::sync::OnceLock;

use opentelemetry::global::{self, BoxedTracer};
use opentelemetry::metrics::{Counter, Histogram};

use super::names;

/// The tracer and instruments, made once from the global providers by [`enable`].
pub struct Instruments {
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
    pub bus_events: Counter<u64>,
}

impl std::fmt::Debug for Instruments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instruments").finish_non_exhaustive()
    }
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

/// Start recording with the global tracer and meter providers (`opentelemetry::global`): call
/// it once they are installed. [`init`](https://docs.rs/roundtrip/latest/roundtrip/otel/fn.init.html) does, after installing its own. Later calls do
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
            limits: count(LIMITS, "Requests, connections, streams, sessions, tasks and fast calls refused by a limit."),
            client_flows: count(CLIENT_FLOWS, "Calls of the client, by how their flow ended."),
            bus_events: count(BUS_EVENTS, "Events of the fleet's bus, by what befell them, and its outages."),
        }
    });
}

/// The instruments, once [`enable`] ran.
#[inline]
pub fn instruments() -> Option<&'static Instruments> {
    INSTRUMENTS.get()
}
