//! Example servers built with roundtrip.
//!
//! - [`provision`]: tools that ask, declared with `#[tool]` and `#[resolve]`
//!   (`cargo run -p roundtrip-examples --bin provision -- --stdio`).
//! - [`ops`]: an operations bot whose declarations use shared state, checks and questions
//!   built from data (`cargo run -p roundtrip-examples --bin ops -- --stdio`).
//! - [`conformance`]: the server the official MCP conformance suite and the interop tests run
//!   against (`cargo run -p roundtrip-examples --bin conformance -- --stdio`).

pub mod conformance;
pub mod ops;
pub mod provision;

/// The allocator is the application's choice; `--features mimalloc` is the peer benchmark's
/// `--mimalloc` row (every Rust server of that run built the same way). Declared here, once,
/// it is the allocator of every example binary built with the feature.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
