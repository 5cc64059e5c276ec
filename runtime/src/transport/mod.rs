//! Transports: stdio, streamable HTTP and in-memory.

pub mod http;
pub(crate) mod pending;
