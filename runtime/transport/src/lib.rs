//! Transports: stdio and in-memory (one newline-delimited connection loop), and streamable
//! HTTP.
//!
//! The crate roundtrip-transport, which applications name `roundtrip::transport` (and its traits
//! `roundtrip::ServeStream`, `roundtrip::ServeHttp`): see [roundtrip](https://docs.rs/roundtrip),
//! whose features `server`, `stdio`, `http`, `playground` and `auth` pick this crate's.

#[cfg(feature = "server")]
mod connection;
// The 2026-07-28 request headers and their cross-check against the body (hidden: public for
// the fuzz targets).
#[cfg(feature = "exchange")]
#[doc(hidden)]
pub mod headers;
#[cfg(all(feature = "server", feature = "http"))]
pub mod http;
// The requests in flight on a connection, of the server's and of roundtrip-client's.
#[doc(hidden)]
pub mod pending;

// One HTTP exchange with no listener, stream or session (hidden: for roundtrip-workers).
#[cfg(feature = "exchange")]
#[doc(hidden)]
pub mod exchange;
// Which `Host` and `Origin` headers are accepted (the exchange checks `Origin` only).
#[cfg(feature = "exchange")]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
mod host;
#[cfg(feature = "exchange")]
mod reply;
#[cfg(feature = "server")]
pub use connection::{ServeStream, serve_connection};

/// The serving traits (`ServeStream`, `ServeHttp`) are implemented by roundtrip's `Server` only,
/// so that a method can be added to them without breaking anyone.
#[cfg(feature = "server")]
mod sealed {
    pub trait Sealed {}

    impl Sealed for roundtrip_core::server::Server {}
}
