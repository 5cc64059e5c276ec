//! Telemetry by the OpenTelemetry semantic conventions for MCP (cargo feature `otel`).
//!
//! The crate roundtrip-otel, which applications name `roundtrip::otel` (the feature `otel` of
//! [roundtrip](https://docs.rs/roundtrip)).
//!
//! Once [`init`] (or, with providers of your own, [`enable`]) has run:
//!
//! - every request a [`Server`](roundtrip_core::server::Server) handles is a `SERVER` span named
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
//! - every request the [`Client`](https://docs.rs/roundtrip/latest/roundtrip/client/struct.Client.html) sends is a `CLIENT` span whose context
//!   is injected into the request's `_meta`, over stdio and HTTP alike; a multi-round call is
//!   one span over its legs, so every leg and the server's work are one trace;
//! - the histograms `mcp.server.operation.duration` and `mcp.client.operation.duration` (with
//!   the conventions' buckets and attributes) and roundtrip's counters: flows completed
//!   (`roundtrip.server.flows`) and their rounds (`roundtrip.server.flow.rounds`), re-asked
//!   questions, states refused by reason, tasks by status and their duration, the limits that
//!   refused something (`roundtrip.server.limits`, by `roundtrip.limit`), and on the client the
//!   flows completed, failed and abandoned (`roundtrip.client.flows`).
//!
//! What callers send cannot grow any of it. A label, and the target in a span's name, is a
//! name the server declared (its tools and prompts), a method MCP defines or a protocol
//! version it knows; anything else is `_OTHER` (the conventions' value for a value outside a
//! known set), so the series are bounded by the declarations, never by the callers. Span
//! names are cut to 256 bytes and string attributes (a resource URI, a request id, an error
//! message) to 2 KiB. A `traceparent` longer than 55 bytes, a `tracestate` longer than 512 and
//! a `baggage` longer than 8 KiB are ignored before anything parses them (the request is then a
//! root). And a remote parent's sampled flag is followed only for authenticated callers by
//! default: for others the local sampler decides, so nobody can force export past
//! `OTEL_TRACES_SAMPLER` ([`TrustRemoteSampled`], [`RemoteParentSampler`]).
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
mod sampler;

// What roundtrip-client records through.
#[cfg(feature = "client")]
#[doc(hidden)]
pub use client::{ClientOp, Flow};
pub use export::{OtelError, OtelGuard, OtelSettings, Protocol, init};
pub use roundtrip_core::observe::enable;
pub use sampler::{RemoteParentSampler, TrustRemoteSampled};
