//! Transports: stdio, streamable HTTP and in-memory.
