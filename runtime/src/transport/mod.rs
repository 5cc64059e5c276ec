//! Transports: stdio and in-memory (one newline-delimited connection loop), and streamable
//! HTTP.

#[cfg(feature = "server")]
mod connection;
#[cfg(all(feature = "server", feature = "http"))]
pub mod http;
#[cfg(any(feature = "server", all(feature = "client", feature = "stdio")))]
pub(crate) mod pending;

#[cfg(feature = "server")]
pub use connection::{ServeStream, serve_connection};

/// The serving traits (`ServeStream`, `ServeHttp`) are implemented by roundtrip's `Server` only,
/// so that a method can be added to them without breaking anyone.
#[cfg(feature = "server")]
mod sealed {
    pub trait Sealed {}

    impl Sealed for crate::server::Server {}
}
