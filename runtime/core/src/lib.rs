//! The core of [roundtrip](https://docs.rs/roundtrip): what serves a Model Context Protocol
//! request, with no transport, no network, no process and no particular async runtime.
//!
//! The server (its registry and dispatch), what a handler sees of its request, the resolver
//! engine, the declarations the macros expand to, sealed `requestState`, tasks and skills.
//! Transports (stdio, streamable HTTP), the client, the resource server, telemetry export and
//! the runner are other crates above this one; an application depends on `roundtrip`, which
//! re-exports what is public here.
//!
//! The modules marked hidden are for roundtrip's own crates and generated code, not a public
//! API.

use roundtrip_wire as protocol;

#[doc(hidden)]
pub mod clock;
#[doc(hidden)]
pub mod declare;
pub mod describe;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod observe;
#[doc(hidden)]
pub mod request;
pub mod resolve;
pub mod seal;
pub mod server;
#[cfg(feature = "skills")]
pub mod skills;
pub mod task;
