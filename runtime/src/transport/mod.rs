//! Transports: stdio and in-memory (one newline-delimited connection loop), and streamable
//! HTTP.

#[cfg(feature = "server")]
mod connection;
#[cfg(all(feature = "server", feature = "http"))]
pub mod http;
#[cfg(any(feature = "server", all(feature = "client", feature = "stdio")))]
pub(crate) mod pending;

#[cfg(feature = "server")]
pub use connection::{MAX_LINE_BYTES, ServeStream, serve_connection};
