//! Transports: stdio, streamable HTTP and in-memory.

pub(crate) mod pending;
