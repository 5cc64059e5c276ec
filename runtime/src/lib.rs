//! roundtrip: Model Context Protocol servers as annotated async functions.
//!
//! The 2026-07-28 revision of MCP replaced server-to-client callbacks with multi-round-trip
//! requests: a tool that needs input *returns* an `InputRequiredResult` and the client retries
//! with the answers. roundtrip serves that protocol (and the 2025 eras, for which the same
//! questions travel as server-to-client requests), seals the state that travels between legs,
//! and lets tools declare what they need.

pub mod client;
pub mod protocol;
pub mod resolve;
pub mod seal;
pub mod server;
pub mod testing;
pub mod transport;

pub use seal::RequestStateSecurity;
pub use server::{InputRequired, Outcome, RequestContext, Server};
