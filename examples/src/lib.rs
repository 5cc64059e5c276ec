//! Example servers built with roundtrip.
//!
//! [`conformance`] is the server the official MCP conformance suite and the interop tests
//! run against (`cargo run -p roundtrip-examples --bin conformance -- --stdio`).

pub mod conformance;
