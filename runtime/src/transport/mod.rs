//! Transports: stdio and in-memory (one newline-delimited connection loop), and streamable
//! HTTP.

mod connection;
#[cfg(feature = "http")]
pub mod http;
pub(crate) mod pending;

pub use connection::{MAX_LINE_BYTES, serve_connection};
